import Foundation
import LaminaGeometry
import LaminaGPU
import Testing
@testable import LaminaCore
@testable import LaminaModel
@testable import LaminaRender
@testable import LaminaValues
import LaminaTestSupport

/// Deep and wide trees through the renderer: no recursion per level, no work per item that
/// grows with the depth. The tests assert counts and pixels; the times are printed (the
/// figures in the report come from a release build).
@MainActor
@Suite("Deep and wide trees in the renderer", .isolatedTransactions, .withoutImplicitAnimations)
struct RenderDepthTests {
    /// A chain of `depth` layers under `root`, each `masksToBounds` with a background, built
    /// in segments (`insertSublayer` checks for cycles by walking up: adding level k of one
    /// long chain costs k). Returns the chain, outermost first.
    static func chain(depth: Int, under root: Layer, make: (Int) -> Layer) -> [Layer] {
        let layers = (0..<depth).map(make)
        let segment = 300
        var start = 0
        while start < depth {
            let end = min(depth, start + segment)
            for k in (start + 1)..<end { layers[k - 1].addSublayer(layers[k]) }
            start = end
        }
        // Segments joined top-down: each join walks up one segment's worth per segment above.
        var k = segment
        while k < depth { layers[k - 1].addSublayer(layers[k]); k += segment }
        root.addSublayer(layers[0])
        return layers
    }

    /// Takes a chain apart from the bottom (freeing a long chain of `Layer`s through their
    /// `deinit`s is the model's business, not the renderer's).
    static func dismantle(_ layers: [Layer]) {
        for l in layers.reversed() { l.removeFromSuperlayer() }
    }

    @Test("a 10⁵-deep chain, masksToBounds and a background at every level, renders into a small target: every level visited, one stencil level, the right pixels; the tree frees")
    func deepClippedChain() throws {
        try Transaction.flush()
        let depth = 100_000
        let root = rootLayer(width: 64, height: 64)
        let layers = Self.chain(depth: depth, under: root) { k in
            let l = Layer()
            // Each level covers its parent, except the last: a 32×32 square in the middle.
            l.frame = k == depth - 1 ? Rect(x: 16, y: 16, width: 32, height: 32) : Rect(x: 0, y: 0, width: 64, height: 64)
            l.masksToBounds = true
            l.backgroundColor = k == depth - 1 ? .green : (k % 2 == 0 ? .red : .blue)
            return l
        }
        let device = try GPUDevice()
        defer { device.close() }
        let target = try OffscreenTarget(device: device, size: Size(width: 64, height: 64))
        let texturesBefore = device.liveObjectCounts[.texture]
        weak var weakTree: RenderTree?
        do {
            let compositor = LayerRenderer(device: device)
            let start = Date()
            let stats = try compositor.render(root, to: target, background: .white)
            let first = Date().timeIntervalSince(start)
            #expect(stats.layersVisited == depth + 1, "\(stats.layersVisited)")
            #expect(stats.quadsDrawn == depth, "\(stats.quadsDrawn)")
            // Level depth − 2 is red (even); the last level green inside it.
            let image = try target.readPixels()
            let wrong = image.mismatches { x, y in (16..<48).contains(x) && (16..<48).contains(y) ? green : red }
            #expect(wrong.isEmpty, "\(wrong)")
            // Every level's clip is an axis-aligned rectangle: the chain is one stencil level.
            let tree = try #require(compositor.tree)
            weakTree = tree
            let deepest = try #require(tree.nodes[layers[depth - 1].id])
            let item = try #require(deepest.outerItems.first)
            #expect(item.clip?.depth == depth - 1 && item.clip?.stencilDepth == 1)
            // The outermost background (no clip), one clip push, the other quads in batches of
            // at most 16384 (QuadBatch.maxQuads), the pop at the end.
            #expect(stats.drawCalls <= 3 + (depth + 16383) / 16384, "equal clips merged into one stencil level, quads batched: \(stats.drawCalls) draw calls")
            // An incremental frame: the innermost layer moves.
            layers[depth - 1].position = Point(x: 20, y: 20)
            let start2 = Date()
            let moved = try compositor.render(root, to: target, background: .white)
            let second = Date().timeIntervalSince(start2)
            #expect(moved.layersVisited == 1 && !moved.damagedRect.isEmpty, "\(moved)")
            let image2 = try target.readPixels()
            let wrong2 = image2.mismatches { x, y in (4..<36).contains(x) && (4..<36).contains(y) ? green : red }
            #expect(wrong2.isEmpty, "\(wrong2)")
            compositor.release()
            print("render depth: 10⁵-deep clipped chain: first frame \(Int(first * 1000)) ms, moving the innermost layer \(Int(second * 1000)) ms")
        }
        #expect(weakTree == nil, "the render tree is freed")
        #expect(device.liveObjectCounts[.texture] == texturesBefore, "\(device.liveObjectCounts)")
        Self.dismantle(layers)
        try Transaction.flush()
    }

    @Test("a 10⁶-wide sibling list renders into a small target: every layer visited, the right pixels; it frees")
    func wideSiblings() throws {
        try Transaction.flush()
        let count = 1_000_000
        let root = rootLayer(width: 64, height: 64)
        for i in 0..<count {
            let x = i % 1000, y = i / 1000
            let l = Layer()
            l.frame = Rect(x: Double(x), y: Double(y), width: 1, height: 1)
            l.backgroundColor = (x + y) % 2 == 0 ? .red : .blue
            root.addSublayer(l)
        }
        let device = try GPUDevice()
        defer { device.close() }
        let target = try OffscreenTarget(device: device, size: Size(width: 64, height: 64))
        weak var weakTree: RenderTree?
        do {
            let compositor = LayerRenderer(device: device)
            let start = Date()
            let stats = try compositor.render(root, to: target, background: .white)
            let first = Date().timeIntervalSince(start)
            weakTree = compositor.tree
            #expect(stats.layersVisited == count + 1 && stats.quadsDrawn == count, "\(stats)")
            let image = try target.readPixels()
            let wrong = image.mismatches { x, y in (x + y) % 2 == 0 ? red : blue }
            #expect(wrong.isEmpty, "\(wrong)")
            // One sibling recoloured: a damage-limited frame from the grid.
            root.sublayers[1000 * 10 + 10].backgroundColor = .green
            let start2 = Date()
            let next = try compositor.render(root, to: target, background: .white)
            let second = Date().timeIntervalSince(start2)
            // The damage (its box, a point of slack around it) meets the 5×5 siblings around it.
            #expect(next.layersVisited == 1 && next.quadsDrawn <= 25, "\(next)")
            #expect(try target.readPixels()[10, 10] == green)
            compositor.release()
            print("render depth: 10⁶ siblings: first frame \(Int(first * 1000)) ms, one recoloured \(Int(second * 1000)) ms")
        }
        #expect(weakTree == nil, "the render tree is freed")
        try Transaction.flush()
    }

    @Test("clips that are not axis-aligned rectangles nest up to the stencil's 255 levels; deeper, rendering throws an error that says so")
    func stencilLimit() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let target = try OffscreenTarget(device: device, size: Size(width: 64, height: 64))
        for (depth, fits) in [(250, true), (300, false)] {
            let root = rootLayer(width: 64, height: 64)
            let layers = Self.chain(depth: depth, under: root) { k in
                let l = Layer()
                l.frame = Rect(x: 0, y: 0, width: 64, height: 64)
                l.cornerRadius = 1        // a rounded clip: a stencil level of its own
                l.masksToBounds = true
                l.backgroundColor = k == depth - 1 ? .green : .red
                return l
            }
            let compositor = LayerRenderer(device: device)
            defer { compositor.release() }
            if fits {
                try compositor.render(root, to: target, background: .white)
                #expect(try target.readPixels()[32, 32] == green)
            } else {
                #expect {
                    try compositor.render(root, to: target, background: .white)
                } throws: { error in
                    "\(error)".contains("255")
                }
            }
            Self.dismantle(layers)
        }
        try Transaction.flush()
    }

    @Test("3000 nested opacity groups render (deepest first, no recursion per level); a change deep inside renders again only the groups around it")
    func nestedGroups() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let target = try OffscreenTarget(device: device, size: Size(width: 32, height: 32))
        let root = rootLayer(width: 32, height: 32)
        let depth = 3000
        var levels: [Layer] = []
        var parent = root
        for i in 0..<depth {
            let l = Layer()
            l.frame = Rect(x: 0, y: 0, width: 32, height: 32)
            l.backgroundColor = i == depth - 1 ? .red : nil
            l.opacity = 0.9999
            parent.addSublayer(l)
            levels.append(l)
            parent = l
        }
        // Each level draws the level below it and a small square of its own: two items, a group.
        for l in levels { l.addSublayer(solid(Rect(x: 30, y: 30, width: 1, height: 1), .blue)) }
        try Transaction.flush()
        let compositor = LayerRenderer(device: device)
        defer { compositor.release() }
        let first = try compositor.render(root, to: target, background: .white)
        #expect(first.offscreenPasses == depth, "every group rendered once: \(first.offscreenPasses)")
        let inside = try target.readPixels()[10, 10]
        #expect(inside.r > 200 && inside.g < 60 && inside.b < 60, "the innermost red shows through every group: \(inside)")
        let same = try compositor.render(root, to: target, background: .white, always: true)
        #expect(same.offscreenPasses == 0, "unchanged groups are reused")
        levels[depth - 10].sublayers.last!.backgroundColor = .green
        try Transaction.flush()
        let changed = try compositor.render(root, to: target, background: .white)
        #expect(changed.offscreenPasses == depth - 9, "the changed group and those around it: \(changed.offscreenPasses)")
        Self.dismantle(levels)
        try Transaction.flush()
    }
}

import Foundation
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import Testing
@testable import LaminaCore
@testable import LaminaModel
@testable import LaminaRender
@testable import LaminaValues
import LaminaTestSupport

/// A layer that draws a pattern with hard edges (so a neighbour bleeding in would show).
@MainActor
private final class Striped: Layer {
    var tone = 0
    override func draw(in ctx: GraphicsContext) {
        ctx.setFillColor(Color(red: Double(tone % 4) / 3, green: 0.2, blue: 0.9))
        ctx.fill(bounds)
        ctx.setFillColor(Color(red: 1, green: 1, blue: 0.1, alpha: 0.8))
        var x = bounds.minX
        while x < bounds.maxX { ctx.fill(Rect(x: x, y: bounds.minY, width: 2, height: bounds.height)); x += 5 }
    }
}

@MainActor
@Suite("Atlas and batching through the compositor", .isolatedTransactions, .withoutImplicitAnimations)
struct AtlasCompositingTests {
    /// An image of loud, distinct edges: a one-pixel frame of its own colour around a checkerboard.
    private func image(_ w: Int, _ h: Int, seed: Int, opaque: Bool) -> ContentImage {
        var image = RGBAImage(width: w, height: h)
        let edge = RGBAPixel(r: UInt8(40 * (seed % 6)), g: UInt8(255 - 30 * (seed % 8)), b: UInt8(70 * (seed % 4)), a: 255)
        for y in 0..<h {
            for x in 0..<w {
                if x == 0 || y == 0 || x == w - 1 || y == h - 1 {
                    image[x, y] = edge
                } else if (x / 2 + y / 2 + seed) % 2 == 0 {
                    image[x, y] = RGBAPixel(r: 250, g: 30, b: 30, a: 255)
                } else {
                    image[x, y] = opaque ? RGBAPixel(r: 20, g: 20, b: 200, a: 255) : RGBAPixel(r: 0, g: 60, b: 0, a: 128)
                }
            }
        }
        return ContentImage(image)
    }

    /// Pixels of `a` more than 2 levels from `b`'s pixel there and from each of its eight
    /// neighbours (at most 8, as "(x,y)").
    private static func unexplained(_ a: RGBAImage, _ b: RGBAImage) -> [String] {
        var out: [String] = []
        for y in 0..<a.height {
            for x in 0..<a.width where a[x, y].maxChannelDifference(b[x, y]) > 2 && out.count < 8 {
                let near = (max(0, y - 1)...min(a.height - 1, y + 1)).contains { ny in
                    (max(0, x - 1)...min(a.width - 1, x + 1)).contains { nx in a[x, y].maxChannelDifference(b[nx, ny]) <= 2 }
                }
                if !near { out.append("(\(x),\(y)) \(a[x, y]) against \(b[x, y])") }
            }
        }
        return out
    }

    @Test("300 frames of contents added, changed and removed: the atlas's output equals textures of their own (linear and nearest filtering, contentsRect beyond the edges, nine-slice, partial redraws), and every texture is freed")
    func churnMatchesOwnTextures() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let size = Size(width: 320, height: 240)
        let withAtlas = LayerRenderer(device: device)
        let ownTextures = LayerRenderer(device: device)
        ownTextures.atlasEntrySide = 0
        let a = try OffscreenTarget(device: device, size: size)
        let b = try OffscreenTarget(device: device, size: size)
        let baseline = device.liveObjectCounts[.texture]
        let root = Layer()
        root.frame = Rect(origin: .zero, size: size)
        root.backgroundColor = Color(red: 0.95, green: 0.95, blue: 0.9)
        var random = TestRandom(state: 0xA71A_5EED_0000_0001)
        var images: [ContentImage] = []
        for k in 0..<10 {
            // Mostly small (the atlas), a few over 256 px (textures of their own).
            let w = k == 9 ? 300 : 3 + random.int(60), h = k == 8 ? 270 : 3 + random.int(60)
            images.append(image(w, h, seed: k, opaque: k % 3 != 0))
        }
        var layers: [Layer] = []
        func configure(_ l: Layer) {
            l.frame = Rect(x: random.double(-20, 300), y: random.double(-20, 220), width: random.double(4, 140), height: random.double(4, 110))
            if random.chance(0.5) {
                l.transform = Transform3D(rotationAngle: random.double(-0.6, 0.6), x: 0, y: 0, z: 1)
            }
            l.opacity = random.chance(0.6) ? 1 : random.double(0.3, 0.9)
            if random.chance(0.3) { l.contentsRect = Rect(x: random.double(-0.2, 0.4), y: random.double(-0.2, 0.4), width: random.double(0.4, 1.1), height: random.double(0.4, 1.1)) }
            if random.chance(0.3) { l.contentsCenter = Rect(x: random.double(0.1, 0.4), y: random.double(0.1, 0.4), width: random.double(0, 0.3), height: random.double(0, 0.3)) }
            if random.chance(0.3) { l.minificationFilter = .nearest; l.magnificationFilter = .nearest }
            l.contentsGravity = [.resize, .center, .resizeAspect, .topLeft][random.int(4)]
        }
        func add() {
            let l: Layer
            if random.chance(0.3) {
                let s = Striped()
                s.tone = random.int(4)
                l = s
                configure(l)
                s.setNeedsDisplay()
            } else {
                l = Layer()
                configure(l)
                l.contents = .image(images[random.int(images.count)])
            }
            root.insertSublayer(l, at: random.int(root.sublayers.count + 1))
            layers.append(l)
        }
        for _ in 0..<20 { add() }
        var compared = 0, stripedRedraws = 0
        for frame in 0..<300 {
            for _ in 0..<(1 + random.int(3)) {
                switch random.int(6) {
                case 0: if layers.count < 40 { add() }
                case 1:
                    if !layers.isEmpty {
                        let l = layers.remove(at: random.int(layers.count))
                        l.removeFromSuperlayer()
                    }
                case 2: if let l = layers.randomElement(using: &random) { configure(l) }
                case 3:
                    if let s = layers.compactMap({ $0 as? Striped }).randomElement(using: &random) {
                        s.tone += 1
                        // Regions touching the edges and corners (the atlas refreshes the border there) and inside.
                        let w = s.bounds.width, h = s.bounds.height
                        let r = [Rect(x: 0, y: 0, width: w / 3, height: h / 3), Rect(x: w * 0.6, y: h * 0.6, width: w, height: h),
                                 Rect(x: w / 3, y: h / 3, width: w / 4, height: h / 4), Rect(x: 0, y: h - 2, width: w, height: 2)][random.int(4)]
                        s.setNeedsDisplay(r)
                        stripedRedraws += 1
                    }
                case 4: if let l = layers.randomElement(using: &random), !(l is Striped) { l.contents = .image(images[random.int(images.count)]) }
                default: if let l = layers.randomElement(using: &random) { l.bounds.size = Size(width: random.double(4, 150), height: random.double(4, 120)); if let s = l as? Striped { s.setNeedsDisplay() } }
                }
            }
            try Transaction.flush()    // draws the invalid layers
            try withAtlas.render(root, to: a, background: .white)
            try ownTextures.render(root, to: b, background: .white)
            if frame % 10 == 9 {
                // Tolerance 2: llvmpipe quantizes bilinear weights to 1/256, and a coordinate in
                // a 2048-texel page rounds differently from one in a 15-texel texture; between
                // texels 230 levels apart a step of each weight is about 1 level. With nearest
                // filtering the same rounding can move the edge between two texels by a pixel
                // where a sample point lies on it (frame 209 has one, where a rotated nine-slice
                // crosses the target's edge): a pixel the other image has one pixel over.
                // A neighbour bleeding in differs by tens of levels (AtlasTests' control: 8 and
                // more), in colours the other image has nowhere near.
                let (atlas, own) = (try a.readPixels(), try b.readPixels())
                let d = atlas.difference(from: own, tolerance: 2)
                let unexplained = Self.unexplained(atlas, own)
                try #require(unexplained.isEmpty && d.differing <= 4,
                             "frame \(frame): the atlas's output differs in \(d.differing) pixels (max \(d.maxDifference)); not a moved texel edge: \(unexplained)")
                compared += 1
            }
        }
        #expect(compared == 30 && stripedRedraws > 30)
        let atlasUsed = try #require(withAtlas.atlasStatistics)
        #expect(atlasUsed.pagesCreated >= 1, "\(atlasUsed)")
        // Everything removed: no content is held, and the pages are gone.
        for l in layers { l.removeFromSuperlayer() }
        try withAtlas.render(root, to: a, background: .white)
        try ownTextures.render(root, to: b, background: .white)
        #expect(withAtlas.cachedTextureCount == 0 && ownTextures.cachedTextureCount == 0)
        #expect(withAtlas.atlasStatistics?.entries == 0 && withAtlas.atlasStatistics?.pages == 0, "\(String(describing: withAtlas.atlasStatistics))")
        #expect(device.liveObjectCounts[.texture] == baseline, "\(device.liveObjectCounts)")
        withAtlas.release(); ownTextures.release(); a.release(); b.release()
        device.purgeCaches()
        #expect(device.liveObjectCounts.total == 0, "\(device.liveObjectCounts)")
    }

    @Test("contents changed while hidden: the old image is freed, the new one is shown when the layer reappears")
    func contentsChangedWhileHidden() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let root = Layer()
        root.frame = Rect(x: 0, y: 0, width: 40, height: 40)
        let l = Layer()
        l.frame = Rect(x: 0, y: 0, width: 40, height: 40)
        let red = ContentImage(RGBAImage(width: 4, height: 4, fill: RGBAPixel(r: 255, g: 0, b: 0, a: 255)))
        let blue = ContentImage(RGBAImage(width: 4, height: 4, fill: RGBAPixel(r: 0, g: 0, b: 255, a: 255)))
        l.contents = .image(red)
        root.addSublayer(l)
        let compositor = LayerRenderer(device: device)
        defer { compositor.release() }
        let target = try OffscreenTarget(device: device, size: Size(width: 40, height: 40))
        try compositor.render(root, to: target, background: .white)
        #expect(try target.readPixels()[20, 20] == RGBAPixel(r: 255, g: 0, b: 0, a: 255))
        l.isHidden = true
        try compositor.render(root, to: target, background: .white)
        l.contents = .image(blue)            // red is no longer shown: freed (its atlas page with it)
        try compositor.render(root, to: target, background: .white)
        #expect(compositor.cachedTextureCount == 0 && compositor.atlasStatistics?.pages == 0)
        l.isHidden = false
        try compositor.render(root, to: target, background: .white)
        #expect(try target.readPixels()[20, 20] == RGBAPixel(r: 0, g: 0, b: 255, a: 255))
    }

    @Test("overlapping translucent layers of alternating images: the same pixels batched in the atlas (a few draw calls) as drawn from textures of their own (a draw call per layer)")
    func batchingKeepsOrder() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let size = Size(width: 200, height: 120)
        let root = Layer()
        root.frame = Rect(origin: .zero, size: size)
        let red = image(16, 16, seed: 1, opaque: true), blue = image(16, 16, seed: 2, opaque: false)
        for i in 0..<60 {
            let l = Layer()
            l.frame = Rect(x: Double(i) * 2.5, y: Double(i % 7) * 9, width: 40, height: 40)
            l.contents = .image(i % 2 == 0 ? red : blue)
            l.opacity = 0.7
            l.allowsGroupOpacity = false     // each quad faded alone: no offscreen groups
            if i % 3 == 0 { l.backgroundColor = Color(red: 0, green: 0.5, blue: 0.5, alpha: 0.5) }
            root.addSublayer(l)
        }
        let batched = LayerRenderer(device: device), unbatched = LayerRenderer(device: device)
        unbatched.atlasEntrySide = 0
        defer { batched.release(); unbatched.release() }
        let a = try OffscreenTarget(device: device, size: size), b = try OffscreenTarget(device: device, size: size)
        let s1 = try batched.render(root, to: a, background: .white)
        let s2 = try unbatched.render(root, to: b, background: .white)
        let d = try a.readPixels().difference(from: b.readPixels(), tolerance: 1)
        #expect(d.differing == 0, "\(d.differing) pixels differ (max \(d.maxDifference))")
        #expect(s1.quadsDrawn == 80 && s2.quadsDrawn == 80, "\(s1) / \(s2)")
        // Textures of their own alternate every layer; in the atlas, only the program changes
        // (solid backgrounds between contents) — and the background's solid quad could not
        // be moved without changing the picture.
        #expect(s2.drawCalls >= 60, "\(s2.drawCalls)")
        #expect(s1.drawCalls <= 41, "\(s1.drawCalls)")
        // Without the backgrounds, one draw call for all 60.
        for l in root.sublayers { l.backgroundColor = nil }
        let s3 = try batched.render(root, to: a, background: .white)
        #expect(s3.drawCalls == 1, "\(s3)")
    }
}

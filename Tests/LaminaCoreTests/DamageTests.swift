import CGLES
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


/// A layer that draws a pattern depending on a counter (so invalidated rectangles show).
@MainActor
private final class Painted: Layer {
    var tone = 0
    override func draw(in ctx: GraphicsContext) {
        ctx.setFillColor(Color(red: Double(tone % 5) / 4, green: 0.5, blue: Double(tone % 3) / 2))
        ctx.fill(bounds)
        ctx.setFillColor(.white)
        ctx.fillEllipse(in: Rect(x: bounds.width * 0.25, y: bounds.height * 0.25, width: bounds.width / 2, height: bounds.height / 2))
    }
}

@MainActor
@Suite("Damage: recomposing only what changed", .isolatedTransactions, .withoutImplicitAnimations)
struct DamageTests {
    // (Seed 30 failed by one pixel at frame 47 while a target got its depth/stencil buffer
    // at its first clip and kept it: see `FullFrameReason.stencilChanged`.)
    @Test("1000 frames of random changes: the damage-limited target equals a full recomposite, and every changed pixel lies inside the reported damage", arguments: DamageFuzzSeeds.or([0, 30]))
    func randomFrames(seed: UInt64) throws {
        let rig = try DamageRig()
        defer { rig.close() }
        let root = rig.root
        var random = DamageFuzzSeeds.random(0x9E37_79B9_7F4A_7C15, seed: seed)
        let images = (0..<3).map { k in
            var image = RGBAImage(width: 6, height: 6)
            for y in 0..<6 { for x in 0..<6 {
                image[x, y] = (x + y + k) % 2 == 0 ? RGBAPixel(r: 200, g: UInt8(60 * k), b: 40, a: 255) : RGBAPixel(r: 20, g: 20, b: UInt8(90 * k), a: 255)
            } }
            return ContentImage(image)
        }
        var layers: [Layer] = []
        func randomColor() -> Color { Color(red: random.double(0, 1), green: random.double(0, 1), blue: random.double(0, 1), alpha: random.chance(0.3) ? 0.6 : 1) }
        func makeLayer(in parent: Layer) -> Layer {
            let l: Layer = random.chance(0.2) ? Painted() : (random.chance(0.1) ? TransformLayer() : Layer())
            // Mostly inside the parent (so that moving a parent visibly moves its sublayers),
            // sometimes past its edges.
            let p = parent.bounds.size
            l.frame = Rect(x: random.double(-0.1, 0.8) * p.width, y: random.double(-0.1, 0.8) * p.height,
                           width: random.double(0.15, 0.6) * p.width + 3, height: random.double(0.15, 0.6) * p.height + 3)
            if random.chance(0.7) { l.backgroundColor = randomColor() }
            if random.chance(0.3) { l.contents = .image(images[random.int(images.count)]) }
            if random.chance(0.2) { l.borderWidth = random.double(1, 4); l.borderColor = randomColor() }
            if random.chance(0.3) { l.cornerRadius = random.double(0, 10) }
            if random.chance(0.2) { l.masksToBounds = true }
            if let p = l as? Painted { p.setNeedsDisplay() }
            return l
        }
        func addRandomLayer() {
            let parent = layers.isEmpty || random.chance(0.3) ? root : layers[random.int(layers.count)]
            guard !(parent is TransformLayer && parent.sublayers.count > 3) else { return }
            let l = makeLayer(in: parent)
            parent.insertSublayer(l, at: random.int(parent.sublayers.count + 1))
            layers.append(l)
        }
        for _ in 0..<12 { addRandomLayer() }
        try rig.settle()

        var kinds: [String: Int] = [:]
        var movedParents = 0
        for frame in 0..<1000 {
            for _ in 0..<(1 + random.int(2)) {
                guard !layers.isEmpty else { addRandomLayer(); continue }
                // Half the time a layer with sublayers (its subtree moves with it).
                let parents = layers.filter { !$0.sublayers.isEmpty }
                let l = !parents.isEmpty && random.chance(0.5) ? parents[random.int(parents.count)] : layers[random.int(layers.count)]
                // Changes of structure (order, add, remove, clipping) less often than the
                // changes an animation makes.
                let structural = [4, 5, 6, 7, 10]
                var kind = random.int(18)
                if structural.contains(kind) && random.chance(0.6) { kind = [0, 1, 2, 8, 12, 13][random.int(6)] }
                switch kind {
                case 0: l.position = Point(x: l.position.x + random.double(-15, 15), y: l.position.y + random.double(-15, 15))
                        if !l.sublayers.isEmpty { movedParents += 1 }
                case 1: l.transform = Transform3D(rotationAngle: random.double(-1, 1), x: 0, y: 0, z: 1)
                        .concatenating(Transform3D(scaleX: random.double(0.5, 1.5), y: random.double(0.5, 1.5)))
                case 2: l.opacity = random.chance(0.2) ? 1 : random.double(0.2, 1)
                case 3: l.isHidden.toggle()
                case 4: l.zPosition = Double(random.int(3))
                case 5: if let p = l.superlayer { p.insertSublayer(l, at: random.int(p.sublayers.count)) }
                case 6: if layers.count < 40 { addRandomLayer() }
                case 7: l.removeFromSuperlayer(); layers.removeAll { $0 === l || !$0.isDescendant(of: root) }
                case 8: if let p = l as? Painted { p.tone += 1; p.setNeedsDisplay(Rect(x: random.double(0, 10), y: random.double(0, 10), width: random.double(1, 20), height: random.double(1, 20))) }
                        else { l.backgroundColor = randomColor() }
                case 9: l.contents = random.chance(0.2) ? nil : .image(images[random.int(images.count)])
                case 10: l.masksToBounds.toggle()
                case 11: l.sublayerTransform = random.chance(0.5) ? .identity : { var t = Transform3D.identity; t.m34 = -1 / random.double(50, 400); return t }()
                case 12: l.transform = Transform3D(rotationAngle: random.double(-1.4, 1.4), x: 0, y: 1, z: 0)
                case 13: l.bounds = Rect(origin: Point(x: random.double(-5, 5), y: random.double(-5, 5)), size: Size(width: random.double(4, 50), height: random.double(4, 40)))
                case 14: l.cornerRadius = random.double(0, 12); l.borderColor = randomColor()
                case 15: l.contentsRect = Rect(x: random.double(0, 0.5), y: random.double(0, 0.5), width: random.double(0.3, 0.5), height: random.double(0.3, 0.5))
                case 16:
                    // Strong perspective in the superlayer and a steep turn: part of the layer
                    // passes behind the eye (w < 0); sometimes single-sided.
                    if let p = l.superlayer, !(p is TransformLayer) { p.sublayerTransform = { var t = Transform3D.identity; t.m34 = -1 / random.double(8, 40); return t }() }
                    l.transform = Transform3D(rotationAngle: (random.chance(0.5) ? 1 : -1) * random.double(0.6, 2.6), x: 0, y: 1, z: 0)
                    if random.chance(0.3) { l.isDoubleSided.toggle() }
                default:
                    // Nested flattening: the layer and its sublayers each turned in a strong
                    // perspective of their own superlayer (ghosts where both are behind the eye).
                    var t = Transform3D.identity
                    t.m34 = -1 / random.double(8, 40)
                    l.sublayerTransform = t
                    if let p = l.superlayer, !(p is TransformLayer) { p.sublayerTransform = t }
                    l.transform = Transform3D(rotationAngle: random.double(-1.5, 1.5), x: random.double(-1, 1), y: 1, z: 0)
                    for s in l.sublayers { s.transform = Transform3D(rotationAngle: random.double(-1.5, 1.5), x: 0, y: 1, z: random.double(-0.3, 0.3)) }
                }
                kinds["\(kind)", default: 0] += 1
            }
            try rig.commitAndCheck("seed \(seed) frame \(frame)")
        }
        let (partial, skipped) = (rig.partial, rig.skipped)
        #expect(kinds.count == 18, "every kind of change was tried: \(kinds)")
        // The incremental path is what is tested: most frames recomposite part of the target.
        #expect(partial > 200, "\(partial) frames were damage-limited, \(skipped) skipped")
        print("damage fuzz: \(partial) damage-limited frames, \(skipped) skipped, \(1000 - partial - skipped) full; parents moved \(movedParents) times")
    }
}

/// A tree hosted on an offscreen target, and a renderer that draws it from scratch into a
/// second target for comparison (`matchesFreshRender`).
@MainActor
private final class HostedTree {
    let device: GPUDevice, target: OffscreenTarget, root = Layer(), host: LayerTreeHost
    private let fresh: LayerRenderer, reference: OffscreenTarget

    init(size: Size) throws {
        try Transaction.flush()
        device = try GPUDevice()
        target = try OffscreenTarget(device: device, size: size)
        reference = try OffscreenTarget(device: device, size: size)
        root.frame = Rect(origin: .zero, size: size)
        host = LayerTreeHost(rootLayer: root, target: target, background: .white)
        fresh = LayerRenderer(device: device)
    }

    func close() {
        fresh.release()
        reference.release()
        host.detach()
        device.close()
    }

    /// A renderer with nothing kept draws the tree; the host's target equals it within
    /// `tolerance` levels.
    func matchesFreshRender(tolerance: Int = 0) throws -> Bool {
        fresh.release()
        try fresh.render(root, to: reference, background: .white)
        return try target.readPixels().difference(from: reference.readPixels(), tolerance: tolerance).differing == 0
    }
}

@MainActor
@Suite("Damage: cases worked out by hand", .isolatedTransactions, .withoutImplicitAnimations)
struct DamageCaseTests {
    private func setup() throws -> (device: GPUDevice, target: OffscreenTarget, root: Layer, host: LayerTreeHost) {
        try Transaction.flush()
        let device = try GPUDevice()
        let target = try OffscreenTarget(device: device, size: Size(width: 100, height: 100))
        let root = Layer()
        root.frame = Rect(x: 0, y: 0, width: 100, height: 100)
        let host = LayerTreeHost(rootLayer: root, target: target, background: .white)
        return (device, target, root, host)
    }

    @Test("moving a layer recomposites its old and new boxes only, its sublayers move with it, and nothing else is visited")
    func moveParent() throws {
        let (device, target, root, host) = try setup()
        defer { host.detach(); device.close() }
        let parent = Layer()
        parent.frame = Rect(x: 10, y: 10, width: 20, height: 20)
        parent.backgroundColor = .red
        let child = Layer()
        child.frame = Rect(x: 5, y: 5, width: 5, height: 5)
        child.backgroundColor = .blue
        parent.addSublayer(child)
        root.addSublayer(parent)
        for i in 0..<50 {
            let other = Layer()
            other.frame = Rect(x: Double(i % 10) * 10, y: 60 + Double(i / 10) * 8, width: 6, height: 6)
            other.backgroundColor = .green
            root.addSublayer(other)
        }
        try Transaction.flush()
        parent.position = Point(x: parent.position.x + 40, y: parent.position.y)
        try Transaction.flush()
        let stats = host.lastFrame
        #expect(stats.layersVisited == 2, "the moved layer and its sublayer: \(stats.layersVisited)")
        #expect(stats.damagedRect.minX >= 8 && stats.damagedRect.maxX <= 72 && stats.damagedRect.maxY <= 32, "\(stats.damagedRect)")
        let image = try target.readPixels()
        #expect(image[20, 20] == RGBAPixel(r: 255, g: 255, b: 255, a: 255), "the old place is cleared")
        #expect(image[55, 20] == RGBAPixel(r: 255, g: 0, b: 0, a: 255))
        #expect(image[57, 17] == RGBAPixel(r: 0, g: 0, b: 255, a: 255), "the sublayer moved with it")
    }

    @Test("the target has its depth/stencil buffer exactly while something in it is drawn in a stencil clip (rounded or turned; an axis-aligned rectangle is the scissor's); when that changes the frame is drawn whole, and pixels equal a fresh render")
    func stencilFollowsClips() throws {
        let tree = try HostedTree(size: Size(width: 160, height: 120))
        defer { tree.close() }
        let (target, root, host) = (tree.target, tree.root, tree.host)
        // A turned layer reaching past the target's bottom edge, whose left edge passes
        // within 0.0011 px of pixel (73, 112)'s centre: llvmpipe keeps the primitive whole
        // without a depth/stencil buffer (the pixel is left out) and clips it with one (the
        // pixel is covered). Drawn in part at the change, the target kept the old pixel.
        let turned = Layer()
        turned.anchorPoint = .zero
        turned.bounds = Rect(x: 0, y: 0, width: 45.010752000000004, height: 71.32830399999999)
        turned.position = Point(x: 60.98050724384721, y: 91.50716880330957)
        var t = Transform3D.identity
        (t.m11, t.m12, t.m21, t.m22) = (0.8588424166221902, -0.5122398885391065, 0.5122398885391065, 0.8588424166221902)
        turned.transform = t
        turned.backgroundColor = .blue
        root.addSublayer(turned)
        let clipper = Layer()
        clipper.frame = Rect(x: 120, y: 5, width: 30, height: 30)
        let inner = Layer()
        inner.frame = Rect(x: 10, y: 10, width: 40, height: 40)
        inner.backgroundColor = .red
        clipper.addSublayer(inner)
        root.addSublayer(clipper)
        try Transaction.flush()
        #expect(target.ownStencilAttached == false, "nothing clips: no depth/stencil buffer (llvmpipe's faster rule)")


        // An axis-aligned rectangle clips by the scissor: no buffer, drawn in part.
        clipper.masksToBounds = true
        try Transaction.flush()
        #expect(target.ownStencilAttached == false, "a rectangle clip needs no stencil")
        #expect(host.lastFrame.fullFrameReason == nil && !host.lastFrame.damageRects.isEmpty)
        #expect(try tree.matchesFreshRender())

        // Rounded corners need the stencil: attached, the frame drawn whole.
        clipper.cornerRadius = 6
        try Transaction.flush()
        #expect(target.ownStencilAttached == true)
        #expect(host.lastFrame.fullFrameReason == .stencilChanged, "drawn whole: \(String(describing: host.lastFrame.fullFrameReason))")
        #expect(try tree.matchesFreshRender())

        // A change elsewhere while it still clips: damage-limited, the buffer stays.
        inner.backgroundColor = .green
        try Transaction.flush()
        #expect(host.lastFrame.fullFrameReason == nil && target.ownStencilAttached == true)

        // Square again: the scissor's, the buffer goes.
        clipper.cornerRadius = 0
        try Transaction.flush()
        #expect(target.ownStencilAttached == false)
        #expect(host.lastFrame.fullFrameReason == .stencilChanged)
        #expect(try tree.matchesFreshRender())

        // Turned by its parent: the rectangle is no longer axis-aligned (the layers below it
        // are placed again, their items counted again).
        let holder = Layer()
        holder.frame = root.frame
        clipper.removeFromSuperlayer()
        holder.addSublayer(clipper)
        root.addSublayer(holder)
        try Transaction.flush()
        #expect(target.ownStencilAttached == false && host.lastFrame.fullFrameReason == nil)
        holder.transform = Transform3D(rotationAngle: 0.2, x: 0, y: 0, z: 1)
        try Transaction.flush()
        #expect(target.ownStencilAttached == true && host.lastFrame.fullFrameReason == .stencilChanged)
        #expect(try tree.matchesFreshRender())
        holder.transform = .identity
        try Transaction.flush()
        #expect(target.ownStencilAttached == false && host.lastFrame.fullFrameReason == .stencilChanged)
        #expect(try tree.matchesFreshRender())

        clipper.masksToBounds = false
        try Transaction.flush()
        #expect(target.ownStencilAttached == false && host.lastFrame.fullFrameReason == nil)
        #expect(try tree.matchesFreshRender())

        // A group (opacity over overlapping layers) clips nothing: still none.
        clipper.backgroundColor = .yellow
        clipper.opacity = 0.5
        try Transaction.flush()
        #expect(target.ownStencilAttached == false && host.lastFrame.fullFrameReason == nil)
        #expect(host.compositor.builder?.target?.items.array.contains { $0.kind == GroupCompositeItem.self } == true)
    }

    @Test("gradients, backdrops and groups that mask to bounds need the stencil only when their own clip is rounded or turned: axis-aligned, the target keeps no depth/stencil buffer")
    func selfClippingKindsNeedStencilWhenRoundedOrTurned() throws {
        let tree = try HostedTree(size: Size(width: 120, height: 90))
        defer { tree.close() }
        let (target, root, host) = (tree.target, tree.root, tree.host)
        let stripes = Layer()
        stripes.frame = Rect(x: 0, y: 0, width: 120, height: 90)
        for i in 0..<6 {
            let s = Layer()
            s.frame = Rect(x: Double(i) * 20, y: 0, width: 10, height: 90)
            s.backgroundColor = .black
            stripes.addSublayer(s)
        }
        root.addSublayer(stripes)
        let gradient = GradientLayer()
        gradient.frame = Rect(x: 5, y: 5, width: 40, height: 30)
        gradient.colors = [.red, .blue]
        let backdrop = Layer()
        backdrop.frame = Rect(x: 60, y: 10, width: 40, height: 30)
        backdrop.backgroundFilters = [.gaussianBlur(radius: 3)]
        let group = Layer()
        group.frame = Rect(x: 10, y: 50, width: 40, height: 30)
        group.masksToBounds = true
        group.opacity = 0.6
        group.shadowOpacity = 0.8
        group.shadowOffset = Size(width: 4, height: 4)
        let inner = Layer()
        inner.frame = Rect(x: 10, y: 10, width: 40, height: 40)
        inner.backgroundColor = .green
        group.addSublayer(inner)
        for l in [gradient, backdrop, group] { root.addSublayer(l) }
        try Transaction.flush()
        #expect(target.ownStencilAttached == false, "all three axis-aligned and square: no stencil")
        #expect(try tree.matchesFreshRender())

        for (layer, name) in [(gradient as Layer, "gradient"), (backdrop, "backdrop"), (group, "group")] {
            layer.cornerRadius = 6
            try Transaction.flush()
            #expect(target.ownStencilAttached == true && host.lastFrame.fullFrameReason == .stencilChanged, "\(name) rounded")
            #expect(try tree.matchesFreshRender(), "\(name) rounded")
            layer.cornerRadius = 0
            try Transaction.flush()
            #expect(target.ownStencilAttached == false && host.lastFrame.fullFrameReason == .stencilChanged, "\(name) square again")
            layer.transform = Transform3D(rotationAngle: 0.25, x: 0, y: 0, z: 1)
            try Transaction.flush()
            #expect(target.ownStencilAttached == (layer !== gradient), "\(name) turned (a gradient draws a turned quad, no clip)")
            #expect(try tree.matchesFreshRender(), "\(name) turned")
            layer.transform = .identity
            try Transaction.flush()
            #expect(target.ownStencilAttached == false, "\(name) back")
            #expect(try tree.matchesFreshRender(), "\(name) back")
        }
        // A gradient that masks to bounds clips by its own (rectangular) clip: the scissor's.
        gradient.masksToBounds = true
        try Transaction.flush()
        #expect(target.ownStencilAttached == false)
        #expect(try tree.matchesFreshRender())
    }

    @Test("a transform layer nested in another's 3D context: changing its bounds, sublayerTransform, position or transform sorts the context again — drawn in part, equal to a fresh render")
    func nestedTransformLayerChanges() throws {
        let tree = try HostedTree(size: Size(width: 128, height: 96))
        defer { tree.close() }
        let (target, root, host) = (tree.target, tree.root, tree.host)
        root.backgroundColor = .white
        // (Damage fuzz seed 117: a nested transform layer draws nothing, so it had no frame
        // data, and its changes were passed over — its sublayers stayed where they were.)
        let outer = TransformLayer(), nested = TransformLayer(), card = Layer(), other = Layer()
        outer.frame = Rect(x: 10, y: 10, width: 100, height: 70)
        nested.frame = Rect(x: 20, y: 10, width: 60, height: 50)
        var perspective = Transform3D.identity
        perspective.m34 = -1 / 80
        nested.sublayerTransform = perspective
        card.frame = Rect(x: 10, y: 5, width: 30, height: 30)
        card.backgroundColor = .blue
        card.transform = Transform3D(rotationAngle: 0.4, x: 0, y: 1, z: 0)
        other.frame = Rect(x: 0, y: 40, width: 20, height: 15)
        other.backgroundColor = .red
        nested.addSublayer(card)
        outer.addSublayer(nested)
        outer.addSublayer(other)
        root.addSublayer(outer)
        try Transaction.flush()
        let changes: [(String, () -> Void)] = [
            ("bounds", { nested.bounds = Rect(x: 3, y: -2, width: 40, height: 30) }),
            ("sublayerTransform", { var t = Transform3D.identity; t.m34 = -1 / 40; nested.sublayerTransform = t }),
            ("position", { nested.position = Point(x: 70, y: 40) }),
            ("transform", { nested.transform = Transform3D(rotationAngle: 0.3, x: 0, y: 0, z: 1) }),
            ("hidden", { nested.isHidden = true }),
            ("shown", { nested.isHidden = false }),
        ]
        for (name, change) in changes {
            let before = try target.readPixels()
            change()
            try Transaction.flush()
            #expect(try tree.matchesFreshRender(tolerance: 2), "\(name): equals a fresh render")
            let now = try target.readPixels()
            #expect(now.difference(from: before, tolerance: 0).differing > 0, "\(name): the picture changed")
            #expect(host.lastFrame.rebuildReason == nil && !host.lastFrame.damageRects.isEmpty, "\(name): drawn in part")
        }
    }

    @Test("commits are O(changed): in trees of 10³ and 10⁴ layers, moving one and recolouring another hands the renderer 2 states, visits 2 layers and draws the same quads")
    func commitsScaleWithChanges() throws {
        func run(leaves: Int) throws -> [FrameStatistics] {
            try Transaction.flush()
            let device = try GPUDevice()
            defer { device.close() }
            let target = try OffscreenTarget(device: device, size: Size(width: 400, height: 100))
            let root = Layer()
            root.frame = Rect(x: 0, y: 0, width: 400, height: 100)
            let host = LayerTreeHost(rootLayer: root, target: target, background: .white)
            defer { host.detach() }
            // Rows of 200 leaves (2×2 pt at a 2 pt pitch), each row a container layer:
            // the neighbourhood of a leaf looks the same in both trees.
            var rows: [Layer] = []
            for r in 0..<(leaves / 200) {
                let row = Layer()
                row.frame = Rect(x: 0, y: Double(r) * 2, width: 400, height: 2)
                for c in 0..<200 {
                    let leaf = Layer()
                    leaf.frame = Rect(x: Double(c) * 2, y: 0, width: 2, height: 2)
                    leaf.backgroundColor = (r + c) % 2 == 0 ? .red : .blue
                    row.addSublayer(leaf)
                }
                root.addSublayer(row)
                rows.append(row)
            }
            try Transaction.flush()
            #expect(host.lastFrame.layersVisited == leaves + rows.count + 1, "the first frame sees them all")
            var frames: [FrameStatistics] = []
            for step in 0..<4 {
                let mover = rows[2].sublayers[50 + step]
                mover.position = Point(x: mover.position.x, y: mover.position.y + 1)
                rows[3].sublayers[53 + step].backgroundColor = .green
                try Transaction.flush()
                frames.append(host.lastFrame)
            }
            let image = try target.readPixels()
            #expect(image[2 * 56 + 1, 7] == RGBAPixel(r: 0, g: 255, b: 0, a: 255), "the recoloured leaf")
            return frames
        }
        let small = try run(leaves: 1_000)
        let large = try run(leaves: 10_000)
        for (a, b) in zip(small, large) {
            #expect(b.layersCommitted == 2 && b.layersVisited == 2, "\(b.layersCommitted) states, \(b.layersVisited) visited")
            #expect(a.layersCommitted == b.layersCommitted && a.layersVisited == b.layersVisited)
            #expect(a.quadsDrawn == b.quadsDrawn && a.drawCalls == b.drawCalls, "same work at 10³ and 10⁴: \(a) / \(b)")
            #expect(b.quadsDrawn < 40, "only the leaves around the two changed: \(b.quadsDrawn)")
            #expect(b.damagedRect.width * b.damagedRect.height < 400 * 100 / 4, "\(b.damagedRect)")
        }
    }

    @Test("frame timings: CPU time of each phase where it ran, GPU time from timer queries a frame or more later")
    func timings() throws {
        let (device, _, root, host) = try setup()
        defer { host.detach(); device.close() }
        final class Busy: Layer {
            var laidOut = 0
            override func layoutSublayers() {
                laidOut += 1
                var x = 0.0
                for i in 0..<200_000 { x += Double(i).squareRoot() }
                if x < 0 { print(x) }
            }
            override func draw(in ctx: GraphicsContext) {
                for i in 0..<400 { ctx.setFillColor(Color(red: Double(i % 7) / 7, green: 0, blue: 0)); ctx.fillEllipse(in: bounds) }
            }
        }
        let busy = Busy()
        busy.frame = Rect(x: 10, y: 10, width: 60, height: 60)
        root.addSublayer(busy)
        busy.setNeedsDisplay()
        busy.setNeedsLayout()
        try Transaction.flush()
        let t = host.lastFrame.timings
        #expect(busy.laidOut == 1)
        #expect(t.layout > 0 && t.display > 0 && t.commit > 0 && t.build > 0 && t.execute > 0, "\(t)")
        // An unchanged frame spends nothing on layout or display.
        busy.position = Point(x: 50, y: 50)
        try Transaction.flush()
        #expect(host.lastFrame.timings.layout == 0 && host.lastFrame.timings.display == 0, "\(host.lastFrame.timings)")
        // Timer queries (llvmpipe and NVIDIA both have them) are on by default on a GPU and
        // off on a software rasterizer, whose times miss most of the rasterizing; results
        // come in a frame or more later.
        #expect(device.capabilities.timerQueries)
        #expect(host.compositor.timesGPU == !device.capabilities.isSoftwareRasterizer)
        if !host.compositor.timesGPU { #expect(host.lastFrame.timings.gpu == nil) }
        host.compositor.timesGPU = true
        var gpu: Double?
        for i in 0..<20 where gpu == nil {
            busy.position = Point(x: 40 + Double(i), y: 50)
            try Transaction.flush()
            gpu = host.lastFrame.timings.gpu
            usleep(2_000)
        }
        #expect(gpu != nil && gpu! > 0, "\(host.lastFrame.timings)")
    }

    @Test("a partial redraw damages only the redrawn part of the layer, through its transform, and not while hidden")
    func partialRedraw() throws {
        let (device, target, root, host) = try setup()
        defer { host.detach(); device.close() }
        let layer = Painted()
        layer.frame = Rect(x: 0, y: 0, width: 80, height: 80)
        layer.setNeedsDisplay()
        root.addSublayer(layer)
        try Transaction.flush()
        layer.tone += 1
        layer.setNeedsDisplay(Rect(x: 40, y: 40, width: 10, height: 10))
        try Transaction.flush()
        var d = host.lastFrame.damagedRect
        #expect(host.lastFrame.layersDrawn == 1)
        // The 10×10 rectangle, a texel of filtering around it and a point of slack.
        #expect(d.minX >= 37 && d.minY >= 37 && d.maxX <= 53 && d.maxY <= 53 && d.width >= 10, "\(d)")
        // Scaled by 0.5 about its centre (20…60): the rectangle lands at 40…45.
        layer.transform = Transform3D(scaleX: 0.5, y: 0.5)
        try Transaction.flush()
        layer.tone += 1
        layer.setNeedsDisplay(Rect(x: 40, y: 40, width: 10, height: 10))
        try Transaction.flush()
        d = host.lastFrame.damagedRect
        #expect(d.minX >= 37 && d.maxX <= 48 && d.width >= 5, "\(d)")
        let reference = try OffscreenTarget(device: device, size: target.size)
        let full = LayerRenderer(device: device)
        defer { full.release() }
        try full.render(root, to: reference, background: .white)
        #expect(try target.readPixels().difference(from: reference.readPixels()).differing == 0)
        // Hidden: redrawing damages nothing.
        layer.isHidden = true
        try Transaction.flush()
        layer.tone += 1
        layer.setNeedsDisplay(Rect(x: 0, y: 0, width: 10, height: 10))
        try Transaction.flush()
        #expect(host.lastFrame.skipped || host.lastFrame.damagedRect == .zero, "\(host.lastFrame)")
    }

    @Test("showsDamage flashes each frame's own damage in green; the next frame removes it, changes or not")
    func damageFlash() throws {
        let (device, target, root, host) = try setup()
        defer { host.detach(); device.close() }
        let a = Layer(); a.frame = Rect(x: 0, y: 0, width: 20, height: 20); a.backgroundColor = .red
        let b = Layer(); b.frame = Rect(x: 60, y: 60, width: 20, height: 20); b.backgroundColor = .blue
        root.addSublayer(a); root.addSublayer(b)
        try Transaction.flush()
        host.compositor.showsDamage = true
        a.backgroundColor = .black
        try Transaction.flush()
        let flashed = try target.readPixels()
        #expect(flashed[10, 10] != RGBAPixel(r: 0, g: 0, b: 0, a: 255) && flashed[10, 10].g > 30, "the change, tinted: \(flashed[10, 10])")
        #expect(flashed[70, 70] == RGBAPixel(r: 0, g: 0, b: 255, a: 255), "nothing else")
        b.backgroundColor = .red
        try Transaction.flush()
        let next = try target.readPixels()
        #expect(next[10, 10] == RGBAPixel(r: 0, g: 0, b: 0, a: 255), "the last flash is gone")
        #expect(next[70, 70].g > 30, "the new change is flashed: \(next[70, 70])")
        #expect(host.lastFrame.damagedRect.minX < 20, "the old flash's box is redrawn too")
        // No change: the host still composites once, to remove the flash.
        try Transaction.commitIfNeeded()
        #expect(try target.readPixels()[70, 70] == RGBAPixel(r: 255, g: 0, b: 0, a: 255))
        #expect(!host.compositor.showsDamageFlash, "nothing flashed in a frame without changes")
    }

    @Test("an opacity group is drawn into an image sized to its content, reused while nothing in it changes")
    func groupCache() throws {
        let (device, target, root, host) = try setup()
        defer { host.detach(); device.close() }
        let group = Layer()
        group.frame = Rect(x: 10, y: 10, width: 30, height: 20)
        group.opacity = 0.5
        let a = Layer(); a.frame = Rect(x: 0, y: 0, width: 20, height: 20); a.backgroundColor = .red
        let b = Layer(); b.frame = Rect(x: 10, y: 0, width: 20, height: 20); b.backgroundColor = .blue
        group.addSublayer(a); group.addSublayer(b)
        let sibling = Layer(); sibling.frame = Rect(x: 60, y: 60, width: 10, height: 10); sibling.backgroundColor = .green
        root.addSublayer(group); root.addSublayer(sibling)
        try Transaction.flush()
        #expect(host.lastFrame.offscreenPasses == 1)
        #expect(device.liveObjectCounts[.texture] >= 1)
        let overlap = try target.readPixels()[25, 15]        // blue over red, faded as one image: (127, 0, 127) over white
        #expect(overlap.maxChannelDifference(RGBAPixel(r: 128, g: 127, b: 255, a: 255)) <= 1, "\(overlap)")
        sibling.backgroundColor = .yellow
        try Transaction.flush()
        #expect(host.lastFrame.offscreenPasses == 0, "the group's image is reused")
        #expect(host.lastFrame.damagedRect.minX >= 58, "only the sibling's box: \(host.lastFrame.damagedRect)")
        #expect(try target.readPixels()[25, 15] == overlap)
        b.backgroundColor = .green
        try Transaction.flush()
        #expect(host.lastFrame.offscreenPasses == 1, "something inside changed: drawn again")
        let d = host.lastFrame.damagedRect
        #expect(d.minX >= 8 && d.maxX <= 42 && d.minY >= 8 && d.maxY <= 32, "the group's box: \(d)")
        #expect(try target.readPixels()[25, 15].maxChannelDifference(RGBAPixel(r: 128, g: 255, b: 128, a: 255)) <= 1)
    }

    @Test("a target whose buffers rotate (buffer age 2) gets the damage of the frame it missed too; age 0 redraws it whole")
    func bufferAge() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let size = PixelSize(width: 64, height: 64)
        // A swapchain of two buffers behind one framebuffer (as a window surface's back
        // buffer): its colour attachment alternates; the target is the same object.
        let buffers = try [device.makeTexture(pixelSize: size), device.makeTexture(pixelSize: size)]
        var fbo: GLuint = 0
        func attach(_ texture: Texture) throws {
            try device.withContext {
                if fbo == 0 { glGenFramebuffers(1, &fbo) }
                glBindFramebuffer(GLenum(GL_FRAMEBUFFER), fbo)
                glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D), texture.glName, 0)
                glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
            }
        }
        try attach(buffers[0])
        defer { try? device.withContext { glDeleteFramebuffers(1, &fbo) } }
        let target = try ExternalFramebufferTarget(device: device, framebuffer: fbo, pixelSize: size, bottomRowFirst: false)
        let root = Layer()
        root.frame = Rect(x: 0, y: 0, width: 64, height: 64)
        let mover = Layer()
        mover.frame = Rect(x: 0, y: 0, width: 8, height: 8)
        mover.backgroundColor = .red
        root.addSublayer(mover)
        let compositor = LayerRenderer(device: device)
        defer { compositor.release() }
        let reference = try OffscreenTarget(device: device, pixelSize: size)
        let full = LayerRenderer(device: device)
        defer { full.release() }
        var drawn = 0     // frames drawn (buffers used); a skipped frame uses none
        for frame in 0..<10 {
            // Frames 5 and 6 change nothing. Frame 5 still draws: its buffer (two frames old)
            // missed frame 4's change. Frame 6's buffer holds frame 4 and missed nothing that
            // changed: skipped (no buffer used, nothing in the ring).
            if frame != 5 && frame != 6 { mover.position = Point(x: 4 + Double(frame) * 7, y: 4 + Double(frame) * 5) }
            try attach(buffers[drawn % 2])
            target.bufferAge = drawn < 2 ? 0 : 2
            let stats = try compositor.render(root, to: target, background: .white)
            #expect(stats.skipped == (frame == 6), "frame \(frame)")
            if stats.skipped { continue }
            drawn += 1
            if frame >= 2 {
                // Consecutive moves of 7 pt (frame 7: three steps at once) over two frames.
                #expect(stats.damagedRect.width < (frame == 7 || frame == 8 ? 45 : 30), "frame \(frame): the damage of two frames, not the target: \(stats.damagedRect)")
            }
            full.forgetLastFrame()
            try full.render(root, to: reference, background: .white)
            let d = try target.readPixels().difference(from: try reference.readPixels(), tolerance: 0)
            #expect(d.differing == 0, "frame \(frame), buffer \((drawn - 1) % 2): \(d.differing) pixels differ")
        }
        // With age 1 the buffer of two frames ago would keep a stale square: shown by
        // pretending the buffers do not rotate.
        mover.position = Point(x: 50, y: 50)
        try attach(buffers[drawn % 2])
        target.bufferAge = 1
        try compositor.render(root, to: target, background: .white)
        full.forgetLastFrame()
        try full.render(root, to: reference, background: .white)
        #expect(try target.readPixels().difference(from: try reference.readPixels(), tolerance: 0).differing > 0,
                "the control: ignoring the age leaves the missed frame's square behind")
    }
}

@MainActor
@Suite("Damage with layer effects", .isolatedTransactions, .withoutImplicitAnimations)
struct EffectDamageTests {
    // (Seed 35 failed by one pixel at frame 31, as `DamageTests.randomFrames` seed 30.)
    @Test("600 frames of random changes to shadows, masks, shape, gradient and replicator layers, blend modes and backdrop blurs: the damage-limited target equals a full recomposite, and every changed pixel lies inside the reported damage", arguments: DamageFuzzSeeds.or([0, 35]))
    func randomEffectFrames(seed: UInt64) throws {
        let rig = try DamageRig(size: Size(width: 160, height: 120))
        defer { rig.close() }
        let root = rig.root
        var random = DamageFuzzSeeds.random(0x5EED_0F_EFFEC7, seed: seed)
        var layers: [Layer] = []
        func color(_ alpha: Double = 1) -> Color { Color(red: random.double(0, 1), green: random.double(0, 1), blue: random.double(0, 1), alpha: alpha) }
        func makeLayer(in parent: Layer) -> Layer {
            let l: Layer
            switch random.int(5) {
            case 0:
                let s = ShapeLayer()
                s.path = Path(ellipseIn: Rect(x: 0, y: 0, width: random.double(10, 40), height: random.double(10, 30)))
                s.fillColor = color()
                s.strokeColor = random.chance(0.5) ? color() : nil
                s.lineWidth = random.double(1, 4)
                l = s
            case 1:
                let g = GradientLayer()
                g.colors = [color(), color(random.chance(0.5) ? 0.5 : 1), color()]
                g.type = [GradientType.axial, .radial, .conic][random.int(3)]
                l = g
            case 2:
                let r = ReplicatorLayer()
                r.instanceCount = random.int(4)
                r.instanceTransform = Transform3D(translationX: random.double(-20, 20), y: random.double(-10, 10))
                r.instanceGreenOffset = -0.2
                l = r
            default:
                l = Layer()
            }
            let p = parent.bounds.size
            l.frame = Rect(x: random.double(-0.1, 0.8) * p.width, y: random.double(-0.1, 0.8) * p.height,
                           width: random.double(0.2, 0.6) * p.width + 4, height: random.double(0.2, 0.6) * p.height + 4)
            if random.chance(0.6) { l.backgroundColor = color(random.chance(0.3) ? 0.6 : 1) }
            if random.chance(0.3) { l.cornerRadius = random.double(0, 10) }
            return l
        }
        func addLayer() {
            let parent = layers.isEmpty || random.chance(0.4) ? root : layers[random.int(layers.count)]
            let l = makeLayer(in: parent)
            parent.insertSublayer(l, at: random.int(parent.sublayers.count + 1))
            layers.append(l)
        }
        for _ in 0..<10 { addLayer() }
        try rig.settle()
        var kinds: [Int: Int] = [:]
        for frame in 0..<600 {
            for _ in 0..<(1 + random.int(2)) {
                let l = layers[random.int(layers.count)]
                let kind = random.int(17)
                switch kind {
                case 0: l.position = Point(x: l.position.x + random.double(-12, 12), y: l.position.y + random.double(-12, 12))
                case 1: l.shadowOpacity = random.chance(0.3) ? 0 : random.double(0.3, 1)
                        l.shadowRadius = random.double(0, 8)
                case 2: l.shadowOffset = Size(width: random.double(-8, 8), height: random.double(-8, 8)); l.shadowColor = color()
                case 3: l.shadowPath = random.chance(0.4) ? nil : random.chance(0.5) ? Path(roundedRect: l.bounds, cornerRadius: 6)
                            : Path(ellipseIn: l.bounds)
                case 4: l.compositingFilter = random.chance(0.3) ? nil : BlendMode.allCases[random.int(BlendMode.allCases.count)]
                case 5: l.backgroundFilters = random.chance(0.4) ? [] : [.gaussianBlur(radius: random.double(1, 6))]
                case 6:
                    if random.chance(0.4) { l.mask = nil } else {
                        let m = random.chance(0.5) ? ShapeLayer() : Layer()
                        if let s = m as? ShapeLayer { s.path = Path(ellipseIn: Rect(x: 0, y: 0, width: l.bounds.width, height: l.bounds.height)) }
                        else { m.frame = Rect(x: random.double(0, 10), y: random.double(0, 10), width: l.bounds.width / 2, height: l.bounds.height); m.backgroundColor = .black }
                        l.mask = m
                    }
                case 7: if let m = l.mask { m.position = Point(x: m.position.x + random.double(-6, 6), y: m.position.y + random.double(-6, 6)) }
                        else { l.opacity = random.double(0.3, 1) }
                case 8: l.transform = Transform3D(rotationAngle: random.double(-0.6, 0.6), x: 0, y: 0, z: 1)
                case 9: if let g = l as? GradientLayer { g.colors = [color(), color(0.5)]; g.endPoint = Point(x: random.double(0, 1), y: 1) }
                        else { l.backgroundColor = color() }
                case 10: if let s = l as? ShapeLayer { s.path = Path(roundedRect: Rect(x: 0, y: 0, width: random.double(8, 40), height: 20), cornerRadius: 5) }
                         else if let r = l as? ReplicatorLayer {
                             r.instanceCount = random.int(5)
                             r.instanceTransform = Transform3D(rotationAngle: random.double(-1, 1), x: 0, y: 0, z: 1)
                             r.instanceAlphaOffset = -random.double(0, 0.3)
                         } else { l.cornerRadius = random.double(0, 12) }
                case 11: l.isHidden.toggle()
                case 12: l.bounds = Rect(origin: .zero, size: Size(width: random.double(6, 60), height: random.double(6, 50)))
                case 13: if layers.count < 24 { addLayer() } else { l.masksToBounds.toggle() }
                case 14:
                    // A move by whole points (a group's image may be reused) — sometimes with a
                    // change inside it in the same frame (then it must not be).
                    l.position = Point(x: l.position.x.rounded() + Double(random.int(9) - 4), y: l.position.y.rounded() + Double(random.int(9) - 4))
                    if random.chance(0.5), let s = l.sublayers.randomElement(using: &random) {
                        switch random.int(5) {
                        case 0: s.isHidden.toggle()
                        case 1: s.position = Point(x: s.position.x + 3, y: s.position.y)
                        case 2: s.opacity = random.double(0.3, 1)
                        case 3: s.backgroundColor = color()
                        default: s.cornerRadius = random.double(0, 8)
                        }
                    }
                case 15:
                    // Geometry that is not a move: the sublayers' transform, the bounds, the anchor.
                    switch random.int(3) {
                    case 0: l.sublayerTransform = random.chance(0.3) ? .identity : Transform3D(scaleX: random.double(0.6, 1.3), y: random.double(0.6, 1.3))
                    case 1: l.bounds = Rect(x: Double(random.int(5)), y: 0, width: l.bounds.width + Double(random.int(9) - 4), height: l.bounds.height)
                    default: l.anchorPoint = Point(x: random.double(0, 1), y: random.double(0, 1))
                    }
                default:
                    // Make it a group (opacity) with an alpha shadow, so that moves can reuse images.
                    l.opacity = random.chance(0.5) ? 0.8 : 1
                    l.shadowOpacity = 0.6
                    l.shadowPath = nil
                    if l.sublayers.isEmpty { l.addSublayer(makeLayer(in: l)) }
                }
                kinds[kind, default: 0] += 1
            }
            try rig.commitAndCheck("seed \(seed) frame \(frame)")
        }
        #expect(kinds.count == 17)
        #expect(rig.partial > 100, "\(rig.partial) frames were damage-limited, \(rig.skipped) skipped")
    }
}

extension EffectDamageTests {
    @Test("a group moved by whole points reuses its image (no offscreen pass, no blur) — unless something in it changed in the same frame, or the change was not a move (sublayerTransform, bounds)")
    func rigidMoves() throws {
        let rig = try DamageRig(size: Size(width: 160, height: 120))
        defer { rig.close() }
        let g = solid(Rect(x: 20, y: 20, width: 60, height: 50), Color(red: 0.9, green: 0.6, blue: 0.2))
        g.opacity = 0.8
        g.shadowOpacity = 0.7
        g.shadowRadius = 4
        let a = solid(Rect(x: 5, y: 5, width: 20, height: 20), Color(red: 0.1, green: 0.3, blue: 0.9))
        let b = solid(Rect(x: 30, y: 20, width: 20, height: 20), Color(red: 0.2, green: 0.8, blue: 0.3))
        g.addSublayer(a)
        g.addSublayer(b)
        rig.root.addSublayer(g)
        try rig.settle()
        g.position = Point(x: g.position.x + 3, y: g.position.y - 2)
        var stats = try rig.commitAndCheck("a move by whole points")
        #expect(stats.offscreenPasses == 0 && stats.blurs == 0, "\(stats)")
        // Moves together with changes inside, or geometry that is not a move: drawn again, and right.
        a.opacity = 0.6
        try rig.settle()
        g.position = Point(x: g.position.x + 2, y: g.position.y)
        a.backgroundColor = Color(red: 0.9, green: 0.1, blue: 0.1)
        stats = try rig.commitAndCheck("a move and a sublayer's colour")
        #expect(stats.offscreenPasses >= 1)
        g.position = Point(x: g.position.x - 1, y: g.position.y)
        a.opacity = 0.4
        try rig.commitAndCheck("a move and a sublayer's opacity")
        g.position = Point(x: g.position.x - 4, y: g.position.y + 1)
        b.isHidden = true
        try rig.commitAndCheck("a move and a hidden sublayer")
        g.sublayerTransform = Transform3D(scaleX: 0.8, y: 0.8)
        stats = try rig.commitAndCheck("a new sublayerTransform")
        #expect(stats.offscreenPasses >= 1)
        g.bounds = Rect(x: 4, y: 0, width: 60, height: 50)
        try rig.commitAndCheck("a new bounds origin")
        g.position = Point(x: g.position.x + 0.5, y: g.position.y)
        stats = try rig.commitAndCheck("a move by half a point")
        #expect(stats.offscreenPasses >= 1, "half a pixel: the image is rendered again")
    }
}

extension EffectDamageTests {
    @Test("cached effect images follow changes the plan rebuilds for (a sublayer added to a masked card, to a card with an alpha shadow) and a clipping group's new bounds")
    func cachesAcrossRebuilds() throws {
        let rig = try DamageRig(size: Size(width: 160, height: 120))
        defer { rig.close() }
        let masked = solid(Rect(x: 10, y: 10, width: 60, height: 50), Color(red: 0.9, green: 0.6, blue: 0.2))
        masked.mask = { let m = solid(Rect(x: 0, y: 0, width: 60, height: 50), .black); m.cornerRadius = 14; return m }()
        let shadowed = solid(Rect(x: 90, y: 10, width: 50, height: 50), Color(red: 0.2, green: 0.5, blue: 0.9))
        shadowed.addSublayer(Layer())
        shadowed.shadowOpacity = 0.8
        shadowed.shadowRadius = 3
        let clipping = Layer()
        clipping.frame = Rect(x: 20, y: 70, width: 60, height: 30)
        clipping.opacity = 0.8
        clipping.masksToBounds = true
        clipping.cornerRadius = 12
        clipping.addSublayer(solid(Rect(x: 0, y: 0, width: 60, height: 45), Color(red: 0.3, green: 0.7, blue: 0.3)))
        clipping.addSublayer(solid(Rect(x: 10, y: 5, width: 20, height: 20), Color(red: 0.9, green: 0.9, blue: 0.1)))
        for l in [masked, shadowed, clipping] { rig.root.addSublayer(l) }
        try rig.settle()
        masked.addSublayer(solid(Rect(x: 5, y: 5, width: 20, height: 20), Color(red: 0.1, green: 0.1, blue: 0.8)))
        try rig.commitAndCheck("a sublayer added to a masked card")
        shadowed.addSublayer(solid(Rect(x: 30, y: 30, width: 30, height: 30), Color(red: 0.8, green: 0.1, blue: 0.1)))
        try rig.commitAndCheck("a sublayer added to a card with an alpha shadow")
        clipping.bounds = Rect(x: 0, y: 0, width: 60, height: 45)
        try rig.commitAndCheck("a clipping group grows")
    }
}

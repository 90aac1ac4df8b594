import CGLES
import Foundation
import LaminaGeometry
import LaminaGPU
import Testing
@testable import LaminaCore
@testable import LaminaModel
@testable import LaminaRender
@testable import LaminaValues
import LaminaTestSupport

@MainActor
@Suite("Layer appearance (pixels)")
struct AppearanceTests {
    /// A parent at opacity 0.5 with two overlapping opaque children.
    private func overlapScene(group: Bool) -> Layer {
        let root = rootLayer()
        let parent = Layer()
        parent.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        parent.opacity = 0.5
        parent.allowsGroupOpacity = group
        parent.addSublayer(solid(Rect(x: 20, y: 20, width: 100, height: 100), .blue))
        parent.addSublayer(solid(Rect(x: 80, y: 80, width: 100, height: 100), .blue))
        root.addSublayer(parent)
        return root
    }

    @Test("group opacity: a parent at 0.5 fades its subtree as one image (no darker overlap)")
    func groupOpacity() throws {
        let (image, stats) = try render(overlapScene(group: true))
        let single = image[50, 50], overlap = image[100, 100], other = image[150, 150]
        #expect(single.maxChannelDifference(px(127, 127, 255)) <= 1, "\(single)")
        #expect(overlap == single, "overlap \(overlap) vs single \(single)")
        #expect(other == single)
        #expect(stats.offscreenPasses == 1)
    }

    @Test("the root layer's opacity fades the whole tree as one image too (its group is not the target's surface)")
    func rootGroupOpacity() throws {
        let root = rootLayer()
        root.opacity = 0.5
        root.addSublayer(solid(Rect(x: 0, y: 0, width: 100, height: 100), .red))
        root.addSublayer(solid(Rect(x: 50, y: 50, width: 100, height: 100), .blue))
        let (image, stats) = try render(root)
        #expect(image[75, 75].maxChannelDifference(px(127, 127, 255)) <= 1, "overlap: blue at half, no red under it: \(image[75, 75])")
        #expect(image[25, 25].maxChannelDifference(px(255, 127, 127)) <= 1, "\(image[25, 25])")
        #expect(image[180, 180] == white)
        #expect(stats.offscreenPasses == 1)
    }

    @Test("without group opacity each child fades separately, and the overlap is darker")
    func nestedOpacity() throws {
        let (image, stats) = try render(overlapScene(group: false))
        let single = image[50, 50], overlap = image[100, 100]
        #expect(single.maxChannelDifference(px(127, 127, 255)) <= 1)
        #expect(overlap.maxChannelDifference(px(64, 64, 255)) <= 1, "\(overlap)")
        #expect(stats.offscreenPasses == 0)
    }

    @Test("masksToBounds clips exactly to rotated bounds: nothing outside the rotated square")
    func masksUnderRotation() throws {
        let root = rootLayer()
        let clip = Layer()
        clip.frame = Rect(x: 50, y: 50, width: 100, height: 100)
        clip.transform = Transform3D(rotationAngle: .pi / 6, x: 0, y: 0, z: 1)
        clip.masksToBounds = true
        // A child much larger than the clip.
        clip.addSublayer(solid(Rect(x: -100, y: -100, width: 300, height: 300), .red))
        root.addSublayer(clip)
        let (image, _) = try render(root)
        // Inside test: rotate the pixel centre back by -30° about (100, 100).
        let angle = -Double.pi / 6
        func local(_ x: Int, _ y: Int) -> (Double, Double) {
            let dx = Double(x) + 0.5 - 100, dy = Double(y) + 0.5 - 100
            return (dx * cos(angle) - dy * sin(angle), dx * sin(angle) + dy * cos(angle))
        }
        let wrong = image.mismatches { x, y in
            let (u, v) = local(x, y)
            if abs(u) < 49 && abs(v) < 49 { return red }
            if abs(u) > 51 || abs(v) > 51 { return white }   // outside the rotated bounds: untouched
            return nil                                       // the 1-px edge band
        }
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test("cornerRadius with masksToBounds clips a sublayer to the rounded rectangle")
    func cornerRadiusClipsSublayer() throws {
        let root = rootLayer()
        let card = Layer()
        card.frame = Rect(x: 50, y: 50, width: 100, height: 100)
        card.cornerRadius = 30
        card.masksToBounds = true
        card.addSublayer(solid(Rect(x: 0, y: 0, width: 100, height: 100), .green))
        root.addSublayer(card)
        let (image, _) = try render(root)
        #expect(image[52, 52] == white, "the corner is cut")
        #expect(image[147, 147] == white)
        #expect(image[100, 52] == green, "the edge middle stays")
        #expect(image[100, 100] == green)
        // Just inside the arc at 45°: centre (80, 80), radius 30 → (80 - 28·0.707).
        #expect(image[61, 61] == green)
        #expect(image[57, 57] == white)
    }

    @Test("a caller's framebuffer without stencil bits shows axis-aligned masksToBounds clips (the scissor's, nested ones too) exactly as an offscreen target does; a rounded clip there is a thrown error that says what to attach")
    func rectangleClipsWithoutStencil() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        func scene() -> Layer {
            let root = rootLayer()
            let scroll = Layer()
            scroll.frame = Rect(x: 20.5, y: 30, width: 100, height: 80)
            scroll.masksToBounds = true
            let content = solid(Rect(x: -30, y: -20, width: 200, height: 60), .green)
            let cell = Layer()
            cell.frame = Rect(x: 10, y: 50, width: 50, height: 60)
            cell.masksToBounds = true
            cell.addSublayer(solid(Rect(x: -5, y: 5, width: 80, height: 20), .blue))
            scroll.addSublayer(content)
            scroll.addSublayer(cell)
            root.addSublayer(scroll)
            return root
        }
        let texture = try device.makeTexture(pixelSize: PixelSize(width: 200, height: 200))
        var fbo = try colorOnlyFramebuffer(device, over: texture)
        defer { try? device.withContext { glDeleteFramebuffers(1, &fbo) } }
        let host = try ExternalFramebufferTarget(device: device, framebuffer: fbo, pixelSize: PixelSize(width: 200, height: 200), bottomRowFirst: false)
        let renderer = LayerRenderer(device: device)
        defer { renderer.release() }
        let root = scene()
        try renderer.render(root, to: host, background: .white)
        let got = try host.readPixels()
        let (expected, _) = try render(scene())
        #expect(got.difference(from: expected, tolerance: 0).differing == 0)
        #expect(got[20, 31] == green && got[19, 31] == white && got[21, 29] == white, "the scroll view's edges (x 20.5: the centre of pixel 20 is on the edge, kept)")
        #expect(got[40, 90] == blue && got[80, 90] == white, "the cell clips its sublayer inside the scroll view")

        root.sublayers[0].cornerRadius = 8
        #expect {
            try renderer.render(root, to: host, background: .white)
        } throws: { error in
            "\(error)".contains("has no stencil buffer") && "\(error)".contains("attach a depth/stencil buffer")
        }
    }

    @Test("cornerRadius rounds the background and the border with antialiased edges")
    func roundedBackground() throws {
        let root = rootLayer()
        let l = solid(Rect(x: 50, y: 50, width: 100, height: 100), .blue)
        l.cornerRadius = 20
        root.addSublayer(l)
        let (image, _) = try render(root)
        #expect(image[51, 51] == white)
        #expect(image[100, 100] == blue && image[50, 100] == blue)
        // Along the arc some pixels are partly covered (antialiasing), not only 0 or 1.
        let partial = (50..<70).contains { x in
            let p = image[x, 50 + (70 - x) / 3]
            return p.r > 10 && p.r < 245
        }
        #expect(partial)
    }

    @Test("the border is drawn inside the bounds, above contents and sublayers")
    func borderOverContents() throws {
        let root = rootLayer()
        let l = Layer()
        l.frame = Rect(x: 50, y: 50, width: 100, height: 100)
        l.contents = .image(ContentImage(RGBAImage(width: 4, height: 4, fill: green)))
        l.addSublayer(solid(Rect(x: 0, y: 40, width: 100, height: 20), .blue))
        l.borderWidth = 10
        l.borderColor = .red
        root.addSublayer(l)
        let (image, _) = try render(root)
        let wrong = image.mismatches { x, y in
            guard (50..<150).contains(x) && (50..<150).contains(y) else { return white }
            if x < 60 || x >= 140 || y < 60 || y >= 140 { return red }      // border over everything
            if (90..<110).contains(y) { return blue }                         // sublayer over contents
            return green
        }
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test("every contentsGravity places a 40×20 image analytically in a 100×80 layer", arguments: ContentsGravity.allCases)
    func gravity(_ gravity: ContentsGravity) throws {
        let root = rootLayer()
        let l = Layer()
        l.frame = Rect(x: 50, y: 60, width: 100, height: 80)
        l.backgroundColor = .black
        l.contents = .image(ContentImage(RGBAImage(width: 40, height: 20, fill: green)))
        l.contentsGravity = gravity
        l.magnificationFilter = .nearest
        root.addSublayer(l)
        let (image, _) = try render(root)
        let expected = gravityPlacement(gravity)
        let wrong = image.mismatches { x, y in
            let cx = Double(x) + 0.5, cy = Double(y) + 0.5
            if expected.contains(Point(x: cx, y: cy)) { return green }
            if (50..<150).contains(x) && (60..<140).contains(y) { return black }
            return white
        }
        #expect(wrong.isEmpty, "\(gravity): \(wrong)")
    }

    @Test("contentsRect shows a unit sub-rectangle of the image: the top-right quadrant fills the layer")
    func contentsRect() throws {
        let root = rootLayer()
        let l = Layer()
        l.frame = Rect(x: 40, y: 40, width: 120, height: 120)
        l.contents = .image(ContentImage(quadrantImage(size: 8)))
        l.contentsRect = Rect(x: 0.5, y: 0, width: 0.5, height: 0.5)
        l.magnificationFilter = .nearest
        root.addSublayer(l)
        let (image, _) = try render(root)
        let wrong = image.mismatches { x, y in (40..<160).contains(x) && (40..<160).contains(y) ? green : white }
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test("contentsScale 2 halves the points an image covers (center gravity)")
    func contentsScale() throws {
        for scale in [1.0, 2.0] {
            let root = rootLayer()
            let l = Layer()
            l.frame = Rect(x: 0, y: 0, width: 200, height: 200)
            l.contents = .image(ContentImage(quadrantImage(size: 80)))
            l.contentsGravity = .center
            l.contentsScale = scale
            root.addSublayer(l)
            let (image, _) = try render(root)
            let side = 80 / scale
            let rect = Rect(x: 100 - side / 2, y: 100 - side / 2, width: side, height: side)
            let wrong = image.mismatches { x, y in
                let c = Point(x: Double(x) + 0.5, y: Double(y) + 0.5)
                if !rect.insetBy(dx: -1, dy: -1).contains(c) { return white }
                return quadrantColor(x, y, in: rect)
            }
            #expect(wrong.isEmpty, "contentsScale \(scale): \(wrong)")
        }
    }

    @Test("a 2× target renders the same scene at twice the pixels")
    func targetScale() throws {
        let root = rootLayer(width: 100, height: 100)
        root.addSublayer(solid(Rect(x: 10, y: 20, width: 30, height: 40), .red))
        let (image, _) = try render(root, width: 100, height: 100, scale: 2)
        #expect(image.width == 200)
        let wrong = image.mismatches { x, y in (20..<80).contains(x) && (40..<120).contains(y) ? red : white }
        #expect(wrong.isEmpty, "\(wrong)")
    }
}

@MainActor
@Suite("Compositor behaviour", .withoutImplicitAnimations)
struct CompositorBehaviourTests {
    @Test("an unchanged frame does no GPU work: zero draw calls; a change draws again")
    func unchangedFrame() throws {
        let device = try GPUDevice()
        let compositor = LayerRenderer(device: device)
        let target = try OffscreenTarget(device: device, size: Size(width: 64, height: 64))
        let root = rootLayer(width: 64, height: 64)
        let child = solid(Rect(x: 0, y: 0, width: 10, height: 10), .red)
        root.addSublayer(child)
        let first = try compositor.render(root, to: target)
        #expect(first.drawCalls == 1 && first.quadsDrawn == 1 && !first.skipped)
        let callsBefore = device.drawCalls
        for _ in 0..<10 {
            let s = try compositor.render(root, to: target)
            #expect(s.skipped && s.drawCalls == 0 && s.quadsDrawn == 0 && s.damagedRect == .zero)
        }
        #expect(device.drawCalls == callsBefore)
        child.position = Point(x: 30, y: 30)
        let moved = try compositor.render(root, to: target)
        #expect(!moved.skipped && moved.drawCalls == 1)
        #expect(try target.readPixels()[30, 30] == red)
        // Setting a property to its current value is not a change.
        child.position = Point(x: 30, y: 30)
        #expect(try compositor.render(root, to: target).skipped)
        // Removing a layer is a change.
        child.removeFromSuperlayer()
        #expect(try compositor.render(root, to: target).drawCalls == 0)   // nothing left to draw, but not skipped
        #expect(!compositor.lastFrame.skipped)
        #expect(try target.readPixels()[30, 30] == px(0, 0, 0, 0))
    }

    @Test("statistics count layers, quads, draw calls, offscreen passes and uploads")
    func statistics() throws {
        let root = rootLayer()
        let group = Layer()
        group.frame = Rect(x: 0, y: 0, width: 100, height: 100)
        group.opacity = 0.5
        group.addSublayer(solid(Rect(x: 0, y: 0, width: 50, height: 50), .red))
        let image = Layer()
        image.frame = Rect(x: 0, y: 0, width: 30, height: 30)
        image.contents = .image(ContentImage(RGBAImage(width: 8, height: 4, fill: green)))
        group.addSublayer(image)
        root.addSublayer(group)
        let (_, stats) = try render(root)
        #expect(stats.layersVisited == 4)
        #expect(stats.quadsDrawn == 2)
        #expect(stats.offscreenPasses == 1)
        #expect(stats.drawCalls == 3)                 // two quads + the group composite
        #expect(stats.textureBytesUploaded == (8 + 2) * (4 + 2) * 4)   // in the atlas: the image and its 1-pixel border
        #expect(stats.damagedRect == Rect(x: 0, y: 0, width: 200, height: 200))
    }

    @Test("image textures are shared, uploaded once, and freed when their layers leave the tree")
    func textureLifetime() throws {
        let device = try GPUDevice()
        let compositor = LayerRenderer(device: device)
        let target = try OffscreenTarget(device: device, size: Size(width: 64, height: 64))
        let root = rootLayer(width: 64, height: 64)
        let shared = ContentImage(RGBAImage(width: 16, height: 16, fill: blue))
        let subtree = Layer()
        for i in 0..<3 {
            let l = Layer()
            l.frame = Rect(x: Double(i) * 20, y: 0, width: 16, height: 16)
            l.contents = .image(shared)
            subtree.addSublayer(l)
        }
        root.addSublayer(subtree)
        let s = try compositor.render(root, to: target)
        #expect(s.textureBytesUploaded == (16 + 2) * (16 + 2) * 4)   // once, in the atlas with its border
        #expect(compositor.cachedTextureCount == 1)
        let texturesWithImage = device.liveObjectCounts[.texture]
        subtree.removeFromSuperlayer()
        try compositor.render(root, to: target)
        #expect(compositor.cachedTextureCount == 0)
        #expect(device.liveObjectCounts[.texture] == texturesWithImage - 1)
        compositor.release()
        target.release()
        device.purgeCaches()
        #expect(device.liveObjectCounts.total == 0, "\(device.liveObjectCounts)")
    }

    @Test("two compositors of one tree each see every change (neither skips what the other drew)")
    func twoCompositors() throws {
        let device = try GPUDevice()
        let a = LayerRenderer(device: device), b = LayerRenderer(device: device)
        let ta = try OffscreenTarget(device: device, size: Size(width: 20, height: 20))
        let tb = try OffscreenTarget(device: device, size: Size(width: 20, height: 20))
        let root = rootLayer(width: 20, height: 20)
        root.backgroundColor = .red
        try a.render(root, to: ta); try b.render(root, to: tb)
        root.backgroundColor = .green
        #expect(!(try a.render(root, to: ta)).skipped)
        #expect(!(try b.render(root, to: tb)).skipped)
        #expect(try tb.readPixels()[5, 5] == green)
        #expect(try a.render(root, to: ta).skipped && b.render(root, to: tb).skipped)
    }

    @Test("hiding a layer keeps its image's texture: showing it again uploads nothing")
    func hiddenKeepsTexture() throws {
        let device = try GPUDevice()
        let compositor = LayerRenderer(device: device)
        let target = try OffscreenTarget(device: device, size: Size(width: 20, height: 20))
        let root = rootLayer(width: 20, height: 20)
        let l = Layer()
        l.frame = Rect(x: 0, y: 0, width: 10, height: 10)
        l.contents = .image(ContentImage(RGBAImage(width: 4, height: 4, fill: blue)))
        root.addSublayer(l)
        #expect(try compositor.render(root, to: target).textureBytesUploaded == (4 + 2) * (4 + 2) * 4)
        l.isHidden = true
        try compositor.render(root, to: target)
        #expect(compositor.cachedTextureCount == 1)
        l.isHidden = false
        let shown = try compositor.render(root, to: target)
        #expect(shown.textureBytesUploaded == 0 && shown.quadsDrawn == 1)
    }

    @Test("a .texture contents is composited again after contentsDidChange()")
    func textureContentsChange() throws {
        let device = try GPUDevice()
        let compositor = LayerRenderer(device: device)
        let target = try OffscreenTarget(device: device, size: Size(width: 8, height: 8))
        let texture = try device.makeTexture(pixelSize: PixelSize(width: 1, height: 1), pixels: RGBAImage(width: 1, height: 1, fill: red))
        let root = rootLayer(width: 8, height: 8)
        root.contents = .texture(texture)
        try compositor.render(root, to: target)
        try texture.upload(RGBAImage(width: 1, height: 1, fill: green))
        #expect(try compositor.render(root, to: target).skipped)      // Lamina cannot see GPU writes…
        root.contentsDidChange()                                        // …until told
        try compositor.render(root, to: target)
        #expect(try target.readPixels()[4, 4] == green)
    }

    @Test("the frame plan is worked out without a GPU: paint order, clips and groups")
    func framePlanItems() {
        let root = rootLayer()
        let parent = solid(Rect(x: 0, y: 0, width: 100, height: 100), .red)
        parent.masksToBounds = true
        parent.borderWidth = 2
        parent.opacity = 0.5
        let child = solid(Rect(x: 10, y: 10, width: 10, height: 10), .blue)
        parent.addSublayer(child)
        root.addSublayer(parent)
        let tree = snapshot(of: root).0
        let builder = FrameBuilder(tree: tree, maximumImageSide: 4096)
        let update = builder.update(size: Size(width: 200, height: 200))
        #expect(update.rebuildReason == .newTree && update.layersVisited == 3)
        func describe(_ item: Item) -> String {
            let who = item.node.id == parent.id ? "parent" : item.node.id == child.id ? "child" : "?"
            return "\(who).\(item.kind.name)" + (item.clips.isEmpty ? "" : " clipped")
        }
        // The target draws the group's image; the group's surface, its items in paint order.
        #expect(builder.surfaces[.target]?.items.array.map(describe) == ["parent.composite"])
        #expect(builder.surfaces[.group(parent.id)]?.items.array.map(describe) == ["parent.solid", "child.solid clipped", "parent.border"])
    }
}

import Foundation
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import Testing
@testable import LaminaCore
@_spi(Testing) @testable import LaminaModel
@testable import LaminaRender
@testable import LaminaValues
import LaminaTestSupport

/// A layer that fills itself with `color` and records every draw (its clip rectangle).
@MainActor
final class CountingLayer: Layer {
    var color = Color.red
    var clips: [Rect] = []
    var log: ((String) -> Void)?
    override func draw(in context: GraphicsContext) {
        clips.append(context.clipBoundingBox)
        log?("draw \(name ?? "")")
        context.setFillColor(color)
        context.fill(bounds)
    }
}

/// A hosted tree: a root of `width`×`height` points on an offscreen target.
@MainActor
struct Scene {
    let device: GPUDevice
    let target: OffscreenTarget
    let host: LayerTreeHost
    let root: Layer

    init(width: Double = 100, height: Double = 100, scale: Double = 1) throws {
        try Transaction.flush()   // nothing left over from other tests
        device = try GPUDevice()
        target = try OffscreenTarget(device: device, size: Size(width: width, height: height), scale: scale)
        root = rootLayer(width: width, height: height)
        host = LayerTreeHost(rootLayer: root, target: target, background: .white)
    }

    func pixels() throws -> RGBAImage { try target.readPixels() }

    /// A `CountingLayer` with `frame`, invalidated and added to the root (drawn at the next commit).
    func addCountingLayer(_ frame: Rect) -> CountingLayer {
        let layer = CountingLayer()
        layer.frame = frame
        layer.setNeedsDisplay()
        root.addSublayer(layer)
        return layer
    }
}

/// Reads a texture's pixels by drawing it 1:1 into a scratch target.
@MainActor
func read(_ texture: Texture, on device: GPUDevice) throws -> RGBAImage {
    let t = try OffscreenTarget(device: device, pixelSize: texture.pixelSize)
    defer { t.release() }
    let pass = try device.beginRenderPass(on: t, clear: .clear)
    try pass.draw(texture, in: Rect(origin: .zero, size: t.size), minFilter: .nearest, magFilter: .nearest)
    pass.submit()
    return try t.readPixels()
}

@MainActor
@Suite("On-demand drawing", .withoutImplicitAnimations)
struct DrawingTests {
    @Test("ten invalidations in one turn: no draw during the turn, exactly one at its end")
    func coalesced() throws {
        let s = try Scene()
        let layer = CountingLayer()
        layer.frame = Rect(x: 0, y: 0, width: 50, height: 50)
        s.root.addSublayer(layer)
        let loop = try MainLoop()
        loop.perform {
            for _ in 0..<10 { layer.setNeedsDisplay() }
            #expect(layer.needsDisplay)
            #expect(layer.displayCount == 0, "nothing draws while the turn runs")
        }
        try loop.runOnce()
        #expect(layer.displayCount == 1)
        #expect(!layer.needsDisplay)
        #expect(s.host.lastFrame.displays.count == 1)
        #expect(s.host.lastFrame.displays.first?.reasons.count == 10)
        #expect(try s.pixels()[10, 10] == red)
    }

    @Test("100 frames with no change: zero draws, zero uploads, zero draw calls")
    func idleFrames() throws {
        let s = try Scene()
        let layer = s.addCountingLayer(Rect(x: 0, y: 0, width: 50, height: 50))
        try Transaction.flush()
        let uploaded = s.device.uploadedBytes, calls = s.device.drawCalls, frames = s.host.frameCount
        let loop = try MainLoop()
        var ticks = 0
        let link = DisplayLink(loop: loop, framesPerSecond: 1000) { _ in ticks += 1 }
        try loop.run { ticks >= 100 }
        link.invalidate()
        #expect(ticks == 100)
        #expect(layer.displayCount == 1)
        #expect(s.device.uploadedBytes == uploaded && s.device.drawCalls == calls)
        #expect(s.host.frameCount == frames)
    }

    @Test("bounds, position and transform changes reuse the snapshot: zero draws (unless needsDisplayOnBoundsChange)")
    func geometryIsNotContent() throws {
        let s = try Scene()
        let layer = s.addCountingLayer(Rect(x: 0, y: 0, width: 40, height: 40))
        try Transaction.flush()
        #expect(layer.displayCount == 1)
        layer.bounds.size = Size(width: 80, height: 60)
        layer.position = Point(x: 50, y: 50)
        layer.transform = Transform3D(rotationAngle: 0.3, x: 0, y: 0, z: 1)
        try Transaction.flush()
        #expect(layer.displayCount == 0 + 1)
        #expect(s.host.lastFrame.displays.isEmpty && s.host.lastFrame.quadsDrawn == 1)
        layer.needsDisplayOnBoundsChange = true
        layer.bounds.size = Size(width: 30, height: 30)
        try Transaction.flush()
        #expect(layer.displayCount == 2)
        #expect(s.host.lastFrame.displays.first?.reasons == [.boundsChanged])
        layer.bounds.size = Size(width: 31, height: 30)
        layer.bounds.size = Size(width: 32, height: 30)
        try Transaction.flush()
        #expect(layer.displayCount == 3, "one draw per commit")
    }

    @Test("setNeedsDisplay(rect) at contentsScale 2: the draw is clipped to the rect, only its pixels are uploaded, the rest is kept")
    func partialInvalidation() throws {
        let s = try Scene(width: 100, height: 100, scale: 2)
        let layer = CountingLayer()
        layer.frame = Rect(x: 0, y: 0, width: 60, height: 60)
        layer.contentsScale = 2
        layer.setNeedsDisplay()
        s.root.addSublayer(layer)
        try Transaction.flush()
        #expect(layer.backingStore?.pixelSize == PixelSize(width: 120, height: 120))
        let store = layer.backingStore
        let before = s.device.uploadedBytes
        layer.color = .blue
        let rect = Rect(x: 10.5, y: 20, width: 15, height: 7.5)     // whole pixels at scale 2: 30×15 px
        layer.setNeedsDisplay(rect)
        try Transaction.flush()
        #expect(layer.clips.last == rect)
        #expect(s.device.uploadedBytes - before == 30 * 15 * 4)
        #expect(s.host.lastFrame.displays.first?.uploadedBytes == 30 * 15 * 4)
        #expect(s.host.lastFrame.displays.first?.pixelRect == PixelRect(x: 21, y: 40, width: 30, height: 15))
        #expect(layer.backingStore === store, "the backing store is reused while its pixel size stays")
        let image = try s.pixels()
        let wrong = image.mismatches { x, y in
            guard x < 120 && y < 120 else { return white }
            return (21..<51).contains(x) && (40..<55).contains(y) ? blue : red
        }
        #expect(wrong.isEmpty, "\(wrong)")
        // Two rectangles in one turn: one draw of their union.
        layer.setNeedsDisplay(Rect(x: 0, y: 0, width: 5, height: 5))
        layer.setNeedsDisplay(Rect(x: 10, y: 10, width: 5, height: 5))
        try Transaction.flush()
        #expect(layer.clips.last == Rect(x: 0, y: 0, width: 15, height: 15))
        #expect(layer.displayCount == 3)
    }

    @Test("displayNow draws synchronously: the backing store holds the new pixels when it returns; flush puts them on the target")
    func displayNow() throws {
        let s = try Scene()
        let layer = s.addCountingLayer(Rect(x: 0, y: 0, width: 20, height: 20))
        try Transaction.flush()
        layer.color = .green
        try layer.displayNow()
        #expect(layer.displayCount == 2)
        let store = try #require(layer.backingStore)
        #expect(store.bitmap.rgbaImage()[5, 5] == green, "the backing store has the new content before any commit")
        #expect(try s.pixels()[5, 5] == red, "the target shows it only after the composite")
        try Transaction.flush()
        #expect(try s.pixels()[5, 5] == green)
        #expect(s.host.lastFrame.displays.first?.reasons == [.displayNow])
    }

    @Test("a commit runs layout, then display, then composite — observable in that order")
    func commitOrder() throws {
        let s = try Scene()
        var log: [String] = []
        final class LayoutLayer: Layer {
            var log: ((String) -> Void)?
            override func layoutSublayers() { log?("layout"); sublayers.first?.setNeedsDisplay() }
        }
        let parent = LayoutLayer()
        parent.frame = Rect(x: 0, y: 0, width: 50, height: 50)
        parent.log = { log.append($0) }
        let child = CountingLayer()
        child.frame = Rect(x: 0, y: 0, width: 10, height: 10)
        child.log = { log.append($0) }
        parent.addSublayer(child)
        s.root.addSublayer(parent)
        s.host.didComposite = { _ in log.append("composite") }
        Transaction.phaseObserver = { log.append("phase \($0.rawValue)") }
        defer { Transaction.phaseObserver = nil }
        parent.setNeedsLayout()
        try Transaction.flush()
        #expect(log == ["phase layout", "layout", "phase display", "draw ", "phase composite", "composite"], "\(log)")
        #expect(s.host.lastFrame.layoutPasses >= 1 && s.host.lastFrame.layersDrawn == 1)
    }

    @Test("a timer cancelled by another timer's handler in the same turn does not fire; a dropped DisplayLink stops")
    func timers() throws {
        let loop = try MainLoop()
        var fired: [String] = []
        var b: MainLoop.Token = 0
        loop.addTimer(after: 0) { fired.append("a"); loop.cancelTimer(b) }
        b = loop.addTimer(after: 0.000001) { fired.append("b") }
        usleep(2000)
        try loop.runOnce(timeout: 0)
        #expect(fired == ["a"])
        var link: DisplayLink? = DisplayLink(loop: loop, framesPerSecond: 500) { _ in }
        _ = link
        link = nil
        try loop.run()   // returns: nothing is scheduled any more
        #expect(loop.timeout == nil)
    }

    @Test("explicit transactions nest: nothing commits until the outermost commit")
    func explicitTransactions() throws {
        let s = try Scene()
        let layer = CountingLayer()
        layer.frame = Rect(x: 0, y: 0, width: 10, height: 10)
        s.root.addSublayer(layer)
        Transaction.begin()
        Transaction.begin()
        layer.setNeedsDisplay()
        try Transaction.commit()
        try Transaction.commitIfNeeded()          // an end of turn inside a transaction
        #expect(layer.displayCount == 0)
        try Transaction.commit()
        #expect(layer.displayCount == 1)
    }

    @Test("text drawn by a layer shows glyph pixels on the target")
    func textLayer() throws {
        let s = try Scene(width: 200, height: 60)
        final class TextLayer: Layer {
            override func draw(in context: GraphicsContext) {
                context.draw("Lamina", at: Point(x: 4, y: 4), font: Font(family: "DejaVu Serif", size: 28, weight: .bold), color: .black)
            }
        }
        let layer = TextLayer()
        layer.frame = Rect(x: 0, y: 0, width: 200, height: 60)
        layer.setNeedsDisplay()
        s.root.addSublayer(layer)
        try Transaction.flush()
        let image = try s.pixels()
        var dark = 0
        for y in 0..<60 { for x in 0..<200 where image[x, y].r < 64 { dark += 1 } }
        #expect(dark > 300, "glyph pixels: \(dark)")
    }

    @Test("a delegate draws for a plain layer; a delegate's display, or set contents, bypass drawing")
    func delegates() throws {
        let s = try Scene()
        final class Painter: LayerDelegate {
            var draws = 0
            func draw(_ layer: Layer, in context: GraphicsContext) {
                draws += 1
                context.setFillColor(.blue)
                context.fill(layer.bounds)
            }
        }
        final class Setter: LayerDelegate {
            func display(_ layer: Layer) -> Bool {
                layer.contents = .image(ContentImage(RGBAImage(width: 1, height: 1, fill: green)))
                return true
            }
        }
        let painter = Painter(), setter = Setter()
        let a = Layer(), b = Layer()
        a.frame = Rect(x: 0, y: 0, width: 10, height: 10)
        b.frame = Rect(x: 20, y: 0, width: 10, height: 10)
        a.delegate = painter
        b.delegate = setter
        s.root.addSublayer(a); s.root.addSublayer(b)
        a.setNeedsDisplay(); b.setNeedsDisplay()
        try Transaction.flush()
        #expect(painter.draws == 1 && a.displayCount == 1)
        #expect(b.displayCount == 0 && b.backingStore == nil)
        let image = try s.pixels()
        #expect(image[5, 5] == blue && image[25, 5] == green)
    }

    @Test("an opaque layer's backing store has no alpha: it composites opaque, even where nothing was drawn")
    func opaqueBackingStore() throws {
        let s = try Scene()
        let layer = CountingLayer()
        layer.frame = Rect(x: 0, y: 0, width: 10, height: 10)
        layer.isOpaque = true
        layer.color = .blue
        layer.setNeedsDisplay()
        s.root.addSublayer(layer)
        final class Corner: Layer {
            override func draw(in context: GraphicsContext) {
                context.setFillColor(.green)
                context.fill(Rect(x: 0, y: 0, width: 2, height: 2))
            }
        }
        let blank = Corner()   // opaque, but paints only a corner: the rest (zeroed memory) shows opaque black
        blank.frame = Rect(x: 20, y: 0, width: 10, height: 10)
        blank.isOpaque = true
        blank.setNeedsDisplay()
        s.root.addSublayer(blank)
        try Transaction.flush()
        #expect(layer.backingStore?.bitmap.isOpaque == true)
        let image = try s.pixels()
        #expect(image[5, 5] == blue)
        #expect(image[20, 0] == green)
        #expect(image[25, 5] == black, "alpha comes from the texture swizzle, not the unused byte")
    }

    @Test("flush() inside an explicit transaction waits for the outermost commit")
    func flushInsideTransaction() throws {
        let s = try Scene()
        let layer = CountingLayer()
        layer.frame = Rect(x: 0, y: 0, width: 10, height: 10)
        s.root.addSublayer(layer)
        Transaction.begin()
        layer.setNeedsDisplay()
        try Transaction.flush()
        #expect(layer.displayCount == 0)
        try Transaction.commit()
        #expect(layer.displayCount == 1)
    }

    @Test("a change made in didComposite is committed by the next turn, not lost")
    func changeInDidComposite() throws {
        let s = try Scene()
        var frames = 0
        s.host.didComposite = { _ in
            frames += 1
            if frames == 1 { s.root.backgroundColor = .green }
        }
        s.root.backgroundColor = .red
        try Transaction.flush()
        #expect(Transaction.needsCommit)
        try Transaction.commitIfNeeded()
        #expect(try s.pixels()[5, 5] == green)
    }

    @Test("two hosts of one tree each get only the redrawn pixels")
    func twoHosts() throws {
        let s = try Scene()
        let otherDevice = try GPUDevice()
        let otherTarget = try OffscreenTarget(device: otherDevice, size: Size(width: 100, height: 100))
        let other = LayerTreeHost(rootLayer: s.root, target: otherTarget, background: .white)
        defer { other.detach() }
        let layer = s.addCountingLayer(Rect(x: 0, y: 0, width: 100, height: 100))
        try Transaction.flush()
        let before = (s.device.uploadedBytes, otherDevice.uploadedBytes)
        layer.color = .blue
        layer.setNeedsDisplay(Rect(x: 50, y: 50, width: 1, height: 1))   // inside: no border to refresh
        try Transaction.flush()
        #expect(s.device.uploadedBytes - before.0 == 4)
        #expect(otherDevice.uploadedBytes - before.1 == 4)
        #expect(try otherTarget.readPixels()[50, 50] == blue && otherTarget.readPixels()[5, 5] == red)
    }

    @Test("text measured at one scale fits the box it is drawn in at another")
    func measureMatchesDraw() throws {
        for scale in [1.0, 1.25, 1.5, 2.0, 2.5] {
            for text in ["Lamina composites layers", "Hello, world!", "The quick brown fox jumps"] {
                let font = Font(family: "DejaVu Sans", size: 13)
                let size = GraphicsContext.measure(text, font: font)
                let bitmap = try Bitmap(pixelSize: PixelSize(covering: Size(width: size.width + 2, height: size.height * 3), scale: scale))
                let ctx = GraphicsContext(bitmap: bitmap, scale: scale)
                let drawn = ctx.draw(text, in: Rect(x: 0, y: 0, width: size.width, height: size.height * 3), font: font, color: .black)
                ctx.invalidate()
                #expect(abs(drawn.height - size.height) < 0.01, "'\(text)' wrapped at scale \(scale): \(drawn) vs \(size)")
            }
        }
    }

    @Test("a 4096×4096 layer draws; a layer beyond the GPU's texture limit fails with a clear error (no tiling)")
    func largeLayers() throws {
        let s = try Scene(width: 64, height: 64)
        let big = s.addCountingLayer(Rect(x: 0, y: 0, width: 4096, height: 4096))
        try Transaction.flush()
        #expect(big.backingStore?.pixelSize == PixelSize(width: 4096, height: 4096))
        #expect(try s.pixels()[32, 32] == red)
        // The GPU's limit, or Cairo's (32767) where the GPU allows more (NVIDIA: 32768).
        let maximum = min(s.device.capabilities.maxTextureSize, Bitmap.maximumSide)
        let huge = CountingLayer()
        huge.name = "huge"
        huge.frame = Rect(x: 0, y: 0, width: Double(maximum + 1), height: 10)
        s.root.addSublayer(huge)
        #expect(throws: DisplayError.backingStoreTooLarge(layer: "huge", size: PixelSize(width: maximum + 1, height: 10), maximum: maximum)) {
            try huge.displayNow()
        }
        huge.setNeedsDisplay()
        #expect(throws: CommitError.self) { try Transaction.flush() }
        #expect(huge.displayCount == 0)
    }

    @Test("the redraw-highlight switch paints only the redrawn rectangle, and the next frame removes it")
    func redrawHighlight() throws {
        let s = try Scene()
        s.host.showsRedrawRegions = true
        let layer = CountingLayer()
        layer.frame = Rect(x: 0, y: 0, width: 100, height: 100)
        layer.color = .white
        layer.setNeedsDisplay()
        s.root.addSublayer(layer)
        try Transaction.flush()
        layer.setNeedsDisplay(Rect(x: 10, y: 10, width: 20, height: 20))
        try Transaction.flush()
        let flashed = try s.pixels()
        #expect(flashed[20, 20] != white && flashed[20, 20].g < flashed[20, 20].r, "magenta over the redrawn rect")
        #expect(flashed[50, 50] == white)
        try Transaction.commitIfNeeded()        // an idle turn: the flash goes away
        #expect(try s.pixels()[20, 20] == white)
    }

    @Test("removing a drawn layer frees its texture (collected at the next frame)")
    func backingStoreTextureFreed() throws {
        let s = try Scene()
        var layer: CountingLayer? = CountingLayer()
        layer!.frame = Rect(x: 0, y: 0, width: 30, height: 30)
        layer!.setNeedsDisplay()
        s.root.addSublayer(layer!)
        try Transaction.flush()
        let textures = s.device.liveObjectCounts[.texture]
        layer!.removeFromSuperlayer()
        layer = nil
        try Transaction.flush()
        #expect(s.device.liveObjectCounts[.texture] == textures - 1)
    }
}

/// The example of docs/drawing.md, verbatim.
@MainActor
final class Badge: Layer {
    var count = 0 { didSet { setNeedsDisplay() } }   // invalidate; nothing draws now
    override func draw(in ctx: GraphicsContext) {
        ctx.setFillColor(.red)
        ctx.fillEllipse(in: bounds)
        ctx.draw("\(count)", in: bounds.insetBy(dx: 4, dy: 6),
                 font: Font(size: 14, weight: .bold), color: .white, alignment: .center)
    }
}

@MainActor
@Suite("docs/drawing.md")
struct DrawingDocExampleTests {
    @Test("the Badge example draws once per change of its count, with white text on red")
    func badge() throws {
        let s = try Scene(width: 40, height: 40)
        let badge = Badge()
        badge.frame = Rect(x: 0, y: 0, width: 40, height: 40)
        s.root.addSublayer(badge)
        badge.count = 7
        badge.count = 8
        try Transaction.flush()
        #expect(badge.displayCount == 1)
        let image = try s.pixels()
        var whiteish = 0
        for y in 10..<30 { for x in 10..<30 where image[x, y].g > 200 { whiteish += 1 } }
        #expect(image[20, 4].r > 200 && image[20, 4].g < 60, "red disc")
        #expect(whiteish > 10, "the digit's glyph pixels")
    }
}

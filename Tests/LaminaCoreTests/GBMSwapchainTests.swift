import Foundation
import LaminaGeometry
import LaminaGPU
import Testing
@testable import LaminaCore
@testable import LaminaModel
@testable import LaminaRender
@testable import LaminaValues
import LaminaTestSupport

/// True inside the GBM test VM (Tools/vm/run-in-vm.sh, set by Tools/test.sh).
let insideGBMVM = ProcessInfo.processInfo.environment["LAMINA_GBM_TESTS"] == "1"

extension Rect {
    func union(_ o: Rect) -> Rect {
        if width <= 0 || height <= 0 { return o }
        if o.width <= 0 || o.height <= 0 { return self }
        let x0 = min(minX, o.minX), y0 = min(minY, o.minY)
        return Rect(x: x0, y: y0, width: max(maxX, o.maxX) - x0, height: max(maxY, o.maxY) - y0)
    }
}

@MainActor
@Suite("GBM swapchains and external contents (runs inside the test VM)", .isolatedTransactions,
       .enabled(if: insideGBMVM, "needs /dev/dri: Tools/test.sh runs this suite inside the VM"))
struct GBMSwapchainTests {
    /// A root with a static backdrop and a mover.
    func scene() -> (root: Layer, mover: Layer) {
        let root = rootLayer(width: 64, height: 48)
        root.addSublayer(solid(Rect(x: 8, y: 8, width: 48, height: 32), .blue))
        let mover = solid(Rect(x: 0, y: 0, width: 6, height: 6), .red)
        root.addSublayer(mover)
        return (root, mover)
    }

    @Test("a swapchain of 3 buffers: each frame goes to the next buffer; the repainted region is the union of the damage since the buffer's age; every buffer's pixels are right",
          arguments: [2, 3, 4])
    func rotation(bufferCount: Int) throws {
        try Transaction.flush()
        let device = try GPUDevice(backend: .only(.gbm))
        let swapchain = try GBMSwapchain(device: device, pixelSize: PixelSize(width: 64, height: 48), bufferCount: bufferCount)
        var presented: [GBMSwapchain.Frame] = []
        // The consumer (a display) holds the buffer on screen until the next one is presented.
        swapchain.onPresent = { [unowned swapchain] frame in
            if let last = presented.last { swapchain.releaseBuffer(last.buffer) }
            presented.append(frame)
        }
        let (root, mover) = scene()
        let compositor = LayerRenderer(device: device)
        let reference = try OffscreenTarget(device: device, pixelSize: swapchain.pixelSize)
        let full = LayerRenderer(device: device)
        for frame in 0..<(3 * bufferCount + 2) {
            Transaction.withoutActions { mover.position = Point(x: 5 + Double(frame) * 5, y: 5 + Double(frame % 4) * 9) }
            let expectedIndex = frame % bufferCount
            let age = swapchain.age(ofBuffer: expectedIndex)
            let stats = try compositor.render(root, to: swapchain, background: .white)
            #expect(!stats.skipped && stats.drawCalls > 0)
            let f = try #require(presented.last)
            #expect(f.serial == frame && f.index == expectedIndex, "frame \(frame) went to buffer \(f.index)")
            #expect(age == (frame < bufferCount ? 0 : bufferCount), "frame \(frame): age \(age)")
            // What was repainted: this frame's damage and that of the frames the buffer missed.
            if age > 0 {
                let missed = presented.suffix(age).map(\.damage).reduce(Rect.zero) { $0.union($1) }
                #expect(f.repainted == missed, "frame \(frame): repainted \(f.repainted), the damage since the buffer's age is \(missed)")
                #expect(f.repainted.width < 64 || f.repainted.height < 48, "not the whole target")
            } else {
                #expect(f.repainted == Rect(x: 0, y: 0, width: 64, height: 48), "a buffer of unknown age is repainted whole")
            }
            // The buffer's own memory (its CPU mapping, as a consumer sees it) equals a full render.
            #expect(f.fence?.wait(timeout: 10) ?? true)
            full.forgetLastFrame()
            try full.render(root, to: reference, background: .white)
            let mapped = try f.buffer.readMappedPixels()
            let ref = try reference.readPixels()
            let d = mapped.difference(from: ref, tolerance: 0)
            let viaGL = try swapchain.readPixels().difference(from: ref, tolerance: 0).differing
            #expect(d.differing == 0, "frame \(frame), buffer \(f.index): \(d.differing) pixels differ from a full render: \(mapped.mismatches(limit: 4) { x, y in ref[x, y] }) via GL: \(viaGL)")
        }
        // Nothing changed: no buffer used, nothing presented.
        let count = presented.count
        let stats = try compositor.render(root, to: swapchain, background: .white)
        #expect(stats.skipped && presented.count == count)
        compositor.release(); full.release(); reference.release(); swapchain.release()
        device.purgeCaches()
        #expect(device.liveObjectCounts.total == 0, "\(device.liveObjectCounts)")
        #expect(device.liveEGLImageCount == 0 && device.liveGBMBufferCount == 0)
    }

    @Test("a frame when the consumer holds every buffer throws, saying to release one; releasing one lets the next frame draw")
    func allHeld() throws {
        try Transaction.flush()
        let device = try GPUDevice(backend: .only(.gbm))
        let swapchain = try GBMSwapchain(device: device, pixelSize: PixelSize(width: 64, height: 48), bufferCount: 2)
        let (root, mover) = scene()
        let compositor = LayerRenderer(device: device)
        for i in 0..<2 {
            Transaction.withoutActions { mover.position = Point(x: 10 + Double(i) * 10, y: 10) }
            try compositor.render(root, to: swapchain, background: .white)
        }
        #expect(swapchain.freeBufferCount == 0)
        Transaction.withoutActions { mover.position = Point(x: 40, y: 10) }
        do {
            try compositor.render(root, to: swapchain, background: .white)
            Issue.record("a frame drew into a held buffer")
        } catch {
            #expect("\(error)".contains("releaseBuffer"), "\(error)")
        }
        swapchain.releaseBuffer(swapchain.buffers[0])
        try compositor.render(root, to: swapchain, background: .white)
        #expect(swapchain.presented?.index == 0)
        let d = try swapchain.buffers[0].readMappedPixels().difference(from: try render(root, width: 64, height: 48).image, tolerance: 0)
        #expect(d.differing == 0, "the frame that could not draw is drawn now")
        compositor.release(); swapchain.release()
    }

    @Test("a gbm_surface target: frames swapped and their buffers locked for the display, repainted by EGL's buffer age, pixels right")
    func gbmSurface() throws {
        try Transaction.flush()
        let device = try GPUDevice(backend: .only(.gbm))
        let target = try GBMSurfaceTarget(device: device, pixelSize: PixelSize(width: 64, height: 48))
        var locked: [OpaquePointer] = []
        target.onPresent = { [unowned target] bo in
            if let last = locked.last { target.releaseBuffer(last) }   // the display shows the new one
            locked.append(bo)
        }
        #expect(throws: GPUError.self) { _ = try GBMSurfaceTarget(device: device, pixelSize: PixelSize(width: 8, height: 8)) }
        let (root, mover) = scene()
        let compositor = LayerRenderer(device: device)
        let reference = try GBMTarget(device: device, pixelSize: PixelSize(width: 64, height: 48), format: .xrgb8888)
        let full = LayerRenderer(device: device)
        var ages: [Int] = []
        for frame in 0..<6 {
            Transaction.withoutActions { mover.position = Point(x: 5 + Double(frame) * 6, y: 10) }
            let stats = try compositor.render(root, to: target, background: .white)
            ages.append(target.bufferAge)
            #expect(locked.count == frame + 1, "frame \(frame) presented a buffer")
            if target.bufferAge > 0 { #expect(stats.damagedRect.width < 64, "frame \(frame) (age \(target.bufferAge)) repainted only the damage: \(stats.damagedRect)") }
            full.forgetLastFrame()
            try full.render(root, to: reference, background: .white)
            let d = try GBMBuffer.readMappedPixels(of: locked.last!).difference(from: try reference.readMappedPixels(), tolerance: 0)
            #expect(d.differing == 0, "frame \(frame): \(d.differing) pixels of the locked buffer differ from a full render")
        }
        #expect(ages.first == 0 && ages.dropFirst(2).allSatisfy { $0 > 0 }, "EGL's buffer ages \(ages)")
        print("gbm_surface buffer ages: \(ages)")
        #expect(try compositor.render(root, to: target, background: .white).skipped, "nothing changed: nothing swapped")
        compositor.release(); full.release(); reference.release(); target.release()
        // The surface is gone: a new one may be made on the device.
        let again = try GBMSurfaceTarget(device: device, pixelSize: PixelSize(width: 8, height: 8))
        again.release()
    }

    @Test("external buffers as layer contents: imported once per device, sampled in place (0 bytes uploaded), handed back once no tree shows them — drawn or not, with no further frame — and only when every compositor is done")
    func externalContents() throws {
        try Transaction.flush()
        let device = try GPUDevice(backend: .only(.gbm))
        let other = try GPUDevice(backend: .only(.gbm))
        let released = Locked<[UInt64]>([])
        let handler: @Sendable (ExternalBuffer) -> Void = { b in released.withLock { $0.append(b.id) } }
        /// Waits (at most 5 s) until `ids` were all handed back; then what was.
        func handedBack(_ ids: [UInt64]) -> [UInt64] {
            let deadline = Date().addingTimeInterval(5)
            while Date() < deadline && !ids.allSatisfy({ id in released.withLock { $0.contains(id) } }) { usleep(10_000) }
            return released.withLock { $0 }
        }
        let bars: [(Double, Double, Double)] = [(0.75, 0.75, 0.75), (0.75, 0, 0), (0, 0.75, 0), (0, 0, 0.75)]
        func frame(_ f: DRMFormat, _ c: @escaping (Int) -> (Double, Double, Double)) throws -> (GBMBuffer, ExternalBuffer) {
            let made = try device.makeYUVFrame(pixelSize: PixelSize(width: 32, height: 16), format: f, releaseHandler: handler) { x, _ in c(x) }
            return (made.buffer, made.frame)
        }
        let (carrierA, frameA) = try frame(.nv12) { bars[$0 / 8] }
        let (carrierB, frameB) = try frame(.yuv420) { _ in bars[3] }
        let (carrierC, frameC) = try frame(.nv12) { _ in bars[1] }
        // An RGB buffer from a GBM target (another component's render), also external.
        let rgbSource = try GBMTarget(device: other, pixelSize: PixelSize(width: 8, height: 8))
        let p = try other.beginRenderPass(on: rgbSource, clear: .green)
        p.submit()
        let rgb = ExternalBuffer(try rgbSource.exportDMABuf(), releaseHandler: handler)

        // Two trees (two windows), one on each device, both showing A.
        func tree() -> (root: Layer, video: Layer) {
            let root = rootLayer(width: 64, height: 32)
            let video = Layer()
            video.frame = Rect(x: 0, y: 0, width: 32, height: 16)
            video.contents = .external(frameA)
            let small = Layer()
            small.frame = Rect(x: 40, y: 0, width: 8, height: 8)
            small.contents = .external(rgb)
            root.addSublayer(video)
            root.addSublayer(small)
            return (root, video)
        }
        let (root1, video1) = tree(), (root2, video2) = tree()
        let c1 = LayerRenderer(device: device), c2 = LayerRenderer(device: other)
        let t1 = try OffscreenTarget(device: device, pixelSize: PixelSize(width: 64, height: 32))
        let t2 = try OffscreenTarget(device: other, pixelSize: PixelSize(width: 64, height: 32))
        let importsBefore = (device.externalBufferImports, other.externalBufferImports)
        let conversionsBefore = device.yuvConversions
        for frame in 0..<4 {
            // A new frame in the same buffer each time (the producer rewrote it), set on both trees.
            Transaction.withoutActions { video1.contents = .external(frameA); video2.contents = .external(frameA) }
            let s1 = try c1.render(root1, to: t1, background: .white)
            let s2 = try c2.render(root2, to: t2, background: .white)
            #expect(s1.textureBytesUploaded == 0 && s2.textureBytesUploaded == 0, "frame \(frame): sampled in place")
            #expect(!s1.skipped, "a new lend of the buffer is a change")
            for (i, t) in [t1, t2].enumerated() {
                let image = try t.readPixels()
                #expect(image[4, 8].maxChannelDifference(px(191, 191, 191)) <= 4 && image[12, 8].maxChannelDifference(px(191, 0, 0)) <= 4,
                        "device \(i) frame \(frame): the bars (\(image[4, 8]), \(image[12, 8]))")
                #expect(image[44, 4] == px(0, 255, 0), "device \(i): the RGB buffer")
            }
        }
        #expect(device.externalBufferImports - importsBefore.0 == 2 && other.externalBufferImports - importsBefore.1 == 2,
                "each device imported each buffer once")
        #expect(device.yuvConversions - conversionsBefore == 4, "one conversion per new frame, though two layers lent it")
        #expect(released.withLock { $0 }.isEmpty, "nothing handed back while shown")

        // The first tree moves on to B; A is still shown by the second: not handed back.
        Transaction.withoutActions { video1.contents = .external(frameB) }
        try Transaction.flush()
        usleep(300_000)
        #expect(!released.withLock { $0 }.contains(frameA.id), "A is still read by the second compositor")
        // The second tree shows C, then B, before any frame: C was never drawn, A is no
        // longer shown anywhere. Both go back without another frame being drawn.
        Transaction.withoutActions { video2.contents = .external(frameC) }
        try Transaction.flush()
        Transaction.withoutActions { video2.contents = .external(frameB) }
        try Transaction.flush()
        let back = handedBack([frameA.id, frameC.id])
        #expect(back.filter { $0 == frameA.id }.count == 1 && back.filter { $0 == frameC.id }.count == 1,
                "A once (when both were done), C though never drawn: \(back)")
        try c1.render(root1, to: t1, background: .white)
        #expect(try t1.readPixels()[4, 8].maxChannelDifference(px(0, 0, 191)) <= 4)
        // Teardown hands back what is still shown, and frees every import.
        c1.release(); c2.release()
        #expect(released.withLock { $0 }.sorted() == [frameA.id, frameB.id, frameC.id, rgb.id].sorted(), "\(released.withLock { $0 })")
        t1.release(); t2.release(); rgbSource.release()
        carrierA.release(); carrierB.release(); carrierC.release()
        _ = (frameA, frameB, frameC, rgb)
        for d in [device, other] {
            d.sweepExternalImports(all: true)   // the buffers still live here (the test holds them)
            d.purgeCaches()
            #expect(d.liveObjectCounts.total == 0 && d.liveEGLImageCount == 0, "\(d.liveObjectCounts), \(d.liveEGLImageCount) EGL images")
        }
    }
}

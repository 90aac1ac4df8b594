import Foundation
import Glibc
import LaminaGeometry
import Testing
@testable import LaminaGPU

/// Open file descriptors of this process (leak checks).
func openFDCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}

/// The expected 8-bit RGBA of premultiplied `c` stored in `format` and read back: opaque
/// formats keep the premultiplied colour with alpha 1 (the image over black); 2-bit alpha
/// is quantised.
func expectedStored(_ c: RGBAPixel, _ format: DRMFormat) -> RGBAPixel {
    var e = c
    if !format.hasAlpha { e.a = 255 }
    if format == .argb2101010 || format == .abgr2101010 { e.a = UInt8((Double(c.a) / 255 * 3).rounded() * 85) }
    return e
}

@Suite("GBM formats and modifiers (runs inside the test VM)", .enabled(if: insideGBMVM, "needs /dev/dri: Tools/test.sh runs this suite inside the VM"))
struct GBMFormatTests {
    @Test("the device lists the formats it imports and allocates; ARGB, XRGB, ABGR and XBGR 8888 are all there")
    func capabilities() throws {
        let d = try openDevice(.only(.gbm))
        let formats = d.dmaBufFormats()
        for f in [DRMFormat.argb8888, .xrgb8888, .abgr8888, .xbgr8888] {
            let entry = try #require(formats.first { $0.format == f }, "\(f) is listed")
            #expect(entry.gbmRendering, "\(f) is allocated for rendering")
        }
        print("dma-buf formats of \(d.capabilities.glRenderer):\n  " + formats.map(\.description).joined(separator: "\n  "))
    }

    @Test("every renderable format the driver allocates, implicit and linear: render, export, map, compare; re-import agrees")
    func everyFormat() throws {
        let d = try openDevice(.only(.gbm))
        let fdsBefore = openFDCount()
        let size = PixelSize(width: 24, height: 8)
        // Four bars: opaque red, green, blue and a translucent premultiplied white.
        let colors = [px(255, 0, 0), px(0, 255, 0), px(0, 0, 255), px(128, 128, 128, 128)]
        var tested: [String] = [], unsupported: [String] = []
        for format in DRMFormat.renderable {
            for modifiers in [nil, [DRMModifier.linear]] {
                let what = "\(format) \(modifiers == nil ? "implicit" : "linear")"
                let target: GBMTarget
                do {
                    target = try GBMTarget(device: d, pixelSize: size, format: format, modifiers: modifiers)
                } catch {
                    // Only the four 8888 formats are required; the others are "where the driver allows".
                    #expect(![DRMFormat.argb8888, .xrgb8888, .abgr8888, .xbgr8888].contains(format), "\(what): \(error)")
                    unsupported.append("\(what): \(error)")
                    continue
                }
                let pass = try d.beginRenderPass(on: target, clear: .clear)
                for (i, c) in colors.enumerated() {
                    let col = Color(red: Double(c.r) / Double(max(c.a, 1)), green: Double(c.g) / Double(max(c.a, 1)),
                                    blue: Double(c.b) / Double(max(c.a, 1)), alpha: Double(c.a) / 255)
                    try pass.fill(Rect(x: Double(i * 6), y: 0, width: 6, height: 8), color: col)
                }
                pass.submit()
                let buffer = try #require(target.buffer)
                if modifiers != nil { #expect(buffer.modifier == .linear, "\(what): the buffer is linear") }
                let mapped = try target.readMappedPixels()
                let tolerance = format == .rgb565 ? 5 : 2
                let wrong = mapped.mismatches({ x, _ in expectedStored(colors[x / 6], format) }, tolerance: tolerance)
                #expect(wrong.isEmpty, "\(what) through the CPU mapping: \(wrong)")
                // Export and import into another texture: the same pixels.
                let dmaBuf = try target.exportDMABuf()
                #expect(dmaBuf.format == format && dmaBuf.modifier == buffer.modifier)
                let imported = try d.importDMABuf(dmaBuf)
                dmaBuf.close()
                let copy = try OffscreenTarget(device: d, pixelSize: size)
                let p2 = try d.beginRenderPass(on: copy, clear: .clear)
                try p2.draw(imported, in: Rect(x: 0, y: 0, width: 24, height: 8), minFilter: .nearest, magFilter: .nearest)
                p2.submit()
                let back = try copy.readPixels()
                let wrong2 = back.mismatches({ x, _ in expectedStored(colors[x / 6], format) }, tolerance: tolerance)
                #expect(wrong2.isEmpty, "\(what) re-imported: \(wrong2)")
                imported.release(); copy.release(); target.release()
                tested.append(what)
            }
        }
        print("formats rendered, exported and compared: \(tested.joined(separator: ", "))")
        if !unsupported.isEmpty { print("not allocated by this driver:\n  " + unsupported.joined(separator: "\n  ")) }
        #expect(tested.count >= 8, "at least the four 8888 formats, implicit and linear")
        d.purgeCaches()
        #expect(d.liveObjectCounts.total == 0, "\(d.liveObjectCounts)")
        #expect(d.liveEGLImageCount == 0)
        #expect(d.liveGBMBufferCount == 0)
        #expect(openFDCount() == fdsBefore, "no fd leaked")
    }

    @Test("a scan-out buffer is allocated where the driver allows it, or the error names the usage")
    func scanoutUsage() throws {
        let d = try openDevice(.only(.gbm))
        let canScanOut = d.dmaBufFormats().first { $0.format == .xrgb8888 }?.gbmScanout ?? false
        do {
            let t = try GBMTarget(device: d, pixelSize: PixelSize(width: 16, height: 16), format: .xrgb8888, usage: [.scanout])
            #expect(t.buffer?.usage.contains(.scanout) == true)
            t.release()
        } catch {
            #expect(!canScanOut, "scan-out is listed as supported, yet: \(error)")
            #expect("\(error)".contains("scanout"), "\(error)")
        }
    }
}

@Suite("GBM fences (runs inside the test VM)", .enabled(if: insideGBMVM, "needs /dev/dri: Tools/test.sh runs this suite inside the VM"))
struct GBMFenceTests {
    @Test("a fence after rendering signals; without EGL_ANDROID_native_fence_sync a sync file cannot be exported, and the error says what to do")
    func exportFence() throws {
        let d = try openDevice(.only(.gbm))
        let target = try GBMTarget(device: d, pixelSize: PixelSize(width: 64, height: 64))
        let pass = try d.beginRenderPass(on: target, clear: .blue)
        for i in 0..<50 { try pass.fill(Rect(x: Double(i % 8), y: 0, width: 40, height: 40), color: .red) }
        pass.submit()
        let fence = try SyncFence.afterWork(on: d)
        #expect(fence.wait(timeout: 10), "the fence signalled")
        #expect(fence.isSignaled)
        if d.capabilities.nativeFenceSync {
            let fd = try fence.exportSyncFile()
            #expect(fd >= 0)
            close(fd)
        } else {
            #expect(fence.kind == .gpu)
            do {
                _ = try fence.exportSyncFile()
                Issue.record("a sync file was exported without EGL_ANDROID_native_fence_sync")
            } catch {
                #expect("\(error)".contains("wait()"), "the error says to wait before handing over: \(error)")
            }
            do {
                _ = try SyncFence.importSyncFile(dup(0), on: d)
                Issue.record("a sync file was imported without EGL_ANDROID_native_fence_sync")
            } catch {
                #expect("\(error)".contains("EGL_ANDROID_native_fence_sync"), "\(error)")
            }
        }
        target.release()
    }

    @Test("an external buffer's texture waits for a fence a second context signals late: the pixels are the producer's final ones")
    func importWaitsForLateFence() throws {
        let d = try openDevice(.only(.gbm))
        let producerDevice = try openDevice(.only(.gbm))   // a second context (and display) on the same card
        let size = PixelSize(width: 32, height: 32)
        let produced = try GBMTarget(device: producerDevice, pixelSize: size)
        var pass = try producerDevice.beginRenderPass(on: produced, clear: .blue)
        pass.submit()
        try producerDevice.finishWork()
        let fence = try SyncFence.userSignaled(on: d)
        #expect(!fence.isSignaled)
        let external = ExternalBuffer(try produced.exportDMABuf())
        external.setAcquireFence(fence)
        // The producer finishes 300 ms later, on another thread, and signals then.
        nonisolated(unsafe) let p = (producerDevice, produced, fence)
        let producer = Thread {
            Thread.sleep(forTimeInterval: 0.3)
            let pass = try! p.0.beginRenderPass(on: p.1, clear: .red)
            pass.submit()
            try! p.0.finishWork()
            try! p.2.signal()
        }
        let start = Date()
        producer.start()
        let texture = try d.texture(for: external)
        let waited = Date().timeIntervalSince(start)
        let out = try OffscreenTarget(device: d, pixelSize: size)
        pass = try d.beginRenderPass(on: out, clear: .clear)
        try pass.draw(texture, in: Rect(x: 0, y: 0, width: 32, height: 32))
        pass.submit()
        let pixels = try out.readPixels()
        #expect(pixels.mismatches { _, _ in px(255, 0, 0) }.isEmpty, "the producer's final (red) frame, not its first (blue)")
        #expect(waited >= 0.25, "the import waited for the fence (\(waited) s)")
        #expect(fence.isSignaled)
        // Taken by that use: the next use does not wait again.
        let again = Date()
        _ = try d.texture(for: external)
        #expect(Date().timeIntervalSince(again) < 0.25)
        out.release()
        d.sweepExternalImports(all: true)
        produced.release()
        d.purgeCaches()
        #expect(d.liveObjectCounts.total == 0 && d.liveEGLImageCount == 0, "\(d.liveObjectCounts)")
    }

    @Test("a GPU fence from a context of the same display is waited for on the GPU (EGL_KHR_wait_sync)")
    func serverWaitOnSharedDisplay() throws {
        let d = try openDevice(.only(.gbm))
        #expect(d.capabilities.serverWaitSync)
        let producer = try GPUDevice(sharingWith: .context(display: d.display, context: d.gl.context))
        let size = PixelSize(width: 32, height: 32)
        let buffer = try d.makeGBMBuffer(pixelSize: size)
        let dma = try buffer.exportDMABuf()
        // The producer renders into the buffer through its own import, and hands over a
        // fence right away (no glFinish).
        let producerTexture = try producer.importDMABuf(dma)
        let producerTarget = try OffscreenTarget(device: producer, texture: producerTexture)
        let pass = try producer.beginRenderPass(on: producerTarget, clear: .blue)
        for i in 0..<100 { try pass.fill(Rect(x: 0, y: 0, width: 32, height: 32), color: i == 99 ? .green : .red) }
        pass.submit()
        let fence = try SyncFence.afterWork(on: producer)
        let external = ExternalBuffer(dma)
        external.setAcquireFence(fence)
        let waitsBefore = d.serverFenceWaits
        let texture = try d.texture(for: external)
        #expect(d.serverFenceWaits == waitsBefore + 1, "waited for on the GPU (eglWaitSync), not on the CPU")
        _ = try d.texture(for: external)
        #expect(d.serverFenceWaits == waitsBefore + 1, "each fence is waited for once per device")
        let out = try OffscreenTarget(device: d, pixelSize: size)
        let p2 = try d.beginRenderPass(on: out, clear: .clear)
        try p2.draw(texture, in: Rect(x: 0, y: 0, width: 32, height: 32))
        p2.submit()
        #expect(try out.readPixels().mismatches { _, _ in px(0, 255, 0) }.isEmpty)
        out.release(); producerTarget.release(); producerTexture.release()
        producer.close()
        d.sweepExternalImports(all: true)
        buffer.release()
    }
}

/// Colour bars at 75 %: white, red, green, blue (what the YUV tests encode).
let colorBars: [(Double, Double, Double)] = [(0.75, 0.75, 0.75), (0.75, 0, 0), (0, 0.75, 0), (0, 0, 0.75)]

@Suite("GBM YUV import (runs inside the test VM)", .enabled(if: insideGBMVM, "needs /dev/dri: Tools/test.sh runs this suite inside the VM"))
struct GBMYUVTests {
    /// Draws `frame` 1:1 into an offscreen target and reads it back.
    func show(_ frame: ExternalBuffer, on d: GPUDevice) throws -> RGBAImage {
        let texture = try d.texture(for: frame)
        // Lamina converts planar YUV into an RGBA texture; the driver's conversion is
        // sampled as GL_TEXTURE_EXTERNAL_OES.
        #expect(texture.isExternal == (frame.conversion == .driver), "\(frame.conversion) conversion")
        let out = try OffscreenTarget(device: d, pixelSize: frame.pixelSize)
        defer { out.release() }
        let pass = try d.beginRenderPass(on: out, clear: .clear)
        try pass.draw(texture, in: Rect(x: 0, y: 0, width: Double(frame.pixelSize.width), height: Double(frame.pixelSize.height)),
                      minFilter: .nearest, magFilter: .nearest)
        pass.submit()
        return try out.readPixels()
    }

    @Test("NV12, NV21, YUV420, YVU420 and P010 colour bars in BT.601, BT.709 and BT.2020, limited and full range, convert to the expected RGB within 4/255",
          arguments: [DRMFormat.nv12, .nv21, .yuv420, .yvu420, .p010])
    func colourBars(format: DRMFormat) throws {
        let d = try openDevice(.only(.gbm))
        let fdsBefore = openFDCount()
        let size = PixelSize(width: 32, height: 8)
        for space in YUVColorSpace.allCases {
            for range in YUVRange.allCases {
                // The bars in order on the top half, reversed on the bottom half (a flip or
                // a wrong chroma row shows).
                func bar(_ x: Int, _ y: Int) -> (Double, Double, Double) { colorBars[y < 4 ? x / 8 : 3 - x / 8] }
                let (carrier, frame) = try d.makeYUVFrame(pixelSize: size, format: format, colorSpace: space, range: range) { x, y in bar(x, y) }
                let image = try show(frame, on: d)
                // Bar centres (away from the chroma-sharing edges).
                var wrong: [String] = []
                for i in 0..<4 {
                    for x in [i * 8 + 2, i * 8 + 5] {
                        for y in [1, 6] {
                            let c = bar(x, y)
                            let e = px(UInt8((c.0 * 255).rounded()), UInt8((c.1 * 255).rounded()), UInt8((c.2 * 255).rounded()))
                            if image[x, y].maxChannelDifference(e) > 4 { wrong.append("(\(x),\(y)): got \(image[x, y]) expected \(e)") }
                        }
                    }
                }
                #expect(wrong.isEmpty, "\(format) \(space) \(range): \(wrong)")
                d.sweepExternalImports(all: true)
                carrier.release()
            }
        }
        d.purgeCaches()
        #expect(d.liveObjectCounts.total == 0 && d.liveEGLImageCount == 0 && d.liveGBMBufferCount == 0, "\(d.liveObjectCounts)")
        #expect(openFDCount() == fdsBefore, "no fd leaked")
    }

    @Test("YUYV through the driver: a GL_TEXTURE_EXTERNAL_OES texture drawn with samplerExternalOES, BT.601 limited (what Mesa's llvmpipe converts), within 4/255")
    func packedThroughDriver() throws {
        let d = try openDevice(.only(.gbm))
        let size = PixelSize(width: 32, height: 8)
        let (carrier, frame) = try d.makeYUVFrame(pixelSize: size, format: .yuyv, colorSpace: .bt601, range: .limited) { x, _ in colorBars[x / 8] }
        #expect(frame.conversion == .driver)
        let image = try show(frame, on: d)
        var wrong: [String] = []
        for (i, c) in colorBars.enumerated() {
            let e = px(UInt8((c.0 * 255).rounded()), UInt8((c.1 * 255).rounded()), UInt8((c.2 * 255).rounded()))
            for x in [i * 8 + 2, i * 8 + 5] where image[x, 3].maxChannelDifference(e) > 4 {
                wrong.append("bar \(i) at x \(x): got \(image[x, 3]) expected \(e)")
            }
        }
        #expect(wrong.isEmpty, "\(wrong)")
        d.sweepExternalImports(all: true)
        carrier.release()
        #expect(d.liveEGLImageCount == 0)
    }

    @Test("an external buffer is imported once per device: its EGL image is re-used across frames and rewritten pixels show")
    func importedOncePerBuffer() throws {
        let d = try openDevice(.only(.gbm))
        let size = PixelSize(width: 16, height: 8)
        var (carrier, frame) = try d.makeYUVFrame(pixelSize: size, format: .nv12) { _, _ in colorBars[1] }
        let imagesBefore = d.externalBufferImports, eglImagesBefore = d.liveEGLImageCount
        #expect(try show(frame, on: d)[4, 4].maxChannelDifference(px(191, 0, 0)) <= 4)
        #expect(d.liveEGLImageCount - eglImagesBefore == 2, "an EGL image per plane (Y, UV)")
        // The producer writes a new frame into the same buffer: shown without a new import.
        try carrier.withMappedBytes(write: true) { base, stride in
            let p = base.assumingMemoryBound(to: UInt8.self)
            let e = YUVColorSpace.bt709.encode(red: 0, green: 0, blue: 0.75, range: .limited)
            for y in 0..<8 { for x in 0..<16 { p[y * stride + x] = e.y } }
            for y in 0..<4 { for x in 0..<8 { p[(8 + y) * stride + 2 * x] = e.u; p[(8 + y) * stride + 2 * x + 1] = e.v } }
        }
        for _ in 0..<4 { #expect(try show(frame, on: d)[4, 4].maxChannelDifference(px(0, 0, 191)) <= 4) }
        #expect(d.externalBufferImports - imagesBefore == 1, "one import for five frames")
        #expect(d.liveEGLImageCount - eglImagesBefore == 2)
        #expect(d.cachedExternalImports == 1)
        // The import is dropped with the buffer object.
        frame = try d.makeYUVFrame(pixelSize: size, format: .nv12) { _, _ in colorBars[2] }.frame
        carrier.release()
        carrier = try d.makeGBMBuffer(pixelSize: PixelSize(width: 4, height: 4))
        _ = try show(frame, on: d)
        #expect(d.cachedExternalImports == 1, "the first buffer's import was freed when the buffer was")
        #expect(d.externalBufferImports - imagesBefore == 2)
        d.sweepExternalImports(all: true)
        #expect(d.liveEGLImageCount == 0)
        carrier.release()
    }

    @Test("a malformed YUV buffer gets an error that names the planes")
    func malformed() throws {
        let d = try openDevice(.only(.gbm))
        let buf = DMABuf(width: 16, height: 8, format: .nv12, planes: [DMABuf.Plane(fd: dup(0), offset: 0, stride: 16)])
        do {
            _ = try d.importDMABuf(buf)
            Issue.record("an NV12 buffer with one plane was imported")
        } catch {
            #expect("\(error)".contains("2 plane(s)"), "\(error)")
        }
    }
}

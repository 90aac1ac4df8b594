import CDRM
import Foundation
import Glibc
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaUI

// MARK: KMS

/// The card, its connector, mode and CRTC.
struct Display {
    let path: String
    let fd: Int32
    let connector: UInt32
    let crtc: UInt32
    var mode: drmModeModeInfo
    var size: PixelSize { PixelSize(width: Int(mode.hdisplay), height: Int(mode.vdisplay)) }
}

/// Opens the first card (or `path`) with a connected connector. Opened before Lamina's
/// device, so this fd is the DRM master (mode setting needs it).
func openDisplay(_ requested: String?) throws -> Display {
    let candidates = requested.map { [$0] } ?? ((try? FileManager.default.contentsOfDirectory(atPath: "/dev/dri")) ?? [])
        .filter { $0.hasPrefix("card") }.sorted().map { "/dev/dri/" + $0 }
    var tried: [String] = []
    for path in candidates {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { tried.append("\(path): \(String(cString: strerror(errno)))"); continue }
        guard let res = drmModeGetResources(fd) else { tried.append("\(path): no KMS (drmModeGetResources failed)"); close(fd); continue }
        defer { drmModeFreeResources(res) }
        for i in 0..<Int(res.pointee.count_connectors) {
            guard let conn = drmModeGetConnector(fd, res.pointee.connectors[i]) else { continue }
            defer { drmModeFreeConnector(conn) }
            guard conn.pointee.connection == DRM_MODE_CONNECTED, conn.pointee.count_modes > 0 else { continue }
            var mode = conn.pointee.modes[0]
            for m in 0..<Int(conn.pointee.count_modes) where conn.pointee.modes[m].type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0 {
                mode = conn.pointee.modes[m]
                break
            }
            // A CRTC its encoder can drive.
            var crtc: UInt32 = 0
            if let enc = drmModeGetEncoder(fd, conn.pointee.encoder_id) { crtc = enc.pointee.crtc_id; drmModeFreeEncoder(enc) }
            if crtc == 0 {
                for e in 0..<Int(conn.pointee.count_encoders) {
                    guard let enc = drmModeGetEncoder(fd, conn.pointee.encoders[e]) else { continue }
                    defer { drmModeFreeEncoder(enc) }
                    for c in 0..<Int(res.pointee.count_crtcs) where enc.pointee.possible_crtcs & (1 << UInt32(c)) != 0 {
                        crtc = res.pointee.crtcs[c]
                        break
                    }
                    if crtc != 0 { break }
                }
            }
            guard crtc != 0 else { continue }
            return Display(path: path, fd: fd, connector: conn.pointee.connector_id, crtc: crtc, mode: mode)
        }
        tried.append("\(path): no connected connector")
        close(fd)
    }
    throw Failure(description: "no DRM card with a connected display (tried: \(tried.isEmpty ? "no /dev/dri/card*" : tried.joined(separator: "; "))). In the VM: LAMINA_VM_GPU=1 Tools/vm/run-in-vm.sh (virtio-gpu)")
}

/// A KMS framebuffer for each swapchain buffer: its dma-buf imported on the display's fd.
func framebuffer(for buffer: GBMBuffer, on display: Display) throws -> UInt32 {
    let dma = try buffer.exportDMABuf()
    defer { dma.close() }
    var handle: UInt32 = 0
    guard drmPrimeFDToHandle(display.fd, dma.fd, &handle) == 0 else {
        throw Failure(description: "drmPrimeFDToHandle: \(String(cString: strerror(errno)))")
    }
    var handles: (UInt32, UInt32, UInt32, UInt32) = (handle, 0, 0, 0)
    var pitches: (UInt32, UInt32, UInt32, UInt32) = (UInt32(dma.stride), 0, 0, 0)
    var offsets: (UInt32, UInt32, UInt32, UInt32) = (UInt32(dma.offset), 0, 0, 0)
    var fb: UInt32 = 0
    let r = withUnsafePointer(to: &handles) { h in
        withUnsafePointer(to: &pitches) { p in
            withUnsafePointer(to: &offsets) { o in
                drmModeAddFB2(display.fd, UInt32(dma.width), UInt32(dma.height), LAMINA_DRM_FORMAT_XRGB8888,
                              UnsafeRawPointer(h).assumingMemoryBound(to: UInt32.self),
                              UnsafeRawPointer(p).assumingMemoryBound(to: UInt32.self),
                              UnsafeRawPointer(o).assumingMemoryBound(to: UInt32.self), &fb, 0)
            }
        }
    }
    guard r == 0 else { throw Failure(description: "drmModeAddFB2(XR24 \(dma.width)×\(dma.height)): \(String(cString: strerror(-r)))") }
    return fb
}

/// Set by the page-flip handler.
nonisolated(unsafe) var flipsCompleted = 0

/// Waits (poll) for the pending flip's event; false after `timeout` seconds.
func waitForFlip(_ display: Display, timeout: Double = 10) -> Bool {
    let target = flipsCompleted + 1
    var context = drmEventContext()
    context.version = 2
    context.page_flip_handler = { _, _, _, _, _ in flipsCompleted += 1 }
    let deadline = Date().addingTimeInterval(timeout)
    while flipsCompleted < target {
        var pfd = pollfd(fd: display.fd, events: Int16(POLLIN), revents: 0)
        let ms = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
        guard poll(&pfd, 1, ms) > 0 else { return false }
        drmHandleEvent(display.fd, &context)
    }
    return true
}

/// The KMS mode: set the connector's preferred mode, page-flip the swapchain's buffers.
@MainActor
func runKMS(_ o: Options) throws -> Int32 {
    let display = try openDisplay(o.device)
    let device = try GPUDevice(backend: .only(.gbm), drmDevice: display.path)
    let size = display.size
    print("lamina-display kms: \(display.path), connector \(display.connector), CRTC \(display.crtc), mode \(size.width)×\(size.height)@\(display.mode.vrefresh) Hz; \(device.capabilities.glRenderer)")
    let swapchain = try GBMSwapchain(device: device, pixelSize: size, bufferCount: o.buffers, format: .xrgb8888, usage: [.scanout])
    let fbs = try swapchain.buffers.map { try framebuffer(for: $0, on: display) }
    let scene = try DemoScene(target: swapchain, frames: o.frames)
    let checker = o.checkShots ? try ShotChecker(scene: scene, device: device, size: size, outDir: o.outDir) : nil
    var onScreen: GBMBuffer?
    var meter = FrameMeter(device: device)
    for n in 0..<o.frames {
        if n == 1 { meter.start() }   // the first frame (shader compilation, the whole screen) is not timed
        try scene.render(n)
        guard let frame = swapchain.presented, frame.serial == n else { throw Failure(description: "frame \(n) presented nothing") }
        // No sync files on this driver (no EGL_ANDROID_native_fence_sync): wait on the CPU
        // for the frame's fence before the display reads the buffer.
        frame.fence?.wait()
        if n == 0 {
            var connector = display.connector
            var mode = display.mode
            guard drmModeSetCrtc(display.fd, display.crtc, fbs[frame.index], 0, 0, &connector, 1, &mode) == 0 else {
                throw Failure(description: "drmModeSetCrtc: \(String(cString: strerror(errno))) (is another program the DRM master?)")
            }
        } else if n == o.dropFlip {
            swapchain.releaseBuffer(frame.buffer)   // never shown: the display stays a frame behind
        } else {
            guard drmModePageFlip(display.fd, display.crtc, fbs[frame.index], LAMINA_DRM_MODE_PAGE_FLIP_EVENT, nil) == 0 else {
                throw Failure(description: "drmModePageFlip: \(String(cString: strerror(errno)))")
            }
            guard waitForFlip(display) else { throw Failure(description: "no page-flip event for frame \(n) within 10 s") }
        }
        // The buffer shown before is free again.
        if n != o.dropFlip {
            if let old = onScreen { swapchain.releaseBuffer(old) }
            onScreen = frame.buffer
        }
        if o.shots.contains(n), let checker { try checker.check(frame: n) }
    }
    meter.report(frames: o.frames, size: size, presentations: "\(flipsCompleted) page flips with events")
    checker?.release()
    scene.window.target = try OffscreenTarget(device: device, pixelSize: PixelSize(width: 1, height: 1))
    for fb in fbs { drmModeRmFB(display.fd, fb) }
    swapchain.release()
    close(display.fd)
    if let checker, checker.mismatches > 0 { print("lamina-display: \(checker.mismatches) screendump(s) differ"); return 1 }
    return 0
}

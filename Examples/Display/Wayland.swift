import CWayland
import Foundation
import Glibc
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaUI

/// The Wayland mode: a fullscreen toplevel whose buffers are the swapchain's dma-bufs.
@MainActor
func runWayland(_ o: Options) throws -> Int32 {
    var error = [CChar](repeating: 0, count: 256)
    guard let client = lw_connect("Lamina", &error) else { throw Failure(description: message(error)) }
    defer { lw_disconnect(client) }
    let size = PixelSize(width: Int(lw_width(client)), height: Int(lw_height(client)))
    guard size.width > 0, size.height > 0 else { throw Failure(description: "the compositor gave the fullscreen window no size") }
    // The buffers must be allocated on the device the compositor renders with (it imports
    // them there): LAMINA_DRM_DEVICE or --device names it.
    let device = try GPUDevice(backend: .only(.gbm), drmDevice: o.device)
    print("lamina-display wayland: \(size.width)×\(size.height) fullscreen, zwp_linux_dmabuf_v1 with \(lw_format_count(client)) format/modifier pairs; buffers on \(device.backendDetail); \(device.capabilities.glRenderer)")
    let swapchain = try GBMSwapchain(device: device, pixelSize: size, bufferCount: o.buffers, format: .xrgb8888)
    for b in swapchain.buffers {
        let dma = try b.exportDMABuf()   // the compositor receives its own copy of the fd
        defer { dma.close() }
        let modifier = dma.modifier == .invalid ? DRMModifier.invalid.rawValue : dma.modifier.rawValue
        guard lw_add_dmabuf(client, dma.fd, UInt32(dma.offset), UInt32(dma.stride), modifier, Int32(dma.width), Int32(dma.height),
                            dma.format.rawValue, &error) >= 0 else { throw Failure(description: message(error)) }
    }
    let scene = try DemoScene(target: swapchain, frames: o.frames)
    let checker = o.checkShots ? try ShotChecker(scene: scene, device: device, size: size, outDir: o.outDir) : nil
    var meter = FrameMeter(device: device)
    var callbacks = 0
    for n in 0..<o.frames {
        if n == 1 { meter.start() }
        // Buffers the compositor released (wl_buffer.release) may be drawn again.
        for (i, b) in swapchain.buffers.enumerated() where swapchain.isHeld(i) && lw_released(client, Int32(i)) != 0 {
            swapchain.releaseBuffer(b)
        }
        try scene.render(n)
        guard let frame = swapchain.presented, frame.serial == n else { throw Failure(description: "frame \(n) presented nothing") }
        frame.fence?.wait()   // no sync files here: the compositor reads a finished buffer
        if n == o.dropFlip {
            swapchain.releaseBuffer(frame.buffer)   // never committed: the compositor shows the frame before
        } else {
            let r = swapchain.pixelRect(of: frame.repainted)
            guard lw_present(client, Int32(frame.index), Int32(r.x), Int32(r.y), Int32(r.width), Int32(r.height)) == 0 else {
                throw Failure(description: "the connection to the compositor failed at frame \(n)")
            }
            switch lw_wait_frame(client, 20_000) {
            case 1: callbacks += 1
            case 0: throw Failure(description: "no frame callback for frame \(n) within 20 s")
            default: throw Failure(description: "the connection to the compositor failed at frame \(n)")
            }
        }
        if o.shots.contains(n), let checker { try checker.check(frame: n, attempts: 4) }
    }
    meter.report(frames: o.frames, size: size, presentations: "\(callbacks) frame callbacks")
    checker?.release()
    scene.window.target = try OffscreenTarget(device: device, pixelSize: PixelSize(width: 1, height: 1))
    swapchain.release()
    if let checker, checker.mismatches > 0 { print("lamina-display: \(checker.mismatches) screendump(s) differ"); return 1 }
    return 0
}

extension RenderTarget {
    /// The pixels covering `rect` (points), rounded out.
    func pixelRect(of rect: Rect) -> PixelRect {
        let x0 = max(0, Int((rect.minX * scale).rounded(.down))), y0 = max(0, Int((rect.minY * scale).rounded(.down)))
        let x1 = min(pixelSize.width, Int((rect.maxX * scale).rounded(.up))), y1 = min(pixelSize.height, Int((rect.maxY * scale).rounded(.up)))
        return PixelRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }
}

/// A C string in a buffer, up to its terminating zero.
func message(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

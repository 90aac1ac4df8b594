// lamina-kms: a Lamina window on a DRM/KMS display, in the spirit of kmscube.
//
// Opens the first DRM card with a connected connector, sets its preferred mode, renders a
// Lamina window into a GBMSwapchain of scan-out buffers (XRGB8888) and page-flips them,
// paced by the flip events, for N frames. A "video" layer shows NV12 frames from a small
// software producer as external buffers (zero-copy: imported once each, handed back to the
// producer when no longer read). Prints frames per second, CPU per frame and the bytes
// copied per frame.
//
// With --check-shots (inside Tools/vm/run-in-vm.sh with LAMINA_VM_GPU=1), it asks qemu for
// a screendump of the virtual monitor at the frames given, and compares what the monitor
// shows with an independent full render of the same frame: exit status 1 if they differ.
//
//   lamina-kms [--frames N] [--shots 10,30] [--check-shots] [--device /dev/dri/cardN]
//              [--out DIR] [--buffers 3]
import CDRM
import Foundation
import Glibc
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import LaminaUI

struct Failure: Error, CustomStringConvertible { let description: String }

// MARK: Options

var frames = 60, shots: [Int] = [], checkShots = false, devicePath: String?, outDir: String?, bufferCount = 3
/// A frame not flipped (to show that --check-shots catches a display that is behind).
var dropFlip: Int?
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--frames": frames = Int(args.popFirst() ?? "") ?? frames
    case "--shots": shots = (args.popFirst() ?? "").split(separator: ",").compactMap { Int($0) }
    case "--check-shots": checkShots = true
    case "--device": devicePath = args.popFirst()
    case "--out": outDir = args.popFirst()
    case "--buffers": bufferCount = Int(args.popFirst() ?? "") ?? bufferCount
    case "--drop-flip": dropFlip = Int(args.popFirst() ?? "")
    default:
        FileHandle.standardError.write("usage: lamina-kms [--frames N] [--shots 10,30] [--check-shots] [--device /dev/dri/cardN] [--out DIR] [--buffers 2-4]\n".data(using: .utf8)!)
        exit(2)
    }
}

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

// MARK: Screendumps (qemu, through Tools/vm/shotd.py)

/// Asks the host for a screendump of the virtual monitor; returns the PPM's pixels.
func screendump(_ name: String) throws -> RGBAImage {
    let dir = "/run/lamina-vm"
    let base = "\(dir)/shot-\(name)"
    try? FileManager.default.removeItem(atPath: base + ".done")
    try "".write(toFile: base + ".req.tmp", atomically: false, encoding: .utf8)
    guard rename(base + ".req.tmp", base + ".req") == 0 else { throw Failure(description: "cannot request a screendump in \(dir) (run inside Tools/vm/run-in-vm.sh with LAMINA_VM_GPU=1)") }
    let deadline = Date().addingTimeInterval(30)
    while !FileManager.default.fileExists(atPath: base + ".done") {
        guard Date() < deadline else { throw Failure(description: "no screendump after 30 s") }
        usleep(5000)
    }
    let status = (try? String(contentsOfFile: base + ".done", encoding: .utf8)) ?? ""
    guard status.hasPrefix("ok") else { throw Failure(description: "screendump failed: \(status)") }
    let data = try Data(contentsOf: URL(fileURLWithPath: base + ".ppm"))
    // P6\n<w> <h>\n255\n then RGB.
    var fields: [String] = [], i = 0
    while fields.count < 4 {
        var tok = ""
        while i < data.count, data[i] == 0x20 || data[i] == 0x0a { i += 1 }
        while i < data.count, data[i] != 0x20, data[i] != 0x0a { tok.append(Character(UnicodeScalar(data[i]))); i += 1 }
        fields.append(tok)
    }
    i += 1
    guard fields[0] == "P6", let w = Int(fields[1]), let h = Int(fields[2]), data.count - i >= w * h * 3 else {
        throw Failure(description: "not a P6 PPM: \(fields)")
    }
    var rgba = [UInt8](repeating: 255, count: w * h * 4)
    data.withUnsafeBytes { raw in
        let p = raw.bindMemory(to: UInt8.self).baseAddress! + i
        for k in 0..<(w * h) { rgba[k * 4] = p[k * 3]; rgba[k * 4 + 1] = p[k * 3 + 1]; rgba[k * 4 + 2] = p[k * 3 + 2] }
    }
    return RGBAImage(width: w, height: h, bytes: rgba)
}

// MARK: The scene

/// A software video producer: a pool of NV12 frames; a frame handed to Lamina is written
/// again only after Lamina released it.
final class VideoProducer: @unchecked Sendable {
    private let lock = NSLock()
    private var free: [Int] = []
    private(set) var pool: [(carrier: GBMBuffer, frame: ExternalBuffer)] = []
    let size: PixelSize

    init(device: GPUDevice, size: PixelSize, count: Int) throws {
        self.size = size
        for i in 0..<count {
            let made = try device.makeYUVFrame(pixelSize: size, format: .nv12, colorSpace: .bt709, range: .limited,
                                               releaseHandler: { [weak self] b in self?.released(b) }) { _, _ in (0, 0, 0) }
            pool.append((made.buffer, made.frame))
            free.append(i)
        }
    }

    private func released(_ buffer: ExternalBuffer) {
        lock.lock(); defer { lock.unlock() }
        if let i = pool.firstIndex(where: { $0.frame === buffer }) { free.append(i) }
    }

    /// The next frame: colour bars that scroll with `n`, written into a free buffer.
    func produce(_ n: Int) throws -> ExternalBuffer? {
        lock.lock()
        guard !free.isEmpty else { lock.unlock(); return nil }
        let i = free.removeFirst()
        lock.unlock()
        let (w, h) = (size.width, size.height)
        let bars: [(Double, Double, Double)] = [(0.75, 0.75, 0.75), (0.75, 0.75, 0), (0, 0.75, 0.75), (0, 0.75, 0), (0.75, 0, 0.75), (0.75, 0, 0), (0, 0, 0.75)]
        try pool[i].carrier.withMappedBytes(write: true) { base, rowBytes in
            let p = base.assumingMemoryBound(to: UInt8.self)
            for y in stride(from: 0, to: h, by: 2) {
                for x in stride(from: 0, to: w, by: 2) {
                    let c = bars[((x + n * 4) * bars.count / w) % bars.count]
                    let e = YUVColorSpace.bt709.encode(red: c.0, green: c.1, blue: c.2, range: .limited)
                    p[y * rowBytes + x] = e.y; p[y * rowBytes + x + 1] = e.y
                    p[(y + 1) * rowBytes + x] = e.y; p[(y + 1) * rowBytes + x + 1] = e.y
                    p[(h + y / 2) * rowBytes + x] = e.u; p[(h + y / 2) * rowBytes + x + 1] = e.v
                }
            }
        }
        return pool[i].frame
    }
}

@MainActor
func run() throws -> Int32 {
    let display = try openDisplay(devicePath)
    let device = try GPUDevice(backend: .only(.gbm), drmDevice: display.path)
    let size = display.size
    print("lamina-kms: \(display.path), connector \(display.connector), CRTC \(display.crtc), mode \(size.width)×\(size.height)@\(display.mode.vrefresh) Hz; \(device.capabilities.glRenderer)")
    let swapchain = try GBMSwapchain(device: device, pixelSize: size, bufferCount: bufferCount, format: .xrgb8888, usage: [.scanout])
    let fbs = try swapchain.buffers.map { try framebuffer(for: $0, on: display) }

    // The window: a backdrop, a video layer, a moving card, a spinning square, a progress bar.
    let window = Window(target: swapchain, background: Color(red: 0.12, green: 0.14, blue: 0.2))
    let W = Double(size.width), H = Double(size.height)
    let video = Layer()
    video.frame = Rect(x: W * 0.1, y: H * 0.12, width: W * 0.4, height: W * 0.4 * 9 / 16)
    video.contentsGravity = .resize
    let card = Layer()
    card.frame = Rect(x: 0, y: H * 0.72, width: W * 0.12, height: H * 0.12)
    card.backgroundColor = Color(red: 1, green: 0.55, blue: 0.1)
    card.cornerRadius = 12
    let spinner = Layer()
    spinner.bounds = Rect(x: 0, y: 0, width: H * 0.2, height: H * 0.2)
    spinner.position = Point(x: W * 0.75, y: H * 0.35)
    spinner.backgroundColor = Color(red: 0.3, green: 0.8, blue: 0.5)
    let progress = Layer()
    progress.frame = Rect(x: 0, y: H - 12, width: 0, height: 12)
    progress.backgroundColor = .white
    for l in [video, card, spinner, progress] { window.layer.addSublayer(l) }
    let producer = try VideoProducer(device: device, size: PixelSize(width: 320, height: 180), count: 3)

    func update(_ n: Int) throws {
        Transaction.withoutActions {
            card.position = Point(x: W * 0.06 + (W * 0.88) * Double(n % 120) / 119, y: H * 0.78)
            spinner.transform = Transform3D(rotationAngle: Double(n) * .pi / 30, x: 0, y: 0, z: 1)
            progress.frame = Rect(x: 0, y: H - 12, width: W * Double(n + 1) / Double(frames), height: 12)
        }
        if let frame = try producer.produce(n) { Transaction.withoutActions { video.contents = .external(frame) } }
    }

    // A second compositor renders each checked frame whole, independently, for comparison
    // (into a buffer of the same format: llvmpipe rounds XRGB8888 and RGBA8 differently).
    let referenceTarget = checkShots ? try GBMTarget(device: device, pixelSize: size, format: .xrgb8888) : nil
    let reference = Compositor(device: device)
    var mismatched = 0
    var onScreen: GBMBuffer?
    let uploadedBefore = device.uploadedBytes
    var cpu0 = timespec(), wall0 = Date()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0)
    for n in 0..<frames {
        if n == 1 {   // the first frame (shader compilation, the whole screen) is not timed
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0)
            wall0 = Date()
        }
        try update(n)
        try window.compositeNow()
        guard let frame = swapchain.presented, frame.serial == n else { throw Failure(description: "frame \(n) presented nothing") }
        // No sync files on this driver (EGL_ANDROID_native_fence_sync): wait on the CPU
        // for the frame's fence before the display reads the buffer.
        frame.fence?.wait()
        if n == 0 {
            var connector = display.connector
            var mode = display.mode
            guard drmModeSetCrtc(display.fd, display.crtc, fbs[frame.index], 0, 0, &connector, 1, &mode) == 0 else {
                throw Failure(description: "drmModeSetCrtc: \(String(cString: strerror(errno))) (is another program the DRM master?)")
            }
        } else if n == dropFlip {
            swapchain.releaseBuffer(frame.buffer)   // never shown: the display stays a frame behind
        } else {
            guard drmModePageFlip(display.fd, display.crtc, fbs[frame.index], LAMINA_DRM_MODE_PAGE_FLIP_EVENT, nil) == 0 else {
                throw Failure(description: "drmModePageFlip: \(String(cString: strerror(errno)))")
            }
            guard waitForFlip(display) else { throw Failure(description: "no page-flip event for frame \(n) within 10 s") }
        }
        // The buffer shown before is free again.
        if n != dropFlip {
            if let old = onScreen { swapchain.releaseBuffer(old) }
            onScreen = frame.buffer
        }
        if shots.contains(n) {
            let shown = checkShots ? try screendump("\(n)") : nil
            if let shown, let referenceTarget {
                reference.forgetLastFrame()
                try reference.render(window.layer, to: referenceTarget, background: Color(red: 0.12, green: 0.14, blue: 0.2))
                var expected = try referenceTarget.readPixels()
                expected = RGBAImage(width: expected.width, height: expected.height,
                                     bytes: expected.bytes.enumerated().map { $0.offset % 4 == 3 ? 255 : $0.element })
                // Within 1/255: llvmpipe rounds XRGB8888 clears differently on its fast and
                // scissored paths (30 or 31 for 0.12), so a buffer's kept pixels may differ
                // by 1 from a fresh render. Any misplaced or missing pixel differs by far more.
                let d = shown.difference(from: expected, tolerance: 1)
                // And what must be where, worked out from the scene alone.
                func near(_ p: RGBAPixel, _ r: Double, _ g: Double, _ b: Double) -> Bool {
                    p.maxChannelDifference(RGBAPixel(r: UInt8((r * 255).rounded()), g: UInt8((g * 255).rounded()), b: UInt8((b * 255).rounded()), a: 255)) <= 1
                }
                let cardCentre = card.position, spin = spinner.position
                let landmarks = [
                    ("backdrop", near(shown[4, 4], 0.12, 0.14, 0.2)),
                    ("card", near(shown[Int(cardCentre.x), Int(cardCentre.y)], 1, 0.55, 0.1)),
                    ("spinner", near(shown[Int(spin.x), Int(spin.y)], 0.3, 0.8, 0.5)),
                    ("progress", near(shown[2, size.height - 6], 1, 1, 1)),
                ]
                let wrongLandmarks = landmarks.filter { !$0.1 }.map(\.0)
                let ok = shown.width == size.width && shown.height == size.height && d.differing == 0 && wrongLandmarks.isEmpty
                print("frame \(n): qemu screendump \(shown.width)×\(shown.height) vs a full render: \(d.differing) pixels differ by more than 1/255; landmarks \(wrongLandmarks.isEmpty ? "all right" : "wrong: \(wrongLandmarks)") — \(ok ? "match" : "MISMATCH")")
                if !ok { mismatched += 1 }
                if let outDir {
                    try shown.writePNG(to: "\(outDir)/kms-frame-\(n).png")
                    if !ok { try expected.writePNG(to: "\(outDir)/kms-frame-\(n)-expected.png") }
                }
            }
        }
    }
    var cpu1 = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1)
    let wall = Date().timeIntervalSince(wall0)
    let cpu = Double(cpu1.tv_sec - cpu0.tv_sec) + Double(cpu1.tv_nsec - cpu0.tv_nsec) / 1e9
    let timed = max(1, frames - 1)
    print(String(format: "frames %d at %d×%d: %.2f fps, CPU %.1f ms per frame (wall %.1f ms), %d page flips with events",
                 frames, size.width, size.height, Double(timed) / wall, cpu / Double(timed) * 1000, wall / Double(timed) * 1000, flipsCompleted))
    print("bytes copied by the CPU per frame: uploads \((device.uploadedBytes - uploadedBefore) / frames) (video frames are imported dma-bufs, converted on the GPU: \(device.yuvConversions) conversions, \(device.externalBufferImports) imports); export: 0 (the display scans out the swapchain's buffers)")
    reference.release()
    referenceTarget?.release()
    window.target = try OffscreenTarget(device: device, pixelSize: PixelSize(width: 1, height: 1))
    for fb in fbs { drmModeRmFB(display.fd, fb) }
    swapchain.release()
    close(display.fd)
    if checkShots && mismatched > 0 { print("lamina-kms: \(mismatched) screendump(s) differ"); return 1 }
    return 0
}

do {
    exit(try MainActor.assumeIsolated { try run() })
} catch {
    FileHandle.standardError.write("lamina-kms: \(error)\n".data(using: .utf8)!)
    exit(1)
}

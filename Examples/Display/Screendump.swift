import Foundation
import Glibc
import LaminaCore
import LaminaGeometry
import LaminaGPU

// Screendumps: what the VM's virtual monitor shows, captured by qemu (Tools/vm/shotd.py on
// the host, run by Tools/vm/run-in-vm.sh with LAMINA_VM_GPU=1), compared with a full render
// of the same frame.

/// Asks the host for a screendump of the virtual monitor; returns its pixels.
func screendump(_ name: String) throws -> RGBAImage {
    let dir = "/run/lamina-vm"
    let base = "\(dir)/shot-\(name)"
    try? FileManager.default.removeItem(atPath: base + ".done")
    try "".write(toFile: base + ".req.tmp", atomically: false, encoding: .utf8)
    guard rename(base + ".req.tmp", base + ".req") == 0 else {
        throw Failure(description: "cannot request a screendump in \(dir) (run inside Tools/vm/run-in-vm.sh with LAMINA_VM_GPU=1)")
    }
    let deadline = Date().addingTimeInterval(30)
    while !FileManager.default.fileExists(atPath: base + ".done") {
        guard Date() < deadline else { throw Failure(description: "no screendump after 30 s") }
        usleep(5000)
    }
    let status = (try? String(contentsOfFile: base + ".done", encoding: .utf8)) ?? ""
    guard status.hasPrefix("ok") else { throw Failure(description: "screendump failed: \(status)") }
    return try readPPM(base + ".ppm")
}

/// A binary PPM (P6, 8-bit) as opaque RGBA.
func readPPM(_ path: String) throws -> RGBAImage {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    var fields: [String] = [], i = 0
    while fields.count < 4 {
        var tok = ""
        while i < data.count, data[i] == 0x20 || data[i] == 0x0a { i += 1 }
        while i < data.count, data[i] != 0x20, data[i] != 0x0a { tok.append(Character(UnicodeScalar(data[i]))); i += 1 }
        fields.append(tok)
    }
    i += 1
    guard fields[0] == "P6", let w = Int(fields[1]), let h = Int(fields[2]), fields[3] == "255", data.count - i >= w * h * 3 else {
        throw Failure(description: "\(path) is not an 8-bit P6 PPM: \(fields)")
    }
    var rgba = [UInt8](repeating: 255, count: w * h * 4)
    data.withUnsafeBytes { raw in
        let p = raw.bindMemory(to: UInt8.self).baseAddress! + i
        for k in 0..<(w * h) { rgba[k * 4] = p[k * 3]; rgba[k * 4 + 1] = p[k * 3 + 1]; rgba[k * 4 + 2] = p[k * 3 + 2] }
    }
    return RGBAImage(width: w, height: h, bytes: rgba)
}

/// Compares screendumps with full renders of the scene, made by a second compositor into a
/// buffer of the swapchain's format (llvmpipe rounds XRGB8888 and RGBA8 differently).
@MainActor
final class ShotChecker {
    let scene: DemoScene
    let reference: LayerRenderer
    let target: GBMTarget
    let outDir: String?
    private(set) var mismatches = 0

    init(scene: DemoScene, device: GPUDevice, size: PixelSize, outDir: String?) throws {
        self.scene = scene; self.outDir = outDir
        reference = LayerRenderer(device: device)
        target = try GBMTarget(device: device, pixelSize: size, format: .xrgb8888)
    }

    /// Captures the monitor and compares it with frame `n` rendered whole; `attempts`
    /// captures at most, 0.3 s apart (a compositor may show the frame a refresh later).
    @discardableResult
    func check(frame n: Int, attempts: Int = 1) throws -> Bool {
        reference.forgetLastFrame()
        try reference.render(scene.window.layer, to: target, background: DemoScene.backdrop)
        var expected = try target.readPixels()
        expected = RGBAImage(width: expected.width, height: expected.height,
                             bytes: expected.bytes.enumerated().map { $0.offset % 4 == 3 ? 255 : $0.element })
        var verdict = ""
        for attempt in 1...attempts {
            let shown = try screendump("\(n)-\(attempt)")
            // Within 1/255: llvmpipe rounds XRGB8888 clears differently on its fast and
            // scissored paths (30 or 31 for 0.12), so a buffer's kept pixels may differ by 1
            // from a fresh render. A misplaced or missing pixel differs by far more.
            let sameSize = shown.width == expected.width && shown.height == expected.height
            let d = sameSize ? shown.difference(from: expected, tolerance: 1) : nil
            let wrong = scene.landmarks.filter { name, p, c in
                let x = Int(p.x), y = Int(p.y)
                guard x >= 0, y >= 0, x < shown.width, y < shown.height else { return true }
                let e = c.premultiplied
                return shown[x, y].maxChannelDifference(RGBAPixel(r: UInt8((e.r * 255).rounded()), g: UInt8((e.g * 255).rounded()),
                                                                  b: UInt8((e.b * 255).rounded()), a: 255)) > 1
            }.map(\.0)
            let ok = sameSize && d?.differing == 0 && wrong.isEmpty
            verdict = "frame \(n): qemu screendump \(shown.width)×\(shown.height) vs a full render \(expected.width)×\(expected.height): "
                + "\(d.map { "\($0.differing) pixels differ by more than 1/255" } ?? "sizes differ"); "
                + "landmarks \(wrong.isEmpty ? "all right" : "wrong: \(wrong)")"
            if let outDir { try shown.writePNG(to: "\(outDir)/frame-\(n).png") }
            if ok { print(verdict + " — match"); return true }
            if attempt < attempts { usleep(300_000) }
        }
        print(verdict + " — MISMATCH")
        if let outDir { try expected.writePNG(to: "\(outDir)/frame-\(n)-expected.png") }
        mismatches += 1
        return false
    }

    func release() { reference.release(); target.release() }
}

// lamina-display: a Lamina window on a real display, without a toolkit.
//
//   lamina-display kms      — a DRM/KMS program in the spirit of kmscube: opens the first
//                             card with a connected connector, sets its preferred mode and
//                             page-flips a GBMSwapchain of scan-out buffers (XRGB8888),
//                             paced by the flip events (KMS.swift).
//   lamina-display wayland  — a Wayland client: a fullscreen xdg_toplevel whose buffers are
//                             the swapchain's, shared with the compositor through
//                             zwp_linux_dmabuf_v1 and handed back by wl_buffer.release
//                             (Wayland.swift).
//
// Both show the same window (Scene.swift): a backdrop, an NV12 "video" layer fed by a small
// software producer as external buffers (zero-copy: each imported once, handed back to the
// producer when no longer read), a moving card, a spinning square and a progress bar; and
// print frames per second, CPU per frame and the bytes the CPU copied per frame.
//
// With --check-shots (inside Tools/vm/run-in-vm.sh with LAMINA_VM_GPU=1), the frames listed
// in --shots are checked against what the VM's monitor shows (qemu's screendump):
// exit status 1 if one differs from a full render of that frame (Screendump.swift).
//
//   lamina-display kms|wayland [--frames N] [--shots 10,30] [--check-shots]
//                  [--device /dev/dri/cardN] [--out DIR] [--buffers 2-4] [--drop-flip N]
import Foundation
import Glibc
import LaminaGeometry
import LaminaGPU

struct Failure: Error, CustomStringConvertible { let description: String }

struct Options {
    var mode = ""
    var frames = 60, shots: [Int] = [], checkShots = false, device: String?, outDir: String?, buffers = 3
    /// A frame not presented (to show that --check-shots catches a display that is behind).
    var dropFlip: Int?
}

/// Frames per second, CPU per frame and bytes uploaded, from `start()` on.
struct FrameMeter {
    let device: GPUDevice
    var cpu0 = timespec(), wall0 = Date(), uploaded0 = 0
    init(device: GPUDevice) { self.device = device; start() }
    mutating func start() {
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0)
        wall0 = Date()
        uploaded0 = device.uploadedBytes
    }
    func report(frames: Int, size: PixelSize, presentations: String) {
        var cpu1 = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1)
        let wall = Date().timeIntervalSince(wall0)
        let cpu = Double(cpu1.tv_sec - cpu0.tv_sec) + Double(cpu1.tv_nsec - cpu0.tv_nsec) / 1e9
        let timed = max(1, frames - 1)
        print(String(format: "frames %d at %d×%d: %.2f fps, CPU %.1f ms per frame (wall %.1f ms), %@",
                     frames, size.width, size.height, Double(timed) / wall, cpu / Double(timed) * 1000, wall / Double(timed) * 1000, presentations))
        print("bytes copied by the CPU per frame: uploads \((device.uploadedBytes - uploaded0) / timed); video frames imported as dma-bufs "
              + "(\(device.externalBufferImports) imports, \(device.yuvConversions) GPU conversions); export 0 (the buffers themselves are shown)")
    }
}

var o = Options()
var args = CommandLine.arguments.dropFirst()
o.mode = args.popFirst() ?? ""
while let a = args.popFirst() {
    switch a {
    case "--frames": o.frames = Int(args.popFirst() ?? "") ?? o.frames
    case "--shots": o.shots = (args.popFirst() ?? "").split(separator: ",").compactMap { Int($0) }
    case "--check-shots": o.checkShots = true
    case "--device": o.device = args.popFirst()
    case "--out": o.outDir = args.popFirst()
    case "--buffers": o.buffers = Int(args.popFirst() ?? "") ?? o.buffers
    case "--drop-flip": o.dropFlip = Int(args.popFirst() ?? "")
    default: o.mode = "?"
    }
}
let options = o
do {
    let status: Int32 = try MainActor.assumeIsolated {
        switch options.mode {
        case "kms": return try runKMS(options)
        case "wayland": return try runWayland(options)
        default:
            FileHandle.standardError.write("usage: lamina-display kms|wayland [--frames N] [--shots 10,30] [--check-shots] [--device /dev/dri/cardN] [--out DIR] [--buffers 2-4] [--drop-flip N]\n".data(using: .utf8)!)
            return 2
        }
    }
    exit(status)
} catch {
    FileHandle.standardError.write("lamina-display: \(error)\n".data(using: .utf8)!)
    exit(1)
}

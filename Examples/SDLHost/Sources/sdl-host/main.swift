// sdl-host: an SDL2 program with its own OpenGL ES 3 scene that embeds a Lamina view
// hierarchy as a HUD in the same framebuffer (docs/embedding.md).
//
//   sdl-host [--mode every-frame|retained|none] [--frames N] [--size WxH] [--angle A] [--bench]
//
// SDL opens an X11 window with an EGL / OpenGL ES 3 context (SDL_HINT_VIDEO_X11_FORCE_EGL),
// the host draws its scene every frame, and Lamina, adopted into the host's context,
// composites the HUD over it: in `every-frame` mode straight into a sub-rectangle of the
// window's framebuffer each frame; in `retained` mode into its own texture, only when the
// HUD changed, which the host draws each frame with one quad; `none` runs the host alone
// (the baseline of Tools/bench-embedding.sh). Input comes through SDL's event queue.
// Standard input takes commands (one per line, read through Lamina's run loop):
// `snapshot PATH` (the next frame's pixels, read back from framebuffer 0, as PNG),
// `snapshot-on-input PATH` (the same, of the frame that handles the next click, key, text
// or wheel event), `stats`, `quit`. `--angle` stops the triangle at that angle until a
// click outside the HUD. Reports go to standard output, one line each. `--bench` drops the
// frame pacing and, at the end, times an empty adopted-context round trip.

import CSDL2
import Foundation
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import LaminaUI

enum Mode: String { case everyFrame = "every-frame", retained, none }

struct Options {
    var mode = Mode.everyFrame
    var frames: Int?
    var width: Int32 = 640, height: Int32 = 400
    var bench = false
    var angle: Float?

    init(_ arguments: [String]) throws {
        var i = 1
        func value() throws -> String {
            i += 1
            guard i < arguments.count else { throw HostError("\(arguments[i - 1]) needs a value") }
            return arguments[i]
        }
        while i < arguments.count {
            switch arguments[i] {
            case "--mode":
                let v = try value()
                guard let m = Mode(rawValue: v) else { throw HostError("--mode: every-frame, retained or none, not \(v)") }
                mode = m
            case "--frames": frames = Int(try value())
            case "--bench": bench = true
            case "--angle":
                guard let a = Float(try value()) else { throw HostError("--angle takes radians") }
                angle = a
            case "--size":
                let parts = try value().split(separator: "x").compactMap { Int32($0) }
                guard parts.count == 2 else { throw HostError("--size WxH") }
                width = parts[0]; height = parts[1]
            default: throw HostError("unknown argument \(arguments[i])")
            }
            i += 1
        }
    }
}

/// Where the HUD sits in the window (pixels = points here: scale 1).
let hudOrigin = Point(x: 24, y: 24)

@MainActor
func run() throws {
    let options = try Options(CommandLine.arguments)

    // SDL: a window with an EGL OpenGL ES 3 context (stencil for Lamina's clipping).
    SDL_SetHint(SDL_HINT_VIDEO_X11_FORCE_EGL, "1")
    guard SDL_Init(SDL_INIT_VIDEO) == 0 else { throw HostError("SDL_Init: \(String(cString: SDL_GetError()))") }
    defer { SDL_Quit() }
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, Int32(SDL_GL_CONTEXT_PROFILE_ES.rawValue))
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3)
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 0)
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1)
    SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 24)
    SDL_GL_SetAttribute(SDL_GL_STENCIL_SIZE, 8)
    let undefined = Int32(bitPattern: 0x1FFF_0000)   // SDL_WINDOWPOS_UNDEFINED
    guard let sdlWindow = SDL_CreateWindow("Lamina SDL host", undefined, undefined, options.width, options.height,
                                           SDL_WINDOW_OPENGL.rawValue) else {
        throw HostError("SDL_CreateWindow: \(String(cString: SDL_GetError()))")
    }
    defer { SDL_DestroyWindow(sdlWindow) }
    guard let glContext = SDL_GL_CreateContext(sdlWindow) else {
        throw HostError("SDL_GL_CreateContext: \(String(cString: SDL_GetError()))")
    }
    defer { SDL_GL_DeleteContext(glContext) }
    SDL_GL_SetSwapInterval(0)
    var w: Int32 = 0, h: Int32 = 0
    SDL_GL_GetDrawableSize(sdlWindow, &w, &h)
    let scene = try HostScene(width: w, height: h)
    if let angle = options.angle { scene.angle = angle; scene.paused = true }

    // Lamina: adopt the host's context; the window's framebuffer 0 is a target.
    let hud = options.mode == .none ? nil : try LaminaHUD(mode: options.mode, drawable: PixelSize(width: Int(w), height: Int(h)))
    defer { hud?.close() }

    // Commands on standard input, through Lamina's run loop (one descriptor for everything).
    let loop = MainLoop.main
    var snapshotPath: String?
    var snapshotOnInput: String?
    var running = true
    var pending = ""
    var stats = FrameStats()
    _ = fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK)
    let commands: (Int32, Int16) -> Void = { fd, _ in
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = read(fd, &buffer, buffer.count)
        if n == 0 { running = false; return }        // stdin closed: the driver is gone
        guard n > 0 else { return }
        pending += String(decoding: buffer.prefix(n), as: UTF8.self)
        while let newline = pending.firstIndex(of: "\n") {
            let line = String(pending[..<newline]).trimmingCharacters(in: .whitespaces)
            pending = String(pending[pending.index(after: newline)...])
            let words = line.split(separator: " ", maxSplits: 1).map(String.init)
            switch words.first {
            case "snapshot": snapshotPath = words.count > 1 ? words[1] : "snapshot.png"
            case "snapshot-on-input": snapshotOnInput = words.count > 1 ? words[1] : "snapshot.png"
            case "stats": report(stats.summary(mode: options.mode, hud: hud))
            case "quit": running = false
            default: report("unknown command: \(line)")
            }
        }
    }
    do {
        try loop.addSource(fd: 0, handler: commands)
    } catch {
        report("no commands: \(error)")   // standard input is a file or /dev/null
    }

    report("ready mode=\(options.mode.rawValue) size=\(w)x\(h) hud=\(Int(hudOrigin.x)),\(Int(hudOrigin.y)),\(Int(HUD.size.width))x\(Int(HUD.size.height))")
    var frameNumber = 0
    var event = SDL_Event()
    while running {
        var handledInput = false
        while SDL_PollEvent(&event) != 0 {
            if event.type == SDL_QUIT.rawValue { running = false }
            if hud?.input.handle(event, scene: scene, frame: frameNumber) == true { handledInput = true }
        }
        let frameStart = MainLoop.now()
        if !scene.paused { scene.angle += 0.02 }
        scene.draw()

        // Lamina's part of the frame: one run-loop turn (stdin, timers, Dispatch main
        // queue, the commit: layout, draws, and in every-frame mode the composite into
        // the window), plus, in retained mode, one quad of the retained texture.
        let calls = hud?.device.drawCalls ?? 0, saves = hud?.device.hostStateSaves ?? 0
        let wall = MainLoop.now(), cpu = threadCPUTime()
        try loop.runFrame()
        try hud?.present()
        let laminaWall = MainLoop.now() - wall, laminaCPU = threadCPUTime() - cpu
        let intact = scene.stateIsIntact()
        if !intact { report("host state changed after Lamina's frame \(frameNumber)") }

        if handledInput, let path = snapshotOnInput {
            snapshotOnInput = nil
            snapshotPath = path
        }
        if let path = snapshotPath {
            snapshotPath = nil
            try readFramebuffer(PixelSize(width: Int(w), height: Int(h))).writePNG(to: path)
            report("snapshot \(path) frame=\(frameNumber) angle=\(scene.angle) taps=\(hud?.hud.taps ?? 0) meterDraws=\(hud?.hud.meter.draws ?? 0)")
        }
        SDL_GL_SwapWindow(sdlWindow)
        stats.record(FrameStats.Frame(laminaWall: laminaWall, laminaCPU: laminaCPU, frameWall: MainLoop.now() - frameStart,
                                      drawCalls: (hud?.device.drawCalls ?? 0) - calls,
                                      stateSaves: (hud?.device.hostStateSaves ?? 0) - saves,
                                      reusedRenderList: hud?.window.lastFrame.reusedRenderList ?? false, intact: intact))
        frameNumber += 1
        if let limit = options.frames, frameNumber >= limit { running = false }
        if !options.bench { SDL_Delay(8) }
    }
    if options.bench, let hud {
        report("adopted-context round trip (capture + restore of the host's state, no GL work): \(String(format: "%.2f", hud.roundTrip() * 1e6)) us median")
    }
    report(stats.summary(mode: options.mode, hud: hud))
}

/// Lamina in the host: the adopted device, the HUD's window on its target, the input.
@MainActor
final class LaminaHUD {
    let device: GPUDevice
    let frame: ExternalFramebufferTarget
    let window: Window
    let hud: HUD
    let input: InputMapper
    let mode: Mode

    init(mode: Mode, drawable: PixelSize) throws {
        self.mode = mode
        device = try GPUDevice(adopting: .current)
        frame = try ExternalFramebufferTarget(device: device, framebuffer: 0, pixelSize: drawable)
        let region = PixelRect(x: Int(hudOrigin.x), y: Int(hudOrigin.y), width: Int(HUD.size.width), height: Int(HUD.size.height))
        switch mode {
        case .retained:
            // Lamina's own texture, composited only when the HUD changes; presented every frame.
            window = Window(target: try OffscreenTarget(device: device, pixelSize: region.size), background: .clear)
        default:
            // A sub-rectangle of the window's framebuffer, composited over the host's frame every frame.
            window = Window(target: try ExternalFramebufferTarget(device: device, framebuffer: 0, pixelSize: drawable, region: region),
                            background: nil)
            window.host.compositesEveryFrame = true
        }
        hud = HUD(in: window)
        input = InputMapper(window: window, origin: hudOrigin, size: HUD.size)
    }

    /// Retained mode: the retained texture, one quad, into the window's framebuffer.
    func present() throws {
        guard mode == .retained else { return }
        try window.host.present(into: frame, in: Rect(origin: hudOrigin, size: HUD.size))
    }

    /// The median time of an empty `withContext` on the adopted context: entering (the
    /// host's state captured, its pending error set aside) and leaving (all restored).
    func roundTrip() -> Double {
        var times: [Double] = []
        for _ in 0..<2000 {
            let t = MainLoop.now()
            try? device.withContext {}
            times.append(MainLoop.now() - t)
        }
        return times.sorted()[times.count / 2]
    }

    func close() {
        window.host.detach()
        device.close()
    }
}

/// CPU time of the calling thread (what Lamina's calls cost the host's thread, without
/// the rasteriser's worker threads and without waiting).
func threadCPUTime() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// The window's pixels as the host reads them (framebuffer 0, bottom row first in GL),
/// top row first; with the host's own pack state set and put back.
func readFramebuffer(_ size: PixelSize) -> RGBAImage {
    var alignment: GLint = 0
    glGetIntegerv(GLenum(GL_PACK_ALIGNMENT), &alignment)
    glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 4)
    var bytes = [UInt8](repeating: 0, count: size.width * size.height * 4)
    glReadPixels(0, 0, GLsizei(size.width), GLsizei(size.height), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), &bytes)
    glPixelStorei(GLenum(GL_PACK_ALIGNMENT), alignment)
    var image = RGBAImage(width: size.width, height: size.height)
    let row = size.width * 4
    image.bytes.withUnsafeMutableBytes { out in
        bytes.withUnsafeBytes { src in
            for y in 0..<size.height {
                out.baseAddress!.advanced(by: y * row).copyMemory(from: src.baseAddress!.advanced(by: (size.height - 1 - y) * row), byteCount: row)
            }
        }
    }
    return image
}

/// Per-frame figures, for `stats`.
struct FrameStats {
    struct Frame {
        var laminaWall: Double, laminaCPU: Double, frameWall: Double
        var drawCalls: Int, stateSaves: Int
        var reusedRenderList: Bool, intact: Bool
    }
    var frames: [Frame] = []

    mutating func record(_ f: Frame) { frames.append(f) }

    @MainActor
    func summary(mode: Mode, hud: LaminaHUD?) -> String {
        // The steady state: the last half of the frames (the first ones draw and upload).
        let steady = frames.suffix(max(1, frames.count / 2))
        func median(_ v: [Double]) -> Double { v.isEmpty ? 0 : v.sorted()[v.count / 2] }
        func us(_ v: Double) -> String { String(format: "%.1f", v * 1e6) }
        let calls = steady.map(\.drawCalls).sorted()
        let changed = frames.filter { !$0.intact }.count
        return "stats mode=\(mode.rawValue) frames=\(frames.count)"
            + " frame_us=\(us(median(steady.map(\.frameWall))))"
            + " lamina_wall_us=\(us(median(steady.map(\.laminaWall))))"
            + " lamina_cpu_us=\(us(median(steady.map(\.laminaCPU))))"
            + " lamina_draw_calls=\(calls.isEmpty ? 0 : calls[calls.count / 2])"
            + " state_saves_per_frame=\(steady.map(\.stateSaves).max() ?? 0)"
            + " reused_render_lists=\(frames.filter(\.reusedRenderList).count)"
            + " host_state=\(changed == 0 ? "intact" : "changed in \(changed) frames")"
            + " live_gl_objects=\(hud?.device.liveObjectCounts.total ?? 0)"
    }
}

do {
    try MainActor.assumeIsolated { try run() }
} catch {
    FileHandle.standardError.write(Data("sdl-host: \(error)\n".utf8))
    exit(1)
}

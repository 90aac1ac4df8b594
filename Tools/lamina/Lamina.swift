import ArgumentParser
import Foundation
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import LaminaScene

@main
struct Lamina: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lamina",
        abstract: "Lamina: a GPU layer compositor. Device info, test renders, scenes, reftests, the demo and benchmarks.",
        version: LaminaVersion.string,
        subcommands: [Info.self, Render.self, RefTest.self, ShaderTest.self, Demo.self, SelfTest.self, Bench.self, Soak.self]
    )
}

/// Options every GPU command takes.
struct DeviceOptions: ParsableArguments {
    @Option(help: "Backend: auto, gbm, device or surfaceless (default: $LAMINA_BACKEND, else auto).")
    var backend: String?

    @Option(name: .customLong("drm-device"), help: "DRM node for the gbm backend, e.g. /dev/dri/card0 (default: $LAMINA_DRM_DEVICE, else every node).")
    var drmDevice: String?

    func open() throws -> GPUDevice {
        try GPUDevice(backend: try backend.map(BackendSelection.init(parsing:)), drmDevice: drmDevice)
    }
}

/// A size given as WIDTHxHEIGHT in points.
struct SizeArgument: ExpressibleByArgument {
    var size: Size
    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Double(parts[0]), let h = Double(parts[1]), w > 0, h > 0, w.isFinite, h.isFinite else { return nil }
        size = Size(width: w, height: h)
    }
}

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the backend chosen, EGL and GL versions and capabilities.")
    @OptionGroup var device: DeviceOptions
    @Flag(help: "Also list every EGL and GL extension, and every dma-buf format with its modifiers.") var extensions = false

    func run() throws {
        let d = try device.open()
        defer { d.close() }
        let c = d.capabilities
        func yes(_ b: Bool) -> String { b ? "yes" : "no" }
        print("backend:            \(d.backend) (\(d.backendDetail))")
        print("EGL:                \(c.eglVendor) \(c.eglVersion)")
        print("GL renderer:        \(c.glRenderer) (\(c.glVendor))")
        print("GL version:         \(c.glVersion)")
        print("GLSL version:       \(c.glslVersion)")
        print("max texture size:   \(c.maxTextureSize)")
        print("max target size:    \(c.maxRenderTargetSize) (renderbuffer \(c.maxRenderbufferSize), viewport \(c.maxViewportSize.width)×\(c.maxViewportSize.height))")
        print("target storage:     \(d.targetStorage) (BGRA8 textures: \(yes(c.bgraStorage)))")
        print("dma-buf import:     \(yes(c.dmaBufImport)) (modifiers: \(yes(c.dmaBufImportModifiers)))")
        print("dma-buf export:     \(yes(c.dmaBufExport))")
        print("fences:             \(yes(c.fenceSync)) (sync files: \(yes(c.nativeFenceSync)), GPU waits: \(yes(c.serverWaitSync)))")
        print("timer queries:      \(yes(c.timerQueries))")
        print("KHR_debug:          \(yes(c.khrDebug))")
        print("EGL image textures: \(yes(c.eglImageTextures))")
        print("shaders embedded:   \(Shaders.names.joined(separator: ", "))")
        let formats = d.dmaBufFormats()
        if !formats.isEmpty {
            let rendered = formats.filter(\.gbmRendering).map(\.format.description)
            print("dma-buf formats:    \(formats.count) imported\(rendered.isEmpty ? "" : "; GBM renders \(rendered.joined(separator: " "))")")
            if extensions { for f in formats { print("  \(f)") } }
        }
        if extensions {
            print("EGL client extensions: \(c.eglClientExtensions.sorted().joined(separator: " "))")
            print("EGL display extensions: \(c.eglExtensions.sorted().joined(separator: " "))")
            print("GL extensions: \(c.glExtensions.sorted().joined(separator: " "))")
        }
    }
}

struct SelfTest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "selftest",
        abstract: "Render the test pattern with the shader pipeline and write it as a PNG.")
    @OptionGroup var device: DeviceOptions
    @Option(name: .shortAndLong, help: "Output PNG path.") var output: String = "selftest.png"
    @Option(help: "Size in points, WIDTHxHEIGHT.") var size: SizeArgument = SizeArgument(argument: "480x320")!
    @Option(help: "Pixels per point.") var scale: Double = 1
    @Flag(help: "Render into a GBM buffer (gbm backend) and read it back through its dma-buf mapping.") var gbm = false

    func run() throws {
        let d = try device.open()
        defer { d.close() }
        let image: RGBAImage
        let drawCalls: Int
        let start = Date()
        if gbm {
            let target = try GBMTarget(device: d, size: size.size, scale: scale)
            defer { target.release() }
            drawCalls = try TestPattern.draw(on: target)
            image = try target.readMappedPixels()
        } else {
            let target = try OffscreenTarget(device: d, size: size.size, scale: scale)
            defer { target.release() }
            drawCalls = try TestPattern.draw(on: target)
            image = try target.readPixels()
        }
        let elapsed = Date().timeIntervalSince(start)
        try image.writePNG(to: output)
        print("wrote \(output): \(image.width)×\(image.height) px, \(drawCalls) draw calls, backend \(d.backend) (\(d.backendDetail)), \(d.capabilities.glRenderer), \(String(format: "%.1f", elapsed * 1000)) ms")
    }
}

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Render a scene file (docs/scene-format.md) offscreen to a PNG.")
    @OptionGroup var device: DeviceOptions
    @Argument(help: "The scene file (JSON).") var scene: String
    @Option(name: .shortAndLong, help: "Output PNG path.") var output: String
    @Option(help: "Size in points, WIDTHxHEIGHT (default: the scene's).") var size: SizeArgument?
    @Option(help: "Pixels per point (default: the scene's).") var scale: Double?
    @Flag(help: "Print the frame's statistics.") var stats = false
    @Option(help: "Render the frame at this many seconds after the scene starts (its animations' time 0; default 0).")
    var time: Double?
    @Option(name: .customLong("time-budget"),
            help: "Stop with an error (exit status 4) when loading, rendering and writing take longer than this many seconds; 0: no limit.")
    var timeBudget: Double = 60

    func validate() throws {
        guard timeBudget.isFinite, timeBudget >= 0 else { throw ValidationError("--time-budget must be a number of seconds ≥ 0 (got \(timeBudget))") }
        if let time, !(time.isFinite && time >= 0) {
            throw ValidationError("--time must be a finite number of seconds ≥ 0 (got \(time))")
        }
        if let scale, !(scale.isFinite && scale > 0 && scale <= SceneLimits.maximumScale) {
            throw ValidationError("--scale must be above 0 and at most \(Int(SceneLimits.maximumScale)) (got \(scale))")
        }
        if let size, size.size.width > SceneLimits.maximumSize || size.size.height > SceneLimits.maximumSize {
            throw ValidationError("--size must be at most \(Int(SceneLimits.maximumSize)) pt a side (got \(size.size.width)x\(size.size.height))")
        }
    }

    /// Ends the process when the budget runs out: a scene's work cannot be interrupted
    /// part-way (it may be inside Cairo or Pango), so a watchdog thread reports and exits.
    static func startWatchdog(seconds: Double, scene: String) {
        guard seconds > 0 else { return }
        let message = "Error: \(scene): rendering did not finish within the time budget of \(seconds) s (--time-budget): the scene asks for too much work; simplify it or raise the budget\n"
        let thread = Thread {
            Thread.sleep(forTimeInterval: seconds)
            FileHandle.standardError.write(Data(message.utf8))
            _exit(4)
        }
        thread.start()
    }

    func run() throws {
        Render.startWatchdog(seconds: timeBudget, scene: scene)
        try MainActor.assumeIsolated {
            // Deterministic time: the clock is fixed at 0 while the scene is read (its time
            // 0), and at --time (default 0) for the frame.
            MediaClock.set(0)
            defer { MediaClock.set(nil) }
            let s = try Scene.load(contentsOf: scene)
            let d = try device.open()
            defer { d.close() }
            let (image, frame) = try s.render(device: d, size: size?.size, scale: scale, time: time ?? 0)
            // Written beside and renamed: a budget that runs out mid-write leaves no partial PNG.
            let partial = output + ".partial-\(getpid())"
            do {
                try image.writePNG(to: partial)
                guard rename(partial, output) == 0 else {
                    throw GraphicsError.imageUnwritable(path: output, reason: String(cString: strerror(errno)))
                }
            } catch GraphicsError.imageUnwritable(_, let reason) {
                unlink(partial)
                throw GraphicsError.imageUnwritable(path: output, reason: reason)
            }
            print("wrote \(output): \(image.width)×\(image.height) px (backend \(d.backend))")
            if stats { print("frame: \(frame)") }
        }
    }
}

struct RefTest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reftest",
        abstract: "Run a reftest manifest: render both sides of each line and compare pixels.",
        discussion: "Manifest lines: [fuzzy(maxDiff,count)] [time(seconds)] == test.json ref.json|ref.png, or != a.json b.json. Failures print one line each and write actual/expected/diff PNGs.")
    @OptionGroup var device: DeviceOptions
    @Argument(help: "The manifest file.") var manifest: String
    @Option(name: .shortAndLong, help: "Folder for actual/expected/diff images of failures.") var output: String = "out/reftest"
    @Flag(help: "Print passing tests too.") var verbose = false

    func run() throws {
        let failed = try MainActor.assumeIsolated { () throws -> Int in
            let m = try ReftestManifest(contentsOf: manifest)
            let d = try device.open()
            defer { d.close() }
            let results = ReftestRunner(device: d, outputDirectory: output).run(m)
            var failed = 0
            for r in results where verbose || !r.passed {
                print(r)
                if !r.images.isEmpty { print("    images: \(r.images.joined(separator: " "))") }
                if !r.passed { failed += 1 }
            }
            print("reftest: \(results.count - failed) passed, \(failed) failed")
            return failed
        }
        if failed > 0 { throw ExitCode.failure }
    }
}

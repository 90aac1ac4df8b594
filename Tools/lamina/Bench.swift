import ArgumentParser
import CGLES
import Foundation
import Glibc
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaGraphics

/// `lamina bench`: Lamina's frame cost against a raw-GL ceiling, in the same process and run.
/// See docs/benchmarks.md.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Time built-in scenes through Lamina's public API against a minimal raw-GL ceiling (one draw call per frame) drawing the same pixels.",
        discussion: """
            Scenes: S1 (1000 spinning textured layers), S2 (S1 frozen), S3 (S2 + a 256×256 layer redrawn every frame), \
            S4 (200 nine-slice layers resized every frame), S5 (200 layers turning in perspective), S6 (10⁵ layers, one \
            moves; run with its 10³ baseline S6-1k), S6S (10⁵ layers, one removed and one added per frame; with S6S-1k). \
            Damage, against D1 (S2 + one 32×32 layer recoloured per frame): D2 (two in opposite corners), D3 (one removed \
            and one added per frame), D4 (one inserted under its siblings by zPosition per frame), D5 (a layer's masksToBounds \
            toggled per frame). \
            Frames of Lamina and the ceiling alternate; each ends with glFinish. \
            Effects, each against a baseline scene in the same run: E1 (100 layers with analytic shadows, moving), E2 (100 \
            layers with layer-alpha shadows, moving), E3 (a full-target backdrop blur), E4 (tiles per second scrolling a \
            100 000² pt tiled layer, against one thread), E5 (a 512² GL layer redrawn every frame, against the same GL \
            into a plain framebuffer), E6 (a ripple shader effect over a 512² group, against the plain group), E7 (100 progress rings whose strokeEnd \
            changes every frame, against the rings turned), E8 (100 text layers whose string changes every frame, against \
            the same labels drawn with the 2D context). \
            Prints medians of wall, process-CPU and main-thread-CPU time per frame, the ratios and the issue's goals, \
            and checks each scene's last frame against the ceiling's pixels. See docs/benchmarks.md.
            """)
    @OptionGroup var device: DeviceOptions
    @Option(help: "Scenes, comma-separated (S1…S6, S6-1k, S6S, S6S-1k, D1…D5, S1A, E1…E8; S6 brings S6-1k, S6S S6S-1k, D2…D5 D1). Default: all but S1A.")
    var scene: String?
    @Option(help: "Measured frames per scene.") var frames = 100
    @Option(help: "Frames run before measuring (uploads, compilation, first allocations).") var warmup = 10
    @Option(help: "Target size in points, WIDTHxHEIGHT (scale 1).") var size: SizeArgument = SizeArgument(argument: "1920x1080")!
    @Flag(help: "Print JSON (every number) instead of the table.") var json = false
    @Flag(inversion: .prefixedNo, help: "Compare each scene's last frame with the ceiling's.") var checkPixels = true
    @Flag(help: "Exit non-zero when a pixel check fails.") var strict = false
    @Option(name: .shortAndLong, help: "Folder for lamina/ceiling/diff PNGs of pixel-check failures.") var output = "out/bench"
    /// Test hook: the ceiling scales every colour by 7/8, so every pixel check must fail.
    @Flag(help: .hidden) var perturb = false
    @Flag(help: "Composite on a render thread (LayerTreeHost(rendersOnThread: true)): the main thread only commits; each frame is a flush() that waits for the frame.")
    var renderThread = false

    func validate() throws {
        guard frames >= 1 else { throw ValidationError("--frames must be at least 1") }
        guard warmup >= 0 else { throw ValidationError("--warmup must not be negative") }
        _ = try sceneIDs()
    }

    static let allScenes = ["S1", "S2", "S3", "S4", "S5", "S6", "S6-1k", "S6S", "S6S-1k", "D1", "D2", "D3", "D4", "D5", "S1A"] + EffectsBench.scenes
    /// What runs without `--scene`.
    static let defaultScenes = ["S1", "S2", "S3", "S4", "S5", "S6", "S6-1k", "S6S", "S6S-1k", "D1", "D2", "D3", "D4", "D5"] + EffectsBench.scenes

    func sceneIDs() throws -> [String] {
        guard let scene else { return Bench.defaultScenes }
        var ids: [String] = []
        for raw in scene.split(separator: ",") {
            let id = raw.trimmingCharacters(in: .whitespaces).uppercased().replacingOccurrences(of: "-1K", with: "-1k")
            guard Bench.allScenes.contains(id) else {
                throw ValidationError("unknown scene '\(raw)'; scenes: \(Bench.allScenes.joined(separator: ", "))")
            }
            ids.append(id)
            if id == "S6" { ids.append("S6-1k") }
            if id == "S6S" { ids.append("S6S-1k") }
            if ["D2", "D3", "D4", "D5"].contains(id) { ids.append("D1") }
        }
        return Bench.allScenes.filter(ids.contains)
    }

    func run() throws {
        let ids = try sceneIDs()
        let (report, effects, failedChecks) = try MainActor.assumeIsolated { () throws -> (BenchReport?, [EffectsBench.Result], Int) in
            let d = try device.open()
            defer { d.close() }
            var report: BenchReport?
            let core = ids.filter { !EffectsBench.scenes.contains($0) }
            if !core.isEmpty {
                let runner = try BenchRunner(device: d, options: self)
                defer { runner.close() }
                report = try runner.run(core)
            }
            let effects = try EffectsBench(device: d, size: size.size, frames: frames, warmup: warmup)
                .run(ids.filter(EffectsBench.scenes.contains))
            return (report, effects, report?.scenes.filter { $0.pixelCheck.checked && !$0.pixelCheck.passed }.count ?? 0)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            struct EffectsOnly: Encodable { var effects: [EffectsBench.Result] }
            if var report {
                report.effects = effects
                print(String(decoding: try encoder.encode(report), as: UTF8.self))
            } else {
                print(String(decoding: try encoder.encode(EffectsOnly(effects: effects)), as: UTF8.self))
            }
        } else {
            if let report { print(report.table()) }
            if !effects.isEmpty { print(EffectsBench.table(effects)) }
        }
        if strict && failedChecks > 0 { throw ExitCode.failure }
    }
}

// MARK: Clocks

/// Wall (CLOCK_MONOTONIC), process CPU (CLOCK_PROCESS_CPUTIME_ID: every thread, llvmpipe's
/// rasterizer threads included) and this thread's CPU (CLOCK_THREAD_CPUTIME_ID), in seconds.
struct Clocks {
    var wall: Double, cpu: Double, thread: Double
    /// Page faults of the calling thread (minor and major): memory the frame touched for the
    /// first time since the system gave it (glibc hands freed heap back between frames).
    var faults: Double = 0

    static func now() -> Clocks {
        func read(_ clock: clockid_t) -> Double {
            var ts = timespec()
            clock_gettime(clock, &ts)
            return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
        }
        var usage = rusage()
        getrusage(__rusage_who_t(1), &usage)   // RUSAGE_THREAD (GNU: not imported)
        return Clocks(wall: read(CLOCK_MONOTONIC), cpu: read(CLOCK_PROCESS_CPUTIME_ID), thread: read(CLOCK_THREAD_CPUTIME_ID),
                      faults: Double(usage.ru_minflt + usage.ru_majflt))
    }

    static func - (a: Clocks, b: Clocks) -> Clocks {
        Clocks(wall: a.wall - b.wall, cpu: a.cpu - b.cpu, thread: a.thread - b.thread, faults: a.faults - b.faults)
    }
}

/// Median and 90th percentile of a series, in milliseconds.
struct Spread: Codable {
    var median: Double
    var p90: Double
    var min: Double
    var max: Double

    init(seconds values: [Double]) {
        // Milliseconds, to 0.1 µs.
        let s = values.map { ($0 * 1e7).rounded() / 1e4 }.sorted()
        precondition(!s.isEmpty)
        median = s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
        p90 = s[Swift.max(0, Int((0.9 * Double(s.count)).rounded(.up)) - 1)]
        min = s[0]
        max = s[s.count - 1]
    }
}

struct Timings: Codable {
    var wallMs: Spread
    var cpuMs: Spread
    var threadMs: Spread
    /// The main thread's page faults a frame (median).
    var threadPageFaults: Double

    init(_ frames: [Clocks]) {
        wallMs = Spread(seconds: frames.map { $0.wall })
        cpuMs = Spread(seconds: frames.map { $0.cpu })
        threadMs = Spread(seconds: frames.map { $0.thread })
        let faults = frames.map(\.faults).sorted()
        threadPageFaults = faults.isEmpty ? 0 : faults[faults.count / 2]
    }
}

// MARK: Report

struct BenchReport: Codable {
    struct Target: Codable { var width: Int; var height: Int; var scale: Double }
    var target: Target
    var frames: Int
    var warmup: Int
    var backend: String
    var backendDetail: String
    var renderer: String
    var ceilingPlatform: String
    /// What the bench's own end-of-frame wait costs Lamina with nothing to wait for: one
    /// `GPUDevice.withContext { glFinish() }` (two context switches and a finish) — included
    /// in every Lamina frame, so a frame that does nothing still costs this much.
    var finishOverhead: Timings
    var pixelTolerance: PixelTolerance
    var perturbed: Bool
    /// Lamina composited on a render thread (`--render-thread`).
    var renderThread: Bool
    var scenes: [SceneResult]
    /// The effect scenes (E1…E7), each against its own baseline.
    var effects: [EffectsBench.Result] = []

    func table() -> String {
        var out: [String] = []
        func f(_ v: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", v) }
        func pad(_ s: String, _ n: Int, left: Bool = false) -> String {
            let c = s.count
            return c >= n ? s : (left ? s + String(repeating: " ", count: n - c) : String(repeating: " ", count: n - c) + s)
        }
        out.append("lamina bench: \(target.width)×\(target.height) pt at scale \(f(target.scale, 0)), \(frames) frames per scene after \(warmup) warm-up")
        out.append("Lamina on \(backend) (\(backendDetail)); ceiling on EGL \(ceilingPlatform); \(renderer)")
        if renderThread {
            out.append("Lamina's frame: the scene's changes + Transaction.flush() (waits for the render thread's frame) + glFinish on the render thread; the ceiling's: CPU quads + 1 upload + 1 draw call + glFinish.")
        } else {
            out.append("Lamina's frame: the scene's changes + MainLoop.main.runFrame() + glFinish; the ceiling's: CPU quads + 1 upload + 1 draw call + glFinish.")
        }
        out.append("Per frame, medians in ms (wall / process CPU / main-thread CPU); ratio = Lamina ÷ ceiling.")
        out.append("")
        out.append([pad("scene", 6, left: true), pad("layers", 7), pad("Lamina wall", 12), pad("cpu", 8), pad("thread", 8),
                    pad("ceiling wall", 13), pad("cpu", 8), pad("thread", 8), pad("ratio wall", 11), pad("cpu", 8), "  goal"].joined())
        for s in scenes {
            out.append([pad(s.id, 6, left: true), pad("\(s.layers)", 7),
                        pad(f(s.lamina.wallMs.median), 12), pad(f(s.lamina.cpuMs.median), 8), pad(f(s.lamina.threadMs.median), 8),
                        pad(f(s.ceiling.wallMs.median), 13), pad(f(s.ceiling.cpuMs.median), 8), pad(f(s.ceiling.threadMs.median), 8),
                        pad(f(s.ratios.wall, 4), 11), pad(f(s.ratios.cpu, 4), 8),
                        "  " + (s.goal.map { "\($0.met ? "met" : "NOT met"): \($0.text)" } ?? "—")].joined())
        }
        out.append("")
        out.append("90th percentiles in ms (wall / process CPU / main-thread CPU):")
        out.append([pad("scene", 6, left: true), pad("Lamina wall", 19), pad("cpu", 8), pad("thread", 8),
                    pad("ceiling wall", 13), pad("cpu", 8), pad("thread", 8)].joined())
        for s in scenes {
            out.append([pad(s.id, 6, left: true), pad(f(s.lamina.wallMs.p90), 19), pad(f(s.lamina.cpuMs.p90), 8), pad(f(s.lamina.threadMs.p90), 8),
                        pad(f(s.ceiling.wallMs.p90), 13), pad(f(s.ceiling.cpuMs.p90), 8), pad(f(s.ceiling.threadMs.p90), 8)].joined())
        }
        out.append("")
        out.append("Lamina's FrameStatistics (median per measured frame) and the pixel check of the last frame:")
        out.append([pad("scene", 6, left: true), pad("composited", 11), pad("draw calls", 11), pad("visited", 9), pad("quads", 8),
                    pad("damaged px", 12), pad("uploaded B", 12), pad("ceiling quads", 14), "  pixels"].joined())
        for s in scenes {
            let l = s.laminaFrame
            out.append([pad(s.id, 6, left: true), pad("\(l.compositedFrames)/\(s.frames)", 11), pad("\(l.drawCalls)", 11),
                        pad("\(l.layersVisited)", 9), pad("\(l.quadsDrawn)", 8), pad("\(l.damagedPixels)", 12),
                        pad("\(l.uploadedBytes)", 12), pad("\(s.ceilingFrame.quads)", 14), "  " + s.pixelCheck.summary].joined())
        }
        out.append("")
        out.append(renderThread
            ? "Lamina's CPU per phase (medians in µs; changes, layout and display on the main thread, build and execute on the render thread, commit on both (describing, applying); GPU: timer queries, which on llvmpipe miss most of the rasterizing):"
            : "Lamina's main-thread CPU per phase (medians in µs; GPU: timer queries, which on llvmpipe miss most of the rasterizing):")
        out.append("(faults: the main thread's page faults a frame, medians, Lamina's and the ceiling's.)")
        out.append([pad("scene", 6, left: true), pad("changes", 9), pad("layout", 9), pad("display", 9), pad("commit", 9),
                    pad("build", 9), pad("execute", 9), pad("GPU", 9), pad("faults", 9), pad("ceiling", 9)].joined())
        for s in scenes {
            let p = s.laminaFrame.phasesMicroseconds
            out.append([pad(s.id, 6, left: true), pad(f(p.changes, 1), 9), pad(f(p.layout, 1), 9), pad(f(p.display, 1), 9),
                        pad(f(p.commit, 1), 9), pad(f(p.build, 1), 9), pad(f(p.execute, 1), 9), pad(p.gpu.map { f($0, 1) } ?? "—", 9),
                        pad(f(s.lamina.threadPageFaults, 0), 9), pad(f(s.ceiling.threadPageFaults, 0), 9)].joined())
        }
        out.append("")
        for s in scenes {
            for c in s.goal?.checks ?? [] {
                out.append("\(s.id): \(c.name) = \(f(c.value, 4)) (goal ≤ \(f(c.limit, 2))) \(c.met ? "met" : "NOT met")")
            }
            for c in s.goal?.references ?? [] {
                out.append("\(s.id), for reference: \(c.name) = \(f(c.value, 4))")
            }
        }
        out.append("Lamina's bench overhead (an empty finish scope): \(f(finishOverhead.wallMs.median * 1000, 1)) µs wall, \(f(finishOverhead.cpuMs.median * 1000, 1)) µs CPU per frame.")
        out.append("Pixel check: a pixel differs when a channel differs by more than \(pixelTolerance.channel); a scene passes with at most \(pixelTolerance.maxDifferingPixels) such pixels (\(f(pixelTolerance.maxDifferingFraction * 100, 3))% of the target).")
        if perturbed { out.append("(--perturb: the ceiling's colours were scaled by 7/8; every pixel check must fail.)") }
        return out.joined(separator: "\n")
    }
}

struct PixelTolerance: Codable {
    var channel: Int
    var maxDifferingFraction: Double
    var maxDifferingPixels: Int
}

struct SceneResult: Codable {
    var id: String
    var summary: String
    var layers: Int
    var frames: Int
    var lamina: Timings
    /// S6 and S6-1k: Lamina's frames measured again back to back (no ceiling frame between).
    var laminaAlone: Timings?
    var ceiling: Timings
    /// Lamina ÷ ceiling, of the medians.
    var ratios: Ratios
    /// S1: main-thread CPU per layer (µs), against the goal of 1.5.
    var threadMicrosecondsPerLayer: Double
    var laminaFrame: LaminaFrame
    var ceilingFrame: CeilingFrame
    var goal: Goal?
    var pixelCheck: PixelCheck

    struct Ratios: Codable { var wall: Double; var cpu: Double; var thread: Double }
}

/// Medians over the measured frames of Lamina's `FrameStatistics` (zeros when a frame did
/// not composite: nothing changed).
struct LaminaFrame: Codable {
    var compositedFrames: Int
    var drawCalls: Int
    var layersVisited: Int
    var quadsDrawn: Int
    var offscreenPasses: Int
    var damagedPixels: Int
    var uploadedBytes: Int
    var layersDrawn: Int
    /// Main-thread CPU per phase, medians in µs: the scene's changes (its layer property
    /// setters), then `FrameStatistics.timings` — layout, display, commit, build, execute —
    /// and the GPU time from timer queries (nil without them).
    var phasesMicroseconds: Phases

    struct Phases: Codable {
        var changes: Double, layout: Double, display: Double, commit: Double, build: Double, execute: Double
        var gpu: Double?
    }
}

struct CeilingFrame: Codable {
    var drawCalls: Int
    var quads: Int
    var vertexBytes: Int
    var textureBytesUploaded: Int
}

struct Goal: Codable {
    struct Check: Codable { var name: String; var value: Double; var limit: Double; var met: Bool }
    var text: String
    var checks: [Check]
    var met: Bool
    /// Figures reported beside the goal that do not decide it.
    var references: [Check]

    init(text: String, checks: [Check], references: [Check] = []) {
        self.text = text
        self.checks = checks
        self.references = references
        met = checks.allSatisfy { $0.met }
    }
}

struct PixelCheck: Codable {
    var checked: Bool
    var passed: Bool
    /// Pixels whose largest channel difference exceeds the tolerance.
    var differingPixels: Int
    /// Pixels that differ at all.
    var anyDifference: Int
    var maxDifference: Int
    var images: [String]

    var summary: String {
        guard checked else { return "not checked" }
        return "\(passed ? "ok" : "MISMATCH"): max diff \(maxDifference), \(differingPixels) px over tolerance, \(anyDifference) px differ"
            + (images.isEmpty ? "" : " → \(images.joined(separator: " "))")
    }
}

// MARK: Runner

@MainActor
final class BenchRunner {
    let device: GPUDevice
    let options: Bench
    let ceiling: Ceiling
    let size: Size
    let pixelSize: PixelSize
    /// What both sides clear to.
    static let background = Color(red: 0.08, green: 0.09, blue: 0.11)
    let tolerance: PixelTolerance

    init(device: GPUDevice, options: Bench) throws {
        self.device = device
        self.options = options
        size = options.size.size
        pixelSize = PixelSize(covering: size, scale: 1)
        ceiling = try Ceiling(pixelSize: pixelSize, devicePlatform: device.backend == .device, storage: device.targetStorage)
        ceiling.releaseCurrent()
        let fraction = 0.0005
        tolerance = PixelTolerance(channel: 2, maxDifferingFraction: fraction,
                                   maxDifferingPixels: Int((Double(pixelSize.width * pixelSize.height) * fraction).rounded(.down)))
    }

    func close() { ceiling.close() }

    private func progress(_ message: String) {
        guard !options.json else { return }
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    func makeScene(_ id: String) throws -> BenchScene {
        switch id {
        case "S1": return SpinningTilesScene(id: id, size: size, frozen: false, drawnLayer: false)
        case "S1A": return SpinningTilesScene(id: id, size: size, frozen: false, drawnLayer: false,
                                              animatedFrames: options.warmup + options.frames)
        case "S2": return SpinningTilesScene(id: id, size: size, frozen: true, drawnLayer: false)
        case "S3": return SpinningTilesScene(id: id, size: size, frozen: true, drawnLayer: true)
        case "S4": return try NineSliceScene(size: size)
        case "S5": return PerspectiveScene(size: size)
        case "S6": return ManyLayersScene(id: id, count: 100_000, size: size)
        case "S6-1k": return ManyLayersScene(id: id, count: 1000, size: size)
        case "S6S": return ChurnScene(id: id, count: 100_000, size: size)
        case "S6S-1k": return ChurnScene(id: id, count: 1000, size: size)
        case "D1": return DamageScene(id: id, kind: .recolour, size: size)
        case "D2": return DamageScene(id: id, kind: .recolourTwo, size: size)
        case "D3": return DamageScene(id: id, kind: .replace, size: size)
        case "D4": return DamageScene(id: id, kind: .insertBelow, size: size)
        case "D5": return DamageScene(id: id, kind: .clipToggle, size: size)
        default: throw BenchError("unknown scene \(id)")
        }
    }

    func run(_ ids: [String]) throws -> BenchReport {
        let overhead = try measureFinishOverhead()
        var results: [SceneResult] = []
        for id in ids {
            progress("\(id): building…")
            let scene = try makeScene(id)
            results.append(try measure(scene))
            let r = results[results.count - 1]
            progress(String(format: "%@: Lamina %.2f ms wall, ceiling %.2f ms wall; pixels: %@", id, r.lamina.wallMs.median, r.ceiling.wallMs.median, r.pixelCheck.summary))
        }
        BenchRunner.setDamageGoals(&results)
        // S6's goal: its frame CPU against the same frame among 10³ layers.
        if let i = results.firstIndex(where: { $0.id == "S6" }), let base = results.first(where: { $0.id == "S6-1k" }) {
            let a = results[i].laminaAlone ?? results[i].lamina, b = base.laminaAlone ?? base.lamina
            let cpu = a.cpuMs.median / b.cpuMs.median
            let thread = a.threadMs.median / b.threadMs.median
            let interleavedCPU = results[i].lamina.cpuMs.median / base.lamina.cpuMs.median
            let interleavedThread = results[i].lamina.threadMs.median / base.lamina.threadMs.median
            results[i].goal = Goal(text: "frame CPU with one moved layer among 10⁵ ≤ 2× among 10³", checks: [
                Goal.Check(name: "process CPU, 10⁵ ÷ 10³ layers (Lamina's frames back to back)", value: cpu, limit: 2, met: cpu <= 2),
                Goal.Check(name: "main-thread CPU, 10⁵ ÷ 10³ layers (Lamina's frames back to back)", value: thread, limit: 2, met: thread <= 2),
            ], references: [
                Goal.Check(name: "process CPU, 10⁵ ÷ 10³ layers (frames between the ceiling's)", value: interleavedCPU, limit: 2, met: interleavedCPU <= 2),
                Goal.Check(name: "main-thread CPU, 10⁵ ÷ 10³ layers (frames between the ceiling's)", value: interleavedThread, limit: 2, met: interleavedThread <= 2),
            ])
        }
        let c = device.capabilities
        return BenchReport(target: .init(width: pixelSize.width, height: pixelSize.height, scale: 1),
                           frames: options.frames, warmup: options.warmup,
                           backend: "\(device.backend)", backendDetail: device.backendDetail, renderer: c.glRenderer,
                           ceilingPlatform: ceiling.platform, finishOverhead: overhead, pixelTolerance: tolerance,
                           perturbed: options.perturb, renderThread: options.renderThread, scenes: results)
    }

    /// Lamina's end-of-frame wait with nothing to wait for.
    private func measureFinishOverhead() throws -> Timings {
        var samples: [Clocks] = []
        for _ in 0..<50 {
            let t0 = Clocks.now()
            try device.withContext { glFinish() }
            samples.append(Clocks.now() - t0)
        }
        return Timings(samples)
    }

    private final class StatsBox { var stats: FrameStatistics? }

    private func measure(_ scene: BenchScene) throws -> SceneResult {
        // Lamina: the scene's tree on a host, as an app has it.
        let root = Layer()
        root.bounds = Rect(origin: .zero, size: size)
        root.position = Point(x: size.width / 2, y: size.height / 2)
        try scene.build(root: root)
        let target = try OffscreenTarget(device: device, size: size, scale: 1)
        let threaded = options.renderThread
        let host = LayerTreeHost(rootLayer: root, target: target, background: BenchRunner.background, rendersOnThread: threaded)
        // Animated scenes: frame f shows media time base + f/60 (the animations begin at the
        // first commit, frame 0).
        let base = 1000.0
        if scene.isAnimated { MediaClock.set(base) }
        // Every frame is one the bench asks for (none drawn by the thread between them,
        // which would land in the ceiling's time).
        host.renderThread?.drawsAnimationFramesByItself = false
        defer { if scene.isAnimated { MediaClock.set(nil) } }
        /// Waits until the GPU finished the frame (on the render thread when there is one).
        func finish() throws {
            if let thread = host.renderThread {
                try thread.perform { try self.device.withContext { glFinish() } }
            } else {
                try device.withContext { glFinish() }
            }
        }
        /// One frame's commit: the end of a run-loop turn, or (render thread) a flush that
        /// waits for the thread's frame.
        func commitFrame() throws {
            if threaded { try Transaction.flush() } else { try MainLoop.main.runFrame() }
        }
        /// The frame's statistics (didComposite: a threaded host's too, after the wait).
        func statistics() -> FrameStatistics? { box.stats }
        let box = StatsBox()
        host.didComposite = { box.stats = $0 }
        defer {
            host.detach()
            target.release()
        }

        // The ceiling: the scene's textures.
        try ceiling.makeCurrent()
        try scene.prepare(ceiling)
        var quads = QuadWriter(pixelSize: pixelSize)
        if options.perturb { quads.colorScale = 7.0 / 8 }
        ceiling.releaseCurrent()

        var laminaTimes: [Clocks] = [], ceilingTimes: [Clocks] = []
        var frames: [FrameStatistics?] = []
        var changeTimes: [Double] = []
        let total = options.warmup + options.frames

        func laminaFrame(_ f: Int) throws {
            box.stats = nil
            let t0 = Clocks.now()
            // The scene sets its layers every frame itself: no implicit animations (what a
            // Core Animation program does for per-frame updates).
            Transaction.setDisableActions(true)
            if scene.isAnimated { MediaClock.set(base + Double(f) / benchFrameRate) }
            scene.update(frame: f)
            let changed = Clocks.now().thread - t0.thread
            try commitFrame()
            try finish()
            let t = Clocks.now() - t0
            if f >= options.warmup { laminaTimes.append(t); frames.append(statistics()); changeTimes.append(changed) }
        }
        func ceilingFrame(_ f: Int) throws {
            try ceiling.makeCurrent()
            defer { ceiling.releaseCurrent() }
            let t0 = Clocks.now()
            quads.reset(reserving: scene.ceilingQuads)
            scene.ceilingFrame(f, &quads, ceiling)
            ceiling.draw(quads, background: BenchRunner.background)
            ceiling.finish()
            let t = Clocks.now() - t0
            if f >= options.warmup { ceilingTimes.append(t) }
        }

        // Frames alternate (and which side goes first alternates too), so that load from
        // elsewhere on the machine and cache effects fall on both alike.
        for f in 0..<total {
            if f % 2 == 0 {
                try laminaFrame(f)
                try ceilingFrame(f)
            } else {
                try ceilingFrame(f)
                try laminaFrame(f)
            }
        }

        var check = PixelCheck(checked: false, passed: true, differingPixels: 0, anyDifference: 0, maxDifference: 0, images: [])
        if options.checkPixels {
            let actual = try host.renderThread.map { thread in try thread.perform { try target.readPixels() } } ?? target.readPixels()
            try ceiling.makeCurrent()
            let expected = try ceiling.readPixels()
            ceiling.releaseCurrent()
            check = try compare(actual, expected, id: scene.id)
        }

        // S6 against S6-1k compares Lamina with itself: measured again with Lamina's frames
        // back to back, since a 10⁵-quad ceiling frame in between leaves the caches colder
        // than a 10³-quad one does.
        var alone: Timings?
        if scene.id.hasPrefix("S6") || scene.id.hasPrefix("D") {
            var times: [Clocks] = []
            for f in total..<(total + options.frames) {
                let t0 = Clocks.now()
                scene.update(frame: f)
                try commitFrame()
                try finish()
                times.append(Clocks.now() - t0)
            }
            alone = Timings(times)
        }

        let lamina = Timings(laminaTimes), ceil = Timings(ceilingTimes)
        func median(_ values: [Int]) -> Int {
            let s = values.sorted()
            return s.isEmpty ? 0 : s[s.count / 2]
        }
        // A frame that did not composite (nothing changed) has no statistics: zeros.
        func med(_ value: (FrameStatistics) -> Int) -> Int {
            var values: [Int] = []
            for frame in frames {
                if let frame { values.append(value(frame)) } else { values.append(0) }
            }
            return median(values)
        }
        let laminaStats = LaminaFrame(
            compositedFrames: frames.filter { $0.map { !$0.skipped } ?? false }.count,
            drawCalls: med { $0.drawCalls },
            layersVisited: med { $0.layersVisited },
            quadsDrawn: med { $0.quadsDrawn },
            offscreenPasses: med { $0.offscreenPasses },
            damagedPixels: med { s in
                let rects = s.damageRects.isEmpty ? [s.damagedRect] : s.damageRects
                return Int(rects.reduce(0) { $0 + $1.width * $1.height }.rounded())
            },
            uploadedBytes: med { $0.textureBytesUploaded },
            layersDrawn: med { $0.layersDrawn },
            phasesMicroseconds: phases(frames, changes: changeTimes))
        func phases(_ frames: [FrameStatistics?], changes: [Double]) -> LaminaFrame.Phases {
            func m(_ v: [Double]) -> Double {
                let s = v.sorted()
                return s.isEmpty ? 0 : (s[s.count / 2] * 1e7).rounded() / 10
            }
            let t = frames.map { $0?.timings ?? FrameTimings() }
            let gpu = t.compactMap(\.gpu)
            return LaminaFrame.Phases(changes: m(changes), layout: m(t.map(\.layout)), display: m(t.map(\.display)),
                                      commit: m(t.map(\.commit)), build: m(t.map(\.build)), execute: m(t.map(\.execute)),
                                      gpu: gpu.isEmpty ? nil : m(gpu))
        }
        let ratios = SceneResult.Ratios(wall: lamina.wallMs.median / ceil.wallMs.median,
                                        cpu: lamina.cpuMs.median / ceil.cpuMs.median,
                                        thread: lamina.threadMs.median / ceil.threadMs.median)
        let perLayer = lamina.threadMs.median * 1000 / Double(scene.layerCount)
        return SceneResult(id: scene.id, summary: scene.summary, layers: scene.layerCount, frames: options.frames,
                           lamina: lamina, laminaAlone: alone, ceiling: ceil, ratios: ratios, threadMicrosecondsPerLayer: perLayer,
                           laminaFrame: laminaStats,
                           ceilingFrame: CeilingFrame(drawCalls: 1, quads: quads.quadCount,
                                                      vertexBytes: quads.quadCount * 4 * MemoryLayout<CeilingVertex>.stride,
                                                      textureBytesUploaded: scene.ceilingUploadBytes),
                           goal: BenchRunner.goal(for: scene.id, ratios: ratios, perLayer: perLayer),
                           pixelCheck: check)
    }

    /// The issue's goals (S6's is set once S6-1k is measured).
    static func goal(for id: String, ratios: SceneResult.Ratios, perLayer: Double) -> Goal? {
        func ratioChecks(_ limit: Double) -> [Goal.Check] {
            [Goal.Check(name: "wall ratio", value: ratios.wall, limit: limit, met: ratios.wall <= limit),
             Goal.Check(name: "process-CPU ratio", value: ratios.cpu, limit: limit, met: ratios.cpu <= limit)]
        }
        switch id {
        case "S1":
            return Goal(text: "≤ 1.10× wall and CPU; main thread ≤ 1.5 µs/layer",
                        checks: ratioChecks(1.10) + [Goal.Check(name: "main-thread CPU µs per layer", value: perLayer, limit: 1.5, met: perLayer <= 1.5)])
        case "S2": return Goal(text: "≤ 0.01× (skipped)", checks: ratioChecks(0.01))
        case "S3": return Goal(text: "≤ 0.15× (only the 256×256 region)", checks: ratioChecks(0.15))
        case "S4": return Goal(text: "≤ 1.0×", checks: ratioChecks(1.0))
        case "S5": return Goal(text: "≤ 1.05×", checks: ratioChecks(1.05))
        default: return nil
        }
    }

    /// Compares Lamina's last frame with the ceiling's; writes PNGs when they differ beyond
    /// the tolerance.
    private func compare(_ actual: RGBAImage, _ expected: RGBAImage, id: String) throws -> PixelCheck {
        let strict = actual.difference(from: expected, tolerance: tolerance.channel)
        let any = actual.difference(from: expected, tolerance: 0)
        var check = PixelCheck(checked: true, passed: strict.differing <= tolerance.maxDifferingPixels,
                               differingPixels: strict.differing, anyDifference: any.differing,
                               maxDifference: any.maxDifference, images: [])
        if !check.passed {
            try FileManager.default.createDirectory(atPath: options.output, withIntermediateDirectories: true)
            let base = (options.output as NSString).appendingPathComponent(id)
            var diff = RGBAImage(width: actual.width, height: actual.height)
            for y in 0..<actual.height {
                for x in 0..<actual.width {
                    let d = actual[x, y].maxChannelDifference(expected[x, y])
                    if d > tolerance.channel {
                        diff[x, y] = RGBAPixel(r: 255, g: 0, b: 0, a: 255)
                    } else {
                        let e = expected[x, y]
                        let g = UInt8(191 + (Int(e.r) + Int(e.g) + Int(e.b)) / 12)
                        diff[x, y] = RGBAPixel(r: g, g: g, b: g, a: 255)
                    }
                }
            }
            check.images = [base + "-lamina.png", base + "-ceiling.png", base + "-diff.png"]
            try actual.writePNG(to: check.images[0])
            try expected.writePNG(to: check.images[1])
            try diff.writePNG(to: check.images[2])
        }
        return check
    }
}

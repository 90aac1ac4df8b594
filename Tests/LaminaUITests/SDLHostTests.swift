import Foundation
import LaminaTestSupport
import LaminaGeometry
import LaminaGraphics
import Synchronization
import Testing

/// The real host: Examples/SDLHost, an SDL2 program with its own OpenGL ES 3 scene that
/// embeds a Lamina HUD, in an X11 window under Xvfb, driven with xdotool through SDL's
/// own event path. Tools/test.sh builds it before the suite runs.
private let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
private let hostBinary = repository.appendingPathComponent("Examples/SDLHost/.build/debug/sdl-host").path

/// Lines a child process writes, collected by a reader thread.
private final class LineReader: Sendable {
    private let lines = Mutex<[String]>([])
    private let partial = Mutex("")

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                partial.withLock { p in
                    p += String(decoding: data, as: UTF8.self)
                    while let nl = p.firstIndex(of: "\n") {
                        let line = String(p[..<nl])
                        p = String(p[p.index(after: nl)...])
                        lines.withLock { $0.append(line) }
                    }
                }
            }
        }
        thread.start()
    }

    var all: [String] { lines.withLock { $0 } }

    /// The first line after `index` that satisfies `predicate`, waiting up to `timeout` s.
    func wait(after index: Int = 0, timeout: Double = 30, _ what: String, _ predicate: (String) -> Bool) throws -> (line: String, index: Int) {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let current = all
            if index < current.count, let i = current[index...].firstIndex(where: predicate) { return (current[i], i + 1) }
            Thread.sleep(forTimeInterval: 0.01)
        }
        throw HostTestError("timed out after \(timeout) s waiting for \(what); output so far:\n\(all.joined(separator: "\n"))")
    }
}

private struct HostTestError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// Runs an X client (xdotool) on `display` to completion; its status and output.
@discardableResult
private func run(_ tool: String, _ arguments: [String], display: String) throws -> (status: Int32, output: String) {
    var env = ProcessInfo.processInfo.environment
    env["DISPLAY"] = display
    return try runProcess("/usr/bin/env", [tool] + arguments, environment: env)
}

/// An X server of its own (Xvfb picks a free display number and tells it on stdout).
private final class VirtualDisplay {
    let process = Process()
    let name: String

    init() throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["Xvfb", "-displayfd", "1", "-screen", "0", "800x600x24", "-nolisten", "tcp"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch {
            throw HostTestError("cannot start Xvfb (\(error)): install xvfb (Tools/setup.sh --vm does)")
        }
        let reader = LineReader(out.fileHandleForReading)
        let number = try reader.wait(timeout: 20, "Xvfb's display number") { Int($0) != nil }.line
        name = ":\(number)"
    }

    func stop() { stopProcess(process) }
}

/// Ends a child: SIGTERM, then SIGKILL after two seconds (Xvfb may not exit on SIGTERM).
private func stopProcess(_ process: Process) {
    guard process.isRunning else { return }
    process.terminate()
    let deadline = Date().addingTimeInterval(2)
    while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
}

/// The SDL host on a display, with its standard input for commands and its reports.
private final class SDLHost {
    let process = Process()
    let input = Pipe()
    let reports: LineReader
    let display: String
    var window = ""

    init(mode: String, display: String) throws {
        guard FileManager.default.isExecutableFile(atPath: hostBinary) else {
            throw HostTestError("\(hostBinary) is missing: build it with `swift build --package-path Examples/SDLHost` (Tools/test.sh does)")
        }
        self.display = display
        process.executableURL = URL(fileURLWithPath: hostBinary)
        process.arguments = ["--mode", mode]
        var env = ProcessInfo.processInfo.environment
        env["DISPLAY"] = display
        env.removeValue(forKey: "SDL_VIDEODRIVER")
        process.environment = env
        process.standardInput = input
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        reports = LineReader(out.fileHandleForReading)
        try process.run()
    }

    func send(_ command: String) { input.fileHandleForWriting.write(Data((command + "\n").utf8)) }

    /// xdotool, in the host's window.
    func xdotool(_ arguments: [String]) throws {
        let r = try run("xdotool", arguments, display: display)
        guard r.status == 0 else { throw HostTestError("xdotool \(arguments.joined(separator: " ")) failed: \(r.output)") }
    }

    func click(_ x: Int, _ y: Int) throws {
        try xdotool(["mousemove", "--window", window, "--sync", "\(x)", "\(y)", "click", "1"])
    }

    func snapshot(_ path: String, after index: inout Int) throws -> RGBAImage {
        send("snapshot \(path)")
        let r = try reports.wait(after: index, "snapshot \(path)") { $0.hasPrefix("snapshot \(path)") }
        index = r.index
        return try RGBAImage(contentsOfPNG: path)
    }

    func stop() { stopProcess(process) }
}

// What the host draws, worked out from its constants (Examples/SDLHost/HostScene.swift, HUD.swift).
private let height = 400.0
private func gradient(row y: Int) -> (Double, Double, Double) {
    let f = (Double(y) + 0.5) / height
    func mix(_ a: Double, _ b: Double) -> Double { (a + (b - a) * f) * 255 }
    return (mix(0.10, 0.50), mix(0.15, 0.20), mix(0.40, 0.30))
}
private func near(_ p: RGBAPixel, _ e: (Double, Double, Double), _ tolerance: Double = 3) -> Bool {
    abs(Double(p.r) - e.0) <= tolerance && abs(Double(p.g) - e.1) <= tolerance && abs(Double(p.b) - e.2) <= tolerance && p.a == 255
}
/// The HUD's translucent panel (0.04, 0.04, 0.08 at 0.75) over the gradient at row y.
private func panel(row y: Int) -> (Double, Double, Double) {
    let g = gradient(row: y)
    return (0.04 * 255 * 0.75 + g.0 * 0.25, 0.04 * 255 * 0.75 + g.1 * 0.25, 0.08 * 255 * 0.75 + g.2 * 0.25)
}
private func darkPixels(_ image: RGBAImage, in r: PixelRect) -> Int {
    var n = 0
    for y in r.y..<(r.y + r.height) { for x in r.x..<(r.x + r.width) {
        let p = image[x, y]
        if p.r < 90 && p.g < 90 && p.b < 100 { n += 1 }
    } }
    return n
}

@Suite("A real SDL2 host under Xvfb: Lamina's HUD over the host's own GL scene, real input", .serialized)
struct SDLHostTests {
    @Test("the SDL host shows its scene and Lamina's HUD, the button reacts to a click, typing reaches the text field, the wheel scrolls, hover highlights, and the host's GL state survives every frame",
          arguments: ["every-frame", "retained"])
    func sdlHost(mode: String) throws {
        let display = try VirtualDisplay()
        defer { display.stop() }
        let host = try SDLHost(mode: mode, display: display.name)
        defer { host.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lamina-sdl-\(mode)-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var index = try host.reports.wait(timeout: 60, "the host's ready line") { $0.hasPrefix("ready") }.index
        let search = try run("xdotool", ["search", "--sync", "--name", "^Lamina SDL host$"], display: display.name)
        host.window = try #require(search.output.split(separator: "\n").first.map(String.init), "the host's X window")

        // Frame 1: the host's scene with the HUD over it.
        let first = try host.snapshot("\(folder)/1.png", after: &index)
        #expect(first.width == 640 && first.height == 400)
        #expect(near(first[600, 20], gradient(row: 20)), "host gradient, top right: \(first[600, 20])")
        #expect(near(first[40, 380], gradient(row: 380)), "host gradient, bottom left: \(first[40, 380])")
        #expect(near(first[461, 200], (255, 153, 25.5)), "host triangle's centre: \(first[461, 200])")
        #expect(near(first[294, 114], panel(row: 114)), "HUD panel over the gradient: \(first[294, 114])")
        #expect(near(first[50, 88], (40, 110, 230), 2), "button, normal: \(first[50, 88])")
        #expect(!near(first[208, 88], (60, 220, 120), 10), "meter empty")
        #expect(near(first[124, 184], (230, 80, 80), 2), "first stripe: \(first[124, 184])")
        let field = PixelRect(x: 48, y: 124, width: 200, height: 24)
        #expect(darkPixels(first, in: field) == 0, "the field shows only its grey placeholder")
        #expect(near(first[10, 10], gradient(row: 10)), "outside the HUD's rounded corner: \(first[10, 10])")

        // A click on the button (SDL mouse events → touches): the handler runs, the meter redraws.
        try host.click(100, 88)
        index = try host.reports.wait(after: index, "tap count=1") { $0 == "tap count=1" }.index
        let hovered = try host.snapshot("\(folder)/2.png", after: &index)
        #expect(near(hovered[208, 88], (60, 220, 120), 2), "one bar in the meter: \(hovered[208, 88])")
        #expect(near(hovered[50, 88], (90, 150, 255), 2), "the pointer rests on the button: hover colour \(hovered[50, 88])")

        // Typing (SDL key and text events → presses and insertText on the first responder).
        try host.xdotool(["windowfocus", "--sync", host.window])
        try host.xdotool(["type", "--delay", "40", "hi"])
        index = try host.reports.wait(after: index, "text=hi") { $0 == "text=hi" }.index

        // The wheel over the stripes (SDL_MOUSEWHEEL → scrollWheel), then the pointer leaves.
        try host.xdotool(["mousemove", "--window", host.window, "--sync", "124", "184", "click", "5"])
        index = try host.reports.wait(after: index, "scroll offset=40") { $0 == "scroll offset=40" }.index
        try host.xdotool(["mousemove", "--window", host.window, "--sync", "500", "360"])
        // A click outside the HUD is the host's own.
        try host.click(600, 380)
        index = try host.reports.wait(after: index, "the host's own click") { $0.hasPrefix("host click") }.index

        let last = try host.snapshot("\(folder)/3.png", after: &index)
        #expect(darkPixels(last, in: field) > 20, "typed text in the field")
        #expect(near(last[124, 184], (230, 190, 60), 2), "scrolled to the second stripe: \(last[124, 184])")
        #expect(near(last[50, 88], (40, 110, 230), 2), "pointer gone: normal colour \(last[50, 88])")
        #expect(near(last[600, 20], gradient(row: 20)) && near(last[461, 200], (255, 153, 25.5)), "host scene still drawn")

        host.send("stats")
        let stats = try host.reports.wait(after: index, "stats") { $0.hasPrefix("stats") }.line
        #expect(stats.contains("host_state=intact"), "\(stats)")
        #expect(!host.reports.all.contains { $0.contains("host state changed") })
        if mode == "retained" {
            #expect(stats.contains("lamina_draw_calls=1 "), "retained mode draws one quad a frame: \(stats)")
        } else {
            #expect(!stats.contains("reused_render_lists=0 "), "every-frame mode re-draws the last render list: \(stats)")
        }
        host.send("quit")
        let deadline = Date().addingTimeInterval(20)
        while host.process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(!host.process.isRunning, "the host quits when asked")
        host.stop()
        #expect(host.process.terminationStatus == 0, "\(host.reports.all.suffix(5))")
        // Keep the last frame for the docs (docs/images/sdl-host.png is the every-frame one).
        let out = repository.appendingPathComponent("out").path
        try? FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try? last.writePNG(to: "\(out)/sdl-host-\(mode).png")
        try? FileManager.default.removeItem(atPath: folder)
    }
}

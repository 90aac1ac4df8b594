import Foundation
import LaminaTestSupport
import LaminaGeometry
import LaminaGraphics
import LaminaValues
import Testing

/// The real host: Examples/SDLHost, an SDL2 program with its own OpenGL ES 3 scene that
/// embeds a Lamina HUD, in an X11 window under Xvfb, driven with xdotool through SDL's
/// own event path. Tools/test.sh builds it before the suite runs.
private let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
private let hostBinary = repository.appendingPathComponent("Examples/SDLHost/.build/debug/sdl-host").path

/// Lines a child process writes, collected by a reader thread.
private final class LineReader: Sendable {
    private let lines = Locked<[String]>([])
    private let partial = Locked("")

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

    /// The first line after `index` that satisfies `predicate`, waiting up to `timeout` s
    /// — or until `alive` says the writer is gone.
    func wait(after index: Int = 0, timeout: Double = 30, _ what: String, alive: () -> Bool = { true },
              _ predicate: (String) -> Bool) throws -> (line: String, index: Int) {
        let deadline = Date().addingTimeInterval(timeout)
        var running = true
        while Date() < deadline {
            let current = all
            if index < current.count, let i = current[index...].firstIndex(where: predicate) { return (current[i], i + 1) }
            guard running else { break }
            running = alive()   // one more look at the lines after the writer ended
            Thread.sleep(forTimeInterval: 0.01)
        }
        throw HostTestError("\(running ? "timed out after \(timeout) s" : "the program ended") waiting for \(what); output so far:\n\(all.joined(separator: "\n"))")
    }
}

private struct HostTestError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// Runs an X client (xdotool) on `display` to completion, killed after 20 s; its status
/// and output.
@discardableResult
private func run(_ tool: String, _ arguments: [String], display: String) throws -> (status: Int32, output: String) {
    var env = ProcessInfo.processInfo.environment
    env["DISPLAY"] = display
    return try runProcess("/usr/bin/env", [tool] + arguments, environment: env, timeout: 20)
}

/// An X server of its own (Xvfb picks a free display number and tells it on stdout).
private final class VirtualDisplay {
    let process = Process()
    let name: String

    init() throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // -terminate: the server exits when its last client (the host) goes, even if this
        // test process dies first and cannot stop it.
        process.arguments = ["Xvfb", "-displayfd", "1", "-terminate", "-screen", "0", "800x600x24", "-nolisten", "tcp"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        do { try process.run() } catch {
            throw HostTestError("cannot start Xvfb (\(error)): install xvfb (Tools/setup.sh --tests does)")
        }
        let reader = LineReader(out.fileHandleForReading)
        let number = try reader.wait(timeout: 20, "Xvfb's display number") { Int($0) != nil }.line
        name = ":\(number)"
    }

    func stop() { stopProcess(process) }
}

/// Ends a child with SIGKILL: children of Foundation's Process inherit a signal mask that
/// blocks SIGTERM (the host is asked to quit through its standard input first).
private func stopProcess(_ process: Process) {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
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
        // The host links Lamina: a binary older than Lamina's or its own sources tests old code.
        let built = try FileManager.default.attributesOfItem(atPath: hostBinary)[.modificationDate] as? Date ?? .distantPast
        for folder in ["Sources", "Shaders", "Examples/SDLHost/Sources"] {
            let root = repository.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.contentModificationDateKey])
            while let file = files?.nextObject() as? URL {
                let modified = try file.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate ?? .distantPast
                if modified > built {
                    throw HostTestError("\(hostBinary) is older than \(file.path): rebuild it with `swift build --package-path Examples/SDLHost` (Tools/test.sh does)")
                }
            }
        }
        self.display = display
        process.executableURL = URL(fileURLWithPath: hostBinary)
        process.arguments = ["--mode", mode, "--angle", "0.3"]
        var env = ProcessInfo.processInfo.environment
        env["DISPLAY"] = display
        env["SDL_VIDEODRIVER"] = "x11"
        env.removeValue(forKey: "WAYLAND_DISPLAY")
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

    /// The next report after `index` satisfying `predicate` (index moves past it).
    @discardableResult
    func wait(_ what: String, after index: inout Int, timeout: Double = 30, _ predicate: (String) -> Bool) throws -> String {
        let r = try reports.wait(after: index, timeout: timeout, what, alive: { process.isRunning }, predicate)
        index = r.index
        return r.line
    }

    /// A frame of the host as it read it back: `command` is `snapshot` (the next frame) or
    /// `snapshot-on-input` (the frame that handles the next input, sent by `input`).
    func snapshot(_ path: String, after index: inout Int, command: String = "snapshot",
                  input: () throws -> Void = {}) throws -> (image: RGBAImage, frame: Int, angle: Double) {
        send("\(command) \(path)")
        try input()
        let line = try wait("snapshot \(path)", after: &index) { $0.hasPrefix("snapshot \(path) ") }
        return (try RGBAImage(contentsOfPNG: path), Int(field(line, "frame")) ?? -1, Double(field(line, "angle")) ?? .nan)
    }

    func stop() { stopProcess(process) }
}

/// The value of `name=` in a report line.
private func field(_ line: String, _ name: String) -> String {
    line.split(separator: " ").first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) } ?? ""
}

// What the host draws, worked out from its constants (Examples/SDLHost/HostScene.swift, HUD.swift).
private let height = 400.0
private let hudRect = PixelRect(x: 24, y: 24, width: 280, height: 196)

/// Whether the centre of pixel (x, y) is inside the host's triangle turned by `angle`:
/// true or false, or nil within a pixel of an edge.
private func inTriangle(_ x: Int, _ y: Int, angle: Double) -> Bool? {
    let c = (x: 640 * 0.72, y: 200.0), r = 70.0
    let corners = (0..<3).map { i -> (Double, Double) in
        let a = Double(i) * 2 * Double.pi / 3 - Double.pi / 2
        let o = (cos(a) * r, sin(a) * r)
        let p = (cos(angle) * o.0 - sin(angle) * o.1, sin(angle) * o.0 + cos(angle) * o.1)
        return (c.x + p.0, c.y - p.1)                                 // GL's y up, the picture's y down
    }
    let px = Double(x) + 0.5, py = Double(y) + 0.5
    var inside = true
    for i in 0..<3 {
        let a = corners[i], b = corners[(i + 1) % 3], third = corners[(i + 2) % 3]
        let length = ((b.0 - a.0) * (b.0 - a.0) + (b.1 - a.1) * (b.1 - a.1)).squareRoot()
        func side(_ p: (Double, Double)) -> Double { ((b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0)) / length }
        let d = side((px, py)) * (side(third) > 0 ? 1 : -1)          // > 0 towards the inside
        if abs(d) < 1 { return nil }
        if d < 0 { inside = false }
    }
    return inside
}

/// Pixels outside the HUD that are not the host's gradient or triangle.
private func hostSceneMismatches(_ image: RGBAImage, angle: Double) -> [String] {
    var out: [String] = []
    var count = 0
    for y in 0..<image.height { for x in 0..<image.width where !hudRect.contains(x: x, y: y) {
        guard let inside = inTriangle(x, y, angle: angle) else { continue }
        let expected = inside ? (255, 153, 25.5) : gradient(row: y)
        if !near(image[x, y], expected) {
            count += 1
            if out.count < 6 { out.append("(\(x),\(y)) \(image[x, y]) expected \(inside ? "triangle" : "gradient")") }
        }
    } }
    if count > 6 { out.append("… \(count) in all") }
    return out
}
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

// Serialized: each case starts the host (software GL) on its own Xvfb server and waits,
// with deadlines, for the frames its real input should produce; two cases at once would
// compete for the CPU those deadlines assume (CI machines have two cores).
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
        var index = 0
        try host.wait("the host's ready line", after: &index, timeout: 60) { $0.hasPrefix("ready") }
        let search = try run("xdotool", ["search", "--sync", "--name", "^Lamina SDL host$"], display: display.name)
        host.window = try #require(search.output.split(separator: "\n").first.map(String.init), "the host's X window")

        // The first frame: every pixel outside the HUD is the host's scene; the HUD is its reference.
        let first = try host.snapshot("\(folder)/1.png", after: &index)
        #expect(first.image.width == 640 && first.image.height == 400)
        let scene = hostSceneMismatches(first.image, angle: first.angle)
        #expect(scene.isEmpty, "host scene: \(scene)")
        let hud = first.image.cropped(to: hudRect)
        let referencePath = repository.appendingPathComponent("Examples/SDLHost/reference-hud.png").path
        if ProcessInfo.processInfo.environment["LAMINA_UPDATE_REFERENCES"] == "1" { try hud.writePNG(to: referencePath) }
        let reference = try RGBAImage(contentsOfPNG: referencePath)
        let d = hud.difference(from: reference, tolerance: 2)
        #expect(d.differing == 0, "HUD differs from Examples/SDLHost/reference-hud.png in \(d.differing) pixels (max \(d.maxDifference)); the frame is in \(folder)")
        for corner in [(hudRect.x + 1, hudRect.y + 1), (hudRect.x + hudRect.width - 2, hudRect.y + hudRect.height - 2)] {
            #expect(near(first.image[corner.0, corner.1], gradient(row: corner.1)), "outside the HUD's rounded corner \(corner)")
        }
        #expect(near(first.image[294, 114], panel(row: 114)), "HUD panel over the gradient: \(first.image[294, 114])")
        #expect(near(first.image[50, 88], (40, 110, 230), 2), "button, normal: \(first.image[50, 88])")
        #expect(!near(first.image[208, 88], (60, 220, 120), 10), "meter empty")
        let textField = PixelRect(x: 48, y: 124, width: 200, height: 24)
        #expect(darkPixels(first.image, in: textField) == 0, "the field shows only its grey placeholder")

        // A click on the button (SDL mouse events → touches): the frame that handles the
        // button's release already shows the redrawn meter, and the pointer's hover.
        var (beforeEnd, beforeTap) = (index, index)
        let tapped = try host.snapshot("\(folder)/2.png", after: &index, command: "snapshot-on-input") {
            try host.click(100, 88)
        }
        let ended = try host.wait("the touch's end", after: &beforeEnd) { $0.hasPrefix("touch ended") }
        try host.wait("tap count=1", after: &beforeTap) { $0 == "tap count=1" }
        #expect(Int(field(ended, "frame")) == tapped.frame, "snapshot of the frame that handled the click")
        #expect(near(tapped.image[208, 88], (60, 220, 120), 2), "one bar in the meter, in the same frame: \(tapped.image[208, 88])")
        #expect(near(tapped.image[50, 88], (90, 150, 255), 2), "the pointer rests on the button: hover colour \(tapped.image[50, 88])")

        // Typing (SDL key and text events → presses and insertText on the first responder),
        // Backspace (an editing key: deleteBackward), a capital with Shift.
        try host.xdotool(["windowfocus", "--sync", host.window])
        try host.xdotool(["type", "--delay", "40", "hi"])
        try host.wait("text=hi", after: &index) { $0 == "text=hi" }
        try host.xdotool(["key", "--delay", "40", "BackSpace"])
        try host.wait("text=h", after: &index) { $0 == "text=h" }
        try host.xdotool(["type", "--delay", "40", "I"])
        try host.wait("text=hI", after: &index) { $0 == "text=hI" }

        // The wheel over the stripes (SDL_MOUSEWHEEL → scrollWheel); the pointer leaves the
        // window (SDL_WINDOWEVENT_LEAVE → exits); a click outside the HUD is the host's own.
        try host.xdotool(["mousemove", "--window", host.window, "--sync", "124", "184", "click", "5"])
        try host.wait("scroll offset=40", after: &index) { $0 == "scroll offset=40" }
        try host.xdotool(["mousemove", "--window", host.window, "--sync", "660", "420"])   // past the 640×400 window
        try host.wait("the pointer leaving the window", after: &index) { $0 == "pointer left the window" }
        try host.click(600, 380)
        try host.wait("the host's own click", after: &index) { $0.hasPrefix("host click") }

        let last = try host.snapshot("\(folder)/3.png", after: &index)
        #expect(darkPixels(last.image, in: textField) > 20, "typed text in the field")
        #expect(near(last.image[124, 184], (230, 190, 60), 2), "scrolled to the second stripe: \(last.image[124, 184])")
        #expect(near(last.image[50, 88], (40, 110, 230), 2), "pointer gone: normal colour \(last.image[50, 88])")
        let sceneAfter = hostSceneMismatches(last.image, angle: last.angle)
        #expect(sceneAfter.isEmpty, "host scene, turning again: \(sceneAfter)")

        host.send("stats")
        let stats = try host.wait("stats", after: &index) { $0.hasPrefix("stats") }
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
        try? last.image.writePNG(to: "\(out)/sdl-host-\(mode).png")
        try? FileManager.default.removeItem(atPath: folder)
    }
}

extension RGBAImage {
    /// The pixels of `r`.
    fileprivate func cropped(to r: PixelRect) -> RGBAImage {
        var out = RGBAImage(width: r.width, height: r.height)
        for y in 0..<r.height { for x in 0..<r.width { out[x, y] = self[r.x + x, r.y + y] } }
        return out
    }
}

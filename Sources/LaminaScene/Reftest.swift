import FoundationEssentials
import Glibc
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaGraphics

/// A reftest manifest: lines of `[fuzzy(maxDiff,count)] [fuzzy-if(RENDERER,maxDiff,count)…]
/// [time(T)] == test.json ref.json|ref.png` or `[fuzzy(…)] [time(T)] != a.json b.json`; `#`
/// starts a comment. `fuzzy-if` replaces the fuzz where the GL renderer string contains
/// RENDERER (case-insensitive; the first that matches), as WebRender's `fuzzy-if` does for
/// its platforms: rasterizers may round a half level or a filter weight differently. Paths are relative to
/// the manifest. `include other.list` reads another manifest. `time(T)` renders the scenes
/// (both sides, when the reference is a scene) at T seconds after their start.
public struct ReftestManifest {
    public enum Relation: String, Sendable { case equal = "==", notEqual = "!=" }

    public struct Entry: Sendable {
        public var relation: Relation
        public var test: String
        public var reference: String
        /// Largest allowed channel difference, and how many pixels may differ by up to it.
        public var maxDifference: Int
        public var maxDifferingPixels: Int
        /// `fuzzy-if(RENDERER,maxDiff,count)`: the fuzz on renderers whose name contains RENDERER.
        public var fuzzByRenderer: [(renderer: String, maxDifference: Int, maxDifferingPixels: Int)] = []
        /// The time the scenes are rendered at, in seconds after their start (`time(T)`; 0
        /// without it).
        public var time: Double = 0
        /// "file:line", for messages.
        public var location: String

        /// The fuzz that applies on `renderer` (a GL renderer string).
        public func fuzz(on renderer: String) -> (maxDifference: Int, maxDifferingPixels: Int) {
            if let f = fuzzByRenderer.first(where: { renderer.lowercased().contains($0.renderer.lowercased()) }) {
                return (f.maxDifference, f.maxDifferingPixels)
            }
            return (maxDifference, maxDifferingPixels)
        }
    }

    public var entries: [Entry] = []

    public init(contentsOf path: String) throws {
        try self.init(contentsOf: path, including: [])
    }

    private init(contentsOf path: String, including: Set<String>) throws {
        let canonical = URL(fileURLWithPath: path).standardizedFileURL.path
        guard !including.contains(canonical) else {
            throw SceneError(file: path, path: "line 0", problem: "the manifest includes itself (through: \(including.sorted().joined(separator: ", ")))")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SceneError(file: path, path: "line 0", problem: "cannot read the manifest")
        }
        let base = URL(fileURLWithPath: path).deletingLastPathComponent()
        for (i, raw) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard !words.isEmpty else { continue }
            let location = "\(path):\(i + 1)"
            func fail(_ problem: String) -> SceneError { SceneError(file: path, path: "line \(i + 1)", problem: problem) }
            if words[0] == "include" {
                guard words.count == 2 else { throw fail("'include' takes one manifest path") }
                let included = words[1].hasPrefix("/") ? words[1] : base.appendingPathComponent(words[1]).path
                entries += try ReftestManifest(contentsOf: included, including: including.union([canonical])).entries
                continue
            }
            var maxDiff = 0, count = 0
            var time: Double?
            var fuzzy = false
            var byRenderer: [(renderer: String, maxDifference: Int, maxDifferingPixels: Int)] = []
            // Annotations, in any order, each at most once (fuzzy-if once per renderer).
            while let word = words.first, word.hasPrefix("fuzzy(") || word.hasPrefix("fuzzy-if(") || word.hasPrefix("time(") {
                if word.hasPrefix("fuzzy-if(") {
                    let parts = word.dropFirst(9).dropLast().split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmed }
                    guard word.hasSuffix(")"), parts.count == 3, !parts[0].isEmpty, let m = Int(parts[1]), let c = Int(parts[2]), m >= 0, c >= 0 else {
                        throw fail("'\(word)' is not fuzzy-if(renderer,maxDiff,count) with a renderer name and two non-negative integers")
                    }
                    guard !byRenderer.contains(where: { $0.renderer.lowercased() == parts[0].lowercased() }) else {
                        throw fail("'fuzzy-if(\(parts[0]),…)' is given twice")
                    }
                    byRenderer.append((parts[0], m, c))
                } else if word.hasPrefix("fuzzy(") {
                    guard !fuzzy else { throw fail("'fuzzy(…)' is given twice") }
                    let inside = word.dropFirst(6).dropLast()
                    let parts = inside.split(separator: ",").map { Int($0.trimmed) }
                    guard word.hasSuffix(")"), parts.count == 2, let m = parts[0], let c = parts[1], m >= 0, c >= 0 else {
                        throw fail("'\(word)' is not fuzzy(maxDiff,count) with two non-negative integers")
                    }
                    (maxDiff, count) = (m, c)
                    fuzzy = true
                } else {
                    guard time == nil else { throw fail("'time(…)' is given twice") }
                    let inside = String(word.dropFirst(5).dropLast())
                    guard word.hasSuffix(")"), !inside.isEmpty, inside.allSatisfy({ "0123456789.eE+-".contains($0) }),
                          let t = Double(inside), t.isFinite, t >= 0, t <= SceneLimits.maximumTime else {
                        throw fail("'\(word)' is not time(seconds) with a finite number of seconds ≥ 0 (at most \(SceneLimits.format(SceneLimits.maximumTime)))")
                    }
                    time = t
                }
                words.removeFirst()
            }
            guard words.count == 3, let relation = Relation(rawValue: words[0]) else {
                throw fail("expected '== test ref' or '!= a b' (optionally after fuzzy(maxDiff,count) and time(seconds)), found '\(line.trimmed)'")
            }
            func resolve(_ p: String) -> String { p.hasPrefix("/") ? p : base.appendingPathComponent(p).path }
            entries.append(Entry(relation: relation, test: resolve(words[1]), reference: resolve(words[2]),
                                 maxDifference: maxDiff, maxDifferingPixels: count, fuzzByRenderer: byRenderer, time: time ?? 0, location: location))
        }
    }
}

/// The last component of a path.
private func fileName(_ path: String) -> String { URL(fileURLWithPath: path).lastPathComponent }

/// The outcome of one reftest.
public struct ReftestResult: Sendable, CustomStringConvertible {
    public var entry: ReftestManifest.Entry
    public var passed: Bool
    /// Pixels that differ at all, and the largest channel difference.
    public var differingPixels: Int
    public var maxDifference: Int
    public var message: String
    /// actual/expected/diff PNGs written for a failure.
    public var images: [String]

    public var description: String {
        "\(passed ? "PASS" : "FAIL") \(entry.location) \(entry.relation.rawValue) \(fileName(entry.test)) \(fileName(entry.reference)): \(message)"
    }
}

/// Renders both sides of each manifest entry and compares decoded pixels.
@MainActor
public struct ReftestRunner {
    public let device: GPUDevice
    /// Where failures write `NAME-actual.png`, `NAME-expected.png`, `NAME-diff.png`.
    public var outputDirectory: String

    public init(device: GPUDevice, outputDirectory: String) {
        self.device = device
        self.outputDirectory = outputDirectory
    }

    public func run(_ manifest: ReftestManifest) -> [ReftestResult] {
        manifest.entries.map(run)
    }

    public func run(_ entry: ReftestManifest.Entry) -> ReftestResult {
        var result = ReftestResult(entry: entry, passed: false, differingPixels: 0, maxDifference: 0, message: "", images: [])
        do {
            let actual = try image(of: entry.test, at: entry.time)
            let expected = try image(of: entry.reference, at: entry.time)
            guard actual.width == expected.width, actual.height == expected.height else {
                result.message = "sizes differ: \(actual.width)×\(actual.height) px vs \(expected.width)×\(expected.height) px"
                result.images = try writeImages(entry, actual: actual, expected: expected)
                return result
            }
            let d = actual.difference(from: expected, tolerance: 0)
            result.differingPixels = d.differing
            result.maxDifference = d.maxDifference
            let allowed = entry.fuzz(on: device.capabilities.glRenderer)
            let withinFuzz = d.maxDifference <= allowed.maxDifference && d.differing <= allowed.maxDifferingPixels
            result.passed = entry.relation == .equal ? withinFuzz : !withinFuzz
            let fuzz = allowed.maxDifference > 0 || allowed.maxDifferingPixels > 0 ? " (allowed: max \(allowed.maxDifference), \(allowed.maxDifferingPixels) px)" : ""
            result.message = d.differing == 0 ? "identical" : "\(d.differing) pixels differ, max difference \(d.maxDifference)\(fuzz)"
            if !result.passed {
                if entry.relation == .notEqual { result.message += "; expected the images to differ" }
                result.images = try writeImages(entry, actual: actual, expected: expected)
            }
        } catch {
            result.message = "\(error)"
        }
        return result
    }

    /// A PNG's pixels, or a scene's frame at `time` seconds after its start (read with the
    /// media clock fixed at 0, as `lamina render` reads it; the clock is put back after).
    private func image(of path: String, at time: Double) throws -> RGBAImage {
        if path.hasSuffix(".png") { return try RGBAImage(contentsOfPNG: path) }
        let savedClock: Double? = MediaClock.isFixed ? MediaClock.now() : nil
        MediaClock.set(0)
        defer { MediaClock.set(savedClock) }
        return try Scene.load(contentsOf: path).render(device: device, time: time).image
    }

    private func writeImages(_ entry: ReftestManifest.Entry, actual: RGBAImage, expected: RGBAImage) throws -> [String] {
        try FileManager.default.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true)
        let name = URL(fileURLWithPath: entry.test).deletingPathExtension().lastPathComponent
        let base = URL(fileURLWithPath: outputDirectory).appendingPathComponent(name).path
        var written = [base + "-actual.png", base + "-expected.png"]
        try actual.writePNG(to: written[0])
        try expected.writePNG(to: written[1])
        if actual.width == expected.width && actual.height == expected.height {
            // Differences in red over a faded copy of the expected image.
            var diff = RGBAImage(width: actual.width, height: actual.height)
            for y in 0..<actual.height {
                for x in 0..<actual.width {
                    let a = actual[x, y], e = expected[x, y]
                    if a.maxChannelDifference(e) > 0 {
                        diff[x, y] = RGBAPixel(r: 255, g: 0, b: 0, a: 255)
                    } else {
                        let g = UInt8(191 + Int(e.r / 4 + e.g / 4 + e.b / 4) / 3)
                        diff[x, y] = RGBAPixel(r: g, g: g, b: g, a: 255)
                    }
                }
            }
            written.append(base + "-diff.png")
            try diff.writePNG(to: written[2])
        }
        return written
    }
}

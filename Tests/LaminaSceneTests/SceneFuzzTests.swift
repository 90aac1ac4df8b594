import Foundation
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import LaminaTestSupport
import Testing
@testable import LaminaScene

/// Tests/SceneFuzz: the corpus of valid scenes the fuzzer mutates, and the reproducers.
let sceneFuzzDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("SceneFuzz")

/// A seeded generator (SplitMix64): the same sequence on every machine.
struct FuzzRandom {
    private var generator: SplitMix64
    init(seed: UInt64) { generator = SplitMix64(seed: seed) }
    mutating func next() -> UInt64 { generator.next() }
    mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}

/// Mutates valid scene files: byte-level edits and structure-aware ones (numbers replaced by
/// extremes, keys inserted with extreme values, duplicated keys, deep nesting, long strings,
/// truncation).
@MainActor
struct SceneMutator {
    static let extremeNumbers = [
        "NaN", "Infinity", "-Infinity", "1e300", "-1e300", "1e-300", "-1e-300", "0", "-0", "1e999", "-1e999",
        "99999999999999999999999999", "-99999999999999999999", "1e19", "3e6", "2097152", "1e6", "1000001", "-1e6",
        "16", "16.0001", "17", "0.0001", "1e-7", "-1", "0.5", "2", "1e308", "4.9e-324", "1.7976931348623157e308",
        "00", "1.", ".5", "-", "1e", "0x10", "+1",
    ]
    static let extremeValues = extremeNumbers + [
        "[1e300, 1e300]", "[0, 0, 1e300, 1e300]", "[0, 0, 1e-300, 1e300]", "[-1e300, 0, 10, 10]", "[0, 0, 3e6, 20]",
        "[0, 0, 1e6, 1e6]", "[1e6, -1e6, 1e6, 1e6]", "[0, 0, 100000, 100000]", "[0, 0, 20000, 20000]", "[]", "[[]]", "{}", "null",
        "true", "\"\"", "\"#ff\"", "\"nope.png\"", "\"/dev/zero\"", "\"/\"", "[1, 2, 3, 4, 5]", "[0.5, 0.5, 2, 2]",
        "[{\"scale\": 1e6}, {\"scale\": 1e6}, {\"scale\": 1e6}]", "[{\"perspective\": 1e-300}]", "[{\"rotate\": 1e300}]",
        "[{\"rotate\": 30, \"axis\": [0, 0, 0]}]", "[{\"translate\": [1e6, 1e6, 1e6]}]",
        "[{\"matrix\": [1e6,0,0,0, 0,1e6,0,0, 0,0,1,0, 0,0,0,1e-300]}]",
        "[{\"ellipse\": [0, 0, 1e-300, 1e300], \"fill\": \"red\"}]", "[{\"ellipse\": [0, 0, 1e-300, 1e6], \"stroke\": \"red\"}]",
        "[{\"roundedRect\": [0, 0, 1e6, 1e6], \"radius\": 1e6, \"stroke\": \"red\", \"dash\": [0.1], \"lineWidth\": 1e6}]",
        "[{\"text\": \"x\", \"in\": [0, 0, 1e6, 1e6], \"font\": {\"size\": 1000}}]",
        "[{\"text\": \"wrap me please\", \"in\": [0, 0, 1e-300, 10]}]",
        "[{\"path\": \"M 0 0 C 1e6 -1e6 -1e6 1e6 1e6 1e6 Z\", \"stroke\": \"red\", \"lineWidth\": 30, \"lineJoin\": \"round\"}]",
        "[{\"linearGradient\": {\"start\": [0, 0], \"end\": [0, 0], \"colors\": [\"red\", \"blue\"]}, \"rect\": [0, 0, 8, 8]}]",
        "[{\"radialGradient\": {\"center\": [0, 0], \"radius\": 0, \"colors\": [\"red\", \"blue\"]}, \"rect\": [0, 0, 8, 8]}]",
        "{\"pixels\": [[\"red\"]]}", "{\"image\": \"quadrants.png\"}",
        // Animation values: a repeat count, timing functions, key times, a group.
        "\"infinity\"", "\"easeIn\"", "[0, 1e3, 1, -1e3]", "[0, 0.5, 1]", "[0, 1]", "[\"linear\", \"default\"]",
        "[{\"keyPath\": \"position\", \"to\": [1e6, -1e6], \"duration\": 1e-300}]",
        "[{\"kind\": \"group\", \"animations\": [{\"kind\": \"group\", \"animations\": []}]}]",
    ]
    /// Values within the scene limits but extreme for the renderer, by layer key.
    static let layerValues: [(key: String, values: [String])] = [
        ("frame", ["[0, 0, 1e6, 1e6]", "[-1e6, -1e6, 1e6, 1e6]", "[0, 0, 20000, 10]", "[0, 0, 1e-300, 1e-300]", "[1e6, 1e6, 0, 0]", "[0, 0, 16385, 1]"]),
        ("bounds", ["[0, 0, 1e6, 1e6]", "[1e6, -1e6, 1e6, 1e-300]", "[0, 0, 4097, 4097]"]),
        ("position", ["[1e6, -1e6]", "[1e-300, 0]", "[-1e6, 1e6]"]),
        ("contentsScale", ["16", "1e-300", "0.001", "15.99"]),
        ("transform", ["[{\"scale\": 1e6}]", "[{\"perspective\": 0.001}]", "[{\"rotate\": 1e6}]", "[{\"scale\": 1e-300}]",
                       "[{\"scale\": 0}]", "[{\"rotateY\": 90}]", "[{\"translate\": [0, 0, 1e6]}, {\"perspective\": 0.001}]",
                       "[1e6,0,0,0, 0,1e-300,0,0, 0,0,1,-1e6, 0,0,0,1e-300]", "[0,0,0,0, 0,0,0,0, 0,0,0,0, 0,0,0,0]"]),
        ("sublayerTransform", ["[{\"perspective\": 0.001}]", "[{\"scale\": [1e6, 1e-300, 1e6]}]", "[{\"rotateX\": 89.9999}]"]),
        ("cornerRadius", ["1e6", "1e-300"]), ("borderWidth", ["1e6", "1e-300"]), ("zPosition", ["1e6", "-1e6"]),
        ("anchorPointZ", ["-1e6"]), ("anchorPoint", ["[1000, -1000]", "[1e-300, 1e-300]"]),
        ("contentsRect", ["[1000, 1000, 1000, 1000]", "[0, 0, 0, 0]", "[-1000, 0, 1e-300, 1000]"]),
        ("contentsCenter", ["[0, 0, 0, 0]", "[0.5, 0.5, 0, 0]", "[0, 0, 1, 1e-300]"]),
        ("contents", ["{\"image\": \"quadrants.png\"}", "\"photo.png\"", "{\"pixels\": [[\"red\", \"blue\"]]}"]),
        // A drawn layer with a size at or beyond what a backing store can hold.
        ("name", ["\"big\", \"bounds\": [0, 0, 20000, 10], \"drawing\": [{\"rect\": [0, 0, 10, 10], \"fill\": \"red\"}]",
                  "\"big\", \"bounds\": [0, 0, 16384, 16384], \"drawing\": [{\"rect\": [0, 0, 10, 10], \"fill\": \"red\"}]",
                  "\"scaled\", \"bounds\": [0, 0, 1500, 1500], \"contentsScale\": 16, \"drawing\": [{\"ellipse\": [0, 0, 1500, 1500], \"fill\": \"red\"}]",
                  "\"thin\", \"bounds\": [0, 0, 1e-300, 1e6], \"drawing\": [{\"rect\": [0, 0, 10, 10], \"fill\": \"red\"}]"]),
        ("opacity", ["0", "1e-300"]), ("masksToBounds", ["true"]), ("doubleSided", ["false"]),
        ("speed", ["0", "1e6", "-1e6", "1e-300"]), ("timeOffset", ["1e9", "-1e9", "0.5"]), ("beginTime", ["1e9", "-1e9", "2"]),
        // Animations within the limits but extreme for the renderer: values that overshoot
        // (cubic keyframes, springs), degenerate transforms, tiny durations repeated
        // forever, extreme speeds and offsets.
        ("animations", [
            "[{\"keyPath\": \"transform\", \"to\": [{\"scale\": 1e6}], \"duration\": 0.001, \"repeatCount\": \"infinity\", \"autoreverses\": true}]",
            "[{\"kind\": \"keyframe\", \"keyPath\": \"bounds\", \"values\": [[0, 0, 1e6, 1e6], [0, 0, 0, 0], [-1e6, 1e6, 1e6, 0]], \"calculationMode\": \"cubic\", \"tensionValues\": [1000, -1000, 1000]}]",
            "[{\"kind\": \"spring\", \"keyPath\": \"bounds.size\", \"from\": [0, 0], \"to\": [1e6, 1e6], \"damping\": 0, \"stiffness\": 1e6, \"mass\": 1e-6}]",
            "[{\"kind\": \"spring\", \"keyPath\": \"transform.scale\", \"from\": 0, \"to\": 1e6, \"initialVelocity\": -1e6}]",
            "[{\"keyPath\": \"sublayerTransform\", \"from\": [{\"perspective\": 0.001}], \"to\": [{\"rotateY\": 90}], \"duration\": 1}]",
            "[{\"keyPath\": \"transform.scale\", \"by\": 1e6, \"cumulative\": true, \"repeatCount\": 1e9, \"duration\": 1e-9}]",
            "[{\"keyPath\": \"transform.rotation.y\", \"by\": 1e6, \"cumulative\": true, \"repeatCount\": \"infinity\", \"duration\": 1e-9}]",
            "[{\"kind\": \"group\", \"duration\": 1e-9, \"repeatCount\": \"infinity\", \"animations\": [{\"keyPath\": \"opacity\", \"from\": 0, \"to\": 1, \"speed\": 1e6, \"timeOffset\": -1e9}]}]",
            "[{\"keyPath\": \"cornerRadius\", \"to\": 1e6}, {\"keyPath\": \"borderWidth\", \"to\": 1e6, \"additive\": true}]",
            "[{\"kind\": \"keyframe\", \"keyPath\": \"transform\", \"values\": [[{\"rotate\": 1e6}], [{\"scale\": 0}], [0,0,0,0, 0,0,0,0, 0,0,0,0, 0,0,0,0]], \"calculationMode\": \"paced\", \"cumulative\": true, \"repeatCount\": 1000}]",
            "[{\"kind\": \"keyframe\", \"keyPath\": \"contentsRect\", \"values\": [[0, 0, 1000, 1000], [-1000, -1000, 0, 0]], \"calculationMode\": \"cubicPaced\", \"additive\": true}]",
            "[{\"keyPath\": \"zPosition\", \"from\": -1e6, \"to\": 1e6, \"fillMode\": \"both\", \"beginTime\": 1e9}]",
            "[{\"keyPath\": \"anchorPoint\", \"from\": [1000, -1000], \"to\": [-1000, 1000], \"speed\": -1e6, \"fillMode\": \"both\"}]",
        ]),
        ("drawing", ["[{\"ellipse\": [0, 0, 1e-300, 1e6], \"fill\": \"red\"}]",
                     "[{\"ellipse\": [-1e6, -1e6, 1e6, 1e6], \"stroke\": \"red\", \"lineWidth\": 1e6}]",
                     "[{\"roundedRect\": [0, 0, 1e6, 1e6], \"radius\": 1e6, \"stroke\": \"red\", \"dash\": [0.1], \"lineWidth\": 2}]",
                     "[{\"rect\": [0, 0, 1e6, 1e6], \"stroke\": \"red\", \"dash\": [0.05, 0.05]}]",
                     "[{\"text\": \"big\", \"at\": [0, 0], \"font\": {\"size\": 1000}}]",
                     "[{\"text\": \"wrap me please\", \"in\": [0, 0, 1e-300, 1e6]}]",
                     "[{\"text\": \"wide\", \"in\": [0, 0, 1e6, 10], \"align\": \"justified\"}]",
                     "[{\"path\": \"M 0 0 C 1e6 -1e6 -1e6 1e6 1e6 1e6 Z\", \"stroke\": \"red\", \"lineWidth\": 30, \"lineJoin\": \"round\"}]",
                     "[{\"path\": \"M -1e6 -1e6 L 1e6 1e6 L 1e6 -1e6 Z\", \"fill\": \"red\", \"fillRule\": \"evenOdd\"}]",
                     "[{\"radialGradient\": {\"center\": [0, 0], \"radius\": 1e6, \"colors\": [\"red\", \"blue\"]}, \"ellipse\": [0, 0, 8, 8]}]",
                     "[{\"image\": \"quadrants.png\", \"in\": [0, 0, 1e6, 1e-300], \"interpolation\": \"none\"}]"]),
    ]
    static let keys = LayerBuilder.layerKeys + LayerBuilder.drawingKeys + LayerBuilder.animationKeys
        + ["version", "size", "scale", "root", "pixels", "image", "colors"]

    var random: FuzzRandom

    mutating func mutate(_ input: [UInt8]) -> [UInt8] {
        var bytes = input
        let count = [1, 1, 1, 1, 1, 1, 2, 2, 2, 3][random.below(10)]
        for _ in 0..<count { bytes = mutateOnce(bytes) }
        return bytes
    }

    /// Offsets of the starts of number tokens.
    private func numberStarts(_ b: [UInt8]) -> [Int] {
        var out: [Int] = []
        var inString = false
        var i = 0
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") && (i == 0 || b[i - 1] != UInt8(ascii: "\\")) { inString.toggle() }
            if !inString, c == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c),
               i > 0, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b[i - 1]), b[i - 1] != UInt8(ascii: "."),
               b[i - 1] != UInt8(ascii: "e"), b[i - 1] != UInt8(ascii: "-") {
                out.append(i)
            }
            i += 1
        }
        return out
    }

    private func numberEnd(_ b: [UInt8], from start: Int) -> Int {
        var i = start
        while i < b.count, "0123456789.eE+-".utf8.contains(b[i]) { i += 1 }
        return i
    }

    private func positions(of byte: UInt8, in b: [UInt8]) -> [Int] { b.indices.filter { b[$0] == byte } }

    /// Offsets of the '{' of layer objects: the root's and those in `sublayers` arrays
    /// (an object right after `"root":`, or after `"sublayers": [` or a `},` between layers).
    private func positionsOfLayers(_ b: [UInt8]) -> [Int] {
        let text = String(decoding: b, as: UTF8.self)
        var out: [Int] = []
        for marker in ["\"root\":", "\"sublayers\":"] {
            var search = text.startIndex
            while let r = text.range(of: marker, range: search..<text.endIndex) {
                search = r.upperBound
                var i = text.utf8.distance(from: text.utf8.startIndex, to: r.upperBound)
                while i < b.count, b[i] == UInt8(ascii: " ") || b[i] == UInt8(ascii: "\n") || b[i] == UInt8(ascii: "[") { i += 1 }
                if i < b.count, b[i] == UInt8(ascii: "{") { out.append(i) }
            }
        }
        return out
    }

    mutating func mutateOnce(_ b: [UInt8]) -> [UInt8] {
        var b = b
        guard !b.isEmpty else { return Array("{}".utf8) }
        switch random.below(16) {
        case 0: // flip a byte
            let i = random.below(b.count); b[i] ^= UInt8(1 << random.below(8))
        case 1: // insert a structural or random byte
            let i = random.below(b.count + 1)
            b.insert(random.pick(Array("{}[],:\"0-e.\\ \n".utf8) + [UInt8(truncatingIfNeeded: random.next())]), at: i)
        case 2: // delete a range
            let i = random.below(b.count), n = min(b.count - i, 1 + random.below(16)); b.removeSubrange(i..<i + n)
        case 3: // truncate
            b = Array(b.prefix(random.below(b.count)))
        case 4, 5, 6: // replace a number by an extreme
            let starts = numberStarts(b)
            guard !starts.isEmpty else { return b }
            let s = random.pick(starts)
            b.replaceSubrange(s..<numberEnd(b, from: s), with: Array(random.pick(SceneMutator.extremeNumbers).utf8))
        case 7, 8: // insert a key with an extreme value after an object's '{'
            let opens = positions(of: UInt8(ascii: "{"), in: b)
            guard !opens.isEmpty else { return b }
            let at = random.pick(opens) + 1
            let member = "\"\(random.pick(SceneMutator.keys))\": \(random.pick(SceneMutator.extremeValues)), "
            b.insert(contentsOf: Array(member.utf8), at: at)
        case 12, 13, 14, 15: // set a layer property to a value within the limits but extreme for the renderer
            let layers = positionsOfLayers(b)
            guard !layers.isEmpty else { return b }
            // One time in four, a drawn layer with a large backing store.
            let (key, values) = random.below(4) == 0 ? SceneMutator.layerValues.first { $0.key == "name" }! : random.pick(SceneMutator.layerValues)
            let member = "\"\(key)\": \(random.pick(values)), "
            b.insert(contentsOf: Array(member.utf8), at: random.pick(layers) + 1)
        case 9: // duplicate a key: repeat the first member of an object
            let opens = positions(of: UInt8(ascii: "{"), in: b)
            guard let o = opens.isEmpty ? nil : random.pick(opens),
                  let comma = b[(o + 1)...].firstIndex(of: UInt8(ascii: ",")), comma - o < 200 else { return b }
            b.insert(contentsOf: Array(b[(o + 1)...comma]), at: o + 1)
        case 10: // nest the root's contents in a chain of sublayers
            guard let r = String(decoding: b, as: UTF8.self).range(of: "\"root\":") else { return b }
            let at = String(decoding: b, as: UTF8.self).utf8.distance(from: String(decoding: b, as: UTF8.self).utf8.startIndex, to: r.upperBound)
            let depth = random.pick([10, 100, 500])
            // Plain links, or links whose transforms multiply to overflow (1e6^depth, 1e-6^depth;
            // the growing ones once trapped in Compositor.groupImage: reproducers/group-bounds-overflow.json).
            let link = random.pick([
                "{\"sublayers\": [",
                "{\"type\": \"transformLayer\", \"transform\": [{\"scale\": 1e-6}, {\"rotateY\": 60}], \"sublayers\": [",
                "{\"opacity\": 0.5, \"masksToBounds\": true, \"cornerRadius\": 1e6, \"bounds\": [0, 0, 1e6, 1e6], \"sublayers\": [",
                "{\"transform\": [{\"scale\": 1e6}], \"sublayerTransform\": [{\"perspective\": 0.001}], \"sublayers\": [",
                "{\"transform\": [{\"scale\": 1e6}], \"sublayers\": [",
            ])
            let open = String(repeating: link, count: depth)
            let close = String(repeating: "]}", count: depth)
            guard let end = b.lastIndex(of: UInt8(ascii: "}")), end > at else { return b }
            b.insert(contentsOf: Array(close.utf8), at: end)
            b.insert(contentsOf: Array(open.utf8), at: at)
        default: // a long string value
            let quotes = positions(of: UInt8(ascii: "\""), in: b)
            guard !quotes.isEmpty else { return b }
            let q = random.pick(quotes) + 1
            b.insert(contentsOf: Array(String(repeating: random.pick(["a", "é", " ", "\\u0000", "x y "]), count: random.pick([100, 1000, 10_001])).utf8), at: q)
        }
        return b
    }
}

/// Turns a hang into a failure: if one input takes longer than `limit`, prints the seed and
/// writes the input to a file, then ends the process (a hang cannot be interrupted
/// in-process; the ended test process fails the suite).
final class FuzzWatchdog: @unchecked Sendable {
    private let lock = NSLock()
    private var current: (seed: UInt64, input: [UInt8], started: Date)?
    private var finished = false
    let limit: TimeInterval

    init(limit: TimeInterval) {
        self.limit = limit
        let thread = Thread { [weak self] in
            while let self, self.check() { Thread.sleep(forTimeInterval: 0.25) }
        }
        thread.start()
    }

    func begin(seed: UInt64, input: [UInt8]) { lock.withLock { current = (seed, input, Date()) } }
    func stop() { lock.withLock { finished = true } }

    private func check() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if finished { return false }
        if let c = current, Date().timeIntervalSince(c.started) > limit {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("lamina-scene-fuzz-hang-\(c.seed).json").path
            _ = FileManager.default.createFile(atPath: file, contents: Data(c.input))
            FileHandle.standardError.write(Data("scene fuzz: the input of seed \(c.seed) did not finish within \(limit) s: a hang; the input is in \(file)\n".utf8))
            abort()
        }
        return true
    }
}

@MainActor
@Suite("Scene fuzzer")
struct SceneFuzzTests {
    /// Inputs fuzzed per run (each parsed, and rendered at 32×32 pt if it parses).
    static let inputs = 10_000
    static let baseSeed: UInt64 = 0x5CE1_1000
    /// The times inputs are rendered at, by seed.
    static let times = [0, 0.3, 2.5, 1e6]

    @Test("10 000 seeded mutations of the corpus: each parses to a scene or a SceneError, and renders or fails with a SceneError; no crash, no hang")
    func fuzz() throws {
        let corpusDirectory = sceneFuzzDirectory.appendingPathComponent("corpus")
        let files = try FileManager.default.contentsOfDirectory(atPath: corpusDirectory.path).filter { $0.hasSuffix(".json") }.sorted()
        try #require(files.count >= 20)
        let corpus = try files.map { [UInt8](try Data(contentsOf: corpusDirectory.appendingPathComponent($0))) }
        let device = try GPUDevice()
        defer { device.close() }
        // Warm up first: the first renders compile llvmpipe's shaders, which on a loaded
        // machine can take seconds — not a hang of any input.
        for (name, bytes) in zip(files, corpus) {
            _ = try Scene.parse(Data(bytes), file: name, baseDirectory: corpusDirectory.path)
                .render(device: device, size: Size(width: 32, height: 32), scale: 1)
        }
        // (Tools/sanitize.sh stretches the limit: an input rendered in 0.7 s in a release build
        // took over 10 s instrumented on a 2-core machine running the suite in parallel.)
        let scale = Double(ProcessInfo.processInfo.environment["LAMINA_WATCHDOG_SCALE"] ?? "").flatMap { $0 >= 1 ? $0 : nil } ?? 1
        let watchdog = FuzzWatchdog(limit: 10 * scale)
        defer { watchdog.stop() }
        var rendered = 0, parseErrors = 0, renderErrors = 0
        var unexpected: [String] = []
        var samples: [String] = []
        let start = Date()
        for n in 0..<SceneFuzzTests.inputs {
            let seed = SceneFuzzTests.baseSeed &+ UInt64(n)
            var mutator = SceneMutator(random: FuzzRandom(seed: seed))
            let source = mutator.random.below(corpus.count)
            let input = mutator.mutate(corpus[source])
            watchdog.begin(seed: seed, input: input)
            if ProcessInfo.processInfo.environment["LAMINA_SCENE_FUZZ_TRACE"] != nil {
                FileHandle.standardError.write(Data("scene fuzz: seed \(seed)\n".utf8))
            }
            if let dump = ProcessInfo.processInfo.environment["LAMINA_SCENE_FUZZ_DUMP"], dump == "\(seed)" {
                _ = FileManager.default.createFile(atPath: "/tmp/lamina-scene-fuzz-\(seed).json", contents: Data(input))
            }
            let scene: Scene
            do {
                scene = try Scene.parse(Data(input), file: "fuzz-\(seed).json", baseDirectory: corpusDirectory.path)
            } catch let e as SceneError {
                parseErrors += 1
                if !e.description.hasPrefix("fuzz-\(seed).json: $") { unexpected.append("seed \(seed): error without file and path: \(e)") }
                continue
            } catch {
                unexpected.append("seed \(seed) (\(files[source])): parse threw a non-scene error: \(error)")
                continue
            }
            do {
                // At one of a few times (the animations of the corpus and of the mutations
                // at their start, part-way, and long after).
                let time = SceneFuzzTests.times[Int(seed % UInt64(SceneFuzzTests.times.count))]
                _ = try scene.render(device: device, size: Size(width: 32, height: 32), scale: 1, time: time,
                                     maximumBackingStorePixels: 1 << 22)
                rendered += 1
            } catch let e as SceneError {
                renderErrors += 1
                if samples.count < 5 { samples.append("render error: \(e)") }
                if !e.description.hasPrefix("fuzz-\(seed).json: ") { unexpected.append("seed \(seed): render error without the file: \(e)") }
            } catch {
                unexpected.append("seed \(seed) (\(files[source])): render threw a non-scene error: \(error)")
            }
        }
        let seconds = Date().timeIntervalSince(start)
        for s in samples { print("scene fuzz: \(s.prefix(300))") }
        print("scene fuzz: \(SceneFuzzTests.inputs) inputs (seeds \(SceneFuzzTests.baseSeed)…): \(rendered) parsed and rendered, \(parseErrors) parse errors, \(renderErrors) render errors, \(String(format: "%.1f", seconds)) s")
        #expect(rendered + parseErrors + renderErrors + unexpected.count == SceneFuzzTests.inputs)
        #expect(unexpected.isEmpty, "\(unexpected.prefix(20).joined(separator: "\n"))")
        // The mutations reach both the reader's errors and the renderer.
        #expect(rendered > 0 && parseErrors > 0)
    }

    @Test("the mutator is deterministic: a seed gives the same input")
    func deterministic() throws {
        let base = Array(#"{"version": 1, "size": [10, 10], "root": {"frame": [0, 0, 10, 10], "opacity": 0.5}}"#.utf8)
        for seed in UInt64(0)..<50 {
            var a = SceneMutator(random: FuzzRandom(seed: seed)), b = SceneMutator(random: FuzzRandom(seed: seed))
            #expect(a.mutate(base) == b.mutate(base))
        }
    }
}

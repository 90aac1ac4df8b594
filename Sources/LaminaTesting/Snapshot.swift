import Foundation
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import LaminaModel
import LaminaScene
import LaminaUI
import Testing
#if canImport(XCTest)
import XCTest
#endif

/// How far a snapshot may be from its golden image, as ranges (WebRender's wrench and
/// WPT's `fuzzy`): the largest channel difference of any pixel, and the number of pixels
/// that differ at all. Both must fall in their range; a range that starts above 0 expects
/// a difference (a test that stops differing then fails).
public struct Fuzzy: Sendable, Equatable, CustomStringConvertible {
    public var maxDifference: ClosedRange<Int>
    public var differingPixels: ClosedRange<Int>

    public init(maxDifference: ClosedRange<Int>, differingPixels: ClosedRange<Int>) {
        self.maxDifference = maxDifference
        self.differingPixels = differingPixels
    }

    /// Pixel for pixel.
    public static let exact = Fuzzy(maxDifference: 0...0, differingPixels: 0...0)
    /// Up to `levels` per channel anywhere.
    public static func within(_ levels: Int) -> Fuzzy { Fuzzy(maxDifference: 0...levels, differingPixels: 0...Int.max) }

    func accepts(maxDifference m: Int, differing n: Int) -> Bool {
        (n == 0 && maxDifference.lowerBound == 0 && differingPixels.lowerBound == 0)
            || (maxDifference.contains(m) && differingPixels.contains(n))
    }

    public var description: String {
        func r(_ x: ClosedRange<Int>) -> String { x.upperBound == Int.max ? "\(x.lowerBound)…" : "\(x.lowerBound)…\(x.upperBound)" }
        return "fuzzy(maxDifference \(r(maxDifference)), differingPixels \(r(differingPixels)))"
    }
}

/// What a snapshot is compared with, per GL driver where that matters: rasterizers differ in
/// the last bits of antialiasing and filtering, legitimately.
public struct SnapshotTolerance: Sendable {
    public var `default`: Fuzzy
    /// By a word of the GL renderer string ("llvmpipe", "NVIDIA", …), first match wins.
    public var byRenderer: [(String, Fuzzy)]

    public init(_ default: Fuzzy = .exact, byRenderer: [(String, Fuzzy)] = []) {
        self.default = `default`
        self.byRenderer = byRenderer
    }

    /// The tolerance for a renderer.
    public func fuzzy(for renderer: String) -> Fuzzy {
        byRenderer.first { renderer.lowercased().contains($0.0.lowercased()) }?.1 ?? `default`
    }
}

/// What can be snapshotted.
public enum SnapshotSubject {
    /// A layer tree, rendered at its bounds' size (or `size`) on a new offscreen target.
    case layer(Layer)
    /// A view (its layer).
    case view(View)
    /// A scene file, at `time` seconds.
    case scene(path: String, time: Double)
    /// What a render target holds.
    case target(RenderTarget)
    /// An image already read back.
    case image(RGBAImage)
}

/// The outcome of comparing a snapshot with its golden image.
public struct SnapshotResult: Sendable {
    public enum Status: Sendable, Equatable {
        case matched
        /// The golden did not exist, or `LAMINA_RECORD_SNAPSHOTS=1`: written now. A test fails
        /// on it (nothing passes silently); run again to compare.
        case recorded
        case mismatched
    }
    public var status: Status
    public var golden: String
    /// Where the actual image, the golden's copy and the heat map were written (mismatches).
    public var actual: String?
    public var expected: String?
    public var diff: String?
    public var maxDifference = 0
    public var differingPixels = 0
    public var fuzzy: Fuzzy
    public var renderer: String
    public var message: String
}

/// Snapshot testing (`assertSnapshot`): goldens are PNGs in `__Snapshots__/<test file
/// name>/` beside the test file; see docs/testing.md.
public enum Snapshots {
    /// Where failures write their images: `$LAMINA_SNAPSHOT_ARTIFACTS`, else a folder of
    /// the temporary directory.
    public static var artifactsDirectory: String {
        ProcessInfo.processInfo.environment["LAMINA_SNAPSHOT_ARTIFACTS"]
            ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("lamina-snapshots")
    }

    /// Whether goldens are written again (`LAMINA_RECORD_SNAPSHOTS=1`).
    public static var recording: Bool { ProcessInfo.processInfo.environment["LAMINA_RECORD_SNAPSHOTS"] == "1" }

    /// The golden's path for a test file and a name.
    public static func goldenPath(file: String, name: String) -> String {
        let url = URL(fileURLWithPath: file)
        let folder = url.deletingLastPathComponent().appendingPathComponent("__Snapshots__")
            .appendingPathComponent(url.deletingPathExtension().lastPathComponent)
        return folder.appendingPathComponent(sanitized(name) + ".png").path
    }

    static func sanitized(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" })
    }

    /// Renders a subject to an image on `device`.
    @MainActor
    public static func image(of subject: SnapshotSubject, device: GPUDevice, size: Size?, scale: Double,
                             background: Color?) throws -> RGBAImage {
        switch subject {
        case .image(let image): return image
        case .target(let target): return try target.readPixels()
        case .scene(let path, let time):
            return try Scene.load(contentsOf: path).render(device: device, size: size, scale: scale, time: time).image
        case .view(let view): return try image(of: .layer(view.layer), device: device, size: size, scale: scale, background: background)
        case .layer(let layer):
            let s = size ?? layer.bounds.size
            let target = try OffscreenTarget(device: device, size: s, scale: scale)
            defer { target.release() }
            let renderer = LayerRenderer(device: device)
            defer { renderer.release() }
            try Transaction.flush()
            let origin = layer.superlayer == nil ? layer.position : nil
            if origin != nil {
                // A root is placed with its bounds at the target's origin.
                layer.position = Point(x: layer.bounds.size.width * layer.anchorPoint.x, y: layer.bounds.size.height * layer.anchorPoint.y)
            }
            defer { if let origin { layer.position = origin } }
            try renderer.render(layer, to: target, background: background)
            return try target.readPixels()
        }
    }

    /// Compares `actual` with the golden at `golden` (writing it when missing or recording).
    public static func compare(_ actual: RGBAImage, golden: String, tolerance: SnapshotTolerance, renderer: String,
                               artifactsName: String) throws -> SnapshotResult {
        let fuzzy = tolerance.fuzzy(for: renderer)
        var result = SnapshotResult(status: .matched, golden: golden, fuzzy: fuzzy, renderer: renderer, message: "")
        let fm = FileManager.default
        if recording || !fm.fileExists(atPath: golden) {
            try fm.createDirectory(atPath: (golden as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try actual.writePNG(to: golden)
            result.status = .recorded
            result.message = (recording ? "LAMINA_RECORD_SNAPSHOTS=1: recorded " : "no golden image: recorded ") + golden
                + " (\(actual.width)×\(actual.height) px, renderer \(renderer)); check it, commit it and run the test again"
            return result
        }
        let expected = try RGBAImage(contentsOfPNG: golden)
        guard expected.width == actual.width, expected.height == actual.height else {
            result.status = .mismatched
            try writeArtifacts(actual: actual, expected: expected, name: artifactsName, into: &result)
            result.message = "snapshot is \(actual.width)×\(actual.height) px, the golden \(golden) \(expected.width)×\(expected.height) px. Actual: \(result.actual ?? "?")"
            return result
        }
        let d = actual.difference(from: expected, tolerance: 0)
        result.maxDifference = d.maxDifference
        result.differingPixels = d.differing
        if fuzzy.accepts(maxDifference: d.maxDifference, differing: d.differing) { return result }
        result.status = .mismatched
        try writeArtifacts(actual: actual, expected: expected, name: artifactsName, into: &result)
        result.message = "snapshot differs from \(golden): \(d.differing) pixels differ, by at most \(d.maxDifference) levels; allowed \(fuzzy) on \(renderer).\n"
            + "  actual:   \(result.actual ?? "?")\n  expected: \(result.expected ?? "?")\n  diff:     \(result.diff ?? "?")\n"
            + "  (LAMINA_RECORD_SNAPSHOTS=1 records the actual image as the golden)"
        return result
    }

    static func writeArtifacts(actual: RGBAImage, expected: RGBAImage, name: String, into result: inout SnapshotResult) throws {
        let dir = (artifactsDirectory as NSString).appendingPathComponent(sanitized(name))
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let a = (dir as NSString).appendingPathComponent("actual.png")
        let e = (dir as NSString).appendingPathComponent("expected.png")
        try actual.writePNG(to: a)
        try expected.writePNG(to: e)
        result.actual = a
        result.expected = e
        if expected.width == actual.width, expected.height == actual.height {
            let d = (dir as NSString).appendingPathComponent("diff.png")
            try heatMap(actual, expected).writePNG(to: d)
            result.diff = d
        }
    }

    /// The expected image greyed and faded, with each differing pixel in red, brighter the
    /// larger its difference (at least half bright, so that one level shows).
    public static func heatMap(_ a: RGBAImage, _ b: RGBAImage) -> RGBAImage {
        var out = RGBAImage(width: a.width, height: a.height)
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a[x, y], q = b[x, y]
                let m = max(abs(Int(p.r) - Int(q.r)), abs(Int(p.g) - Int(q.g)), abs(Int(p.b) - Int(q.b)), abs(Int(p.a) - Int(q.a)))
                if m > 0 {
                    out[x, y] = RGBAPixel(r: UInt8(min(255, 128 + m / 2)), g: 0, b: 0, a: 255)
                } else {
                    let l = UInt8((Int(q.r) + Int(q.g) + Int(q.b)) / 3 / 4 + 160)
                    out[x, y] = RGBAPixel(r: l, g: l, b: l, a: 255)
                }
            }
        }
        return out
    }
}

/// Renders `subject`, compares it with its golden image `__Snapshots__/<file>/<name>.png`
/// beside the test file and reports a failure (swift-testing's `Issue` or `XCTFail`,
/// whichever is running) when it differs beyond `tolerance`, naming the actual, expected
/// and heat-map images it wrote. The first run records the golden and fails; so does
/// `LAMINA_RECORD_SNAPSHOTS=1`. `goldenFile` stands for the test file's path (goldens
/// beside it). Returns the result.
@MainActor
@discardableResult
public func assertSnapshot(of subject: SnapshotSubject, named name: String? = nil, size: Size? = nil, scale: Double = 1,
                           background: Color? = .clear, tolerance: SnapshotTolerance = SnapshotTolerance(),
                           device: GPUDevice? = nil, goldenFile: String? = nil,
                           fileID: StaticString = #fileID, filePath: StaticString = #filePath, function: StaticString = #function,
                           line: UInt = #line, column: UInt = #column) -> SnapshotResult? {
    let file = goldenFile ?? "\(filePath)"
    let testName = name ?? String("\(function)".prefix { $0 != "(" })
    do {
        let gpu = try device ?? GPUDevice()
        defer { if device == nil { gpu.close() } }
        let image = try Snapshots.image(of: subject, device: gpu, size: size, scale: scale, background: background)
        let golden = Snapshots.goldenPath(file: file, name: testName)
        let artifacts = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent + "/" + testName
        let result = try Snapshots.compare(image, golden: golden, tolerance: tolerance, renderer: gpu.capabilities.glRenderer,
                                           artifactsName: artifacts)
        if result.status != .matched {
            reportSnapshotFailure(result.message, fileID: fileID, filePath: filePath, line: line, column: column)
        }
        return result
    } catch {
        reportSnapshotFailure("snapshot '\(testName)' could not be taken: \(error)", fileID: fileID, filePath: filePath, line: line, column: column)
        return nil
    }
}

/// Reports through swift-testing inside a swift-testing test, through XCTest otherwise.
func reportSnapshotFailure(_ message: String, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {
    if Test.current != nil {
        Issue.record(Comment(rawValue: message), sourceLocation: SourceLocation(fileID: "\(fileID)", filePath: "\(filePath)",
                                                                                line: Int(line), column: Int(column)))
        return
    }
    #if canImport(XCTest)
    XCTFail(message, file: filePath, line: line)
    #else
    FileHandle.standardError.write(Data(("snapshot failure: " + message + "\n").utf8))
    #endif
}

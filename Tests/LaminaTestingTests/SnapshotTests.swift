import Foundation
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import LaminaModel
@testable import LaminaTesting
import Testing

/// A throw-away test file path: goldens go to `__Snapshots__/<name>/` beside it.
private func scratchFile() throws -> String {
    let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("lamina-snapshot-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir.appendingPathComponent("ExampleTests.swift").path
}

@MainActor
private func card(_ color: Color) -> Layer {
    let root = Layer()
    root.frame = Rect(x: 0, y: 0, width: 40, height: 30)
    root.backgroundColor = .white
    let inner = Layer()
    inner.frame = Rect(x: 5, y: 5, width: 30, height: 20)
    inner.backgroundColor = color
    inner.cornerRadius = 6
    root.addSublayer(inner)
    return root
}

@MainActor
@Suite("LaminaTesting: snapshots")
struct SnapshotTests {
    @Test("the first run records the golden beside the test file and fails; the second matches")
    func recordThenMatch() throws {
        let file = try scratchFile()
        let device = try GPUDevice()
        defer { device.close() }
        let golden = Snapshots.goldenPath(file: file, name: "card")
        #expect(golden.hasSuffix("/__Snapshots__/ExampleTests/card.png"))
        let image = try Snapshots.image(of: .layer(card(.blue)), device: device, size: nil, scale: 1, background: .clear)
        #expect(image.width == 40 && image.height == 30)
        #expect(image[20, 15] == RGBAPixel(r: 0, g: 0, b: 255, a: 255))
        let first = try Snapshots.compare(image, golden: golden, tolerance: SnapshotTolerance(), renderer: "llvmpipe", artifactsName: "t/card")
        #expect(first.status == .recorded, "a first run never passes silently")
        #expect(first.message.contains(golden))
        #expect(FileManager.default.fileExists(atPath: golden))
        let second = try Snapshots.compare(image, golden: golden, tolerance: SnapshotTolerance(), renderer: "llvmpipe", artifactsName: "t/card")
        #expect(second.status == .matched)
    }

    @Test("a mismatch writes the actual, expected and heat-map images and names them in the message")
    func mismatch() throws {
        let file = try scratchFile()
        let device = try GPUDevice()
        defer { device.close() }
        let golden = Snapshots.goldenPath(file: file, name: "card")
        let blue = try Snapshots.image(of: .layer(card(.blue)), device: device, size: nil, scale: 1, background: .clear)
        _ = try Snapshots.compare(blue, golden: golden, tolerance: SnapshotTolerance(), renderer: "llvmpipe", artifactsName: "m/card")
        let red = try Snapshots.image(of: .layer(card(.red)), device: device, size: nil, scale: 1, background: .clear)
        let r = try Snapshots.compare(red, golden: golden, tolerance: SnapshotTolerance(), renderer: "llvmpipe", artifactsName: "m/card")
        #expect(r.status == .mismatched)
        #expect(r.maxDifference == 255 && r.differingPixels > 400, "\(r.maxDifference) \(r.differingPixels)")
        for path in [r.actual, r.expected, r.diff] {
            let p = try #require(path)
            #expect(FileManager.default.fileExists(atPath: p))
            #expect(r.message.contains(p), "the message names \(p)")
        }
        let diff = try RGBAImage(contentsOfPNG: try #require(r.diff))
        #expect(diff[20, 15].r >= 128 && diff[20, 15].g == 0, "a differing pixel is red in the heat map: \(diff[20, 15])")
        #expect(diff[1, 1].r == diff[1, 1].g, "an equal pixel is grey: \(diff[1, 1])")
        #expect(try RGBAImage(contentsOfPNG: try #require(r.actual))[20, 15] == RGBAPixel(r: 255, g: 0, b: 0, a: 255))
    }

    @Test("fuzzy ranges at their edges: maxDifference and differingPixels both inside, lower bounds expect a difference")
    func fuzzyEdges() throws {
        var a = RGBAImage(width: 4, height: 4, fill: RGBAPixel(r: 100, g: 100, b: 100, a: 255))
        let b = a
        a[0, 0] = RGBAPixel(r: 103, g: 100, b: 100, a: 255)
        a[1, 0] = RGBAPixel(r: 102, g: 100, b: 100, a: 255)
        let file = try scratchFile()
        let golden = Snapshots.goldenPath(file: file, name: "edge")
        try FileManager.default.createDirectory(atPath: (golden as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try b.writePNG(to: golden)
        func status(_ f: Fuzzy) throws -> SnapshotResult.Status {
            try Snapshots.compare(a, golden: golden, tolerance: SnapshotTolerance(f), renderer: "x", artifactsName: "fuzzy/edge").status
        }
        #expect(try status(Fuzzy(maxDifference: 0...3, differingPixels: 0...2)) == .matched)
        #expect(try status(Fuzzy(maxDifference: 0...2, differingPixels: 0...2)) == .mismatched, "one level over")
        #expect(try status(Fuzzy(maxDifference: 0...3, differingPixels: 0...1)) == .mismatched, "one pixel over")
        #expect(try status(Fuzzy(maxDifference: 3...3, differingPixels: 2...2)) == .matched)
        #expect(try status(.exact) == .mismatched)
        // A range starting above 0 expects a difference: the same image then fails.
        #expect(try Snapshots.compare(b, golden: golden, tolerance: SnapshotTolerance(Fuzzy(maxDifference: 1...3, differingPixels: 1...2)),
                                      renderer: "x", artifactsName: "fuzzy/same").status == .mismatched)
    }

    @Test("a tolerance per renderer: llvmpipe's and a GPU's may differ; the default otherwise")
    func perRenderer() {
        let t = SnapshotTolerance(.exact, byRenderer: [("llvmpipe", .within(2)), ("NVIDIA", .within(4))])
        #expect(t.fuzzy(for: "llvmpipe (LLVM 15.0.6, 256 bits)") == .within(2))
        #expect(t.fuzzy(for: "NVIDIA H200/PCIe/SSE2") == .within(4))
        #expect(t.fuzzy(for: "AMD Radeon") == .exact)
    }

    @Test("assertSnapshot records through swift-testing: a missing golden is an issue naming the file")
    func assertRecords() throws {
        let file = try scratchFile()
        // (withKnownIssue: the issue the first run must raise is expected; none would fail the test.)
        var status: SnapshotResult.Status?
        withKnownIssue("the first run records and fails") {
            status = assertSnapshot(of: .layer(card(.green)), named: "green", goldenFile: file)?.status
        } matching: { issue in
            "\(issue)".contains("no golden image: recorded")
        }
        #expect(status == .recorded)
        #expect(FileManager.default.fileExists(atPath: Snapshots.goldenPath(file: file, name: "green")))
        // The second run matches: no issue.
        #expect(assertSnapshot(of: .layer(card(.green)), named: "green", goldenFile: file)?.status == .matched)
    }

    @Test("scenes and images are subjects too")
    func otherSubjects() throws {
        let device = try GPUDevice()
        defer { device.close() }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let scene = root.appendingPathComponent("Tests/Reftests/shader-quadrants.json").path
        let image = try Snapshots.image(of: .scene(path: scene, time: 0), device: device, size: nil, scale: 1, background: nil)
        #expect(image.width == 80 && image.height == 60)
        #expect(image[15, 15] == RGBAPixel(r: 255, g: 0, b: 0, a: 255))
        let again = try Snapshots.image(of: .image(image), device: device, size: nil, scale: 1, background: nil)
        #expect(again == image)
    }
}

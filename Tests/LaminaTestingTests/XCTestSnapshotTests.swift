import Foundation
import LaminaGeometry
import LaminaGPU
import LaminaModel
import LaminaTesting
import XCTest

/// `assertSnapshot` from an XCTest case (it reports through XCTFail there).
final class XCTestSnapshotTests: XCTestCase {
    // (XCTest on Linux cannot call a @MainActor test method; it runs tests on the main thread.)
    func testMatchesFromXCTest() throws {
        try MainActor.assumeIsolated { try XCTestSnapshotTests.matches() }
    }

    @MainActor
    private static func matches() throws {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("lamina-xctest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("CardTests.swift").path
        let layer = Layer()
        layer.frame = Rect(x: 0, y: 0, width: 16, height: 16)
        layer.backgroundColor = .red
        // Recorded first (a first assertSnapshot would fail the test, by design).
        let device = try GPUDevice()
        defer { device.close() }
        let image = try Snapshots.image(of: .layer(layer), device: device, size: nil, scale: 1, background: .clear)
        let recorded = try Snapshots.compare(image, golden: Snapshots.goldenPath(file: file, name: "red"), tolerance: SnapshotTolerance(),
                                             renderer: device.capabilities.glRenderer, artifactsName: "xctest/red")
        XCTAssertEqual(recorded.status, .recorded)
        let result = assertSnapshot(of: .layer(layer), named: "red", device: device, goldenFile: file)
        XCTAssertEqual(result?.status, .matched)
    }
}

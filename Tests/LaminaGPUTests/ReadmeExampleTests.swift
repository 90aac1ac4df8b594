import Foundation
import LaminaGeometry
import LaminaGraphics
import Testing
@testable import LaminaGPU

@Suite("README")
struct ReadmeExampleTests {
    @Test("the README's example renders what it says: a 400×200 px PNG with a blue square at scale 2")
    func example() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lamina-readme-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        // -- as in README.md --
        let device = try GPUDevice()
        let target = try OffscreenTarget(device: device, size: Size(width: 200, height: 100), scale: 2)
        let pass = try device.beginRenderPass(on: target, clear: .white)
        try pass.fill(Rect(x: 20, y: 20, width: 60, height: 60), color: .blue)
        pass.submit()
        try target.readPixels().writePNG(to: path)
        // --
        target.release()
        // The lines above are README.md's (its other snippets are compiled with the package:
        // Tests/DocSnippets); only the file name differs.
        let readme = try String(contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../README.md").path, encoding: .utf8)
        for line in ["let device = try GPUDevice()", "let target = try OffscreenTarget(device: device, size: Size(width: 200, height: 100), scale: 2)",
                     "let pass = try device.beginRenderPass(on: target, clear: .white)",
                     "try pass.fill(Rect(x: 20, y: 20, width: 60, height: 60), color: .blue)", "pass.submit()",
                     "try target.readPixels().writePNG(to: \"out.png\")"] {
            #expect(readme.contains(line), "README.md no longer has: \(line)")
        }
        let image = try RGBAImage(contentsOfPNG: path)
        #expect(image.width == 400 && image.height == 200)
        let wrong = image.mismatches { x, y in
            (40..<160).contains(x) && (40..<160).contains(y) ? px(0, 0, 255) : px(255, 255, 255)
        }
        #expect(wrong.isEmpty, "\(wrong)")
    }
}

import Foundation
import LaminaGeometry
import LaminaGraphics
import Testing
@testable import LaminaGPU

@Suite("PNG files")
struct PNGTests {
    private func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("lamina-\(UUID().uuidString)-\(name)").path
    }

    @Test("a rendered image survives a PNG round trip (opaque: exact; translucent: within 1 per channel)")
    func roundTrip() throws {
        let d = try openDevice()
        let t = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 48, height: 32))
        let pass = try d.beginRenderPass(on: t, clear: .clear)
        try pass.fill(Rect(x: 0, y: 0, width: 24, height: 32), color: Color(r8: 12, g8: 34, b8: 56))
        try pass.fill(Rect(x: 24, y: 0, width: 24, height: 32), color: Color(red: 0, green: 1, blue: 0.5, alpha: 0.5))
        pass.submit()
        let image = try t.readPixels()
        let path = temporaryPath("round.png")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try image.writePNG(to: path)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))   // a real PNG signature
        let decoded = try RGBAImage(contentsOfPNG: path)
        #expect(decoded.width == 48 && decoded.height == 32)
        #expect(decoded.mismatches { x, y in x < 24 ? image[x, y] : nil }.isEmpty)
        #expect(decoded.mismatches({ x, y in x >= 24 ? image[x, y] : nil }, tolerance: 1).isEmpty)
        #expect(decoded[30, 5].a == 128 || decoded[30, 5].a == 127)
    }

    @Test("missing and malformed PNG files throw errors naming the file")
    func badFiles() throws {
        #expect(throws: GraphicsError.imageNotFound(path: "/nonexistent/x.png")) {
            _ = try RGBAImage(contentsOfPNG: "/nonexistent/x.png")
        }
        let path = temporaryPath("garbage.png")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("not a png".utf8).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try RGBAImage(contentsOfPNG: path)
        } throws: { error in
            guard case let GraphicsError.imageUnreadable(p, _) = error else { return false }
            return p == path
        }
        #expect(throws: GraphicsError.self) {
            try RGBAImage(width: 2, height: 2).writePNG(to: "/nonexistent-dir/out.png")
        }
    }
}

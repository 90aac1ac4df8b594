import Foundation
import LaminaGeometry
import LaminaGraphics
import Testing
@testable import LaminaGPU

/// The PNG chunk CRC (the same as PNGStructure's, which these tests check against).
enum PNGCRC {
    static func crc(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFFFFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB88320 ^ (c >> 1) : c >> 1 }
        }
        return c ^ 0xFFFFFFFF
    }
}

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

    /// A valid 3×2 PNG's bytes (written by Cairo).
    private func validPNG() throws -> [UInt8] {
        let path = temporaryPath("valid.png")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try RGBAImage(width: 3, height: 2).writePNG(to: path)
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Sets the IHDR's width and height and recomputes its CRC.
    private func withHeader(_ png: [UInt8], width: UInt32, height: UInt32) -> [UInt8] {
        var b = png
        for (i, v) in [width, height].enumerated() {
            for k in 0..<4 { b[16 + i * 4 + k] = UInt8((v >> (24 - 8 * UInt32(k))) & 0xff) }
        }
        let crc = PNGCRC.crc(b[12..<29])
        for k in 0..<4 { b[29 + k] = UInt8((crc >> (24 - 8 * UInt32(k))) & 0xff) }
        return b
    }

    private func reason(_ bytes: [UInt8]) throws -> String {
        let path = temporaryPath("bad.png")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do {
            _ = try RGBAImage(contentsOfPNG: path)
            return "decoded"
        } catch let GraphicsError.imageUnreadable(p, reason) {
            #expect(p == path)
            return reason
        }
    }

    @Test("PNG errors say what is wrong with the file (not \"out of memory\")")
    func specificErrors() throws {
        let png = try validPNG()
        #expect(try reason(png) == "decoded")
        #expect(try reason(Array("not a png at all".utf8)).contains("not a PNG file"))
        #expect(try reason([]) == "the file is empty")
        #expect(try reason(Array(png.prefix(5))).contains("truncated: the file ends inside the PNG signature"))
        #expect(try reason(Array(png.prefix(png.count - 20))).contains("truncated"))
        var badCRC = png
        badCRC[20] ^= 0x01   // inside the IHDR's data: its CRC no longer matches
        #expect(try reason(badCRC).contains("bad CRC in chunk 'IHDR' at byte 8"))
        #expect(try reason(withHeader(png, width: 0, height: 0)).contains("the header says 0×0 pixels: an image needs at least one pixel"))
        let huge = try reason(withHeader(png, width: 100_000, height: 100_000))
        #expect(huge.contains("100000×100000 pixels: too large, the limit is 16384 pixels a side"), "\(huge)")
        #expect(!huge.contains("out of memory"))
        // A sound structure with corrupt compressed data: libpng's failure, said as such.
        var corrupt = png
        if let idat = (8..<(png.count - 8)).first(where: { png[$0..<$0 + 4].elementsEqual("IDAT".utf8) }) {
            let length = Int(png[idat - 4]) << 24 | Int(png[idat - 3]) << 16 | Int(png[idat - 2]) << 8 | Int(png[idat - 1])
            for k in 0..<length { corrupt[idat + 4 + k] = 0xAB }
            let crc = PNGCRC.crc(corrupt[idat..<(idat + 4 + length)])
            for k in 0..<4 { corrupt[idat + 4 + length + k] = UInt8((crc >> (24 - 8 * UInt32(k))) & 0xff) }
        }
        #expect(try reason(corrupt).contains("libpng could not decode the image data"))
    }
}

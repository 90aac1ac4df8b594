import Foundation
import Testing

import LaminaGeometry
@testable import LaminaGPU

/// Mistakes a user can make with GPU objects: each is a thrown `GPUError` that says what
/// was wrong, never a trap (issue 11). Before, each of these ended the process.
struct MisuseTests {
    @Test func uploadAfterReleaseOrCloseThrows() throws {
        let device = try openDevice()
        let texture = try device.makeTexture(pixelSize: PixelSize(width: 4, height: 4))
        let bytes = [UInt8](repeating: 255, count: 64)
        texture.release()
        #expect(throws: GPUError.released(what: "the texture", operation: "Texture.upload")) {
            try bytes.withUnsafeBytes { try texture.upload($0, bytesPerRow: 16) }
        }
        let other = try device.makeTexture(pixelSize: PixelSize(width: 4, height: 4))
        device.close()
        #expect(throws: GPUError.deviceClosed(operation: "Texture.upload")) {
            try bytes.withUnsafeBytes { try other.upload($0, bytesPerRow: 16) }
        }
    }

    @Test func badUploadArgumentsThrow() throws {
        let device = try openDevice()
        defer { device.close() }
        let texture = try device.makeTexture(pixelSize: PixelSize(width: 4, height: 4))
        let bytes = [UInt8](repeating: 255, count: 64)
        func rejects(_ region: PixelRect?, bytesPerRow: Int, count: Int = 64) -> String? {
            do {
                try bytes.prefix(count).withUnsafeBytes { _ = try texture.upload($0, bytesPerRow: bytesPerRow, region: region) }
                return nil
            } catch let error as GPUError {
                guard case .invalidArgument = error else { return "another error: \(error)" }
                return error.description
            } catch { return "\(error)" }
        }
        let outside = try #require(rejects(PixelRect(x: 2, y: 2, width: 4, height: 4), bytesPerRow: 16))
        #expect(outside.contains("not inside"), "\(outside)")
        #expect(rejects(PixelRect(x: Int.max, y: 0, width: Int.max, height: 1), bytesPerRow: 16) != nil, "overflowing region")
        #expect(rejects(PixelRect(x: -1, y: 0, width: 1, height: 1), bytesPerRow: 16) != nil)
        #expect(rejects(nil, bytesPerRow: 15) != nil, "rows not a multiple of 4 bytes")
        #expect(rejects(nil, bytesPerRow: 8) != nil, "rows shorter than the region")
        #expect(rejects(nil, bytesPerRow: Int.max / 2) != nil, "row stride overflowing the byte count")
        #expect(rejects(PixelRect(x: 0, y: 0, width: 4, height: 1), bytesPerRow: 1 << 40, count: 16) != nil, "one row, a stride beyond GL's row length")
        let short = try #require(rejects(nil, bytesPerRow: 16, count: 60))
        #expect(short.contains("do not cover"), "\(short)")
        // Still usable after the refusals.
        #expect(try bytes.withUnsafeBytes { try texture.upload($0, bytesPerRow: 16) } == 64)
        #expect(throws: GPUError.self) { try texture.upload(RGBAImage(width: 2, height: 2, fill: RGBAPixel(r: 255, g: 255, b: 255, a: 255))) }
    }

    @Test func readPixelsOutsideOrAfterReleaseThrows() throws {
        let device = try openDevice()
        defer { device.close() }
        let target = try OffscreenTarget(device: device, pixelSize: PixelSize(width: 8, height: 8))
        #expect(throws: GPUError.self) { try target.readPixels(PixelRect(x: 4, y: 4, width: 8, height: 8)) }
        #expect(throws: GPUError.self) { try target.readPixels(PixelRect(x: 0, y: 0, width: Int.max, height: 1)) }
        #expect(try target.readPixels(PixelRect(x: 4, y: 4, width: 4, height: 4)).width == 4)
        target.release()
        #expect(throws: GPUError.released(what: "the render target", operation: "readPixels")) { try target.readPixels() }
    }

    @Test func targetOnForeignOrReleasedTextureThrows() throws {
        let device = try openDevice(), other = try openDevice()
        defer { device.close(); other.close() }
        let foreign = try other.makeTexture(pixelSize: PixelSize(width: 8, height: 8))
        #expect(throws: GPUError.wrongDevice(what: "the texture of OffscreenTarget(device:texture:)")) {
            _ = try OffscreenTarget(device: device, texture: foreign)
        }
        let released = try device.makeTexture(pixelSize: PixelSize(width: 8, height: 8))
        released.release()
        #expect(throws: GPUError.self) { _ = try OffscreenTarget(device: device, texture: released) }
        #expect(throws: GPUError.self) {
            _ = try device.makeTexture(pixelSize: PixelSize(width: 8, height: 8), pixels: RGBAImage(width: 4, height: 4, fill: RGBAPixel(r: 255, g: 255, b: 255, a: 255)))
        }
    }

    @Test func atlasMisuseThrows() throws {
        let device = try openDevice()
        defer { device.close() }
        // Out-of-range construction arguments are brought into range.
        let atlas = TextureAtlas(device: device, pageSize: 1, maxEntrySide: -5, border: 9)
        #expect(atlas.border == 4 && atlas.maxEntrySide >= 1)
        let good = TextureAtlas(device: device, pageSize: 256, maxEntrySide: 64)
        let entry = try #require(try good.allocate(PixelSize(width: 8, height: 8)))
        let bytes = [UInt8](repeating: 9, count: 8 * 8 * 4)
        #expect(throws: GPUError.self) { try bytes.withUnsafeBytes { try good.upload(entry, bytes: $0, bytesPerRow: 32, region: PixelRect(x: 4, y: 0, width: 8, height: 8)) } }
        #expect(throws: GPUError.self) { try good.upload(entry, image: RGBAImage(width: 2, height: 2, fill: RGBAPixel(r: 255, g: 255, b: 255, a: 255))) }
        _ = good.free(entry)
        #expect(throws: GPUError.self) { try bytes.withUnsafeBytes { try good.upload(entry, bytes: $0, bytesPerRow: 32) } }
        good.release()
        atlas.release()
    }

    @Test func errorsCompareByValueNotByText() {
        // Two errors whose descriptions could coincide are still told apart by their values.
        let a = GPUError.invalidArgument(operation: "upload: x", reason: "y"), b = GPUError.invalidArgument(operation: "upload", reason: "x: y")
        #expect(a.description == b.description && a != b)
        #expect(GPUError.invalidArgument(operation: "x", reason: "y") == GPUError.invalidArgument(operation: "x", reason: "y"))
        #expect(GPUError.unusableTarget(reason: "x") != GPUError.invalidArgument(operation: "", reason: "x"))
    }
}

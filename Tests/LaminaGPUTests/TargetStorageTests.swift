import Foundation
import LaminaGeometry
import LaminaValues
import Testing
@testable import LaminaGPU

/// BGRA8 and RGBA8 storage (`GPUDevice.targetStorage`, `TextureStorage`): llvmpipe gets
/// BGRA8 targets; every drawing, upload and readback must give the same RGBA either way.
@Suite("Target storage: BGRA8 and RGBA8 render targets")
struct TargetStorageTests {
    @Test("on llvmpipe Lamina's own targets are BGRA8; a device can be asked for RGBA8 from the next target on")
    func choice() throws {
        let d = try openDevice()
        #expect(d.capabilities.isSoftwareRasterizer && d.capabilities.bgraStorage)
        #expect(d.targetStorage == .bgra8)
        let bgra = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 8, height: 8))
        #expect(bgra.texture?.storage == .bgra8)
        d.targetStorage = .rgba8
        let rgba = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 8, height: 8))
        #expect(rgba.texture?.storage == .rgba8)
        #expect(bgra.texture?.storage == .bgra8)   // made before: unchanged
        // A host's texture keeps its own storage, and textures for contents are RGBA8.
        #expect(try d.makeTexture(pixelSize: PixelSize(width: 2, height: 2)).storage == .rgba8)
    }

    /// Premultiplied colours whose channels all differ, so a red/blue swap anywhere shows.
    private static func pattern(_ w: Int, _ h: Int) -> RGBAImage {
        var image = RGBAImage(width: w, height: h)
        for y in 0..<h {
            for x in 0..<w {
                let a = 128 + (x * 7 + y * 3) % 128
                image[x, y] = px(UInt8(a * (x + 1) / w), UInt8(a * y / h), UInt8(a / 3), UInt8(a))
            }
        }
        return image
    }

    /// One drawing of every primitive Lamina's passes use on a target of `storage`:
    /// a clear, a translucent fill, a texture (half transparent, scaled), a rounded
    /// rectangle with a border, and the image of another target of the same storage
    /// drawn back (a group image: sampling a target's texture).
    private func draw(_ storage: TextureStorage) throws -> RGBAImage {
        let d = try openDevice()
        d.targetStorage = storage
        let texture = try d.makeTexture(pixelSize: PixelSize(width: 16, height: 12), pixels: Self.pattern(16, 12))
        let inner = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 20, height: 20))
        let innerPass = try d.beginRenderPass(on: inner, clear: Color(red: 0, green: 0.25, blue: 0.5, alpha: 0.5))
        try innerPass.fill(Rect(x: 2, y: 3, width: 9, height: 7), color: Color(red: 0.9, green: 0.2, blue: 0.1))
        innerPass.submit()
        let t = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 64, height: 48))
        #expect(t.texture?.storage == storage && inner.texture?.storage == storage)
        let pass = try d.beginRenderPass(on: t, clear: Color(r8: 30, g8: 60, b8: 200))
        try pass.fill(Rect(x: 4, y: 4, width: 30, height: 20), color: Color(red: 0.5, green: 0.1, blue: 0, alpha: 0.5))
        try pass.draw(texture, in: Rect(x: 10, y: 8, width: 40, height: 30), alpha: 0.75)
        try pass.draw(inner.texture!, in: Rect(x: 40, y: 24, width: 20, height: 20))
        try pass.fillRoundedRect(Rect(x: 2, y: 28, width: 30, height: 16), cornerRadius: 5, color: Color(red: 0.2, green: 0.6, blue: 0.3, alpha: 0.8))
        try pass.fillRoundedRect(Rect(x: 36, y: 2, width: 24, height: 18), cornerRadius: 6, borderWidth: 2, color: Color(red: 1, green: 1, blue: 0))
        pass.submit()
        let image = try t.readPixels()
        t.release(); inner.release(); texture.release()
        d.close()
        return image
    }

    @Test("fills, textures, rounded rectangles and a target's own image read back the same from BGRA8 and RGBA8 targets")
    func sameDrawing() throws {
        let rgba = try draw(.rgba8), bgra = try draw(.bgra8)
        let wrong = bgra.mismatches { x, y in rgba[x, y] }
        #expect(wrong.isEmpty, "\(wrong)")
        // Not trivially equal: the drawing has its colours where they were put.
        #expect(rgba[1, 1] == px(30, 60, 200))
        #expect(rgba[20, 20] != rgba[1, 1])
    }

    @Test("uploads into BGRA8 storage take RGBA bytes, whole and by region (rows padded)")
    func uploads() throws {
        let d = try openDevice()
        let image = Self.pattern(6, 5)
        let texture = try d.makeTexture(pixelSize: image.pixelSize, pixels: image, storage: .bgra8)
        #expect(texture.storage == .bgra8)
        // A 2×2 region from rows 12 bytes wider than the pixels.
        let patch: [RGBAPixel] = [px(255, 0, 0), px(0, 255, 0), px(0, 0, 255), px(10, 20, 30, 40)]
        var bytes = [UInt8](repeating: 0xEE, count: 2 * (8 + 12))
        for (i, p) in patch.enumerated() {
            let o = (i / 2) * 20 + (i % 2) * 4
            bytes[o] = p.r; bytes[o + 1] = p.g; bytes[o + 2] = p.b; bytes[o + 3] = p.a
        }
        _ = try bytes.withUnsafeBytes { try texture.upload($0, bytesPerRow: 20, region: PixelRect(x: 3, y: 2, width: 2, height: 2)) }
        var expected = image
        expected[3, 2] = patch[0]; expected[4, 2] = patch[1]; expected[3, 3] = patch[2]; expected[4, 3] = patch[3]
        // Drawn 1:1 over a clear target into an RGBA8 one: texel for texel.
        d.targetStorage = .rgba8
        let t = try OffscreenTarget(device: d, pixelSize: image.pixelSize)
        let pass = try d.beginRenderPass(on: t, clear: .clear)
        try pass.draw(texture, in: Rect(x: 0, y: 0, width: 6, height: 5), minFilter: .nearest, magFilter: .nearest)
        pass.submit()
        let wrong = try t.readPixels().mismatches { x, y in expected[x, y] }
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test("BGRA8 storage refuses a BGRA byte order: it samples as RGBA already")
    func refusesSwappedOrder() throws {
        let d = try openDevice()
        #expect(throws: GPUError.self) { try d.makeTexture(pixelSize: PixelSize(width: 2, height: 2), byteOrder: .bgra, storage: .bgra8) }
        #expect(d.liveObjectCounts[.texture] == 0)
    }
}

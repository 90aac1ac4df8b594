import Foundation
import LaminaGeometry
import LaminaGPU
import Testing
import LaminaTestSupport

/// Misuse of a render pass that a caller can reach through the public API throws (it used
/// to trap on a `precondition`, whose message release builds drop).
@MainActor
@Suite("Render pass misuse is an error", .isolatedTransactions)
struct RenderPassMisuseTests {
    @Test("popClip without pushClip, a 256th nested clip, use after submit, a released texture, an impossible channel order, a target of another device: each throws, and the device keeps working")
    func misuse() throws {
        let device = try GPUDevice()
        defer { device.close() }
        let target = try OffscreenTarget(device: device, size: Size(width: 16, height: 16))
        let rect = Rect(x: 0, y: 0, width: 16, height: 16)

        var pass = try device.beginRenderPass(on: target, clear: .white)
        #expect(throws: RenderPassError.popClipWithoutPush) { try pass.popClip(rect) }
        for _ in 0..<RenderPass.maxClipDepth { try pass.pushClip(rect) }
        #expect(throws: RenderPassError.clipsTooDeep(limit: 255)) { try pass.pushClip(rect) }
        #expect(pass.clipDepth == 255)
        // Submitting with clips pushed ends them.
        pass.submit()
        #expect(throws: RenderPassError.usedAfterSubmit(operation: "add(_:)")) { try pass.add(Quad(rect, paint: .solid(.red))) }
        #expect(throws: RenderPassError.usedAfterSubmit(operation: "pushClip(_:)")) { try pass.pushClip(rect) }
        #expect(throws: RenderPassError.usedAfterSubmit(operation: "addSolid")) {
            try pass.addSolid(.red, in: rect, transform: .identity, isOpaque: true)
        }
        pass.clear(.red)          // nothing on a submitted pass
        pass.submit()             // nothing either
        #expect(try target.readPixels()[8, 8] == RGBAPixel(r: 255, g: 255, b: 255, a: 255))

        let texture = try device.makeTexture(pixelSize: PixelSize(width: 2, height: 2), byteOrder: .bgrx)
        pass = try device.beginRenderPass(on: target, clear: nil)
        #expect(throws: RenderPassError.unreadableChannels(stored: .bgrx, requested: .rgba)) {
            try pass.add(Quad(rect, paint: .texture(texture, channels: .rgba)))
        }
        texture.release()
        #expect(throws: RenderPassError.releasedTexture) { try pass.add(Quad(rect, paint: .texture(texture))) }
        pass.submit()

        let other = try GPUDevice()
        defer { other.close() }
        let foreign = try OffscreenTarget(device: other, size: Size(width: 4, height: 4))
        #expect(throws: GPUError.self) { _ = try device.beginRenderPass(on: foreign) }

        // The device still draws.
        pass = try device.beginRenderPass(on: target, clear: .white)
        try pass.pushClip(Rect(x: 0, y: 0, width: 8, height: 16))
        try pass.fill(rect, color: .blue)
        try pass.popClip(Rect(x: 0, y: 0, width: 8, height: 16))
        pass.submit()
        let image = try target.readPixels()
        #expect(image[4, 8] == RGBAPixel(r: 0, g: 0, b: 255, a: 255) && image[12, 8] == RGBAPixel(r: 255, g: 255, b: 255, a: 255))
    }

    @Test("cut planes: a quad is drawn only where every half-plane of its local points holds")
    func cutPlanes() throws {
        let device = try GPUDevice()
        defer { device.close() }
        let target = try OffscreenTarget(device: device, size: Size(width: 32, height: 32))
        let pass = try device.beginRenderPass(on: target, clear: .white)
        // x ≥ 8 and y ≤ 24 − x/2… as half-planes: x − 8 ≥ 0, −x/2 − y + 24 ≥ 0.
        pass.cutPlanes = [HalfPlane(a: 1, b: 0, c: -8), HalfPlane(a: -0.5, b: -1, c: 24)]
        try pass.fill(Rect(x: 0, y: 0, width: 32, height: 32), color: .red)
        pass.cutPlanes = [HalfPlane(a: 0, b: 0, c: -1)]      // nowhere
        try pass.fill(Rect(x: 0, y: 0, width: 32, height: 32), color: .blue)
        pass.submit()
        let image = try target.readPixels()
        var wrong = 0
        for y in 0..<32 { for x in 0..<32 {
            let cx = Double(x) + 0.5, cy = Double(y) + 0.5
            let inside = cx - 8 >= 0 && -0.5 * cx - cy + 24 >= 0
            let margin = min(abs(cx - 8), abs(-0.5 * cx - cy + 24))
            guard margin > 1 else { continue }
            if image[x, y] != (inside ? RGBAPixel(r: 255, g: 0, b: 0, a: 255) : RGBAPixel(r: 255, g: 255, b: 255, a: 255)) { wrong += 1 }
        } }
        #expect(wrong == 0)
    }
}

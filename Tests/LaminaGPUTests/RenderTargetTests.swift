import Foundation
import LaminaGeometry
import LaminaValues
import LaminaTestSupport
import Testing
@testable import LaminaGPU

@Suite("Render targets, draws and readback")
struct RenderTargetTests {
    @Test("clearing a target gives exact pixels everywhere")
    func clear() throws {
        let d = try openDevice()
        let t = try OffscreenTarget(device: d, size: Size(width: 33, height: 17))
        try d.beginRenderPass(on: t, clear: Color(r8: 10, g8: 200, b8: 30)).submit()
        let image = try t.readPixels()
        #expect(image.width == 33 && image.height == 17)
        #expect(image.mismatches { _, _ in px(10, 200, 30) }.isEmpty)
    }

    @Test("a translucent clear reads back premultiplied")
    func premultipliedClear() throws {
        let d = try openDevice()
        let t = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 4, height: 4))
        try d.beginRenderPass(on: t, clear: Color(red: 1, green: 0.5, blue: 0, alpha: 0.5)).submit()
        #expect(try t.readPixels()[2, 2].maxChannelDifference(px(128, 64, 0, 128)) <= 1)
    }

    /// 100×80 px blue, with a red quad at points (20, 10, 40×30) at scale `scale`.
    private func quadScene(scale: Double) throws -> RGBAImage {
        let d = try openDevice()
        let t = try OffscreenTarget(device: d, size: Size(width: 100 / scale, height: 80 / scale), scale: scale)
        #expect(t.pixelSize == PixelSize(width: 100, height: 80))
        let pass = try d.beginRenderPass(on: t, clear: .blue)
        try pass.fill(Rect(x: 20 / scale, y: 10 / scale, width: 40 / scale, height: 30 / scale), color: .red)
        pass.submit()
        #expect(pass.drawCalls == 1)
        return try t.readPixels()
    }

    @Test("a quad drawn with the embedded shaders covers exactly its pixels (inside, outside, edges)", arguments: [1.0, 2.0])
    func quadPixels(scale: Double) throws {
        let image = try quadScene(scale: scale)
        let red = px(255, 0, 0), blue = px(0, 0, 255)
        // Every pixel: red iff its centre is inside the quad (pixels 20..<60 × 10..<40).
        let wrong = image.mismatches { x, y in (20..<60).contains(x) && (10..<40).contains(y) ? red : blue }
        #expect(wrong.isEmpty, "\(wrong)")
        // The edges, spelled out: first and last pixel inside, first pixel outside.
        #expect(image[20, 10] == red && image[59, 39] == red)
        #expect(image[19, 10] == blue && image[60, 10] == blue && image[20, 9] == blue && image[20, 40] == blue)
    }

    @Test("a texture is drawn upright: its top-left texel lands top-left (nearest filtering)")
    func textureOrientation() throws {
        let d = try openDevice()
        var source = RGBAImage(width: 2, height: 2)
        source[0, 0] = px(255, 0, 0); source[1, 0] = px(0, 255, 0)
        source[0, 1] = px(0, 0, 255); source[1, 1] = px(255, 255, 255)
        let texture = try d.makeTexture(pixelSize: source.pixelSize, pixels: source)
        let t = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 40, height: 40))
        let pass = try d.beginRenderPass(on: t, clear: .black)
        try pass.draw(texture, in: Rect(x: 0, y: 0, width: 40, height: 40), minFilter: .nearest, magFilter: .nearest)
        pass.submit()
        let image = try t.readPixels()
        let wrong = image.mismatches { x, y in source[x / 20, y / 20] }
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test("a source rectangle selects part of the texture")
    func sourceRect() throws {
        let d = try openDevice()
        var source = RGBAImage(width: 2, height: 2, fill: px(0, 0, 0))
        source[1, 1] = px(0, 255, 0)
        let texture = try d.makeTexture(pixelSize: source.pixelSize, pixels: source)
        let t = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 8, height: 8))
        let pass = try d.beginRenderPass(on: t, clear: .black)
        try pass.draw(texture, in: Rect(x: 0, y: 0, width: 8, height: 8),
                      sourceRect: Rect(x: 0.5, y: 0.5, width: 0.5, height: 0.5), minFilter: .nearest, magFilter: .nearest)
        pass.submit()
        #expect(try t.readPixels().mismatches { _, _ in px(0, 255, 0) }.isEmpty)
    }

    @Test("a BGRA texture (Cairo's byte order) is swizzled by the GPU, not converted")
    func bgraTexture() throws {
        let d = try openDevice()
        let texture = try d.makeTexture(pixelSize: PixelSize(width: 1, height: 1), byteOrder: .bgra)
        let bgra: [UInt8] = [200, 100, 50, 255]   // B, G, R, A
        try bgra.withUnsafeBytes { _ = try texture.upload($0, bytesPerRow: 4) }
        let t = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 3, height: 3))
        let pass = try d.beginRenderPass(on: t, clear: .black)
        try pass.draw(texture, in: Rect(x: 0, y: 0, width: 3, height: 3))
        pass.submit()
        #expect(try t.readPixels()[1, 1] == px(50, 100, 200))
    }

    @Test("blending is premultiplied source-over; alpha fades textures")
    func blending() throws {
        let d = try openDevice()
        let white = try d.makeTexture(pixelSize: PixelSize(width: 1, height: 1), pixels: RGBAImage(width: 1, height: 1, fill: px(255, 255, 255)))
        let t = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 4, height: 2))
        let pass = try d.beginRenderPass(on: t, clear: .black)
        try pass.draw(white, in: Rect(x: 0, y: 0, width: 2, height: 2), alpha: 0.5)
        try pass.fill(Rect(x: 2, y: 0, width: 2, height: 2), color: Color(red: 1, green: 0, blue: 0, alpha: 0.25))
        pass.submit()
        let image = try t.readPixels()
        #expect(image[0, 0].maxChannelDifference(px(128, 128, 128)) <= 1)
        #expect(image[3, 1].maxChannelDifference(px(64, 0, 0)) <= 1)
    }

    @Test("a transform rotates a quad about a point (90° clockwise on screen)")
    func transform() throws {
        let d = try openDevice()
        let t = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 40, height: 40))
        // A 20×4 bar centred at (20, 20), rotated 90° about its centre: becomes 4×20.
        let spin = Transform3D(translationX: -20, y: -20)
            .concatenating(Transform3D(rotationAngle: .pi / 2, x: 0, y: 0, z: 1))
            .concatenating(Transform3D(translationX: 20, y: 20))
        let pass = try d.beginRenderPass(on: t, clear: .black)
        try pass.fill(Rect(x: 10, y: 18, width: 20, height: 4), color: .white, transform: spin)
        pass.submit()
        let image = try t.readPixels()
        let wrong = image.mismatches({ x, y in
            (18..<22).contains(x) && (10..<30).contains(y) ? px(255, 255, 255) : px(0, 0, 0)
        })
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test("readPixels of a region equals that part of the full readback")
    func regionReadback() throws {
        let d = try openDevice()
        let t = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 64, height: 48))
        try TestPattern.draw(on: t)
        let full = try t.readPixels()
        let region = PixelRect(x: 5, y: 30, width: 20, height: 11)
        let part = try t.readPixels(region)
        #expect(part.mismatches { x, y in full[x + region.x, y + region.y] }.isEmpty)
    }

    @Test("a partial upload changes only its rectangle and counts only its bytes")
    func partialUpload() throws {
        let d = try openDevice()
        let texture = try d.makeTexture(pixelSize: PixelSize(width: 16, height: 16), pixels: RGBAImage(width: 16, height: 16, fill: px(0, 0, 255)))
        let before = d.uploadedBytes
        let patch = RGBAImage(width: 5, height: 3, fill: px(255, 255, 0))
        let n = try patch.bytes.withUnsafeBytes { try texture.upload($0, bytesPerRow: 20, region: PixelRect(x: 4, y: 6, width: 5, height: 3)) }
        #expect(n == 5 * 3 * 4)
        #expect(d.uploadedBytes - before == 60)
        let t = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 16, height: 16))
        let pass = try d.beginRenderPass(on: t, clear: .black)
        try pass.draw(texture, in: Rect(x: 0, y: 0, width: 16, height: 16), minFilter: .nearest, magFilter: .nearest)
        pass.submit()
        let wrong = try t.readPixels().mismatches { x, y in
            (4..<9).contains(x) && (6..<9).contains(y) ? px(255, 255, 0) : px(0, 0, 255)
        }
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test("the test pattern shows its markers and bars where documented")
    func testPattern() throws {
        let d = try openDevice()
        let t = try OffscreenTarget(device: d, size: Size(width: 160, height: 96), scale: 2)
        let calls = try TestPattern.draw(on: t)
        #expect(calls == 4)   // 15 quads: 8 bars | checker | ramp | rotated square + 4 markers
        let image = try t.readPixels()
        #expect(image.width == 320 && image.height == 192)
        #expect(image[1, 1] == px(255, 0, 0))            // top-left marker
        #expect(image[318, 1] == px(0, 255, 0))          // top-right
        #expect(image[1, 190] == px(0, 0, 255))          // bottom-left
        #expect(image[318, 190] == px(255, 255, 255))    // bottom-right
        // Bars: 8 across 320 px, top two thirds; sample each bar's centre.
        for (i, color) in TestPattern.barColors.enumerated() {
            #expect(image[i * 40 + 20, 60] == color.premultipliedPixel, "bar \(i)")
        }
    }

    @Test("targets larger than the device maximum, or empty, throw clear errors")
    func sizeLimits() throws {
        let d = try openDevice()
        let maximum = d.capabilities.maxRenderTargetSize
        #expect(throws: GPUError.tooLarge(what: "render target", size: PixelSize(width: maximum + 1, height: 8), maximum: maximum)) {
            _ = try OffscreenTarget(device: d, pixelSize: PixelSize(width: maximum + 1, height: 8))
        }
        // Points × scale is what counts.
        #expect(throws: GPUError.self) {
            _ = try OffscreenTarget(device: d, size: Size(width: Double(maximum), height: 10), scale: 2)
        }
        #expect(throws: GPUError.invalidSize(what: "render target", size: PixelSize(width: 0, height: 10))) {
            _ = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 0, height: 10))
        }
        #expect(throws: GPUError.tooLarge(what: "texture", size: PixelSize(width: 1, height: d.capabilities.maxTextureSize + 1), maximum: d.capabilities.maxTextureSize)) {
            _ = try d.makeTexture(pixelSize: PixelSize(width: 1, height: d.capabilities.maxTextureSize + 1))
        }
        let message = GPUError.tooLarge(what: "render target", size: PixelSize(width: maximum + 1, height: 8), maximum: maximum).description
        #expect(message.contains("\(maximum)") && message.contains("smaller"))
        // A huge size is reported as computed, not clamped (1e308 is not "1000000000").
        do {
            _ = try OffscreenTarget(device: d, size: Size(width: 1e308, height: 10), scale: 1)
            Issue.record("no error")
        } catch {
            let text = "\(error)"
            #expect(text.contains("1e+308") && !text.contains("1000000000"), "\(text)")
        }
        // Sizes and scales that are not finite and positive throw too, never trap.
        for (size, scale) in [(Size(width: .infinity, height: 10), 1.0), (Size(width: 10, height: .nan), 1.0),
                              (Size(width: 1e300, height: 1), 1e10), (Size(width: 10, height: 10), 0.0),
                              (Size(width: -5, height: 10), 1.0)] {
            #expect(throws: GPUError.self) { _ = try OffscreenTarget(device: d, size: size, scale: scale) }
        }
    }

    @Test("scales whose derived sizes are not representable are refused by every target initializer")
    func scaleLimits() throws {
        let d = try openDevice()
        let pixels = PixelSize(width: 200, height: 150)
        // 200 pixels at 1e-308 would be 2e310 points (infinitely) wide: the first composite trapped.
        for scale in [1e-308, .leastNonzeroMagnitude, -.leastNormalMagnitude, 0, 1e38, .infinity, .nan, 1.0 / 8192, 8192] {
            #expect(throws: GPUError.invalidArgument(operation: "OffscreenTarget", reason: PixelScale.requirement(got: scale))) {
                _ = try OffscreenTarget(device: d, pixelSize: pixels, scale: scale)
            }
            let texture = try d.makeTexture(pixelSize: pixels)
            defer { texture.release() }
            let reason = PixelScale.requirement(got: scale)
            #expect(throws: GPUError.invalidArgument(operation: "OffscreenTarget", reason: reason)) {
                _ = try OffscreenTarget(device: d, texture: texture, scale: scale)
            }
            #expect(throws: GPUError.invalidArgument(operation: "ExternalFramebufferTarget", reason: reason)) {
                _ = try ExternalFramebufferTarget(device: d, framebuffer: 0, pixelSize: pixels, scale: scale)
            }
            #expect(throws: GPUError.invalidArgument(operation: "render target", reason: reason)) {
                _ = try OffscreenTarget(device: d, size: Size(width: 200, height: 150), scale: scale)
            }
        }
        // The ends of the range are accepted, and a frame renders.
        for scale in [PixelScale.range.lowerBound, 1, PixelScale.range.upperBound] {
            let t = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 8, height: 8), scale: scale)
            #expect(t.size.width.isFinite && t.size.width > 0)
            t.release()
        }
    }

    @Test("a GBM target on a device of another backend throws naming both backends")
    func gbmTargetNeedsGBM() throws {
        let d = try openDevice(.only(.surfaceless))
        #expect(throws: GPUError.wrongBackend(operation: "a GBM-backed render target", required: .gbm, actual: .surfaceless)) {
            _ = try GBMTarget(device: d, pixelSize: PixelSize(width: 8, height: 8))
        }
    }

    @Test("a target rasterizes the same quads the same way before and after its first clip (its depth/stencil buffer is there from the start)")
    func sameEdgesBeforeAndAfterFirstClip() throws {
        let d = try openDevice()
        let size = Size(width: 160, height: 120)
        // Rotated quads, drawn last to first; the first one's left edge passes within 0.0011 px of the centre of
        // pixel (73, 112) — on llvmpipe a target without a depth/stencil buffer did not
        // cover it, one with (after a clip had needed it) did (damage fuzz seed 35).
        var quads: [(Rect, Transform3D)] = [(Rect(x: 0, y: 0, width: 45.010752000000004, height: 71.32830399999999),
                                             Transform3D(m11: 0.8588424166221902, m12: -0.5122398885391065, m13: 0, m14: 0, m21: 0.5122398885391065, m22: 0.8588424166221902, m23: 0, m24: 0,
                                                         m31: 0, m32: 0, m33: 0, m34: 0, m41: 60.98050724384721, m42: 91.50716880330957, m43: 0, m44: 1))]
        var random = SplitMix64(seed: 7)
        for _ in 0..<200 {
            let t = Transform3D(rotationAngle: Double.random(in: 0..<6.3, using: &random), x: 0, y: 0, z: 1)
                .concatenating(Transform3D(translationX: Double.random(in: 0..<160, using: &random), y: Double.random(in: 0..<120, using: &random), z: 0))
            quads.append((Rect(x: 0, y: 0, width: Double.random(in: 2..<40, using: &random), height: Double.random(in: 2..<40, using: &random)), t))
        }
        func draw(into target: OffscreenTarget) throws -> RGBAImage {
            let pass = try d.beginRenderPass(on: target, clear: .white)
            for (i, (rect, t)) in quads.enumerated().reversed() {
                try pass.addSolid(Color(red: Double(i % 7) / 7, green: Double(i % 3) / 3, blue: 0.5), in: rect, transform: t, isOpaque: true)
            }
            pass.submit()
            return try target.readPixels()
        }
        let fresh = try OffscreenTarget(device: d, size: size)
        #expect(fresh.ownedFramebuffer?.stencil != nil, "made with its depth/stencil buffer")
        let before = try draw(into: fresh)
        // A clip in a pass of its own (the stencil is needed from here on).
        let clipping = try d.beginRenderPass(on: fresh, clear: .white)
        try clipping.pushClip(Rect(x: 10, y: 10, width: 20, height: 20), cornerRadius: 4)
        try clipping.addSolid(.black, in: Rect(x: 0, y: 0, width: 40, height: 40), transform: .identity, isOpaque: true)
        try clipping.popClip(Rect(x: 10, y: 10, width: 20, height: 20), cornerRadius: 4)
        clipping.submit()
        let after = try draw(into: fresh)
        let d1 = after.difference(from: before, tolerance: 0)
        #expect(d1.differing == 0, "the same quads drawn after the target's first clip differ in \(d1.differing) pixels")
        #expect(before[73, 112] == after[73, 112], "\(before[73, 112]) vs \(after[73, 112])")
        // …and a second target, never clipped, draws them as the first did.
        let other = try OffscreenTarget(device: d, size: size)
        let d2 = try draw(into: other).difference(from: before, tolerance: 0)
        #expect(d2.differing == 0, "a second target differs in \(d2.differing) pixels")
        fresh.release()
        other.release()
    }
}

import Testing
import LaminaGeometry
import LaminaTestSupport
@testable import LaminaGPU

/// `RenderPass.pushScissorClip`: an axis-aligned rectangle clipped by the scissor keeps
/// exactly the pixels a stencil clip (`pushClip`) of the same rectangle keeps, on every kind
/// of target, so that a compositor may draw either and a target drawn in part matches one
/// drawn whole.
@Suite("Scissor clips")
struct ScissorClipTests {
    /// Rectangles with edges on whole, half and quarter pixels and anywhere between, some
    /// reaching past the target, some empty or negative in size.
    static func rectangles(count: Int, in size: Size, seed: UInt64) -> [Rect] {
        var random = SplitMix64(seed: seed)
        var out: [Rect] = [Rect(x: 10.5, y: 7.5, width: 20, height: 11), Rect(x: 3.25, y: 4.75, width: 0.5, height: 9.5),
                           Rect(x: -5, y: -5, width: 30, height: 30), Rect(x: 40, y: 30, width: 0, height: 10),
                           Rect(x: 50, y: 40, width: -12.5, height: -7.5)]
        while out.count < count {
            func edge(_ limit: Double) -> Double {
                switch Int.random(in: 0..<4, using: &random) {
                case 0: return Double(Int.random(in: -4...Int(limit) + 4, using: &random))
                case 1: return Double(Int.random(in: -4...Int(limit) + 4, using: &random)) + 0.5
                case 2: return Double(Int.random(in: -16...Int(limit * 4) + 16, using: &random)) / 4
                default: return Double.random(in: -4...limit + 4, using: &random)
                }
            }
            let x0 = edge(size.width), x1 = edge(size.width), y0 = edge(size.height), y1 = edge(size.height)
            out.append(Rect(x: min(x0, x1), y: min(y0, y1), width: abs(x1 - x0), height: abs(y1 - y0)))
        }
        return out
    }

    /// Draws, on `target`, a red fill of everything inside a clip of `rect` (by the scissor
    /// or the stencil), over white, optionally inside a damage scissor.
    static func clipped(_ rect: Rect, transform: Transform3D = .identity, scissor: Bool, damage: PixelRect?,
                        on target: RenderTarget) throws -> RGBAImage {
        let d = target.device
        let pass = try d.beginRenderPass(on: target, clear: .white)
        if let damage { try pass.setScissor(damage) }
        let all = Rect(x: -10, y: -10, width: target.size.width + 20, height: target.size.height + 20)
        if scissor { try pass.pushScissorClip(rect, transform: transform) } else { try pass.pushClip(rect, transform: transform) }
        try pass.fill(all, color: .red)
        if scissor { try pass.popScissorClip() } else { try pass.popClip(rect, transform: transform) }
        // Drawn after the clip: not clipped.
        try pass.fill(Rect(x: 0, y: 0, width: 3, height: 3), color: .blue)
        pass.submit()
        return try target.readPixels()
    }

    @Test("a scissor clip keeps exactly the pixels a stencil clip of the same rectangle keeps: 1x and 1.5x targets, a translated rectangle, a damage scissor, a panel of a bottom-row-first framebuffer")
    func sameCoverageAsStencil() throws {
        let d = try openDevice()
        let size = Size(width: 64, height: 48)
        var checked = 0
        for scale in [1.0, 1.5] {
            let target = try OffscreenTarget(device: d, size: size, scale: scale)
            defer { target.release() }
            // A panel of a framebuffer in GL's orientation (row 0 at the bottom).
            let backing = try OffscreenTarget(device: d, pixelSize: PixelSize(width: target.pixelSize.width + 11, height: target.pixelSize.height + 9))
            defer { backing.release() }
            let panel = try ExternalFramebufferTarget(device: d, framebuffer: backing.glFramebuffer, pixelSize: backing.pixelSize,
                                                      region: PixelRect(x: 7, y: 4, width: target.pixelSize.width, height: target.pixelSize.height),
                                                      scale: scale, bottomRowFirst: true)
            for (i, rect) in Self.rectangles(count: 60, in: size, seed: 11).enumerated() {
                let transform = i % 3 == 0 ? Transform3D(translationX: 0.3 * Double(i % 5), y: -0.6 * Double(i % 4), z: 0) : .identity
                // A pixel centre on an edge (within the rasterizer's 1/256): the stencil's
                // shader decides it by rounding, the scissor by its half-open rule (below).
                let edges = [rect.minX + transform.m41, rect.maxX + transform.m41, rect.minY + transform.m42, rect.maxY + transform.m42]
                if edges.contains(where: { abs(($0 * scale - 0.5) - ($0 * scale - 0.5).rounded()) < 1.0 / 128 }) { continue }
                let damage: PixelRect? = i % 4 == 1 ? PixelRect(x: 5, y: 9, width: 40, height: 23) : nil
                for t in [target as RenderTarget, panel] {
                    let byStencil = try Self.clipped(rect, transform: transform, scissor: false, damage: damage, on: t)
                    let byScissor = try Self.clipped(rect, transform: transform, scissor: true, damage: damage, on: t)
                    let diff = byScissor.difference(from: byStencil, tolerance: 0)
                    #expect(diff.differing == 0, "\(rect) under \(transform.m41), \(transform.m42) at \(scale)x, damage \(String(describing: damage)), \(t is ExternalFramebufferTarget ? "panel" : "offscreen"): \(diff.differing) pixels differ")
                    checked += 1
                }
            }
        }
        #expect(checked >= 120, "\(checked) comparisons")
    }

    @Test("a pixel centre on an edge of a scissor clip: kept on the left and top edges, not on the right and bottom ones, on targets of either orientation and scale")
    func halfOpenEdges() throws {
        let d = try openDevice()
        for scale in [1.0, 2.0] {
            let target = try OffscreenTarget(device: d, size: Size(width: 40, height: 30), scale: scale)
            defer { target.release() }
            let backing = try OffscreenTarget(device: d, pixelSize: target.pixelSize)
            defer { backing.release() }
            let window = try ExternalFramebufferTarget(device: d, framebuffer: backing.glFramebuffer, pixelSize: backing.pixelSize,
                                                       scale: scale, bottomRowFirst: true)
            // Edges through pixel centres: x 10.5…30.5 and y 7.5…18.5 pixels.
            let rect = Rect(x: 10.5 / scale, y: 7.5 / scale, width: 20 / scale, height: 11 / scale)
            for t in [target as RenderTarget, window] {
                let image = try Self.clipped(rect, scissor: true, damage: nil, on: t)
                var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
                for y in 0..<image.height {
                    for x in 0..<image.width where image[x, y] == RGBAPixel(r: 255, g: 0, b: 0, a: 255) {
                        minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
                    }
                }
                #expect([minX, maxX, minY, maxY] == [10, 29, 7, 17], "\(scale)x, \(t is ExternalFramebufferTarget ? "row 0 at the bottom" : "row 0 at the top")")
            }
        }
    }

    @Test("stencil clips nest inside a scissor clip, and a stencil cleared inside one is cleared again for the next clip outside it")
    func stencilInsideScissor() throws {
        let d = try openDevice()
        let target = try OffscreenTarget(device: d, size: Size(width: 80, height: 60))
        defer { target.release() }
        let outer = Rect(x: 5.5, y: 4, width: 40, height: 30), inner = Rect(x: 20, y: 10, width: 40, height: 40)
        let later = Rect(x: 50, y: 20, width: 25, height: 35)
        func draw(scissor: Bool) throws -> RGBAImage {
            let pass = try d.beginRenderPass(on: target, clear: .white)
            if scissor { try pass.pushScissorClip(outer) } else { try pass.pushClip(outer) }
            try pass.pushClip(inner, cornerRadius: 9)
            try pass.fill(Rect(x: 0, y: 0, width: 80, height: 60), color: .red)
            try pass.popClip(inner, cornerRadius: 9)
            try pass.fill(Rect(x: 0, y: 0, width: 15, height: 60), color: .green)
            if scissor { try pass.popScissorClip() } else { try pass.popClip(outer) }
            // Outside the scissor clip: the stencil there was never cleared by the first push.
            try pass.pushClip(later, cornerRadius: 6)
            try pass.fill(Rect(x: 0, y: 0, width: 80, height: 60), color: .blue)
            try pass.popClip(later, cornerRadius: 6)
            pass.submit()
            return try target.readPixels()
        }
        let byStencil = try draw(scissor: false), byScissor = try draw(scissor: true)
        #expect(byScissor.difference(from: byStencil, tolerance: 0).differing == 0)
        #expect(byScissor[70, 50] == RGBAPixel(r: 0, g: 0, b: 255, a: 255), "the later clip drew")
        #expect(byScissor[30, 20] == RGBAPixel(r: 255, g: 0, b: 0, a: 255), "inside both clips")
        #expect(byScissor[10, 20] == RGBAPixel(r: 0, g: 255, b: 0, a: 255), "inside the scissor clip only")
        #expect(byScissor[10, 45] == RGBAPixel(r: 255, g: 255, b: 255, a: 255), "outside every clip")
    }

    @Test("misuse: a scissor clip inside a stencil clip, a pop without a push, a new scissor while one is open — each a thrown error")
    func misuse() throws {
        let d = try openDevice()
        let target = try OffscreenTarget(device: d, size: Size(width: 16, height: 16))
        defer { target.release() }
        let pass = try d.beginRenderPass(on: target, clear: .white)
        #expect(throws: RenderPassError.popClipWithoutPush) { try pass.popScissorClip() }
        try pass.pushClip(Rect(x: 0, y: 0, width: 8, height: 8))
        #expect(throws: RenderPassError.scissorClipNotOutermost) { try pass.pushScissorClip(Rect(x: 0, y: 0, width: 4, height: 4)) }
        try pass.popClip(Rect(x: 0, y: 0, width: 8, height: 8))
        try pass.pushScissorClip(Rect(x: 0, y: 0, width: 4, height: 4))
        #expect(throws: RenderPassError.scissorClipNotOutermost) { try pass.pushScissorClip(Rect(x: 0, y: 0, width: 2, height: 2)) }
        #expect(throws: RenderPassError.clipOpenAtScissorChange) { try pass.setScissor(nil) }
        try pass.popScissorClip()
        pass.submit()
        #expect(throws: RenderPassError.usedAfterSubmit(operation: "pushScissorClip")) { try pass.pushScissorClip(.zero) }
        #expect(RenderPassError.scissorClipNotOutermost.description.contains("outermost"))
    }
}

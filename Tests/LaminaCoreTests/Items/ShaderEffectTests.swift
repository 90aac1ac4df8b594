import Foundation
import LaminaGeometry
import LaminaGPU
import Testing
@testable import LaminaCore
@testable import LaminaModel
@testable import LaminaRender
@testable import LaminaValues
import LaminaTestSupport

/// 64×64: red rising along x (4 per pixel), green along y.
private func ramp() -> RGBAImage {
    var image = RGBAImage(width: 64, height: 64)
    for y in 0..<64 { for x in 0..<64 { image[x, y] = px(UInt8(x * 4), UInt8(y * 4), 0) } }
    return image
}

private let pixelate = """
    #version 300 es
    precision highp float;
    in vec2 lamina_uv;
    uniform float cells;
    out vec4 o;
    void main() { o = lamina_sample((floor(lamina_uv * cells) + 0.5) / cells); }
    """

private let shift = """
    #version 300 es
    precision highp float;
    in vec2 lamina_uv;
    uniform vec2 shift;
    out vec4 o;
    void main() { o = lamina_sample(lamina_uv - shift); }
    """

@MainActor
@Suite("Shader effects (Layer.shaderEffect)", .isolatedTransactions, .withoutImplicitAnimations)
struct ShaderEffectTests {
    @Test("pixelate over a layer and its sublayer as one image equals the CPU's (2 levels)")
    func pixelateMatchesCPU() throws {
        let root = rootLayer(width: 100, height: 100)
        let layer = Layer()
        layer.frame = Rect(x: 10, y: 20, width: 64, height: 64)
        layer.contents = .image(ContentImage(ramp()))
        // A sublayer hiding the bottom-right quarter: part of the image the shader reads.
        layer.addSublayer(solid(Rect(x: 32, y: 32, width: 32, height: 32), .blue))
        layer.shaderEffect = ShaderEffect(fragmentShader: pixelate, uniforms: ["cells": .float(8)])
        root.addSublayer(layer)
        let (image, _) = try render(root, width: 100, height: 100, background: .white)
        let bad = image.mismatches(tolerance: 2) { x, y in
            let lx = x - 10, ly = y - 20
            guard (0..<64).contains(lx), (0..<64).contains(ly) else { return white }
            let bx = lx / 8, by = ly / 8
            if bx >= 4 && by >= 4 { return blue }
            // The cell's centre falls between texels 8b+3 and 8b+4: their mean (linear filtering).
            let r = 4 * (8 * Double(bx) + 3.5), g = 4 * (8 * Double(by) + 3.5)
            // Cells next to the blue square mix it in along the edge they share.
            if bx == 3 && by >= 4 || by == 3 && bx >= 4 || bx == 3 && by == 3 { return nil }
            return px(UInt8(r.rounded()), UInt8(g.rounded()), 0)
        }
        #expect(bad.isEmpty, "\(bad)")
    }

    @Test("maxSampleOffset: the image is drawn into its margin (a shift to the right shows past the layer's edge); without it, it is cut")
    func marginGrows() throws {
        func render(margin: Double) throws -> RGBAImage {
            let root = rootLayer(width: 120, height: 80)
            let layer = solid(Rect(x: 20, y: 10, width: 64, height: 64), .red)
            layer.shaderEffect = ShaderEffect(fragmentShader: shift, uniforms: ["shift": .vec2(10.0 / 64, 0)],
                                              maxSampleOffset: Size(width: margin, height: margin))
            root.addSublayer(layer)
            return try LaminaCoreTests.render(root, width: 120, height: 80, background: .white).image
        }
        let wide = try render(margin: 12)
        #expect(wide[25, 40] == white, "the left 10 points are empty: \(wide[25, 40])")
        #expect(wide[50, 40] == red)
        #expect(wide[90, 40] == red, "drawn in the margin past the layer's right edge (84): \(wide[90, 40])")
        #expect(wide[97, 40] == white)
        let cut = try render(margin: 0)
        #expect(cut[90, 40] == white, "no margin: nothing past the edge")
        #expect(cut[80, 40] == red)
    }

    @Test("an animated effect uniform at fixed media times equals still frames with those values")
    func animatedUniform() throws {
        let s = try AnimationStage(); defer { s.close() }
        let layer = solid(Rect(x: 20, y: 20, width: 64, height: 64), .red)
        layer.shaderEffect = ShaderEffect(fragmentShader: shift, uniforms: ["shift": .vec2(0, 0)], maxSampleOffset: Size(width: 32, height: 32))
        s.root.addSublayer(layer)
        try s.frame(at: 0)
        var a = BasicAnimation(keyPath: "shaderEffect.uniforms.shift")
        a.fromValue = .shader(.vec2(0, 0)); a.toValue = .shader(.vec2(0.5, 0.25)); a.duration = 1; a.timingFunction = .linear
        layer.add(a, forKey: "move")
        try s.frame(at: 0)
        for t in [0.3, 0.8] {
            let animated = try s.frame(at: t)
            let still = rootLayer()
            let stillLayer = solid(layer.frame, .red)
            stillLayer.shaderEffect = ShaderEffect(fragmentShader: shift, uniforms: ["shift": .vec2(0.5 * t, 0.25 * t)],
                                                   maxSampleOffset: Size(width: 32, height: 32))
            still.addSublayer(stillLayer)
            let (expected, _) = try render(still, background: .white)
            let d = animated.difference(from: expected, tolerance: 0)
            #expect(d.differing == 0, "t = \(t): \(d)")
            // The square moved by 32·t points right.
            #expect(animated[20 + Int(32 * t) + 2, 50] == red && animated[20 + Int(32 * t) - 2, 50] == white, "t = \(t)")
        }
    }

    @Test("a shader effect that does not compile fails the frame, naming the layer and the line")
    func compileError() throws {
        let root = rootLayer()
        let layer = solid(Rect(x: 0, y: 0, width: 20, height: 20), .red)
        layer.name = "card"
        layer.shaderEffect = ShaderEffect(fragmentShader: "#version 300 es\nprecision highp float;\nout vec4 o;\nvoid main() { o = lamina_sample(nowhere); }\n")
        root.addSublayer(layer)
        do {
            _ = try render(root)
            Issue.record("no error")
        } catch let e as ShaderLayerError {
            let text = "\(e)"
            #expect(text.contains("shader effect of layer 'card'"), "\(text)")
            #expect(text.contains(">    4 | "), "the line, numbered as in the source: \(text)")
        }
    }
}

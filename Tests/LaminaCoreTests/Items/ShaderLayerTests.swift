import Foundation
import LaminaGeometry
import LaminaGPU
import Testing
@testable import LaminaCore
@testable import LaminaModel
@testable import LaminaRender
@testable import LaminaValues
import LaminaTestSupport

private let uvGradient = """
    #version 300 es
    precision highp float;
    in vec2 lamina_uv;
    out vec4 color;
    void main() { color = vec4(lamina_uv.x, lamina_uv.y, 0.0, 1.0); }
    """

/// A band of `tint` (premultiplied by its alpha) left of `progress` along x, transparent after.
private let progressBar = """
    #version 300 es
    precision highp float;
    in vec2 lamina_uv;
    uniform float progress;
    uniform vec4 tint;
    out vec4 fragColor;
    void main() {
        fragColor = lamina_uv.x < progress ? vec4(tint.rgb * tint.a, tint.a) : vec4(0.0);
    }
    """

@MainActor
@Suite("Shader layers (ShaderLayer)", .isolatedTransactions, .withoutImplicitAnimations)
struct ShaderLayerTests {
    @Test("a gradient over lamina_uv equals the CPU's (1 level), at contentsScale 2; opacity multiplies it")
    func uvGradientMatchesCPU() throws {
        let root = rootLayer(width: 64, height: 32)
        let shader = ShaderLayer(fragmentShader: uvGradient)
        shader.frame = Rect(x: 0, y: 0, width: 64, height: 32)
        root.addSublayer(shader)
        let (image, _) = try render(root, width: 64, height: 32, scale: 2, background: .black)
        let bad = image.mismatches(tolerance: 1) { x, y in
            px(UInt8(((Double(x) + 0.5) / 128 * 255).rounded()), UInt8(((Double(y) + 0.5) / 64 * 255).rounded()), 0)
        }
        #expect(bad.isEmpty, "\(bad)")
        shader.opacity = 0.5
        let (half, _) = try render(root, width: 64, height: 32, scale: 2, background: .black)
        let badHalf = half.mismatches(tolerance: 2) { x, y in
            px(UInt8(((Double(x) + 0.5) / 128 * 255 * 0.5).rounded()), UInt8(((Double(y) + 0.5) / 64 * 255 * 0.5).rounded()), 0)
        }
        #expect(badHalf.isEmpty, "\(badHalf)")
    }

    @Test("lamina_size is the bounds in pixels; uniforms reach the shader by name")
    func builtInsAndUniforms() throws {
        let root = rootLayer(width: 40, height: 20)
        let shader = ShaderLayer(fragmentShader: """
            #version 300 es
            precision highp float;
            uniform vec2 lamina_size;
            uniform vec4 tint;
            out vec4 o;
            void main() { o = lamina_size == vec2(80.0, 40.0) ? tint : vec4(1.0, 0.0, 0.0, 1.0); }
            """, uniforms: ["tint": .vec4(0, 0, 1, 1)])
        shader.frame = Rect(x: 0, y: 0, width: 40, height: 20)
        shader.contentsScale = 2
        root.addSublayer(shader)
        let (image, _) = try render(root, width: 40, height: 20, background: .white)
        #expect(image[20, 10] == blue)
    }

    @Test("an animated uniform at fixed media times equals still frames with those values; presentation() reads them")
    func animatedUniform() throws {
        let s = try AnimationStage(); defer { s.close() }
        let bar = ShaderLayer(fragmentShader: progressBar, uniforms: ["progress": .float(0), "tint": .color(.red)])
        bar.frame = Rect(x: 0, y: 0, width: 200, height: 40)
        s.root.addSublayer(bar)
        try s.frame(at: 0)
        var a = BasicAnimation(keyPath: "uniforms.progress")
        a.fromValue = .number(0); a.toValue = .number(1); a.duration = 1; a.timingFunction = .linear
        bar.add(a, forKey: "fill")
        try s.frame(at: 0)
        for t in [0.25, 0.6] {
            let animated = try s.frame(at: t)
            #expect(s.host.compositor.hasRunningAnimations)
            MediaClock.set(s.t0 + t)
            let presented: ShaderValue? = bar.presentation().uniforms["progress"]
            #expect(abs((presented?.components.first ?? -1) - t) < 1e-9, "\(String(describing: presented))")
            // The same picture from a still layer with that value.
            let still = rootLayer()
            let stillBar = ShaderLayer(fragmentShader: progressBar, uniforms: ["progress": .float(t), "tint": .color(.red)])
            stillBar.frame = bar.frame
            still.addSublayer(stillBar)
            let (expected, _) = try render(still, background: .white)
            let d = animated.difference(from: expected, tolerance: 0)
            #expect(d.differing == 0, "t = \(t): \(d)")
            // And at the right place: the edge at progress × 200 points.
            let edge = Int(t * 200)
            #expect(animated[edge - 2, 20] == red && animated[edge + 2, 20] == white, "t = \(t)")
        }
    }

    @Test("setting a uniform runs an implicit animation (uniforms.NAME is animatable)")
    func implicitAnimation() throws {
        let s = try AnimationStage(); defer { s.close() }
        let bar = ShaderLayer(fragmentShader: progressBar, uniforms: ["progress": .float(0), "tint": .color(.blue)])
        bar.frame = Rect(x: 0, y: 0, width: 200, height: 40)
        s.root.addSublayer(bar)
        try s.frame(at: 0)
        try Transaction.$taskDisablesActions.withValue(false) {
            Transaction.begin()
            Transaction.setAnimationDuration(1)
            Transaction.setAnimationTimingFunction(.linear)
            bar.setUniform("progress", .float(1))
            try Transaction.commit()
        }
        #expect(bar.animationKeys().contains("uniforms.progress"), "\(bar.animationKeys())")
        let image = try s.frame(at: 0.5)
        #expect(image[96, 20] == blue && image[104, 20] == white)
        #expect(bar.uniforms["progress"] == .float(1), "the model value is the new one")
    }

    @Test("isAnimating: drawn at every frame with lamina_time, the host kept compositing")
    func time() throws {
        let s = try AnimationStage(); defer { s.close() }
        let clock = ShaderLayer(fragmentShader: """
            #version 300 es
            precision highp float;
            uniform float lamina_time;
            out vec4 o;
            void main() { o = vec4(fract(lamina_time), 0.0, 0.0, 1.0); }
            """)
        clock.frame = Rect(x: 0, y: 0, width: 20, height: 20)
        clock.isAnimating = true
        s.root.addSublayer(clock)
        let a = try s.frame(at: 0.25)
        #expect(s.host.compositor.hasRunningAnimations)
        let b = try s.frame(at: 0.75)
        // t0 = 1000: fract(1000.25) = 0.25.
        #expect(abs(Int(a[10, 10].r) - 64) <= 1, "\(a[10, 10])")
        #expect(abs(Int(b[10, 10].r) - 191) <= 1, "\(b[10, 10])")
        clock.isAnimating = false
        try s.frame(at: 1)
        try s.frame(at: 1.1)
        #expect(!s.host.compositor.hasRunningAnimations)
    }

    @Test("a shader that does not compile fails the commit: the error names the layer and the offending line")
    func compileError() throws {
        let root = rootLayer()
        let broken = ShaderLayer(fragmentShader: """
            #version 300 es
            precision highp float;
            out vec4 o;
            void main() {
                o = vec4(undeclared_thing, 1.0);
            }
            """)
        broken.name = "ring"
        broken.frame = Rect(x: 0, y: 0, width: 20, height: 20)
        root.addSublayer(broken)
        do {
            _ = try render(root)
            Issue.record("rendering a broken shader did not throw")
        } catch let e as ShaderLayerError {
            let text = "\(e)"
            #expect(text.contains("'ring'"), "\(text)")
            #expect(text.contains("undeclared_thing"), "the log and the line: \(text)")
            #expect(text.contains(">    5 | "), "the offending line is marked: \(text)")
        }
    }
}

@MainActor
@Suite("Shader layers: a failing shader and the frames after it", .isolatedTransactions, .withoutImplicitAnimations)
struct ShaderLayerFailureTests {
    @Test("after a frame that failed on a shader (its pass left open), removing the layer lets the next frames draw")
    func recoversAfterFailure() throws {
        let device = try GPUDevice()
        let target = try OffscreenTarget(device: device, size: Size(width: 40, height: 40))
        let root = rootLayer(width: 40, height: 40)
        root.addSublayer(solid(Rect(x: 0, y: 0, width: 20, height: 20), .red))
        let broken = ShaderLayer(fragmentShader: "#version 300 es\nprecision highp float;\nout vec4 o;\nvoid main() { o = vec4(nope); }\n")
        broken.frame = Rect(x: 20, y: 20, width: 20, height: 20)
        root.addSublayer(broken)
        let host = LayerTreeHost(rootLayer: root, target: target, background: .white)
        defer { host.detach() }
        broken.name = "broken"
        do {
            try Transaction.flush()
            Issue.record("no error")
        } catch let e as CommitError {
            // The failure names the shader layer (not the host's root), with the log.
            let f = try #require(e.failures.first)
            #expect(f.phase == .composite && f.layer == "broken" && f.layerID == broken.id, "\(f)")
            #expect(f.message.contains("nope") && f.cause.error is ShaderLayerError, "\(f.message)")
        }
        broken.removeFromSuperlayer()
        try Transaction.flush()
        let image = try target.readPixels()
        #expect(image[10, 10] == red && image[30, 30] == white)
    }
}

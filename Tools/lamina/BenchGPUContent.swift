import CGLES
import Foundation
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import LaminaModel

/// E5 and E6 of `lamina bench` (issue #24's measurements): your own GPU code in Lamina
/// against the same work without Lamina's compositing around it.
extension EffectsBench {
    /// The GL of E5: a fragment-heavy full-drawable quad (a plasma of 24 sines per pixel),
    /// with a program and vertex array of its own made in the current context on first use.
    final class PlasmaGL: @unchecked Sendable {
        private var program: GLuint = 0
        private var vao: GLuint = 0
        private var timeLocation: GLint = -1
        private var frame: Float = 0

        func draw(width: Int32, height: Int32) {
            if program == 0 {
                func shader(_ type: Int32, _ source: String) -> GLuint {
                    let s = glCreateShader(GLenum(type))
                    source.withCString { c in var p: UnsafePointer<GLchar>? = c; glShaderSource(s, 1, &p, nil) }
                    glCompileShader(s)
                    return s
                }
                program = glCreateProgram()
                glAttachShader(program, shader(GL_VERTEX_SHADER, """
                    #version 300 es
                    out vec2 uv;
                    void main() {
                        vec2 p = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1));
                        uv = p; gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
                    }
                    """))
                glAttachShader(program, shader(GL_FRAGMENT_SHADER, """
                    #version 300 es
                    precision highp float;
                    in vec2 uv;
                    uniform float t;
                    out vec4 o;
                    void main() {
                        float v = 0.0;
                        for (int i = 0; i < 24; i++) { float k = float(i) * 0.37; v += sin(uv.x * (3.0 + k) + uv.y * (2.0 - k) + t * (1.0 + k * 0.1)); }
                        v /= 24.0;
                        o = vec4(0.5 + 0.5 * sin(v * 6.0), 0.5 + 0.5 * sin(v * 6.0 + 2.1), 0.5 + 0.5 * sin(v * 6.0 + 4.2), 1.0);
                    }
                    """))
                glLinkProgram(program)
                timeLocation = glGetUniformLocation(program, "t")
                glGenVertexArrays(1, &vao)
            }
            frame += 1
            glViewport(0, 0, width, height)
            glUseProgram(program)
            glUniform1f(timeLocation, frame * 0.05)
            glBindVertexArray(vao)
            glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
            glBindVertexArray(0)
        }
    }

    /// E5: a 512×512 GL layer redrawn every frame (setNeedsDisplay), composited in a tree,
    /// against the same GL drawn into a plain framebuffer of that size.
    func glLayer(id: String) throws -> Result {
        let side = 512.0
        let stage = try Stage(device: device, size: size)
        defer { stage.close() }
        let gl = GLLayer()
        gl.frame = Rect(x: 100, y: 100, width: side, height: side)
        let inLamina = PlasmaGL(), plain = PlasmaGL()
        gl.drawHandler = { d in inLamina.draw(width: Int32(d.pixelSize.width), height: Int32(d.pixelSize.height)) }
        stage.root.addSublayer(gl)
        try Transaction.flush()
        let framebuffer = try GLDrawableTarget(device: device, pixelSize: PixelSize(width: Int(side), height: Int(side)), options: GLDrawableOptions())
        defer { framebuffer.release() }
        var failure: Error?
        let (e, base) = try alternate({ _ in gl.setNeedsDisplay() }, { _ in
            do { try framebuffer.draw { _ in plain.draw(width: Int32(side), height: Int32(side)) } } catch { failure = error }
        })
        if let failure { throw failure }
        return Result(id: id, summary: "a \(Int(side))×\(Int(side)) GL layer (a plasma of 24 sines per pixel) redrawn every frame and composited",
                      baseline: "the same GL into a plain \(Int(side))×\(Int(side)) framebuffer (no compositing)", effect: e, base: base,
                      unit: "ms/frame", ratio: e / max(base, 1e-9),
                      note: "\(gl.drawCount) draws of the layer's GL; Lamina adds the state reset, one textured quad and the damaged region's composite")
    }

    /// E6: a shader effect (a ripple with maxSampleOffset 8) over a 512×512 group whose
    /// content moves every frame, against the same group composited plainly.
    func shaderEffect(id: String) throws -> Result {
        func build(_ stage: Stage, effect: Bool) -> Layer {
            let group = Layer()
            group.frame = Rect(x: 100, y: 100, width: 512, height: 512)
            group.backgroundColor = Color(red: 0.95, green: 0.95, blue: 1)
            group.opacity = 0.98   // a group in both (the baseline's by its opacity)
            for i in 0..<16 {
                let l = Layer()
                l.frame = Rect(x: Double(i % 4) * 120 + 16, y: Double(i / 4) * 120 + 16, width: 100, height: 100)
                l.backgroundColor = Color(red: Double(i % 4) / 4, green: 0.4, blue: Double(i / 4) / 4)
                l.cornerRadius = 16
                group.addSublayer(l)
            }
            if effect {
                group.shaderEffect = ShaderEffect(fragmentShader: """
                    #version 300 es
                    precision highp float;
                    in vec2 lamina_uv;
                    uniform vec2 lamina_size;
                    out vec4 o;
                    void main() {
                        vec2 d = lamina_uv - 0.5;
                        float r = length(d);
                        vec2 offset = d / max(r, 1e-4) * sin(r * 60.0) * (8.0 / lamina_size.x);
                        o = lamina_sample(lamina_uv + offset);
                    }
                    """, maxSampleOffset: Size(width: 8, height: 8))
            }
            stage.root.addSublayer(group)
            return group.sublayers[5]
        }
        let a = try Stage(device: device, size: size), b = try Stage(device: device, size: size)
        defer { a.close(); b.close() }
        let ma = build(a, effect: true), mb = build(b, effect: false)
        try Transaction.flush()
        func move(_ l: Layer) -> (Int) -> Void { { f in l.position = Point(x: 186 + Double(f % 20) * 4, y: l.position.y) } }
        var stats = a.host.lastFrame
        a.host.didComposite = { if !$0.skipped { stats = $0 } }
        let (e, base) = try alternate(move(ma), move(mb))
        return Result(id: id, summary: "a ripple shader effect (maxSampleOffset 8) over a 512×512 group, one sublayer moving",
                      baseline: "the same group without the effect", effect: e, base: base, unit: "ms/frame", ratio: e / max(base, 1e-9),
                      note: "last frame: \(stats.offscreenPasses) offscreen passes, \(stats.drawCalls) draw calls")
    }

    /// E7 (issue #26): 100 progress rings (shape layers, a circle of radius 24 stroked 6
    /// wide) whose strokeEnd changes every frame — each ring rasterised again at its
    /// on-screen scale, as each frame of a strokeEnd animation does — against the same
    /// rings turned every frame (a transform: no rasterisation). Then the animation itself:
    /// a strokeEnd animation on every ring, frames at a fixed media-time step, with the
    /// displays and bytes uploaded per frame.
    func progressRings(id: String) throws -> Result {
        func build(_ stage: Stage) -> [ShapeLayer] {
            var circle = Path()
            circle.addEllipse(in: Rect(x: 6, y: 6, width: 48, height: 48))
            return (0..<100).map { i in
                let ring = ShapeLayer()
                ring.frame = Rect(x: 40 + Double(i % 10) * 64, y: 40 + Double(i / 10) * 64, width: 60, height: 60)
                ring.path = circle
                ring.fillColor = nil
                ring.strokeColor = Color(red: 0.2, green: 0.5, blue: 0.9)
                ring.lineWidth = 6
                ring.lineCap = .round
                stage.root.addSublayer(ring)
                return ring
            }
        }
        let a = try Stage(device: device, size: size), b = try Stage(device: device, size: size)
        let ringsA = build(a), ringsB = build(b)
        try Transaction.flush()
        let (e, base) = try alternate({ f in for (i, r) in ringsA.enumerated() { r.strokeEnd = Double((f + i) % 60 + 1) / 60 } },
                                      { f in for r in ringsB { r.transform = Transform3D(rotationAngle: Double(f) * 0.05, x: 0, y: 0, z: 1) } })
        b.close()
        // The animation: every ring's strokeEnd from 0 to 1 in 1 s, repeating; a frame each 1/60 s.
        let start = MonotonicClock.now()
        MediaClock.set(start)
        defer { MediaClock.set(nil) }
        for (i, r) in ringsA.enumerated() {
            var grow = BasicAnimation(keyPath: "strokeEnd")
            grow.fromValue = .number(0)
            grow.toValue = .number(1)
            grow.duration = 1
            grow.repeatCount = .infinity
            grow.beginTime = start - Double(i) / 100
            r.add(grow, forKey: "progress")
        }
        try Transaction.flush()
        var times: [Double] = [], displays: [Int] = [], uploads: [Int] = []
        a.host.didComposite = { if !$0.skipped { uploads.append($0.textureBytesUploaded) } }
        for f in 1...(warmup + frames) {
            let before = ringsA.reduce(0) { $0 + $1.displayCount }
            MediaClock.set(start + Double(f) / 60)
            let t0 = Clocks.now().wall
            try TransactionContext.current.commitIfNeeded()
            try device.withContext { glFinish() }
            if f > warmup {
                times.append((Clocks.now().wall - t0) * 1000)
                displays.append(ringsA.reduce(0) { $0 + $1.displayCount } - before)
            }
        }
        a.close()
        let perFrame = displays.isEmpty ? 0 : displays.reduce(0, +) / displays.count
        let bytes = uploads.suffix(frames).isEmpty ? 0 : uploads.suffix(frames).reduce(0, +) / uploads.suffix(frames).count
        return Result(id: id, summary: "100 progress rings (shape layers) whose strokeEnd changes every frame: each rasterised again",
                      baseline: "the same rings turned every frame (a transform: nothing rasterised)", effect: e, base: base,
                      unit: "ms/frame", ratio: e / max(base, 1e-9),
                      note: String(format: "as a strokeEnd animation on each ring: %.2f ms/frame (median), %d displays and %d KiB uploaded per frame",
                                   median(times), perFrame, bytes / 1024))
    }

    /// E8 (issue #26, the text layer's draw cost): 100 text layers (labels of 16-point
    /// DejaVu Sans, 220×24) whose string changes every frame — each laid out by Pango and
    /// drawn again, then uploaded — against the same labels drawn by a layer's own
    /// `draw(in:)` through the 2D context (the code a program would write without a text layer).
    func textLabels(id: String) throws -> Result {
        final class DrawnLabel: Layer {
            var text = "" { didSet { if text != oldValue { setNeedsDisplay() } } }
            override func draw(in context: GraphicsContext) {
                context.drawLine(text, in: bounds, font: Font(family: "DejaVu Sans", size: 16), color: .black, alignment: .left,
                                 truncation: .end)
            }
        }
        func frame(_ i: Int) -> Rect { Rect(x: 20 + Double(i % 5) * 240, y: 20 + Double(i / 5) * 32, width: 220, height: 24) }
        let a = try Stage(device: device, size: size), b = try Stage(device: device, size: size)
        let labels = (0..<100).map { i -> TextLayer in
            let t = TextLayer()
            t.frame = frame(i)
            t.font = Font(family: "DejaVu Sans")
            t.fontSize = 16
            t.foregroundColor = .black
            t.truncationMode = .end
            a.root.addSublayer(t)
            return t
        }
        let drawn = (0..<100).map { i -> DrawnLabel in
            let l = DrawnLabel()
            l.frame = frame(i)
            b.root.addSublayer(l)
            return l
        }
        func text(_ f: Int, _ i: Int) -> String { "Item \(i): \(f * 37 % 1000) of 1000 done" }
        try Transaction.flush()
        var displays: [Int] = [], uploads: [Int] = []
        a.host.didComposite = { if !$0.skipped { uploads.append($0.textureBytesUploaded); displays.append($0.layersDrawn) } }
        let (e, base) = try alternate({ f in for (i, l) in labels.enumerated() { l.string = text(f, i) } },
                                      { f in for (i, l) in drawn.enumerated() { l.text = text(f, i) } })
        a.close()
        b.close()
        let perFrame = displays.isEmpty ? 0 : displays.reduce(0, +) / displays.count
        let bytes = uploads.isEmpty ? 0 : uploads.reduce(0, +) / uploads.count
        return Result(id: id, summary: "100 text layers (16 pt labels) whose string changes every frame",
                      baseline: "the same labels drawn by a layer's draw(in:) with the 2D context", effect: e, base: base,
                      unit: "ms/frame", ratio: e / max(base, 1e-9),
                      note: String(format: "%.3f ms per label; %d displays and %d KiB uploaded per frame", e / 100, perFrame, bytes / 1024))
    }
}

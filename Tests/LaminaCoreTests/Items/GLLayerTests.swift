import CGLES
import Foundation
import LaminaGeometry
import LaminaGraphics
@_spi(Testing) import LaminaGPU
import Testing
@testable import LaminaCore
@testable import LaminaModel
@testable import LaminaRender
@testable import LaminaValues
import LaminaTestSupport

/// A user's GL program, as a GLKView's code would have: a quad from `gl_VertexID` covering
/// clip-space y from `lower` to 1 (the top part of the drawable), in a uniform colour.
/// Made on first use in the context current at the draw (the compositor's).
private final class TopBandProgram: @unchecked Sendable {
    private var program: GLuint = 0
    private var colorLocation: GLint = -1
    let lower: Float
    let color: (Float, Float, Float, Float)
    init(lower: Float = 0, color: (Float, Float, Float, Float) = (0, 0, 1, 1)) { self.lower = lower; self.color = color }

    private func compile(_ type: Int32, _ source: String) -> GLuint {
        let shader = glCreateShader(GLenum(type))
        source.withCString { s in
            var p: UnsafePointer<GLchar>? = s
            glShaderSource(shader, 1, &p, nil)
        }
        glCompileShader(shader)
        var ok: GLint = 0
        glGetShaderiv(shader, GLenum(GL_COMPILE_STATUS), &ok)
        precondition(ok != 0, "test shader failed to compile")
        return shader
    }

    /// Clears to red, then draws the band (blue by default) with the test's own program and VAO.
    func draw(_ d: GLDrawable) {
        if program == 0 {
            let vs = compile(GL_VERTEX_SHADER, """
                #version 300 es
                uniform float lower;
                void main() {
                    vec2 c[6] = vec2[6](vec2(-1, lower), vec2(1, lower), vec2(-1, 1), vec2(1, lower), vec2(1, 1), vec2(-1, 1));
                    gl_Position = vec4(c[gl_VertexID], 0, 1);
                }
                """)
            let fs = compile(GL_FRAGMENT_SHADER, """
                #version 300 es
                precision mediump float;
                uniform vec4 color;
                out vec4 o;
                void main() { o = color; }
                """)
            program = glCreateProgram()
            glAttachShader(program, vs)
            glAttachShader(program, fs)
            glLinkProgram(program)
            colorLocation = glGetUniformLocation(program, "color")
        }
        #expect(d.framebuffer != 0)
        var bound: GLint = 0
        glGetIntegerv(GLenum(GL_FRAMEBUFFER_BINDING), &bound)
        #expect(GLuint(bound) == d.framebuffer, "the drawable's framebuffer is bound on entry")
        var viewport = [GLint](repeating: 0, count: 4)
        glGetIntegerv(GLenum(GL_VIEWPORT), &viewport)
        #expect(viewport == [0, 0, GLint(d.pixelSize.width), GLint(d.pixelSize.height)], "the viewport is the drawable")
        glClearColor(1, 0, 0, 1)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        glUseProgram(program)
        glUniform1f(glGetUniformLocation(program, "lower"), lower)
        glUniform4f(colorLocation, color.0, color.1, color.2, color.3)
        var vao: GLuint = 0
        glGenVertexArrays(1, &vao)
        glBindVertexArray(vao)
        glDrawArrays(GLenum(GL_TRIANGLES), 0, 6)
        glBindVertexArray(0)
        glDeleteVertexArrays(1, &vao)
    }
}

/// The picture `TopBandProgram` draws, as an image (row 0 the top): blue above the middle, red below.
private func bandImage(width: Int, height: Int) -> RGBAImage {
    var image = RGBAImage(width: width, height: height, fill: red)
    for y in 0..<height / 2 { for x in 0..<width { image[x, y] = blue } }
    return image
}

@MainActor
@Suite("GL-drawn layers (GLLayer)", .isolatedTransactions, .withoutImplicitAnimations)
struct GLLayerTests {
    @Test("a GL layer's own program draws its contents: right way up, composited where the layer is, drawn once")
    func drawsOnDemand() throws {
        let device = try GPUDevice()
        let compositor = LayerRenderer(device: device)
        let target = try OffscreenTarget(device: device, size: Size(width: 200, height: 200))
        let root = rootLayer()
        let gl = GLLayer()
        gl.frame = Rect(x: 50, y: 40, width: 100, height: 80)
        let program = TopBandProgram()
        gl.drawHandler = { program.draw($0) }
        root.addSublayer(gl)
        try Transaction.flush(); try compositor.render(root, to: target, background: .white)
        let image = try target.readPixels()
        #expect(image[100, 60] == blue)     // the top half of the layer
        #expect(image[100, 100] == red)     // the bottom half
        #expect(image[20, 20] == white && image[160, 140] == white)
        #expect(gl.drawCount == 1)
        #expect(gl.drawableSize == PixelSize(width: 100, height: 80))
        // Nothing changed: nothing drawn, the GL code not run.
        try Transaction.flush(); #expect(try compositor.render(root, to: target, background: .white).skipped)
        #expect(gl.drawCount == 1)
        // setNeedsDisplay: drawn again at the next commit, once.
        gl.setNeedsDisplay()
        gl.setNeedsDisplay()
        try Transaction.flush()
        let stats = try compositor.render(root, to: target, background: .white)
        #expect(gl.drawCount == 2)
        #expect(stats.textureBytesUploaded == 0, "no pixel goes through the CPU")
        // A move composites the same drawable again without drawing.
        gl.position = Point(x: 110, y: 90)
        try Transaction.flush(); try compositor.render(root, to: target, background: .white)
        #expect(gl.drawCount == 2)
    }

    @Test("rotated, masked and translucent, a GL layer equals the same picture given as an image (2 levels)")
    func composedLikeContents() throws {
        func scene(_ content: Layer) -> Layer {
            let root = rootLayer()
            content.frame = Rect(x: 40, y: 50, width: 120, height: 100)
            content.transform = Transform3D(rotationAngle: 0.4, x: 0, y: 0, z: 1)
            content.opacity = 0.6
            let mask = Layer()
            mask.frame = Rect(x: 10, y: 10, width: 100, height: 80)
            mask.backgroundColor = .black
            mask.cornerRadius = 30
            content.mask = mask
            root.addSublayer(content)
            return root
        }
        let device = try GPUDevice()
        let program = TopBandProgram()
        let gl = GLLayer()
        gl.drawHandler = { program.draw($0) }
        let a = LayerRenderer(device: device)
        let targetA = try OffscreenTarget(device: device, size: Size(width: 200, height: 200))
        let sceneA = scene(gl)
        try Transaction.flush(); try a.render(sceneA, to: targetA, background: .white)
        let image = Layer()
        image.contents = .image(ContentImage(bandImage(width: 120, height: 100)))
        let b = LayerRenderer(device: device)
        let targetB = try OffscreenTarget(device: device, size: Size(width: 200, height: 200))
        let sceneB = scene(image)
        try Transaction.flush(); try b.render(sceneB, to: targetB, background: .white)
        let d = try targetA.readPixels().difference(from: try targetB.readPixels(), tolerance: 2)
        #expect(d.differing == 0, "\(d)")
        #expect(gl.drawCount == 1)
    }

    @Test("isAsynchronous: drawn at every frame the host composites, with the frame's media time; off: on demand again")
    func asynchronous() throws {
        let device = try GPUDevice()
        let compositor = LayerRenderer(device: device)
        let target = try OffscreenTarget(device: device, size: Size(width: 64, height: 64))
        let root = rootLayer(width: 64, height: 64)
        let gl = GLLayer()
        gl.frame = Rect(x: 0, y: 0, width: 64, height: 64)
        let times = Locked<[Double]>([])
        gl.drawHandler = { d in
            times.withLock { $0.append(d.mediaTime) }
            glClearColor(0, 1, 0, 1)
            glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        }
        gl.isAsynchronous = true
        root.addSublayer(gl)
        for _ in 0..<4 { try Transaction.flush(); try compositor.render(root, to: target, background: .white) }
        #expect(gl.drawCount == 5, "the first display, then one draw per frame: \(gl.drawCount)")
        #expect(compositor.compositor.hasRunningAnimations, "the host is asked to keep compositing")
        let t = times.withLock { $0 }
        #expect(t == t.sorted())
        #expect(try target.readPixels()[32, 32] == green)
        gl.isAsynchronous = false
        try Transaction.flush(); try compositor.render(root, to: target, background: .white)
        let settled = gl.drawCount
        try Transaction.flush(); #expect(try compositor.render(root, to: target, background: .white).skipped)
        #expect(gl.drawCount == settled)
    }

    @Test("whatever GL state the layer's code leaves, Lamina's next frame is the same as on a clean device")
    func hostileLeftovers() throws {
        func scene(hostile: GLLayer?) -> Layer {
            let root = rootLayer()
            let quads = Layer()
            quads.frame = Rect(x: 20, y: 20, width: 120, height: 120)
            quads.contents = .image(ContentImage(quadrantImage(size: 32)))
            quads.transform = Transform3D(rotationAngle: 0.3, x: 0, y: 0, z: 1)
            quads.cornerRadius = 12
            quads.masksToBounds = true
            quads.borderWidth = 3
            quads.borderColor = .black
            root.addSublayer(quads)
            let translucent = solid(Rect(x: 90, y: 90, width: 80, height: 60), Color(red: 0, green: 0.5, blue: 1, alpha: 0.5))
            root.addSublayer(translucent)
            // A mask and a group (offscreen passes, a second texture unit) and a shadow.
            let masked = Layer()
            masked.frame = Rect(x: 120, y: 10, width: 70, height: 70)
            masked.contents = .image(ContentImage(quadrantImage(size: 16)))
            let mask = Layer()
            mask.frame = Rect(x: 5, y: 5, width: 60, height: 60)
            mask.backgroundColor = .black
            mask.cornerRadius = 30
            masked.mask = mask
            masked.opacity = 0.7
            masked.addSublayer(solid(Rect(x: 30, y: 30, width: 30, height: 30), .green))
            masked.shadowOpacity = 0.8
            masked.shadowRadius = 4
            root.addSublayer(masked)
            if let hostile {
                hostile.frame = Rect(x: 150, y: 150, width: 40, height: 40)
                root.addSublayer(hostile)
            }
            return root
        }
        let hostile = GLLayer()
        hostile.drawHandler = { _ in
            glClearColor(0, 0, 0, 0)
            glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
            glBlendEquation(GLenum(GL_MIN))
            glEnable(GLenum(GL_BLEND))
            glBlendFunc(GLenum(GL_ZERO), GLenum(GL_ONE))
            glStencilMask(0)
            glEnable(GLenum(GL_STENCIL_TEST))
            glStencilFunc(GLenum(GL_NEVER), 1, 0)
            glEnable(GLenum(GL_SCISSOR_TEST))
            glScissor(0, 0, 1, 1)
            glEnable(GLenum(GL_DEPTH_TEST))
            glDepthFunc(GLenum(GL_NEVER))
            glEnable(GLenum(GL_CULL_FACE))
            glCullFace(GLenum(GL_FRONT_AND_BACK))
            glColorMask(0, 1, 0, 0)
            glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 8)
            glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), 7)
            glPixelStorei(GLenum(GL_UNPACK_SKIP_ROWS), 3)
            var sampler: GLuint = 0
            glGenSamplers(1, &sampler)
            glSamplerParameteri(sampler, GLenum(GL_TEXTURE_MIN_FILTER), GL_NEAREST)
            glSamplerParameteri(sampler, GLenum(GL_TEXTURE_MAG_FILTER), GL_NEAREST)
            for unit in 0..<4 { glBindSampler(GLuint(unit), sampler) }
            glActiveTexture(GLenum(GL_TEXTURE3))
            glEnable(GLenum(GL_POLYGON_OFFSET_FILL))
            glEnable(GLenum(GL_RASTERIZER_DISCARD))
            glEnable(GLenum(GL_SAMPLE_ALPHA_TO_COVERAGE))
            glEnable(GLenum(GL_PRIMITIVE_RESTART_FIXED_INDEX))
            glLineWidth(3)
            _ = glGetError()
            glBindTexture(GLenum(GL_TEXTURE_2D), 999_999)   // leaves GL_INVALID_VALUE? (a name never made: fine in ES, generated on bind)
        }
        let device = try GPUDevice()
        let compositor = LayerRenderer(device: device)
        let target = try OffscreenTarget(device: device, size: Size(width: 200, height: 200))
        let root = scene(hostile: hostile)
        try Transaction.flush(); try compositor.render(root, to: target, background: .white)
        // The next frames after the hostile draw: a backing store uploaded, everything redrawn.
        let drawn = Layer()
        drawn.frame = Rect(x: 5, y: 150, width: 40, height: 40)
        final class Painter: LayerDelegate { func draw(_ layer: Layer, in c: GraphicsContext) { c.setFillColor(.red); c.fill(Rect(x: 0, y: 0, width: 20, height: 40)) } }
        let painter = Painter()
        drawn.delegate = painter
        drawn.setNeedsDisplay()
        root.addSublayer(drawn)
        hostile.setNeedsDisplay()
        compositor.compositor.forgetLastFrame()
        try Transaction.flush(); try compositor.render(root, to: target, background: .white)
        #expect(hostile.drawCount == 2)
        // The same frames on a clean device, without the hostile layer (it draws nothing
        // visible), in the same order: the atlas places the images alike (where an image
        // lies in its page moves a filter weight by a step on NVIDIA's hardware).
        let clean = try GPUDevice()
        let reference = LayerRenderer(device: clean)
        let referenceTarget = try OffscreenTarget(device: clean, size: Size(width: 200, height: 200))
        let referenceRoot = scene(hostile: nil)
        try Transaction.flush(); try reference.render(referenceRoot, to: referenceTarget, background: .white)
        let drawn2 = Layer()
        drawn2.frame = drawn.frame
        drawn2.delegate = painter
        drawn2.setNeedsDisplay()
        referenceRoot.addSublayer(drawn2)
        reference.compositor.forgetLastFrame()
        try Transaction.flush(); try reference.render(referenceRoot, to: referenceTarget, background: .white)
        let (got, want) = (try target.readPixels(), try referenceTarget.readPixels())
        let d = got.difference(from: want, tolerance: 0)
        var differing: [String] = []
        for y in 0..<got.height { for x in 0..<got.width where got[x, y] != want[x, y] && differing.count < 8 { differing.append("(\(x),\(y)) \(got[x, y]) vs \(want[x, y])") } }
        #expect(d.differing == 0, "\(d): \(differing)")
    }

    @Test("a bounds change draws into a new drawable of the new size; leaving the tree frees it")
    func resizeAndRelease() throws {
        let device = try GPUDevice()
        let compositor = LayerRenderer(device: device)
        let target = try OffscreenTarget(device: device, size: Size(width: 200, height: 200))
        let root = rootLayer()
        let gl = GLLayer()
        gl.frame = Rect(x: 0, y: 0, width: 50, height: 40)
        gl.contentsScale = 2
        let sizes = Locked<[PixelSize]>([])
        let program = TopBandProgram()
        gl.drawHandler = { d in sizes.withLock { $0.append(d.pixelSize) }; program.draw(d) }
        root.addSublayer(gl)
        try Transaction.flush(); try compositor.render(root, to: target, background: .white)
        let before = device.liveObjectCounts
        gl.bounds = Rect(x: 0, y: 0, width: 160, height: 120)
        try Transaction.flush(); try compositor.render(root, to: target, background: .white)
        #expect(sizes.withLock { $0 } == [PixelSize(width: 100, height: 80), PixelSize(width: 320, height: 240)])
        let image = try target.readPixels()
        // The position stays (anchor at the centre): the layer spans x -55…105, y -40…80.
        #expect(image[50, 10] == blue && image[50, 60] == red)
        #expect(device.liveObjectCounts == before, "the old drawable was freed: \(device.liveObjectCounts) vs \(before)")
        gl.removeFromSuperlayer()
        try Transaction.flush(); try compositor.render(root, to: target, background: .white)
        #expect(device.liveObjectCounts[.texture] == before[.texture] - 1)
        #expect(device.liveObjectCounts[.framebuffer] == before[.framebuffer] - 1)
    }

    @Test("depth and 4× multisampling: the drawable has a depth buffer and is resolved before it is composited")
    func depthAndMultisampling() throws {
        let device = try GPUDevice()
        let compositor = LayerRenderer(device: device)
        let target = try OffscreenTarget(device: device, size: Size(width: 100, height: 100))
        let root = rootLayer(width: 100, height: 100)
        let gl = GLLayer()
        gl.frame = Rect(x: 0, y: 0, width: 100, height: 100)
        gl.drawableOptions = GLDrawableOptions(depthStencil: .depth24Stencil8, samples: 4)
        let bits = Locked<(depth: GLint, stencil: GLint, samples: GLint)>((0, 0, 0))
        let program = TopBandProgram()
        gl.drawHandler = { d in
            var depth: GLint = 0, stencil: GLint = 0, samples: GLint = 0
            glGetFramebufferAttachmentParameteriv(GLenum(GL_FRAMEBUFFER), GLenum(GL_DEPTH_ATTACHMENT), GLenum(GL_FRAMEBUFFER_ATTACHMENT_DEPTH_SIZE), &depth)
            glGetFramebufferAttachmentParameteriv(GLenum(GL_FRAMEBUFFER), GLenum(GL_STENCIL_ATTACHMENT), GLenum(GL_FRAMEBUFFER_ATTACHMENT_STENCIL_SIZE), &stencil)
            glGetIntegerv(GLenum(GL_SAMPLES), &samples)
            bits.withLock { $0 = (depth, stencil, samples) }
            program.draw(d)
        }
        root.addSublayer(gl)
        try Transaction.flush(); try compositor.render(root, to: target, background: .white)
        let b = bits.withLock { $0 }
        #expect(b.depth >= 24 && b.stencil == 8 && b.samples == 4, "\(b)")
        let image = try target.readPixels()
        #expect(image[50, 20] == blue && image[50, 80] == red)
    }
    @Test("with a render thread the GL code runs there, its context current; flush() returns with the drawing on the target")
    func renderThread() throws {
        let device = try GPUDevice()
        let target = try OffscreenTarget(device: device, size: Size(width: 120, height: 100))
        let root = rootLayer(width: 120, height: 100)
        let gl = GLLayer()
        gl.frame = Rect(x: 10, y: 10, width: 100, height: 80)
        let onMain = Locked<[Bool]>([])
        let program = TopBandProgram(lower: 0, color: (0, 1, 0, 1))
        gl.drawHandler = { d in onMain.withLock { $0.append(Thread.isMainThread) }; program.draw(d) }
        root.addSublayer(gl)
        let host = LayerTreeHost(rootLayer: root, target: target, background: .white, rendersOnThread: true)
        defer { host.detach() }
        let thread = try #require(host.renderThread)
        try Transaction.flush()
        var image = try thread.perform { try target.readPixels() }
        #expect(image[60, 30] == green && image[60, 70] == red)
        gl.setNeedsDisplay()
        try Transaction.flush()
        image = try thread.perform { try target.readPixels() }
        #expect(image[60, 30] == green)
        #expect(onMain.withLock { $0 } == [false, false], "drawn twice, on the render thread")
    }
    @Test("without needsDisplayOnBoundsChange, a bounds change keeps the drawable: contentsGravity places it (center: unscaled; resize: stretched)")
    func gravity() throws {
        let device = try GPUDevice()
        let compositor = LayerRenderer(device: device)
        let target = try OffscreenTarget(device: device, size: Size(width: 100, height: 100))
        let root = rootLayer(width: 100, height: 100)
        let gl = GLLayer()
        gl.frame = Rect(x: 30, y: 30, width: 40, height: 40)
        gl.needsDisplayOnBoundsChange = false
        gl.contentsGravity = .center
        let program = TopBandProgram()
        gl.drawHandler = { program.draw($0) }
        root.addSublayer(gl)
        try Transaction.flush(); try compositor.render(root, to: target, background: .white)
        gl.bounds = Rect(x: 0, y: 0, width: 80, height: 80)   // (centred at 50, 50: spans 10…90)
        try Transaction.flush(); try compositor.render(root, to: target, background: .white)
        #expect(gl.drawCount == 1, "not drawn again")
        var image = try target.readPixels()
        #expect(image[50, 35] == blue && image[50, 65] == red, "the 40×40 drawable, centred")
        #expect(image[50, 20] == white && image[50, 80] == white, "nothing outside it")
        gl.contentsGravity = .resize
        try Transaction.flush(); try compositor.render(root, to: target, background: .white)
        image = try target.readPixels()
        #expect(image[50, 20] == blue && image[50, 80] == red, "stretched over the 80×80 bounds")
        #expect(gl.drawCount == 1)
    }
}

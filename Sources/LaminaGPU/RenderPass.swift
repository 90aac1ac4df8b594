import CGLES
import LaminaGeometry

/// One pass of drawing into a target: begin, add quads (and clips), submit. The only
/// code that issues draw calls. Coordinates are the target's points; `transform` (if
/// any) maps a quad's rectangle, once placed, to the target's points.
///
/// Passes may interleave (a compositor renders a group into a second target while the
/// first pass is open): each pass restores its own GL state before it draws again.
///
/// A pass holds the device's context from `beginRenderPass` to `submit()` (or until it is
/// dropped): the caller's context, and on an adopted context the host's GL state, come
/// back when it ends. Issue no GL of your own while a pass is open.
public final class RenderPass {
    public let target: RenderTarget
    public private(set) var drawCalls = 0
    public private(set) var isSubmitted = false
    /// How many clips are pushed (the stencil value inside the innermost clip).
    public private(set) var clipDepth = 0
    private let device: GPUDevice
    private let quad: QuadGeometry
    private var stencilCleared = false

    /// Opens the pass: enters the device's context (held until `submit()`).
    /// The part of the target the pass may change, in GL window coordinates (nil: all of
    /// it): clears and draws outside it leave the target's pixels as they were.
    private let scissor: GLViewport

    init(target: RenderTarget, clear color: Color?, scissor region: PixelRect? = nil) throws {
        self.target = target
        self.device = target.device
        scissor = target.glScissor(for: region)
        try device.gl.enter()
        do {
            try target.validateForPass()
        } catch {
            isSubmitted = true
            device.gl.exit()
            throw error
        }
        device.gl.collectGarbage()
        quad = device.unitQuad()
        restoreState()
        hostDrawBuffers = target.claimDrawBuffer()
        if let color { clear(color) }
        device.checkGLError("begin render pass")
    }

    deinit {
        // Dropped without submit() (an error part-way): give the host its draw buffers and
        // the caller its context back.
        if !isSubmitted {
            if device.gl.ensureCurrent() { target.releaseDrawBuffer(hostDrawBuffers) }
            device.gl.exit()
        }
    }

    /// A host framebuffer's draw buffers, when the pass had to point them at the one
    /// Lamina draws to; put back at the end.
    private var hostDrawBuffers: [GLenum]?

    /// Sets everything this pass depends on (if another pass or a transfer ran meanwhile,
    /// or the pass just began): never assumes what the context held.
    private func restoreState() {
        guard device.gl.activePass !== self else { return }
        device.gl.activePass = self
        device.gl.currentProgram = 0
        LaminaGLState.applyForDrawing(framebuffer: target.framebufferName, viewport: target.viewport,
                                      vertexArray: quad.vertexArray.name, indexed: device.gl.indexedDrawBuffers)
        if scissor != target.viewport { glScissor(scissor.x, scissor.y, scissor.width, scissor.height) }
        applyStencilTest()
    }

    private func prepare() {
        precondition(!isSubmitted, "RenderPass used after submit()")
        // Another device's pass may have made its context current meanwhile.
        precondition(device.gl.ensureCurrent(), "Lamina: the device's context can no longer be made current during a render pass")
        restoreState()
    }

    /// Fills the whole target with `color` (replacing, not blending), ignoring clips.
    public func clear(_ color: Color) {
        prepare()
        let p = color.premultiplied
        glClearColor(GLfloat(p.r), GLfloat(p.g), GLfloat(p.b), GLfloat(p.a))
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
    }

    /// Blends a solid rectangle of `color` over the target.
    public func fill(_ rect: Rect, color: Color, transform: Transform3D = .identity) throws {
        let program = try use(vertex: "quad.vert", fragment: "solid.frag")
        let p = color.premultiplied
        glUniform4f(program.uniformLocation("u_color"), GLfloat(p.r), GLfloat(p.g), GLfloat(p.b), GLfloat(p.a))
        draw(program, rect: rect, transform: transform, textureRect: Rect(x: 0, y: 0, width: 1, height: 1))
    }

    /// Blends a rounded rectangle with antialiased edges: filled when `borderWidth` is 0,
    /// else a ring of that width inside the rectangle's edge.
    public func fillRoundedRect(_ rect: Rect, cornerRadius: Double, borderWidth: Double = 0, color: Color,
                                transform: Transform3D = .identity) throws {
        let program = try use(vertex: "quad.vert", fragment: "rrect.frag")
        let p = color.premultiplied
        glUniform4f(program.uniformLocation("u_color"), GLfloat(p.r), GLfloat(p.g), GLfloat(p.b), GLfloat(p.a))
        setShape(program, rect: rect, cornerRadius: cornerRadius, borderWidth: borderWidth, clip: false)
        draw(program, rect: rect, transform: transform, textureRect: Rect(x: 0, y: 0, width: 1, height: 1))
    }

    /// Blends `texture` (premultiplied) over the target into `rect`. `sourceRect` is the
    /// part of the texture to show, in unit coordinates (0…1, y down).
    public func draw(_ texture: Texture, in rect: Rect, sourceRect: Rect = Rect(x: 0, y: 0, width: 1, height: 1),
                     alpha: Double = 1, minFilter: TextureFilter = .linear, magFilter: TextureFilter = .linear,
                     transform: Transform3D = .identity) throws {
        guard texture.belongs(to: device) else { throw GPUError.wrongDevice(what: "a texture drawn in a render pass") }
        precondition(!texture.isReleased, "drawing a released texture")
        let program = try use(vertex: "quad.vert", fragment: "texture.frag")
        bind(texture, minFilter: minFilter, magFilter: magFilter)
        glUniform1i(program.uniformLocation("u_texture"), 0)
        glUniform1f(program.uniformLocation("u_alpha"), GLfloat(alpha))
        draw(program, rect: rect, transform: transform, textureRect: sourceRect)
    }

    /// Nine-slice stretching (`contentsCenter`): draws `sourceRect` of `texture` into `rect`
    /// so that the parts outside `center` (a unit rectangle of the source sub-image) keep
    /// their size — `contentSize` is the sub-image's size in points — while the edges
    /// stretch along one axis and the centre along both. Caps shrink proportionally when
    /// they do not fit. One quad, one draw call.
    public func drawNineSlice(_ texture: Texture, in rect: Rect, sourceRect: Rect = Rect(x: 0, y: 0, width: 1, height: 1),
                              center: Rect, contentSize: Size, alpha: Double = 1,
                              minFilter: TextureFilter = .linear, magFilter: TextureFilter = .linear,
                              transform: Transform3D = .identity) throws {
        guard texture.belongs(to: device) else { throw GPUError.wrongDevice(what: "a texture drawn in a render pass") }
        precondition(!texture.isReleased, "drawing a released texture")
        let program = try use(vertex: "quad.vert", fragment: "nineslice.frag")
        bind(texture, minFilter: minFilter, magFilter: magFilter)
        let dest = Size(width: abs(rect.size.width), height: abs(rect.size.height))
        let c = center.standardized
        func caps(_ start: Double, _ end: Double, _ size: Double) -> (Double, Double) {
            let total = start + end
            guard total > size, total > 0 else { return (start, end) }
            return (start * size / total, end * size / total)   // shrink proportionally
        }
        let (left, right) = caps(c.minX * contentSize.width, (1 - c.maxX) * contentSize.width, dest.width)
        let (top, bottom) = caps(c.minY * contentSize.height, (1 - c.maxY) * contentSize.height, dest.height)
        glUniform1i(program.uniformLocation("u_texture"), 0)
        glUniform1f(program.uniformLocation("u_alpha"), GLfloat(alpha))
        glUniform2f(program.uniformLocation("u_destSize"), GLfloat(dest.width), GLfloat(dest.height))
        glUniform4f(program.uniformLocation("u_caps"), GLfloat(left), GLfloat(top), GLfloat(right), GLfloat(bottom))
        glUniform4f(program.uniformLocation("u_center"), GLfloat(c.minX), GLfloat(c.minY), GLfloat(c.width), GLfloat(c.height))
        let s = sourceRect
        glUniform4f(program.uniformLocation("u_sourceRect"), GLfloat(s.origin.x), GLfloat(s.origin.y), GLfloat(s.size.width), GLfloat(s.size.height))
        glUniform2f(program.uniformLocation("u_texels"), GLfloat(abs(s.size.width) * Double(texture.pixelSize.width)),
                    GLfloat(abs(s.size.height) * Double(texture.pixelSize.height)))
        draw(program, rect: rect, transform: transform, textureRect: Rect(x: 0, y: 0, width: 1, height: 1))
    }

    /// Draws with a caller's program (built with `GPUDevice.makeProgram` or
    /// `GPUDevice.program`): the unit quad placed at `rect`, `u_transform` and
    /// `u_texRect` set; `setUniforms` sets the rest.
    public func draw(with program: Program, in rect: Rect, transform: Transform3D = .identity,
                     setUniforms: (Program) -> Void = { _ in }) {
        prepare()
        bind(program)
        setUniforms(program)
        draw(program, rect: rect, transform: transform, textureRect: Rect(x: 0, y: 0, width: 1, height: 1))
    }

    /// Restricts later drawing to a (rounded) rectangle under `transform`, intersected with
    /// the clips already pushed. Exact under rotation and perspective (a stencil, not a
    /// scissor). Each push needs the matching `popClip` with the same shape.
    public func pushClip(_ rect: Rect, cornerRadius: Double = 0, transform: Transform3D = .identity) throws {
        prepare()
        try target.prepareStencil()
        restoreState()   // preparing the stencil may have rebound the framebuffer
        if !stencilCleared {
            // Inside the target's scissor: a host's stencil outside the region is kept.
            glClearStencil(0)
            glClear(GLbitfield(GL_STENCIL_BUFFER_BIT))
            stencilCleared = true
        }
        try drawClipShape(rect, cornerRadius: cornerRadius, transform: transform, operation: GLenum(GL_INCR))
        clipDepth += 1
        applyStencilTest()
    }

    /// Removes the innermost clip; pass the shape given to `pushClip`.
    public func popClip(_ rect: Rect, cornerRadius: Double = 0, transform: Transform3D = .identity) throws {
        precondition(clipDepth > 0, "popClip without pushClip")
        prepare()
        try drawClipShape(rect, cornerRadius: cornerRadius, transform: transform, operation: GLenum(GL_DECR))
        clipDepth -= 1
        applyStencilTest()
    }

    /// Draws the shape into the stencil only, where the stencil equals the current depth.
    private func drawClipShape(_ rect: Rect, cornerRadius: Double, transform: Transform3D, operation: GLenum) throws {
        let program = try use(vertex: "quad.vert", fragment: "rrect.frag")
        glEnable(GLenum(GL_STENCIL_TEST))
        glStencilFunc(GLenum(GL_EQUAL), GLint(clipDepth), 0xff)
        glStencilOp(GLenum(GL_KEEP), GLenum(GL_KEEP), operation)
        LaminaGLState.setColorWrites(false, indexed: device.gl.indexedDrawBuffers)
        setShape(program, rect: rect, cornerRadius: cornerRadius, borderWidth: 0, clip: true)
        draw(program, rect: rect, transform: transform, textureRect: Rect(x: 0, y: 0, width: 1, height: 1))
        LaminaGLState.setColorWrites(true, indexed: device.gl.indexedDrawBuffers)
        glStencilOp(GLenum(GL_KEEP), GLenum(GL_KEEP), GLenum(GL_KEEP))
    }

    /// Inside clips, draw only where the stencil equals the depth; outside, no test.
    private func applyStencilTest() {
        if clipDepth > 0 {
            glEnable(GLenum(GL_STENCIL_TEST))
            glStencilFunc(GLenum(GL_EQUAL), GLint(clipDepth), 0xff)
            glStencilOp(GLenum(GL_KEEP), GLenum(GL_KEEP), GLenum(GL_KEEP))
        } else {
            glDisable(GLenum(GL_STENCIL_TEST))
        }
    }

    /// Finishes the pass. The target's contents are complete for readback or export.
    /// How the pass ends depends on who owns the context: Lamina's own context is flushed
    /// (`glFlush`); a context shared with the host waits for the GPU (`glFinish`), so that
    /// the host's context sees complete pixels; an adopted context is left to the host,
    /// whose later commands (or buffer swap) follow Lamina's in the same stream. The
    /// caller's context and state come back.
    public func submit() {
        guard !isSubmitted else { return }
        precondition(clipDepth == 0, "RenderPass submitted with \(clipDepth) clips still pushed")
        isSubmitted = true
        if device.gl.activePass === self { device.gl.activePass = nil }
        device.gl.ensureCurrent()
        target.releaseDrawBuffer(hostDrawBuffers)
        switch device.ownership {
        case .own: glFlush()
        case .share: glFinish()
        case .adopt: break
        }
        device.checkGLError("submit render pass")
        device.gl.exit()
    }

    private func use(vertex: String, fragment: String) throws -> Program {
        prepare()
        let program = try device.program(vertex: vertex, fragment: fragment)
        bind(program)
        return program
    }

    private func bind(_ program: Program) {
        if device.gl.currentProgram != program.name {
            glUseProgram(program.name)
            device.gl.currentProgram = program.name
        }
    }

    /// Binds `texture` to unit 0 with Lamina's sampler for these filters.
    private func bind(_ texture: Texture, minFilter: TextureFilter, magFilter: TextureFilter) {
        glActiveTexture(GLenum(GL_TEXTURE0))
        glBindTexture(GLenum(GL_TEXTURE_2D), texture.name)
        glBindSampler(0, device.sampler(min: minFilter, mag: magFilter).name)
    }

    private func setShape(_ program: Program, rect: Rect, cornerRadius: Double, borderWidth: Double, clip: Bool) {
        glUniform2f(program.uniformLocation("u_size"), GLfloat(abs(rect.size.width)), GLfloat(abs(rect.size.height)))
        glUniform1f(program.uniformLocation("u_radius"), GLfloat(max(0, cornerRadius)))
        glUniform1f(program.uniformLocation("u_borderWidth"), GLfloat(max(0, borderWidth)))
        glUniform1i(program.uniformLocation("u_clip"), clip ? 1 : 0)
    }

    private func draw(_ program: Program, rect: Rect, transform: Transform3D, textureRect: Rect) {
        let placement = Transform3D(scaleX: rect.size.width, y: rect.size.height)
            .concatenating(Transform3D(translationX: rect.origin.x, y: rect.origin.y))
        let matrix = placement.concatenating(transform).concatenating(target.pointsToClip)
        let values = matrix.values.map { GLfloat($0) }
        glUniformMatrix4fv(program.uniformLocation("u_transform"), 1, GLboolean(GL_FALSE), values)
        glUniform4f(program.uniformLocation("u_texRect"), GLfloat(textureRect.origin.x), GLfloat(textureRect.origin.y),
                    GLfloat(textureRect.size.width), GLfloat(textureRect.size.height))
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
        drawCalls += 1
        device.gl.drawCalls += 1
        device.checkGLError("glDrawArrays (\(program.label))")
    }
}

extension RenderTarget {
    /// Draws `texture` (premultiplied) over what the target holds, into `rect` (points;
    /// nil: the whole target), in one pass of one quad: e.g. a retained output texture
    /// into a host's framebuffer.
    public func composite(_ texture: Texture, in rect: Rect? = nil, alpha: Double = 1,
                          filter: TextureFilter = .nearest) throws {
        let pass = try device.beginRenderPass(on: self, clear: nil)
        try pass.draw(texture, in: rect ?? Rect(origin: .zero, size: size), alpha: alpha, minFilter: filter, magFilter: filter)
        pass.submit()
    }
}

extension GPUDevice {
    /// Begins a render pass on `target`, cleared to `clear` if given.
    /// Begins a render pass on `target`, cleared to `clear` if given. With `scissor` (pixels
    /// of the target, top-left origin), only that rectangle is cleared and drawn: the
    /// rest of the target keeps its pixels (damage-limited recomposition).
    public func beginRenderPass(on target: RenderTarget, clear: Color? = nil, scissor: PixelRect?) throws -> RenderPass {
        guard !isClosed else { throw GPUError.deviceClosed(operation: "beginRenderPass") }
        precondition(target.device === self, "render target of another device")
        guard !target.isReleased else {
            throw GPUError.unusableTarget(reason: "a render pass on a released target: make a new target")
        }
        return try RenderPass(target: target, clear: clear, scissor: scissor)
    }

    public func beginRenderPass(on target: RenderTarget, clear: Color? = nil) throws -> RenderPass {
        guard !isClosed else { throw GPUError.deviceClosed(operation: "beginRenderPass") }
        precondition(target.device === self, "render target of another device")
        guard !target.isReleased else {
            throw GPUError.unusableTarget(reason: "a render pass on a released target: make a new target (a window moved away from a target must not be composited into it after release())")
        }
        return try RenderPass(target: target, clear: clear)
    }
}

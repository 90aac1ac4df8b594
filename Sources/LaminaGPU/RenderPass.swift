import CGLES
import LaminaGeometry

/// One pass of drawing into a target: begin, add quads, submit. The only code that
/// issues draw calls. Coordinates are the target's points; `transform` (if any) is
/// applied to a quad after it is placed at its rectangle.
public final class RenderPass {
    public let target: RenderTarget
    public private(set) var drawCalls = 0
    public private(set) var isSubmitted = false
    private let device: GPUDevice
    private let quad: QuadGeometry
    private var currentProgram: GLuint = 0

    init(target: RenderTarget, clear color: Color?) {
        self.target = target
        self.device = target.device
        device.makeCurrent()
        device.collectGarbage()
        quad = device.unitQuad()
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), target.framebuffer.name)
        glViewport(0, 0, GLsizei(target.pixelSize.width), GLsizei(target.pixelSize.height))
        glDisable(GLenum(GL_DEPTH_TEST))
        glDisable(GLenum(GL_CULL_FACE))
        glDisable(GLenum(GL_SCISSOR_TEST))
        glEnable(GLenum(GL_BLEND))
        // Premultiplied alpha: source over.
        glBlendFunc(GLenum(GL_ONE), GLenum(GL_ONE_MINUS_SRC_ALPHA))
        glBindVertexArray(quad.vertexArray.name)
        if let color { clear(color) }
        device.checkGLError("begin render pass")
    }

    /// Fills the whole target with `color` (replacing, not blending).
    public func clear(_ color: Color) {
        precondition(!isSubmitted, "RenderPass used after submit()")
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

    /// Blends `texture` (premultiplied) over the target into `rect`. `sourceRect` is the
    /// part of the texture to show, in unit coordinates (0…1, y down).
    public func draw(_ texture: Texture, in rect: Rect, sourceRect: Rect = Rect(x: 0, y: 0, width: 1, height: 1),
                     alpha: Double = 1, minFilter: TextureFilter = .linear, magFilter: TextureFilter = .linear,
                     transform: Transform3D = .identity) throws {
        precondition(texture.device === device, "texture of another device")
        precondition(!texture.isReleased, "drawing a released texture")
        let program = try use(vertex: "quad.vert", fragment: "texture.frag")
        texture.bind(minFilter: minFilter, magFilter: magFilter)
        glUniform1i(program.uniformLocation("u_texture"), 0)
        glUniform1f(program.uniformLocation("u_alpha"), GLfloat(alpha))
        draw(program, rect: rect, transform: transform, textureRect: sourceRect)
    }

    /// Draws with a caller's program (built with `GPUDevice.makeProgram` or
    /// `GPUDevice.program`): the unit quad placed at `rect`, `u_transform` and
    /// `u_texRect` set; `setUniforms` sets the rest.
    public func draw(with program: Program, in rect: Rect, transform: Transform3D = .identity,
                     setUniforms: (Program) -> Void = { _ in }) {
        precondition(!isSubmitted, "RenderPass used after submit()")
        bind(program)
        setUniforms(program)
        draw(program, rect: rect, transform: transform, textureRect: Rect(x: 0, y: 0, width: 1, height: 1))
    }

    /// Finishes the pass. The target's contents are complete for readback or export.
    public func submit() {
        guard !isSubmitted else { return }
        isSubmitted = true
        glBindVertexArray(0)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
        glFlush()
        device.checkGLError("submit render pass")
    }

    private func use(vertex: String, fragment: String) throws -> Program {
        precondition(!isSubmitted, "RenderPass used after submit()")
        let program = try device.program(vertex: vertex, fragment: fragment)
        bind(program)
        return program
    }

    private func bind(_ program: Program) {
        if currentProgram != program.name {
            glUseProgram(program.name)
            currentProgram = program.name
        }
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
        device.checkGLError("glDrawArrays (\(program.label))")
    }
}

extension GPUDevice {
    /// Begins a render pass on `target`, cleared to `clear` if given.
    public func beginRenderPass(on target: RenderTarget, clear: Color? = nil) throws -> RenderPass {
        guard !isClosed else { throw GPUError.deviceClosed(operation: "beginRenderPass") }
        precondition(target.device === self, "render target of another device")
        precondition(!target.isReleased, "render pass on a released target")
        return RenderPass(target: target, clear: clear)
    }
}

import CGLES
import LaminaGeometry
import LaminaValues

/// Where a GL layer's own GL code draws (`GLLayer`, `GLView`): a colour texture of the
/// drawable's size with its framebuffer, optional depth/stencil storage and, for a
/// multisampled drawable, multisampled storage resolved into the texture after each draw.
/// The texture is what the layer shows; its row 0 is the picture's bottom (GL's
/// convention: the compositor samples it flipped). Nothing goes through the CPU.
public final class GLDrawableTarget {
    public let device: GPUDevice
    public let pixelSize: PixelSize
    public let options: GLDrawableOptions
    /// The resolved picture.
    public let texture: Texture
    private let resolved: Framebuffer
    /// Depth/stencil of a single-sampled drawable, or the multisampled buffers.
    private var renderbuffers: [GLName] = []
    private var multisampled: GLName?
    /// Draws into this drawable so far.
    public private(set) var drawCount = 0

    /// Makes the drawable (cleared to transparent, depth 1, stencil 0). Throws when the
    /// size is above the GPU's limits, when memory runs out, or when the driver refuses the
    /// combination (`GPUError.incompleteFramebuffer`).
    public init(device: GPUDevice, pixelSize: PixelSize, options: GLDrawableOptions) throws {
        guard options.samples == 1 || options.samples == 4 else {
            throw GPUError.invalidArgument(operation: "GLDrawableTarget", reason: "samples must be 1 or 4 (got \(options.samples))")
        }
        try device.validate(pixelSize, what: "GL layer drawable", maximum: min(device.capabilities.maxTextureSize, device.capabilities.maxRenderTargetSize))
        self.device = device
        self.pixelSize = pixelSize
        self.options = options
        let texture = try device.makeTexture(pixelSize: pixelSize)
        self.texture = texture
        do {
            resolved = try device.gl.withCurrentThrowing { try Framebuffer(colorTexture: texture, withStencil: false) }
        } catch {
            texture.release()
            throw error
        }
        do {
            try device.gl.withCurrentThrowing { try makeStorage() }
            try clear()
        } catch {
            release()
            throw error
        }
    }

    private func makeStorage() throws {
        let gl = device.gl
        gl.activePass = nil
        let w = GLsizei(pixelSize.width), h = GLsizei(pixelSize.height)
        let samples = GLsizei(options.samples)
        func renderbuffer(_ format: Int32) throws -> GLName {
            var rb: GLuint = 0
            glGenRenderbuffers(1, &rb)
            let object = GLName(gl: gl, kind: .renderbuffer, name: rb)
            renderbuffers.append(object)
            glBindRenderbuffer(GLenum(GL_RENDERBUFFER), rb)
            _ = glGetError()
            if samples > 1 {
                glRenderbufferStorageMultisample(GLenum(GL_RENDERBUFFER), samples, GLenum(format), w, h)
            } else {
                glRenderbufferStorage(GLenum(GL_RENDERBUFFER), GLenum(format), w, h)
            }
            glBindRenderbuffer(GLenum(GL_RENDERBUFFER), 0)
            try gl.throwIfOutOfMemory("a \(pixelSize) GL layer renderbuffer")
            return object
        }
        var framebuffer = resolved.name
        if samples > 1 {
            var fbo: GLuint = 0
            glGenFramebuffers(1, &fbo)
            let object = GLName(gl: gl, kind: .framebuffer, name: fbo)
            multisampled = object
            framebuffer = fbo
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), fbo)
            let color = try renderbuffer(GL_RGBA8)
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), fbo)
            glFramebufferRenderbuffer(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_RENDERBUFFER), color.name)
        }
        switch options.depthStencil {
        case .none: break
        case .depth24, .depth24Stencil8:
            let stencil = options.depthStencil == .depth24Stencil8
            let storage = try renderbuffer(stencil ? GL_DEPTH24_STENCIL8 : GL_DEPTH_COMPONENT24)
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
            glFramebufferRenderbuffer(GLenum(GL_FRAMEBUFFER), GLenum(stencil ? GL_DEPTH_STENCIL_ATTACHMENT : GL_DEPTH_ATTACHMENT),
                                      GLenum(GL_RENDERBUFFER), storage.name)
        }
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
        let status = glCheckFramebufferStatus(GLenum(GL_FRAMEBUFFER))
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
        guard status == GLenum(GL_FRAMEBUFFER_COMPLETE) else {
            throw GPUError.incompleteFramebuffer(status: "0x" + String(status, radix: 16)
                + " for a \(pixelSize) GL layer drawable (\(options.depthStencil), \(options.samples) samples): try fewer samples or no depth/stencil")
        }
    }

    /// The framebuffer the user's code draws into.
    public var framebufferName: UInt32 { multisampled?.name ?? resolved.name }

    private func clear() throws {
        try device.gl.withCurrentThrowing {
            LaminaGLState.applyForClientDrawing(framebuffer: framebufferName, size: pixelSize, desktop: device.gl.desktopGL)
            glClearDepthf(1)
            glClear(GLbitfield(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT))
            if multisampled != nil { resolve() }
            invalidateCachedState()
        }
    }

    /// Runs `body` with the drawable bound and GL's default state (the entry state of
    /// docs/gpu-content.md), then resolves a multisampled drawable and leaves the context
    /// ready for Lamina's next pass whatever `body` left behind. Returns the GL errors the
    /// body left pending (they are cleared).
    @discardableResult
    public func draw(_ body: (UInt32) -> Void) throws -> [UInt32] {
        guard !texture.isReleased else { throw GPUError.released(what: "the GL layer drawable", operation: "GLDrawableTarget.draw") }
        return try device.gl.withCurrentThrowing {
            while glGetError() != GLenum(GL_NO_ERROR) {}
            LaminaGLState.applyForClientDrawing(framebuffer: framebufferName, size: pixelSize, desktop: device.gl.desktopGL)
            body(framebufferName)
            var errors: [UInt32] = []
            for _ in 0..<16 {
                let e = glGetError()
                if e == GLenum(GL_NO_ERROR) { break }
                errors.append(UInt32(e))
            }
            drawCount += 1
            LaminaGLState.afterClientDrawing()
            if multisampled != nil { resolve() }
            invalidateCachedState()
            return errors
        }
    }

    /// Copies the multisampled picture into the texture (the state set for it first).
    private func resolve() {
        guard let ms = multisampled else { return }
        glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), ms.name)
        glBindFramebuffer(GLenum(GL_DRAW_FRAMEBUFFER), resolved.name)
        glDisable(GLenum(GL_SCISSOR_TEST))
        glDisable(GLenum(GL_RASTERIZER_DISCARD))
        glColorMask(1, 1, 1, 1)
        let w = GLint(pixelSize.width), h = GLint(pixelSize.height)
        glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, GLbitfield(GL_COLOR_BUFFER_BIT), GLenum(GL_NEAREST))
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
    }

    /// Lamina's next pass sets all its state again.
    private func invalidateCachedState() {
        device.gl.activePass = nil
        device.gl.currentProgram = 0
    }

    /// Frees the texture, framebuffers and renderbuffers. Safe to call twice.
    public func release() {
        resolved.release()
        texture.release()
        multisampled?.release()
        multisampled = nil
        renderbuffers.forEach { $0.release() }
        renderbuffers = []
    }
}

/// A GL name owned by Lamina with no wrapper of its own (renderbuffers and framebuffers
/// of GL layer drawables): counted and freed like every `GPUObject`.
final class GLName: GPUObject {}

extension LaminaGLState {
    /// The state a GL layer's code gets on entry: `framebuffer` bound (draw and read), the
    /// viewport the whole drawable, everything else GL's defaults.
    static func applyForClientDrawing(framebuffer: GLuint, size: PixelSize, desktop: DesktopGL?) {
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
        glViewport(0, 0, GLsizei(size.width), GLsizei(size.height))
        glDisable(GLenum(GL_SCISSOR_TEST))
        glScissor(0, 0, GLsizei(size.width), GLsizei(size.height))
        glDisable(GLenum(GL_BLEND))
        glBlendEquationSeparate(GLenum(GL_FUNC_ADD), GLenum(GL_FUNC_ADD))
        glBlendFuncSeparate(GLenum(GL_ONE), GLenum(GL_ZERO), GLenum(GL_ONE), GLenum(GL_ZERO))
        glColorMask(1, 1, 1, 1)
        glDepthMask(1)
        glStencilMask(0xffff_ffff)
        glDisable(GLenum(GL_DEPTH_TEST))
        glDepthFunc(GLenum(GL_LESS))
        glDisable(GLenum(GL_STENCIL_TEST))
        glDisable(GLenum(GL_CULL_FACE))
        glDisable(GLenum(GL_POLYGON_OFFSET_FILL))
        glDisable(GLenum(GL_RASTERIZER_DISCARD))
        glDisable(GLenum(GL_SAMPLE_ALPHA_TO_COVERAGE))
        glDisable(GLenum(GL_SAMPLE_COVERAGE))
        glDisable(GLenum(GL_PRIMITIVE_RESTART_FIXED_INDEX))
        glEnable(GLenum(GL_DITHER))
        glClearColor(0, 0, 0, 0)
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 4)
        glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), 0)
        glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 4)
        glPixelStorei(GLenum(GL_PACK_ROW_LENGTH), 0)
        desktop?.applyDefaults()
        unbindClientObjects()
    }

    /// No program, vertex array, array or pixel-transfer buffer; no texture or sampler on
    /// units 0–3 (unit 0 active). Before a GL layer's code, and after it.
    private static func unbindClientObjects() {
        glUseProgram(0)
        glBindVertexArray(0)
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), 0)
        glBindBuffer(GLenum(GL_PIXEL_UNPACK_BUFFER), 0)
        glBindBuffer(GLenum(GL_PIXEL_PACK_BUFFER), 0)
        for unit in 0..<4 {
            glActiveTexture(GLenum(GL_TEXTURE0 + Int32(unit)))
            glBindTexture(GLenum(GL_TEXTURE_2D), 0)
            glBindTexture(GLenum(GL_TEXTURE_2D_ARRAY), 0)
            glBindSampler(GLuint(unit), 0)
        }
        glActiveTexture(GLenum(GL_TEXTURE0))
    }

    /// What a GL layer's code may have left that Lamina's passes do not set themselves:
    /// running transform feedback (paused and unbound), primitive restart, bound samplers
    /// and textures, buffers bound for pixel transfers.
    static func afterClientDrawing() {
        var active: GLint = 0, paused: GLint = 0
        glGetIntegerv(GLenum(GL_TRANSFORM_FEEDBACK_ACTIVE), &active)
        glGetIntegerv(GLenum(GL_TRANSFORM_FEEDBACK_PAUSED), &paused)
        if active != 0 && paused == 0 { glPauseTransformFeedback() }
        glBindTransformFeedback(GLenum(GL_TRANSFORM_FEEDBACK), 0)
        glDisable(GLenum(GL_PRIMITIVE_RESTART_FIXED_INDEX))
        glDisable(GLenum(GL_POLYGON_OFFSET_FILL))
        glDepthMask(1)
        unbindClientObjects()
        while glGetError() != GLenum(GL_NO_ERROR) {}
    }
}

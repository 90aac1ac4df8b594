import CGLES

/// The GL state Lamina sets before it draws or uploads, captured from a host's context
/// and put back afterwards (adopted contexts only: Lamina's own contexts hold no one
/// else's state). This list is the state contract of docs/embedding.md: a piece of state
/// added to what Lamina sets must be added here and to that table.
struct GLStateSnapshot: Equatable {
    // Framebuffers and the window on them.
    var drawFramebuffer: GLint = 0
    var readFramebuffer: GLint = 0
    var renderbuffer: GLint = 0
    var viewport: [GLint] = [0, 0, 0, 0]
    var scissorTest = false
    var scissorBox: [GLint] = [0, 0, 0, 0]
    // Blending and masks.
    var blend = false
    var blendFunc: [GLint] = [0, 0, 0, 0]          // src RGB, dst RGB, src alpha, dst alpha
    var blendEquation: [GLint] = [0, 0]            // RGB, alpha
    var colorMask: [GLboolean] = [1, 1, 1, 1]
    var clearColor: [GLfloat] = [0, 0, 0, 0]
    // Tests and rasterisation switches.
    var depthTest = false
    var cullFace = false
    var rasterizerDiscard = false
    var sampleAlphaToCoverage = false
    var sampleCoverage = false
    var dither = true
    var stencilTest = false
    var stencilFront: [GLint] = [0, 0, 0, 0, 0, 0, 0]   // func, ref, value mask, fail, depth fail, pass, write mask
    var stencilBack: [GLint] = [0, 0, 0, 0, 0, 0, 0]
    var stencilClear: GLint = 0
    // Program, vertex input, textures.
    var program: GLint = 0
    var vertexArray: GLint = 0
    var arrayBuffer: GLint = 0
    var activeTexture: GLint = GLint(GL_TEXTURE0)
    var texture2DUnit0: GLint = 0
    var samplerUnit0: GLint = 0
    /// GL_TEXTURE_BINDING_EXTERNAL_OES of unit 0 (nil: the context has no external textures).
    var textureExternalUnit0: GLint?
    // Pixel transfer.
    var unpackBuffer: GLint = 0
    var packBuffer: GLint = 0
    /// UNPACK_ALIGNMENT, ROW_LENGTH, IMAGE_HEIGHT, SKIP_ROWS, SKIP_PIXELS, SKIP_IMAGES.
    var unpack: [GLint] = [4, 0, 0, 0, 0, 0]
    /// PACK_ALIGNMENT, ROW_LENGTH, SKIP_ROWS, SKIP_PIXELS.
    var pack: [GLint] = [4, 0, 0, 0]
    /// Transform feedback that was active and running: paused while Lamina draws.
    var transformFeedbackRunning = false
    /// State only desktop OpenGL has (nil on OpenGL ES).
    var desktop: DesktopGLStateSnapshot?

    static let unpackNames = [GL_UNPACK_ALIGNMENT, GL_UNPACK_ROW_LENGTH, GL_UNPACK_IMAGE_HEIGHT,
                              GL_UNPACK_SKIP_ROWS, GL_UNPACK_SKIP_PIXELS, GL_UNPACK_SKIP_IMAGES]
    static let packNames = [GL_PACK_ALIGNMENT, GL_PACK_ROW_LENGTH, GL_PACK_SKIP_ROWS, GL_PACK_SKIP_PIXELS]

    /// Reads the current context's state. Leaves the active texture unit as it found it.
    static func capture(externalTextures: Bool = false, indexed: IndexedDrawBufferFunctions? = nil, desktop: DesktopGL? = nil) -> GLStateSnapshot {
        func int(_ name: Int32) -> GLint { var v: GLint = 0; glGetIntegerv(GLenum(name), &v); return v }
        func ints(_ name: Int32, _ n: Int) -> [GLint] {
            var v = [GLint](repeating: 0, count: n); glGetIntegerv(GLenum(name), &v); return v
        }
        func on(_ cap: Int32) -> Bool { glIsEnabled(GLenum(cap)) == GLboolean(GL_TRUE) }
        var s = GLStateSnapshot()
        s.drawFramebuffer = int(GL_DRAW_FRAMEBUFFER_BINDING)
        s.readFramebuffer = int(GL_READ_FRAMEBUFFER_BINDING)
        s.renderbuffer = int(GL_RENDERBUFFER_BINDING)
        s.viewport = ints(GL_VIEWPORT, 4)
        s.scissorTest = on(GL_SCISSOR_TEST)
        s.scissorBox = ints(GL_SCISSOR_BOX, 4)
        if let i = indexed {
            // Draw buffer 0's, the one Lamina changes (and restores) when buffers differ.
            func int0(_ name: Int32) -> GLint { var v: GLint = 0; i.getInteger(GLenum(name), 0, &v); return v }
            s.blend = i.isEnabled(GLenum(GL_BLEND), 0) == GLboolean(GL_TRUE)
            s.blendFunc = [int0(GL_BLEND_SRC_RGB), int0(GL_BLEND_DST_RGB), int0(GL_BLEND_SRC_ALPHA), int0(GL_BLEND_DST_ALPHA)]
            s.blendEquation = [int0(GL_BLEND_EQUATION_RGB), int0(GL_BLEND_EQUATION_ALPHA)]
            if let getBoolean = i.getBoolean { getBoolean(GLenum(GL_COLOR_WRITEMASK), 0, &s.colorMask) }
            else { glGetBooleanv(GLenum(GL_COLOR_WRITEMASK), &s.colorMask) }
        } else {
            s.blend = on(GL_BLEND)
            s.blendFunc = [int(GL_BLEND_SRC_RGB), int(GL_BLEND_DST_RGB), int(GL_BLEND_SRC_ALPHA), int(GL_BLEND_DST_ALPHA)]
            s.blendEquation = [int(GL_BLEND_EQUATION_RGB), int(GL_BLEND_EQUATION_ALPHA)]
            glGetBooleanv(GLenum(GL_COLOR_WRITEMASK), &s.colorMask)
        }
        glGetFloatv(GLenum(GL_COLOR_CLEAR_VALUE), &s.clearColor)
        s.depthTest = on(GL_DEPTH_TEST)
        s.cullFace = on(GL_CULL_FACE)
        s.rasterizerDiscard = on(GL_RASTERIZER_DISCARD)
        s.sampleAlphaToCoverage = on(GL_SAMPLE_ALPHA_TO_COVERAGE)
        s.sampleCoverage = on(GL_SAMPLE_COVERAGE)
        s.dither = on(GL_DITHER)
        s.stencilTest = on(GL_STENCIL_TEST)
        s.stencilFront = [GL_STENCIL_FUNC, GL_STENCIL_REF, GL_STENCIL_VALUE_MASK, GL_STENCIL_FAIL,
                          GL_STENCIL_PASS_DEPTH_FAIL, GL_STENCIL_PASS_DEPTH_PASS, GL_STENCIL_WRITEMASK].map(int)
        s.stencilBack = [GL_STENCIL_BACK_FUNC, GL_STENCIL_BACK_REF, GL_STENCIL_BACK_VALUE_MASK, GL_STENCIL_BACK_FAIL,
                         GL_STENCIL_BACK_PASS_DEPTH_FAIL, GL_STENCIL_BACK_PASS_DEPTH_PASS, GL_STENCIL_BACK_WRITEMASK].map(int)
        s.stencilClear = int(GL_STENCIL_CLEAR_VALUE)
        s.program = int(GL_CURRENT_PROGRAM)
        s.vertexArray = int(GL_VERTEX_ARRAY_BINDING)
        s.arrayBuffer = int(GL_ARRAY_BUFFER_BINDING)
        s.activeTexture = int(GL_ACTIVE_TEXTURE)
        if s.activeTexture != GL_TEXTURE0 { glActiveTexture(GLenum(GL_TEXTURE0)) }
        s.texture2DUnit0 = int(GL_TEXTURE_BINDING_2D)
        s.samplerUnit0 = int(GL_SAMPLER_BINDING)
        if externalTextures { s.textureExternalUnit0 = int(GL_TEXTURE_BINDING_EXTERNAL_OES) }
        if s.activeTexture != GL_TEXTURE0 { glActiveTexture(GLenum(s.activeTexture)) }
        s.unpackBuffer = int(GL_PIXEL_UNPACK_BUFFER_BINDING)
        s.packBuffer = int(GL_PIXEL_PACK_BUFFER_BINDING)
        s.unpack = unpackNames.map(int)
        s.pack = packNames.map(int)
        // glIsEnabled does not take the transform feedback queries: read them as booleans.
        var active: GLboolean = 0, paused: GLboolean = 0
        glGetBooleanv(GLenum(GL_TRANSFORM_FEEDBACK_ACTIVE), &active)
        glGetBooleanv(GLenum(GL_TRANSFORM_FEEDBACK_PAUSED), &paused)
        s.transformFeedbackRunning = active == GLboolean(GL_TRUE) && paused != GLboolean(GL_TRUE)
        s.desktop = desktop.map(DesktopGLStateSnapshot.capture)
        return s
    }

    /// Puts this state back into the current context. With indexed draw-buffer state,
    /// blending and the colour mask go back to draw buffer 0 only (what was read of them
    /// is draw buffer 0's, through the indexed queries; the others were never touched).
    func restore(indexed: IndexedDrawBufferFunctions?, desktopGL: DesktopGL?) {
        func set(_ cap: Int32, _ on: Bool) { on ? glEnable(GLenum(cap)) : glDisable(GLenum(cap)) }
        glBindFramebuffer(GLenum(GL_DRAW_FRAMEBUFFER), GLuint(drawFramebuffer))
        glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), GLuint(readFramebuffer))
        glBindRenderbuffer(GLenum(GL_RENDERBUFFER), GLuint(renderbuffer))
        glViewport(viewport[0], viewport[1], viewport[2], viewport[3])
        set(GL_SCISSOR_TEST, scissorTest)
        glScissor(scissorBox[0], scissorBox[1], scissorBox[2], scissorBox[3])
        if let i = indexed {
            (blend ? i.enable : i.disable)(GLenum(GL_BLEND), 0)
            i.blendFunc(0, GLenum(blendFunc[0]), GLenum(blendFunc[1]), GLenum(blendFunc[2]), GLenum(blendFunc[3]))
            i.blendEquation(0, GLenum(blendEquation[0]), GLenum(blendEquation[1]))
            i.colorMask(0, colorMask[0], colorMask[1], colorMask[2], colorMask[3])
        } else {
            set(GL_BLEND, blend)
            glBlendFuncSeparate(GLenum(blendFunc[0]), GLenum(blendFunc[1]), GLenum(blendFunc[2]), GLenum(blendFunc[3]))
            glBlendEquationSeparate(GLenum(blendEquation[0]), GLenum(blendEquation[1]))
            glColorMask(colorMask[0], colorMask[1], colorMask[2], colorMask[3])
        }
        glClearColor(clearColor[0], clearColor[1], clearColor[2], clearColor[3])
        set(GL_DEPTH_TEST, depthTest)
        set(GL_CULL_FACE, cullFace)
        set(GL_RASTERIZER_DISCARD, rasterizerDiscard)
        set(GL_SAMPLE_ALPHA_TO_COVERAGE, sampleAlphaToCoverage)
        set(GL_SAMPLE_COVERAGE, sampleCoverage)
        set(GL_DITHER, dither)
        set(GL_STENCIL_TEST, stencilTest)
        for (face, s) in [(GL_FRONT, stencilFront), (GL_BACK, stencilBack)] {
            glStencilFuncSeparate(GLenum(face), GLenum(s[0]), s[1], GLuint(bitPattern: s[2]))
            glStencilOpSeparate(GLenum(face), GLenum(s[3]), GLenum(s[4]), GLenum(s[5]))
            glStencilMaskSeparate(GLenum(face), GLuint(bitPattern: s[6]))
        }
        glClearStencil(stencilClear)
        // A program the host deleted while it was current may have gone when Lamina bound
        // its own (Mesa frees it; NVIDIA keeps it): gone, it cannot come back (GL would
        // refuse the name).
        glUseProgram(program != 0 && glIsProgram(GLuint(program)) == GLboolean(GL_TRUE) ? GLuint(program) : 0)
        glBindVertexArray(GLuint(vertexArray))
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), GLuint(arrayBuffer))
        glActiveTexture(GLenum(GL_TEXTURE0))
        glBindTexture(GLenum(GL_TEXTURE_2D), GLuint(texture2DUnit0))
        glBindSampler(0, GLuint(samplerUnit0))
        if let e = textureExternalUnit0 { glBindTexture(GLenum(GL_TEXTURE_EXTERNAL_OES), GLuint(e)) }
        glActiveTexture(GLenum(activeTexture))
        glBindBuffer(GLenum(GL_PIXEL_UNPACK_BUFFER), GLuint(unpackBuffer))
        glBindBuffer(GLenum(GL_PIXEL_PACK_BUFFER), GLuint(packBuffer))
        for (name, value) in zip(GLStateSnapshot.unpackNames, unpack) { glPixelStorei(GLenum(name), value) }
        for (name, value) in zip(GLStateSnapshot.packNames, pack) { glPixelStorei(GLenum(name), value) }
        if transformFeedbackRunning { glResumeTransformFeedback() }
        if let desktop, let desktopGL { desktop.restore(desktopGL) }
    }
}

/// Lamina's own settings for everything it depends on, applied at the start of every
/// render pass and before every transfer, whatever the context held before (never the
/// defaults assumed).
enum LaminaGLState {
    /// What a render pass needs (the stencil test is set per clip by the pass itself).
    /// Blending and the colour mask are set for draw buffer 0 only when the context has
    /// indexed draw-buffer state (the only buffer Lamina draws to).
    static func applyForDrawing(framebuffer: GLuint, viewport: GLViewport, vertexArray: GLuint, indexed: IndexedDrawBufferFunctions?,
                                desktop: DesktopGL?) {
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
        glViewport(viewport.x, viewport.y, viewport.width, viewport.height)
        // The scissor keeps every clear and draw inside the target's rectangle (a
        // sub-rectangle of a host's framebuffer).
        glEnable(GLenum(GL_SCISSOR_TEST))
        glScissor(viewport.x, viewport.y, viewport.width, viewport.height)
        // Premultiplied alpha: source over.
        let one = GLenum(GL_ONE), oneMinusSourceAlpha = GLenum(GL_ONE_MINUS_SRC_ALPHA), add = GLenum(GL_FUNC_ADD)
        if let i = indexed {
            i.enable(GLenum(GL_BLEND), 0)
            i.blendEquation(0, add, add)
            i.blendFunc(0, one, oneMinusSourceAlpha, one, oneMinusSourceAlpha)
        } else {
            glEnable(GLenum(GL_BLEND))
            glBlendEquationSeparate(add, add)
            glBlendFuncSeparate(one, oneMinusSourceAlpha, one, oneMinusSourceAlpha)
        }
        setColorWrites(true, indexed: indexed)
        glDisable(GLenum(GL_DEPTH_TEST))
        glDisable(GLenum(GL_CULL_FACE))
        glDisable(GLenum(GL_RASTERIZER_DISCARD))
        glDisable(GLenum(GL_SAMPLE_ALPHA_TO_COVERAGE))
        glDisable(GLenum(GL_SAMPLE_COVERAGE))
        glDisable(GLenum(GL_DITHER))
        glStencilMask(0xff)
        glActiveTexture(GLenum(GL_TEXTURE0))
        glBindVertexArray(vertexArray)
        desktop?.applyDefaults()
    }

    /// Binds `texture` for a transfer (upload, storage, EGL image), on unit 0: the only
    /// unit whose binding Lamina changes (and restores, on an adopted context).
    static func bindForTransfer(texture: GLuint) {
        glActiveTexture(GLenum(GL_TEXTURE0))
        glBindTexture(GLenum(GL_TEXTURE_2D), texture)
    }

    /// Colour writes on or off for the buffer Lamina draws to (draw buffer 0 only, with
    /// indexed draw-buffer state).
    static func setColorWrites(_ on: Bool, indexed: IndexedDrawBufferFunctions?) {
        let v = GLboolean(on ? GL_TRUE : GL_FALSE)
        if let i = indexed { i.colorMask(0, v, v, v, v) } else { glColorMask(v, v, v, v) }
    }

    /// Additive blending (source + destination: a cross-fade sums its two pictures into a
    /// cleared target) or back to premultiplied source-over, for the buffer Lamina draws to.
    static func setAdditive(_ on: Bool, indexed: IndexedDrawBufferFunctions?) {
        let one = GLenum(GL_ONE), destination = on ? one : GLenum(GL_ONE_MINUS_SRC_ALPHA)
        if let i = indexed { i.blendFunc(0, one, destination, one, destination) } else { glBlendFuncSeparate(one, destination, one, destination) }
    }

    /// Blending on (premultiplied source-over, as set for the pass) or off (opaque quads),
    /// for the buffer Lamina draws to.
    static func setBlending(_ on: Bool, indexed: IndexedDrawBufferFunctions?) {
        if let i = indexed {
            (on ? i.enable : i.disable)(GLenum(GL_BLEND), 0)
        } else {
            on ? glEnable(GLenum(GL_BLEND)) : glDisable(GLenum(GL_BLEND))
        }
    }

    /// What a texture upload needs: no unpack buffer, tightly described rows.
    static func applyForUpload(rowLength: GLint) {
        glBindBuffer(GLenum(GL_PIXEL_UNPACK_BUFFER), 0)
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 4)
        glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), rowLength)
        glPixelStorei(GLenum(GL_UNPACK_IMAGE_HEIGHT), 0)
        glPixelStorei(GLenum(GL_UNPACK_SKIP_ROWS), 0)
        glPixelStorei(GLenum(GL_UNPACK_SKIP_PIXELS), 0)
        glPixelStorei(GLenum(GL_UNPACK_SKIP_IMAGES), 0)
    }

    /// What a readback needs.
    static func applyForReadback(framebuffer: GLuint) {
        glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), framebuffer)
        glBindBuffer(GLenum(GL_PIXEL_PACK_BUFFER), 0)
        glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 4)
        glPixelStorei(GLenum(GL_PACK_ROW_LENGTH), 0)
        glPixelStorei(GLenum(GL_PACK_SKIP_ROWS), 0)
        glPixelStorei(GLenum(GL_PACK_SKIP_PIXELS), 0)
    }
}

/// A rectangle of a framebuffer in GL's window coordinates (origin bottom-left).
struct GLViewport: Equatable {
    var x: GLint, y: GLint, width: GLint, height: GLint
}

/// What Lamina needs of a desktop OpenGL context (3.3 core or later, core or
/// compatibility profile) beyond the OpenGL ES 3.0 it is written for: the entry points
/// and limits of the state only desktop GL has. Lamina's GL calls are ES 3.0's, which
/// desktop GL 4.3 (or 3.3 with `GL_ARB_ES3_compatibility`) has too; its shaders are GLSL
/// ES 3.00, compiled as they are or as `#version 330 core` (`GLSLDialect`).
struct DesktopGL {
    typealias ModeFunction = @convention(c) (GLenum, GLenum) -> Void
    /// The compatibility profile (alpha test, separate front and back polygon modes).
    let compatibility: Bool
    /// GL_MAX_CLIP_DISTANCES.
    let clipDistances: Int
    let polygonMode: ModeFunction
    /// glClipControl (GL 4.5, `GL_ARB_clip_control`); nil without it.
    let clipControl: ModeFunction?

    static let framebufferSRGB: Int32 = 0x8DB9, polygonModeQuery: Int32 = 0x0B40, primitiveRestart: Int32 = 0x8F9D
    static let colorLogicOp: Int32 = 0x0BF2, polygonSmooth: Int32 = 0x0B41, multisample: Int32 = 0x809D
    static let sampleAlphaToOne: Int32 = 0x809F
    static let alphaTest: Int32 = 0x0BC0, clipDistance0: Int32 = 0x3000, maxClipDistances: Int32 = 0x0D32
    static let clipOrigin: Int32 = 0x935C, clipDepthMode: Int32 = 0x935D, lowerLeft: Int32 = 0x8CA1
    static let negativeOneToOne: Int32 = 0x935E, fill: Int32 = 0x1B02, front: Int32 = 0x0404, back: Int32 = 0x0405
    static let frontAndBack: Int32 = 0x0408, contextProfileMask: Int32 = 0x9126, compatibilityBit: Int32 = 0x2

    /// Looked up on the current context, when it is desktop GL (nil on OpenGL ES).
    static func load(glVersion: String, extensions: Set<String>) -> DesktopGL? {
        guard !glVersion.hasPrefix("OpenGL ES"), let version = DesktopGL.version(glVersion),
              let polygonMode = eglProcedure("glPolygonMode", as: ModeFunction.self) else { return nil }
        var mask: GLint = 0, clips: GLint = 0
        if version >= (3, 2) { glGetIntegerv(GLenum(contextProfileMask), &mask) }
        glGetIntegerv(GLenum(maxClipDistances), &clips)
        let clipControl = version >= (4, 5) || extensions.contains("GL_ARB_clip_control")
            ? eglProcedure("glClipControl", as: ModeFunction.self) : nil
        return DesktopGL(compatibility: version < (3, 2) || mask & compatibilityBit != 0, clipDistances: Int(max(0, min(clips, 32))),
                         polygonMode: polygonMode, clipControl: clipControl)
    }

    /// Major and minor of a desktop GL_VERSION string ("4.5 (Core Profile) Mesa 22.3.6").
    static func version(_ s: String) -> (Int, Int)? {
        let numbers = s.prefix { $0.isNumber || $0 == "." }.split(separator: ".").compactMap { Int($0) }
        return numbers.count >= 2 ? (numbers[0], numbers[1]) : nil
    }

    /// Why a desktop context cannot run Lamina (too old, or without OpenGL ES 3.0's
    /// functions), or nil.
    static func unsupportedReason(glVersion: String, extensions: Set<String>) -> String? {
        guard let v = version(glVersion) else { return "its GL_VERSION \"\(glVersion)\" cannot be read" }
        if v < (3, 3) { return "it is OpenGL \(v.0).\(v.1); Lamina needs desktop OpenGL 3.3 or later" }
        if v < (4, 3) && !extensions.contains("GL_ARB_ES3_compatibility") {
            return "OpenGL \(v.0).\(v.1) without GL_ARB_ES3_compatibility lacks OpenGL ES 3.0's functions, which Lamina calls; Lamina needs OpenGL 4.3, or 3.3 with that extension"
        }
        return nil
    }

    /// Lamina's settings of the desktop-only state its drawing depends on: no sRGB
    /// encoding on write, no logic op, filled and unsmoothed polygons, no primitive
    /// restart or clip distances, no alpha-to-one, multisampling on (as on ES), GL's clip origin and depth
    /// range, and no alpha test (compatibility profile).
    func applyDefaults() {
        glDisable(GLenum(DesktopGL.framebufferSRGB))
        glDisable(GLenum(DesktopGL.colorLogicOp))
        glDisable(GLenum(DesktopGL.polygonSmooth))
        glDisable(GLenum(DesktopGL.primitiveRestart))
        glDisable(GLenum(DesktopGL.sampleAlphaToOne))
        glEnable(GLenum(DesktopGL.multisample))
        for i in 0..<clipDistances { glDisable(GLenum(DesktopGL.clipDistance0 + Int32(i))) }
        polygonMode(GLenum(DesktopGL.frontAndBack), GLenum(DesktopGL.fill))
        clipControl?(GLenum(DesktopGL.lowerLeft), GLenum(DesktopGL.negativeOneToOne))
        if compatibility { glDisable(GLenum(DesktopGL.alphaTest)) }
    }
}

/// The desktop-only part of a host's state (`DesktopGL.applyDefaults` is what Lamina
/// changes of it).
struct DesktopGLStateSnapshot: Equatable {
    var framebufferSRGB = false, colorLogicOp = false, polygonSmooth = false, primitiveRestart = false, multisample = true
    var sampleAlphaToOne = false
    var clipDistances: [Bool] = []
    /// Front and back polygon modes.
    var polygonMode: [GLint] = [DesktopGL.fill, DesktopGL.fill]
    /// Origin and depth mode (nil without glClipControl).
    var clipControl: [GLint]?
    /// Compatibility profile only.
    var alphaTest: Bool?

    static func capture(_ gl: DesktopGL) -> DesktopGLStateSnapshot {
        func on(_ cap: Int32) -> Bool { glIsEnabled(GLenum(cap)) == GLboolean(GL_TRUE) }
        var s = DesktopGLStateSnapshot()
        s.framebufferSRGB = on(DesktopGL.framebufferSRGB)
        s.colorLogicOp = on(DesktopGL.colorLogicOp)
        s.polygonSmooth = on(DesktopGL.polygonSmooth)
        s.primitiveRestart = on(DesktopGL.primitiveRestart)
        s.multisample = on(DesktopGL.multisample)
        s.sampleAlphaToOne = on(DesktopGL.sampleAlphaToOne)
        s.clipDistances = (0..<gl.clipDistances).map { on(DesktopGL.clipDistance0 + Int32($0)) }
        glGetIntegerv(GLenum(DesktopGL.polygonModeQuery), &s.polygonMode)
        if gl.clipControl != nil {
            var origin: GLint = 0, depth: GLint = 0
            glGetIntegerv(GLenum(DesktopGL.clipOrigin), &origin)
            glGetIntegerv(GLenum(DesktopGL.clipDepthMode), &depth)
            s.clipControl = [origin, depth]
        }
        if gl.compatibility { s.alphaTest = on(DesktopGL.alphaTest) }
        return s
    }

    func restore(_ gl: DesktopGL) {
        func set(_ cap: Int32, _ on: Bool) { on ? glEnable(GLenum(cap)) : glDisable(GLenum(cap)) }
        set(DesktopGL.framebufferSRGB, framebufferSRGB)
        set(DesktopGL.colorLogicOp, colorLogicOp)
        set(DesktopGL.polygonSmooth, polygonSmooth)
        set(DesktopGL.primitiveRestart, primitiveRestart)
        set(DesktopGL.multisample, multisample)
        set(DesktopGL.sampleAlphaToOne, sampleAlphaToOne)
        for (i, on) in clipDistances.enumerated() { set(DesktopGL.clipDistance0 + Int32(i), on) }
        if gl.compatibility && polygonMode[0] != polygonMode[1] {
            gl.polygonMode(GLenum(DesktopGL.front), GLenum(polygonMode[0]))
            gl.polygonMode(GLenum(DesktopGL.back), GLenum(polygonMode[1]))
        } else {
            gl.polygonMode(GLenum(DesktopGL.frontAndBack), GLenum(polygonMode[0]))
        }
        if let c = clipControl { gl.clipControl?(GLenum(c[0]), GLenum(c[1])) }
        if let alphaTest { set(DesktopGL.alphaTest, alphaTest) }
    }
}

/// GL entry points of indexed draw-buffer state (OpenGL ES 3.2, `OES_draw_buffers_indexed`,
/// desktop OpenGL 4.0):
/// with them, Lamina sets and restores draw buffer 0's blending and colour mask only, and
/// leaves the host's other draw buffers' settings alone.
struct IndexedDrawBufferFunctions {
    let enable: PFNGLENABLEIOESPROC
    let disable: PFNGLDISABLEIOESPROC
    let isEnabled: PFNGLISENABLEDIOESPROC
    let blendEquation: PFNGLBLENDEQUATIONSEPARATEIOESPROC
    let blendFunc: PFNGLBLENDFUNCSEPARATEIOESPROC
    let colorMask: PFNGLCOLORMASKIOESPROC
    /// glGetIntegeri_v and glGetBooleani_v: draw buffer 0's blend functions, equations and
    /// colour mask. The plain queries are not enough: what `glIsEnabled(GL_BLEND)` answers
    /// when the buffers differ is the driver's choice (Mesa: buffer 0's; NVIDIA: enabled
    /// when buffer 1's is, seen on an H200 with driver 580).
    let getInteger: PFNGLGETINTEGERI_VPROC
    /// (nil on OpenGL ES 3.0 with the extension: glGetBooleani_v is ES 3.1's; the plain
    /// query is read then.)
    let getBoolean: GetBooleanIndexedProc?
    /// glGetBooleani_v (OpenGL ES 3.1, desktop 3.0: not in the ES 3.0 headers Lamina builds with).
    typealias GetBooleanIndexedProc = @convention(c) (GLenum, GLuint, UnsafeMutablePointer<GLboolean>?) -> Void

    /// Looked up when the context has them (ES 3.2 or an indexed draw-buffers extension;
    /// desktop GL 4.0, or 3.x with GL_ARB_draw_buffers_blend).
    static func load(glVersion: String, extensions: Set<String>) -> IndexedDrawBufferFunctions? {
        // (enable, disable, isEnabled and colorMask suffix; blend functions' suffix)
        let suffixes: (String, String)
        let desktop = glVersion.hasPrefix("OpenGL ES") ? nil : DesktopGL.version(glVersion)
        if glVersion.hasPrefix("OpenGL ES 3.2") || glVersion.hasPrefix("OpenGL ES 4") { suffixes = ("", "") }
        // Desktop GL 4.0 has them all (glEnablei, glIsEnabledi and glColorMaski since 3.0).
        else if let v = desktop, v >= (4, 0) { suffixes = ("", "") }
        else if desktop != nil, extensions.contains("GL_ARB_draw_buffers_blend") { suffixes = ("", "ARB") }
        else if desktop == nil, extensions.contains("GL_OES_draw_buffers_indexed") { suffixes = ("OES", "OES") }
        else if desktop == nil, extensions.contains("GL_EXT_draw_buffers_indexed") { suffixes = ("EXT", "EXT") }
        else { return nil }
        guard let enable = eglProcedure("glEnablei" + suffixes.0, as: PFNGLENABLEIOESPROC.self),
              let disable = eglProcedure("glDisablei" + suffixes.0, as: PFNGLDISABLEIOESPROC.self),
              let isEnabled = eglProcedure("glIsEnabledi" + suffixes.0, as: PFNGLISENABLEDIOESPROC.self),
              let equation = eglProcedure("glBlendEquationSeparatei" + suffixes.1, as: PFNGLBLENDEQUATIONSEPARATEIOESPROC.self),
              let function = eglProcedure("glBlendFuncSeparatei" + suffixes.1, as: PFNGLBLENDFUNCSEPARATEIOESPROC.self),
              let mask = eglProcedure("glColorMaski" + suffixes.0, as: PFNGLCOLORMASKIOESPROC.self),
              let getInteger = eglProcedure("glGetIntegeri_v", as: PFNGLGETINTEGERI_VPROC.self) else { return nil }
        let getBoolean = eglProcedure("glGetBooleani_v", as: GetBooleanIndexedProc.self)
        return IndexedDrawBufferFunctions(enable: enable, disable: disable, isEnabled: isEnabled, blendEquation: equation, blendFunc: function,
                                          colorMask: mask, getInteger: getInteger, getBoolean: getBoolean)
    }
}

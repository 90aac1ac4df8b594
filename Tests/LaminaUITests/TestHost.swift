import CEGL
import CGLES
import Foundation
import LaminaCore
import LaminaGeometry
import LaminaGPU
import Testing

/// A host program's GL, made the way a host makes it and without Lamina: its own EGL
/// context (OpenGL ES 3 on Mesa's surfaceless platform), optionally a pbuffer window
/// surface with depth and stencil, its own framebuffers, buffers and shader program.
/// Lamina is then adopted into (or shares with) this context in the tests.
///
/// The display is never terminated: EGL displays are process-wide, and other tests'
/// devices may be using the same one.
final class TestHost {
    struct HostError: Error, CustomStringConvertible { var description: String }

    let display: EGLDisplay
    let context: EGLContext
    let config: EGLConfig?
    let surface: EGLSurface?
    private var extraSurfaces: [EGLSurface] = []
    let surfaceSize: PixelSize?
    private(set) var program: GLuint = 0
    private var colorLocation: GLint = -1
    private var vertexArray: GLuint = 0
    private var buffer: GLuint = 0
    private var framebuffers: [HostFramebuffer] = []

    /// A framebuffer of the host: a texture, and a depth/stencil renderbuffer if asked.
    struct HostFramebuffer {
        var fbo: GLuint
        var texture: GLuint
        var depthStencil: GLuint
        var size: PixelSize
    }

    /// The kind of context a host makes (GTK 4 and Qt 6 make desktop contexts by default).
    enum API: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case es3 = "OpenGL ES 3.0"
        /// Asked for 3.3 core (Mesa gives the newest core version it has).
        case core33 = "OpenGL 3.3 core"
        case compatibility45 = "OpenGL 4.5 compatibility"
        var isDesktop: Bool { self != .es3 }
        var eglAPI: EGLenum { EGLenum(isDesktop ? EGL_OPENGL_API : EGL_OPENGL_ES_API) }
        var testDescription: String { rawValue }
        static var desktop: [API] { [.core33, .compatibility45] }
    }
    let api: API

    init(surface size: PixelSize? = nil, api: API = .es3) throws {
        guard let d = eglGetPlatformDisplay(EGLenum(EGL_PLATFORM_SURFACELESS_MESA), nil, nil) else {
            throw HostError(description: "no surfaceless display")
        }
        var major: EGLint = 0, minor: EGLint = 0
        guard eglInitialize(d, &major, &minor) == EGL_TRUE else { throw HostError(description: "eglInitialize failed") }
        eglBindAPI(api.eglAPI)
        let want: [EGLint] = [EGL_RENDERABLE_TYPE, api.isDesktop ? EGL_OPENGL_BIT : EGL_OPENGL_ES3_BIT, EGL_SURFACE_TYPE, EGL_PBUFFER_BIT,
                              EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8,
                              EGL_DEPTH_SIZE, 24, EGL_STENCIL_SIZE, 8, EGL_NONE]
        var config: EGLConfig?
        var n: EGLint = 0
        guard eglChooseConfig(d, want, &config, 1, &n) == EGL_TRUE, n > 0 else { throw HostError(description: "no \(api.rawValue) pbuffer config") }
        let attributes: [EGLint]
        switch api {
        case .es3: attributes = [EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE]
        case .core33: attributes = [EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                    EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE]
        case .compatibility45: attributes = [EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
                                             EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT, EGL_NONE]
        }
        guard let c = eglCreateContext(d, config, nil, attributes) else {
            throw HostError(description: "eglCreateContext (\(api.rawValue)) failed")
        }
        self.api = api
        display = d
        context = c
        self.config = config
        surfaceSize = size
        if let size {
            surface = eglCreatePbufferSurface(d, config, [EGL_WIDTH, EGLint(size.width), EGL_HEIGHT, EGLint(size.height), EGL_NONE])
            guard surface != nil else { throw HostError(description: "eglCreatePbufferSurface failed") }
        } else {
            surface = nil
        }
        makeCurrent()
        try buildProgram()
    }

    func makeCurrent(surface other: EGLSurface? = nil) {
        eglBindAPI(api.eglAPI)
        let s = other ?? surface
        precondition(eglMakeCurrent(display, s, s, context) == EGL_TRUE, "host eglMakeCurrent failed")
    }

    /// Another window surface (a pbuffer) of the host's configuration.
    func makeSurface(_ size: PixelSize) throws -> EGLSurface {
        guard let s = eglCreatePbufferSurface(display, config, [EGL_WIDTH, EGLint(size.width), EGL_HEIGHT, EGLint(size.height), EGL_NONE]) else {
            throw HostError(description: "eglCreatePbufferSurface failed")
        }
        extraSurfaces.append(s)
        return s
    }

    var isCurrent: Bool { eglGetCurrentContext() == context }

    private var destroyed = false

    /// Frees the host's objects, surfaces and context (never the display). Once.
    func destroy() {
        guard !destroyed else { return }
        destroyed = true
        makeCurrent()
        for f in framebuffers {
            var fbo = f.fbo, t = f.texture, rb = f.depthStencil
            glDeleteFramebuffers(1, &fbo); glDeleteTextures(1, &t)
            if rb != 0 { glDeleteRenderbuffers(1, &rb) }
        }
        framebuffers = []
        glDeleteProgram(program)
        glDeleteVertexArrays(1, &vertexArray)
        glDeleteBuffers(1, &buffer)
        eglMakeCurrent(display, nil, nil, nil)
        if let surface { eglDestroySurface(display, surface) }
        for s in extraSurfaces { eglDestroySurface(display, s) }
        eglDestroyContext(display, context)
    }

    /// A program of the host's own that draws a solid colour (for tests that delete it).
    func makeSolidProgram() -> GLuint {
        try! linkProgram(vertex: "#version 300 es\nlayout(location = 0) in vec2 p;\nvoid main() { gl_Position = vec4(p, 0.0, 1.0); }\n",
                         fragment: "#version 300 es\nprecision mediump float;\nout vec4 o;\nvoid main() { o = vec4(1.0); }\n")
    }

    /// Starts transform feedback the way a host capturing vertices would, and leaves it
    /// active and running (its program current).
    func beginTransformFeedback() {
        let p = try! linkProgram(vertex: "#version 300 es\nlayout(location = 0) in vec2 p;\nout float captured;\nvoid main() { captured = p.x; gl_Position = vec4(p, 0.0, 1.0); }\n",
                                 fragment: "#version 300 es\nprecision mediump float;\nout vec4 o;\nvoid main() { o = vec4(1.0); }\n",
                                 varyings: ["captured"])
        var tf: GLuint = 0, buffer: GLuint = 0
        glGenTransformFeedbacks(1, &tf)
        glBindTransformFeedback(GLenum(GL_TRANSFORM_FEEDBACK), tf)
        glGenBuffers(1, &buffer)
        glBindBuffer(GLenum(GL_TRANSFORM_FEEDBACK_BUFFER), buffer)
        glBufferData(GLenum(GL_TRANSFORM_FEEDBACK_BUFFER), 4096, nil, GLenum(GL_STREAM_READ))
        glBindBufferBase(GLenum(GL_TRANSFORM_FEEDBACK_BUFFER), 0, buffer)
        glUseProgram(p)
        glBeginTransformFeedback(GLenum(GL_TRIANGLES))
    }

    private func linkProgram(vertex: String, fragment: String, varyings: [String] = []) throws -> GLuint {
        func compile(_ type: Int32, _ source: String) throws -> GLuint {
            let s = glCreateShader(GLenum(type))
            source.withCString { cs in var p: UnsafePointer<GLchar>? = cs; glShaderSource(s, 1, &p, nil) }
            glCompileShader(s)
            var ok: GLint = 0
            glGetShaderiv(s, GLenum(GL_COMPILE_STATUS), &ok)
            guard ok == GL_TRUE else { throw HostError(description: "host shader failed to compile") }
            return s
        }
        let vs = try compile(GL_VERTEX_SHADER, vertex), fs = try compile(GL_FRAGMENT_SHADER, fragment)
        let p = glCreateProgram()
        glAttachShader(p, vs); glAttachShader(p, fs)
        if !varyings.isEmpty {
            var names = varyings.map { strdup($0) }
            defer { names.forEach { free($0) } }
            names.withUnsafeMutableBufferPointer { b in
                b.baseAddress!.withMemoryRebound(to: UnsafePointer<GLchar>?.self, capacity: b.count) {
                    glTransformFeedbackVaryings(p, GLsizei(varyings.count), $0, GLenum(GL_INTERLEAVED_ATTRIBS))
                }
            }
        }
        glLinkProgram(p)
        glDeleteShader(vs); glDeleteShader(fs)
        var ok: GLint = 0
        glGetProgramiv(p, GLenum(GL_LINK_STATUS), &ok)
        guard ok == GL_TRUE else { throw HostError(description: "host program failed to link") }
        return p
    }

    private func buildProgram() throws {
        program = try linkProgram(vertex: "#version 300 es\nlayout(location = 0) in vec2 p;\nvoid main() { gl_Position = vec4(p, 0.0, 1.0); }\n",
                                  fragment: "#version 300 es\nprecision mediump float;\nuniform vec4 color;\nout vec4 o;\nvoid main() { o = color; }\n")
        colorLocation = glGetUniformLocation(program, "color")
        glGenVertexArrays(1, &vertexArray)
        glGenBuffers(1, &buffer)
        glBindVertexArray(vertexArray)
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), buffer)
        let quad: [Float] = [-1, -1, 1, -1, -1, 1, 1, 1]
        glBufferData(GLenum(GL_ARRAY_BUFFER), quad.count * 4, quad, GLenum(GL_STATIC_DRAW))
        glEnableVertexAttribArray(0)
        glVertexAttribPointer(0, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 8, nil)
        glBindVertexArray(0)
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), 0)
    }

    /// A framebuffer of the host's, `size` pixels, RGBA8, with depth/stencil if asked.
    func makeFramebuffer(_ size: PixelSize, depthStencil: Bool = true, sRGB: Bool = false) -> HostFramebuffer {
        var tex: GLuint = 0, fbo: GLuint = 0, rb: GLuint = 0
        glGenTextures(1, &tex)
        glBindTexture(GLenum(GL_TEXTURE_2D), tex)
        glTexImage2D(GLenum(GL_TEXTURE_2D), 0, sRGB ? GL_SRGB8_ALPHA8 : GL_RGBA8, GLsizei(size.width), GLsizei(size.height), 0,
                     GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), nil)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MIN_FILTER), GL_NEAREST)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MAG_FILTER), GL_NEAREST)
        glBindTexture(GLenum(GL_TEXTURE_2D), 0)
        glGenFramebuffers(1, &fbo)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), fbo)
        glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D), tex, 0)
        if depthStencil {
            glGenRenderbuffers(1, &rb)
            glBindRenderbuffer(GLenum(GL_RENDERBUFFER), rb)
            glRenderbufferStorage(GLenum(GL_RENDERBUFFER), GLenum(GL_DEPTH24_STENCIL8), GLsizei(size.width), GLsizei(size.height))
            glBindRenderbuffer(GLenum(GL_RENDERBUFFER), 0)
            glFramebufferRenderbuffer(GLenum(GL_FRAMEBUFFER), GLenum(GL_DEPTH_STENCIL_ATTACHMENT), GLenum(GL_RENDERBUFFER), rb)
        }
        precondition(glCheckFramebufferStatus(GLenum(GL_FRAMEBUFFER)) == GLenum(GL_FRAMEBUFFER_COMPLETE))
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
        let f = HostFramebuffer(fbo: fbo, texture: tex, depthStencil: rb, size: size)
        framebuffers.append(f)
        return f
    }

    /// The host's own drawing: a solid rectangle (GL window coordinates, origin bottom-left)
    /// with the host's program, vertex array and scissor, into `framebuffer`. Leaves the
    /// host's state as the host wants it (its program and vertex array bound).
    func fill(_ framebuffer: GLuint, _ rect: PixelRect, _ c: (Float, Float, Float, Float), size: PixelSize) {
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
        glViewport(0, 0, GLsizei(size.width), GLsizei(size.height))
        let scissor = glIsEnabled(GLenum(GL_SCISSOR_TEST))
        glEnable(GLenum(GL_SCISSOR_TEST))
        glScissor(GLint(rect.x), GLint(rect.y), GLsizei(rect.width), GLsizei(rect.height))
        glUseProgram(program)
        glUniform4f(colorLocation, c.0, c.1, c.2, c.3)
        glBindVertexArray(vertexArray)
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
        if scissor != GLboolean(GL_TRUE) { glDisable(GLenum(GL_SCISSOR_TEST)) }
    }

    /// Reads a texture of this context or its share group (Lamina's, by its GL name)
    /// through a framebuffer of the host's; row 0 first.
    func read(texture name: GLuint, size: PixelSize) -> RGBAImage {
        var fbo: GLuint = 0
        glGenFramebuffers(1, &fbo)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), fbo)
        glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D), name, 0)
        let image = read(fbo, size: size, bottomRowFirst: false)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
        glDeleteFramebuffers(1, &fbo)
        return image
    }

    /// Reads `framebuffer` with the host's own state set for it; top row of the picture
    /// first when the framebuffer is drawn bottom-row-first (GL's orientation).
    func read(_ framebuffer: GLuint, size: PixelSize, bottomRowFirst: Bool = true) -> RGBAImage {
        var pack: [GLint] = [0, 0, 0, 0], packBuffer: GLint = 0, readFB: GLint = 0
        for (i, name) in [GL_PACK_ALIGNMENT, GL_PACK_ROW_LENGTH, GL_PACK_SKIP_ROWS, GL_PACK_SKIP_PIXELS].enumerated() {
            glGetIntegerv(GLenum(name), &pack[i])
        }
        glGetIntegerv(GLenum(GL_PIXEL_PACK_BUFFER_BINDING), &packBuffer)
        glGetIntegerv(GLenum(GL_READ_FRAMEBUFFER_BINDING), &readFB)
        glBindBuffer(GLenum(GL_PIXEL_PACK_BUFFER), 0)
        glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 4); glPixelStorei(GLenum(GL_PACK_ROW_LENGTH), 0)
        glPixelStorei(GLenum(GL_PACK_SKIP_ROWS), 0); glPixelStorei(GLenum(GL_PACK_SKIP_PIXELS), 0)
        glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), framebuffer)
        var bytes = [UInt8](repeating: 0, count: size.width * size.height * 4)
        glReadPixels(0, 0, GLsizei(size.width), GLsizei(size.height), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), &bytes)
        glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), GLuint(readFB))
        glBindBuffer(GLenum(GL_PIXEL_PACK_BUFFER), GLuint(packBuffer))
        for (i, name) in [GL_PACK_ALIGNMENT, GL_PACK_ROW_LENGTH, GL_PACK_SKIP_ROWS, GL_PACK_SKIP_PIXELS].enumerated() {
            glPixelStorei(GLenum(name), pack[i])
        }
        var image = RGBAImage(width: size.width, height: size.height, bytes: bytes)
        if bottomRowFirst {
            var flipped = image
            for y in 0..<size.height { for x in 0..<size.width { flipped[x, y] = image[x, size.height - 1 - y] } }
            image = flipped
        }
        return image
    }
}

/// A host context with one framebuffer of its own (with depth and stencil), and a Lamina
/// device adopted into the context: the setup of most embedding tests. Commits what other
/// tests left pending first.
@MainActor
final class AdoptedHost {
    let host: TestHost
    let framebuffer: TestHost.HostFramebuffer
    let device: GPUDevice
    var size: PixelSize { framebuffer.size }

    init(framebuffer size: PixelSize) throws {
        try Transaction.flush()
        host = try TestHost()
        framebuffer = host.makeFramebuffer(size)
        device = try GPUDevice(adopting: .current)
    }

    /// The host draws its whole frame in one colour.
    func fill(_ c: (Float, Float, Float, Float)) { host.fill(framebuffer.fbo, PixelRect(size: size), c, size: size) }
    /// The host reads its framebuffer (top row first).
    func read() -> RGBAImage { host.read(framebuffer.fbo, size: size) }
    /// A target on the host's framebuffer (or a region of it).
    func target(region: PixelRect? = nil) throws -> ExternalFramebufferTarget {
        try ExternalFramebufferTarget(device: device, framebuffer: framebuffer.fbo, pixelSize: size, region: region)
    }

    func close() {
        device.close()
        host.destroy()
    }
}

/// The host's GL state, read with the test's own queries (independent of Lamina's
/// snapshot): every binding, switch, function, mask, clear value and pixel-store
/// parameter a host might rely on. Equal before and after a Lamina call = untouched.
func hostStateFingerprint() -> [String: [Int]] {
    func ints(_ name: Int32, _ n: Int = 1) -> [Int] {
        var v = [GLint](repeating: 0, count: n); glGetIntegerv(GLenum(name), &v); return v.map(Int.init)
    }
    func floats(_ name: Int32, _ n: Int) -> [Int] {
        var v = [GLfloat](repeating: 0, count: n); glGetFloatv(GLenum(name), &v); return v.map { Int(($0 * 1000).rounded()) }
    }
    var f: [String: [Int]] = [:]
    let single: [(String, Int32)] = [
        ("drawFramebuffer", GL_DRAW_FRAMEBUFFER_BINDING), ("readFramebuffer", GL_READ_FRAMEBUFFER_BINDING),
        ("renderbuffer", GL_RENDERBUFFER_BINDING), ("program", GL_CURRENT_PROGRAM), ("vertexArray", GL_VERTEX_ARRAY_BINDING),
        ("arrayBuffer", GL_ARRAY_BUFFER_BINDING), ("unpackBuffer", GL_PIXEL_UNPACK_BUFFER_BINDING),
        ("packBuffer", GL_PIXEL_PACK_BUFFER_BINDING), ("uniformBuffer", GL_UNIFORM_BUFFER_BINDING),
        ("activeTexture", GL_ACTIVE_TEXTURE), ("blendSrcRGB", GL_BLEND_SRC_RGB), ("blendDstRGB", GL_BLEND_DST_RGB),
        ("blendSrcAlpha", GL_BLEND_SRC_ALPHA), ("blendDstAlpha", GL_BLEND_DST_ALPHA),
        ("blendEquationRGB", GL_BLEND_EQUATION_RGB), ("blendEquationAlpha", GL_BLEND_EQUATION_ALPHA),
        ("depthFunc", GL_DEPTH_FUNC), ("depthMask", GL_DEPTH_WRITEMASK), ("stencilFunc", GL_STENCIL_FUNC),
        ("stencilRef", GL_STENCIL_REF), ("stencilValueMask", GL_STENCIL_VALUE_MASK), ("stencilWriteMask", GL_STENCIL_WRITEMASK),
        ("stencilFail", GL_STENCIL_FAIL), ("stencilZFail", GL_STENCIL_PASS_DEPTH_FAIL), ("stencilZPass", GL_STENCIL_PASS_DEPTH_PASS),
        ("stencilBackFunc", GL_STENCIL_BACK_FUNC), ("stencilBackWriteMask", GL_STENCIL_BACK_WRITEMASK),
        ("stencilBackFail", GL_STENCIL_BACK_FAIL), ("stencilClear", GL_STENCIL_CLEAR_VALUE),
        ("stencilBackRef", GL_STENCIL_BACK_REF), ("stencilBackValueMask", GL_STENCIL_BACK_VALUE_MASK),
        ("stencilBackZFail", GL_STENCIL_BACK_PASS_DEPTH_FAIL), ("stencilBackZPass", GL_STENCIL_BACK_PASS_DEPTH_PASS),
        ("transformFeedback", GL_TRANSFORM_FEEDBACK_BINDING), ("transformFeedbackBuffer", GL_TRANSFORM_FEEDBACK_BUFFER_BINDING),
        ("copyReadBuffer", GL_COPY_READ_BUFFER_BINDING), ("copyWriteBuffer", GL_COPY_WRITE_BUFFER_BINDING),
        ("elementArrayBuffer", GL_ELEMENT_ARRAY_BUFFER_BINDING),
        ("frontFace", GL_FRONT_FACE), ("cullFaceMode", GL_CULL_FACE_MODE),
        ("unpackAlignment", GL_UNPACK_ALIGNMENT), ("unpackRowLength", GL_UNPACK_ROW_LENGTH),
        ("unpackImageHeight", GL_UNPACK_IMAGE_HEIGHT), ("unpackSkipRows", GL_UNPACK_SKIP_ROWS),
        ("unpackSkipPixels", GL_UNPACK_SKIP_PIXELS), ("unpackSkipImages", GL_UNPACK_SKIP_IMAGES),
        ("packAlignment", GL_PACK_ALIGNMENT), ("packRowLength", GL_PACK_ROW_LENGTH),
        ("packSkipRows", GL_PACK_SKIP_ROWS), ("packSkipPixels", GL_PACK_SKIP_PIXELS),
    ]
    for (key, name) in single { f[key] = ints(name) }
    f["viewport"] = ints(GL_VIEWPORT, 4)
    f["scissorBox"] = ints(GL_SCISSOR_BOX, 4)
    f["clearColor"] = floats(GL_COLOR_CLEAR_VALUE, 4)
    f["clearDepth"] = floats(GL_DEPTH_CLEAR_VALUE, 1)
    f["blendColor"] = floats(GL_BLEND_COLOR, 4)
    var mask: [GLboolean] = [0, 0, 0, 0]
    glGetBooleanv(GLenum(GL_COLOR_WRITEMASK), &mask)
    f["colorMask"] = mask.map(Int.init)
    for (key, cap) in [("blend", GL_BLEND), ("cull", GL_CULL_FACE), ("depthTest", GL_DEPTH_TEST), ("scissor", GL_SCISSOR_TEST),
                       ("stencilTest", GL_STENCIL_TEST), ("dither", GL_DITHER), ("rasterizerDiscard", GL_RASTERIZER_DISCARD),
                       ("alphaToCoverage", GL_SAMPLE_ALPHA_TO_COVERAGE), ("sampleCoverage", GL_SAMPLE_COVERAGE),
                       ("polygonOffsetFill", GL_POLYGON_OFFSET_FILL), ("primitiveRestart", GL_PRIMITIVE_RESTART_FIXED_INDEX)] {
        f[key] = [Int(glIsEnabled(GLenum(cap)))]
    }
    var tfActive: GLboolean = 0, tfPaused: GLboolean = 0
    glGetBooleanv(GLenum(GL_TRANSFORM_FEEDBACK_ACTIVE), &tfActive)
    glGetBooleanv(GLenum(GL_TRANSFORM_FEEDBACK_PAUSED), &tfPaused)
    f["transformFeedbackActivePaused"] = [Int(tfActive), Int(tfPaused)]
    var query: GLint = 0
    glGetQueryiv(GLenum(GL_ANY_SAMPLES_PASSED), GLenum(GL_CURRENT_QUERY), &query)
    f["currentQuery"] = [Int(query)]
    // Blending and colour masks of draw buffers 0 to 3 (indexed state, ES 3.2).
    let i = HostIndexedState.functions
    for buffer in 0..<4 {
        var v = [GLint](repeating: 0, count: 6)
        for (k, name) in [GL_BLEND_SRC_RGB, GL_BLEND_DST_RGB, GL_BLEND_SRC_ALPHA, GL_BLEND_DST_ALPHA,
                          GL_BLEND_EQUATION_RGB, GL_BLEND_EQUATION_ALPHA].enumerated() {
            glGetIntegeri_v(GLenum(name), GLuint(buffer), &v[k])
        }
        var m: [GLboolean] = [0, 0, 0, 0]
        i.getBooleani(GLenum(GL_COLOR_WRITEMASK), GLuint(buffer), &m)
        f["drawBuffer\(buffer)"] = [Int(i.isEnabled(GLenum(GL_BLEND), GLuint(buffer)))] + v.map(Int.init) + m.map(Int.init)
    }
    // Texture and sampler bindings of units 0 to 3, then the active unit put back.
    let active = ints(GL_ACTIVE_TEXTURE)[0]
    for unit in 0..<4 {
        glActiveTexture(GLenum(GL_TEXTURE0 + Int32(unit)))
        f["texture2D\(unit)"] = ints(GL_TEXTURE_BINDING_2D)
        f["sampler\(unit)"] = ints(GL_SAMPLER_BINDING)
    }
    glActiveTexture(GLenum(active))
    if let version = glGetString(GLenum(GL_VERSION)).map({ String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) }),
       !version.hasPrefix("OpenGL ES") {
        desktopFingerprint(into: &f)
    }
    return f
}

/// The state only desktop OpenGL has (and the compatibility profile's alpha test).
private func desktopFingerprint(into f: inout [String: [Int]]) {
    func ints(_ name: Int32, _ n: Int = 1) -> [Int] {
        var v = [GLint](repeating: 0, count: n); glGetIntegerv(GLenum(name), &v); return v.map(Int.init)
    }
    for (key, cap) in [("framebufferSRGB", 0x8DB9), ("colorLogicOp", 0x0BF2), ("polygonSmooth", 0x0B41), ("lineSmooth", 0x0B20),
                       ("primitiveRestartDesktop", 0x8F9D), ("multisample", 0x809D), ("programPointSize", 0x8642),
                       ("depthClamp", 0x864F)] as [(String, Int32)] {
        f[key] = [Int(glIsEnabled(GLenum(cap)))]
    }
    let clips = ints(0x0D32)[0]
    f["clipDistances"] = (0..<clips).map { Int(glIsEnabled(GLenum(0x3000 + Int32($0)))) }
    for (key, name, n) in [("logicOpMode", 0x0BF0, 1), ("polygonMode", 0x0B40, 2), ("primitiveRestartIndex", 0x8F9E, 1),
                           ("clipOrigin", 0x935C, 1), ("clipDepthMode", 0x935D, 1), ("unpackSwapBytes", 0x0CF0, 1),
                           ("unpackLSBFirst", 0x0CF1, 1), ("packSwapBytes", 0x0D00, 1), ("packLSBFirst", 0x0D01, 1),
                           ("packImageHeight", 0x806C, 1), ("packSkipImages", 0x806B, 1)] as [(String, Int32, Int)] {
        f[key] = ints(name, n)
    }
    var mask: GLint = 0
    glGetIntegerv(GLenum(0x9126), &mask)
    if mask & 2 != 0 {
        f["alphaTest"] = [Int(glIsEnabled(GLenum(0x0BC0)))] + ints(0x0BC1)
    }
}

/// Desktop-only GL entry points a host calls (looked up as a host would).
enum HostDesktopGL {
    typealias Mode = @convention(c) (GLenum, GLenum) -> Void
    typealias One = @convention(c) (GLenum) -> Void
    typealias Index = @convention(c) (GLuint) -> Void
    typealias AlphaFunc = @convention(c) (GLenum, GLfloat) -> Void
    private static func load<T>(_ name: String, _ type: T.Type) -> T { unsafeBitCast(eglGetProcAddress(name)!, to: type) }
    static var polygonMode: Mode { load("glPolygonMode", Mode.self) }
    static var logicOp: One { load("glLogicOp", One.self) }
    static var primitiveRestartIndex: Index { load("glPrimitiveRestartIndex", Index.self) }
    static var clipControl: Mode { load("glClipControl", Mode.self) }
    static var alphaFunc: AlphaFunc { load("glAlphaFunc", AlphaFunc.self) }
}

/// Keys whose values differ between two fingerprints.
func changedState(_ a: [String: [Int]], _ b: [String: [Int]]) -> [String] {
    Set(a.keys).union(b.keys).filter { a[$0] != b[$0] }.sorted().map { "\($0): \(a[$0] ?? []) → \(b[$0] ?? [])" }
}

/// The host's indexed draw-buffer entry points (OpenGL ES 3.2), looked up as a host would.
enum HostIndexedState {
    struct Functions {
        let enable: PFNGLENABLEIOESPROC
        let isEnabled: PFNGLISENABLEDIOESPROC
        let colorMask: PFNGLCOLORMASKIOESPROC
        let blendFunc: PFNGLBLENDFUNCSEPARATEIOESPROC
        let blendEquation: PFNGLBLENDEQUATIONSEPARATEIOESPROC
        let getBooleani: @convention(c) (GLenum, GLuint, UnsafeMutablePointer<GLboolean>?) -> Void
    }
    static var functions: Functions {
        func load<T>(_ name: String, _ type: T.Type) -> T { unsafeBitCast(eglGetProcAddress(name)!, to: type) }
        return Functions(enable: load("glEnablei", PFNGLENABLEIOESPROC.self), isEnabled: load("glIsEnabledi", PFNGLISENABLEDIOESPROC.self),
                         colorMask: load("glColorMaski", PFNGLCOLORMASKIOESPROC.self),
                         blendFunc: load("glBlendFuncSeparatei", PFNGLBLENDFUNCSEPARATEIOESPROC.self),
                         blendEquation: load("glBlendEquationSeparatei", PFNGLBLENDEQUATIONSEPARATEIOESPROC.self),
                         getBooleani: load("glGetBooleani_v", (@convention(c) (GLenum, GLuint, UnsafeMutablePointer<GLboolean>?) -> Void).self))
    }
}

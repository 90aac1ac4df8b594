import CEGL
import CGLES
import Foundation
import LaminaGeometry
import LaminaGPU

/// The raw-GL "ceiling" of `lamina bench`: the least work that draws a scene's pixels.
///
/// It is deliberately not Lamina: its own EGL context (on the surfaceless platform, or the
/// device platform when Lamina's device is there), its own framebuffer object, one program,
/// one vertex buffer refilled every frame and **one draw call per frame**. Each frame the
/// scene writes every quad's four corners (clip-space x, y, w: perspective-correct), texture
/// coordinates, texture layer and colour on the CPU (`QuadWriter`); `draw` uploads them with
/// one `glBufferData` and draws them with one `glDrawElements`. Textures are prepared up front:
/// distinct images of one size go into one `GL_TEXTURE_2D_ARRAY` (sampled layer by layer, so
/// nothing bleeds between images, with clamped edges like Lamina's own textures), and one
/// extra 2D texture holds a single image or a drawn bitmap (S3's, uploaded every frame with
/// `glTexSubImage2D`). Its framebuffer's storage is Lamina's (`GPUDevice.targetStorage`):
/// llvmpipe rasterizes BGRA8 and RGBA8 colour buffers by different paths, which differ in
/// speed and at the target's edges. Blending is premultiplied source-over (`ONE, ONE_MINUS_SRC_ALPHA`),
/// as Lamina's. Nothing is retained between frames but textures: every frame is cleared and
/// drawn whole.
///
/// It never terminates its EGL display: Mesa hands every caller of a platform the same
/// display, Lamina's included.
final class Ceiling {
    let display: EGLDisplay
    let context: EGLContext
    /// Which EGL platform the context is on.
    let platform: String
    let pixelSize: PixelSize
    /// The framebuffer's colour storage.
    let storage: TextureStorage

    private var framebuffer: GLuint = 0
    private var colorTexture: GLuint = 0
    private var program: GLuint = 0
    private var vertexArray: GLuint = 0
    private var vertexBuffer: GLuint = 0
    private var indexBuffer: GLuint = 0
    private var indexCapacity = 0   // quads the index buffer covers
    private var layerTexture: GLuint = 0
    private var singleTexture: GLuint = 0
    private var singleSize = PixelSize(width: 0, height: 0)

    /// Opens the context. `devicePlatform`: on EGL's device platform (first device) rather
    /// than the surfaceless one (each falls back to the other).
    init(pixelSize: PixelSize, devicePlatform: Bool, storage: TextureStorage) throws {
        self.pixelSize = pixelSize
        self.storage = storage
        var opened: (EGLDisplay, String)?
        var reasons: [String] = []
        for useDevice in devicePlatform ? [true, false] : [false, true] {
            do {
                opened = useDevice ? (try Ceiling.deviceDisplay(), "device") : (try Ceiling.surfacelessDisplay(), "surfaceless")
                break
            } catch {
                reasons.append("\(error)")
            }
        }
        guard let (display, platform) = opened else {
            throw BenchError("the ceiling could not open an EGL display: \(reasons.joined(separator: "; "))")
        }
        self.display = display
        self.platform = platform
        eglBindAPI(EGLenum(EGL_OPENGL_ES_API))
        // Displays without configurations (the device platform) take contexts without one.
        var config: EGLConfig?
        let extensions = eglQueryString(display, EGL_EXTENSIONS).map { String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen($0)), as: UTF8.self) } ?? ""
        if !extensions.split(separator: " ").contains("EGL_KHR_no_config_context") {
            var n: EGLint = 0
            let want: [EGLint] = [EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_NONE]
            guard eglChooseConfig(display, want, &config, 1, &n) == EGL_TRUE, n > 0 else {
                throw BenchError("the ceiling: eglChooseConfig found no OpenGL ES 3 configuration (0x\(String(eglGetError(), radix: 16)))")
            }
        }
        let attributes: [EGLint] = [EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 0, EGL_NONE]
        guard let context = eglCreateContext(display, config, nil, attributes) else {
            throw BenchError("the ceiling: eglCreateContext failed (0x\(String(eglGetError(), radix: 16)))")
        }
        self.context = context
        try makeCurrent()
        try setUp()
    }

    private static func surfacelessDisplay() throws -> EGLDisplay {
        guard let d = eglGetPlatformDisplay(EGLenum(EGL_PLATFORM_SURFACELESS_MESA), nil, nil) else {
            throw BenchError("no surfaceless platform")
        }
        guard eglInitialize(d, nil, nil) == EGL_TRUE else { throw BenchError("eglInitialize (surfaceless) failed") }
        return d
    }

    private static func deviceDisplay() throws -> EGLDisplay {
        guard let address = eglGetProcAddress("eglQueryDevicesEXT") else { throw BenchError("no eglQueryDevicesEXT") }
        let query = unsafeBitCast(address, to: PFNEGLQUERYDEVICESEXTPROC.self)
        var devices = [EGLDeviceEXT?](repeating: nil, count: 8)
        var count: EGLint = 0
        guard query(8, &devices, &count) == EGL_TRUE, count > 0, let device = devices[0] else { throw BenchError("no EGL device") }
        guard let d = eglGetPlatformDisplay(EGLenum(EGL_PLATFORM_DEVICE_EXT), UnsafeMutableRawPointer(device), nil) else {
            throw BenchError("no device platform display")
        }
        guard eglInitialize(d, nil, nil) == EGL_TRUE else { throw BenchError("eglInitialize (device) failed") }
        return d
    }

    /// Makes the ceiling's context current on this thread (no surface: it draws into its FBO).
    func makeCurrent() throws {
        guard eglMakeCurrent(display, nil, nil, context) == EGL_TRUE else {
            throw BenchError("the ceiling: eglMakeCurrent failed (0x\(String(eglGetError(), radix: 16)))")
        }
    }

    /// Leaves no context current (what a program that uses Lamina alone has).
    func releaseCurrent() {
        eglMakeCurrent(display, nil, nil, nil)
    }

    static let vertexShader = """
        #version 300 es
        layout(location = 0) in vec3 a_position;   // clip-space x, y and w (z is 0, as Lamina's)
        layout(location = 1) in vec2 a_uv;
        layout(location = 2) in float a_layer;     // >= 0: layer of the array; -1: the 2D texture; -2: no texture
        layout(location = 3) in vec4 a_color;      // premultiplied multiplier (alpha, or a fill colour)
        out vec2 v_uv;
        flat out float v_layer;
        flat out vec4 v_color;
        void main() {
            v_uv = a_uv;
            v_layer = a_layer;
            v_color = a_color;
            gl_Position = vec4(a_position.xy, 0.0, a_position.z);
        }
        """

    static let fragmentShader = """
        #version 300 es
        precision highp float;
        precision highp sampler2DArray;
        uniform sampler2DArray u_layers;
        uniform sampler2D u_single;
        in vec2 v_uv;
        flat in float v_layer;
        flat in vec4 v_color;
        out vec4 fragColor;
        void main() {
            vec4 c = vec4(1.0);
            if (v_layer >= 0.0) c = textureLod(u_layers, vec3(v_uv, v_layer), 0.0);
            else if (v_layer > -1.5) c = textureLod(u_single, v_uv, 0.0);
            fragColor = c * v_color;
        }
        """

    private func setUp() throws {
        // The target: an RGBA8 or BGRA8 texture in a framebuffer, row 0 the image's top (as
        // Lamina's offscreen targets: clip y = -1 is row 0, so readback needs no flip).
        glGenTextures(1, &colorTexture)
        glBindTexture(GLenum(GL_TEXTURE_2D), colorTexture)
        if storage == .bgra8 {
            glTexImage2D(GLenum(GL_TEXTURE_2D), 0, GL_BGRA_EXT, GLsizei(pixelSize.width), GLsizei(pixelSize.height), 0,
                         GLenum(GL_BGRA_EXT), GLenum(GL_UNSIGNED_BYTE), nil)
        } else {
            glTexStorage2D(GLenum(GL_TEXTURE_2D), 1, GLenum(GL_RGBA8), GLsizei(pixelSize.width), GLsizei(pixelSize.height))
        }
        glGenFramebuffers(1, &framebuffer)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
        glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D), colorTexture, 0)
        guard glCheckFramebufferStatus(GLenum(GL_FRAMEBUFFER)) == GLenum(GL_FRAMEBUFFER_COMPLETE) else {
            throw BenchError("the ceiling's framebuffer is incomplete")
        }
        program = try Ceiling.link(vertex: Ceiling.vertexShader, fragment: Ceiling.fragmentShader)
        glUseProgram(program)
        glUniform1i(glGetUniformLocation(program, "u_layers"), 0)
        glUniform1i(glGetUniformLocation(program, "u_single"), 1)

        glGenVertexArrays(1, &vertexArray)
        glBindVertexArray(vertexArray)
        glGenBuffers(1, &vertexBuffer)
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), vertexBuffer)
        let stride = GLsizei(MemoryLayout<CeilingVertex>.stride)
        glEnableVertexAttribArray(0)
        glVertexAttribPointer(0, 3, GLenum(GL_FLOAT), GLboolean(GL_FALSE), stride, nil)
        glEnableVertexAttribArray(1)
        glVertexAttribPointer(1, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), stride, UnsafeRawPointer(bitPattern: 12))
        glEnableVertexAttribArray(2)
        glVertexAttribPointer(2, 1, GLenum(GL_FLOAT), GLboolean(GL_FALSE), stride, UnsafeRawPointer(bitPattern: 20))
        glEnableVertexAttribArray(3)
        glVertexAttribPointer(3, 4, GLenum(GL_UNSIGNED_BYTE), GLboolean(GL_TRUE), stride, UnsafeRawPointer(bitPattern: 24))
        glGenBuffers(1, &indexBuffer)
        glBindBuffer(GLenum(GL_ELEMENT_ARRAY_BUFFER), indexBuffer)

        // Both texture units hold something valid even when a scene uses neither.
        glGenTextures(1, &layerTexture)
        glGenTextures(1, &singleTexture)
        try setLayers([RGBAImage(width: 1, height: 1, fill: RGBAPixel(r: 255, g: 255, b: 255, a: 255))])
        try setSingle(RGBAImage(width: 1, height: 1, fill: RGBAPixel(r: 255, g: 255, b: 255, a: 255)))

        // Lamina's blending and state: premultiplied source-over, no depth, no dithering.
        glViewport(0, 0, GLsizei(pixelSize.width), GLsizei(pixelSize.height))
        glEnable(GLenum(GL_BLEND))
        glBlendEquationSeparate(GLenum(GL_FUNC_ADD), GLenum(GL_FUNC_ADD))
        glBlendFuncSeparate(GLenum(GL_ONE), GLenum(GL_ONE_MINUS_SRC_ALPHA), GLenum(GL_ONE), GLenum(GL_ONE_MINUS_SRC_ALPHA))
        glDisable(GLenum(GL_DEPTH_TEST))
        glDisable(GLenum(GL_CULL_FACE))
        glDisable(GLenum(GL_DITHER))
        try check("setting up")
    }

    private static func link(vertex: String, fragment: String) throws -> GLuint {
        func compile(_ type: Int32, _ source: String) throws -> GLuint {
            let shader = glCreateShader(GLenum(type))
            source.withCString { cs in
                var p: UnsafePointer<GLchar>? = cs
                glShaderSource(shader, 1, &p, nil)
            }
            glCompileShader(shader)
            var ok: GLint = 0
            glGetShaderiv(shader, GLenum(GL_COMPILE_STATUS), &ok)
            guard ok == GL_TRUE else {
                var log = [CChar](repeating: 0, count: 4096)
                var length: GLsizei = 0
                glGetShaderInfoLog(shader, 4096, &length, &log)
                let text = String(decoding: log.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                throw BenchError("the ceiling's shader does not compile: \(text)")
            }
            return shader
        }
        let p = glCreateProgram()
        let vs = try compile(GL_VERTEX_SHADER, vertex), fs = try compile(GL_FRAGMENT_SHADER, fragment)
        glAttachShader(p, vs)
        glAttachShader(p, fs)
        glLinkProgram(p)
        glDeleteShader(vs)
        glDeleteShader(fs)
        var ok: GLint = 0
        glGetProgramiv(p, GLenum(GL_LINK_STATUS), &ok)
        guard ok == GL_TRUE else { throw BenchError("the ceiling's program does not link") }
        return p
    }

    private func check(_ what: String) throws {
        let e = glGetError()
        guard e == GLenum(GL_NO_ERROR) else { throw BenchError("the ceiling: GL error 0x\(String(e, radix: 16)) \(what)") }
    }

    private func setSampling(_ target: Int32) {
        glTexParameteri(GLenum(target), GLenum(GL_TEXTURE_MIN_FILTER), GL_LINEAR)
        glTexParameteri(GLenum(target), GLenum(GL_TEXTURE_MAG_FILTER), GL_LINEAR)
        glTexParameteri(GLenum(target), GLenum(GL_TEXTURE_WRAP_S), GL_CLAMP_TO_EDGE)
        glTexParameteri(GLenum(target), GLenum(GL_TEXTURE_WRAP_T), GL_CLAMP_TO_EDGE)
    }

    /// Puts images of one size into the texture array, layer i = images[i] (premultiplied RGBA).
    func setLayers(_ images: [RGBAImage]) throws {
        guard let first = images.first else { return }
        glActiveTexture(GLenum(GL_TEXTURE0))
        // A new name each time: immutable storage cannot change size.
        glDeleteTextures(1, &layerTexture)
        glGenTextures(1, &layerTexture)
        glBindTexture(GLenum(GL_TEXTURE_2D_ARRAY), layerTexture)
        glTexStorage3D(GLenum(GL_TEXTURE_2D_ARRAY), 1, GLenum(GL_RGBA8), GLsizei(first.width), GLsizei(first.height), GLsizei(images.count))
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 4)
        glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), 0)
        for (i, image) in images.enumerated() {
            precondition(image.width == first.width && image.height == first.height, "texture array images differ in size")
            image.bytes.withUnsafeBytes { b in
                glTexSubImage3D(GLenum(GL_TEXTURE_2D_ARRAY), 0, 0, 0, GLint(i), GLsizei(image.width), GLsizei(image.height), 1,
                                GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), b.baseAddress)
            }
        }
        setSampling(GL_TEXTURE_2D_ARRAY)
        try check("filling the texture array")
    }

    /// Sets the 2D texture to an RGBA image.
    func setSingle(_ image: RGBAImage) throws {
        try makeSingle(image.pixelSize, bgra: false)
        glActiveTexture(GLenum(GL_TEXTURE1))
        defer { glActiveTexture(GLenum(GL_TEXTURE0)) }
        image.bytes.withUnsafeBytes { b in
            glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, 0, 0, GLsizei(image.width), GLsizei(image.height), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), b.baseAddress)
        }
        try check("uploading the 2D texture")
    }

    /// Makes the 2D texture `size` pixels for Cairo's B, G, R, A bytes (a swizzle, as Lamina's
    /// backing stores: no conversion on upload).
    func makeSingle(_ size: PixelSize, bgra: Bool) throws {
        glActiveTexture(GLenum(GL_TEXTURE1))
        glDeleteTextures(1, &singleTexture)
        glGenTextures(1, &singleTexture)
        glBindTexture(GLenum(GL_TEXTURE_2D), singleTexture)
        glTexStorage2D(GLenum(GL_TEXTURE_2D), 1, GLenum(GL_RGBA8), GLsizei(size.width), GLsizei(size.height))
        setSampling(GL_TEXTURE_2D)
        if bgra {
            glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_SWIZZLE_R), GL_BLUE)
            glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_SWIZZLE_B), GL_RED)
        }
        singleSize = size
        glActiveTexture(GLenum(GL_TEXTURE0))
        try check("making the 2D texture")
    }

    /// Uploads a bitmap's bytes (rows `bytesPerRow` apart) over the whole 2D texture.
    func uploadSingle(_ bytes: UnsafeRawBufferPointer, bytesPerRow: Int) {
        glActiveTexture(GLenum(GL_TEXTURE1))
        glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), GLint(bytesPerRow / 4))
        glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, 0, 0, GLsizei(singleSize.width), GLsizei(singleSize.height),
                        GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), bytes.baseAddress)
        glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), 0)
        glActiveTexture(GLenum(GL_TEXTURE0))
    }

    /// One frame: clear to `background`, upload the quads, one draw call. (The caller then
    /// calls `finish()`.)
    func draw(_ quads: QuadWriter, background: Color) {
        let p = background.premultiplied
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
        glClearColor(GLfloat(p.r), GLfloat(p.g), GLfloat(p.b), GLfloat(p.a))
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        let count = quads.quadCount
        guard count > 0 else { return }
        if count > indexCapacity { growIndices(to: count) }
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), vertexBuffer)
        quads.vertices.withUnsafeBytes { b in
            glBufferData(GLenum(GL_ARRAY_BUFFER), b.count, b.baseAddress, GLenum(GL_STREAM_DRAW))
        }
        glDrawElements(GLenum(GL_TRIANGLES), GLsizei(count * 6), GLenum(GL_UNSIGNED_INT), nil)
    }

    /// Waits until the GPU (llvmpipe's threads) has finished the frame.
    func finish() { glFinish() }

    private func growIndices(to quads: Int) {
        let n = max(quads, indexCapacity * 2)
        var indices = [UInt32]()
        indices.reserveCapacity(n * 6)
        for q in 0..<UInt32(n) {
            // Corners 0 (0,0), 1 (1,0), 2 (0,1), 3 (1,1): Lamina's strip has the same diagonal.
            indices += [4 * q, 4 * q + 1, 4 * q + 2, 4 * q + 2, 4 * q + 1, 4 * q + 3]
        }
        glBindVertexArray(vertexArray)
        glBindBuffer(GLenum(GL_ELEMENT_ARRAY_BUFFER), indexBuffer)
        indices.withUnsafeBytes { b in
            glBufferData(GLenum(GL_ELEMENT_ARRAY_BUFFER), b.count, b.baseAddress, GLenum(GL_STATIC_DRAW))
        }
        indexCapacity = n
    }

    /// The framebuffer's pixels, top row first (premultiplied RGBA).
    func readPixels() throws -> RGBAImage {
        var bytes = [UInt8](repeating: 0, count: pixelSize.width * pixelSize.height * 4)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
        glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 4)
        glReadPixels(0, 0, GLsizei(pixelSize.width), GLsizei(pixelSize.height), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), &bytes)
        try check("reading pixels")
        return RGBAImage(width: pixelSize.width, height: pixelSize.height, bytes: bytes)
    }

    /// Deletes the GL objects and the context (never the display: see the type's notes).
    func close() {
        guard (try? makeCurrent()) != nil else { return }
        glDeleteTextures(1, &layerTexture)
        glDeleteTextures(1, &singleTexture)
        glDeleteTextures(1, &colorTexture)
        glDeleteFramebuffers(1, &framebuffer)
        glDeleteBuffers(1, &vertexBuffer)
        glDeleteBuffers(1, &indexBuffer)
        glDeleteVertexArrays(1, &vertexArray)
        glDeleteProgram(program)
        releaseCurrent()
        eglDestroyContext(display, context)
    }
}

/// One corner of a ceiling quad: 28 bytes.
struct CeilingVertex {
    var x: Float, y: Float, w: Float   // clip space (z = 0)
    var u: Float, v: Float
    var layer: Float
    var r: UInt8, g: UInt8, b: UInt8, a: UInt8
}

/// A projective map of the plane (row vectors (x, y, 1) · H), the part of a layer's 4×4
/// world transform that matters for a flat quad: what the ceiling transforms corners with.
struct Plane {
    var m11 = 1.0, m12 = 0.0, m14 = 0.0
    var m21 = 0.0, m22 = 1.0, m24 = 0.0
    var m41 = 0.0, m42 = 0.0, m44 = 1.0

    /// z = 0 of a 3D transform, z dropped (Lamina flattens the same way).
    init(_ t: Transform3D) {
        m11 = t.m11; m12 = t.m12; m14 = t.m14
        m21 = t.m21; m22 = t.m22; m24 = t.m24
        m41 = t.m41; m42 = t.m42; m44 = t.m44
    }

    /// A 2D layer: points of its bounds about `anchor` turned by `angle`, scaled by `scale`,
    /// the anchor placed at `position` (Lamina's anchor → transform → position).
    init(anchor a: Point, angle: Double, scale s: Double, position p: Point) {
        let c = cos(angle) * s, sn = sin(angle) * s
        m11 = c; m12 = sn; m21 = -sn; m22 = c
        m41 = p.x - (a.x * c - a.y * sn)
        m42 = p.y - (a.x * sn + a.y * c)
    }
}

/// A frame's quads for the ceiling, written on the CPU.
struct QuadWriter {
    private(set) var vertices: [CeilingVertex] = []
    /// Target points to clip space: x · sx − 1, y · sy − 1 (row 0 at the top, as Lamina's
    /// offscreen targets).
    let sx: Double, sy: Double
    /// Test hook (`--perturb`): every colour is scaled by this, so the pixel check must fail.
    var colorScale: Float = 1

    init(pixelSize: PixelSize) {
        sx = 2 / Double(pixelSize.width)
        sy = 2 / Double(pixelSize.height)
    }

    var quadCount: Int { vertices.count / 4 }

    mutating func reset(reserving quads: Int) {
        vertices.removeAll(keepingCapacity: true)
        vertices.reserveCapacity(quads * 4)
    }

    private func scaled(_ c: RGBAPixel) -> RGBAPixel {
        guard colorScale != 1 else { return c }
        func s(_ v: UInt8) -> UInt8 { UInt8((Float(v) * colorScale).rounded()) }
        return RGBAPixel(r: s(c.r), g: s(c.g), b: s(c.b), a: s(c.a))
    }

    /// The quad `rect` (points of a layer's bounds) mapped to target points by `h`, showing
    /// `uv` (a unit rectangle of the texture, y down) of texture `layer` (see the shader),
    /// times `color` (premultiplied 8-bit). Perspective survives in w.
    mutating func quad(_ rect: Rect, _ h: Plane, uv: Rect = Rect(x: 0, y: 0, width: 1, height: 1), layer: Float, color: RGBAPixel) {
        let c = scaled(color)
        let xs = (rect.minX, rect.maxX), ys = (rect.minY, rect.maxY)
        let us = (Float(uv.minX), Float(uv.maxX)), vs = (Float(uv.minY), Float(uv.maxY))
        for corner in 0..<4 {
            let right = corner & 1 == 1, bottom = corner & 2 == 2
            let x = right ? xs.1 : xs.0, y = bottom ? ys.1 : ys.0
            let w = x * h.m14 + y * h.m24 + h.m44
            let px = x * h.m11 + y * h.m21 + h.m41
            let py = x * h.m12 + y * h.m22 + h.m42
            vertices.append(CeilingVertex(x: Float(px * sx - w), y: Float(py * sy - w), w: Float(w),
                                          u: right ? us.1 : us.0, v: bottom ? vs.1 : vs.0,
                                          layer: layer, r: c.r, g: c.g, b: c.b, a: c.a))
        }
    }

    /// An axis-aligned rectangle in target points.
    mutating func rect(_ r: Rect, uv: Rect = Rect(x: 0, y: 0, width: 1, height: 1), layer: Float, color: RGBAPixel) {
        let c = scaled(color)
        let x0 = Float(r.minX * sx - 1), x1 = Float(r.maxX * sx - 1)
        let y0 = Float(r.minY * sy - 1), y1 = Float(r.maxY * sy - 1)
        let u0 = Float(uv.minX), u1 = Float(uv.maxX), v0 = Float(uv.minY), v1 = Float(uv.maxY)
        vertices.append(CeilingVertex(x: x0, y: y0, w: 1, u: u0, v: v0, layer: layer, r: c.r, g: c.g, b: c.b, a: c.a))
        vertices.append(CeilingVertex(x: x1, y: y0, w: 1, u: u1, v: v0, layer: layer, r: c.r, g: c.g, b: c.b, a: c.a))
        vertices.append(CeilingVertex(x: x0, y: y1, w: 1, u: u0, v: v1, layer: layer, r: c.r, g: c.g, b: c.b, a: c.a))
        vertices.append(CeilingVertex(x: x1, y: y1, w: 1, u: u1, v: v1, layer: layer, r: c.r, g: c.g, b: c.b, a: c.a))
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

import CEGL
import CGLES
import LaminaGeometry

/// A GL object name owned by a device. Freed by `release()` with the context current;
/// a wrapper dropped without `release()` only queues its name (its `deinit` may run on
/// any thread), and `GPUDevice.collectGarbage()` frees it on the device's thread.
public class GPUObject {
    public let kind: GPUObjectKind
    /// The context the name belongs to (shared with the device, which it does not keep alive).
    let gl: GLContext
    let name: GLuint
    public private(set) var isReleased = false

    init(gl: GLContext, kind: GPUObjectKind, name: GLuint) {
        self.gl = gl; self.kind = kind; self.name = name
        gl.ledger.created(kind)
    }

    /// Whether the object belongs to `device`.
    public func belongs(to device: GPUDevice) -> Bool { gl === device.gl }

    /// Frees the GL object now. Safe to call twice, and after the device closed.
    public func release() {
        guard !isReleased else { return }
        isReleased = true
        willRelease()
        guard !gl.isClosed else { return }
        gl.makeCurrent()
        gl.deleteName(kind, name)
    }

    /// Subclasses free what they own besides the GL name (EGL images, attachments).
    func willRelease() {}

    deinit {
        if !isReleased { gl.ledger.enqueue(kind, name) }
    }
}

/// How texels are sampled when a texture is drawn smaller or larger than its pixels.
public enum TextureFilter: String, Sendable, CaseIterable {
    case linear, nearest
    var gl: GLint { self == .linear ? GL_LINEAR : GL_NEAREST }
}

/// The byte order of pixels handed to a texture. Both are 8 bits a channel, premultiplied.
public enum PixelByteOrder: Sendable {
    /// R, G, B, A in memory (RGBAImage, glReadPixels).
    case rgba
    /// B, G, R, A in memory: Cairo's ARGB32 and GBM's ARGB8888 on little-endian machines.
    /// Stored as is; a texture swizzle swaps red and blue when sampling (no CPU conversion).
    case bgra
    /// B, G, R, unused: Cairo's RGB24 (opaque). Swizzled like `bgra`, and alpha reads as 1.
    case bgrx
}

public final class Texture: GPUObject {
    public let pixelSize: PixelSize
    public let byteOrder: PixelByteOrder
    private var filter: (min: TextureFilter, mag: TextureFilter) = (.linear, .linear)
    /// An EGL image backing this texture (imported dma-buf or GBM buffer), destroyed with it.
    var eglImage: EGLImage?

    init(gl: GLContext, name: GLuint, pixelSize: PixelSize, byteOrder: PixelByteOrder) {
        self.pixelSize = pixelSize; self.byteOrder = byteOrder
        super.init(gl: gl, kind: .texture, name: name)
    }

    override func willRelease() {
        if let image = eglImage { gl.destroyImage(image) }
        eglImage = nil
    }

    deinit {
        // EGL (not GL) and thread-safe; skipped when the device's close() destroyed it.
        if let image = eglImage { gl.destroyImage(image) }
    }

    /// Binds the texture to unit 0 and sets its filters if they changed.
    func bind(minFilter: TextureFilter, magFilter: TextureFilter) {
        glActiveTexture(GLenum(GL_TEXTURE0))
        glBindTexture(GLenum(GL_TEXTURE_2D), name)
        if filter.min != minFilter {
            glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MIN_FILTER), minFilter.gl)
        }
        if filter.mag != magFilter {
            glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MAG_FILTER), magFilter.gl)
        }
        filter = (minFilter, magFilter)
    }

    /// Uploads `region` of the texture from `bytes`, whose rows are `bytesPerRow` apart
    /// (top row first, in this texture's byte order). Only that region is sent
    /// (`glTexSubImage2D`); returns the number of bytes uploaded.
    @discardableResult
    public func upload(_ bytes: UnsafeRawBufferPointer, bytesPerRow: Int, region: PixelRect? = nil) -> Int {
        precondition(!isReleased, "Texture.upload after release()")
        let r = region ?? PixelRect(size: pixelSize)
        precondition(PixelRect(size: pixelSize).contains(r), "upload region \(r) outside texture \(pixelSize)")
        precondition(bytesPerRow % 4 == 0 && bytesPerRow >= r.width * 4, "bytesPerRow \(bytesPerRow) too small for \(r.width) pixels")
        precondition(bytes.count >= (r.height - 1) * bytesPerRow + r.width * 4, "upload: \(bytes.count) bytes do not cover \(r)")
        guard !r.isEmpty else { return 0 }
        gl.makeCurrent()
        glBindTexture(GLenum(GL_TEXTURE_2D), name)
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 4)
        glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), GLint(bytesPerRow / 4))
        glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, GLint(r.x), GLint(r.y), GLsizei(r.width), GLsizei(r.height),
                        GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), bytes.baseAddress)
        glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), 0)
        gl.checkGLError("glTexSubImage2D(\(r))")
        let n = r.area * 4
        gl.uploadedBytes += n
        return n
    }

    /// Uploads a whole RGBA image of the texture's size.
    @discardableResult
    public func upload(_ image: RGBAImage) -> Int {
        precondition(byteOrder == .rgba, "RGBAImage uploads need an .rgba texture")
        precondition(image.pixelSize == pixelSize, "image \(image.pixelSize) does not match texture \(pixelSize)")
        return image.bytes.withUnsafeBytes { upload($0, bytesPerRow: image.width * 4) }
    }
}

public final class Framebuffer: GPUObject {
    /// The colour attachment, kept alive as long as the framebuffer.
    public let colorTexture: Texture
    /// Depth/stencil storage, attached on first need (`attachStencil()`).
    public private(set) var stencil: Renderbuffer?

    /// Attaches a depth/stencil renderbuffer of the colour texture's size, once.
    func attachStencil() throws {
        guard stencil == nil else { return }
        let rb = try Renderbuffer(gl: gl, depthStencilSize: colorTexture.pixelSize)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), name)
        glFramebufferRenderbuffer(GLenum(GL_FRAMEBUFFER), GLenum(GL_DEPTH_STENCIL_ATTACHMENT), GLenum(GL_RENDERBUFFER), rb.name)
        let status = glCheckFramebufferStatus(GLenum(GL_FRAMEBUFFER))
        guard status == GLenum(GL_FRAMEBUFFER_COMPLETE) else {
            glFramebufferRenderbuffer(GLenum(GL_FRAMEBUFFER), GLenum(GL_DEPTH_STENCIL_ATTACHMENT), GLenum(GL_RENDERBUFFER), 0)
            rb.release()
            throw GPUError.incompleteFramebuffer(status: "0x" + String(status, radix: 16) + " with a depth/stencil attachment")
        }
        stencil = rb
    }

    override func willRelease() {
        stencil?.release()
        stencil = nil
    }

    init(colorTexture: Texture) throws {
        let gl = colorTexture.gl
        gl.makeCurrent()
        var fbo: GLuint = 0
        glGenFramebuffers(1, &fbo)
        self.colorTexture = colorTexture
        super.init(gl: gl, kind: .framebuffer, name: fbo)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), fbo)
        glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D), colorTexture.name, 0)
        let status = glCheckFramebufferStatus(GLenum(GL_FRAMEBUFFER))
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
        guard status == GLenum(GL_FRAMEBUFFER_COMPLETE) else {
            release()
            throw GPUError.incompleteFramebuffer(status: "0x" + String(status, radix: 16))
        }
    }
}

/// A renderbuffer: here the depth/stencil storage that stencil clipping needs.
public final class Renderbuffer: GPUObject {
    public let pixelSize: PixelSize

    init(gl: GLContext, depthStencilSize size: PixelSize) throws {
        gl.makeCurrent()
        var rb: GLuint = 0
        glGenRenderbuffers(1, &rb)
        self.pixelSize = size
        super.init(gl: gl, kind: .renderbuffer, name: rb)
        glBindRenderbuffer(GLenum(GL_RENDERBUFFER), rb)
        _ = glGetError()
        glRenderbufferStorage(GLenum(GL_RENDERBUFFER), GLenum(GL_DEPTH24_STENCIL8), GLsizei(size.width), GLsizei(size.height))
        glBindRenderbuffer(GLenum(GL_RENDERBUFFER), 0)
        do { try gl.throwIfOutOfMemory("a \(size) stencil buffer") } catch { release(); throw error }
    }
}

public final class Program: GPUObject {
    /// "vertex+fragment", for messages.
    public let label: String
    private let uniforms: [String: GLint]

    init(gl: GLContext, name: GLuint, label: String) {
        var table: [String: GLint] = [:]
        var count: GLint = 0
        glGetProgramiv(name, GLenum(GL_ACTIVE_UNIFORMS), &count)
        var buffer = [CChar](repeating: 0, count: 256)
        for i in 0..<GLuint(max(0, count)) {
            var length: GLsizei = 0, size: GLint = 0, type: GLenum = 0
            glGetActiveUniform(name, i, GLsizei(buffer.count), &length, &size, &type, &buffer)
            let uniform = String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            table[uniform] = glGetUniformLocation(name, uniform)
        }
        self.label = label
        self.uniforms = table
        super.init(gl: gl, kind: .program, name: name)
    }

    /// The location of an active uniform, looked up once at link time; -1 if the
    /// program has no such uniform (GL ignores -1).
    public func uniformLocation(_ uniform: String) -> GLint { uniforms[uniform] ?? -1 }
    public var uniformNames: [String] { uniforms.keys.sorted() }
}

public final class Buffer: GPUObject {
    public let byteCount: Int
    init(gl: GLContext, bytes: UnsafeRawBufferPointer) {
        gl.makeCurrent()
        var b: GLuint = 0
        glGenBuffers(1, &b)
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), b)
        glBufferData(GLenum(GL_ARRAY_BUFFER), bytes.count, bytes.baseAddress, GLenum(GL_STATIC_DRAW))
        byteCount = bytes.count
        super.init(gl: gl, kind: .buffer, name: b)
        gl.checkGLError("glBufferData")
    }
}

public final class VertexArray: GPUObject {
    init(gl: GLContext) {
        gl.makeCurrent()
        var v: GLuint = 0
        glGenVertexArrays(1, &v)
        super.init(gl: gl, kind: .vertexArray, name: v)
    }
}

/// The unit quad (0,0)…(1,1) as a triangle strip, shared by every draw.
struct QuadGeometry {
    let buffer: Buffer
    let vertexArray: VertexArray

    init(gl: GLContext) {
        let corners: [Float] = [0, 0, 1, 0, 0, 1, 1, 1]
        buffer = corners.withUnsafeBytes { Buffer(gl: gl, bytes: $0) }
        vertexArray = VertexArray(gl: gl)
        glBindVertexArray(vertexArray.name)
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), buffer.name)
        glEnableVertexAttribArray(0)
        glVertexAttribPointer(0, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 8, nil)
        glBindVertexArray(0)
        gl.checkGLError("quad vertex array setup")
    }

    func release() { vertexArray.release(); buffer.release() }
}

extension GPUDevice {
    /// A texture of `pixelSize` (uninitialised unless `pixels` is given). Throws when the
    /// size is zero or above `capabilities.maxTextureSize`, or when GPU memory runs out.
    public func makeTexture(pixelSize: PixelSize, byteOrder: PixelByteOrder = .rgba, pixels: RGBAImage? = nil) throws -> Texture {
        guard !isClosed else { throw GPUError.deviceClosed(operation: "makeTexture") }
        try validate(pixelSize, what: "texture", maximum: capabilities.maxTextureSize)
        makeCurrent()
        var t: GLuint = 0
        glGenTextures(1, &t)
        let texture = Texture(gl: gl, name: t, pixelSize: pixelSize, byteOrder: byteOrder)
        glBindTexture(GLenum(GL_TEXTURE_2D), t)
        _ = glGetError()
        glTexImage2D(GLenum(GL_TEXTURE_2D), 0, GL_RGBA8, GLsizei(pixelSize.width), GLsizei(pixelSize.height), 0,
                     GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), nil)
        do { try gl.throwIfOutOfMemory("a \(pixelSize) texture") } catch { texture.release(); throw error }
        configure(texture)
        if let pixels {
            precondition(byteOrder == .rgba, "initial pixels are RGBA")
            texture.upload(pixels)
        }
        return texture
    }

    /// Sampling defaults for a new texture: linear filtering, clamped edges, and the
    /// red/blue swizzle for BGRA data.
    func configure(_ texture: Texture) {
        let target = GLenum(GL_TEXTURE_2D)
        glTexParameteri(target, GLenum(GL_TEXTURE_MIN_FILTER), GL_LINEAR)
        glTexParameteri(target, GLenum(GL_TEXTURE_MAG_FILTER), GL_LINEAR)
        glTexParameteri(target, GLenum(GL_TEXTURE_WRAP_S), GL_CLAMP_TO_EDGE)
        glTexParameteri(target, GLenum(GL_TEXTURE_WRAP_T), GL_CLAMP_TO_EDGE)
        if texture.byteOrder != .rgba {
            glTexParameteri(target, GLenum(GL_TEXTURE_SWIZZLE_R), GL_BLUE)
            glTexParameteri(target, GLenum(GL_TEXTURE_SWIZZLE_B), GL_RED)
        }
        if texture.byteOrder == .bgrx {
            glTexParameteri(target, GLenum(GL_TEXTURE_SWIZZLE_A), GL_ONE)
        }
        checkGLError("texture parameters")
    }

    func validate(_ size: PixelSize, what: String, maximum: Int) throws {
        guard size.width >= 1, size.height >= 1 else { throw GPUError.invalidSize(what: what, size: size) }
        guard size.width <= maximum, size.height <= maximum else {
            throw GPUError.tooLarge(what: what, size: size, maximum: maximum)
        }
    }

    func unitQuad() -> QuadGeometry {
        if let q = quadGeometry { return q }
        let q = QuadGeometry(gl: gl)
        quadGeometry = q
        return q
    }
}

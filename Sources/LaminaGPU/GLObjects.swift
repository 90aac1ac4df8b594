import LaminaValues
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
    /// A host's object lent to Lamina: never deleted by Lamina, not counted as live.
    public let isBorrowed: Bool
    // (`@exclusivity(unchecked)`: read for every quad drawn, with `isExternal` and the
    // context's `generation`; plain values, never passed `inout`.)
    @exclusivity(unchecked) private var released = false
    /// The context generation the name belongs to: after a context loss and `recover()`,
    /// the object is gone with its context.
    let generation: Int
    /// True once released, or once lost with its context (`GPUError.contextLost`).
    public var isReleased: Bool { released || generation != gl.generation }

    init(gl: GLContext, kind: GPUObjectKind, name: GLuint, borrowed: Bool = false) {
        self.gl = gl; self.kind = kind; self.name = name; self.isBorrowed = borrowed
        self.generation = gl.generation
        if !borrowed { gl.ledger.created(kind, name) }
    }

    /// The GL name, for a host that shares Lamina's context or share group (read-only:
    /// do not delete it, and do not change a Lamina object's parameters or storage).
    public var glName: UInt32 { name }

    /// Whether the object belongs to `device`.
    public func belongs(to device: GPUDevice) -> Bool { gl === device.gl }

    /// False once released, or once its device closed.
    public var isUsable: Bool { !isReleased && !gl.isClosed }

    /// Frees the GL object now (a borrowed one is only forgotten). Safe to call twice,
    /// and after the device closed.
    public func release() {
        guard !isReleased else { released = true; return }
        released = true
        guard !gl.isClosed else { return }
        let freed = gl.withCurrentIfPossible {
            willRelease()
            if !isBorrowed { gl.deleteName(kind, name) }
        }
        // The context cannot be made current here (its host destroyed it, or has it current
        // on another thread): the name is no longer Lamina's to free.
        if !freed && !isBorrowed { gl.ledger.deleted(kind, name) }
    }

    /// Subclasses free what they own besides the GL name (EGL images, attachments);
    /// called inside a scope.
    func willRelease() {}

    deinit {
        if !released && !isBorrowed { gl.ledger.enqueue(kind, name, generation: generation) }
    }
}

public final class Texture: GPUObject {
    public let pixelSize: PixelSize
    public let byteOrder: PixelByteOrder
    /// How Lamina allocated the texels (sampling and uploads behave alike for both);
    /// `.rgba8` too for textures it did not allocate (a host's, imported buffers).
    public let storage: TextureStorage
    /// An EGL image backing this texture (imported dma-buf or GBM buffer), destroyed with it.
    var eglImage: EGLImage?
    /// Bound as `GL_TEXTURE_EXTERNAL_OES` (a YUV dma-buf, sampled through the driver's
    /// conversion), not `GL_TEXTURE_2D`: drawn with a `samplerExternalOES` shader.
    @exclusivity(unchecked) public internal(set) var isExternal = false
    /// GL_TEXTURE_2D or GL_TEXTURE_EXTERNAL_OES.
    var glTarget: GLenum { isExternal ? GLenum(GL_TEXTURE_EXTERNAL_OES) : GLenum(GL_TEXTURE_2D) }

    init(gl: GLContext, name: GLuint, pixelSize: PixelSize, byteOrder: PixelByteOrder, storage: TextureStorage = .rgba8, borrowed: Bool = false) {
        self.pixelSize = pixelSize; self.byteOrder = byteOrder; self.storage = storage
        super.init(gl: gl, kind: .texture, name: name, borrowed: borrowed)
    }

    override func willRelease() {
        if let image = eglImage, generation == gl.generation { gl.destroyImage(image) }
        eglImage = nil
    }

    deinit {
        // EGL (not GL) and thread-safe; skipped when the device's close() destroyed it, or
        // when a context loss did (its address may be a new image's by now).
        if let image = eglImage, generation == gl.generation { gl.destroyImage(image) }
    }


    /// Uploads `region` of the texture from `bytes`, whose rows are `bytesPerRow` apart
    /// (top row first, in this texture's byte order). Only that region is sent
    /// (`glTexSubImage2D`); returns the number of bytes uploaded. Throws when the device's
    /// context cannot be made current (closed, or a host's context that is gone).
    @discardableResult
    public func upload(_ bytes: UnsafeRawBufferPointer, bytesPerRow: Int, region: PixelRect? = nil) throws -> Int {
        guard !gl.isClosed else { throw GPUError.deviceClosed(operation: "Texture.upload") }
        guard !isReleased else { throw GPUError.released(what: "the texture", operation: "Texture.upload") }
        let r = region ?? PixelRect(size: pixelSize)
        try Texture.checkUpload(r, within: pixelSize, bytes: bytes.count, bytesPerRow: bytesPerRow, operation: "Texture.upload")
        guard !r.isEmpty else { return 0 }
        try gl.withCurrentThrowing {
            LaminaGLState.bindForTransfer(texture: name)
            if storage == .bgra8 {
                // OpenGL ES takes only BGRA bytes into BGRA storage: red and blue swapped here.
                let row = r.width * 4
                var swapped = [UInt8](repeating: 0, count: row * r.height)
                for y in 0..<r.height {
                    let from = y * bytesPerRow
                    for i in stride(from: 0, to: row, by: 4) {
                        swapped[y * row + i] = bytes[from + i + 2]
                        swapped[y * row + i + 1] = bytes[from + i + 1]
                        swapped[y * row + i + 2] = bytes[from + i]
                        swapped[y * row + i + 3] = bytes[from + i + 3]
                    }
                }
                LaminaGLState.applyForUpload(rowLength: GLint(r.width))
                glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, GLint(r.x), GLint(r.y), GLsizei(r.width), GLsizei(r.height),
                                GLenum(GL_BGRA_EXT), GLenum(GL_UNSIGNED_BYTE), swapped)
            } else {
                LaminaGLState.applyForUpload(rowLength: GLint(bytesPerRow / 4))
                glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, GLint(r.x), GLint(r.y), GLsizei(r.width), GLsizei(r.height),
                                GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), bytes.baseAddress)
            }
            gl.checkGLError("glTexSubImage2D(\(r))")
        }
        let n = r.area * 4
        gl.uploadedBytes += n
        return n
    }

    /// Checks an upload of `region` from `count` bytes with rows `bytesPerRow` apart into
    /// pixels of `size` (textures and atlas entries).
    static func checkUpload(_ r: PixelRect, within size: PixelSize, bytes count: Int, bytesPerRow: Int, operation: String) throws {
        guard r.x >= 0, r.y >= 0, r.width >= 0, r.height >= 0, r.x <= size.width, r.y <= size.height,
              r.width <= size.width - r.x, r.height <= size.height - r.y else {
            throw GPUError.invalidArgument(operation: operation, reason: "the region \(r) is not inside the \(size) pixels")
        }
        guard bytesPerRow % 4 == 0, bytesPerRow >= r.width * 4, bytesPerRow / 4 <= Int(GLint.max) else {
            throw GPUError.invalidArgument(operation: operation, reason: "bytesPerRow \(bytesPerRow) must be a multiple of 4 and at least \(r.width * 4) for \(r.width) pixels a row")
        }
        let (rows, overflow) = (r.height - 1).multipliedReportingOverflow(by: bytesPerRow)
        guard r.isEmpty || (!overflow && count - r.width * 4 >= rows) else {
            throw GPUError.invalidArgument(operation: operation, reason: "\(count) bytes do not cover \(r) at \(bytesPerRow) bytes a row")
        }
    }

    /// Uploads a whole RGBA image of the texture's size.
    @discardableResult
    public func upload(_ image: RGBAImage) throws -> Int {
        guard byteOrder == .rgba else {
            throw GPUError.invalidArgument(operation: "Texture.upload(RGBAImage)", reason: "the texture holds \(byteOrder) pixels; upload RGBA images into an .rgba texture, or pass the bytes in the texture's order")
        }
        guard image.pixelSize == pixelSize else {
            throw GPUError.invalidArgument(operation: "Texture.upload(RGBAImage)", reason: "the image is \(image.pixelSize) but the texture \(pixelSize); upload a region with upload(_:bytesPerRow:region:)")
        }
        return try image.bytes.withUnsafeBytes { try upload($0, bytesPerRow: image.width * 4) }
    }
}

public final class Framebuffer: GPUObject {
    /// The colour attachment, kept alive as long as the framebuffer.
    public let colorTexture: Texture
    /// Depth/stencil storage: attached when the framebuffer is made (unless it is made
    /// `withStencil: false`), or else on first need (`attachStencil()`).
    public private(set) var stencil: Renderbuffer?

    /// Whether the framebuffer owns its colour texture (released with the target).
    let ownsColorTexture: Bool

    /// Attaches a depth/stencil renderbuffer of the colour texture's size, once (inside a scope).
    func attachStencil() throws {
        guard stencil == nil else { return }
        let rb = try Renderbuffer(gl: gl, depthStencilSize: colorTexture.pixelSize)
        gl.activePass = nil   // the binding changes below
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

    /// Takes the depth/stencil buffer off and frees it (inside a scope).
    func detachStencil() {
        guard let rb = stencil else { return }
        gl.activePass = nil   // the binding changes below
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), name)
        glFramebufferRenderbuffer(GLenum(GL_FRAMEBUFFER), GLenum(GL_DEPTH_STENCIL_ATTACHMENT), GLenum(GL_RENDERBUFFER), 0)
        rb.release()
        stencil = nil
    }

    override func willRelease() {
        stencil?.release()
        stencil = nil
    }

    /// A framebuffer rendering into `colorTexture` (inside a scope), with its depth/stencil
    /// buffer from the start unless `withStencil` is false.
    ///
    /// (Why from the start, and not when the first clip needs it: llvmpipe rasterizes a
    /// primitive that crosses the target's edge differently once a depth/stencil buffer is
    /// attached — it clips the primitive then, and keeps it whole within its guard band
    /// without — and the same quad, with the same vertices, then covers a pixel whose centre
    /// lies within about 1/256 px of one of its edges or not. A target redrawn in part
    /// (damage, buffer age, a kept group image) kept pixels of the earlier rule beside
    /// pixels of the new one, and the same scene drawn into a fresh target and into one used
    /// before differed. The compositor takes its render target's off while nothing in it
    /// clips (the faster rule on llvmpipe), drawing the whole target when that changes
    /// (`FullFrameReason.stencilChanged`). Targets only ever drawn whole and never clipped
    /// — blur scratch, the resolve of a GL layer — are made without.)
    init(colorTexture: Texture, ownsColorTexture: Bool = true, withStencil: Bool = true) throws {
        let gl = colorTexture.gl
        var fbo: GLuint = 0
        glGenFramebuffers(1, &fbo)
        self.colorTexture = colorTexture
        self.ownsColorTexture = ownsColorTexture
        super.init(gl: gl, kind: .framebuffer, name: fbo)
        gl.activePass = nil   // the binding changes below
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), fbo)
        glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D), colorTexture.name, 0)
        let status = glCheckFramebufferStatus(GLenum(GL_FRAMEBUFFER))
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
        guard status == GLenum(GL_FRAMEBUFFER_COMPLETE) else {
            release()
            throw GPUError.incompleteFramebuffer(status: "0x" + String(status, radix: 16)
                + " for a \(colorTexture.pixelSize) texture\(colorTexture.isBorrowed ? " lent by the host (it must be a complete, colour-renderable RGBA8 texture of this context or share group)" : "")")
        }
        if withStencil {
            // A driver that cannot attach one here is told again, with its reason, by the
            // first clip (`RenderTarget.prepareStencil()`); a target that never clips works.
            do { try attachStencil() } catch {}
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
        }
    }
}

/// A renderbuffer: here the depth/stencil storage that stencil clipping needs.
public final class Renderbuffer: GPUObject {
    public let pixelSize: PixelSize

    /// Depth/stencil storage (inside a scope).
    init(gl: GLContext, depthStencilSize size: PixelSize) throws {
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
    /// The active uniforms (arrays under their name without "[0]"), with their GL type and
    /// array size, read once at link time (`ShaderProgram` sets them by type).
    let activeUniforms: [String: ShaderProgram.Uniform]
    /// The unit-quad path's uniforms (`quad.vert`: `u_transform`, `u_texRect`), resolved
    /// once at link time: drawing with a caller's program hashes no strings.
    let quadUniforms: (transform: GLint, texRect: GLint)

    init(gl: GLContext, name: GLuint, label: String) {
        var table: [String: GLint] = [:]
        var active: [String: ShaderProgram.Uniform] = [:]
        var count: GLint = 0
        glGetProgramiv(name, GLenum(GL_ACTIVE_UNIFORMS), &count)
        var buffer = [CChar](repeating: 0, count: 256)
        for i in 0..<GLuint(max(0, count)) {
            var length: GLsizei = 0, size: GLint = 0, type: GLenum = 0
            glGetActiveUniform(name, i, GLsizei(buffer.count), &length, &size, &type, &buffer)
            let uniform = String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let location = glGetUniformLocation(name, uniform)
            table[uniform] = location
            let base = uniform.hasSuffix("[0]") ? String(uniform.dropLast(3)) : uniform
            active[base] = ShaderProgram.Uniform(name: base, type: UInt32(type), location: location, count: Int(size))
        }
        self.label = label
        self.uniforms = table
        self.activeUniforms = active
        self.quadUniforms = (table["u_transform"] ?? -1, table["u_texRect"] ?? -1)
        super.init(gl: gl, kind: .program, name: name)
    }

    /// The location of an active uniform, looked up once at link time; -1 if the
    /// program has no such uniform (GL ignores -1). A dictionary lookup: resolve the
    /// locations a caller's program needs once, not per draw.
    public func uniformLocation(_ uniform: String) -> GLint { uniforms[uniform] ?? -1 }
    public var uniformNames: [String] { uniforms.keys.sorted() }
}

public final class Buffer: GPUObject {
    public private(set) var byteCount: Int
    /// The binding point it was made for (`GL_ARRAY_BUFFER`, `GL_ELEMENT_ARRAY_BUFFER`).
    let target: GLenum

    /// A buffer holding `bytes` (inside a scope). An element-array buffer binds to the
    /// vertex array bound now (its state): bind Lamina's own first.
    init(gl: GLContext, target: GLenum = GLenum(GL_ARRAY_BUFFER), bytes: UnsafeRawBufferPointer,
         usage: GLenum = GLenum(GL_STATIC_DRAW)) {
        var b: GLuint = 0
        glGenBuffers(1, &b)
        glBindBuffer(target, b)
        glBufferData(target, bytes.count, bytes.baseAddress, usage)
        byteCount = bytes.count
        self.target = target
        super.init(gl: gl, kind: .buffer, name: b)
        gl.checkGLError("glBufferData")
    }

    /// Replaces the whole store with `bytes` (inside a scope, the buffer bound to its
    /// target): `glBufferData` gives the buffer new storage, so draws still queued on
    /// the old contents are not waited for (orphaning).
    func replace(with bytes: UnsafeRawBufferPointer, usage: GLenum) {
        glBufferData(target, bytes.count, bytes.baseAddress, usage)
        byteCount = bytes.count
    }
}

public final class VertexArray: GPUObject {
    /// A vertex array (inside a scope).
    init(gl: GLContext) {
        var v: GLuint = 0
        glGenVertexArrays(1, &v)
        super.init(gl: gl, kind: .vertexArray, name: v)
    }
}

/// A sampler object: filters and clamped edges, bound over any texture Lamina draws,
/// so that neither a texture's own parameters nor a sampler the host left bound change
/// how Lamina samples.
final class Sampler: GPUObject {
    /// Inside a scope.
    init(gl: GLContext, minFilter: TextureFilter, magFilter: TextureFilter) {
        var s: GLuint = 0
        glGenSamplers(1, &s)
        super.init(gl: gl, kind: .sampler, name: s)
        glSamplerParameteri(s, GLenum(GL_TEXTURE_MIN_FILTER), minFilter.gl)
        glSamplerParameteri(s, GLenum(GL_TEXTURE_MAG_FILTER), magFilter.gl)
        glSamplerParameteri(s, GLenum(GL_TEXTURE_WRAP_S), GL_CLAMP_TO_EDGE)
        glSamplerParameteri(s, GLenum(GL_TEXTURE_WRAP_T), GL_CLAMP_TO_EDGE)
        gl.checkGLError("sampler parameters")
    }
}

/// The unit quad (0,0)…(1,1) as a triangle strip, for `RenderPass.draw(with:)` (a
/// caller's program on `quad.vert`); Lamina's own quads are batched (`QuadBatch`).
struct QuadGeometry {
    let buffer: Buffer
    let vertexArray: VertexArray

    /// Inside a scope.
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
    /// A texture of `pixelSize` (uninitialised unless `pixels` is given), stored as
    /// `storage` (`.bgra8` needs `capabilities.bgraStorage` and RGBA byte order). Throws
    /// when the size is zero or above `capabilities.maxTextureSize`, or when GPU memory
    /// runs out.
    public func makeTexture(pixelSize: PixelSize, byteOrder: PixelByteOrder = .rgba, pixels: RGBAImage? = nil,
                            storage: TextureStorage = .rgba8) throws -> Texture {
        guard !isClosed else { throw GPUError.deviceClosed(operation: "makeTexture") }
        try validate(pixelSize, what: "texture", maximum: capabilities.maxTextureSize)
        if let pixels {
            guard byteOrder == .rgba, pixels.pixelSize == pixelSize else {
                throw GPUError.invalidArgument(operation: "makeTexture(pixels:)", reason: "initial pixels must be an RGBA image of the texture's size \(pixelSize) (got \(pixels.pixelSize) for a \(byteOrder) texture)")
            }
        }
        if storage == .bgra8 {
            guard capabilities.bgraStorage else {
                throw GPUError.invalidArgument(operation: "makeTexture(storage: .bgra8)", reason: "\(capabilities.glVersion) has no GL_EXT_texture_format_BGRA8888 (OpenGL ES only); use .rgba8")
            }
            guard byteOrder == .rgba else {
                throw GPUError.invalidArgument(operation: "makeTexture(storage: .bgra8)", reason: "BGRA storage already samples as RGBA: give its uploads RGBA bytes (byteOrder .rgba), or store \(byteOrder) bytes in .rgba8")
            }
        }
        return try gl.withCurrentThrowing {
            var t: GLuint = 0
            glGenTextures(1, &t)
            let texture = Texture(gl: gl, name: t, pixelSize: pixelSize, byteOrder: byteOrder, storage: storage)
            glBindBuffer(GLenum(GL_PIXEL_UNPACK_BUFFER), 0)
            LaminaGLState.bindForTransfer(texture: t)
            _ = glGetError()
            let (internalFormat, format) = storage == .bgra8 ? (GL_BGRA_EXT, GL_BGRA_EXT) : (GL_RGBA8, GL_RGBA)
            glTexImage2D(GLenum(GL_TEXTURE_2D), 0, internalFormat, GLsizei(pixelSize.width), GLsizei(pixelSize.height), 0,
                         GLenum(format), GLenum(GL_UNSIGNED_BYTE), nil)
            if storage == .bgra8, case let e = glGetError(), e != GLenum(GL_NO_ERROR) {
                texture.release()
                if e == GLenum(GL_OUT_OF_MEMORY) { throw GPUError.outOfMemory(what: "a \(pixelSize) \(storage) texture") }
                throw GPUError.invalidArgument(operation: "makeTexture(storage: .bgra8)", reason: "\(capabilities.glRenderer) refused GL_BGRA_EXT storage (\(glErrorName(e))); use .rgba8")
            }
            do { try gl.throwIfOutOfMemory("a \(pixelSize) \(storage) texture") } catch { texture.release(); throw error }
            configure(texture)
            if let pixels { try texture.upload(pixels) }
            return texture
        }
    }

    /// Wraps a host's texture (a `GL_TEXTURE_2D` of this device's context or share group,
    /// premultiplied RGBA in memory order — Lamina never sets a borrowed texture's swizzle —
    /// `pixelSize` pixels, row 0 the image's top)
    /// as a borrowed `Texture`: usable as layer contents (`.texture`) or as a render
    /// target (`OffscreenTarget(device:texture:)`); Lamina never deletes it and never
    /// changes its parameters (it samples through its own sampler objects). `release()`
    /// only forgets it. The host keeps it alive while Lamina may draw it, and after
    /// writing it from another context finishes that work (glFinish or a fence) before
    /// Lamina's next frame.
    public func borrowTexture(glName: UInt32, pixelSize: PixelSize) throws -> Texture {
        guard !isClosed else { throw GPUError.deviceClosed(operation: "borrowTexture") }
        try validate(pixelSize, what: "borrowed texture", maximum: capabilities.maxTextureSize)
        let isTexture = try gl.withCurrentThrowing { glIsTexture(GLuint(glName)) == GLboolean(GL_TRUE) }
        guard isTexture else {
            throw GPUError.notAnObject(what: "texture \(glName)", ownership: ownership)
        }
        return Texture(gl: gl, name: GLuint(glName), pixelSize: pixelSize, byteOrder: .rgba, borrowed: true)
    }

    /// The sampler object for a pair of filters (inside a scope), made on first use.
    func sampler(min: TextureFilter, mag: TextureFilter) -> Sampler {
        sampler(key: GPUDevice.samplerKey(min: min, mag: mag))
    }

    /// A pair of filters as a small integer (0…3).
    static func samplerKey(min: TextureFilter, mag: TextureFilter) -> Int {
        (min == .linear ? 2 : 0) + (mag == .linear ? 1 : 0)
    }

    /// The sampler object for a `samplerKey` (inside a scope), made on first use.
    func sampler(key: Int) -> Sampler {
        if let s = samplers[key], !s.isReleased { return s }
        let s = Sampler(gl: gl, minFilter: key & 2 != 0 ? .linear : .nearest, magFilter: key & 1 != 0 ? .linear : .nearest)
        samplers[key] = s
        return s
    }

    /// Sampling defaults for a new texture (inside a scope, the texture bound): linear
    /// filtering, clamped edges, and the red/blue swizzle for BGRA data. Lamina draws
    /// through sampler objects; these matter to a host sampling the texture itself.
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

extension TextureFilter {
    var gl: GLint { self == .linear ? GL_LINEAR : GL_NEAREST }
}

/// A texture can be a layer's contents (`LayerContents.texture`).
extension Texture: ContentTexture {}

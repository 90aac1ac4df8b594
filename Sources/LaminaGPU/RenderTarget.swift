import CEGL
import CGBM
import CGLES
import Glibc
import LaminaGeometry

/// Where a render pass lands: a framebuffer rectangle of `pixelSize` pixels showing
/// `size` points at `scale` pixels per point.
///
/// Row order: offscreen and GBM targets keep the image's top row in memory row 0 (what
/// `glReadPixels`, dma-buf consumers and scan-out expect). The only y flip of Lamina is
/// `pointsToClip`, which maps UIKit's top-left points to GL clip space for this target.
public class RenderTarget {
    public let device: GPUDevice
    /// The pixels Lamina renders: the whole framebuffer, or the `region` of a host's.
    public let pixelSize: PixelSize
    public let scale: Double
    /// The framebuffer Lamina draws into, and the wrapper owning it (nil: the caller's).
    private(set) var framebufferName: GLuint
    private(set) var ownedFramebuffer: Framebuffer?
    private var externalReleased = false
    /// Set by `release()`: the target's use ended for good (not merely lost with its context).
    private var releasedByUser = false
    /// True when memory row 0 is the image's bottom row (a window system's back buffer).
    let bottomRowFirst: Bool
    /// The whole framebuffer's size, and the rectangle Lamina renders (top-left origin).
    public let framebufferSize: PixelSize
    public let region: PixelRect
    /// The region in GL window coordinates (origin bottom-left of the framebuffer).
    let viewport: GLViewport

    init(device: GPUDevice, pixelSize: PixelSize, scale: Double, framebuffer: Framebuffer) {
        self.device = device; self.pixelSize = pixelSize; self.scale = scale
        self.framebufferName = framebuffer.name
        self.ownedFramebuffer = framebuffer
        self.bottomRowFirst = false
        self.framebufferSize = pixelSize
        self.region = PixelRect(size: pixelSize)
        self.viewport = GLViewport(x: 0, y: 0, width: GLint(pixelSize.width), height: GLint(pixelSize.height))
        self.bufferAge = 1
    }

    init(device: GPUDevice, framebufferSize: PixelSize, region: PixelRect, scale: Double, externalFramebuffer name: GLuint, bottomRowFirst: Bool) {
        self.device = device; self.pixelSize = region.size; self.scale = scale
        self.framebufferName = name
        self.ownedFramebuffer = nil
        self.bottomRowFirst = bottomRowFirst
        self.framebufferSize = framebufferSize
        self.region = region
        let y = bottomRowFirst ? framebufferSize.height - region.y - region.height : region.y
        self.viewport = GLViewport(x: GLint(region.x), y: GLint(y), width: GLint(region.width), height: GLint(region.height))
        self.bufferAge = 0
    }

    /// How many frames old the target's pixels are when a frame begins (EGL's buffer
    /// age): 1 for Lamina's own targets (they keep the last frame), 0 when unknown (a
    /// caller's framebuffer, by default: every frame is redrawn whole). A host that swaps
    /// buffers sets it before each frame (`EGL_EXT_buffer_age`), and Lamina redraws the
    /// damage of that many frames.
    public var bufferAge: Int

    /// `region` (pixels of the target, top-left origin) in GL window coordinates, within
    /// the target's viewport (nil: the viewport).
    func glScissor(for region: PixelRect?) -> GLViewport {
        guard let r = region else { return viewport }
        let x0 = max(0, r.x), y0 = max(0, r.y)
        let x1 = min(pixelSize.width, r.x + r.width), y1 = min(pixelSize.height, r.y + r.height)
        guard x1 > x0, y1 > y0 else { return GLViewport(x: viewport.x, y: viewport.y, width: 0, height: 0) }
        let glY = bottomRowFirst ? pixelSize.height - y1 : y0
        return GLViewport(x: viewport.x + GLint(x0), y: viewport.y + GLint(glY), width: GLint(x1 - x0), height: GLint(y1 - y0))
    }

    /// The target's size in points.
    public var size: Size { Size(width: Double(pixelSize.width) / scale, height: Double(pixelSize.height) / scale) }

    /// The texture the target renders into (to composite it elsewhere, or for a host to
    /// draw: `texture?.glName`); nil for a caller's framebuffer.
    public var texture: Texture? { ownedFramebuffer?.colorTexture }

    /// The GL name of the framebuffer Lamina draws into (read-only; 0 is a window surface).
    public var glFramebuffer: UInt32 { framebufferName }

    public var isReleased: Bool { ownedFramebuffer?.isReleased ?? externalReleased }

    /// Maps points (origin top-left, y down) to GL clip space. Depth is flattened for now.
    public var pointsToClip: Transform3D {
        let sx = 2 * scale / Double(pixelSize.width), sy = 2 * scale / Double(pixelSize.height)
        return bottomRowFirst
            ? Transform3D(scaleX: sx, y: -sy, z: 0).concatenating(Transform3D(translationX: -1, y: 1))
            : Transform3D(scaleX: sx, y: sy, z: 0).concatenating(Transform3D(translationX: -1, y: -1))
    }

    /// Checks, before a pass, that the framebuffer can be drawn (inside a scope). A
    /// caller's framebuffer may have changed since the target was made.
    func validateForPass() throws {
        guard ownedFramebuffer == nil else { return }
        try ExternalFramebufferTarget.check(device: device, framebuffer: framebufferName, framebufferSize: nil)
    }

    /// Stencil bits of a caller's framebuffer, asked once.
    private var externalStencilBits: GLint?

    /// Makes stencil clipping possible (inside a scope, with the target's framebuffer
    /// bound): Lamina's own targets get a depth/stencil buffer on first need; a caller's
    /// framebuffer must come with stencil bits.
    func prepareStencil() throws {
        if let fb = ownedFramebuffer {
            try fb.attachStencil()
            return
        }
        if externalStencilBits == nil {
            var bits: GLint = 0
            glGetFramebufferAttachmentParameteriv(GLenum(GL_FRAMEBUFFER), GLenum(framebufferName == 0 ? GL_STENCIL : GL_STENCIL_ATTACHMENT),
                                                  GLenum(GL_FRAMEBUFFER_ATTACHMENT_STENCIL_SIZE), &bits)
            _ = glGetError()   // no stencil attachment at all reports an error: the answer is 0 bits
            externalStencilBits = bits
        }
        guard let bits = externalStencilBits, bits > 0 else {
            throw GPUError.unusableTarget(reason: "the caller's framebuffer \(framebufferName) has no stencil buffer, which clipping (masksToBounds) needs: \(framebufferName == 0 ? "ask for 8 stencil bits when creating the window surface (SDL_GL_STENCIL_SIZE 8, EGL_STENCIL_SIZE 8)" : "attach a depth/stencil buffer with 8 stencil bits"), or render into an OffscreenTarget")
        }
    }

    /// The colour buffer Lamina draws to and reads: a window surface's back buffer, or
    /// colour attachment 0.
    private var laminaColorBuffer: GLenum { GLenum(framebufferName == 0 ? GL_BACK : GL_COLOR_ATTACHMENT0) }

    /// For a caller's framebuffer (bound for drawing, inside a scope): points its draw
    /// buffers at the one Lamina draws to if they point elsewhere (draw buffers are the
    /// framebuffer's own state); returns the host's to put back, or nil.
    func claimDrawBuffer() -> [GLenum]? {
        guard ownedFramebuffer == nil else { return nil }
        let count = framebufferName == 0 ? 1 : max(1, device.capabilities.maxDrawBuffers)
        var host: [GLenum] = []
        for i in 0..<count {
            var v: GLint = 0
            glGetIntegerv(GLenum(GL_DRAW_BUFFER0 + Int32(i)), &v)
            host.append(GLenum(v))
        }
        let wanted = [laminaColorBuffer] + [GLenum](repeating: GLenum(GL_NONE), count: count - 1)
        guard host != wanted else { return nil }
        glDrawBuffers(1, [laminaColorBuffer])
        return host
    }

    /// Puts back draw buffers taken by `claimDrawBuffer()`.
    func releaseDrawBuffer(_ host: [GLenum]?) {
        guard let host else { return }
        glBindFramebuffer(GLenum(GL_DRAW_FRAMEBUFFER), framebufferName)
        glDrawBuffers(GLsizei(host.count), host)
        device.gl.activePass = nil
    }

    /// Reads the target's pixels (or `region` of them, in pixels from the top-left of the
    /// target) as a premultiplied RGBA8 image, top row first.
    public func readPixels(_ region: PixelRect? = nil) throws -> RGBAImage {
        guard !device.isClosed else { throw GPUError.deviceClosed(operation: "readPixels") }
        guard !isReleased else { throw GPUError.released(what: "the render target", operation: "readPixels") }
        let r = region ?? PixelRect(size: pixelSize)
        guard r.x >= 0, r.y >= 0, r.width >= 0, r.height >= 0, r.x <= pixelSize.width, r.y <= pixelSize.height,
              r.width <= pixelSize.width - r.x, r.height <= pixelSize.height - r.y else {
            throw GPUError.invalidArgument(operation: "readPixels", reason: "the region \(r) is not inside the target's \(pixelSize) pixels")
        }
        let glX = Int(viewport.x) + r.x
        let glY = Int(viewport.y) + (bottomRowFirst ? pixelSize.height - r.y - r.height : r.y)
        var bytes = [UInt8](repeating: 0, count: r.area * 4)
        try device.gl.withCurrentThrowing {
            device.gl.activePass = nil
            LaminaGLState.applyForReadback(framebuffer: framebufferName)
            // A caller's framebuffer may read from another buffer (its own state): read
            // Lamina's colour buffer, then put the caller's choice back.
            var readBuffer: GLint = 0
            if ownedFramebuffer == nil { glGetIntegerv(GLenum(GL_READ_BUFFER), &readBuffer) }
            let redirect = ownedFramebuffer == nil && GLenum(readBuffer) != laminaColorBuffer
            if redirect { glReadBuffer(laminaColorBuffer) }
            glReadPixels(GLint(glX), GLint(glY), GLsizei(r.width), GLsizei(r.height), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), &bytes)
            if redirect { glReadBuffer(GLenum(readBuffer)) }
            device.checkGLError("glReadPixels(\(r))")
        }
        var image = RGBAImage(width: r.width, height: r.height, bytes: bytes)
        if bottomRowFirst { image = image.flippedVertically() }
        return image
    }

    /// Whether the target's GL objects went with a lost context (`GPUDevice.recover()`),
    /// and `restoreAfterContextLoss()` has not made them again.
    public var isLost: Bool { !releasedByUser && (ownedFramebuffer?.isReleased ?? false) }

    /// Makes the target's GL objects again after a context loss and `GPUDevice.recover()`
    /// (the pixels are gone: the next frame draws them whole). Targets whose storage is
    /// the caller's (a texture or framebuffer you made) cannot be: then this throws
    /// `GPUError.contextLost` — make the storage and the target again. Nothing to do when
    /// the target is not lost.
    public func restoreAfterContextLoss() throws {
        guard isLost else { return }
        guard let fb = try remakeFramebuffer() else {
            throw GPUError.contextLost(status: "the target's storage (a texture or buffer you made) went with the lost context; make it and the target again", guilty: false)
        }
        ownedFramebuffer = fb
        framebufferName = fb.name
    }

    /// The framebuffer made again after a context loss (nil: the target cannot).
    func remakeFramebuffer() throws -> Framebuffer? { nil }

    /// Frees the target's framebuffer, stencil and (when it owns it) texture — and the
    /// buffer, for GBM targets. A caller's framebuffer or a borrowed texture is only
    /// forgotten, never deleted.
    public func release() {
        releasedByUser = true
        guard let fb = ownedFramebuffer else { externalReleased = true; return }
        fb.release()
        if fb.ownsColorTexture { fb.colorTexture.release() }
    }
}

/// A caller's framebuffer (embedding): Lamina draws into the framebuffer object `name`
/// of the context it draws with — on an adopted device any framebuffer of the host,
/// including 0, the window surface current with the host's context. The caller owns and
/// keeps it. `pixelSize` is the whole framebuffer's size; `region` (top-left origin, in
/// its pixels) restricts Lamina to a rectangle of it, e.g. a UI panel: nothing outside is
/// cleared, drawn or read. `bottomRowFirst` is true for a window system's back buffer and
/// for framebuffers drawn in GL's usual orientation, false for one whose row 0 is the
/// image's top. Clipping (`masksToBounds`) needs stencil bits; Lamina uses the stencil of
/// the region as scratch (its contents there are undefined after a pass).
public final class ExternalFramebufferTarget: RenderTarget {
    public init(device: GPUDevice, framebuffer name: UInt32, pixelSize: PixelSize, region: PixelRect? = nil,
                scale: Double = 1, bottomRowFirst: Bool = true) throws {
        guard !device.isClosed else { throw GPUError.deviceClosed(operation: "ExternalFramebufferTarget") }
        try device.validate(pixelSize, what: "caller's framebuffer", maximum: device.capabilities.maxRenderTargetSize)
        let r = region ?? PixelRect(size: pixelSize)
        guard r.width >= 1, r.height >= 1, PixelRect(size: pixelSize).contains(r) else {
            throw GPUError.invalidSize(what: "region \(r) of a \(pixelSize) framebuffer (it must lie inside it)", size: r.size)
        }
        guard scale.isFinite, scale > 0 else {
            throw GPUError.invalidSize(what: "caller's framebuffer at scale \(scale)", size: r.size)
        }
        try device.gl.withCurrentThrowing {
            try ExternalFramebufferTarget.check(device: device, framebuffer: GLuint(name), framebufferSize: pixelSize)
        }
        super.init(device: device, framebufferSize: pixelSize, region: r, scale: scale, externalFramebuffer: GLuint(name), bottomRowFirst: bottomRowFirst)
    }

    /// Throws unless `framebuffer` can be drawn on the device's context now (inside a scope);
    /// with `framebufferSize`, also unless framebuffer 0's surface has that size (asking
    /// the window system: done when the target is made, not before every pass).
    static func check(device: GPUDevice, framebuffer name: GLuint, framebufferSize: PixelSize?) throws {
        if name != 0 {
            guard glIsFramebuffer(name) == GLboolean(GL_TRUE) else {
                throw GPUError.notAnObject(what: "framebuffer \(name)", ownership: device.ownership)
            }
        } else if let framebufferSize, let surface = eglGetCurrentSurface(EGL_DRAW) {
            var w: EGLint = 0, h: EGLint = 0
            eglQuerySurface(device.display, surface, EGL_WIDTH, &w)
            eglQuerySurface(device.display, surface, EGL_HEIGHT, &h)
            guard Int(w) == framebufferSize.width, Int(h) == framebufferSize.height else {
                throw GPUError.unusableTarget(reason: "framebuffer 0 is the current window surface, \(w)×\(h) px, not \(framebufferSize): make a target of the surface's size (after a resize, a new target)")
            }
        }
        device.gl.activePass = nil
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), name)
        let status = glCheckFramebufferStatus(GLenum(GL_FRAMEBUFFER))
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
        _ = glGetError()
        guard status == GLenum(GL_FRAMEBUFFER_COMPLETE) else {
            let detail = status == GLenum(GL_FRAMEBUFFER_UNDEFINED)
                ? "framebuffer 0 is undefined: no window surface is current with Lamina's \(device.ownership) context. Framebuffer 0 works on an adopted context (GPUDevice(adopting: .current)) while the host's window surface is current; with Lamina's own context, composite into an OffscreenTarget and draw its texture"
                : "the caller's framebuffer \(name) is not complete on Lamina's \(device.ownership) context"
            throw GPUError.unusableTarget(reason: "\(detail) (status 0x\(String(status, radix: 16)))")
        }
    }
}

extension RGBAImage {
    func flippedVertically() -> RGBAImage {
        var out = bytes
        let row = width * 4
        for y in 0..<height {
            out.replaceSubrange(y * row..<(y + 1) * row, with: bytes[(height - 1 - y) * row..<(height - y) * row])
        }
        return RGBAImage(width: width, height: height, bytes: out)
    }
}

/// An offscreen target: a texture-backed framebuffer.
public final class OffscreenTarget: RenderTarget {
    /// A target covering `size` points at `scale` pixels per point. Throws when the pixel
    /// size is zero or beyond the device's maximum render-target size.
    public convenience init(device: GPUDevice, size: Size, scale: Double = 1) throws {
        try self.init(device: device, pixelSize: try device.targetPixelSize(size, scale: scale, what: "render target"), scale: scale)
    }

    public init(device: GPUDevice, pixelSize: PixelSize, scale: Double = 1) throws {
        guard !device.isClosed else { throw GPUError.deviceClosed(operation: "OffscreenTarget") }
        try device.validate(pixelSize, what: "render target", maximum: device.capabilities.maxRenderTargetSize)
        let fb = try OffscreenTarget.makeFramebuffer(device, pixelSize)
        super.init(device: device, pixelSize: pixelSize, scale: scale, framebuffer: fb)
    }

    private static func makeFramebuffer(_ device: GPUDevice, _ pixelSize: PixelSize) throws -> Framebuffer {
        try device.gl.withCurrentThrowing {
            let texture = try device.makeTexture(pixelSize: pixelSize)
            do { return try Framebuffer(colorTexture: texture) } catch { texture.release(); throw error }
        }
    }

    /// A target that owns its texture makes both again; one on a caller's texture cannot.
    override func remakeFramebuffer() throws -> Framebuffer? {
        guard ownedFramebuffer?.ownsColorTexture == true else { return nil }
        return try OffscreenTarget.makeFramebuffer(device, pixelSize)
    }

    /// A target rendering into `texture` — Lamina's, or a host's lent through
    /// `borrowTexture` (a complete RGBA8 `GL_TEXTURE_2D`). The target owns only its
    /// framebuffer (and stencil): `release()` leaves the texture alone.
    public init(device: GPUDevice, texture: Texture, scale: Double = 1) throws {
        guard !device.isClosed else { throw GPUError.deviceClosed(operation: "OffscreenTarget") }
        guard texture.belongs(to: device) else { throw GPUError.wrongDevice(what: "the texture of OffscreenTarget(device:texture:)") }
        guard !texture.isReleased else { throw GPUError.released(what: "the texture", operation: "OffscreenTarget(device:texture:)") }
        try device.validate(texture.pixelSize, what: "render target", maximum: device.capabilities.maxRenderTargetSize)
        let fb = try device.gl.withCurrentThrowing { try Framebuffer(colorTexture: texture, ownsColorTexture: false) }
        super.init(device: device, pixelSize: texture.pixelSize, scale: scale, framebuffer: fb)
    }
}

/// A dma-buf: one plane of a GPU buffer as a file descriptor, with its layout. Owns `fd`
/// (closed by `close()` or when dropped); hand another process a `dup` of it. Not
/// thread-safe: keep it on one thread (send the fd, not the object).
public final class DMABuf {
    public private(set) var fd: Int32
    public let width: Int
    public let height: Int
    /// DRM fourcc (`AR24` = ARGB8888: bytes B, G, R, A on little-endian).
    public let fourcc: UInt32
    public let stride: Int
    public let offset: Int
    /// DRM format modifier (`0` = linear; `0x00ffffffffffffff` = invalid/implicit).
    public let modifier: UInt64

    public init(fd: Int32, width: Int, height: Int, fourcc: UInt32, stride: Int, offset: Int, modifier: UInt64) {
        self.fd = fd; self.width = width; self.height = height; self.fourcc = fourcc
        self.stride = stride; self.offset = offset; self.modifier = modifier
    }

    /// The fourcc as text, e.g. "AR24".
    public var fourccString: String {
        String(decoding: (0..<4).map { UInt8((fourcc >> ($0 * 8)) & 0xff) }, as: UTF8.self)
    }

    public func close() {
        if fd >= 0 { Glibc.close(fd); fd = -1 }
    }

    deinit { close() }
}

extension GPUDevice {
    /// The pixel size of a target of `size` points at `scale`, or a thrown error for sizes
    /// and scales that are not finite and positive, or beyond the device's maximum.
    func targetPixelSize(_ size: Size, scale: Double, what: String) throws -> PixelSize {
        let maximum = capabilities.maxRenderTargetSize
        guard scale.isFinite, scale > 0, size.width.isFinite, size.height.isFinite, size.width > 0, size.height > 0 else {
            throw GPUError.invalidSize(what: "\(what) of \(size.width)×\(size.height) pt at scale \(scale)", size: PixelSize(width: 0, height: 0))
        }
        let w = size.width * scale, h = size.height * scale
        guard w <= Double(maximum) + 1, h <= Double(maximum) + 1 else {
            throw GPUError.tooLargeExtent(what: "\(what) of \(size.width)×\(size.height) pt at scale \(scale)",
                                          width: w, height: h, maximum: maximum)
        }
        return PixelSize(covering: size, scale: scale)
    }

    /// Imports a dma-buf as a texture (`EGL_LINUX_DMA_BUF_EXT` + `glEGLImageTargetTexture2DOES`).
    /// The texture shares the buffer's memory; the fd may be closed afterwards.
    public func importDMABuf(_ buf: DMABuf) throws -> Texture {
        guard !isClosed else { throw GPUError.deviceClosed(operation: "importDMABuf") }
        guard capabilities.dmaBufImport else {
            throw GPUError.loggedEGLFailure(call: "importDMABuf", error: "no EGL_EXT_image_dma_buf_import", hint: "this driver cannot import dma-bufs")
        }
        guard let target = eglImageTargetTexture else {
            throw GPUError.loggedEGLFailure(call: "eglGetProcAddress(glEGLImageTargetTexture2DOES)", error: "not found", hint: "this driver lacks GL_OES_EGL_image")
        }
        try validate(PixelSize(width: buf.width, height: buf.height), what: "dma-buf texture", maximum: capabilities.maxTextureSize)
        return try gl.withCurrentThrowing { try importDMABufInScope(buf, target: target) }
    }

    private func importDMABufInScope(_ buf: DMABuf, target: PFNGLEGLIMAGETARGETTEXTURE2DOESPROC) throws -> Texture {
        var attrs: [EGLAttrib] = [
            EGLAttrib(EGL_WIDTH), buf.width, EGLAttrib(EGL_HEIGHT), buf.height,
            EGLAttrib(EGL_LINUX_DRM_FOURCC_EXT), EGLAttrib(buf.fourcc),
            EGLAttrib(EGL_DMA_BUF_PLANE0_FD_EXT), EGLAttrib(buf.fd),
            EGLAttrib(EGL_DMA_BUF_PLANE0_OFFSET_EXT), buf.offset,
            EGLAttrib(EGL_DMA_BUF_PLANE0_PITCH_EXT), buf.stride,
        ]
        if buf.modifier != LAMINA_DRM_FORMAT_MOD_INVALID && capabilities.dmaBufImportModifiers {
            attrs += [EGLAttrib(EGL_DMA_BUF_PLANE0_MODIFIER_LO_EXT), EGLAttrib(buf.modifier & 0xffff_ffff),
                      EGLAttrib(EGL_DMA_BUF_PLANE0_MODIFIER_HI_EXT), EGLAttrib(buf.modifier >> 32)]
        }
        attrs.append(EGLAttrib(EGL_NONE))
        guard let image = eglCreateImage(display, nil, EGLenum(EGL_LINUX_DMA_BUF_EXT), nil, attrs) else {
            throw GPUError.loggedEGLFailure(call: "eglCreateImage(EGL_LINUX_DMA_BUF_EXT, \(buf.fourccString) \(buf.width)×\(buf.height) stride \(buf.stride))",
                                      error: lastEGLError(), hint: "the driver refused this buffer layout")
        }
        var t: GLuint = 0
        glGenTextures(1, &t)
        gl.ledger.imageCreated(image)
        let texture = Texture(gl: gl, name: t, pixelSize: PixelSize(width: buf.width, height: buf.height), byteOrder: .rgba)
        texture.eglImage = image
        LaminaGLState.bindForTransfer(texture: t)
        _ = glGetError()
        target(GLenum(GL_TEXTURE_2D), image)
        let e = glGetError()
        guard e == GLenum(GL_NO_ERROR) else {
            texture.release()
            throw GPUError.loggedEGLFailure(call: "glEGLImageTargetTexture2DOES", error: glErrorName(e), hint: "the driver cannot texture from this dma-buf")
        }
        configure(texture)
        return texture
    }

    var eglImageTargetTexture: PFNGLEGLIMAGETARGETTEXTURE2DOESPROC? {
        eglProcedure("glEGLImageTargetTexture2DOES", as: PFNGLEGLIMAGETARGETTEXTURE2DOESPROC.self)
    }
}

/// A target backed by a GBM buffer object (GBM backend only): what Lamina renders lands
/// in a dma-buf that another process or API (KMS, a video encoder, Vulkan) can import.
public final class GBMTarget: RenderTarget {
    private var bo: OpaquePointer?
    /// DRM fourcc of the buffer (ARGB8888).
    public let fourcc: UInt32

    public convenience init(device: GPUDevice, size: Size, scale: Double = 1) throws {
        try self.init(device: device, pixelSize: try device.targetPixelSize(size, scale: scale, what: "GBM render target"), scale: scale)
    }

    public init(device: GPUDevice, pixelSize: PixelSize, scale: Double = 1) throws {
        guard !device.isClosed else { throw GPUError.deviceClosed(operation: "GBMTarget") }
        guard device.backend == .gbm, let gbm = device.gbm else {
            throw GPUError.wrongBackend(operation: "a GBM-backed render target", required: .gbm, actual: device.backend)
        }
        try device.validate(pixelSize, what: "GBM render target", maximum: device.capabilities.maxRenderTargetSize)
        let format = LAMINA_GBM_FORMAT_ARGB8888
        guard let bo = gbm.createBuffer(width: pixelSize.width, height: pixelSize.height, format: format) else {
            throw GPUError.gbmFailure(call: "gbm_bo_create(\(pixelSize), ARGB8888, RENDERING)", reason: String(cString: strerror(errno)))
        }
        self.bo = bo
        self.fourcc = format
        let fb: Framebuffer
        do {
            fb = try GBMTarget.framebuffer(on: bo, device)
        } catch {
            gbm_bo_destroy(bo)
            self.bo = nil
            throw error
        }
        super.init(device: device, pixelSize: pixelSize, scale: scale, framebuffer: fb)
    }

    /// A texture on the buffer (through a dma-buf and an EGL image) and a framebuffer on it.
    private static func framebuffer(on bo: OpaquePointer, _ device: GPUDevice) throws -> Framebuffer {
        let buf = try GBMTarget.export(bo)
        defer { buf.close() }
        return try device.gl.withCurrentThrowing {
            let texture = try device.importDMABuf(buf)
            do { return try Framebuffer(colorTexture: texture) } catch { texture.release(); throw error }
        }
    }

    /// The buffer outlives a lost context (it is the kernel's): it is imported again. Its
    /// pixels are kept, but the next frame draws them whole anyway.
    override func remakeFramebuffer() throws -> Framebuffer? {
        guard let bo else { return nil }
        return try GBMTarget.framebuffer(on: bo, device)
    }

    private static func export(_ bo: OpaquePointer) throws -> DMABuf {
        let fd = gbm_bo_get_fd(bo)
        guard fd >= 0 else { throw GPUError.gbmFailure(call: "gbm_bo_get_fd", reason: String(cString: strerror(errno))) }
        return DMABuf(fd: fd, width: Int(gbm_bo_get_width(bo)), height: Int(gbm_bo_get_height(bo)),
                      fourcc: gbm_bo_get_format(bo), stride: Int(gbm_bo_get_stride_for_plane(bo, 0)),
                      offset: Int(gbm_bo_get_offset(bo, 0)), modifier: gbm_bo_get_modifier(bo))
    }

    /// A new dma-buf of this target's buffer (a fresh fd the caller owns). Rendering
    /// is finished (`glFinish`) before it is handed out.
    public func exportDMABuf() throws -> DMABuf {
        guard let bo else { throw GPUError.gbmFailure(call: "exportDMABuf", reason: "the target was released") }
        guard !device.isClosed else { throw GPUError.deviceClosed(operation: "exportDMABuf") }
        try device.gl.withCurrentThrowing { glFinish() }
        return try GBMTarget.export(bo)
    }

    /// Reads the buffer through the CPU mapping of the GBM buffer (`gbm_bo_map`), not
    /// through GL: what another process importing the dma-buf sees. RGBA, top row first.
    public func readMappedPixels() throws -> RGBAImage {
        guard let bo else { throw GPUError.gbmFailure(call: "gbm_bo_map", reason: "the target was released") }
        guard !device.isClosed else { throw GPUError.deviceClosed(operation: "readMappedPixels") }
        try device.gl.withCurrentThrowing { glFinish() }
        var stride: UInt32 = 0
        var mapData: UnsafeMutableRawPointer?
        guard let p = gbm_bo_map(bo, 0, 0, UInt32(pixelSize.width), UInt32(pixelSize.height),
                                 GBM_BO_TRANSFER_READ.rawValue, &stride, &mapData) else {
            throw GPUError.gbmFailure(call: "gbm_bo_map(READ)", reason: String(cString: strerror(errno)))
        }
        defer { gbm_bo_unmap(bo, mapData) }
        let src = p.assumingMemoryBound(to: UInt8.self)
        var out = [UInt8](repeating: 0, count: pixelSize.width * pixelSize.height * 4)
        for y in 0..<pixelSize.height {
            let row = src + y * Int(stride)
            for x in 0..<pixelSize.width {
                let i = (y * pixelSize.width + x) * 4
                // ARGB8888 is B, G, R, A in memory.
                out[i] = row[x * 4 + 2]; out[i + 1] = row[x * 4 + 1]; out[i + 2] = row[x * 4]; out[i + 3] = row[x * 4 + 3]
            }
        }
        return RGBAImage(width: pixelSize.width, height: pixelSize.height, bytes: out)
    }

    public override func release() {
        super.release()
        if let bo { gbm_bo_destroy(bo) }
        bo = nil
    }

    deinit {
        // The buffer object is CPU/kernel memory, not a GL name: freeing it here is safe.
        if let bo { gbm_bo_destroy(bo) }
    }
}

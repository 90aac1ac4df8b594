import CEGL
import CGBM
import CGLES
import Glibc
import LaminaGeometry
import LaminaValues

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
    var framebufferName: GLuint
    var ownedFramebuffer: Framebuffer?
    private var externalReleased = false
    /// Set by `release()`: the target's use ended for good (not merely lost with its context).
    var releasedByUser = false
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
            throw GPUError.unusableTarget(reason: "the caller's framebuffer \(framebufferName) has no stencil buffer, which clipping by a rounded, turned or perspective layer (masksToBounds) needs: \(framebufferName == 0 ? "ask for 8 stencil bits when creating the window surface (SDL_GL_STENCIL_SIZE 8, EGL_STENCIL_SIZE 8)" : "attach a depth/stencil buffer with 8 stencil bits"), or render into an OffscreenTarget")
        }
    }

    /// Whether Lamina's own framebuffer (the one drawn now, of a swapchain's) has its
    /// depth/stencil buffer; nil for a caller's framebuffer, whose buffers are its own.
    package var ownStencilAttached: Bool? { ownedFramebuffer.map { $0.stencil != nil } }

    /// Attaches or detaches the depth/stencil buffer of Lamina's own framebuffer (the one
    /// drawn now); nothing for a caller's. A compositor keeps it exactly while its items
    /// clip, drawing the whole target when that changes (`FullFrameReason.stencilChanged`).
    package func setOwnStencil(_ attached: Bool) throws {
        guard let fb = ownedFramebuffer, (fb.stencil != nil) != attached else { return }
        try device.gl.withCurrentThrowing {
            if attached { try fb.attachStencil() } else { fb.detachStencil() }
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
        }
    }

    /// The colour buffer Lamina draws to and reads: a window surface's back buffer, or
    /// colour attachment 0.
    var laminaColorBuffer: GLenum { GLenum(framebufferName == 0 ? GL_BACK : GL_COLOR_ATTACHMENT0) }

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

    /// Frame hooks for targets whose buffers rotate (`GBMSwapchain`): before a frame reads
    /// `bufferAge`; after it (drawn, or skipped because nothing changed), with what it
    /// changed and repainted (points); after a frame failed midway.
    package func frameWillBegin() throws {}
    package func frameDidEnd(drawn: Bool, damage: Rect?, repainted: Rect?) throws {}
    package func frameFailed() {}
    /// Frames that change nothing are not drawn at all (a swapchain: its consumer shows the
    /// latest frame already), whatever the buffer's age.
    package var presentsChangesOnly: Bool { false }

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
/// image's top. A clip that is not an axis-aligned rectangle (`masksToBounds` on a rounded,
/// turned or perspective layer) needs stencil bits; Lamina uses the stencil of the region
/// as scratch (its contents there are undefined after a pass). Axis-aligned rectangles are
/// clipped by the scissor.
public final class ExternalFramebufferTarget: RenderTarget {
    public init(device: GPUDevice, framebuffer name: UInt32, pixelSize: PixelSize, region: PixelRect? = nil,
                scale: Double = 1, bottomRowFirst: Bool = true) throws {
        guard !device.isClosed else { throw GPUError.deviceClosed(operation: "ExternalFramebufferTarget") }
        try device.validate(pixelSize, what: "caller's framebuffer", maximum: device.capabilities.maxRenderTargetSize)
        let r = region ?? PixelRect(size: pixelSize)
        guard r.width >= 1, r.height >= 1, PixelRect(size: pixelSize).contains(r) else {
            throw GPUError.invalidSize(what: "region \(r) of a \(pixelSize) framebuffer (it must lie inside it)", size: r.size)
        }
        try GPUDevice.validate(scale: scale, what: "ExternalFramebufferTarget")
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

    /// A target of `pixelSize` pixels, with its depth/stencil buffer (for clipping) from the
    /// start (see `Framebuffer.init(colorTexture:ownsColorTexture:withStencil:)`).
    public convenience init(device: GPUDevice, pixelSize: PixelSize, scale: Double = 1) throws {
        try self.init(device: device, pixelSize: pixelSize, scale: scale, withStencil: true)
    }

    /// Whether the target was made with a depth/stencil buffer (a scratch target, drawn
    /// whole and never clipped, is made without).
    let withStencil: Bool

    init(device: GPUDevice, pixelSize: PixelSize, scale: Double = 1, withStencil: Bool) throws {
        guard !device.isClosed else { throw GPUError.deviceClosed(operation: "OffscreenTarget") }
        try GPUDevice.validate(scale: scale, what: "OffscreenTarget")
        try device.validate(pixelSize, what: "render target", maximum: device.capabilities.maxRenderTargetSize)
        let fb = try OffscreenTarget.makeFramebuffer(device, pixelSize, withStencil: withStencil)
        self.withStencil = withStencil
        super.init(device: device, pixelSize: pixelSize, scale: scale, framebuffer: fb)
    }

    /// A framebuffer on a new texture stored as `device.targetStorage`; one that cannot be
    /// made as `.bgra8` is made as `.rgba8`, which the device then keeps to.
    private static func makeFramebuffer(_ device: GPUDevice, _ pixelSize: PixelSize, withStencil: Bool) throws -> Framebuffer {
        try device.gl.withCurrentThrowing {
            let storage = device.targetStorage
            func inRGBA8(because why: String) throws -> Framebuffer {
                LaminaLog.logger.warning("render targets: \(why); making them RGBA8 from now on")
                device.targetStorage = .rgba8
                return try makeFramebuffer(device, pixelSize, withStencil: withStencil)
            }
            let texture: Texture
            do {
                texture = try device.makeTexture(pixelSize: pixelSize, storage: storage)
            } catch GPUError.invalidArgument(_, let reason) where storage == .bgra8 {
                return try inRGBA8(because: reason)
            }
            do { return try Framebuffer(colorTexture: texture, withStencil: withStencil) } catch {
                texture.release()
                guard storage == .bgra8, case GPUError.incompleteFramebuffer(let status) = error else { throw error }
                return try inRGBA8(because: "a BGRA8 framebuffer is incomplete (\(status))")
            }
        }
    }

    /// A target that owns its texture makes both again; one on a caller's texture cannot.
    override func remakeFramebuffer() throws -> Framebuffer? {
        guard ownedFramebuffer?.ownsColorTexture == true else { return nil }
        return try OffscreenTarget.makeFramebuffer(device, pixelSize, withStencil: withStencil)
    }

    /// A target rendering into `texture` — Lamina's, or a host's lent through
    /// `borrowTexture` (a complete RGBA8 `GL_TEXTURE_2D`). The target owns only its
    /// framebuffer (and stencil): `release()` leaves the texture alone.
    public init(device: GPUDevice, texture: Texture, scale: Double = 1) throws {
        guard !device.isClosed else { throw GPUError.deviceClosed(operation: "OffscreenTarget") }
        try GPUDevice.validate(scale: scale, what: "OffscreenTarget")
        guard texture.belongs(to: device) else { throw GPUError.wrongDevice(what: "the texture of OffscreenTarget(device:texture:)") }
        guard !texture.isReleased else { throw GPUError.released(what: "the texture", operation: "OffscreenTarget(device:texture:)") }
        try device.validate(texture.pixelSize, what: "render target", maximum: device.capabilities.maxRenderTargetSize)
        let fb = try device.gl.withCurrentThrowing { try Framebuffer(colorTexture: texture, ownsColorTexture: false) }
        withStencil = true
        super.init(device: device, pixelSize: texture.pixelSize, scale: scale, framebuffer: fb)
    }
}

/// A dma-buf: a GPU buffer as file descriptors (one per plane, or one shared by all), with
/// its layout. Owns its fds (closed by `close()` or when dropped); hand another process a
/// `dup` of them. Not thread-safe: keep it on one thread (send the fds, not the object).
public final class DMABuf {
    /// One plane: where its bytes are (fd, offset) and how far apart its rows are.
    public struct Plane: Sendable {
        public var fd: Int32
        public var offset: Int
        public var stride: Int
        public init(fd: Int32, offset: Int, stride: Int) { self.fd = fd; self.offset = offset; self.stride = stride }
    }
    public private(set) var planes: [Plane]
    public let width: Int
    public let height: Int
    public let format: DRMFormat
    public let modifier: DRMModifier

    /// A buffer of several planes (YUV). Planes may share one fd (then it is closed once).
    public init(width: Int, height: Int, format: DRMFormat, modifier: DRMModifier = .invalid, planes: [Plane]) {
        self.width = width; self.height = height; self.format = format; self.modifier = modifier; self.planes = planes
    }

    /// A single-plane buffer.
    public convenience init(fd: Int32, width: Int, height: Int, fourcc: UInt32, stride: Int, offset: Int, modifier: UInt64) {
        self.init(width: width, height: height, format: DRMFormat(rawValue: fourcc), modifier: DRMModifier(rawValue: modifier),
                  planes: [Plane(fd: fd, offset: offset, stride: stride)])
    }

    /// Plane 0's fd, stride and offset (single-plane buffers).
    public var fd: Int32 { planes.first?.fd ?? -1 }
    public var stride: Int { planes.first?.stride ?? 0 }
    public var offset: Int { planes.first?.offset ?? 0 }
    /// DRM fourcc (`AR24` = ARGB8888: bytes B, G, R, A on little-endian).
    public var fourcc: UInt32 { format.rawValue }

    /// The fourcc as text, e.g. "AR24".
    public var fourccString: String { format.description }

    /// Lets go of the fds without closing them (their new owner closes them).
    func forget() { planes = planes.map { Plane(fd: -1, offset: $0.offset, stride: $0.stride) } }

    public func close() {
        var closed: Set<Int32> = []
        for i in planes.indices where planes[i].fd >= 0 {
            if closed.insert(planes[i].fd).inserted { Glibc.close(planes[i].fd) }
            planes[i].fd = -1
        }
    }

    deinit { close() }
}

extension GPUDevice {
    /// Throws unless `scale` is one `PixelScale` accepts.
    public static func validate(scale: Double, what: String) throws {
        guard PixelScale.isValid(scale) else { throw GPUError.invalidArgument(operation: what, reason: PixelScale.requirement(got: scale)) }
    }

    /// The pixel size of a target of `size` points at `scale`, or a thrown error for sizes
    /// that are not finite and positive, scales outside `PixelScale`, or pixel sizes beyond
    /// the device's maximum.
    func targetPixelSize(_ size: Size, scale: Double, what: String) throws -> PixelSize {
        let maximum = capabilities.maxRenderTargetSize
        try GPUDevice.validate(scale: scale, what: what)
        guard size.width.isFinite, size.height.isFinite, size.width > 0, size.height > 0 else {
            throw GPUError.invalidSize(what: "\(what) of \(size.width)×\(size.height) pt at scale \(scale)", size: PixelSize(width: 0, height: 0))
        }
        let w = size.width * scale, h = size.height * scale
        guard w <= Double(maximum) + 1, h <= Double(maximum) + 1 else {
            throw GPUError.tooLargeExtent(what: "\(what) of \(size.width)×\(size.height) pt at scale \(scale)",
                                          width: w, height: h, maximum: maximum)
        }
        return PixelSize(covering: size, scale: scale)
    }

    var eglImageTargetTexture: PFNGLEGLIMAGETARGETTEXTURE2DOESPROC? {
        eglProcedure("glEGLImageTargetTexture2DOES", as: PFNGLEGLIMAGETARGETTEXTURE2DOESPROC.self)
    }
}

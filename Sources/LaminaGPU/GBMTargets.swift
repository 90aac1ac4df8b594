import LaminaValues
import CEGL
import CGBM
import CGLES
import Glibc
import LaminaGeometry

extension RenderTarget {
    /// A framebuffer on a GBM buffer: its dma-buf imported as a texture (an EGL image), the
    /// texture attached (inside or outside a scope).
    static func framebuffer(on buffer: GBMBuffer, _ device: GPUDevice) throws -> Framebuffer {
        let buf = try buffer.exportDMABuf()
        defer { buf.close() }
        return try device.gl.withCurrentThrowing {
            let texture = try device.importDMABuf(buf)
            guard !texture.isExternal else {
                texture.release()
                throw GPUError.unusableTarget(reason: "the driver imports \(buffer.format) (modifier \(buffer.modifier)) only for sampling, not for rendering: choose another format or the linear modifier")
            }
            do { return try Framebuffer(colorTexture: texture) } catch {
                texture.release()
                throw GPUError.unusableTarget(reason: "GL cannot render into a \(buffer.format) buffer (modifier \(buffer.modifier)) on this driver: \(error)")
            }
        }
    }
}

/// A target backed by one GBM buffer object (GBM backend only): what Lamina renders lands
/// in a dma-buf that another process or API (KMS, a video encoder, Vulkan) can import.
/// For buffers that rotate (page flipping, a Wayland client), use `GBMSwapchain`.
public final class GBMTarget: RenderTarget {
    /// The buffer (nil once released).
    public private(set) var buffer: GBMBuffer?
    /// DRM fourcc of the buffer.
    public let fourcc: UInt32
    public let format: DRMFormat

    public convenience init(device: GPUDevice, size: Size, scale: Double = 1, format: DRMFormat = .argb8888,
                            modifiers: [DRMModifier]? = nil, usage: GBMUsage = .rendering) throws {
        try self.init(device: device, pixelSize: try device.targetPixelSize(size, scale: scale, what: "GBM render target"),
                      scale: scale, format: format, modifiers: modifiers, usage: usage)
    }

    /// A target on a new buffer of `format` (opaque formats show the image as if over
    /// black: their alpha reads as 1), with one of `modifiers` (nil: the driver's implicit
    /// choice), allocated for `usage` (rendering is always added).
    public init(device: GPUDevice, pixelSize: PixelSize, scale: Double = 1, format: DRMFormat = .argb8888,
                modifiers: [DRMModifier]? = nil, usage: GBMUsage = .rendering) throws {
        guard !device.isClosed else { throw GPUError.deviceClosed(operation: "GBMTarget") }
        try GPUDevice.validate(scale: scale, what: "GBMTarget")
        guard device.backend == .gbm, device.gbm != nil else {
            throw GPUError.wrongBackend(operation: "a GBM-backed render target", required: .gbm, actual: device.backend)
        }
        try device.validate(pixelSize, what: "GBM render target", maximum: device.capabilities.maxRenderTargetSize)
        let buffer = try device.makeGBMBuffer(pixelSize: pixelSize, format: format, modifiers: modifiers, usage: usage.union(.rendering))
        let fb: Framebuffer
        do { fb = try RenderTarget.framebuffer(on: buffer, device) } catch { buffer.release(); throw error }
        self.buffer = buffer
        self.format = format
        self.fourcc = format.rawValue
        super.init(device: device, pixelSize: pixelSize, scale: scale, framebuffer: fb)
    }

    /// The buffer outlives a lost context (it is the kernel's): it is imported again. Its
    /// pixels are kept, but the next frame draws them whole anyway.
    override func remakeFramebuffer() throws -> Framebuffer? {
        guard let buffer else { return nil }
        return try RenderTarget.framebuffer(on: buffer, device)
    }

    /// A new dma-buf of this target's buffer (fresh fds the caller owns). The GPU has
    /// finished rendering into it when this returns (it waits on a fence after the work
    /// issued so far; `glFinish` where the driver has no fences).
    public func exportDMABuf() throws -> DMABuf {
        guard let buffer else { throw GPUError.gbmFailure(call: "exportDMABuf", reason: "the target was released") }
        guard !device.isClosed else { throw GPUError.deviceClosed(operation: "exportDMABuf") }
        try device.finishWork()
        return try buffer.exportDMABuf()
    }

    /// Reads the buffer through the CPU mapping of the GBM buffer (`gbm_bo_map`), not
    /// through GL: what another process importing the dma-buf sees. RGBA, top row first.
    public func readMappedPixels() throws -> RGBAImage {
        guard let buffer else { throw GPUError.gbmFailure(call: "gbm_bo_map", reason: "the target was released") }
        guard !device.isClosed else { throw GPUError.deviceClosed(operation: "readMappedPixels") }
        try device.finishWork()
        return try buffer.readMappedPixels()
    }

    public override func release() {
        super.release()
        buffer?.release()
        buffer = nil
    }
}

extension GPUDevice {
    /// Waits until the GPU has finished the work issued so far: on a fence where the
    /// driver has them, else `glFinish`.
    public func finishWork() throws {
        if capabilities.fenceSync, let fence = try? SyncFence.afterWork(on: self) {
            fence.wait()
        } else {
            try gl.withCurrentThrowing { gl.pendingPass?.flush(); glFinish() }
        }
    }
}

/// N GBM buffers (2–4) that frames are rendered into one after another — a swapchain for a
/// DRM/KMS program (page flipping) or a Wayland client (`zwp_linux_dmabuf_v1`), without a
/// window system. A `Window`/`LayerTreeHost` (or `LayerRenderer.render`) on it draws each
/// frame into the free buffer drawn longest ago, repainting only what changed since that
/// buffer was last drawn (its *age*, as `EGL_EXT_buffer_age`); then the buffer is
/// *presented*: `onPresent` gets it with a fence that signals when the GPU is done, and it
/// is held for the consumer until `releaseBuffer(_:)` hands it back (a display after the
/// next flip, a compositor's `wl_buffer.release`). A frame with no free buffer throws.
public final class GBMSwapchain: RenderTarget {
    /// A presented frame.
    public struct Frame: @unchecked Sendable {
        public let buffer: GBMBuffer
        /// Which of `buffers`.
        public let index: Int
        /// Counts presented frames from 0.
        public let serial: Int
        /// Signals when the GPU finished the frame (nil where the driver has no fences:
        /// then the frame was finished before it was presented).
        public let fence: SyncFence?
        /// What this frame changed (points of the target), and what was repainted in the
        /// buffer (this frame's change plus what it missed for its age).
        public let damage: Rect
        public let repainted: Rect
    }

    public let buffers: [GBMBuffer]
    public let format: DRMFormat
    private var framebuffers: [Framebuffer]
    /// The frame serial each buffer was last drawn at (nil: never, or its pixels unknown).
    private var lastDrawn: [Int?]
    /// Held by the consumer: presented and not yet released (locked: `releaseBuffer` may
    /// be called on another thread, a page-flip or `wl_buffer.release` handler's).
    private let heldLock: Locked<[Bool]>
    private var held: [Bool] { heldLock.withLock { $0 } }
    /// The buffer the frame being drawn renders into.
    public private(set) var acquiredIndex: Int?
    /// The buffer of the last presented frame (what the target's pixels read from).
    public private(set) var presented: Frame?
    /// Frames presented so far.
    public private(set) var frameCount = 0
    /// Called with each presented frame (on the thread that renders). The swapchain keeps
    /// the closure: capture the swapchain `unowned` (or weak) in it.
    public var onPresent: ((Frame) -> Void)?

    public convenience init(device: GPUDevice, size: Size, scale: Double = 1, bufferCount: Int = 3, format: DRMFormat = .argb8888,
                            modifiers: [DRMModifier]? = nil, usage: GBMUsage = .rendering) throws {
        try self.init(device: device, pixelSize: try device.targetPixelSize(size, scale: scale, what: "GBM swapchain"), scale: scale,
                      bufferCount: bufferCount, format: format, modifiers: modifiers, usage: usage)
    }

    /// `bufferCount` buffers (2–4) of `format`, `modifiers` and `usage` (rendering is
    /// always added; add `.scanout` for KMS).
    public init(device: GPUDevice, pixelSize: PixelSize, scale: Double = 1, bufferCount: Int = 3, format: DRMFormat = .argb8888,
                modifiers: [DRMModifier]? = nil, usage: GBMUsage = .rendering) throws {
        guard !device.isClosed else { throw GPUError.deviceClosed(operation: "GBMSwapchain") }
        try GPUDevice.validate(scale: scale, what: "GBMSwapchain")
        guard device.backend == .gbm, device.gbm != nil else {
            throw GPUError.wrongBackend(operation: "a GBM swapchain", required: .gbm, actual: device.backend)
        }
        guard (2...4).contains(bufferCount) else {
            throw GPUError.invalidArgument(operation: "GBMSwapchain", reason: "bufferCount \(bufferCount): a swapchain has 2 to 4 buffers")
        }
        try device.validate(pixelSize, what: "GBM swapchain", maximum: device.capabilities.maxRenderTargetSize)
        var buffers: [GBMBuffer] = [], fbs: [Framebuffer] = []
        do {
            for _ in 0..<bufferCount {
                let b = try device.makeGBMBuffer(pixelSize: pixelSize, format: format, modifiers: modifiers, usage: usage.union(.rendering))
                buffers.append(b)
                fbs.append(try RenderTarget.framebuffer(on: b, device))
            }
        } catch {
            for fb in fbs { fb.release(); fb.colorTexture.release() }
            for b in buffers { b.release() }
            throw error
        }
        self.buffers = buffers
        self.framebuffers = fbs
        self.format = format
        lastDrawn = Array(repeating: nil, count: bufferCount)
        heldLock = Locked(Array(repeating: false, count: bufferCount))
        super.init(device: device, pixelSize: pixelSize, scale: scale, framebuffer: fbs[0])
        bufferAge = 0
    }

    /// Buffers neither held by the consumer nor being drawn.
    public var freeBufferCount: Int {
        let held = self.held
        return buffers.indices.filter { !held[$0] && $0 != acquiredIndex }.count
    }

    /// Whether the consumer holds buffer `index` (presented, not yet released).
    public func isHeld(_ index: Int) -> Bool { held[index] }

    /// The age a frame drawn into buffer `index` now would have: frames since it was last
    /// drawn (1: it holds the last frame), 0 when its pixels are unknown.
    public func age(ofBuffer index: Int) -> Int { lastDrawn[index].map { frameCount - $0 } ?? 0 }

    /// Chooses the buffer the next frame renders into (the free one drawn longest ago) and
    /// sets `bufferAge`. Called by the compositor before each frame; call it yourself when
    /// you draw with your own render passes, then `present()`.
    @discardableResult
    public func acquireNextBuffer() throws -> Int {
        if let i = acquiredIndex { return i }
        guard !isReleased else { throw GPUError.released(what: "the swapchain", operation: "acquireNextBuffer") }
        let held = self.held
        let free = buffers.indices.filter { !held[$0] }
        guard let i = free.min(by: { (lastDrawn[$0] ?? -1) < (lastDrawn[$1] ?? -1) }) else {
            throw GPUError.unusableTarget(reason: "all \(buffers.count) buffers of the swapchain are held by its consumer: release one (releaseBuffer) before the next frame, or make the swapchain with more buffers")
        }
        acquiredIndex = i
        ownedFramebuffer = framebuffers[i]
        framebufferName = framebuffers[i].name
        bufferAge = age(ofBuffer: i)
        return i
    }

    /// Presents the acquired buffer: it is held for the consumer, `onPresent` is called.
    @discardableResult
    public func present(damage: Rect? = nil, repainted: Rect? = nil) throws -> Frame {
        guard let i = acquiredIndex else {
            throw GPUError.invalidArgument(operation: "GBMSwapchain.present", reason: "no buffer acquired: call acquireNextBuffer() and draw first")
        }
        let fence: SyncFence?
        if device.capabilities.fenceSync {
            fence = try SyncFence.afterWork(on: device)
        } else {
            try device.finishWork()
            fence = nil
        }
        let whole = Rect(origin: .zero, size: size)
        let frame = Frame(buffer: buffers[i], index: i, serial: frameCount, fence: fence,
                          damage: damage ?? whole, repainted: repainted ?? whole)
        lastDrawn[i] = frameCount
        frameCount += 1
        heldLock.withLock { $0[i] = true }
        acquiredIndex = nil
        presented = frame
        onPresent?(frame)
        return frame
    }

    /// Hands a presented buffer back: frames may draw into it again.
    public func releaseBuffer(_ buffer: GBMBuffer) {
        if let i = buffers.firstIndex(where: { $0 === buffer }) { heldLock.withLock { $0[i] = false } }
    }

    /// Hands every presented buffer back.
    public func releaseAllBuffers() { heldLock.withLock { $0 = $0.map { _ in false } } }

    /// The compositor drew nothing (no change): the buffer stays free, nothing is presented.
    func abandonAcquired(pixelsChanged: Bool) {
        guard let i = acquiredIndex else { return }
        if pixelsChanged { lastDrawn[i] = nil }
        acquiredIndex = nil
        if let p = presented { ownedFramebuffer = framebuffers[p.index]; framebufferName = framebuffers[p.index].name }
    }

    override package func frameWillBegin() throws { try acquireNextBuffer() }

    override package func frameDidEnd(drawn: Bool, damage: Rect?, repainted: Rect?) throws {
        if drawn { try present(damage: damage, repainted: repainted) } else { abandonAcquired(pixelsChanged: false) }
    }

    override package func frameFailed() { abandonAcquired(pixelsChanged: true) }

    override package var presentsChangesOnly: Bool { true }

    /// After a context loss every buffer is imported again (the buffers, and their pixels,
    /// are the kernel's); they are redrawn whole.
    override func remakeFramebuffer() throws -> Framebuffer? {
        var remade: [Framebuffer] = []
        do {
            for b in buffers { remade.append(try RenderTarget.framebuffer(on: b, device)) }
        } catch {
            for fb in remade { fb.release(); fb.colorTexture.release() }
            throw error
        }
        framebuffers = remade
        lastDrawn = lastDrawn.map { _ in nil }
        let current = presented?.index ?? acquiredIndex ?? 0
        return remade[current]
    }

    public override func release() {
        releasedByUser = true
        for fb in framebuffers { fb.release(); fb.colorTexture.release() }
        for b in buffers { b.release() }
        acquiredIndex = nil
    }
}

/// A target over a `gbm_surface` (GBM backend, Lamina's own context): the way most KMS
/// programs (kmscube, Weston's DRM backend) render. Lamina draws into the surface's back
/// buffer through an EGL window surface; each frame that changes something is swapped
/// (`eglSwapBuffers`) and its buffer locked (`gbm_surface_lock_front_buffer`) and handed to
/// `onPresent` — the `struct gbm_bo *` to make a KMS framebuffer of and flip to. Give each
/// back with `releaseBuffer(_:)` once the display no longer shows it. Buffer age comes from
/// `EGL_EXT_buffer_age`. One such target per device at a time.
public final class GBMSurfaceTarget: RenderTarget {
    /// The `struct gbm_surface *`.
    public let gbmSurface: OpaquePointer
    let eglSurface: EGLSurface
    public let format: DRMFormat
    /// Called with each presented frame's locked buffer object. The target keeps the
    /// closure: capture the target `unowned` (or weak) in it.
    public var onPresent: ((OpaquePointer) -> Void)?
    /// The buffer of the last presented frame.
    public private(set) var frontBuffer: OpaquePointer?
    private var destroyed = false

    public init(device: GPUDevice, pixelSize: PixelSize, scale: Double = 1, format: DRMFormat = .xrgb8888,
                usage: GBMUsage = [.scanout]) throws {
        guard !device.isClosed else { throw GPUError.deviceClosed(operation: "GBMSurfaceTarget") }
        try GPUDevice.validate(scale: scale, what: "GBMSurfaceTarget")
        guard device.backend == .gbm, let gbm = device.gbm else {
            throw GPUError.wrongBackend(operation: "a gbm_surface target", required: .gbm, actual: device.backend)
        }
        guard device.gl.ownSurface == nil else {
            throw GPUError.unusableTarget(reason: "the device already draws to a gbm_surface target: release it first (one per device)")
        }
        try device.validate(pixelSize, what: "gbm_surface target", maximum: device.capabilities.maxRenderTargetSize)
        guard device.capabilities.eglExtensions.contains("EGL_KHR_no_config_context") else {
            throw GPUError.unusableTarget(reason: "the driver lacks EGL_KHR_no_config_context: Lamina's context cannot draw to a window surface; use a GBMSwapchain")
        }
        // An EGL config whose native visual is the format, with 8 stencil bits (clipping).
        var configs = [EGLConfig?](repeating: nil, count: 64)
        var n: EGLint = 0
        let want: [EGLint] = [EGL_SURFACE_TYPE, EGL_WINDOW_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT,
                              EGL_RED_SIZE, 1, EGL_GREEN_SIZE, 1, EGL_BLUE_SIZE, 1, EGL_STENCIL_SIZE, 8, EGL_NONE]
        eglChooseConfig(device.display, want, &configs, 64, &n)
        let config = configs.prefix(Int(n)).first { c in
            var visual: EGLint = 0
            eglGetConfigAttrib(device.display, c, EGL_NATIVE_VISUAL_ID, &visual)
            return UInt32(bitPattern: visual) == format.rawValue
        }
        guard let config else {
            throw GPUError.unusableTarget(reason: "no EGL window configuration of format \(format) with 8 stencil bits on this device (\(n) window configurations): use XRGB8888 or ARGB8888, or a GBMSwapchain")
        }
        guard let surface = gbm_surface_create(gbm.device, UInt32(pixelSize.width), UInt32(pixelSize.height), format.rawValue,
                                               usage.union(.rendering).rawValue) else {
            throw GPUError.gbmFailure(call: "gbm_surface_create(\(pixelSize), \(format), \(usage.union(.rendering)))", reason: String(cString: strerror(errno)))
        }
        guard let window = eglCreateWindowSurface(device.display, config, EGLNativeWindowType(UInt(bitPattern: surface)), nil) else {
            gbm_surface_destroy(surface)
            throw GPUError.loggedEGLFailure(call: "eglCreateWindowSurface(gbm_surface)", error: lastEGLError(), hint: "the driver cannot draw to this gbm_surface")
        }
        gbmSurface = surface; eglSurface = window; self.format = format
        device.gl.ownSurface = window
        super.init(device: device, framebufferSize: pixelSize, region: PixelRect(size: pixelSize), scale: scale,
                   externalFramebuffer: 0, bottomRowFirst: true)
    }

    override package var presentsChangesOnly: Bool { true }

    override package func frameWillBegin() throws {
        guard !destroyed else { throw GPUError.released(what: "the gbm_surface target", operation: "render") }
        guard gbm_surface_has_free_buffers(gbmSurface) != 0 else {
            throw GPUError.unusableTarget(reason: "the gbm_surface has no free buffer: release the buffers the display is done with (releaseBuffer) before the next frame")
        }
        var age: EGLint = 0
        try device.gl.withCurrentThrowing {
            if device.capabilities.eglExtensions.contains("EGL_EXT_buffer_age") {
                eglQuerySurface(device.display, eglSurface, EGL_BUFFER_AGE_EXT, &age)
            }
        }
        bufferAge = Int(age)
    }

    override package func frameDidEnd(drawn: Bool, damage: Rect?, repainted: Rect?) throws {
        guard drawn else { return }
        try device.gl.withCurrentThrowing {
            device.gl.pendingPass?.flush()
            guard eglSwapBuffers(device.display, eglSurface) == EGL_TRUE else {
                throw GPUError.loggedEGLFailure(call: "eglSwapBuffers(gbm_surface)", error: lastEGLError(),
                                                hint: "the surface could not present: release the buffers the display is done with (releaseBuffer), or make the target again")
            }
        }
        guard let bo = gbm_surface_lock_front_buffer(gbmSurface) else {
            throw GPUError.gbmFailure(call: "gbm_surface_lock_front_buffer", reason: "\(String(cString: strerror(errno))) — release the buffers the display is done with (releaseBuffer) so the surface has one to lock")
        }
        frontBuffer = bo
        onPresent?(bo)
    }

    /// Hands a presented buffer back to the surface (`gbm_surface_release_buffer`).
    public func releaseBuffer(_ bo: OpaquePointer) {
        guard !destroyed else { return }
        gbm_surface_release_buffer(gbmSurface, bo)
        if frontBuffer == bo { frontBuffer = nil }
    }

    public override func release() {
        super.release()
        guard !destroyed else { return }
        destroyed = true
        // Unbound first (an open scope keeps the context, without the surface).
        device.gl.dropOwnSurface()
        eglDestroySurface(device.display, eglSurface)
        gbm_surface_destroy(gbmSurface)
    }

    deinit { release() }
}

import CEGL
import CGLES
import Foundation
import LaminaGeometry
import Synchronization

/// What the opened device can do, detected once when it opens.
public struct GPUCapabilities: Sendable {
    public var eglVendor: String
    public var eglVersion: String
    public var eglClientExtensions: Set<String>
    public var eglExtensions: Set<String>
    public var glVendor: String
    public var glRenderer: String
    public var glVersion: String
    public var glslVersion: String
    public var glExtensions: Set<String>
    /// GL_MAX_TEXTURE_SIZE.
    public var maxTextureSize: Int
    /// GL_MAX_RENDERBUFFER_SIZE.
    public var maxRenderbufferSize: Int
    /// GL_MAX_VIEWPORT_DIMS.
    public var maxViewportSize: PixelSize
    /// The largest render target side: the smallest of the limits above.
    public var maxRenderTargetSize: Int {
        min(maxTextureSize, maxRenderbufferSize, maxViewportSize.width, maxViewportSize.height)
    }
    /// EGL_EXT_image_dma_buf_import: dma-bufs can become textures.
    public var dmaBufImport: Bool { eglExtensions.contains("EGL_EXT_image_dma_buf_import") }
    /// EGL_EXT_image_dma_buf_import_modifiers: format modifiers can be passed on import.
    public var dmaBufImportModifiers: Bool { eglExtensions.contains("EGL_EXT_image_dma_buf_import_modifiers") }
    /// EGL_MESA_image_dma_buf_export: EGL images can be exported as dma-bufs
    /// (on llvmpipe only GBM buffers really export; see GBMTarget).
    public var dmaBufExport: Bool { eglExtensions.contains("EGL_MESA_image_dma_buf_export") }
    /// GL_EXT_disjoint_timer_query: GPU timings.
    public var timerQueries: Bool { glExtensions.contains("GL_EXT_disjoint_timer_query") }
    /// GL_KHR_debug: debug messages and object labels.
    public var khrDebug: Bool { glExtensions.contains("GL_KHR_debug") }
    /// GL_OES_EGL_image: EGL images can back textures and renderbuffers.
    public var eglImageTextures: Bool { glExtensions.contains("GL_OES_EGL_image") }
}

/// Kinds of GL objects Lamina creates and counts.
public enum GPUObjectKind: String, CaseIterable, Sendable {
    case texture, framebuffer, renderbuffer, program, buffer, vertexArray
}

/// Live GL objects per kind.
public struct GPUObjectCounts: Equatable, Sendable, CustomStringConvertible {
    public var counts: [GPUObjectKind: Int] = [:]
    public subscript(kind: GPUObjectKind) -> Int { counts[kind] ?? 0 }
    public var total: Int { counts.values.reduce(0, +) }
    public var description: String {
        GPUObjectKind.allCases.map { "\($0.rawValue)s: \(self[$0])" }.joined(separator: ", ")
    }
}

/// A GL error raised by one of Lamina's own GL calls (a programmer error: reported in debug builds).
public struct GLErrorReport: Sendable, CustomStringConvertible {
    public var call: String
    public var code: UInt32
    public var name: String
    public var description: String { "\(name) (0x\(String(code, radix: 16))) after \(call)" }
}

/// Counts of live GL objects, names waiting to be deleted, and EGL images. Shared with
/// the objects' `deinit`, which may run on any thread: it only queues, never calls GL.
final class ObjectLedger: Sendable {
    private struct State {
        var live: [GPUObjectKind: Int] = [:]
        var pending: [(GPUObjectKind, GLuint)] = []
        var images: Set<UInt> = []
        var closed = false
    }
    private let state = Mutex(State())

    func created(_ kind: GPUObjectKind) { state.withLock { $0.live[kind, default: 0] += 1 } }
    func deleted(_ kind: GPUObjectKind) { state.withLock { $0.live[kind, default: 0] -= 1 } }
    /// Queues a name for deletion; false when the context is gone (nothing to delete).
    func enqueue(_ kind: GPUObjectKind, _ name: GLuint) {
        state.withLock { s in if !s.closed { s.pending.append((kind, name)) } }
    }
    func takePending() -> [(GPUObjectKind, GLuint)] { state.withLock { s in defer { s.pending = [] }; return s.pending } }
    var pendingCount: Int { state.withLock { $0.pending.count } }
    var isClosed: Bool { state.withLock { $0.closed } }
    func counts() -> GPUObjectCounts { state.withLock { GPUObjectCounts(counts: $0.live.filter { $0.value != 0 }) } }

    func imageCreated(_ image: EGLImage) { state.withLock { _ = $0.images.insert(UInt(bitPattern: image)) } }
    /// True (once) when the image is still registered: the caller destroys it.
    func takeImage(_ image: EGLImage) -> Bool { state.withLock { $0.images.remove(UInt(bitPattern: image)) != nil } }

    /// Marks the context closed; returns the EGL images still alive, to destroy.
    func close() -> [EGLImage] {
        state.withLock { s in
            let images = s.images.compactMap { EGLImage(bitPattern: $0) }
            s = State()
            s.closed = true
            return images
        }
    }
}

/// The EGL display and context that GL objects belong to. Objects hold this (not the
/// `GPUDevice`), so the device's own caches never keep the device alive.
final class GLContext {
    let display: EGLDisplay
    let context: EGLContext
    let ledger = ObjectLedger()
    var glErrorHandler: (GLErrorReport) -> Void = { report in
        assertionFailure("Lamina GL error: \(report)")
    }
    var uploadedBytes = 0
    var drawCalls = 0

    init(display: EGLDisplay, context: EGLContext) { self.display = display; self.context = context }

    var isClosed: Bool { ledger.isClosed }

    /// Makes the context current on this thread. Using one device from two threads at
    /// once is a programmer error and stops here.
    func makeCurrent() {
        precondition(!isClosed, "Lamina: GPUDevice used after close()")
        if eglGetCurrentContext() != context {
            guard eglMakeCurrent(display, nil, nil, context) == EGL_TRUE else {
                preconditionFailure("Lamina: eglMakeCurrent failed with \(lastEGLError()): is this GPUDevice in use on another thread?")
            }
        }
    }

    func deleteName(_ kind: GPUObjectKind, _ name: GLuint) {
        var n = name
        switch kind {
        case .texture: glDeleteTextures(1, &n)
        case .framebuffer: glDeleteFramebuffers(1, &n)
        case .renderbuffer: glDeleteRenderbuffers(1, &n)
        case .program: glDeleteProgram(n)
        case .buffer: glDeleteBuffers(1, &n)
        case .vertexArray: glDeleteVertexArrays(1, &n)
        }
        ledger.deleted(kind)
    }

    func collectGarbage() {
        guard !isClosed else { return }
        let pending = ledger.takePending()
        guard !pending.isEmpty else { return }
        makeCurrent()
        for (kind, name) in pending { deleteName(kind, name) }
    }

    /// Destroys an EGL image unless `close()` already did.
    func destroyImage(_ image: EGLImage) {
        if ledger.takeImage(image) { eglDestroyImage(display, image) }
    }

    /// Destroys the context (which frees all its GL names) and every EGL image left.
    func close() {
        guard !isClosed else { return }
        if eglGetCurrentContext() == context { eglMakeCurrent(display, nil, nil, nil) }
        for image in ledger.close() { eglDestroyImage(display, image) }
        eglDestroyContext(display, context)
        DisplayRegistry.release(display)
    }

    /// In debug builds: reports any GL error raised by the call just made, by name.
    @inline(__always)
    func checkGLError(_ call: @autoclosure () -> String) {
        #if DEBUG
        reportGLErrors(call())
        #endif
    }

    @discardableResult
    func reportGLErrors(_ call: String) -> Int {
        var count = 0
        while true {
            let e = glGetError()
            if e == GLenum(GL_NO_ERROR) || count > 16 { break }
            count += 1
            glErrorHandler(GLErrorReport(call: call, code: e, name: glErrorName(e)))
        }
        return count
    }

    /// Environmental GL failure check (any build): out-of-memory becomes a thrown error.
    func throwIfOutOfMemory(_ what: String) throws {
        let e = glGetError()
        if e == GLenum(GL_OUT_OF_MEMORY) { throw GPUError.outOfMemory(what: what) }
        if e != GLenum(GL_NO_ERROR) {
            glErrorHandler(GLErrorReport(call: what, code: e, name: glErrorName(e)))
        }
    }
}

/// An EGL display plus an OpenGL ES 3 context on one backend, and everything created
/// with it. Use a device from one thread at a time: each call makes its context
/// current on the calling thread. GL objects are freed by `release()` (or, when a
/// wrapper is dropped unreleased, queued and freed by `collectGarbage()` on the
/// device's thread); `close()` frees the whole context.
public final class GPUDevice {
    public let backend: GPUBackend
    /// What the backend opened: a DRM node, an EGL device, or the surfaceless platform.
    public let backendDetail: String
    public let capabilities: GPUCapabilities

    let gl: GLContext
    let gbm: GBMDevice?
    var display: EGLDisplay { gl.display }

    lazy var shaders = ShaderLibrary(gl: gl)
    var quadGeometry: QuadGeometry?
    /// The pass whose GL state is current, and the program in use.
    weak var activePass: RenderPass?
    var currentProgram: GLuint = 0

    /// Opens a device. `backend` wins over `LAMINA_BACKEND`; nil means "use the
    /// environment, else auto". `drmDevice` (or `LAMINA_DRM_DEVICE`) picks the DRM node for GBM.
    public init(backend: BackendSelection? = nil, drmDevice: String? = nil) throws {
        let selection = try backend ?? BackendSelection.fromEnvironment()
        let opened = try BackendOpener.open(selection, drmDevice: drmDevice)
        self.backend = opened.backend
        self.backendDetail = opened.detail
        self.gl = GLContext(display: opened.display, context: opened.context)
        self.gbm = opened.gbm
        guard eglMakeCurrent(opened.display, nil, nil, opened.context) == EGL_TRUE else {
            let err = lastEGLError()
            gl.close()
            throw GPUError.eglFailure(call: "eglMakeCurrent (no surface)", error: err, hint: "the driver cannot make a surfaceless context current")
        }
        self.capabilities = GPUDevice.detectCapabilities(display: opened.display)
    }

    private static func detectCapabilities(display: EGLDisplay) -> GPUCapabilities {
        func glString(_ name: Int32) -> String {
            guard let s = glGetString(GLenum(name)) else { return "" }
            return s.withMemoryRebound(to: CChar.self, capacity: 1) { String(cString: $0) }
        }
        func glInt(_ name: Int32) -> Int { var v: GLint = 0; glGetIntegerv(GLenum(name), &v); return Int(v) }
        var dims: [GLint] = [0, 0]
        glGetIntegerv(GLenum(GL_MAX_VIEWPORT_DIMS), &dims)
        return GPUCapabilities(
            eglVendor: eglString(display, EGL_VENDOR), eglVersion: eglString(display, EGL_VERSION),
            eglClientExtensions: extensionSet(eglQueryString(nil, EGL_EXTENSIONS)),
            eglExtensions: extensionSet(eglQueryString(display, EGL_EXTENSIONS)),
            glVendor: glString(GL_VENDOR), glRenderer: glString(GL_RENDERER), glVersion: glString(GL_VERSION),
            glslVersion: glString(GL_SHADING_LANGUAGE_VERSION),
            glExtensions: Set(glString(GL_EXTENSIONS).split(separator: " ").map(String.init)),
            maxTextureSize: glInt(GL_MAX_TEXTURE_SIZE), maxRenderbufferSize: glInt(GL_MAX_RENDERBUFFER_SIZE),
            maxViewportSize: PixelSize(width: Int(dims[0]), height: Int(dims[1])))
    }

    deinit { close() }

    public var isClosed: Bool { gl.isClosed }

    /// Destroys the context, which frees every GL object of this device, and the EGL images
    /// of imported buffers. Objects released later are no-ops; new work throws.
    public func close() {
        guard !gl.isClosed else { return }
        gl.close()
        quadGeometry = nil
        shaders.forgetAll()
        activePass = nil
    }

    /// Called for GL errors caught after Lamina's own calls in debug builds. The default
    /// stops in the debugger (`assertionFailure`) naming the call and the error.
    public var glErrorHandler: (GLErrorReport) -> Void {
        get { gl.glErrorHandler }
        set { gl.glErrorHandler = newValue }
    }

    /// Bytes uploaded to textures since the device opened (all uploads, full or partial).
    public var uploadedBytes: Int { gl.uploadedBytes }

    /// Draw calls issued on this device since it opened (all passes).
    public var drawCalls: Int { gl.drawCalls }

    func makeCurrent() { gl.makeCurrent() }

    /// Live GL objects per kind (including those dropped but not yet collected).
    public var liveObjectCounts: GPUObjectCounts { gl.ledger.counts() }

    /// Names of dropped-but-unreleased wrappers waiting for `collectGarbage()`.
    public var pendingDeletions: Int { gl.ledger.pendingCount }

    /// Deletes GL names queued by wrappers that were dropped without `release()`.
    /// Runs at the start of every render pass too.
    public func collectGarbage() { gl.collectGarbage() }

    /// Frees objects the device caches for itself (compiled programs, the unit quad),
    /// so that live counts reflect only what callers hold.
    public func purgeCaches() {
        guard !isClosed else { return }
        shaders.releaseAll()
        currentProgram = 0
        activePass = nil
        quadGeometry?.release()
        quadGeometry = nil
        collectGarbage()
    }

    /// In debug builds: reports any GL error raised by the call just made, by name.
    @inline(__always)
    func checkGLError(_ call: @autoclosure () -> String) {
        #if DEBUG
        gl.reportGLErrors(call())
        #endif
    }

    /// Reports every pending GL error to `glErrorHandler`; returns how many there were.
    @discardableResult
    public func reportGLErrors(_ call: String) -> Int { gl.reportGLErrors(call) }
}

func glErrorName(_ e: GLenum) -> String {
    switch Int32(e) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM"
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE"
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION"
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION"
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY"
    default: return "GL error 0x\(String(e, radix: 16))"
    }
}

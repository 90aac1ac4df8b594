import CEGL
import CGLES
import Synchronization

/// Who owns the EGL context Lamina issues its GL on (docs/embedding.md).
public enum ContextOwnership: String, Sendable, CustomStringConvertible {
    /// Lamina created the display and the context (tools, tests, headless rendering).
    case own
    /// Lamina created its own context in the host's share group, on the host's display:
    /// textures and renderbuffers are shared, framebuffers and vertex arrays are not.
    case share
    /// Lamina issues its GL on the host's own context, on the host's thread; it owns
    /// nothing of EGL and restores the host's GL state after each pass.
    case adopt

    public var description: String { rawValue }
}

/// Counts of live GL objects, names waiting to be deleted, and EGL images. Shared with
/// the objects' `deinit`, which may run on any thread: it only queues, never calls GL.
final class ObjectLedger: Sendable {
    private struct State {
        var live: [GPUObjectKind: Int] = [:]
        /// Every live name (kind << 32 | name): what `close()` deletes on a context that
        /// outlives the device (shared or adopted).
        var names: Set<UInt64> = []
        var pending: [(GPUObjectKind, GLuint)] = []
        var images: Set<UInt> = []
        var closed = false
    }
    private let state = Mutex(State())

    private static func key(_ kind: GPUObjectKind, _ name: GLuint) -> UInt64 {
        UInt64(GPUObjectKind.allCases.firstIndex(of: kind)!) << 32 | UInt64(name)
    }

    func created(_ kind: GPUObjectKind, _ name: GLuint) {
        state.withLock { s in
            s.live[kind, default: 0] += 1
            s.names.insert(ObjectLedger.key(kind, name))
        }
    }
    func deleted(_ kind: GPUObjectKind, _ name: GLuint) {
        state.withLock { s in
            if s.names.remove(ObjectLedger.key(kind, name)) != nil { s.live[kind, default: 0] -= 1 }
        }
    }
    /// Queues a name for deletion (nothing when the context is gone).
    func enqueue(_ kind: GPUObjectKind, _ name: GLuint) {
        state.withLock { s in if !s.closed { s.pending.append((kind, name)) } }
    }
    func takePending() -> [(GPUObjectKind, GLuint)] { state.withLock { s in defer { s.pending = [] }; return s.pending } }
    var pendingCount: Int { state.withLock { $0.pending.count } }
    var isClosed: Bool { state.withLock { $0.closed } }
    func counts() -> GPUObjectCounts { state.withLock { GPUObjectCounts(counts: $0.live.filter { $0.value != 0 }) } }

    /// Every live name, to delete before the context goes (or is handed back to its owner).
    func liveNames() -> [(GPUObjectKind, GLuint)] {
        state.withLock { s in
            s.names.map { (GPUObjectKind.allCases[Int($0 >> 32)], GLuint(truncatingIfNeeded: $0)) }
        }
    }

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

/// What was current on the calling thread when Lamina was entered (wlroots'
/// `wlr_egl_save_context`): the client API, and the OpenGL ES context with its display
/// and surfaces.
struct EGLCurrentBinding {
    var api: EGLenum
    var display: EGLDisplay?
    var context: EGLContext?
    var draw: EGLSurface?
    var read: EGLSurface?

    /// Reads the current OpenGL ES binding; leaves the ES API bound.
    static func read() -> EGLCurrentBinding {
        let api = eglQueryAPI()
        if api != EGLenum(EGL_OPENGL_ES_API) { eglBindAPI(EGLenum(EGL_OPENGL_ES_API)) }
        return EGLCurrentBinding(api: api, display: eglGetCurrentDisplay(), context: eglGetCurrentContext(),
                                 draw: eglGetCurrentSurface(EGL_DRAW), read: eglGetCurrentSurface(EGL_READ))
    }
}

/// The EGL display and context that GL objects belong to. Objects hold this (not the
/// `GPUDevice`), so the device's own caches never keep the device alive.
///
/// Every public entry point that touches GL runs inside a *scope* (`enter()`/`exit()`,
/// nested by a counter): the outermost one makes the context current (remembering what
/// the caller had current, and putting it back on exit) and, on an adopted context,
/// captures the host's GL state and pending error, and restores both on exit.
final class GLContext {
    let display: EGLDisplay
    let context: EGLContext
    let ownership: ContextOwnership
    /// Surfaces to make an adopted context current with when the host has not (those
    /// current when it was adopted; nil: none).
    let hostSurfaces: (draw: EGLSurface?, read: EGLSurface?)
    let ledger = ObjectLedger()
    var glErrorHandler: (GLErrorReport) -> Void = { report in
        assertionFailure("Lamina GL error: \(report)")
    }
    var uploadedBytes = 0
    var drawCalls = 0

    /// The pass whose GL state is set, and the program in use (valid inside a scope).
    weak var activePass: AnyObject?
    var currentProgram: GLuint = 0

    /// The open scopes, innermost last: what each puts back when it closes (nil: nothing,
    /// it found this context current inside an outer scope).
    private var scopes: [Scope?] = []
    private struct Scope { var before: EGLCurrentBinding; var switched: Bool }
    private var hostState: GLStateSnapshot?
    private var hostError: GLenum = GLenum(GL_NO_ERROR)
    /// GL errors the host had left pending that could not be raised again on exit.
    private(set) var unreturnedHostErrors: [GLenum] = []
    /// Host-state captures and restores so far (adopted contexts), for measurements.
    private(set) var stateSaves = 0

    init(display: EGLDisplay, context: EGLContext, ownership: ContextOwnership,
         hostSurfaces: (draw: EGLSurface?, read: EGLSurface?) = (nil, nil)) {
        self.display = display; self.context = context; self.ownership = ownership; self.hostSurfaces = hostSurfaces
    }

    var isClosed: Bool { ledger.isClosed }
    /// Whether a scope is open (GL calls are allowed).
    var isEntered: Bool { !scopes.isEmpty }

    // MARK: Scopes

    /// Opens a scope: the context is current on this thread until the matching `exit()`.
    /// Inside an open scope this is nearly free — unless another context was made current
    /// meanwhile (a second device's call nested in this one's), which is switched back.
    func enter() throws(GPUError) {
        guard !isClosed else { throw GPUError.deviceClosed(operation: "a GL call") }
        if !scopes.isEmpty && eglGetCurrentContext() == context {
            scopes.append(nil)
            return
        }
        let before = EGLCurrentBinding.read()
        var switched = false
        if before.context != context {
            let surfaces: (draw: EGLSurface?, read: EGLSurface?) = ownership == .adopt ? hostSurfaces : (nil, nil)
            guard eglMakeCurrent(display, surfaces.draw, surfaces.read, context) == EGL_TRUE else {
                let error = lastEGLError()
                if before.api != EGLenum(EGL_OPENGL_ES_API) { eglBindAPI(before.api) }
                throw GPUError.eglFailure(
                    call: "eglMakeCurrent (Lamina's \(ownership) context)", error: error,
                    hint: ownership == .adopt
                        ? "the adopted context could not be made current on this thread: call Lamina on the host's thread, with its context current"
                        : "is this GPUDevice in use on another thread? Use a device from one thread at a time")
            }
            switched = true
        }
        scopes.append(Scope(before: before, switched: switched))
        guard scopes.count == 1 else { return }
        activePass = nil
        currentProgram = 0
        if ownership == .adopt {
            // The host's error is not Lamina's: take it now, raise it again on exit.
            hostError = glGetError()
            while glGetError() != GLenum(GL_NO_ERROR) {}
            let state = GLStateSnapshot.capture()
            if state.transformFeedbackRunning { glPauseTransformFeedback() }
            hostState = state
            stateSaves += 1
        }
    }

    /// Closes a scope; the outermost puts back the host's state (adopted context), and any
    /// scope that made the context current puts back what was current before it.
    func exit() {
        precondition(!scopes.isEmpty, "Lamina: GL scope closed more often than opened")
        let scope = scopes.removeLast()
        if scopes.isEmpty {
            activePass = nil
            if let state = hostState {
                #if DEBUG
                reportGLErrors("Lamina's GL work on the host's context")
                #else
                while glGetError() != GLenum(GL_NO_ERROR) {}
                #endif
                state.restore()
                hostState = nil
                if hostError != GLenum(GL_NO_ERROR) {
                    if !GLContext.raise(hostError) { unreturnedHostErrors.append(hostError) }
                    hostError = GLenum(GL_NO_ERROR)
                }
            }
        }
        guard let scope else { return }
        if scope.switched {
            let before = scope.before
            if let c = before.context, let d = before.display {
                eglMakeCurrent(d, before.draw, before.read, c)
            } else {
                eglMakeCurrent(display, nil, nil, nil)
            }
        }
        if scope.before.api != EGLenum(EGL_OPENGL_ES_API) { eglBindAPI(scope.before.api) }
    }

    /// Runs `body` inside a scope; a failure to make the context current ends the process
    /// with its message (entry points that can throw use `enter()` themselves).
    func withCurrent<T>(_ body: () throws -> T) rethrows -> T {
        do { try enter() } catch { preconditionFailure("Lamina: \(error)") }
        defer { exit() }
        return try body()
    }

    /// Runs `body` inside a scope, throwing when the context cannot be made current.
    func withCurrentThrowing<T>(_ body: () throws -> T) throws -> T {
        try enter()
        defer { exit() }
        return try body()
    }

    /// Raises `error` again with a GL call that changes nothing but sets exactly that
    /// error; false for errors no call can raise harmlessly (out of memory, incomplete
    /// framebuffer operations).
    private static func raise(_ error: GLenum) -> Bool {
        switch Int32(error) {
        case GL_INVALID_ENUM: glEnable(0)
        case GL_INVALID_VALUE: glLineWidth(-1)
        case GL_INVALID_OPERATION: glEndQuery(GLenum(GL_ANY_SAMPLES_PASSED))
        default: return false
        }
        return true
    }

    /// Errors the host left pending when Lamina was entered that could not be raised again
    /// when it returned (GL_OUT_OF_MEMORY, GL_INVALID_FRAMEBUFFER_OPERATION); taken once.
    func takeUnreturnedHostErrors() -> [GLenum] {
        defer { unreturnedHostErrors = [] }
        return unreturnedHostErrors
    }

    // MARK: Objects

    func deleteName(_ kind: GPUObjectKind, _ name: GLuint) {
        var n = name
        switch kind {
        case .texture: glDeleteTextures(1, &n)
        case .framebuffer: glDeleteFramebuffers(1, &n)
        case .renderbuffer: glDeleteRenderbuffers(1, &n)
        case .program: glDeleteProgram(n)
        case .buffer: glDeleteBuffers(1, &n)
        case .vertexArray: glDeleteVertexArrays(1, &n)
        case .sampler: glDeleteSamplers(1, &n)
        }
        ledger.deleted(kind, name)
    }

    /// Deletes the names queued by dropped wrappers (inside a scope).
    func collectGarbage() {
        guard !isClosed else { return }
        for (kind, name) in ledger.takePending() { deleteName(kind, name) }
    }

    /// Destroys an EGL image unless `close()` already did.
    func destroyImage(_ image: EGLImage) {
        if ledger.takeImage(image) { eglDestroyImage(display, image) }
    }

    /// Frees everything Lamina made on this context: every GL name still alive (a shared
    /// or adopted context lives on, and would keep them), the EGL images, and, when Lamina
    /// created it, the context and its reference to the display. A display or context
    /// Lamina did not create is never terminated or destroyed.
    func close() {
        guard !isClosed else { return }
        do {
            try enter()
            for (kind, name) in ledger.liveNames() { deleteName(kind, name) }
            glFlush()
            exit()
        } catch {
            // Not current here (an adopted context current on another thread, say): the
            // names cannot be deleted from this thread. Owned contexts free them below.
        }
        for image in ledger.close() { eglDestroyImage(display, image) }
        switch ownership {
        case .own:
            eglDestroyContext(display, context)
            DisplayRegistry.release(display)
        case .share:
            eglDestroyContext(display, context)
        case .adopt:
            break
        }
    }

    // MARK: Errors

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

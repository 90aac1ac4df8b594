import LaminaValues
import CEGL
import CGLES
import Glibc
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

/// What was current on the calling thread when Lamina was entered (wlroots'
/// `wlr_egl_save_context`): the client API, and the OpenGL ES context with its display
/// and surfaces.
struct EGLCurrentBinding {
    var api: EGLenum
    var display: EGLDisplay?
    var context: EGLContext?
    var draw: EGLSurface?
    var read: EGLSurface?
    /// The GLX context current instead of an EGL one (found when GLX is known to be
    /// loaded; otherwise when `eglMakeCurrent` reports it with `EGL_BAD_ACCESS`).
    var glx: GLXBinding?

    /// Reads the current OpenGL ES binding; leaves the ES API bound.
    static func read() -> EGLCurrentBinding {
        let api = eglQueryAPI()
        if api != EGLenum(EGL_OPENGL_ES_API) { eglBindAPI(EGLenum(EGL_OPENGL_ES_API)) }
        let context = eglGetCurrentContext()
        return EGLCurrentBinding(api: api, display: eglGetCurrentDisplay(), context: context,
                                 draw: eglGetCurrentSurface(EGL_DRAW), read: eglGetCurrentSurface(EGL_READ),
                                 glx: context == nil ? GLXBinding.current() : nil)
    }
}

/// The Lamina scopes open on one thread, innermost last — of every device, so scopes of
/// different devices may nest or interleave and end in any order — with what the thread's
/// caller had current before the first, and which Lamina context is current now.
final class ScopeStack {
    /// Each open scope's context, and the Lamina context current when it opened (nil: the
    /// caller's binding), to make current again when it closes.
    var scopes: [(context: GLContext, previous: GLContext?)] = []
    var caller: EGLCurrentBinding?
    /// The Lamina context made current last (nil: the caller's binding is current).
    weak var current: GLContext?

    /// This thread's stack.
    static var forThisThread: ScopeStack {
        if let p = pthread_getspecific(scopeStackKey) { return Unmanaged<ScopeStack>.fromOpaque(p).takeUnretainedValue() }
        let stack = ScopeStack()
        pthread_setspecific(scopeStackKey, Unmanaged.passRetained(stack).toOpaque())
        return stack
    }
}

private let scopeStackKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { p in if let p { Unmanaged<ScopeStack>.fromOpaque(p).release() } }
    return key
}()

/// The EGL display and context that GL objects belong to. Objects hold this (not the
/// `GPUDevice`), so the device's own caches never keep the device alive.
///
/// Every public entry point that touches GL runs inside a *scope* (`enter()`/`exit()`):
/// the thread's first scope remembers what the caller had current and its last puts it
/// back; a scope makes its context current when another is (`ensureCurrent()` does the
/// same for calls inside a long scope, a render pass); the outermost scope of an adopted
/// context captures the host's GL state and pending error, and restores both.
final class GLContext {
    let display: EGLDisplay
    /// The EGL context; replaced (own contexts only) when one lost to a GPU reset is
    /// re-created (`recreate()`).
    private(set) var context: EGLContext
    let ownership: ContextOwnership
    /// Counts re-creations after a context loss: objects of an older generation are gone
    /// (they read as released, and releasing them calls no GL).
    @exclusivity(unchecked) private(set) var generation = 0
    /// Set when the context is known to be lost (a reset reported by the driver, or
    /// `simulateLoss()`); cleared by `recreate()`.
    private(set) var lostStatus: (status: String, guilty: Bool)?
    /// `glGetGraphicsResetStatus` (KHR or EXT robustness), when the context offers it.
    var resetStatusFunction: PFNGLGETGRAPHICSRESETSTATUSKHRPROC?
    /// Whether the context was created with reset notification (`EGL_LOSE_CONTEXT_ON_RESET`).
    var notifiesResets = false
    /// Surfaces to make an adopted context current with when the host has not (those
    /// current when it was adopted; nil: none).
    let hostSurfaces: (draw: EGLSurface?, read: EGLSurface?)
    /// An adopted GLX context (then `display` and `context` are its X display and GLX
    /// context), with the drawables current when it was adopted.
    let hostGLX: GLXBinding?
    let ledger = ObjectLedger()
    var glErrorHandler: (GLErrorReport) -> Void = { report in
        LaminaLog.logger.error("GL error: \(report)")
        assertionFailure("Lamina GL error: \(report)")
    }
    var uploadedBytes = 0
    var drawCalls = 0
    /// Set by the device once its capabilities are known.
    var indexedDrawBuffers: IndexedDrawBufferFunctions?
    /// Whether outermost scopes capture and restore the host's GL state (adopted contexts,
    /// once the device knows its capabilities).
    var capturesHostState = false

    /// The pass whose GL state is set, and the program in use (valid inside a scope).
    /// (This and `pendingPass` are not weak: a pass clears them in its deinit. A weak
    /// reference gave every pass a side table, and each retain of a pass — one a draw in
    /// frame encoding — took the runtime's slow path.)
    unowned(unsafe) var activePass: RenderPass?
    var currentProgram: GLuint = 0
    /// The pass with quads added but not drawn yet. Any other GL work on this context —
    /// an upload, a release, a readback, another pass — draws them first (`enter()` and
    /// the passes see to it), so GL sees everything in the order of Lamina's calls.
    unowned(unsafe) var pendingPass: RenderPass?

    /// This context's scopes open on the thread using it.
    private var openScopes = 0
    /// The surfaces this context is made current with while its scopes are open.
    private var scopeSurfaces: (draw: EGLSurface?, read: EGLSurface?) = (nil, nil)
    /// A window surface Lamina's own context draws to when framebuffer 0 is the target
    /// (`GBMSurfaceTarget`): bound by every outermost scope from the next one on.
    var ownSurface: EGLSurface?
    /// GL_OES_EGL_image_external: a host's external texture binding is saved and restored too.
    var hasExternalTextures = false
    /// Set when the context is desktop OpenGL: its own state is saved, set and restored too.
    var desktopGL: DesktopGL?
    /// The dialect Lamina's GLSL ES 3.00 shaders are compiled in on this context.
    var shaderDialect = GLSLDialect.es300

    /// Stops drawing to `ownSurface` (its target is being destroyed): scopes bind no
    /// surface from now on, and an open one switches to none at once.
    func dropOwnSurface() {
        guard let surface = ownSurface else { return }
        ownSurface = nil
        if scopeSurfaces.draw == surface || scopeSurfaces.read == surface {
            scopeSurfaces = (nil, nil)
            if eglGetCurrentContext() == context { eglMakeCurrent(display, nil, nil, context) }
        }
    }
    private var hostState: GLStateSnapshot?
    private var hostError: GLenum = GLenum(GL_NO_ERROR)
    /// GL errors the host had left pending that could not be raised again on exit.
    private(set) var unreturnedHostErrors: [GLenum] = []
    /// Host-state captures and restores so far (adopted contexts), for measurements.
    private(set) var stateSaves = 0

    init(display: EGLDisplay, context: EGLContext, ownership: ContextOwnership,
         hostSurfaces: (draw: EGLSurface?, read: EGLSurface?) = (nil, nil)) {
        self.display = display; self.context = context; self.ownership = ownership; self.hostSurfaces = hostSurfaces
        self.hostGLX = nil
    }

    /// Adopts a host's GLX context.
    init(adoptingGLX host: GLXBinding) {
        self.display = host.display; self.context = host.context; self.ownership = .adopt; self.hostSurfaces = (nil, nil)
        self.hostGLX = host
    }

    /// Whether the caller's own binding is this context (nothing to switch).
    private func isCallersOwn(_ stack: ScopeStack) -> Bool {
        guard stack.current == nil, let caller = stack.caller else { return false }
        return hostGLX != nil ? caller.glx?.context == context : caller.context == context
    }

    /// Whether this context is current on the calling thread (through EGL or GLX).
    private var isCurrentHere: Bool {
        hostGLX != nil ? GLXBinding.current()?.context == context : eglGetCurrentContext() == context
    }

    var isClosed: Bool { ledger.isClosed }
    /// Whether a scope of this context is open.
    var isEntered: Bool { openScopes > 0 }

    // MARK: Context loss

    /// Asks the driver whether the context was reset (inside a scope); remembers a loss.
    /// Returns the loss, if any.
    @discardableResult
    func checkReset() -> (status: String, guilty: Bool)? {
        if lostStatus == nil, notifiesResets, let query = resetStatusFunction {
            switch Int32(query()) {
            case GL_GUILTY_CONTEXT_RESET_KHR: lostStatus = ("GL_GUILTY_CONTEXT_RESET", true)
            case GL_INNOCENT_CONTEXT_RESET_KHR: lostStatus = ("GL_INNOCENT_CONTEXT_RESET", false)
            case GL_UNKNOWN_CONTEXT_RESET_KHR: lostStatus = ("GL_UNKNOWN_CONTEXT_RESET", false)
            default: break
            }
        }
        return lostStatus
    }

    /// Makes the context behave as lost (a test hook: llvmpipe never resets).
    func simulateLoss() { lostStatus = ("simulated loss", false) }

    /// A GL call reported `GL_CONTEXT_LOST`: remembers the loss (the driver's status if it
    /// tells one), for the next frame boundary to recover from.
    func noteLost() {
        if checkReset() == nil { lostStatus = ("GL_CONTEXT_LOST", false) }
    }

    /// Replaces a lost own context by a new one on the same display: every GL object of
    /// the old one is forgotten (no GL call: the names died with it). Outside any scope.
    func recreate(_ make: () throws -> EGLContext) throws {
        guard openScopes == 0 else {
            throw GPUError.invalidArgument(operation: "GPUDevice.recover", reason: "called inside a Lamina scope (withContext or a render pass); call it between frames")
        }
        let fresh = try make()
        let stack = ScopeStack.forThisThread
        if stack.current === self { stack.current = nil }
        if eglGetCurrentContext() == context { eglMakeCurrent(display, nil, nil, nil) }
        eglDestroyContext(display, context)
        context = fresh
        generation += 1
        for image in ledger.reset(generation: generation) { eglDestroyImage(display, image) }
        lostStatus = nil
        activePass = nil
        pendingPass = nil
        currentProgram = 0
    }

    // MARK: Scopes

    /// Opens a scope: the context is current on this thread until the matching `exit()`
    /// (or, when scopes of several devices interleave, whenever it is used: `ensureCurrent`).
    func enter() throws(GPUError) {
        guard !isClosed else { throw GPUError.deviceClosed(operation: "a GL call") }
        let stack = ScopeStack.forThisThread
        if stack.current === self && stack.scopes.last?.context === self {
            stack.scopes.append((self, self))
            openScopes += 1
            pendingPass?.flush()
            return
        }
        // What is current now, when known without asking EGL again (each eglGetCurrent…
        // call takes libEGL's and libglvnd's locks: four of them a scope were 2 % of a small
        // frame's instructions).
        var known: EGLCurrentBinding?
        if stack.scopes.isEmpty {
            stack.caller = EGLCurrentBinding.read()   // binds the ES API; put back by the last exit
            stack.current = nil
            known = stack.caller
        }
        let outermost = openScopes == 0
        if outermost {
            // An adopted context found current keeps its surfaces (a window surface the host
            // draws to); otherwise it gets those it was adopted with.
            if ownership == .adopt, let caller = stack.caller {
                scopeSurfaces = caller.context == context ? (caller.draw, caller.read) : hostSurfaces
            } else {
                scopeSurfaces = (ownSurface, ownSurface)
            }
        }
        let previous = stack.current
        if stack.current !== self && !isCallersOwn(stack) {
            if let error = switchHere(stack, current: known) {
                if stack.scopes.isEmpty { putBackCaller(stack) }
                throw error
            }
        }
        stack.current = self
        stack.scopes.append((self, previous))
        openScopes += 1
        guard outermost else {
            pendingPass?.flush()
            return
        }
        activePass = nil
        currentProgram = 0
        if ownership == .adopt {
            // The host's error is not Lamina's: take it now, raise it again on exit.
            hostError = glGetError()
            while glGetError() != GLenum(GL_NO_ERROR) {}
            if capturesHostState {
                let state = GLStateSnapshot.capture(externalTextures: hasExternalTextures, indexed: indexedDrawBuffers, desktop: desktopGL)
                if state.transformFeedbackRunning { glPauseTransformFeedback() }
                hostState = state
                stateSaves += 1
            }
        }
    }

    /// Makes the context current for GL calls inside an open scope, if another device's
    /// scope made its own current meanwhile. Nearly free otherwise.
    @discardableResult
    func ensureCurrent() -> Bool {
        let stack = ScopeStack.forThisThread
        if stack.current === self || isCallersOwn(stack) { return true }
        guard switchHere(stack) == nil else { return false }
        stack.current = self
        return true
    }

    /// Closes a scope. The outermost of this context puts back the host's state (adopted
    /// context); the thread's last puts back what its caller had current; otherwise the
    /// context current when the scope opened is made current again if its scope is still
    /// open (scopes that end out of order leave it to the next call's `ensureCurrent`).
    func exit() {
        let stack = ScopeStack.forThisThread
        guard let index = stack.scopes.lastIndex(where: { $0.context === self }) else {
            // Scopes are opened and closed in pairs by Lamina's own code (withCurrent…).
            fatalError("Lamina: a GL scope closed more often than opened, or on another thread")
        }
        let previous = stack.scopes.remove(at: index).previous
        openScopes -= 1
        if openScopes == 0 {
            activePass = nil
            if ownership == .adopt, ensureCurrent() {
                #if DEBUG
                reportGLErrors("Lamina's GL work on the host's context")
                #endif
                hostState?.restore(indexed: indexedDrawBuffers, desktopGL: desktopGL)
                // Nothing of Lamina's (nor of restoring) may stay pending for the host.
                while glGetError() != GLenum(GL_NO_ERROR) {}
                if hostError != GLenum(GL_NO_ERROR) && !GLContext.raise(hostError) { unreturnedHostErrors.append(hostError) }
            }
            hostState = nil
            hostError = GLenum(GL_NO_ERROR)
        }
        if stack.scopes.isEmpty {
            putBackCaller(stack)
        } else if let previous, previous !== stack.current, previous.openScopes > 0 {
            _ = previous.ensureCurrent()
        }
    }

    /// eglMakeCurrent of this context on this thread; the error, or nil. On failure, what
    /// was current before (an EGL or a GLX binding it released) is current again.
    /// `current`: the thread's binding when the caller just read it (else it is read here).
    private func switchHere(_ stack: ScopeStack, current: EGLCurrentBinding? = nil) -> GPUError? {
        let previousEGL = current.map { (display: $0.display, context: $0.context, draw: $0.draw, read: $0.read) }
            ?? (display: eglGetCurrentDisplay(), context: eglGetCurrentContext(),
                draw: eglGetCurrentSurface(EGL_DRAW), read: eglGetCurrentSurface(EGL_READ))
        func restoreEGL() {
            if let d = previousEGL.display, let c = previousEGL.context { eglMakeCurrent(d, previousEGL.draw, previousEGL.read, c) }
        }
        if let host = hostGLX {
            // An adopted GLX context: with the drawables the host has current, or had when
            // it was adopted. A Lamina EGL context current meanwhile is released first.
            if previousEGL.context != nil, let d = previousEGL.display { eglMakeCurrent(d, nil, nil, nil) }
            let binding = stack.caller?.glx.flatMap { $0.context == context ? $0 : nil } ?? host
            guard binding.makeCurrent() else {
                restoreEGL()
                return GPUError.loggedEGLFailure(call: "glXMakeContextCurrent (Lamina's adopted GLX context)", error: "refused",
                                                 hint: "the adopted context could not be made current on this thread: call Lamina on the host's thread, with its context current (and before destroying it)")
            }
            return nil
        }
        // EGL cannot replace a GLX context current on the thread (EGL_BAD_ACCESS under
        // libglvnd): it is released, and the caller's is put back when Lamina returns (or at
        // once if EGL still refuses).
        var releasedGLX = GLXBinding.current()
        if releasedGLX != nil { GLXBinding.releaseCurrent() }
        var made = eglMakeCurrent(display, scopeSurfaces.draw, scopeSurfaces.read, context) == EGL_TRUE
        var code = made ? EGLint(EGL_SUCCESS) : eglGetError()
        if !made, code == EGL_BAD_ACCESS, let glx = GLXBinding.current(lookUp: true) {
            if let caller = stack.caller, caller.context == nil, caller.glx == nil { stack.caller?.glx = glx }
            releasedGLX = glx
            GLXBinding.releaseCurrent()
            made = eglMakeCurrent(display, scopeSurfaces.draw, scopeSurfaces.read, context) == EGL_TRUE
            code = made ? EGLint(EGL_SUCCESS) : eglGetError()
        }
        guard made else {
            // Nothing changed for the caller: what was current is current again.
            if let glx = releasedGLX { glx.makeCurrent() } else { restoreEGL() }
            var hint: String
            switch ownership {
            case .adopt: hint = "the adopted context could not be made current on this thread: call Lamina on the host's thread, with its context current (and before destroying it)"
            default: hint = "is this GPUDevice in use on another thread? Use a device from one thread at a time"
            }
            if code == EGL_BAD_ACCESS && stack.caller?.context == nil {
                hint = "another window-system API has a context current on this thread, which EGL cannot replace: release it first, or create the host's context through EGL (SDL: SDL_HINT_VIDEO_X11_FORCE_EGL)"
            }
            return GPUError.loggedEGLFailure(call: "eglMakeCurrent (Lamina's \(ownership) context)", error: eglErrorName(code), hint: hint)
        }
        return nil
    }

    /// Puts back the binding the thread's caller had before its first scope.
    private func putBackCaller(_ stack: ScopeStack) {
        guard let caller = stack.caller else { return }
        // Lamina switched away from the caller's binding (or to other surfaces): put it back.
        if let current = stack.current, current.differs(from: caller) {
            if let glx = caller.glx {
                if eglGetCurrentContext() != nil, let d = eglGetCurrentDisplay() { eglMakeCurrent(d, nil, nil, nil) }
                glx.makeCurrent()
            } else {
                if current.hostGLX != nil { GLXBinding.releaseCurrent() }
                if let c = caller.context, let d = caller.display {
                    eglMakeCurrent(d, caller.draw, caller.read, c)
                } else if let d = current.hostGLX == nil ? current.display : eglGetCurrentDisplay() {
                    // (A Lamina EGL context is current: its display, without asking EGL.)
                    eglMakeCurrent(d, nil, nil, nil)
                }
            }
        }
        if caller.api != EGLenum(EGL_OPENGL_ES_API) { eglBindAPI(caller.api) }
        stack.caller = nil
        stack.current = nil
    }

    /// Whether being current differs from the caller's binding (another context, or other
    /// surfaces or drawables).
    private func differs(from caller: EGLCurrentBinding) -> Bool {
        // An adopted GLX context is made current with the caller's drawables when the
        // caller has it current.
        if hostGLX != nil { return caller.glx?.context != context }
        return context != caller.context || scopeSurfaces.draw != caller.draw || scopeSurfaces.read != caller.read
    }

    /// Runs `body` inside a scope, throwing when the context cannot be made current.
    func withCurrentThrowing<T>(_ body: () throws -> T) throws -> T {
        try enter()
        defer { exit() }
        return try body()
    }

    /// Runs `body` inside a scope if the context can be made current here; false when it
    /// cannot (the host destroyed it, or it is current on another thread): then there is
    /// nothing left to free, or nothing this thread may free.
    @discardableResult
    func withCurrentIfPossible(_ body: () -> Void) -> Bool {
        do { try enter() } catch { return false }
        defer { exit() }
        body()
        return true
    }

    /// Raises `error` again with a GL call that changes nothing but sets exactly that
    /// error; false for errors no call can raise harmlessly (out of memory, incomplete
    /// framebuffer operations).
    private static func raise(_ error: GLenum) -> Bool {
        switch Int32(error) {
        case GL_INVALID_ENUM: glEnable(0)
        case GL_INVALID_VALUE: glLineWidth(-1)
        case GL_INVALID_OPERATION: glBeginQuery(GLenum(GL_ANY_SAMPLES_PASSED), 0)   // query name 0: refused
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
        case .query: glDeleteQueries(1, &n)
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
        // An adopted context is only used where the host has it current: from another
        // thread (a deinit, say) its names cannot be freed — they stay with the host.
        let usable = ownership != .adopt || isCurrentHere || ScopeStack.forThisThread.current === self
        if usable {
            withCurrentIfPossible {
                for (kind, name) in ledger.liveNames() { deleteName(kind, name) }
                glFlush()
            }
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
            if e == GLenum(GL_CONTEXT_LOST_KHR) { noteLost(); break }   // not a programming error
            count += 1
            glErrorHandler(GLErrorReport(call: call, code: e, name: glErrorName(e)))
        }
        return count
    }

    /// Environmental GL failure check (any build): out-of-memory becomes a thrown error.
    func throwIfOutOfMemory(_ what: String) throws {
        let e = glGetError()
        if e == GLenum(GL_OUT_OF_MEMORY) { throw GPUError.outOfMemory(what: what) }
        if e == GLenum(GL_CONTEXT_LOST_KHR) {
            noteLost()
            throw GPUError.contextLost(status: lostStatus?.status ?? "GL_CONTEXT_LOST", guilty: lostStatus?.guilty ?? false)
        }
        if e != GLenum(GL_NO_ERROR) {
            glErrorHandler(GLErrorReport(call: what, code: e, name: glErrorName(e)))
        }
    }
}

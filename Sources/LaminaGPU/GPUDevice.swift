import LaminaValues
import CEGL
import CGLES
import FoundationEssentials
import Glibc
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
    /// GL_MAX_DRAW_BUFFERS.
    public var maxDrawBuffers: Int
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
    /// The GL renderer is a software rasterizer (Mesa's llvmpipe, softpipe or swrast).
    public var isSoftwareRasterizer: Bool {
        let r = glRenderer.lowercased()
        return r.contains("llvmpipe") || r.contains("softpipe") || r.contains("swrast")
    }
    /// GL_KHR_debug: debug messages and object labels.
    public var khrDebug: Bool { glExtensions.contains("GL_KHR_debug") }
    /// Desktop OpenGL (an adopted or shared host context; Lamina's own contexts are ES).
    public var isDesktopGL: Bool { !glVersion.hasPrefix("OpenGL ES") }
    /// GL_OES_EGL_image: EGL images can back textures and renderbuffers.
    public var eglImageTextures: Bool { glExtensions.contains("GL_OES_EGL_image") }
    /// GL_EXT_texture_format_BGRA8888 on OpenGL ES: textures can be stored as BGRA8
    /// (`TextureStorage.bgra8`).
    public var bgraStorage: Bool { !isDesktopGL && glExtensions.contains("GL_EXT_texture_format_BGRA8888") }
}

/// How a texture's texels are stored. Sampling returns the same colours for both, and
/// `Texture.upload` and `RenderTarget.readPixels` take and give RGBA bytes for both.
public enum TextureStorage: String, Sendable {
    /// `GL_RGBA8`.
    case rgba8
    /// `GL_BGRA_EXT` (GL_EXT_texture_format_BGRA8888): the order of X11, GBM and Wayland
    /// buffers. llvmpipe draws into it faster (GPUDevice.targetStorage).
    case bgra8
}

/// Kinds of GL objects Lamina creates and counts.
public enum GPUObjectKind: String, CaseIterable, Sendable {
    case texture, framebuffer, renderbuffer, program, buffer, vertexArray, sampler
    /// Timer queries of timed render passes.
    case query

    var plural: String { self == .query ? "queries" : rawValue + "s" }
}

/// Live GL objects per kind.
public struct GPUObjectCounts: Equatable, Sendable, CustomStringConvertible {
    public var counts: [GPUObjectKind: Int] = [:]
    public subscript(kind: GPUObjectKind) -> Int { counts[kind] ?? 0 }
    public var total: Int { counts.values.reduce(0, +) }
    public var description: String {
        GPUObjectKind.allCases.map { "\($0.plural): \(self[$0])" }.joined(separator: ", ")
    }
}

/// A GL error raised by one of Lamina's own GL calls (a programmer error: reported in debug builds).
public struct GLErrorReport: Sendable, CustomStringConvertible {
    public var call: String
    public var code: UInt32
    public var name: String
    public var description: String { "\(name) (0x\(String(code, radix: 16))) after \(call)" }
}

/// An EGL display plus an OpenGL ES 3 context, and everything created with it.
///
/// Three ways to own the context (docs/embedding.md): `init(backend:drmDevice:)` opens
/// Lamina's own display and context on a backend; `init(sharingWith:)` creates Lamina's
/// own context in a host's share group; `init(adopting:)` issues Lamina's GL on the
/// host's context itself. Use a device from one thread at a time. Every entry point that
/// touches GL makes the device's context current and, when it returns, puts back what
/// the caller had current (context, surfaces and client API); on an adopted context it
/// also puts back the host's GL state (the state contract). A render pass holds the
/// context from `beginRenderPass` to `submit()`.
///
/// GL objects are freed by `release()` (or, when a wrapper is dropped unreleased,
/// queued and freed by `collectGarbage()` on the device's thread); `close()` frees
/// everything Lamina made.
public final class GPUDevice {
    public let backend: GPUBackend
    /// What the backend opened: a DRM node, an EGL device, the surfaceless platform, or
    /// the host's context.
    public let backendDetail: String
    public let capabilities: GPUCapabilities

    let gl: GLContext
    let gbm: GBMDevice?
    var display: EGLDisplay { gl.display }

    lazy var shaders = ShaderLibrary(gl: gl)
    /// For `RenderPass.draw(with:)` (a caller's program), made on first use.
    var quadGeometry: QuadGeometry?
    /// Quads added to a render pass and not yet drawn, and the objects they are drawn with.
    let quadBatch = QuadBatch()
    /// Timer queries of timed passes.
    let timer = GPUTimer()
    /// Sampler objects by (minification, magnification) filter: they override whatever
    /// sampling state a texture (Lamina's or a host's) carries.
    var samplers: [Int: Sampler] = [:]
    /// External buffers' imports (ExternalBuffer.swift), and how many were made.
    var externalImports: [UInt64: ExternalImport] = [:]
    var externalImportCount = 0
    var yuvConversionCount = 0
    var serverWaitCount = 0
    /// `dmaBufFormats()`, asked once when an import needs it.
    var dmaBufFormatCache: [DMABufFormatSupport]?

    /// How the render targets Lamina makes store their colour: `OffscreenTarget`s with
    /// their own texture, and so every group image, mask, shadow, backdrop copy and blur
    /// step. `.bgra8` on a software rasterizer with `capabilities.bgraStorage`: llvmpipe
    /// clips against a guard band instead of each triangle's edges, and has a rectangle
    /// path, only for B8G8R8A8 and B8G8R8X8 colour buffers (docs/benchmarks.md, the
    /// eleventh round); `.rgba8` elsewhere. The debugging switch
    /// `LAMINA_TARGET_FORMAT=rgba8` or `=bgra8` overrides the choice for every device.
    /// Targets made before a change keep their storage; a target that cannot be made as
    /// `.bgra8` is made as `.rgba8`, and this turns `.rgba8`. Choose `.rgba8` when your own
    /// GL writes into a target's texture with RGBA data (`glTexSubImage2D(…, GL_RGBA, …)`
    /// needs RGBA8 storage on OpenGL ES).
    public var targetStorage: TextureStorage = .rgba8

    /// `targetStorage`'s first value on a context with `capabilities`.
    static func defaultTargetStorage(_ capabilities: GPUCapabilities) -> TextureStorage {
        guard capabilities.bgraStorage else { return .rgba8 }
        if let v = getenv("LAMINA_TARGET_FORMAT"), let asked = TextureStorage(rawValue: String(cString: v)) { return asked }
        return capabilities.isSoftwareRasterizer ? .bgra8 : .rgba8
    }

    /// Opens a device. `backend` wins over `LAMINA_BACKEND`; nil means "use the
    /// environment, else auto". `drmDevice` (or `LAMINA_DRM_DEVICE`) picks the DRM node for GBM.
    public init(backend: BackendSelection? = nil, drmDevice: String? = nil) throws {
        let selection = try backend ?? BackendSelection.fromEnvironment()
        let opened = try BackendOpener.open(selection, drmDevice: drmDevice)
        self.backend = opened.backend
        self.backendDetail = opened.detail
        self.gl = GLContext(display: opened.display, context: opened.context, ownership: .own)
        self.gbm = opened.gbm
        do {
            self.capabilities = try gl.withCurrentThrowing { GPUDevice.detectCapabilities(display: opened.display) }
        } catch {
            gl.close()
            throw error
        }
        configureContext()
    }

    /// Adopts a host's OpenGL ES 3 context: Lamina issues its GL on that context (call it
    /// on the host's thread, normally with the context current), owns nothing of EGL and
    /// never terminates the display or destroys the context. Each pass sets all the state
    /// it depends on and restores the host's afterwards (`docs/embedding.md`).
    public init(adopting host: HostContext) throws {
        let resolved = try host.resolve(purpose: "adopt")
        guard case let .egl(display, context) = resolved else {
            guard case let .glx(binding) = resolved else { preconditionFailure() }
            // A GLX context: GL calls reach it through the thread's GL dispatch; Lamina
            // identifies it, and makes it current again, through GLX.
            self.backend = .host
            self.backendDetail = "adopted GLX context \(binding.context) on X display \(binding.display)"
            self.gl = GLContext(adoptingGLX: binding)
            self.gbm = nil
            self.capabilities = try gl.withCurrentThrowing { GPUDevice.detectCapabilities(display: nil) }
            do { try GPUDevice.requireUsableVersion(capabilities) } catch { gl.close(); throw error }
            configureContext()
            return
        }
        try GPUDevice.requireSupportedAPI(display: display, context: context)
        let current = EGLCurrentBinding.read()
        let surfaces: (EGLSurface?, EGLSurface?) = current.context == context ? (current.draw, current.read) : (nil, nil)
        if current.api != EGLenum(EGL_OPENGL_ES_API) { eglBindAPI(current.api) }
        self.backend = .host
        self.backendDetail = "adopted EGL context \(context) on display \(display)"
        self.gl = GLContext(display: display, context: context, ownership: .adopt, hostSurfaces: surfaces)
        self.gbm = nil
        // Reading capabilities changes no state: the host's is captured from the next call on,
        // when Lamina knows whether it has indexed draw-buffer state to leave alone.
        self.capabilities = try gl.withCurrentThrowing { GPUDevice.detectCapabilities(display: display) }
        do { try GPUDevice.requireUsableVersion(capabilities) } catch { gl.close(); throw error }
        configureContext()
    }

    /// What the context's capabilities decide: indexed draw-buffer state (ES 3.2), and,
    /// on an adopted context, capturing the host's state from now on.
    private func configureContext() {
        gl.indexedDrawBuffers = IndexedDrawBufferFunctions.load(glVersion: capabilities.glVersion, extensions: capabilities.glExtensions)
        gl.capturesHostState = ownership == .adopt
        gl.hasExternalTextures = capabilities.glExtensions.contains("GL_OES_EGL_image_external")
        if capabilities.isDesktopGL {
            gl.desktopGL = try? gl.withCurrentThrowing { DesktopGL.load(glVersion: capabilities.glVersion, extensions: capabilities.glExtensions) }
        }
        gl.shaderDialect = GLSLDialect.choose(desktop: capabilities.isDesktopGL, extensions: capabilities.glExtensions, glVersion: capabilities.glVersion)
        targetStorage = GPUDevice.defaultTargetStorage(capabilities)
        let robustness = capabilities.glExtensions.contains("GL_KHR_robustness") ? "KHR"
            : capabilities.glExtensions.contains("GL_EXT_robustness") ? "EXT" : nil
        if let suffix = robustness {
            gl.resetStatusFunction = eglProcedure("glGetGraphicsResetStatus" + suffix, as: PFNGLGETGRAPHICSRESETSTATUSKHRPROC.self)
            var strategy: GLint = 0
            try? gl.withCurrentThrowing { glGetIntegerv(GLenum(GL_RESET_NOTIFICATION_STRATEGY_KHR), &strategy) }
            gl.notifiesResets = strategy == GL_LOSE_CONTEXT_ON_RESET_KHR
        }
        LaminaLog.logger.info("GPU device: \(ownership) context, \(backend) backend (\(backendDetail)), \(capabilities.glVersion), renderer \(capabilities.glRenderer), \(targetStorage) targets")
        enableDebugOutputIfAsked()
    }

    // MARK: Context loss

    /// Whether the context was created with reset notification (`EGL_EXT_create_context_robustness`
    /// and `GL_KHR_robustness`: a GPU reset loses the context and Lamina can tell).
    public var notifiesResets: Bool { gl.notifiesResets }

    /// Counts re-creations of the context after a loss (`recover()`): a renderer that
    /// remembers GPU objects compares it with the generation they were made in.
    public var contextGeneration: Int { gl.generation }

    /// Whether the context is known to be lost (a reset the driver reported at a check, or
    /// `simulateContextLoss()`), until `recover()`.
    public var isContextLost: Bool { gl.lostStatus != nil }

    /// Asks the driver whether the context was reset (`glGetGraphicsResetStatus`); throws
    /// `GPUError.contextLost` when it was (or the loss is simulated). A `Compositor` checks
    /// at every frame; call it at your own frame boundaries if you draw with the device.
    public func checkContext() throws {
        guard !isClosed else { throw GPUError.deviceClosed(operation: "checkContext") }
        if gl.lostStatus == nil, gl.notifiesResets, gl.resetStatusFunction != nil {
            _ = try gl.withCurrentThrowing { gl.checkReset() }
        }
        if let lost = gl.lostStatus { throw GPUError.contextLost(status: lost.status, guilty: lost.guilty) }
    }

    /// Makes the device behave as if its context had been lost to a GPU reset (llvmpipe
    /// never resets: this is how recovery is tested). The next `checkContext()` throws.
    /// A test hook: `@_spi(Testing) import LaminaGPU`.
    @_spi(Testing) public func simulateContextLoss() { gl.simulateLoss() }

    /// The GLSL dialect Lamina's shaders are compiled in on this context ("GLSL ES 3.00",
    /// or "GLSL 3.30 core" on a desktop context without `GL_ARB_ES3_compatibility`).
    public var shaderDialect: String { gl.shaderDialect.rawValue }

    /// Compiles every shader from now on as `#version 330 core` (desktop contexts only), as
    /// on a desktop GL without `GL_ARB_ES3_compatibility`; programs already built are
    /// dropped. `LAMINA_GLSL_DIALECT=330` does the same for every desktop device.
    /// A test hook: `@_spi(Testing) import LaminaGPU`.
    @_spi(Testing) public func compileShadersAsGLSL330() {
        guard capabilities.isDesktopGL else { return }
        gl.shaderDialect = .glsl330
        try? gl.withCurrentThrowing { shaders.releaseAll() }
    }

    /// Recovers from a context loss: Lamina's own context is destroyed and made again on
    /// the same display, and every GL object of the old one — textures, targets, programs,
    /// atlases, the quad batch — is forgotten (it reads as released; releasing it is a
    /// no-op). Shaders and samplers are made again on first use; a `Compositor` re-creates
    /// its contents and the targets it can (`OffscreenTarget(device:pixelSize:)`) by
    /// itself. Call between frames. A shared or adopted context belongs to the host, which
    /// must re-create it: then this throws, and a new `GPUDevice` is needed.
    public func recover() throws {
        guard !isClosed else { throw GPUError.deviceClosed(operation: "recover") }
        guard ownership == .own else {
            let lost = gl.lostStatus ?? ("lost", false)
            throw GPUError.contextLost(status: "\(lost.status) on the host's \(ownership == .adopt ? "adopted" : "share-group") context, which only the host can re-create; re-create it, then open a new GPUDevice", guilty: lost.guilty)
        }
        try gl.recreate { try BackendOpener.createContext(display) }
        quadGeometry = nil
        quadBatch.forgetObjects()
        timer.forgetAll()
        samplers = [:]
        shaders.forgetAll()
        configureContext()
    }

    /// Creates Lamina's own OpenGL ES 3 context in the share group of a host's context,
    /// on the host's display: textures and renderbuffers are visible to both, framebuffers
    /// and vertex arrays are not. Lamina destroys only the context it created. Every pass
    /// ends with `glFinish`, so its output is complete when the host samples it.
    public init(sharingWith host: HostContext) throws {
        guard case let .egl(display, hostContext) = try host.resolve(purpose: "share") else {
            throw GPUError.unsupportedContext(reason: "the current context is a GLX context, and EGL contexts cannot share objects with GLX ones: adopt it instead (GPUDevice(adopting: .current)), or create the host's context through EGL (GLFW: GLFW_CONTEXT_CREATION_API = GLFW_EGL_CONTEXT_API; SDL2: SDL_HINT_VIDEO_X11_FORCE_EGL; Qt: QT_XCB_GL_INTEGRATION=xcb_egl)")
        }
        try GPUDevice.requireSupportedAPI(display: display, context: hostContext)
        let context = try BackendOpener.createContext(display, sharingWith: hostContext)
        self.backend = .host
        self.backendDetail = "own context in the share group of \(hostContext) on display \(display)"
        self.gl = GLContext(display: display, context: context, ownership: .share)
        self.gbm = nil
        do {
            self.capabilities = try gl.withCurrentThrowing { GPUDevice.detectCapabilities(display: display) }
        } catch {
            gl.close()
            throw error
        }
        configureContext()
    }

    /// Who owns the context Lamina draws with.
    public var ownership: ContextOwnership { gl.ownership }

    /// Refuses a host context Lamina cannot draw with: OpenGL ES before 3.0, and client
    /// APIs other than OpenGL ES and OpenGL (desktop GL's version is checked once current:
    /// `requireUsableVersion`).
    static func requireSupportedAPI(display: EGLDisplay, context: EGLContext) throws {
        var type: EGLint = 0, version: EGLint = 0
        guard eglQueryContext(display, context, EGL_CONTEXT_CLIENT_TYPE, &type) == EGL_TRUE else {
            throw GPUError.loggedEGLFailure(call: "eglQueryContext(EGL_CONTEXT_CLIENT_TYPE)", error: lastEGLError(),
                                      hint: "the display or context handed to Lamina is not valid")
        }
        if type == EGLint(EGL_OPENGL_API) { return }
        eglQueryContext(display, context, EGL_CONTEXT_CLIENT_VERSION, &version)
        guard type == EGLint(EGL_OPENGL_ES_API), version >= 3 else {
            throw GPUError.unsupportedContext(reason: (type == EGLint(EGL_OPENGL_ES_API) ? "it is an OpenGL ES \(version) context" : "it is not an OpenGL or OpenGL ES context")
                + "; Lamina needs OpenGL ES 3.0 or later, or desktop OpenGL 3.3 or later: create the host's context with EGL_CONTEXT_MAJOR_VERSION 3 "
                + "(SDL: SDL_GL_CONTEXT_MAJOR_VERSION 3; GLFW: GLFW_CONTEXT_VERSION_MAJOR 3; GTK: gtk_gl_area_set_required_version(area, 3, 3); Qt: QSurfaceFormat::setVersion(3, 3))")
        }
    }

    /// Refuses a context too old for Lamina (read once it is current): desktop GL before
    /// 3.3, or OpenGL ES before 3.0 (a GLX context may be either).
    private static func requireUsableVersion(_ capabilities: GPUCapabilities) throws {
        if !capabilities.isDesktopGL {
            let es = capabilities.glVersion.dropFirst("OpenGL ES ".count)
            guard let v = DesktopGL.version(String(es)), v < (3, 0) else { return }
            throw GPUError.unsupportedContext(reason: "it is \(capabilities.glVersion); Lamina needs OpenGL ES 3.0 or later (or desktop OpenGL 3.3)")
        }
        guard let reason = DesktopGL.unsupportedReason(glVersion: capabilities.glVersion, extensions: capabilities.glExtensions) else { return }
        throw GPUError.unsupportedContext(reason: reason + " (SDL: SDL_GL_CONTEXT_MAJOR_VERSION/MINOR_VERSION; GLFW: GLFW_CONTEXT_VERSION_MAJOR/MINOR; "
            + "GTK: gtk_gl_area_set_required_version; Qt: QSurfaceFormat::setVersion)")
    }

    /// The current context's capabilities (`display`: its EGL display; nil for GLX).
    private static func detectCapabilities(display: EGLDisplay?) -> GPUCapabilities {
        func glString(_ name: Int32) -> String {
            guard let s = glGetString(GLenum(name)) else { return "" }
            return s.withMemoryRebound(to: CChar.self, capacity: 1) { String(cString: $0) }
        }
        func glInt(_ name: Int32) -> Int { var v: GLint = 0; glGetIntegerv(GLenum(name), &v); return Int(v) }
        // One by one (a desktop core profile has no GL_EXTENSIONS string).
        func extensions() -> Set<String> {
            Set((0..<GLuint(max(0, glInt(GL_NUM_EXTENSIONS)))).compactMap { i in
                glGetStringi(GLenum(GL_EXTENSIONS), i).map { $0.withMemoryRebound(to: CChar.self, capacity: 1) { String(cString: $0) } }
            })
        }
        var dims: [GLint] = [0, 0]
        glGetIntegerv(GLenum(GL_MAX_VIEWPORT_DIMS), &dims)
        return GPUCapabilities(
            eglVendor: display.map { eglString($0, EGL_VENDOR) } ?? "", eglVersion: display.map { eglString($0, EGL_VERSION) } ?? "GLX",
            eglClientExtensions: extensionSet(eglQueryString(nil, EGL_EXTENSIONS)),
            eglExtensions: display.map { extensionSet(eglQueryString($0, EGL_EXTENSIONS)) } ?? [],
            glVendor: glString(GL_VENDOR), glRenderer: glString(GL_RENDERER), glVersion: glString(GL_VERSION),
            glslVersion: glString(GL_SHADING_LANGUAGE_VERSION),
            glExtensions: extensions(),
            maxTextureSize: glInt(GL_MAX_TEXTURE_SIZE), maxRenderbufferSize: glInt(GL_MAX_RENDERBUFFER_SIZE),
            maxViewportSize: PixelSize(width: Int(dims[0]), height: Int(dims[1])), maxDrawBuffers: glInt(GL_MAX_DRAW_BUFFERS))
    }

    deinit { close() }

    public var isClosed: Bool { gl.isClosed }

    /// Frees everything Lamina made on the context: every GL object of this device still
    /// alive, the EGL images of imported buffers, and — only when Lamina created them —
    /// the context and its reference to the display. A host's display and context are
    /// left as they were. Objects released later are no-ops; new work throws.
    public func close() {
        guard !gl.isClosed else { return }
        gl.close()
        quadGeometry = nil
        quadBatch.forgetObjects()
        timer.forgetAll()
        samplers = [:]
        shaders.forgetAll()
    }

    /// Runs `body` with the device's context current (and, on an adopted context, the
    /// host's GL state captured): Lamina's calls inside pay for one save and restore in all.
    /// GL of your own inside runs on Lamina's context; on an adopted context, state you set
    /// there is undone at the end (call `resetState()` after changing state Lamina relies
    /// on inside it). Throws when the context cannot be made current (or the device is
    /// closed).
    public func withContext<T>(_ body: () throws -> T) throws -> T {
        try gl.withCurrentThrowing(body)
    }

    /// Tells Lamina that GL state changed behind its back (Skia's `resetContext`): the
    /// next pass sets all its state again. Lamina already does so at the start of every
    /// outermost call, so this matters only inside `withContext` or a render pass.
    public func resetState() {
        gl.activePass = nil
        gl.currentProgram = 0
    }

    /// Called for GL errors caught after Lamina's own calls in debug builds. The default
    /// stops in the debugger (`assertionFailure`) naming the call and the error. Errors
    /// a host left pending are not reported here: Lamina sets them aside and raises them
    /// again when it returns (see `takeUnreturnedHostGLErrors()`).
    public var glErrorHandler: (GLErrorReport) -> Void {
        get { gl.glErrorHandler }
        set { gl.glErrorHandler = newValue }
    }

    /// Errors a host left pending on an adopted context that could not be raised again
    /// when Lamina returned (GL_OUT_OF_MEMORY, GL_INVALID_FRAMEBUFFER_OPERATION), oldest
    /// first; reading them clears the list.
    public func takeUnreturnedHostGLErrors() -> [UInt32] { gl.takeUnreturnedHostErrors().map { UInt32($0) } }

    /// How many times the host's GL state was captured and restored (adopted contexts).
    public var hostStateSaves: Int { gl.stateSaves }

    /// Bytes uploaded to textures since the device opened (all uploads, full or partial).
    public var uploadedBytes: Int { gl.uploadedBytes }

    /// Draw calls issued on this device since it opened (all passes).
    public var drawCalls: Int { gl.drawCalls }

    /// Live GL objects per kind (including those dropped but not yet collected; borrowed
    /// host objects are not counted).
    public var liveObjectCounts: GPUObjectCounts { gl.ledger.counts() }

    /// Names of dropped-but-unreleased wrappers waiting for `collectGarbage()`.
    public var pendingDeletions: Int { gl.ledger.pendingCount }

    /// Deletes GL names queued by wrappers that were dropped without `release()`.
    /// Runs at the start of every render pass too.
    public func collectGarbage() {
        guard !isClosed, gl.ledger.pendingCount > 0 else { return }
        gl.withCurrentIfPossible { gl.collectGarbage() }
    }

    /// Frees objects the device caches for itself (compiled programs, the quad batch's
    /// vertex array and buffers, the unit quad, samplers, timer queries — timings in flight
    /// are lost), so that live counts reflect only what callers hold.
    public func purgeCaches() {
        guard !isClosed else { return }
        gl.withCurrentIfPossible {
            shaders.releaseAll()
            gl.currentProgram = 0
            gl.activePass = nil
            quadGeometry?.release()
            quadGeometry = nil
            quadBatch.releaseObjects()
            timer.releaseAll()
            for s in samplers.values { s.release() }
            samplers = [:]
            sweepExternalImports()
            gl.collectGarbage()
        }
    }

    /// In debug builds: reports any GL error raised by the call just made, by name.
    @inline(__always)
    func checkGLError(_ call: @autoclosure () -> String) {
        #if DEBUG
        gl.reportGLErrors(call())
        #endif
    }

    /// Reports every pending GL error of Lamina's context to `glErrorHandler`; returns how
    /// many there were.
    @discardableResult
    public func reportGLErrors(_ call: String) -> Int {
        guard !isClosed else { return 0 }
        var count = 0
        gl.withCurrentIfPossible { count = gl.reportGLErrors(call) }
        return count
    }
}

/// A host's EGL context — OpenGL ES 3, or desktop OpenGL 3.3 or later (core or
/// compatibility profile) — for `GPUDevice(adopting:)` and `GPUDevice(sharingWith:)`.
public enum HostContext {
    /// The OpenGL ES or desktop OpenGL context current on the calling thread, made
    /// through EGL (`eglGetCurrentContext`) or GLX (`glXGetCurrentContext`; adoption only).
    case current
    /// An explicit `EGLDisplay` and `EGLContext` (both `void *` in C).
    case context(display: UnsafeMutableRawPointer, context: UnsafeMutableRawPointer)

    /// A host context found: an EGL one, or a GLX one.
    enum Resolved {
        case egl(EGLDisplay, EGLContext)
        case glx(GLXBinding)
    }

    func resolve(purpose: String) throws -> Resolved {
        switch self {
        case let .context(display, context):
            return .egl(display, context)
        case .current:
            let before = EGLCurrentBinding.read()
            defer { if before.api != EGLenum(EGL_OPENGL_ES_API) { eglBindAPI(before.api) } }
            if let c = before.context, let d = before.display { return .egl(d, c) }
            // EGL implementations that keep one current context per client API: the
            // desktop OpenGL one.
            eglBindAPI(EGLenum(EGL_OPENGL_API))
            let desktop = (eglGetCurrentDisplay(), eglGetCurrentContext())
            eglBindAPI(EGLenum(EGL_OPENGL_ES_API))
            if let d = desktop.0, let c = desktop.1 { return .egl(d, c) }
            // A GLX context (GLFW's, SDL2's and Qt's default on X11).
            if let glx = GLXBinding.current(lookUp: true) { return .glx(glx) }
            throw GPUError.noHostContext(purpose: purpose, desktopGLCurrent: false)
        }
    }
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

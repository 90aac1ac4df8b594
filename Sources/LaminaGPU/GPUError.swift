import FoundationEssentials
import Glibc
import LaminaGeometry

/// The backends Lamina can open an EGL display on.
public enum GPUBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    /// `EGL_PLATFORM_GBM_KHR` on a DRM node (`/dev/dri/card*`, `/dev/dri/renderD*`).
    case gbm
    /// `EGL_EXT_platform_device`: an enumerated EGL device (a GPU, or Mesa's software device).
    case device
    /// `EGL_MESA_platform_surfaceless`: no window system, no device file.
    case surfaceless
    /// A host program's EGL display (`GPUDevice(adopting:)`, `GPUDevice(sharingWith:)`);
    /// never opened by backend selection.
    case host

    /// The backends `auto` tries, in order.
    public static let openable: [GPUBackend] = [.gbm, .device, .surfaceless]

    public var description: String { rawValue }
}

/// Which backend to open: `auto` tries gbm, device, surfaceless in that order.
public enum BackendSelection: Equatable, Sendable, CustomStringConvertible {
    case auto
    case only(GPUBackend)

    /// The environment variable that forces a backend when the API does not.
    public static let environmentVariable = "LAMINA_BACKEND"

    /// Parses `auto`, `gbm`, `device` or `surfaceless`.
    public init(parsing text: String) throws {
        let t = text.trimmed.lowercased()
        if t == "auto" || t.isEmpty { self = .auto; return }
        guard let b = GPUBackend(rawValue: t), b != .host else {
            throw GPUError.invalidBackendName(text)
        }
        self = .only(b)
    }

    /// `LAMINA_BACKEND` if set, else `.auto`.
    public static func fromEnvironment() throws -> BackendSelection {
        guard let value = ProcessInfo.processInfo.environment[environmentVariable] else { return .auto }
        return try BackendSelection(parsing: value)
    }

    var candidates: [GPUBackend] {
        switch self {
        case .auto: return GPUBackend.openable
        case .only(let b): return [b]
        }
    }

    public var description: String {
        switch self {
        case .auto: return "auto"
        case .only(let b): return b.rawValue
        }
    }
}

/// One backend (or one DRM node / EGL device of it) that was tried and why it failed.
public struct BackendAttempt: Sendable, Equatable, CustomStringConvertible {
    public var backend: GPUBackend
    /// What exactly was tried: a device path, an EGL device index, a platform.
    public var what: String
    public var reason: String
    public var description: String { "\(backend) (\(what)): \(reason)" }
}

/// Errors a user of Lamina can cause or meet in the environment. Each message says
/// what was tried and what to do about it.
public enum GPUError: Error, Equatable, CustomStringConvertible, LocalizedError {
    case noUsableBackend(selection: String, attempts: [BackendAttempt])
    case invalidBackendName(String)
    case eglFailure(call: String, error: String, hint: String)
    case shaderNotFound(name: String, available: [String])
    case shaderCompile(name: String, log: String)
    case programLink(vertex: String, fragment: String, log: String)
    case invalidSize(what: String, size: PixelSize)
    case tooLarge(what: String, size: PixelSize, maximum: Int)
    /// A size in pixels too large even to hold in a `PixelSize` (given as computed).
    case tooLargeExtent(what: String, width: Double, height: Double, maximum: Int)
    case outOfMemory(what: String)
    case incompleteFramebuffer(status: String)
    case wrongBackend(operation: String, required: GPUBackend, actual: GPUBackend)
    case gbmFailure(call: String, reason: String)
    case deviceClosed(operation: String)
    case noHostContext(purpose: String, desktopGLCurrent: Bool)
    /// A host's context of a kind Lamina cannot draw with (OpenGL ES 2, desktop GL older
    /// than 3.3, …): `reason` says what it is and what the host can switch.
    case unsupportedContext(reason: String)
    case notAnObject(what: String, ownership: ContextOwnership)
    /// A target that cannot be drawn as asked (a caller's framebuffer that is not usable).
    case unusableTarget(reason: String)
    /// An object of one device used with another.
    case wrongDevice(what: String)
    /// An object used after `release()` (or after its device's `close()` released it).
    case released(what: String, operation: String)
    /// An argument a call cannot honour (a region outside the object, too few bytes, …).
    case invalidArgument(operation: String, reason: String)
    /// The GL context was lost (a GPU reset, or the driver gave up on it): nothing drawn
    /// since is trustworthy, and every GL object of the device is gone.
    case contextLost(status: String, guilty: Bool)

    public var description: String {
        switch self {
        case let .noUsableBackend(selection, attempts):
            var s = "Lamina could not open a GPU device (backend \(selection)). Tried:\n"
            for a in attempts { s += "  - \(a)\n" }
            s += "What to do: install Mesa's EGL and drivers (apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri libgbm1), "
            s += "or choose another backend with \(BackendSelection.environmentVariable)=gbm|device|surfaceless or --backend."
            return s
        case let .invalidBackendName(name):
            return "unknown backend '\(name)': use auto, gbm, device or surfaceless (in \(BackendSelection.environmentVariable) or --backend)"
        case let .eglFailure(call, error, hint):
            return "\(call) failed with \(error). \(hint)"
        case let .shaderNotFound(name, available):
            return "no shader named '\(name)' is embedded; available: \(available.joined(separator: ", ")). Add the file to Shaders/ and rebuild."
        case let .shaderCompile(name, log):
            return "shader '\(name)' failed to compile. Driver log:\n\(log.trimmed)"
        case let .programLink(vertex, fragment, log):
            return "program '\(vertex)' + '\(fragment)' failed to link. Driver log:\n\(log.trimmed)"
        case let .invalidSize(what, size):
            return "\(what) of \(size) is not allowed: width and height must be at least 1 pixel"
        case let .tooLarge(what, size, maximum):
            return "\(what) of \(size) exceeds this GPU's maximum of \(maximum) pixels per side; use a smaller size or scale, or split the content into tiles"
        case let .tooLargeExtent(what, width, height, maximum):
            func side(_ v: Double) -> String { v < 1e9 ? String(Int(v.rounded(.up))) : "\(v)" }
            return "\(what) needs \(side(width))×\(side(height)) pixels, beyond this GPU's maximum of \(maximum) pixels per side; use a smaller size or scale, or split the content into tiles"
        case let .outOfMemory(what):
            return "the GPU ran out of memory while creating \(what); release unused targets and textures, or use a smaller size"
        case let .incompleteFramebuffer(status):
            return "framebuffer is incomplete (\(status)); the driver cannot render to this format/size"
        case let .wrongBackend(operation, required, actual):
            return "\(operation) needs the \(required) backend, but this device uses \(actual); open the device with backend \(required) (\(BackendSelection.environmentVariable)=\(required))"
        case let .gbmFailure(call, reason):
            return "\(call) failed: \(reason)"
        case let .noHostContext(purpose, desktop):
            var s = "Lamina cannot \(purpose) the current context: "
            _ = desktop
            s += "no EGL or GLX context is current on this thread. Make the host's context current first "
            s += "(GTK: gtk_gl_area_make_current, or call from the area's render signal; Qt: QOpenGLContext::makeCurrent, or call from paintGL; "
            s += "SDL2: SDL_GL_MakeCurrent; GLFW: glfwMakeContextCurrent)"
            return s
        case let .unsupportedContext(reason):
            return "Lamina cannot draw with the host's context: \(reason)"
        case let .notAnObject(what, ownership):
            let why: String
            switch ownership {
            case .own: why = "Lamina's own context shares nothing with other contexts: adopt the host's context (GPUDevice(adopting:)) or create the device in its share group (GPUDevice(sharingWith:))"
            case .share: why = "only textures and renderbuffers are shared between contexts; framebuffers and vertex arrays are not: wrap the host's texture instead (borrowTexture, OffscreenTarget(device:texture:)), or adopt the host's context"
            case .adopt: why = "the name does not exist on the adopted context: check that the host created it on this context"
            }
            return "\(what) is not an object of Lamina's \(ownership) context; \(why)"
        case let .unusableTarget(reason):
            return reason
        case let .wrongDevice(what):
            return "\(what) belongs to another GPUDevice: GL objects are used only with the device (context) that made them; make it on this device, or share it with borrowTexture on a device of the same share group"
        case let .deviceClosed(operation):
            return "\(operation) on a GPU device that was already closed; create a new GPUDevice"
        case let .released(what, operation):
            return "\(operation): \(what) was already released; make a new one (release() ends an object's use for good)"
        case let .invalidArgument(operation, reason):
            return "\(operation): \(reason)"
        case let .contextLost(status, guilty):
            let cause = guilty ? "Lamina's own GL work caused the reset" : "the reset was caused elsewhere (another program, or the driver)"
            return "the GPU context was lost (\(status); \(cause)); its textures, targets and programs are gone. "
                + "A Compositor recovers by itself at its next render (it re-creates its GPU state from the layer tree); "
                + "objects you made yourself (targets, textures) must be made again (Compositor.contextLossHandler is the place; without a compositor, call GPUDevice.recover() first)"
        }
    }

    public var errorDescription: String? { description }
}

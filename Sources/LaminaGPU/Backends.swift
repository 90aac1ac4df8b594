import LaminaValues
import CEGL
import CGBM
import FoundationEssentials
import Glibc
import Synchronization

/// A GBM device on an open DRM node. Owned by the `GPUDevice` that uses it.
final class GBMDevice {
    let path: String
    let fd: Int32
    let device: OpaquePointer
    /// GBM buffers alive on it (`GBMBuffer`).
    let liveBuffers = Atomic<Int>(0)

    init(path: String) throws {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else {
            throw GPUError.gbmFailure(call: "open(\(path))", reason: String(cString: strerror(errno)))
        }
        guard let dev = gbm_create_device(fd) else {
            close(fd)
            throw GPUError.gbmFailure(call: "gbm_create_device(\(path))", reason: "no GBM backend for this DRM driver")
        }
        self.path = path; self.fd = fd; self.device = dev
    }

    /// Allocates a buffer object for rendering, linear if the driver insists.
    func createBuffer(width: Int, height: Int, format: UInt32) -> OpaquePointer? {
        let w = UInt32(width), h = UInt32(height)
        return gbm_bo_create(device, w, h, format, GBM_BO_USE_RENDERING.rawValue)
            ?? gbm_bo_create(device, w, h, format, GBM_BO_USE_RENDERING.rawValue | GBM_BO_USE_LINEAR.rawValue)
    }

    deinit {
        gbm_device_destroy(device)
        close(fd)
    }
}

/// An initialised EGL display with an OpenGL ES 3 context, as a backend opened it.
struct OpenedContext {
    var backend: GPUBackend
    /// What was opened: a DRM node path, an EGL device, the surfaceless platform.
    var detail: String
    var display: EGLDisplay
    var context: EGLContext
    var gbm: GBMDevice?
}

enum BackendOpener {
    /// Opens the first backend of `selection` that works, or throws listing every attempt.
    static func open(_ selection: BackendSelection, drmDevice: String?) throws -> OpenedContext {
        var attempts: [BackendAttempt] = []
        for backend in selection.candidates {
            switch backend {
            case .gbm:
                if let c = openGBM(drmDevice: drmDevice, attempts: &attempts) { return chosen(c, after: attempts) }
            case .device:
                if let c = openEGLDevice(attempts: &attempts) { return chosen(c, after: attempts) }
            case .host:
                continue   // only through GPUDevice(adopting:) or GPUDevice(sharingWith:)
            case .surfaceless:
                do {
                    let display = try DisplayRegistry.acquire(platform: EGLenum(EGL_PLATFORM_SURFACELESS_MESA), native: nil)
                    do {
                        let context = try createContext(display)
                        return chosen(OpenedContext(backend: .surfaceless, detail: "EGL_MESA_platform_surfaceless", display: display, context: context),
                                      after: attempts)
                    } catch {
                        DisplayRegistry.release(display); throw error
                    }
                } catch {
                    attempts.append(BackendAttempt(backend: .surfaceless, what: "EGL_PLATFORM_SURFACELESS_MESA", reason: "\(error)"))
                }
            }
        }
        let error = GPUError.noUsableBackend(selection: selection.description, attempts: attempts)
        LaminaLog.logger.error("\(error)")
        throw error
    }

    /// Logs the backend chosen and why the ones tried before it were not.
    private static func chosen(_ c: OpenedContext, after attempts: [BackendAttempt]) -> OpenedContext {
        for a in attempts { LaminaLog.logger.info("backend \(a.backend) not used (\(a.what)): \(a.reason)") }
        LaminaLog.logger.info("backend \(c.backend) chosen: \(c.detail)")
        return c
    }

    /// DRM nodes to try: the one asked for, else render nodes (no DRM master needed on real
    /// GPUs) then card nodes (the only ones software GBM can allocate on).
    static func drmNodes(requested: String?) -> [String] {
        if let requested { return [requested] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/dri")) ?? []
        let render = names.filter { $0.hasPrefix("renderD") }.sorted()
        let card = names.filter { $0.hasPrefix("card") }.sorted()
        return (render + card).map { "/dev/dri/" + $0 }
    }

    private static func openGBM(drmDevice: String?, attempts: inout [BackendAttempt]) -> OpenedContext? {
        let nodes = drmNodes(requested: drmDevice ?? ProcessInfo.processInfo.environment["LAMINA_DRM_DEVICE"])
        if nodes.isEmpty {
            attempts.append(BackendAttempt(backend: .gbm, what: "/dev/dri", reason:
                "no DRM device nodes (no GPU or DRM driver on this machine; in a VM, load vgem: see docs/gbm-vm.md)"))
            return nil
        }
        for path in nodes {
            do {
                let gbm = try GBMDevice(path: path)
                // Software GBM allocates dumb buffers, which render nodes refuse: prove
                // that allocation works before choosing this node.
                guard let probe = gbm.createBuffer(width: 16, height: 16, format: LAMINA_GBM_FORMAT_ARGB8888) else {
                    let why = String(cString: strerror(errno))
                    throw GPUError.gbmFailure(call: "gbm_bo_create", reason:
                        "\(why)\(path.contains("renderD") ? " (render nodes cannot allocate dumb buffers; use a card node)" : "")")
                }
                gbm_bo_destroy(probe)
                let display = try DisplayRegistry.acquire(platform: EGLenum(EGL_PLATFORM_GBM_KHR), native: UnsafeMutableRawPointer(gbm.device), ownsNative: true)
                do {
                    let context = try createContext(display)
                    return OpenedContext(backend: .gbm, detail: path, display: display, context: context, gbm: gbm)
                } catch {
                    DisplayRegistry.release(display); throw error
                }
            } catch {
                attempts.append(BackendAttempt(backend: .gbm, what: path, reason: "\(error)"))
            }
        }
        return nil
    }

    private static func openEGLDevice(attempts: inout [BackendAttempt]) -> OpenedContext? {
        let clientExtensions = extensionSet(eglQueryString(nil, EGL_EXTENSIONS))
        guard clientExtensions.contains("EGL_EXT_platform_device"),
              let queryDevices = eglProcedure("eglQueryDevicesEXT", as: PFNEGLQUERYDEVICESEXTPROC.self),
              let queryString = eglProcedure("eglQueryDeviceStringEXT", as: PFNEGLQUERYDEVICESTRINGEXTPROC.self) else {
            attempts.append(BackendAttempt(backend: .device, what: "EGL_EXT_platform_device", reason: "this EGL does not offer EGL_EXT_platform_device / EGL_EXT_device_enumeration"))
            return nil
        }
        var count: EGLint = 0
        guard queryDevices(0, nil, &count) == EGL_TRUE, count > 0 else {
            attempts.append(BackendAttempt(backend: .device, what: "eglQueryDevicesEXT", reason: "no EGL devices (\(lastEGLError()))"))
            return nil
        }
        var devices = [EGLDeviceEXT?](repeating: nil, count: Int(count))
        _ = queryDevices(count, &devices, &count)
        for (index, device) in devices.prefix(Int(count)).enumerated() {
            guard let device else { continue }
            let exts = extensionSet(queryString(device, EGL_EXTENSIONS))
            var what = "EGL device \(index)"
            if let file = queryString(device, EGLint(EGL_DRM_DEVICE_FILE_EXT)) { what += " \(String(cString: file))" }
            if exts.contains("EGL_MESA_device_software") { what += " (software)" }
            do {
                let display = try DisplayRegistry.acquire(platform: EGLenum(EGL_PLATFORM_DEVICE_EXT), native: UnsafeMutableRawPointer(device))
                do {
                    let context = try createContext(display)
                    return OpenedContext(backend: .device, detail: what, display: display, context: context)
                } catch {
                    DisplayRegistry.release(display); throw error
                }
            } catch {
                attempts.append(BackendAttempt(backend: .device, what: what, reason: "\(error)"))
            }
        }
        return nil
    }

    /// An OpenGL ES 3.0 context with no surface (we render to framebuffer objects only),
    /// in the share group of `shared` when given (then with that context's configuration
    /// unless the display takes contexts without one).
    static func createContext(_ display: EGLDisplay, sharingWith shared: EGLContext? = nil) throws -> EGLContext {
        let exts = extensionSet(eglQueryString(display, EGL_EXTENSIONS))
        guard exts.contains("EGL_KHR_surfaceless_context") else {
            throw GPUError.loggedEGLFailure(call: "eglQueryString(EGL_EXTENSIONS)", error: "no EGL_KHR_surfaceless_context",
                                      hint: "Lamina's own context renders offscreen only and needs a driver with surfaceless contexts (Mesa has one); adopt the host's context instead (GPUDevice(adopting:))")
        }
        let previousAPI = eglQueryAPI()
        defer { if previousAPI != EGLenum(EGL_OPENGL_ES_API) { eglBindAPI(previousAPI) } }
        guard eglBindAPI(EGLenum(EGL_OPENGL_ES_API)) == EGL_TRUE else {
            throw GPUError.loggedEGLFailure(call: "eglBindAPI(EGL_OPENGL_ES_API)", error: lastEGLError(), hint: "this EGL has no OpenGL ES")
        }
        var config: EGLConfig? = nil
        if !exts.contains("EGL_KHR_no_config_context") {
            var want: [EGLint] = [EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_NONE]
            if let shared {
                var id: EGLint = 0
                eglQueryContext(display, shared, EGL_CONFIG_ID, &id)
                want = [EGL_CONFIG_ID, id, EGL_NONE]
            }
            var n: EGLint = 0
            guard eglChooseConfig(display, want, &config, 1, &n) == EGL_TRUE, n > 0 else {
                throw GPUError.loggedEGLFailure(call: "eglChooseConfig(\(shared == nil ? "EGL_OPENGL_ES3_BIT" : "the host context's EGL_CONFIG_ID"))",
                                          error: lastEGLError(), hint: "the driver offers no OpenGL ES 3 configuration")
            }
        }
        let attributes: [EGLint] = [EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 0, EGL_NONE]
        // With EGL_EXT_create_context_robustness, ask to be told of GPU resets (the context
        // is then lost, and glGetGraphicsResetStatus says so). A share group must agree on
        // the strategy: if the host's context has none, the plain context is made instead.
        if exts.contains("EGL_EXT_create_context_robustness") {
            let robust: [EGLint] = [EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 0,
                                    EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY_EXT, EGL_LOSE_CONTEXT_ON_RESET_EXT, EGL_NONE]
            if let context = eglCreateContext(display, config, shared, robust) { return context }
        }
        guard let context = eglCreateContext(display, config, shared, attributes) else {
            throw GPUError.loggedEGLFailure(call: "eglCreateContext(OpenGL ES 3.0\(shared == nil ? "" : ", sharing with the host's context"))",
                                      error: lastEGLError(), hint: shared == nil
                                        ? "the driver cannot create an OpenGL ES 3.0 context"
                                        : "the driver refused a context in the host's share group; adopt the host's context instead (GPUDevice(adopting:))")
        }
        return context
    }
}

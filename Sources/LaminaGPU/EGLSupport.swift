import LaminaValues
import CEGL
import FoundationEssentials
import Glibc
import Synchronization

/// Names of EGL error codes, for messages.
func eglErrorName(_ code: EGLint) -> String {
    let names: [EGLint: String] = [
        EGLint(EGL_SUCCESS): "EGL_SUCCESS", EGLint(EGL_NOT_INITIALIZED): "EGL_NOT_INITIALIZED",
        EGLint(EGL_BAD_ACCESS): "EGL_BAD_ACCESS", EGLint(EGL_BAD_ALLOC): "EGL_BAD_ALLOC",
        EGLint(EGL_BAD_ATTRIBUTE): "EGL_BAD_ATTRIBUTE", EGLint(EGL_BAD_CONFIG): "EGL_BAD_CONFIG",
        EGLint(EGL_BAD_CONTEXT): "EGL_BAD_CONTEXT", EGLint(EGL_BAD_CURRENT_SURFACE): "EGL_BAD_CURRENT_SURFACE",
        EGLint(EGL_BAD_DISPLAY): "EGL_BAD_DISPLAY", EGLint(EGL_BAD_MATCH): "EGL_BAD_MATCH",
        EGLint(EGL_BAD_NATIVE_PIXMAP): "EGL_BAD_NATIVE_PIXMAP", EGLint(EGL_BAD_NATIVE_WINDOW): "EGL_BAD_NATIVE_WINDOW",
        EGLint(EGL_BAD_PARAMETER): "EGL_BAD_PARAMETER", EGLint(EGL_BAD_SURFACE): "EGL_BAD_SURFACE",
        EGLint(EGL_CONTEXT_LOST): "EGL_CONTEXT_LOST",
    ]
    return names[code] ?? "EGL error 0x\(String(code, radix: 16))"
}

func lastEGLError() -> String { eglErrorName(eglGetError()) }

/// An EGL or GL extension function, looked up once by name.
func eglProcedure<T>(_ name: String, as type: T.Type) -> T? {
    guard let p = eglGetProcAddress(name) else { return nil }
    return unsafeBitCast(p, to: type)
}

func extensionSet(_ s: UnsafePointer<CChar>?) -> Set<String> {
    guard let s else { return [] }
    return Set(String(cString: s).split(separator: " ").map(String.init))
}

func eglString(_ display: EGLDisplay?, _ name: EGLint) -> String {
    guard let s = eglQueryString(display, name) else { return "" }
    return String(cString: s)
}

/// EGL displays are per process and per native display: two `GPUDevice`s on the same
/// platform share one `EGLDisplay`, and so may any other code in the process (a host, a
/// toolkit, another library) — `eglTerminate` would destroy their contexts too, and EGL
/// 1.5 does not count initialisations. So Lamina terminates only displays on a native
/// display it created itself (its own GBM device), when its last device on it closes;
/// the process-wide device and surfaceless displays stay initialised (initialising
/// them again is free).
enum DisplayRegistry {
    private struct Key: Hashable { let platform: EGLenum; let native: UInt }
    private struct Entry { let display: UInt; var references: Int; let terminates: Bool }
    private static let entries = Locked<[Key: Entry]>([:])

    /// Gets and initialises the display; throws with the EGL error on failure.
    /// `ownsNative`: the native display is Lamina's own (terminate with the last device).
    static func acquire(platform: EGLenum, native: UnsafeMutableRawPointer?, ownsNative: Bool = false) throws -> EGLDisplay {
        let key = Key(platform: platform, native: UInt(bitPattern: native))
        let address = try entries.withLock { map -> UInt in
            if var e = map[key] {
                e.references += 1
                map[key] = e
                return e.display
            }
            guard let display = eglGetPlatformDisplay(platform, native, nil) else {
                throw GPUError.loggedEGLFailure(call: "eglGetPlatformDisplay", error: lastEGLError(), hint: "the platform is not supported by this EGL")
            }
            var major: EGLint = 0, minor: EGLint = 0
            guard eglInitialize(display, &major, &minor) == EGL_TRUE else {
                throw GPUError.loggedEGLFailure(call: "eglInitialize", error: lastEGLError(), hint: "the driver could not start on this platform")
            }
            map[key] = Entry(display: UInt(bitPattern: display), references: 1, terminates: ownsNative)
            return UInt(bitPattern: display)
        }
        return EGLDisplay(bitPattern: address)!
    }

    static func release(_ display: EGLDisplay) {
        entries.withLock { map in
            guard let (key, e) = map.first(where: { $0.value.display == UInt(bitPattern: display) }) else { return }
            if e.references > 1 {
                map[key] = Entry(display: e.display, references: e.references - 1, terminates: e.terminates)
            } else {
                map[key] = nil
                if e.terminates { eglTerminate(display) }
            }
        }
    }
}

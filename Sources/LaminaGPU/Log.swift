import LaminaValues
import CEGL
import CGLES
import FoundationEssentials
import Glibc
import Logging
import Synchronization

/// The KHR_debug callback: each message at a level by its severity.
private let debugCallback: GLDEBUGPROCKHR = { source, type, id, severity, length, message, _ in
    guard let message else { return }
    let text = length >= 0
        ? String(decoding: UnsafeRawBufferPointer(start: message, count: Int(length)), as: UTF8.self)
        : String(cString: message)
    let level: Logger.Level
    switch Int32(severity) {
    case GL_DEBUG_SEVERITY_HIGH_KHR: level = .error
    case GL_DEBUG_SEVERITY_MEDIUM_KHR: level = .warning
    case GL_DEBUG_SEVERITY_LOW_KHR: level = .info
    default: level = .debug
    }
    LaminaLog.logger.log(level: level, "GL debug: \(text)", metadata: [
        "gl.source": "\(String(source, radix: 16))", "gl.type": "\(String(type, radix: 16))", "gl.id": "\(id)",
    ])
}

extension GPUDevice {
    /// Turns on the driver's KHR_debug output into `LaminaLog` (own and shared contexts;
    /// an adopted context's debug state is the host's).
    func enableDebugOutputIfAsked() {
        guard LaminaLog.debugsGL, capabilities.khrDebug, ownership != .adopt else { return }
        guard let install = eglProcedure("glDebugMessageCallbackKHR", as: PFNGLDEBUGMESSAGECALLBACKKHRPROC.self) else {
            LaminaLog.logger.warning("LAMINA_DEBUG_GL=1 but glDebugMessageCallbackKHR is missing: no GL debug messages")
            return
        }
        _ = gl.withCurrentIfPossible {
            glEnable(GLenum(GL_DEBUG_OUTPUT_KHR))
            glEnable(GLenum(GL_DEBUG_OUTPUT_SYNCHRONOUS_KHR))
            install(debugCallback, nil)
        }
        LaminaLog.logger.info("GL debug output on (LAMINA_DEBUG_GL=1): the driver's messages are logged")
    }
}

extension GPUError {
    /// An EGL call that failed, logged (at `error`) as the error is made.
    static func loggedEGLFailure(call: String, error: String, hint: String) -> GPUError {
        let e = GPUError.eglFailure(call: call, error: error, hint: hint)
        LaminaLog.logger.error("\(e)")
        return e
    }
}

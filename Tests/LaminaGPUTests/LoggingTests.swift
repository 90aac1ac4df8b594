import CGLES
import Foundation
import LaminaGeometry
import Logging
import LaminaValues
import Testing
@testable import LaminaGPU

/// A swift-log handler that keeps what it is given. Any thread logs into it (a device made
/// by a test running beside these logs "backend chosen"): its lines are `Locked` (a pthread
/// mutex ThreadSanitizer sees; with `Mutex`'s futex it reported two threads' appends as a race).
final class CapturingLogHandler: LogHandler, @unchecked Sendable {
    let lines = Locked<[(Logger.Level, String)]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        lines.withLock { $0.append((event.level, "\(event.message)")) }
    }
    func messages(_ level: Logger.Level? = nil) -> [String] {
        lines.withLock { $0.filter { level == nil || $0.0 == level! }.map(\.1) }
    }
}

// Serialized: each test swaps `LaminaLog.logger`, one process-wide logger, for a capturing
// one and reads what was logged meanwhile (tests of one suite at once would log into
// each other's capture).
@Suite("Logging (swift-log)", .serialized)
struct LoggingTests {
    @Test("the backend chosen, shader compiler errors and — with LAMINA_DEBUG_GL=1 — the driver's KHR_debug messages go to LaminaLog.logger")
    func logsThroughSwiftLog() throws {
        let handler = CapturingLogHandler()
        let saved = LaminaLog.logger
        LaminaLog.logger = Logger(label: "lamina-test", factory: { _ in handler })
        setenv("LAMINA_DEBUG_GL", "1", 1)
        defer { LaminaLog.logger = saved; unsetenv("LAMINA_DEBUG_GL") }
        let device = try GPUDevice()
        defer { device.close() }
        let info = handler.messages(.info)
        #expect(info.contains { $0.hasPrefix("backend \(device.backend) chosen") }, "\(info)")
        #expect(info.contains { $0.hasPrefix("GPU device: ") && $0.contains(device.capabilities.glRenderer) })

        #expect(throws: GPUError.self) {
            try device.makeProgram(vertexSource: "#version 300 es\nvoid main() { gl_Position = vec4(0); }", vertexName: "ok.vert",
                                   fragmentSource: "#version 300 es\nvoid main() { undefined_thing(); }", fragmentName: "broken.frag")
        }
        #expect(handler.messages(.error).contains { $0.hasPrefix("shader broken.frag failed to compile") }, "\(handler.messages(.error))")

        // An EGL failure (a context that is not one: EGL_BAD_CONTEXT) is logged as it is thrown.
        #expect(throws: GPUError.self) {
            _ = try GPUDevice(adopting: .context(display: UnsafeMutableRawPointer(device.display), context: UnsafeMutableRawPointer(bitPattern: 0x4c41)!))
        }
        #expect(handler.messages(.error).contains { $0.contains("eglQueryContext") }, "\(handler.messages(.error))")

        // (Mesa has KHR_debug on every driver: this machine's llvmpipe included.)
        try #require(device.capabilities.khrDebug, "GL_KHR_debug missing from \(device.capabilities.glRenderer)")
        do {
            #expect(info.contains { $0.contains("GL debug output on") })
            // A GL error of our own making: the driver reports it through KHR_debug.
            try device.withContext {
                glBindTexture(GLenum(0x1234), 0)
                _ = glGetError()
            }
            #expect(handler.messages().contains { $0.hasPrefix("GL debug: ") }, "\(handler.messages())")
        }
    }
}

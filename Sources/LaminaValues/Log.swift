import FoundationEssentials
import Glibc
import Logging

/// Where Lamina logs (swift-log): what backend was chosen and why others were not, EGL and
/// GL errors, the driver's KHR_debug messages (with `LAMINA_DEBUG_GL=1`), shader compiler
/// logs. The library itself never prints. Pick the backend as for any swift-log user —
/// `LoggingSystem.bootstrap(…)` once at start — or give Lamina a logger of its own:
/// `LaminaLog.logger = Logger(label: "…", factory: …)`.
public enum LaminaLog {
    private static let storage = Locked({
        var logger = Logger(label: "lamina")
        // Quiet unless asked: warnings and errors by default, LAMINA_LOG_LEVEL=info|debug|trace for more.
        let asked = ProcessInfo.processInfo.environment["LAMINA_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0.lowercased()) }
        logger.logLevel = asked ?? .warning
        return logger
    }())

    /// The logger Lamina's modules log through (label "lamina"; level `warning` unless
    /// `LAMINA_LOG_LEVEL` says otherwise).
    public static var logger: Logger {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    /// `LAMINA_DEBUG_GL=1`: the driver's KHR_debug messages are logged (synchronously, at
    /// the GL call that caused them), with GL_DEBUG_OUTPUT on Lamina's own contexts.
    public static var debugsGL: Bool { ProcessInfo.processInfo.environment["LAMINA_DEBUG_GL"] == "1" }
}


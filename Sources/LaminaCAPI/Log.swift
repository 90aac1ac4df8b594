import CLamina
import Logging
import LaminaValues

// lamina_set_log_handler and lamina_set_log_level: Lamina's logger (`LaminaLog.logger`, read
// at every message) replaced by one that calls the C function, or by the standard-error one.

/// The C handler and its user data (called from any thread that logs).
private struct CLogHandler: LogHandler {
    let function: lamina_log_fn
    nonisolated(unsafe) let userData: UnsafeMutableRawPointer?
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var text = event.message.description
        let all = metadata.merging(event.metadata ?? [:]) { _, new in new }
        if !all.isEmpty { text += " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
        text.withCString { function(event.level.cLevel, $0, userData) }
    }
}

extension Logger.Level {
    var cLevel: lamina_log_level {
        switch self {
        case .trace: LAMINA_LOG_TRACE
        case .debug: LAMINA_LOG_DEBUG
        case .info: LAMINA_LOG_INFO
        case .notice: LAMINA_LOG_NOTICE
        case .warning: LAMINA_LOG_WARNING
        case .error: LAMINA_LOG_ERROR
        case .critical: LAMINA_LOG_CRITICAL
        }
    }

    init?(_ c: lamina_log_level) {
        switch c {
        case LAMINA_LOG_TRACE: self = .trace
        case LAMINA_LOG_DEBUG: self = .debug
        case LAMINA_LOG_INFO: self = .info
        case LAMINA_LOG_NOTICE: self = .notice
        case LAMINA_LOG_WARNING: self = .warning
        case LAMINA_LOG_ERROR: self = .error
        case LAMINA_LOG_CRITICAL: self = .critical
        default: return nil
        }
    }
}

/// Messages below the level set are dropped; `off` drops every one (swift-log has no level
/// above critical: a handler that drops).
private struct SilentLogHandler: LogHandler {
    var logLevel: Logger.Level = .critical
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? { get { nil } set {} }
    func log(event: LogEvent) {}
}

/// What the C caller asked for, so that the level and the handler can be set in either order.
@MainActor private var logHandler: (function: lamina_log_fn, userData: UnsafeMutableRawPointer?)?
@MainActor private var logLevel: lamina_log_level?

@MainActor private func applyLogSettings() {
    let level = logLevel ?? LaminaLog.logger.logLevel.cLevel
    if level == LAMINA_LOG_OFF {
        LaminaLog.logger = Logger(label: "lamina") { _ in SilentLogHandler() }
        return
    }
    let swiftLevel = Logger.Level(level) ?? .warning
    if let (function, userData) = logHandler {
        nonisolated(unsafe) let userData = userData
        LaminaLog.logger = Logger(label: "lamina") { _ in CLogHandler(function: function, userData: userData, logLevel: swiftLevel) }
    } else {
        var logger = Logger(label: "lamina") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = swiftLevel
        LaminaLog.logger = logger
    }
}

@_cdecl("lamina_set_log_handler")
public func c_set_log_handler(_ handler: lamina_log_fn?, _ userData: UnsafeMutableRawPointer?) -> lamina_status {
    nonisolated(unsafe) let userData = userData
    return call("lamina_set_log_handler") {
        logHandler = handler.map { ($0, userData) }
        applyLogSettings()
    }
}

@_cdecl("lamina_set_log_level") public func c_set_log_level(_ level: lamina_log_level) -> lamina_status {
    call("lamina_set_log_level") {
        guard level == LAMINA_LOG_OFF || Logger.Level(level) != nil else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "unknown log level \(level.rawValue): use LAMINA_LOG_TRACE … LAMINA_LOG_CRITICAL, or LAMINA_LOG_OFF")
        }
        logLevel = level
        applyLogSettings()
    }
}

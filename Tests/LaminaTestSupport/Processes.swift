import Foundation
import Glibc

/// Runs a program to completion; returns its exit status and its standard output and
/// error, interleaved. `environment` nil: this process's. With `timeout`, a program still
/// running after that many seconds is killed and the call throws, with what it printed.
/// `errorsAside`: standard error goes to `errorsAside` (a file path) instead, and the
/// output is the standard output alone (a report to parse, whatever a driver logs).
public func runProcess(_ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
                       timeout: Double? = nil, errorsAside: String? = nil) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let pipe = Pipe()
    process.standardOutput = pipe
    if let errorsAside {
        guard FileManager.default.createFile(atPath: errorsAside, contents: nil),
              let file = FileHandle(forWritingAtPath: errorsAside) else { throw CocoaError(.fileWriteUnknown) }
        process.standardError = file
    } else {
        process.standardError = pipe
    }
    try process.run()
    // Read while waiting: a program that fills the pipe's buffer (64 KB) would block until killed.
    let reader = PipeReader(pipe.fileHandleForReading)
    if let timeout {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning {
            // Children of Foundation's Process inherit a mask that blocks SIGTERM: kill.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let output = String(decoding: reader.wait(), as: UTF8.self)
            throw ProcessTimeout(command: ([executable] + arguments).joined(separator: " "), seconds: timeout, output: output)
        }
    }
    let output = String(decoding: reader.wait(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, output)
}

/// A pipe read to its end on a thread of its own.
private final class PipeReader: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var data = Data()   // (written before `done` is signalled, read after)

    init(_ handle: FileHandle) {
        DispatchQueue.global().async {
            self.data = handle.readDataToEndOfFile()
            self.done.signal()
        }
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}

/// A program run by `runProcess` did not finish in time.
public struct ProcessTimeout: Error, CustomStringConvertible {
    public var command: String
    public var seconds: Double
    public var output: String
    public var description: String { "`\(command)` did not finish within \(seconds) s (killed); it printed:\n\(output)" }
}

import CRunLoop
import Dispatch
import Foundation
import LaminaTestSupport
import Glibc
import Testing
@testable import LaminaCore
@testable import LaminaModel
@testable import LaminaRender
@testable import LaminaValues

/// A host's own epoll set watching one descriptor (the loop's), as an embedding program has.
private final class HostEpoll {
    let fd: Int32

    init(watching descriptor: Int32) throws {
        fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        try #require(fd >= 0)
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = 7
        try #require(epoll_ctl(fd, EPOLL_CTL_ADD, descriptor, &event) == 0)
    }

    deinit { close(fd) }

    /// Whether the watched descriptor is readable within `seconds` (0: now).
    func readable(within seconds: Double = 0) -> Bool {
        var event = epoll_event()
        var n: Int32
        repeat { n = epoll_wait(fd, &event, 1, Int32((seconds * 1000).rounded(.up))) } while n < 0 && errno == EINTR
        return n == 1 && event.data.u64 == 7 && event.events & EPOLLIN.rawValue != 0
    }
}

@MainActor
private final class Box<Value> {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// A pipe, closed at the end of the test.
private final class TestPipe {
    let read: Int32, write: Int32
    init() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        read = fds[0]; write = fds[1]
    }
    deinit { close(read); close(write) }
    func send() { var byte: UInt8 = 1; _ = Glibc.write(write, &byte, 1) }
    func receive() -> Int { var buffer = [UInt8](repeating: 0, count: 16); return Glibc.read(read, &buffer, 16) }
}

@MainActor
@Suite("Run loop: one descriptor")
struct RunLoopTests {
    @Test("a timer fires through the single descriptor under the test's own epoll: not before it is due, exactly once; a repeating one re-arms")
    func timerThroughDescriptor() throws {
        let loop = try MainLoop()
        let host = try HostEpoll(watching: loop.descriptor)
        let fired = Box(0)
        let start = MainLoop.now()
        loop.addTimer(after: 0.2) { fired.value += 1 }
        #expect(!host.readable(), "not readable before the timer is due")
        #expect(host.readable(within: 5), "readable once it is due")
        #expect(MainLoop.now() - start >= 0.2, "not before it is due")
        #expect(fired.value == 0, "the host only learns the descriptor is readable; the handler runs in dispatch()")
        try loop.dispatch()
        #expect(fired.value == 1)
        #expect(!host.readable(), "nothing due any more")
        try loop.dispatch()
        #expect(fired.value == 1, "a one-shot timer fires once")
        #expect(loop.timeout == nil)

        let ticks = Box(0)
        let repeating = loop.addTimer(after: 0.05, repeating: 0.05) { ticks.value += 1 }
        for tick in 1...3 {
            #expect(host.readable(within: 5), "tick \(tick): readable again (re-armed)")
            try loop.dispatch()
            #expect(ticks.value == tick)
        }
        loop.cancelTimer(repeating)
        #expect(!host.readable(within: 0.15), "cancelled: no more ticks")
        #expect(ticks.value == 3)
    }

    @Test("cancelling the only timer leaves the descriptor unreadable (even when it was due); timeout agrees")
    func cancelledTimer() throws {
        let loop = try MainLoop()
        let host = try HostEpoll(watching: loop.descriptor)
        #expect(loop.timeout == nil, "nothing scheduled")
        let due = loop.addTimer(after: 0) { Issue.record("a cancelled timer fired") }
        #expect(host.readable(within: 5), "due at once")
        #expect(loop.timeout == 0)
        loop.cancelTimer(due)
        #expect(!host.readable())
        #expect(loop.timeout == nil)

        let later = loop.addTimer(after: 0.05) { Issue.record("a cancelled timer fired") }
        let timeout = try #require(loop.timeout)
        #expect(timeout > 0 && timeout <= 0.05)
        loop.cancelTimer(later)
        #expect(!host.readable(within: 0.15), "it would have been due by now")
        #expect(loop.timeout == nil)
        try loop.dispatch()

        // Of two timers, cancelling the earlier re-arms for the later.
        let first = loop.addTimer(after: 0.02) { Issue.record("a cancelled timer fired") }
        let fired = Box(false)
        loop.addTimer(after: 0.1) { fired.value = true }
        loop.cancelTimer(first)
        let remaining = try #require(loop.timeout)
        #expect(remaining > 0.05 && remaining <= 0.1)
        #expect(host.readable(within: 5))
        try loop.dispatch()
        #expect(fired.value)
    }

    @Test("a pipe source becomes ready through the descriptor; sources sharing a descriptor; removal")
    func pipeSource() throws {
        let loop = try MainLoop()
        let host = try HostEpoll(watching: loop.descriptor)
        let pipe = try TestPipe()
        let calls = Box<[String]>([])
        let reader = try loop.addSource(fd: pipe.read) { fd, revents in
            calls.value.append("reader fd=\(fd == pipe.read) POLLIN=\(revents & Int16(POLLIN) != 0) read \(pipe.receive())")
        }
        let watcher = try loop.addSource(fd: pipe.read) { _, _ in calls.value.append("watcher") }
        #expect(!host.readable(), "nothing written")
        #expect(loop.timeout == nil, "no timer: wait for the descriptor alone")
        pipe.send()
        #expect(host.readable(within: 5))
        #expect(loop.timeout == 0)
        try loop.dispatch()
        #expect(calls.value == ["reader fd=true POLLIN=true read 1", "watcher"])
        #expect(!host.readable(), "the reader drained the pipe")

        loop.removeSource(reader)
        pipe.send()
        #expect(host.readable(within: 5), "still watched by the other source")
        try loop.dispatch()
        #expect(calls.value.last == "watcher")
        loop.removeSource(watcher)
        #expect(!host.readable(), "no source watches the pipe any more, though a byte is waiting")
        try loop.dispatch()
        #expect(calls.value.count == 3)
    }

    @Test("a source that cannot be watched throws, saying what to do")
    func badSource() throws {
        let loop = try MainLoop()
        let file = open("/proc/self/stat", O_RDONLY | O_CLOEXEC)
        defer { close(file) }
        do {
            try loop.addSource(fd: file) { _, _ in }
            Issue.record("a regular file was accepted as a source")
        } catch let error as RunLoopError {
            #expect(error.code == EPERM)
            #expect("\(error)".contains("cannot be waited on"), "\(error)")
        }
        #expect(throws: RunLoopError.self) { try loop.addSource(fd: -1) { _, _ in } }
    }

    @Test("post from other threads wakes the descriptor and runs on the main actor in dispatch(); wakeUp wakes it")
    func postFromOtherThreads() throws {
        let loop = try MainLoop()
        let host = try HostEpoll(watching: loop.descriptor)
        let ran = Box<[String]>([])
        let testThread = pthread_self()
        let inDispatch = Box(false)
        Thread.detachNewThread { [loop] in
            loop.post {
                ran.value.append("posted, in dispatch: \(inDispatch.value), on the test's thread: \(pthread_equal(pthread_self(), testThread) != 0)")
            }
        }
        #expect(host.readable(within: 5), "the post woke the descriptor")
        #expect(ran.value.isEmpty, "posted blocks wait for a turn")
        inDispatch.value = true
        try loop.dispatch()
        inDispatch.value = false
        #expect(ran.value == ["posted, in dispatch: true, on the test's thread: true"])
        #expect(!host.readable(), "nothing left")

        // Many threads at once: every block runs, once.
        let numbers = Box<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 200) { [loop] i in loop.post { numbers.value.append(i) } }
        #expect(host.readable())
        try loop.dispatch()
        #expect(numbers.value.sorted() == Array(0..<200))
        #expect(!host.readable())

        // wakeUp alone: one turn, then quiet.
        let turns = loop.turns
        DispatchQueue.global().async { [loop] in loop.wakeUp() }
        #expect(host.readable(within: 5))
        try loop.dispatch()
        #expect(loop.turns == turns + 1)
        #expect(!host.readable())
    }

    @Test("perform wakes the descriptor; blocks queued by blocks run in the next turn")
    func performedBlocks() throws {
        let loop = try MainLoop()
        let host = try HostEpoll(watching: loop.descriptor)
        let log = Box<[String]>([])
        loop.perform {
            log.value.append("first")
            loop.perform { log.value.append("second") }
        }
        #expect(host.readable())
        #expect(loop.timeout == 0)
        try loop.runFrame()
        #expect(log.value == ["first"])
        #expect(host.readable(), "the block queued by the block")
        try loop.runFrame()
        #expect(log.value == ["first", "second"])
        #expect(!host.readable())
        #expect(loop.timeout == nil)
    }

    @Test("runOnce waits on the descriptor: a post from another thread ends the wait")
    func runOnceWakes() throws {
        let loop = try MainLoop()
        let ran = Box(false)
        let start = MainLoop.now()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { [loop] in loop.post { ran.value = true } }
        try loop.runOnce(timeout: 30)
        #expect(ran.value)
        #expect(MainLoop.now() - start < 20, "woken by the post, not the time-out")
    }

    @Test("timer and display-link values that are not numbers or not positive are sanitised as Foundation and Core Animation do, never a trap")
    func sanitisedTimes() throws {
        let loop = try MainLoop()
        let host = try HostEpoll(watching: loop.descriptor)
        let fired = Box(0)
        loop.addTimer(after: .nan) { fired.value += 1 }               // now
        #expect(host.readable(within: 5))
        try loop.dispatch()
        #expect(fired.value == 1)
        let ticks = Box(0)
        for interval in [0, -1, Double.nan] {
            ticks.value = 0
            let t = loop.addTimer(after: 0, repeating: interval) { ticks.value += 1 }   // every 0.1 ms
            for _ in 0..<3 {
                #expect(host.readable(within: 5))
                try loop.dispatch()
            }
            loop.cancelTimer(t)
            #expect(ticks.value == 3, "interval \(interval)")
        }
        #expect(DisplayLink(loop: loop, framesPerSecond: 0) { _ in }.framesPerSecond == 60)
        #expect(DisplayLink(loop: loop, framesPerSecond: .nan) { _ in }.framesPerSecond == 60)
        #expect(DisplayLink(loop: loop, framesPerSecond: .infinity) { _ in }.framesPerSecond == 10_000)
    }

    @Test("stop() ends the innermost run only: a run nested in a turn's handler returns, the outer one goes on; a NaN time-out does not wait")
    func nestedStop() throws {
        let loop = try MainLoop()
        var log: [String] = []
        var ticks = 0
        let timer = loop.addTimer(after: 0.001, repeating: 0.001) { ticks += 1 }
        loop.perform {
            log.append("inner run")
            loop.perform { loop.stop() }
            try? loop.run()
            log.append("inner returned")
        }
        try loop.run { ticks >= 20 }
        loop.cancelTimer(timer)
        #expect(log == ["inner run", "inner returned"])
        #expect(ticks >= 20, "the outer run went on after the inner one stopped")
        let start = MainLoop.now()
        try loop.runOnce(timeout: .nan)
        #expect(MainLoop.now() - start < 1)
    }

    @Test("in the test process Dispatch owns the main thread: the loop does not drain the main queue, and waits without spinning")
    func mainQueueOwnedByDispatch() throws {
        let loop = try MainLoop()
        #expect(!loop.drainsMainQueue, "the test runner called dispatchMain(); see lamina-runloop-probe for the other case")
        let ran = Box(false)
        DispatchQueue.main.async { MainActor.assumeIsolated { ran.value = true } }   // waits for this test to end
        let turns = loop.turns, start = MainLoop.now()
        try loop.runOnce(timeout: 0.05)
        #expect(loop.turns == turns + 1)
        #expect(MainLoop.now() - start >= 0.05, "the main queue's work does not wake this loop")
        #expect(!ran.value)
        try loop.run()   // returns: nothing this loop could run
    }

    @Test("Dispatch main-queue work and a @MainActor task run inside MainLoop.run() (lamina-runloop-probe, synchronous top-level code)")
    func mainQueueInsideRun() throws {
        let probe = try #require(probeExecutable(), "lamina-runloop-probe was not built next to the tests (looked in \(probeDirectories().map(\.path))); run swift build --build-tests")
        let (status, output) = try runProcess(probe.path)
        #expect(status == 0, "\(output)")
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines == [
            "drains the main queue: true",
            "run() starts",
            "1. DispatchQueue.main.async block (main thread: true, inside run(): true)",
            "2. @MainActor task started (main thread: true, inside run(): true)",
            "3. @MainActor task resumed after Task.sleep (main thread: true, inside run(): true)",
            "4. background work item hopped to DispatchQueue.main (main thread: true, inside run(): true)",
            "5. MainLoop.post from a background thread (main thread: true, inside run(): true)",
            "6. MainLoop timer (main thread: true, inside run(): true)",
            "run() returned after 6 events",
        ], "\(output)")
    }
}

/// Where `swift build --build-tests` puts the probe: next to the test bundle.
private func probeDirectories() -> [URL] {
    var directories: [URL] = []
    if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        directories.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
    }
    directories.append(Bundle.main.bundleURL.deletingLastPathComponent())
    directories.append(Bundle.main.bundleURL)
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    directories.append(root.appendingPathComponent(".build/debug"))
    return directories
}

private func probeExecutable() -> URL? {
    probeDirectories().map { $0.appendingPathComponent("lamina-runloop-probe") }
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }
}


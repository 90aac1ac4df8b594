import CRunLoop
import FoundationEssentials
import Glibc
import Synchronization
import LaminaValues

/// A run loop: file-descriptor sources, timers, queued blocks, blocks posted from other
/// threads and the Dispatch main queue, with a commit at the end of every turn
/// (`Transaction.commitIfNeeded()`): what makes changes of one turn appear together.
///
/// Everything the loop waits for shows on **one descriptor**, `descriptor` (an epoll set):
/// it is readable whenever a turn has work — a source is ready, a timer is due (one
/// `timerfd`), a block was queued or posted (an `eventfd`), or the Dispatch main queue has
/// work. Use the loop standalone (`run(until:)`, `runOnce(timeout:)`), or embed it:
/// register `descriptor` once with your epoll set, GLib or event loop and call
/// `dispatch()` when it is readable; a host that drives frames itself calls `runFrame()`
/// once per frame.
///
/// The loop belongs to the main actor; only `post(_:)` and `wakeUp()` may be called from
/// other threads.
@MainActor
public final class MainLoop {
    /// The program's loop (created on first use). Creating it traps — with the error's
    /// message, which release builds print — when the process cannot get the loop's three
    /// descriptors (see `init()`; out of file descriptors or kernel memory): without them
    /// the program cannot run a turn at all, and a `static let` cannot throw. Programs that
    /// must survive that create their own loop with `try MainLoop()`.
    public static let main: MainLoop = {
        do { return try MainLoop() } catch { fatalError("\(error)") }
    }()

    /// Identifies a source or a timer (for `removeSource(_:)`, `cancelTimer(_:)`).
    public typealias Token = Int

    private struct Source { let fd: Int32; let events: Int16; let handler: (Int32, Int16) -> Void }
    /// `due` and `interval` in nanoseconds of `CLOCK_MONOTONIC`, the clock of the timerfd.
    private struct TimerEntry { var due: Int64; let interval: Int64?; let handler: () -> Void }

    /// `epoll_event.data` of the loop's own descriptors; sources carry their fd (≥ 0).
    private enum Tag {
        static let timer = UInt64.max
        static let wake = UInt64.max - 1
        static let mainQueue = UInt64.max - 2
    }

    /// The epoll set: readable whenever a turn has work.
    public nonisolated let descriptor: Int32
    /// Armed (absolute, `CLOCK_MONOTONIC`) to the earliest due timer; disarmed without timers.
    private nonisolated let timerFD: Int32
    /// Written by `perform`, `post` and `wakeUp`; read by the turn that runs the blocks.
    private nonisolated let wakeFD: Int32
    /// The Dispatch main queue's eventfd when this loop drains the queue (see `drainsMainQueue`).
    private var mainQueueHandle: Int32?

    private var sources: [Token: Source] = [:]
    /// The epoll events registered for each source descriptor (the union of its sources').
    private var registered: [Int32: UInt32] = [:]
    private var timers: [Token: TimerEntry] = [:]
    /// What the timerfd is armed to (nil: disarmed). Always the earliest `due` of `timers`.
    private var armedDeadline: Int64?
    private var queued: [() -> Void] = []
    private nonisolated let posted = Locked<[@Sendable @MainActor () -> Void]>([])
    private var nextToken = 1
    /// How many `run(until:)` calls are running (nested ones too), and the depth `stop()`
    /// asked to end: only the innermost run returns.
    private var runDepth = 0
    private var stopDepth: Int?

    /// Turns completed so far.
    public private(set) var turns = 0
    /// Called with errors of end-of-turn commits, and the loop goes on; without a handler
    /// the turn (and `run()`) throws them.
    public var commitErrorHandler: ((Error) -> Void)?

    /// Whether this loop's turns run the Dispatch main queue — `DispatchQueue.main` blocks
    /// and `@MainActor` tasks — and its descriptor wakes for them. True when the loop was
    /// created on the main thread of a program that keeps its main thread: synchronous
    /// top-level code (or a C `main`) calling `run()`, `dispatch()` or `runFrame()`. False
    /// when the main thread was handed to Dispatch (an `async` main, or a test runner,
    /// calls `dispatchMain()`): Dispatch then runs the main queue itself, on other threads,
    /// and only once the code running the loop returns or awaits (`run()` holds the main
    /// actor while it runs).
    public var drainsMainQueue: Bool { mainQueueHandle != nil }

    /// Creates a loop with its epoll set, timerfd and eventfd. Throws `RunLoopError` when
    /// the process is out of descriptors (or memory).
    public init() throws {
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw RunLoopError(operation: "epoll_create1 (the loop's descriptor)", code: errno) }
        let timer = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        guard timer >= 0 else {
            let code = errno
            close(epoll)
            throw RunLoopError(operation: "timerfd_create (the loop's timer)", code: code)
        }
        let wake = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wake >= 0 else {
            let code = errno
            close(epoll); close(timer)
            throw RunLoopError(operation: "eventfd (the loop's wake-up)", code: code)
        }
        for (fd, tag) in [(timer, Tag.timer), (wake, Tag.wake)] {
            var event = epoll_event()
            event.events = EPOLLIN.rawValue
            event.data.u64 = tag
            guard epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) == 0 else {
                let code = errno
                close(epoll); close(timer); close(wake)
                throw RunLoopError(operation: "epoll_ctl (adding the loop's own descriptors)", code: code)
            }
        }
        descriptor = epoll
        timerFD = timer
        wakeFD = wake
        // The main queue's eventfd, when the main thread still owns the queue (-1 after
        // dispatch_main()); re-entrant draining is only allowed on the main thread.
        if lamina_is_main_thread() != 0 {
            let handle = _dispatch_get_main_queue_handle_4CF()
            var event = epoll_event()
            event.events = EPOLLIN.rawValue
            event.data.u64 = Tag.mainQueue
            if handle >= 0 && epoll_ctl(epoll, EPOLL_CTL_ADD, handle, &event) == 0 {
                mainQueueHandle = handle
            }
        }
    }

    deinit {
        // The main queue's handle belongs to libdispatch: closing the epoll set drops it.
        close(descriptor)
        close(timerFD)
        close(wakeFD)
    }

    /// Seconds on a monotonic clock (`CLOCK_MONOTONIC`, the timers' clock); callable from
    /// any thread.
    public nonisolated static func now() -> Double { MonotonicClock.now() }

    private nonisolated static func nanosecondsNow() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// `seconds` in nanoseconds, within 0…~31 years.
    private static func nanoseconds(_ seconds: Double) -> Int64 {
        Int64((min(max(seconds, 0), 1e9) * 1e9).rounded(.up))
    }

    // MARK: Sources, timers, blocks

    /// Calls `handler(fd, revents)` in each turn while `fd` is ready for `events` (`POLLIN`,
    /// `POLLOUT`…, level-triggered; errors and hang-ups are always reported). Several sources
    /// may watch one descriptor. Remove the source before closing `fd`. Throws
    /// `RunLoopError` when `fd` cannot be watched (not open, or a regular file).
    @discardableResult
    public func addSource(fd: Int32, events: Int16 = Int16(POLLIN), handler: @escaping (Int32, Int16) -> Void) throws -> Token {
        let wanted = (registered[fd] ?? 0) | UInt32(UInt16(bitPattern: events))
        try register(fd, events: wanted, existing: registered[fd] != nil)
        let t = take()
        sources[t] = Source(fd: fd, events: events, handler: handler)
        return t
    }

    /// Stops calling a source's handler (from the next ready descriptor on, even in this turn).
    public func removeSource(_ token: Token) {
        guard let source = sources.removeValue(forKey: token) else { return }
        let rest = sources.values.filter { $0.fd == source.fd }
        if rest.isEmpty {
            registered[source.fd] = nil
            var event = epoll_event()
            _ = epoll_ctl(descriptor, EPOLL_CTL_DEL, source.fd, &event)   // gone already if the fd was closed
        } else {
            let wanted = rest.reduce(UInt32(0)) { $0 | UInt32(UInt16(bitPattern: $1.events)) }
            try? register(source.fd, events: wanted, existing: true)
        }
    }

    private func register(_ fd: Int32, events: UInt32, existing: Bool) throws {
        var event = epoll_event()
        event.events = events
        event.data.u64 = UInt64(UInt32(bitPattern: fd))
        // A descriptor closed since (and perhaps reopened) has left the set: add it again.
        if existing && epoll_ctl(descriptor, EPOLL_CTL_MOD, fd, &event) == 0 {
            registered[fd] = events
            return
        }
        guard epoll_ctl(descriptor, EPOLL_CTL_ADD, fd, &event) == 0 else {
            throw RunLoopError(operation: "epoll_ctl(EPOLL_CTL_ADD) of source descriptor \(fd)", code: errno)
        }
        registered[fd] = events
    }

    /// Calls `handler` after `delay` seconds, then every `interval` seconds if given (keeping
    /// the cadence; missed ticks are skipped, not burst). A timer added by a handler runs in
    /// a later turn at the earliest.
    ///
    /// As Foundation's `Timer`: a delay that is negative or not a number is 0 (the next
    /// turn); a repeat interval that is not positive (or not a number) is 0.1 ms; times
    /// beyond ~31 years (infinite ones included) are ~31 years.
    @discardableResult
    public func addTimer(after delay: Double, repeating interval: Double? = nil, handler: @escaping () -> Void) -> Token {
        let delay = delay.isNaN ? 0 : delay
        let interval = interval.map { $0 > 0 ? $0 : 0.0001 }   // NaN > 0 is false
        let t = take()
        timers[t] = TimerEntry(due: Self.nanosecondsNow() + Self.nanoseconds(delay),
                               interval: interval.map { max(1, Self.nanoseconds($0)) }, handler: handler)
        rearm()
        return t
    }

    /// Cancels a timer: its handler is not called any more, even if it is due in this turn.
    public func cancelTimer(_ token: Token) {
        guard timers.removeValue(forKey: token) != nil else { return }
        rearm()
    }

    /// Runs `block` in a turn, before its commit: the current one when called from a source
    /// or timer handler (blocks are taken after those), else the next one; called from
    /// inside a block, in the turn after.
    public func perform(_ block: @escaping () -> Void) {
        queued.append(block)
        if queued.count == 1 { wakeUp() }
    }

    /// Runs `block` on the main actor in the loop's next turn: callable from any thread
    /// (thread-safe), and wakes the descriptor.
    public nonisolated func post(_ block: @escaping @Sendable @MainActor () -> Void) {
        let first = posted.withLock { list in
            list.append(block)
            return list.count == 1   // otherwise the poster of the first has woken the loop
        }
        if first { wakeUp() }
    }

    /// Makes the descriptor readable, so that a waiting `run()`/`runOnce()` (or the host's
    /// wait) returns and runs a turn: callable from any thread (thread-safe).
    public nonisolated func wakeUp() {
        while eventfd_write(wakeFD, 1) != 0 && errno == EINTR {}
    }

    private func take() -> Token { defer { nextToken += 1 }; return nextToken }

    /// Arms the timerfd to the earliest due timer (disarms it without timers) when that
    /// changed, or when `force`d. Setting the timerfd also clears its expirations, so the
    /// descriptor is readable for timers exactly while the earliest timer is due.
    private func rearm(force: Bool = false) {
        let earliest = timers.values.lazy.map(\.due).min()
        guard force || earliest != armedDeadline else { return }
        var spec = itimerspec()   // zero: disarmed
        if let earliest {
            spec.it_value.tv_sec = Int(earliest / 1_000_000_000)
            spec.it_value.tv_nsec = Int(earliest % 1_000_000_000)
        }
        if timerfd_settime(timerFD, Int32(TFD_TIMER_ABSTIME), &spec, nil) != 0 {
            // Impossible through the API: the timerfd is the loop's own (never closed while
            // the loop lives) and the time a valid absolute one (due times are clamped to
            // 0…~31 years from now). A trap whose message release builds print.
            fatalError("\(RunLoopError(operation: "timerfd_settime", code: errno))")
        }
        armedDeadline = earliest
    }

    // MARK: Embedding

    /// Whether `descriptor` is readable now: a turn has work.
    private var isReadable: Bool {
        var p = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) > 0
    }

    /// Seconds until something is due: 0 when a turn has work now (queued or posted blocks,
    /// a ready source, a due timer, Dispatch main-queue work), nil when no timer is
    /// scheduled (wait for the descriptor alone). For hosts that wait with a timeout of
    /// their own rather than on `descriptor`.
    public var timeout: Double? {
        if !queued.isEmpty || isReadable { return 0 }
        guard let due = timers.values.lazy.map(\.due).min() else { return nil }
        return Double(max(0, due - Self.nanosecondsNow())) / 1e9
    }

    /// One turn — call it when `descriptor` became readable, or once per frame. Runs, in
    /// order: the handlers of ready sources, due timers (a timer cancelled by an earlier
    /// handler of the turn does not fire), blocks posted from other threads, queued blocks,
    /// the Dispatch main queue (when `drainsMainQueue`), then the commit. Never waits.
    /// Throws the commit's errors (unless `commitErrorHandler` takes them).
    public func dispatch() throws {
        var readySources: [(fd: Int32, revents: UInt32)] = []
        var timerReady = false, woken = false, mainQueueReady = false
        let capacity = registered.count + 3
        withUnsafeTemporaryAllocation(of: epoll_event.self, capacity: capacity) { events in
            let n = Int(epoll_wait(descriptor, events.baseAddress, Int32(capacity), 0))
            for event in events.prefix(max(0, n)) {
                switch event.data.u64 {
                case Tag.timer: timerReady = true   // which timers are due, the clock says below
                case Tag.wake: woken = true
                case Tag.mainQueue: mainQueueReady = true
                case let fd: readySources.append((Int32(truncatingIfNeeded: fd), event.events))
                }
            }
        }

        // Sources. (Removing the last source of a descriptor drops it from the set, so a
        // source removed by an earlier handler is skipped here.)
        for (fd, revents) in readySources {
            let watching = sources.filter { $0.value.fd == fd }.sorted { $0.key < $1.key }
            for (token, source) in watching {
                guard sources[token] != nil else { continue }   // removed by an earlier handler
                let interest = UInt32(UInt16(bitPattern: source.events)) | EPOLLERR.rawValue | EPOLLHUP.rawValue
                guard revents & interest != 0 else { continue }
                source.handler(fd, Int16(truncatingIfNeeded: revents))
            }
        }

        // Timers, by the clock (the timerfd may fire a few microseconds after `due`).
        let now = Self.nanosecondsNow()
        let due = timers.filter { $0.value.due <= now }.sorted { ($0.value.due, $0.key) < ($1.value.due, $1.key) }
        for (token, timer) in due {
            guard timers[token] != nil else { continue }   // cancelled by an earlier handler this turn
            if let interval = timer.interval {
                // Keep the cadence; skip missed ticks rather than bursting.
                var next = timer.due + interval
                if next <= now { next = now + interval - (now - timer.due) % interval }
                timers[token]?.due = next
            } else {
                timers[token] = nil
            }
            timer.handler()
        }
        rearm(force: timerReady)   // setting the timerfd clears its expirations

        // Blocks. Clear the eventfd before taking the posted blocks: a post after the take
        // writes it again (so no wake-up is lost; at worst one turn finds nothing).
        let hasPosted = posted.withLock { !$0.isEmpty }
        if woken || hasPosted || !queued.isEmpty {
            var count: eventfd_t = 0
            _ = eventfd_read(wakeFD, &count)
        }
        let posts = posted.withLock { list in
            defer { list = [] }
            return list
        }
        let blocks = queued
        queued = []
        for block in posts { block() }
        for block in blocks { block() }

        // The Dispatch main queue: clear its eventfd (libdispatch writes it on every enqueue
        // and never reads it), then run what is queued; what is queued meanwhile writes it
        // again.
        if mainQueueReady, let handle = mainQueueHandle {
            if lamina_is_main_thread() != 0 {
                var count: eventfd_t = 0
                _ = eventfd_read(handle, &count)
                _dispatch_main_queue_callback_4CF(nil)
            } else {
                // Only the main thread may drain the queue (libdispatch crashes otherwise);
                // stop watching it rather than wake for it forever.
                var event = epoll_event()
                _ = epoll_ctl(descriptor, EPOLL_CTL_DEL, handle, &event)
                mainQueueHandle = nil
            }
        }

        turns += 1
        do {
            try TransactionContext.commitAtEndOfTurn()
        } catch {
            guard let handler = commitErrorHandler else { throw error }
            handler(error)   // the loop goes on
        }
    }

    /// One turn without waiting: the function a host that drives frames itself calls once
    /// per frame (same as `runOnce(timeout: 0)`, or `dispatch()`).
    public func runFrame() throws {
        try dispatch()
    }

    // MARK: Standalone

    /// Waits on `descriptor` up to `timeout` seconds (nil: until a turn has work; at once
    /// when no timer or source is scheduled), then runs one turn. Throws the turn's commit
    /// errors, or `RunLoopError` when waiting fails.
    public func runOnce(timeout limit: Double? = nil) throws {
        let ms: Int32
        if let limit, !limit.isNaN {
            ms = Int32(min(max(limit, 0) * 1000, Double(Int32.max)).rounded(.up))
        } else if limit != nil {
            ms = 0   // NaN: do not wait
        } else {
            ms = timers.isEmpty && sources.isEmpty ? 0 : -1
        }
        if ms != 0 {
            var p = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, ms) < 0 && errno != EINTR { throw RunLoopError(operation: "poll of the loop's descriptor", code: errno) }
        }
        try dispatch()
    }

    /// Runs turns until `stop()` or `condition` returns true (checked after each turn).
    /// Returns when nothing could happen any more: no timer, no source, no queued, posted or
    /// Dispatch main-queue work. (Blocks posted later by other threads do not keep it
    /// running: keep a timer or a source for that, or call it again.)
    public func run(until condition: () -> Bool = { false }) throws {
        runDepth += 1
        let depth = runDepth
        defer {
            runDepth -= 1
            if let d = stopDepth, d >= depth { stopDepth = nil }
        }
        while stopDepth != depth && !condition() {
            guard !timers.isEmpty || !sources.isEmpty || !queued.isEmpty || isReadable else { return }
            try runOnce()
        }
    }

    /// Makes the innermost running `run(until:)` return after the current turn (an outer
    /// one, a turn's handler ran a nested `run`, goes on). From another thread:
    /// `loop.post { loop.stop() }`.
    public func stop() { if runDepth > 0 { stopDepth = runDepth } }
}

/// A system call of the run loop failed: what was tried, why, and what to do.
public struct RunLoopError: Error, Equatable, CustomStringConvertible {
    /// What was tried.
    public var operation: String
    /// The `errno` it failed with.
    public var code: Int32

    /// What was tried, the system's reason, and what to do.
    public var description: String {
        let advice: String
        switch code {
        case EMFILE: advice = "the process is out of file descriptors: close descriptors it no longer needs, or raise its limit (ulimit -n)"
        case ENFILE: advice = "the system is out of file descriptors: close some, or raise fs.file-max"
        case ENOMEM: advice = "the kernel is out of memory"
        case EBADF: advice = "pass a descriptor that is open (and remove sources before closing their descriptors)"
        case EPERM: advice = "this kind of descriptor cannot be waited on (a regular file or directory is always ready): read it directly, or watch a pipe, socket, eventfd, timerfd or device"
        case EEXIST: advice = "the descriptor is already watched"
        case ENOSYS, EINVAL: advice = "this kernel lacks what the run loop needs (epoll, timerfd, eventfd: Linux ≥ 2.6.27)"
        default: advice = "see the man page of the call"
        }
        return "MainLoop: \(operation) failed: \(String(cString: strerror(code))) (errno \(code)); \(advice)"
    }
}

/// A frame clock (`CADisplayLink`): calls `callback` once per frame at `framesPerSecond`
/// on a run loop; each frame is a turn, so changes made in the callback are committed and
/// composited at its end.
@MainActor
public final class DisplayLink {
    /// The frame rate it was created with.
    public let framesPerSecond: Double
    /// Frames called back so far (paused frames do not count).
    public private(set) var frames = 0
    /// The time of the current frame (`MainLoop.now()`), and of the next.
    public private(set) var timestamp = 0.0
    /// The time of the next frame.
    public var targetTimestamp: Double { timestamp + 1 / framesPerSecond }
    /// While true, frames pass without calling back (the clock keeps its cadence).
    public var isPaused = false
    private let loop: MainLoop
    private var token: MainLoop.Token?

    /// Starts calling `callback` every `1 / framesPerSecond` seconds on `loop` (a repeating
    /// timer: it wakes `loop.descriptor`), the first frame one period from now. A rate that
    /// is not positive (or not a number) means 60 — the native rate, as
    /// `CADisplayLink.preferredFramesPerSecond` = 0; an infinite one ticks as often as a
    /// timer can (every 0.1 ms).
    public init(loop: MainLoop = .main, framesPerSecond: Double = 60, callback: @escaping (DisplayLink) -> Void) {
        let framesPerSecond = framesPerSecond > 0 ? Swift.min(framesPerSecond, 10_000) : 60
        self.framesPerSecond = framesPerSecond
        self.loop = loop
        final class TokenBox { var token: MainLoop.Token? }
        let box = TokenBox()
        token = loop.addTimer(after: 1 / framesPerSecond, repeating: 1 / framesPerSecond) { [weak self, weak loop] in
            guard let self else {
                // Dropped without invalidate(): stop ticking, so the loop can finish.
                if let t = box.token { loop?.cancelTimer(t) }
                return
            }
            guard !self.isPaused else { return }
            self.timestamp = MainLoop.now()
            self.frames += 1
            callback(self)
        }
        box.token = token
    }

    /// Stops the clock for good.
    public func invalidate() {
        if let token { loop.cancelTimer(token) }
        token = nil
    }
}

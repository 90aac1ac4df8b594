import Foundation
import Glibc

/// A run loop: file-descriptor sources, timers and queued blocks, with a commit at the end
/// of every turn (`Transaction.commitIfNeeded()`): what makes changes of one turn appear
/// together. Use it standalone (`run()`), or embed it in a host's own loop: poll
/// `pollDescriptors()` with `timeout` (or add them to your epoll set) and call
/// `dispatch(_:)` with what was ready — or, with no Lamina sources at all, just call
/// `Transaction.commitIfNeeded()` at the end of each of your iterations.
@MainActor
public final class MainLoop {
    public static let main = MainLoop()

    public typealias Token = Int

    private struct Source { let fd: Int32; let events: Int16; let handler: (Int32, Int16) -> Void }
    private struct TimerEntry { var due: Double; let interval: Double?; let handler: () -> Void }

    private var sources: [Token: Source] = [:]
    private var timers: [Token: TimerEntry] = [:]
    private var queued: [() -> Void] = []
    private var nextToken = 1
    private var stopped = false

    /// Turns completed so far.
    public private(set) var turns = 0
    /// Called with errors of end-of-turn commits, and the loop goes on; without a handler
    /// the turn (and `run()`) throws them.
    public var commitErrorHandler: ((Error) -> Void)?

    public init() {}

    /// Seconds on a monotonic clock.
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    // MARK: Sources, timers, blocks

    /// Calls `handler(fd, revents)` in a turn when `fd` is ready for `events` (POLLIN…).
    @discardableResult
    public func addSource(fd: Int32, events: Int16 = Int16(POLLIN), handler: @escaping (Int32, Int16) -> Void) -> Token {
        let t = take(); sources[t] = Source(fd: fd, events: events, handler: handler); return t
    }
    public func removeSource(_ token: Token) { sources[token] = nil }

    /// Calls `handler` after `delay` seconds, then every `interval` seconds if given.
    @discardableResult
    public func addTimer(after delay: Double, repeating interval: Double? = nil, handler: @escaping () -> Void) -> Token {
        let t = take(); timers[t] = TimerEntry(due: MainLoop.now() + delay, interval: interval, handler: handler); return t
    }
    public func cancelTimer(_ token: Token) { timers[token] = nil }

    /// Runs `block` in the next turn (before that turn's commit).
    public func perform(_ block: @escaping () -> Void) { queued.append(block) }

    private func take() -> Token { defer { nextToken += 1 }; return nextToken }

    // MARK: Embedding

    /// The descriptors to poll (with their events).
    public func pollDescriptors() -> [pollfd] {
        sources.values.map { pollfd(fd: $0.fd, events: $0.events, revents: 0) }
    }

    /// Seconds until something is due: 0 with queued blocks, nil with nothing scheduled.
    public var timeout: Double? {
        if !queued.isEmpty { return 0 }
        guard let due = timers.values.map(\.due).min() else { return nil }
        return max(0, due - MainLoop.now())
    }

    /// One turn after the host polled: handlers of the ready descriptors, due timers,
    /// queued blocks, then the commit.
    public func dispatch(_ ready: [pollfd]) throws {
        for p in ready where p.revents != 0 {
            for s in sources.values where s.fd == p.fd { s.handler(p.fd, p.revents) }
        }
        let now = MainLoop.now()
        for (token, timer) in timers.sorted(by: { $0.value.due < $1.value.due }) where timer.due <= now {
            guard timers[token] != nil else { continue }   // cancelled by an earlier handler this turn
            if let interval = timer.interval {
                // Keep the cadence; skip missed ticks rather than bursting.
                var next = timer.due + interval
                if next <= now { next = now + interval - (now - timer.due).truncatingRemainder(dividingBy: interval) }
                timers[token]?.due = next
            } else {
                timers[token] = nil
            }
            timer.handler()
        }
        let blocks = queued
        queued = []
        for b in blocks { b() }
        turns += 1
        do {
            try Transaction.commitIfNeeded()
        } catch {
            guard let handler = commitErrorHandler else { throw error }
            handler(error)   // the loop goes on
        }
    }

    // MARK: Standalone

    /// Waits up to `timeout` seconds (nil: until something is due; returns at once when
    /// nothing is scheduled) and runs one turn. Throws the turn's commit errors.
    public func runOnce(timeout limit: Double? = nil) throws {
        var fds = pollDescriptors()
        let wait = [limit, timeout].compactMap { $0 }.min() ?? (fds.isEmpty ? 0 : -1)
        let ms = wait < 0 ? Int32(-1) : Int32(min(wait * 1000, Double(Int32.max)).rounded(.up))
        if !fds.isEmpty || ms > 0 {
            let n = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), ms) }
            if n < 0 && errno != EINTR { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        try dispatch(fds)
    }

    /// Runs turns until `stop()` or `condition` returns true (checked after each turn).
    public func run(until condition: () -> Bool = { false }) throws {
        stopped = false
        while !stopped && !condition() {
            guard timeout != nil || !sources.isEmpty else { return }   // nothing could ever happen
            try runOnce()
        }
    }

    public func stop() { stopped = true }
}

/// A frame clock (`CADisplayLink`): calls `callback` once per frame at `framesPerSecond`
/// on a run loop; each frame is a turn, so changes made in the callback are committed and
/// composited at its end.
@MainActor
public final class DisplayLink {
    public let framesPerSecond: Double
    public private(set) var frames = 0
    /// The time of the current frame (`MainLoop.now()`), and of the next.
    public private(set) var timestamp = 0.0
    public var targetTimestamp: Double { timestamp + 1 / framesPerSecond }
    public var isPaused = false
    private let loop: MainLoop
    private var token: MainLoop.Token?

    public init(loop: MainLoop = .main, framesPerSecond: Double = 60, callback: @escaping (DisplayLink) -> Void) {
        precondition(framesPerSecond > 0, "framesPerSecond must be positive")
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

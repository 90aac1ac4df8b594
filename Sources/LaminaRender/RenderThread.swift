import LaminaValues
import FoundationEssentials
import Glibc
import LaminaGeometry
import LaminaGPU

/// Runs a host's compositor — its GL context, its copy of the tree, the evaluation of
/// animations — on a thread of its own (Core Animation's render server), fed by commits.
///
/// The main actor hands it each commit's `RenderUpdate` and asks for a frame; the thread
/// applies updates (uploads included) and composites in order. While animations run, the
/// thread composites at the display-link rate by itself: when the main thread is blocked
/// (a long layout, a synchronous load), animations keep moving. `Transaction.flush()`,
/// an explicit `commit()` and `View.displayNow()` wait until their frame is on the target;
/// the end-of-turn commit does not wait.
///
/// The device belongs to the thread: the main actor must not use it (nor the target)
/// while the thread runs — read pixels through `perform(_:)`. `LayerTreeHost(…,
/// rendersOnThread: true)` makes one; a host program that already has a render thread
/// (an adopted context current there) drives it itself with `.external`: call
/// `serviceFrame()` on that thread once per frame.
public final class RenderThread: @unchecked Sendable {
    /// Who runs the render loop.
    public enum Driver: Sendable {
        /// A thread Lamina starts (and joins at `stop()`).
        case ownThread
        /// The host's thread, calling `serviceFrame()` once per frame.
        case external
    }

    /// What one composited frame was, for `frameObserver`.
    public struct FrameInfo: @unchecked Sendable {
        public let statistics: FrameStatistics
        /// The media time the frame shows.
        public let mediaTime: Double
        /// The target it was drawn into (usable here, on the render thread).
        public let target: RenderTarget
        /// Asked for by a commit (false: an animation frame the thread made by itself).
        public let requested: Bool
    }

    package struct FrameRequest {
        var background: Color?
        var always: Bool
        var overlays: [(rect: Rect, color: Color, transform: Transform3D)]
        /// The whole target is drawn again (an overlay of the last frame is removed).
        var redrawsAll = false
        package init(background: Color?, always: Bool, overlays: [(rect: Rect, color: Color, transform: Transform3D)], redrawsAll: Bool = false) {
            self.background = background; self.always = always; self.overlays = overlays; self.redrawsAll = redrawsAll
        }
    }

    private enum Command {
        case update(RenderUpdate)
        case attach(RenderTree, [ContentUpload])
        case frame(serial: Int, FrameRequest)
        case setTarget(RenderTarget)
        case perform(serial: Int, () -> Void)
        case release
    }

    package let compositor: Compositor
    package let rootID: LayerID
    public let driver: Driver
    /// Frames per second of the thread's own animation frames.
    public let framesPerSecond: Double

    // Owned by the render thread.
    private var target: RenderTarget
    private var lastRequest = FrameRequest(background: .clear, always: false, overlays: [])
    private var nextTick = 0.0

    // Shared, under `condition` (its lock).
    private let condition = ConditionLock()
    private var commands: [Command] = []
    private var stopping = false
    private var exited = false
    private var requested = 0
    private var completed = 0
    private var latest = FrameStatistics()
    private var frames = 0
    private var failure: Error?
    private var animating = false
    private var lostTree = false
    private var observer: (@Sendable (FrameInfo) -> Void)?
    /// Updates were sent since the last frame request (main actor only).
    package var hasUnrenderedUpdates = true
    /// Told (on the main actor) when the thread needs a new snapshot of the tree (after a
    /// context loss, its copy is gone).
    package var snapshotNeeded: (@MainActor @Sendable () -> Void)?

    /// The main actor's loop (posts the requests for snapshots).
    private let postToMain: @Sendable (@escaping @MainActor @Sendable () -> Void) -> Void

    package init(compositor: Compositor, target: RenderTarget, rootID: LayerID, driver: Driver, framesPerSecond: Double,
         postToMain: @escaping @Sendable (@escaping @MainActor @Sendable () -> Void) -> Void) {
        self.postToMain = postToMain
        self.compositor = compositor
        self.target = target
        self.rootID = rootID
        self.driver = driver
        self.framesPerSecond = max(1, min(framesPerSecond.isFinite ? framesPerSecond : 60, 1000))
        if driver == .ownThread {
            // No thread to be had: the thread counts as stopped, and every wait for a frame
            // throws (GPUError.deviceClosed) instead of waiting forever.
            if !startThread(named: "lamina-render", { [self] in self.run() }) { exited = true }
        }
    }

    private func lock() { condition.lock() }
    private func unlock() { condition.unlock() }

    private func send(_ command: Command) {
        lock()
        commands.append(command)
        condition.broadcast()
        unlock()
    }

    // MARK: The main actor's side

    /// Frames composited so far (requested and the thread's own).
    public var framesRendered: Int { lock(); defer { unlock() }; return frames }

    /// The latest frame's statistics.
    public var latestStatistics: FrameStatistics { lock(); defer { unlock() }; return latest }
    /// The statistics of the latest frame that drew (not skipped): with animations, the
    /// thread may have drawn a frame by itself just before one a commit asked for, which
    /// then finds nothing new.
    public var lastDrawnStatistics: FrameStatistics? { lock(); defer { unlock() }; return lastDrawn }
    private var lastDrawn: FrameStatistics?

    /// Whether the thread is compositing animation frames by itself.
    public var isAnimating: Bool { lock(); defer { unlock() }; return animating && ticks }

    /// Whether the thread composites animation frames by itself at `framesPerSecond`
    /// (default). Off, it composites only the frames commits ask for: for a program that
    /// paces every frame itself (a benchmark, a host with its own vsync that commits each
    /// frame).
    public var drawsAnimationFramesByItself: Bool {
        get { lock(); defer { unlock() }; return ticks }
        set { lock(); ticks = newValue; condition.broadcast(); unlock() }
    }
    private var ticks = true

    /// Called on the render thread after every frame (tests and tools: read the target's
    /// pixels there, count frames).
    public var frameObserver: (@Sendable (FrameInfo) -> Void)? {
        get { lock(); defer { unlock() }; return observer }
        set { lock(); observer = newValue; unlock() }
    }

    /// Hands the thread a commit's update (applied in order, before the next frame).
    package func enqueue(_ update: RenderUpdate) { send(.update(update)) }

    /// Hands the thread a snapshot of the tree (the first frame, or after a context loss).
    package func attach(_ tree: RenderTree, uploads: [ContentUpload]) {
        lock()
        lostTree = false
        unlock()
        send(.attach(tree, uploads))
    }

    /// Whether the thread lost its tree (context loss) and waits for a snapshot.
    package var needsSnapshot: Bool { lock(); defer { unlock() }; return lostTree }

    /// Asks for a frame; with `wait`, returns its statistics once it is on the target
    /// (throwing what compositing threw), else nil at once (a failure is thrown by the
    /// next call that waits).
    package func requestFrame(_ request: FrameRequest, wait: Bool) throws -> FrameStatistics? {
        lock()
        requested += 1
        let serial = requested
        commands.append(.frame(serial: serial, request))
        condition.broadcast()
        defer { unlock() }
        guard wait else { return nil }
        try waitLocked(for: serial)
        if let error = failure { failure = nil; throw error }
        return latest
    }

    private func waitLocked(for serial: Int) throws {
        // (With `.external`, the host's thread runs the loop: it must not wait for this one.)
        while completed < serial && !exited { condition.wait() }
        if completed < serial {
            throw GPUError.deviceClosed(operation: "waiting for the render thread's frame (the render thread stopped)")
        }
    }

    /// Runs `body` on the render thread (with nothing else running there) and returns its
    /// result: reading pixels, GL work of your own on the device.
    public func perform<T>(_ body: @escaping () throws -> T) throws -> T {
        nonisolated(unsafe) var result: Result<T, Error>?
        lock()
        requested += 1
        let serial = requested
        commands.append(.perform(serial: serial) { result = Result { try body() } })
        condition.broadcast()
        do {
            defer { unlock() }
            try waitLocked(for: serial)
        }
        return try result!.get()
    }

    package func setTarget(_ target: RenderTarget) { send(.setTarget(target)) }

    /// Frees the compositor's GPU objects on the thread and stops it (joins it; with
    /// `.external`, waits for the host's next `serviceFrame()`, which does the freeing).
    package func stop() {
        send(.release)
        lock()
        stopping = true
        condition.broadcast()
        while !exited { condition.wait() }
        unlock()
    }

    /// Whether the thread has stopped (`.external`: the host may stop calling `serviceFrame()`).
    public var hasStopped: Bool { lock(); defer { unlock() }; return exited }

    // MARK: The render thread's side

    /// One iteration of the render loop, for a host that drives it from its own thread
    /// (`.external`): applies what the commits sent, composites the frames asked for, and
    /// an animation frame when one is due — or, for a host compositing every frame
    /// (`LayerTreeHost.compositesEveryFrame`), Lamina's part of this frame in any case.
    /// Call it once per frame on the thread that owns the device.
    public func serviceFrame() {
        lock()
        let batch = commands
        commands = []
        unlock()
        let rendered = execute(batch)
        if !rendered {
            if lastRequest.always {
                // A host that redraws its framebuffer every frame (`compositesEveryFrame`):
                // Lamina's part of every frame, from the frame data kept.
                composite(requested: false)
            } else if isAnimating, MonotonicClock.now() >= nextTick {
                animationFrame()
            }
        }
        lock()
        let stop = stopping && commands.isEmpty
        unlock()
        if stop {
            lock()
            exited = true
            condition.broadcast()
            unlock()
        }
    }

    private func run() {
        lock()
        while true {
            if commands.isEmpty {
                if stopping { break }
                if animating && ticks {
                    let now = MonotonicClock.now()
                    if now >= nextTick {
                        unlock()
                        animationFrame()
                        lock()
                        continue
                    }
                    _ = condition.wait(untilMonotonic: nextTick)
                } else {
                    condition.wait()
                }
                continue
            }
            let batch = commands
            commands = []
            unlock()
            _ = execute(batch)
            lock()
        }
        exited = true
        condition.broadcast()
        unlock()
    }

    /// Runs commands in order; returns whether a frame was composited. Frames asked for
    /// one after another are composited once, at the last one's place — never past a
    /// `perform`, which sees every frame asked for before it — and each counts as done
    /// only once that frame is on the target.
    private func execute(_ batch: [Command]) -> Bool {
        var rendered = false
        func complete(_ serial: Int) {
            lock()
            completed = max(completed, serial)
            condition.broadcast()
            unlock()
        }
        for (i, command) in batch.enumerated() {
            switch command {
            case .update(let u): compositor.apply(u)
            case .attach(let tree, let uploads): compositor.adopt(tree, uploads: uploads)
            case .setTarget(let t): target = t
            case .perform(let serial, let body):
                body()
                complete(serial)
            case .release: compositor.releaseResources()
            case .frame(let serial, let request):
                // Another frame before the next `perform` (or the end) takes this one's place.
                var later = false
                for next in batch[(i + 1)...] {
                    if case .frame = next { later = true; break }
                    if case .perform = next { break }
                }
                guard !later else {
                    if request.redrawsAll { compositor.forgetLastFrame() }
                    continue
                }
                if request.redrawsAll { compositor.forgetLastFrame() }
                lastRequest = request
                composite(requested: true)
                rendered = true
                complete(serial)   // (with the frames it stands for: serials only grow)
            }
        }
        return rendered
    }

    private func animationFrame() {
        let period = 1 / framesPerSecond
        let now = MonotonicClock.now()
        nextTick = max(nextTick + period, now + period * 0.5)
        composite(requested: false)
    }

    private func composite(requested: Bool) {
        var stats = FrameStatistics(skipped: true)
        var error: Error?
        var time = MediaClock.now()
        do {
            try compositor.inFrameScope(on: target) { recovered in
                if compositor.tree == nil && recovered {
                    lock(); lostTree = true; unlock()
                    if let ask = snapshotNeeded { postToMain { ask() } }
                } else {
                    stats = try compositor.renderFrame(to: target, background: lastRequest.background, always: lastRequest.always,
                                                       overlays: requested ? lastRequest.overlays : [], clock: PhaseClock(),
                                                       recovered: recovered)
                    time = compositor.lastFrameMediaTime ?? time
                }
            }
        } catch let e {
            error = e
        }
        // A damage flash (`showsDamage`) on the target is removed by the next frame: one
        // more tick.
        let running = compositor.hasRunningAnimations || compositor.showsDamageFlash
        lock()
        if !animating && running { nextTick = MonotonicClock.now() + 1 / framesPerSecond }
        animating = running
        if !stats.skipped || requested { latest = stats }
        if !stats.skipped { frames += 1; lastDrawn = stats }
        if let error { failure = error }
        let observe = observer
        unlock()
        if let observe, !stats.skipped {
            observe(FrameInfo(statistics: stats, mediaTime: time, target: target, requested: requested))
        }
    }
}


import LaminaValues
import FoundationEssentials
import Glibc
import LaminaGeometry

/// A transaction's animation settings (`CATransaction`'s keyed values).
struct TransactionFrame {
    let id: Int
    var duration: Double?
    var timingFunction: TimingFunction?
    var disableActions: Bool?
    var completion: (@MainActor () -> Void)?
}

/// A closed transaction's completion block, waiting for its animations.
struct PendingCompletion {
    var block: @MainActor () -> Void
    var remaining: Int
}

extension TransactionContext {
    // MARK: Settings (CATransaction's animation values)

    func makeID() -> Int { lastTransactionID += 1; return lastTransactionID }

    /// The transaction animations are added in now.
    var currentID: Int { frames[frames.count - 1].id }

    /// The duration of implicit animations (`CATransaction.animationDuration()`): the
    /// innermost transaction's that sets one, else 0.25 s.
    public func animationDuration() -> Double {
        frames.reversed().lazy.compactMap(\.duration).first ?? 0.25
    }
    public func setAnimationDuration(_ seconds: Double) {
        frames[frames.count - 1].duration = seconds.isFinite && seconds >= 0 ? seconds : nil
    }
    /// The timing function of implicit animations (nil: `.default`).
    public func animationTimingFunction() -> TimingFunction? {
        frames.reversed().lazy.compactMap(\.timingFunction).first
    }
    public func setAnimationTimingFunction(_ function: TimingFunction?) {
        frames[frames.count - 1].timingFunction = function
    }
    /// Whether property changes run no actions (no implicit animations).
    public func disableActions() -> Bool {
        if frames.count == 1, let set = frames[0].disableActions { return set }
        if frames.count > 1, let set = frames.reversed().lazy.compactMap(\.disableActions).first { return set }
        return Transaction.taskDisablesActions ?? disablesActionsByDefault
    }

    /// Runs `block` after the next commit (with the animation callbacks).
    package func afterNextCommit(_ block: @escaping @MainActor () -> Void) {
        completionsDue.append(block)
        noteChange()
    }
    public func setDisableActions(_ flag: Bool) {
        frames[frames.count - 1].disableActions = flag
    }
    /// Called once every animation added in this transaction has stopped (at once, after
    /// the commit, when it added none).
    public func setCompletionBlock(_ block: (@MainActor () -> Void)?) {
        frames[frames.count - 1].completion = block
    }

    /// `begin()`: a transaction of its own settings.
    func pushFrame() { frames.append(TransactionFrame(id: makeID())) }

    /// Runs `body` in a nested transaction with actions disabled (Core Animation's
    /// `begin()`, `setDisableActions(true)`, …, `commit()` inside another transaction:
    /// nothing is committed at its end — the changes join the enclosing transaction).
    public func withoutActions<T>(_ body: () throws -> T) rethrows -> T {
        pushFrame()
        defer { popFrame() }
        setDisableActions(true)
        return try body()
    }

    /// Closes the innermost transaction (the implicit one: starts the next turn's).
    func popFrame() {
        let frame = frames.count > 1 ? frames.removeLast() : frames[0]
        if frames.count == 1 && frame.id == frames[0].id { frames[0] = TransactionFrame(id: makeID()) }
        guard let block = frame.completion else { return }
        let remaining = animationCounts.removeValue(forKey: frame.id) ?? 0
        if remaining == 0 {
            completionsDue.append(block)
        } else {
            pendingCompletions[frame.id] = PendingCompletion(block: block, remaining: remaining)
        }
    }

    /// Back to one implicit transaction (explicit ones abandoned).
    func resetFrames() {
        while frames.count > 1 { popFrame() }
        popFrame()
    }

    // MARK: Animations in flight (callbacks and the frame clock)



    func noteAnimationAdded(_ a: AddedAnimation, to layer: Layer) {
        animatingLayers[ObjectIdentifier(layer)] = Unmanaged.passUnretained(layer)
        if layer.draws(a.effect) { drawnAnimationLayers[ObjectIdentifier(layer)] = Unmanaged.passUnretained(layer) }
        invalidateAnimationEvents()
        if frames.contains(where: { $0.id == a.transactionID }) {
            animationCounts[a.transactionID, default: 0] += 1
        }
    }

    /// An animation left its layer before its stop was reported: it stops unfinished.
    func noteAnimationRemoved(_ a: AddedAnimation, finished: Bool) {
        startedSerials.remove(a.serial)
        guard stoppedSerials.remove(a.serial) == nil else { return }
        stop(a, finished: finished)
    }

    private func stop(_ a: AddedAnimation, finished: Bool) {
        if let didStop = a.animation.didStop { completionsDue.append { didStop(finished) } }
        if animationCounts[a.transactionID] != nil {
            animationCounts[a.transactionID]! -= 1
        } else if var p = pendingCompletions[a.transactionID] {
            p.remaining -= 1
            if p.remaining <= 0 {
                pendingCompletions[a.transactionID] = nil
                completionsDue.append(p.block)
            } else {
                pendingCompletions[a.transactionID] = p
            }
        }
    }

    /// A layer with animations is being freed: they stop unfinished (their `didStop` and
    /// their transactions' completion blocks run after the next commit).
    func forgetAnimations(of layer: Layer) {
        drawnAnimationLayers[ObjectIdentifier(layer)] = nil
        guard animatingLayers.removeValue(forKey: ObjectIdentifier(layer)) != nil else { return }
        for a in layer.addedAnimations { noteAnimationRemoved(a, finished: false) }
        noteChange()   // a commit runs the callbacks
    }


    /// Animations, or the timing they run in, changed: the next commit looks again.
    func invalidateAnimationEvents() { nextAnimationEvent = -.infinity }

    /// Before a commit's display pass: layers that draw an animated key of their own
    /// (`needsDisplay(forKey:)`) display in this commit while the animation runs, and when
    /// their time moves while it stands still (a paused layer scrubbed by `timeOffset`).
    /// Their animations' ends are events of `updateAnimations`.
    func markDrawnAnimations() {
        guard !drawnAnimationLayers.isEmpty else { return }
        let now = MediaClock.now()
        // (Only layers of rendered trees: one outside them has not begun, and drawing it
        // every commit would never stop.)
        let hostedRoots = Set(hosts.compactMap { $0.host?.rootLayer.id } + deliveryRoots)
        for (key, ref) in drawnAnimationLayers {
            let layer = ref.takeUnretainedValue()
            guard hostedRoots.contains(layer.rootLayer.id) else { continue }
            if !layer.redisplayForDrawnAnimations(at: now) { drawnAnimationLayers[key] = nil }
        }
    }

    func updateAnimations() {
        var running = false
        let now = animatingLayers.isEmpty ? 0 : MediaClock.now()
        if !animatingLayers.isEmpty && now < nextAnimationEvent {
            running = runningAtLastLook
        } else if !animatingLayers.isEmpty {
            var next = Double.infinity
            // Only layers of rendered trees animate (a layer outside every hosted tree
            // has not begun: it is looked at again when it joins one).
            let hostedRoots = Set(hosts.compactMap { $0.host?.rootLayer.id } + deliveryRoots)
            var started: [@MainActor @Sendable () -> Void] = []
            for (key, ref) in animatingLayers {
                let layer = ref.takeUnretainedValue()
                if layer.addedAnimations.isEmpty { animatingLayers[key] = nil; continue }
                guard hostedRoots.contains(layer.rootLayer.id) else { continue }
                let t = layer.localTime(at: now)
                let frozen = layer.timeIsFrozen
                var finishedAndRemoved: [UInt64] = []
                // A layer that draws one of its own keys (`needsDisplay(forKey:)`) is displayed
                // once more when an animation of that key ends (while it runs:
                // `redisplayForDrawnAnimations`).
                var redraws = false
                for a in layer.addedAnimations {
                    if !redraws, a.effect.hasEnded(at: t), !stoppedSerials.contains(a.serial), layer.draws(a.effect) {
                        redraws = true
                    }
                    guard !a.beginsAtCommit else { running = true; next = now; continue }   // not committed yet
                    if !frozen {
                        // When it starts and ends, in media time.
                        let timing = a.effect.timing
                        let start = layer.mediaTime(fromLocal: timing.beginTime)
                        let end: Double
                        if timing.speed > 0 {
                            end = layer.mediaTime(fromLocal: timing.beginTime + timing.activeDuration / timing.speed)
                        } else if timing.speed < 0 {
                            end = layer.mediaTime(fromLocal: timing.beginTime + max(0, timing.timeOffset) / -timing.speed)
                        } else {
                            end = .infinity
                        }
                        // (An event at this very time counts: the next look is after it.)
                        for e in [start, end] where e >= now && e.isFinite { next = min(next, e) }
                    }
                    if !startedSerials.contains(a.serial), a.effect.hasStarted(at: t) {
                        startedSerials.insert(a.serial)
                        if let s = a.animation.didStart { started.append(s) }
                    }
                    if a.effect.hasEnded(at: t) {
                        if stoppedSerials.insert(a.serial).inserted {
                            stop(a, finished: true)
                            if a.effect.isRemovedOnCompletion { finishedAndRemoved.append(a.serial) }
                        }
                    } else if !frozen && a.effect.isRunning(at: t) {
                        running = true
                    }
                }
                if redraws { layer.setNeedsDisplay() }
                for serial in finishedAndRemoved {
                    layer.removeFinishedAnimation(serial: serial)
                    startedSerials.remove(serial)
                    stoppedSerials.remove(serial)
                }
            }
            for s in started { s() }
            nextAnimationEvent = next
            runningAtLastLook = running
        }
        let due = completionsDue
        completionsDue = []
        for block in due { block() }
        // Nothing plays, but an animation starts later: a wake-up then (the media clock runs
        // with the monotonic clock unless fixed — then whoever fixes it drives the frames).
        if let t = wakeTimer { MainLoop.main.cancelTimer(t); wakeTimer = nil }
        if !running, nextAnimationEvent.isFinite, !MediaClock.isFixed {
            let delay = max(0, nextAnimationEvent - MediaClock.now())
            wakeTimer = MainLoop.main.addTimer(after: delay) { [weak self] in
                guard let self else { return }
                self.wakeTimer = nil
                self.invalidateAnimationEvents()
                self.animationsDue = true
                self.noteChange()
                self.noteDueAtEndOfTurn()
            }
        }
        // The frame clock.
        if running, frameTimer == nil {
            let period = 1 / max(1, min(animationFramesPerSecond, 1000))
            // (The main context commits at the end of every turn; another one when its clock fires.)
            frameTimer = MainLoop.main.addTimer(after: period, repeating: period) { [weak self] in self?.noteDueAtEndOfTurn() }
        } else if !running, let t = frameTimer {
            MainLoop.main.cancelTimer(t)
            frameTimer = nil
        }
    }

    /// Whether animations are in flight (started or waiting to), so a commit must composite.
    var animationsInFlight: Bool { frameTimer != nil }
}

import LaminaValues
import FoundationEssentials
import Glibc
import LaminaGeometry

/// What a delegate answers when a layer looks for the action of a property change.
public enum ActionLookup {
    /// Not handled here: the search goes on (the layer's `actions`, then
    /// `defaultAction(forKey:)`).
    case notHandled
    /// No action (Core Animation's `NSNull`): the change is not animated.
    case none
    case action(any LayerAction)
}

extension LayerDelegate {
    /// The default: not handled (the search goes on).
    public func action(for layer: Layer, forKey key: String) -> ActionLookup { .notHandled }
}

// MARK: - Animations on a layer

extension Layer {
    /// Adds an animation (a copy of it) under `key`, replacing the one there (which stops,
    /// `finished` false). It starts when the transaction commits unless its `beginTime`
    /// is set (in this layer's time: `convertTime(MediaClock.now(), from: nil) + delay`).
    /// A key path that is not animatable is reported to `transactionContext.warningHandler` and
    /// the animation is not added.
    public func add(_ animation: any Animation, forKey key: String?) {
        // `CALayer.add(_:forKey:)`: an animation whose duration is 0 takes the transaction's
        // animation duration (0.25 s by default) — a spring too (set its duration to
        // `settlingDuration` to run it to rest).
        var animation = animation
        if animation.duration == 0 { animation.duration = transactionContext.animationDuration() }
        guard let effect = animation.makeEffect(customKeys: { properties.custom?[$0] != nil }) else {
            transactionContext.warningHandler?(.animationNotAdded(layer: name ?? String(describing: type(of: self)),
                                                          key: key, reason: Layer.unanimatableReason(animation)))
            return
        }
        guard effect.hasValidTiming else {
            transactionContext.warningHandler?(.animationNotAdded(
                layer: name ?? String(describing: type(of: self)), key: key,
                reason: "its timing is not usable (beginTime, timeOffset, duration, speed and repeatDuration must be finite, duration and repeatDuration ≥ 0, repeatCount a number ≥ 0)"))
            return
        }
        // A transition without a key goes under "transition" (`kCATransition`).
        let key = key ?? (animation is TransitionAnimation ? "transition" : nil)
        if let key { removeAnimation(forKey: key, notify: true) }
        let added = AddedAnimation(key: key, effect: effect, beginsAtCommit: animation.beginTime == 0, animation: animation,
                                   transactionID: transactionContext.currentID, serial: AddedAnimation.nextSerial())
        addedAnimations.append(added)
        transactionContext.noteAnimationAdded(added, to: self)
        changed(.animations)
        redisplayIfDrawn(effect)
    }

    /// Whether the layer draws a key the effect animates (`needsDisplay(forKey:)`).
    func draws(_ effect: AnimationEffect) -> Bool {
        properties.custom != nil && effect.customKeys.contains(where: { Self.needsDisplay(forKey: $0) })
    }

    /// A layer that draws a key the effect animates displays again: the values shown
    /// changed (an animation added or removed).
    private func redisplayIfDrawn(_ effect: AnimationEffect) {
        if draws(effect) { setNeedsDisplay() }
    }

    /// At each commit, for a layer with animations of keys it draws: displayed at the next
    /// frame while one runs (or waits for its commit). False when none is left to run
    /// (ended ones were drawn a last time when they ended or were removed).
    func redisplayForDrawnAnimations(at now: Double) -> Bool {
        var left = false
        let t = localTime(at: now)
        // (A layer whose time stands still draws again only when that time moves.)
        let moved = !timeIsFrozen || t != drawnAnimationTime
        for a in addedAnimations where draws(a.effect) {
            if a.beginsAtCommit || a.effect.isRunning(at: t) || a.effect.hasStarted(at: t) && !a.effect.hasEnded(at: t) {
                if moved { setNeedsDisplay() }
                left = true
            } else if !a.effect.hasEnded(at: t) {
                left = true   // not begun yet
            }
        }
        drawnAnimationTime = t
        return left
    }

    private static func unanimatableReason(_ a: any Animation) -> String {
        let path: String?
        switch a {
        case let b as BasicAnimation: path = b.keyPath
        case let s as SpringAnimation: path = s.keyPath
        case let k as KeyframeAnimation: path = k.values.isEmpty ? nil : k.keyPath
        default: path = nil
        }
        if let path { return "'\(path)' is not an animatable key path (see docs/animations.md for the list)" }
        return "a keyframe animation needs values, and Lamina animates its own kinds of animation only"
    }

    /// The animation added under `key` (with its `beginTime` once committed).
    public func animation(forKey key: String) -> (any Animation)? {
        guard let a = addedAnimations.last(where: { $0.key == key }) else { return nil }
        var copy = a.animation
        if !a.beginsAtCommit { copy.beginTime = a.effect.timing.beginTime }
        return copy
    }

    /// The keys of the animations on the layer, in the order they were added.
    public func animationKeys() -> [String] { addedAnimations.compactMap(\.key) }

    /// Removes the animation under `key`; it stops (`finished` false) unless it had ended.
    public func removeAnimation(forKey key: String) { removeAnimation(forKey: key, notify: true) }

    private func removeAnimation(forKey key: String, notify: Bool) {
        guard let i = addedAnimations.firstIndex(where: { $0.key == key }) else { return }
        let a = addedAnimations.remove(at: i)
        transactionContext.noteAnimationRemoved(a, finished: false)
        transactionContext.invalidateAnimationEvents()
        changed(.animations)
        redisplayIfDrawn(a.effect)
    }

    /// Removes every animation of the layer (each stops, `finished` false, unless ended).
    public func removeAllAnimations() {
        guard !addedAnimations.isEmpty else { return }
        let all = addedAnimations
        addedAnimations = []
        for a in all { transactionContext.noteAnimationRemoved(a, finished: false) }
        transactionContext.invalidateAnimationEvents()
        changed(.animations)
        for a in all { redisplayIfDrawn(a.effect) }
    }

    /// Removes an animation that ended (`isRemovedOnCompletion`), by its serial.
    func removeFinishedAnimation(serial: UInt64) {
        guard let i = addedAnimations.firstIndex(where: { $0.serial == serial }) else { return }
        let a = addedAnimations.remove(at: i)
        changed(.animations)
        redisplayIfDrawn(a.effect)
    }

    // MARK: Time

    /// This layer's local time at media time `t`: from the root down, each layer maps its
    /// superlayer's time by `(t − beginTime) · speed + timeOffset`.
    func localTime(at t: Double) -> Double {
        var chain: [Layer] = []
        var l: Layer? = self
        while let c = l { chain.append(c); l = c.renderParent }
        var time = t
        for c in chain.reversed() { time = c.properties.timing.local(time) }
        return time
    }

    /// Whether the layer's time stands still (its `speed`, or an ancestor's, is 0).
    var timeIsFrozen: Bool {
        var l: Layer? = self
        while let c = l { if c.properties.timing.speed == 0 { return true }; l = c.renderParent }
        return false
    }

    /// Converts a time of `layer`'s time space (nil: media time, `MediaClock.now()`) to
    /// this layer's (`CALayer.convertTime(_:from:)`).
    public func convertTime(_ t: Double, from layer: Layer?) -> Double {
        localTime(at: layer?.mediaTime(fromLocal: t) ?? t)
    }

    /// Converts a time of this layer's time space to `layer`'s (nil: media time).
    public func convertTime(_ t: Double, to layer: Layer?) -> Double {
        let media = mediaTime(fromLocal: t)
        return layer?.localTime(at: media) ?? media
    }

    /// The media time at which this layer's local time is `t` (a layer whose time stands
    /// still maps every media time to one local time: its `beginTime` is returned).
    func mediaTime(fromLocal t: Double) -> Double {
        var time = t
        var l: Layer? = self
        while let c = l {
            let timing = c.properties.timing
            time = timing.speed == 0 ? timing.beginTime : (time - timing.timeOffset) / timing.speed + timing.beginTime
            l = c.renderParent
        }
        return time
    }

    /// When the layer's time starts, in its superlayer's time (`CAMediaTiming.beginTime`).
    public var beginTime: Double {
        get { properties.timing.beginTime }
        set { if accepts(newValue.isFinite, "beginTime", newValue), newValue != properties.timing.beginTime { properties.timing.beginTime = newValue; changed(.timing); transactionContext.invalidateAnimationEvents() } }
    }
    /// How fast the layer's time (and its sublayers' and animations') runs against its
    /// superlayer's; 0 pauses them.
    public var speed: Double {
        get { properties.timing.speed }
        set { if accepts(newValue.isFinite, "speed", newValue), newValue != properties.timing.speed { properties.timing.speed = newValue; changed(.timing); transactionContext.invalidateAnimationEvents() } }
    }
    /// Added to the layer's local time (with `speed` 0: the time shown).
    public var timeOffset: Double {
        get { properties.timing.timeOffset }
        set { if accepts(newValue.isFinite, "timeOffset", newValue), newValue != properties.timing.timeOffset { properties.timing.timeOffset = newValue; changed(.timing); transactionContext.invalidateAnimationEvents() } }
    }

    // MARK: Presentation

    /// The layer as it is shown now (`CALayer.presentation()`): a copy, outside any tree,
    /// whose properties are the model's with the animations applied at the current media
    /// time. Changing it changes nothing shown. The model layer itself never changes
    /// through animations.
    public func presentation() -> Self {
        let copy = Self.init()
        copy.modelLayerReference = self
        copy.name = name
        copy.properties = presentedProperties(at: MediaClock.now())
        return copy
    }

    /// The property `key` names on this layer: one of every layer's, or a key of its own
    /// kind (one it has a value for: `value(forKey:)`).
    func animatableProperty(forKey key: String) -> AnimatableProperty? {
        AnimatableProperty(keyPath: key, customKeys: { properties.custom?[$0] != nil })
    }

    // MARK: Keys of a layer kind's own

    /// A key of the layer's own (a subclass's animatable property, as `@NSManaged`
    /// properties of a `CALayer` subclass are): its value, or nil when it has none. Inside
    /// `display()` and `draw(in:)` of a layer whose key animates, the value shown now.
    public func value(forKey key: String) -> AnimationValue? {
        if let presented = drawingValues, let v = presented[key] { return v }
        return properties.custom?[key]
    }

    /// Sets a key of the layer's own (the first set declares it, with its value's kind:
    /// numbers, points, sizes, rectangles, colours, transforms; a value that is not finite,
    /// or not convertible to that kind, is refused with a `TransactionWarning`). The layer redraws when
    /// `needsDisplay(forKey:)` says so; a hosted layer's change runs the key's action
    /// (none by default, as for Core Animation's custom keys: `actions` or a delegate can
    /// give one). A key every layer has (`opacity`, …) is refused: set the property.
    public func setValue(_ value: AnimationValue, forKey key: String) {
        guard AnimatableProperty(keyPath: key) == nil else {
            transactionContext.warningHandler?(.animationNotAdded(layer: name ?? String(describing: type(of: self)), key: key,
                                                                  reason: "'\(key)' is a property of every layer: set it as such"))
            return
        }
        let layerName = name ?? String(describing: type(of: self))
        guard value.isFinite else {
            transactionContext.warningHandler?(.animationNotAdded(layer: layerName, key: key, reason: "\(value) is not finite: the key keeps its value"))
            return
        }
        let old = properties.custom?[key]
        guard old != value else { return }
        if let old {
            guard let converted = value.converted(like: old) else {
                transactionContext.warningHandler?(.animationNotAdded(layer: layerName, key: key,
                    reason: "\(value) is not of the key's kind (it holds \(old)): the key keeps its value"))
                return
            }
            actionWillChange(key, from: old)
            properties.custom?[key] = converted
        } else {
            if properties.custom == nil { properties.custom = [:] }
            properties.custom?[key] = value
        }
        if Self.needsDisplay(forKey: key) { setNeedsDisplay() }
    }

    /// The model layer of a presentation copy (itself for a model layer).
    public func model() -> Layer { modelLayerReference ?? self }

    /// Whether this is a copy made by `presentation()`.
    public var isPresentationCopy: Bool { modelLayerReference != nil }

    /// The properties shown at media time `t`.
    func presentedProperties(at t: Double) -> LayerProperties {
        guard !addedAnimations.isEmpty else { return properties }
        let local = localTime(at: t)
        // Animations not committed yet begin now.
        return LaminaValues.presentedProperties(properties, effects: addedAnimations.lazy.map {
            $0.beginsAtCommit ? $0.effect.beginning(at: local) : $0.effect
        }, at: local)
    }

    // MARK: Actions

    /// Whether a change of `contents` now would run an action (a redraw then cross-fades).
    var contentsChangeRunsAction: Bool {
        wasDelivered && modelLayerReference == nil && !transactionContext.disableActions() && action(forKey: "contents") != nil
    }

    /// Runs the action for a change of `key` from `old` (before the new value is stored):
    /// layers in a rendered tree only, unless actions are disabled.
    /// (The guard is inlined into every setter and the rest, which may work out the
    /// presented properties, stays out of line: whole, the function grew too large for
    /// the compiler to inline, and every setter paid a call with its old value built.)
    @inline(__always)
    func actionWillChange(_ key: String, from old: @autoclosure () -> AnimationValue) {
        guard wasDelivered, modelLayerReference == nil, !transactionContext.disableActions() else { return }
        runAction(forKey: key, from: old())
    }

    @inline(never)
    private func runAction(forKey key: String, from model: AnimationValue) {
        guard let action = action(forKey: key) else { return }
        var previous = model
        // (Contents are not among the presented properties: a cross-fade starts from the
        // model's old contents.)
        if !addedAnimations.isEmpty, key != "contents", let p = animatableProperty(forKey: key) {
            previous = p.value(in: presentedProperties(at: MediaClock.now()))
        }
        action.run(forKey: key, on: self, arguments: ActionArguments(previousValue: previous, previousModelValue: model))
    }
}

import Foundation
import LaminaGeometry
import LaminaGPU

/// How an animation shows outside its active time (`CAMediaTimingFillMode`).
public enum FillMode: String, Sendable, Hashable, CaseIterable {
    /// Nothing outside the active time: the property shows its model value.
    case removed
    /// Holds the last value after the end (with `isRemovedOnCompletion` false: a removed
    /// animation shows nothing).
    case forwards
    /// Shows the first value before the start (a delayed `beginTime`).
    case backwards
    /// Both.
    case both
}

/// Core Animation's media timing (`CAMediaTiming`) of an animation or a layer: how time
/// flows from its parent's (the layer's, or a group's) to its own.
///
/// The local time is `(parentTime − beginTime) · speed + timeOffset`. An animation is
/// *active* for `activeDuration` from `beginTime` (in parent time, scaled by `speed`);
/// inside, `timeOffset` shifts where it starts and wraps around (a 5 s animation with
/// `timeOffset` 2 plays 2…5, then 0…2). Each iteration lasts `duration` (twice with
/// `autoreverses`); it repeats `repeatCount` times (fractions allowed, `.infinity`
/// forever) or for `repeatDuration` seconds.
public struct MediaTiming: Sendable, Hashable {
    /// For an animation added to a layer, 0 means "when the transaction commits" (it is
    /// set to the layer's time then); otherwise a time in the layer's time space
    /// (`layer.convertTime(MediaClock.now(), from: nil) + delay`).
    public var beginTime = 0.0
    /// Seconds per iteration; 0 (the default) means 0.25 s — or, for an animation added
    /// by an action, the transaction's `animationDuration`.
    public var duration = 0.0
    public var speed = 1.0
    public var timeOffset = 0.0
    public var repeatCount = 0.0
    public var repeatDuration = 0.0
    public var autoreverses = false
    public var fillMode = FillMode.removed
    public init() {}

    /// The duration used: `duration`, or 0.25 s when it is not a positive number.
    public var effectiveDuration: Double { duration > 0 && duration.isFinite ? duration : 0.25 }

    /// How long the animation is active (in its parent's time, before `speed`).
    public var activeDuration: Double {
        let iteration = effectiveDuration * (autoreverses ? 2 : 1)
        if repeatDuration > 0 { return repeatDuration }
        if repeatCount > 0 { return repeatCount.isInfinite ? .infinity : repeatCount * iteration }
        return iteration
    }

    /// Where the animation is at `parentTime`.
    func evaluate(parentTime: Double) -> TimingState {
        let d = effectiveDuration
        let iterationLength = d * (autoreverses ? 2 : 1)
        let active = activeDuration
        let s = speed.isFinite ? speed : 1
        let a = (parentTime - beginTime) * s
        var state = TimingState()
        state.duration = d
        let t: Double
        if s < 0 {
            // Backwards: from `timeOffset` down to 0 (Core Animation's negative speed).
            let elapsed = parentTime - beginTime
            let local = timeOffset + elapsed * s
            if elapsed.isNaN || local.isNaN {
                state.phase = .after
                t = 0
            } else if elapsed < 0 {
                state.phase = .before
                t = min(max(timeOffset, 0), active.isFinite ? active : timeOffset)
            } else if local <= 0 {
                state.phase = .after   // reached its start: ended
                t = 0
            } else {
                state.phase = .active
                t = active.isFinite ? min(local, active) : local
            }
        } else if a.isNaN {
            state.phase = .after
            t = active
        } else if a < 0 {
            state.phase = .before
            t = Self.wrap(timeOffset, active)
        } else if a >= active {
            state.phase = .after
            t = active.isFinite ? active : 0
        } else {
            state.phase = .active
            t = timeOffset == 0 ? a : Self.wrap(a + timeOffset, active)
        }
        state.isFrozen = s == 0
        var iteration = iterationLength > 0 ? (t / iterationLength).rounded(.down) : 0
        if t >= active && active.isFinite && iteration > 0 && t - iteration * iterationLength < 1e-12 {
            iteration -= 1   // the very end belongs to the last iteration
        }
        var within = t - iteration * iterationLength
        if autoreverses && within > d { within = iterationLength - within }
        state.iteration = Int(max(0, min(iteration, Double(Int32.max))))
        state.time = min(max(within, 0), d)
        return state
    }

    private static func wrap(_ t: Double, _ period: Double) -> Double {
        guard period.isFinite, period > 0 else { return max(0, t) }
        let r = t.truncatingRemainder(dividingBy: period)
        return r < 0 ? r + period : r
    }
}

/// Where an animation is at one time.
struct TimingState {
    enum Phase { case before, active, after }
    var phase = Phase.active
    /// Seconds into the current iteration, 0…duration (autoreverse folded in).
    var time = 0.0
    var duration = 0.25
    var iteration = 0
    /// The animation's time does not advance (speed 0).
    var isFrozen = false

    /// The animation shows a value: active, or filling before or after.
    func contributes(fill: FillMode, removedOnCompletion: Bool) -> Bool {
        switch phase {
        case .active: return true
        case .before: return fill == .backwards || fill == .both
        case .after: return !removedOnCompletion && (fill == .forwards || fill == .both)
        }
    }
}

/// What every animation has (`CAAnimation`'s own properties and its `CAMediaTiming`).
public struct AnimationCommon: Sendable {
    public var timing = MediaTiming()
    /// The pacing of each iteration (nil: linear). Implicit animations get the
    /// transaction's (`Transaction.setAnimationTimingFunction`, default `.default`).
    public var timingFunction: TimingFunction?
    /// Removed from the layer when it finishes (then its fill mode no longer shows).
    /// Ignored for a group's members, as by Core Animation: they fill per their fill mode
    /// until the group ends.
    public var isRemovedOnCompletion = true
    /// Called on the main actor when the animation starts (`animationDidStart`).
    public var didStart: (@MainActor @Sendable () -> Void)?
    /// Called on the main actor when it stops: `true` when it ran to its end, `false` when
    /// it was removed or replaced first (`animationDidStop(_:finished:)`).
    public var didStop: (@MainActor @Sendable (_ finished: Bool) -> Void)?
    public init() {}
}

/// An animation (`CAAnimation`): added to a layer with `Layer.add(_:forKey:)`, which
/// copies it — a value type, so changing the original afterwards changes nothing shown.
///
/// The kinds: `BasicAnimation`, `KeyframeAnimation`, `SpringAnimation`, `AnimationGroup`.
/// Animations change only what is presented: the model layer keeps its values
/// (`Layer.presentation()` gives what is on screen).
public protocol Animation: Sendable, LayerAction {
    var common: AnimationCommon { get set }
    /// The render-side form (immutable, Sendable): key paths parsed, values in
    /// components. Lamina's own kinds only; `nil` shows nothing.
    func makeEffect() -> AnimationEffect?
}

extension Animation {
    public var beginTime: Double { get { common.timing.beginTime } set { common.timing.beginTime = newValue } }
    public var duration: Double { get { common.timing.duration } set { common.timing.duration = newValue } }
    public var speed: Double { get { common.timing.speed } set { common.timing.speed = newValue } }
    public var timeOffset: Double { get { common.timing.timeOffset } set { common.timing.timeOffset = newValue } }
    public var repeatCount: Double { get { common.timing.repeatCount } set { common.timing.repeatCount = newValue } }
    public var repeatDuration: Double { get { common.timing.repeatDuration } set { common.timing.repeatDuration = newValue } }
    public var autoreverses: Bool { get { common.timing.autoreverses } set { common.timing.autoreverses = newValue } }
    public var fillMode: FillMode { get { common.timing.fillMode } set { common.timing.fillMode = newValue } }
    public var timingFunction: TimingFunction? { get { common.timingFunction } set { common.timingFunction = newValue } }
    public var isRemovedOnCompletion: Bool { get { common.isRemovedOnCompletion } set { common.isRemovedOnCompletion = newValue } }
    public var didStart: (@MainActor @Sendable () -> Void)? { get { common.didStart } set { common.didStart = newValue } }
    public var didStop: (@MainActor @Sendable (Bool) -> Void)? { get { common.didStop } set { common.didStop = newValue } }

    /// As an action (`CAAction`): adds a copy to the layer for `key`. An animation
    /// without from, to or by values animates from the value shown before the change
    /// (`arguments.previousValue`) to the new one; without a duration or timing function
    /// it takes the transaction's.
    @MainActor public func run(forKey key: String, on layer: Layer, arguments: ActionArguments) {
        var a = self
        if a.common.timing.duration == 0 { a.common.timing.duration = Transaction.animationDuration() }
        if a.common.timingFunction == nil { a.common.timingFunction = Transaction.animationTimingFunction() ?? .default }
        if var basic = a as? BasicAnimation, basic.fromValue == nil, basic.toValue == nil, basic.byValue == nil {
            basic.fromValue = arguments.previousValue
            layer.add(basic, forKey: key)
            return
        }
        layer.add(a, forKey: key)
    }
}

/// A property animation's key path and how it combines with what is below it.
public struct PropertyAnimationCommon: Sendable {
    public var keyPath: String
    /// The value is added to the property's value below it (the model, or earlier
    /// animations) instead of replacing it.
    public var isAdditive = false
    /// Each repetition continues from where the previous one ended.
    public var isCumulative = false
}

/// Interpolates one property from a value to another (`CABasicAnimation`).
///
/// The end points follow Core Animation's rules: from and to; from and from + by;
/// to − by and to; from and the value below (the model, or earlier animations); the value
/// below and to; the value below and that + by.
public struct BasicAnimation: Animation {
    public var common = AnimationCommon()
    public var property: PropertyAnimationCommon
    public var fromValue: AnimationValue?
    public var toValue: AnimationValue?
    public var byValue: AnimationValue?

    public init(keyPath: String) { property = PropertyAnimationCommon(keyPath: keyPath) }
    public var keyPath: String { get { property.keyPath } set { property.keyPath = newValue } }
    public var isAdditive: Bool { get { property.isAdditive } set { property.isAdditive = newValue } }
    public var isCumulative: Bool { get { property.isCumulative } set { property.isCumulative = newValue } }

    public func makeEffect() -> AnimationEffect? {
        guard let p = AnimatableProperty(keyPath: keyPath) else { return nil }
        if p.base == .contents { return AnimationEffect(common, .contents(from: FadeEnd(fromValue), to: FadeEnd(toValue), spring: nil)) }
        return AnimationEffect(common, .basic(p, from: fromValue, to: toValue, by: byValue, spring: nil,
                                              additive: isAdditive, cumulative: isCumulative))
    }
}

/// A spring (`CASpringAnimation`): a basic animation paced by a damped harmonic
/// oscillator instead of a timing function (it may overshoot). Without a `duration` it
/// lasts `settlingDuration`.
public struct SpringAnimation: Animation {
    public var common = AnimationCommon()
    public var property: PropertyAnimationCommon
    public var fromValue: AnimationValue?
    public var toValue: AnimationValue?
    public var byValue: AnimationValue?
    public var mass = 1.0
    public var stiffness = 100.0
    public var damping = 10.0
    /// In units of the whole distance per second (positive: towards the end value).
    public var initialVelocity = 0.0

    public init(keyPath: String) { property = PropertyAnimationCommon(keyPath: keyPath) }
    public var keyPath: String { get { property.keyPath } set { property.keyPath = newValue } }
    public var isAdditive: Bool { get { property.isAdditive } set { property.isAdditive = newValue } }

    var solver: SpringSolver { SpringSolver(mass: mass, stiffness: stiffness, damping: damping, initialVelocity: initialVelocity) }
    /// How long the spring takes to come to rest from these parameters.
    public var settlingDuration: Double { solver.settlingDuration }

    public func makeEffect() -> AnimationEffect? {
        guard let p = AnimatableProperty(keyPath: keyPath) else { return nil }
        var c = common
        if c.timing.duration == 0 { c.timing.duration = settlingDuration }
        if p.base == .contents { return AnimationEffect(c, .contents(from: FadeEnd(fromValue), to: FadeEnd(toValue), spring: solver)) }
        return AnimationEffect(c, .basic(p, from: fromValue, to: toValue, by: byValue, spring: solver,
                                         additive: isAdditive, cumulative: false))
    }

    /// As an action: like a basic animation's, but it keeps its own duration (the
    /// settling duration) unless one is set.
    @MainActor public func run(forKey key: String, on layer: Layer, arguments: ActionArguments) {
        var a = self
        if a.fromValue == nil, a.toValue == nil, a.byValue == nil { a.fromValue = arguments.previousValue }
        layer.add(a, forKey: key)
    }
}

/// Animates one property through a list of values (`CAKeyframeAnimation`).
public struct KeyframeAnimation: Animation {
    public var common = AnimationCommon()
    public var property: PropertyAnimationCommon
    public var values: [AnimationValue] = []
    /// One per value, from 0 to 1, increasing (discrete also takes one more); nil or
    /// invalid: evenly spaced. Ignored by the paced modes.
    public var keyTimes: [Double]?
    /// One per segment (values − 1), pacing inside each segment.
    public var timingFunctions: [TimingFunction]?
    public var calculationMode = CalculationMode.linear
    /// Kochanek–Bartels parameters of the cubic modes, one per value (nil: 0, Catmull-Rom).
    public var tensionValues: [Double]?
    public var continuityValues: [Double]?
    public var biasValues: [Double]?

    public init(keyPath: String) { property = PropertyAnimationCommon(keyPath: keyPath) }
    public var keyPath: String { get { property.keyPath } set { property.keyPath = newValue } }
    public var isAdditive: Bool { get { property.isAdditive } set { property.isAdditive = newValue } }
    public var isCumulative: Bool { get { property.isCumulative } set { property.isCumulative = newValue } }

    public func makeEffect() -> AnimationEffect? {
        guard let p = AnimatableProperty(keyPath: keyPath), let first = values.first else { return nil }
        if p.base == .contents {
            // Contents: the keyframes' indices are what is paced; between two keyframes
            // their contents cross-fade (discrete: a flip-book).
            let refs = values.map { v -> ContentRef? in if case .contents(let c) = v { return c } else { return nil } }
            return AnimationEffect(common, .contentsKeyframes(KeyframeData(
                kind: .number(0), values: refs.indices.map { [Double($0)] }, keyTimes: keyTimes, timingFunctions: timingFunctions,
                mode: calculationMode, tension: nil, continuity: nil, bias: nil).resolved(), refs))
        }
        // Every value in the first one's kind (the others converted, or dropped).
        let vs = values.compactMap { $0.converted(like: first) }
        // Transforms go through their decompositions (rotations as quaternions, each on
        // the side of the previous one: the short way), as Core Animation interpolates them.
        var components = vs.map(\.components)
        var decomposed = false
        if case .transform = first {
            let ds = vs.compactMap { v -> DecomposedTransform? in
                if case .transform(let t) = v { return t.decomposed() }
                return nil
            }
            if ds.count == vs.count {
                decomposed = true
                components = []
                var previous: [Double]?
                for d in ds {
                    var c = [d.translationX, d.translationY, d.translationZ, d.scaleX, d.scaleY, d.scaleZ,
                             d.skewXY, d.skewXZ, d.skewYZ, d.perspectiveX, d.perspectiveY, d.perspectiveZ, d.perspectiveW,
                             d.quaternionX, d.quaternionY, d.quaternionZ, d.quaternionW]
                    if let p = previous, (13..<17).reduce(0.0, { $0 + p[$1] * c[$1] }) < 0 {
                        for i in 13..<17 { c[i] = -c[i] }
                    }
                    previous = c
                    components.append(c)
                }
            }
        }
        return AnimationEffect(common, .keyframes(p, KeyframeData(
            kind: first, values: components, decomposed: decomposed, keyTimes: keyTimes, timingFunctions: timingFunctions,
            mode: calculationMode, tension: tensionValues, continuity: continuityValues, bias: biasValues).resolved(),
            additive: isAdditive, cumulative: isCumulative))
    }
}

/// Runs animations together in its own time (`CAAnimationGroup`): its members' times are
/// relative to the group's (a member with `beginTime` 0.5 starts half a second into it);
/// members are cut off where the group ends.
public struct AnimationGroup: Animation {
    public var common = AnimationCommon()
    public var animations: [any Animation] = []
    public init(_ animations: [any Animation] = []) { self.animations = animations }

    public func makeEffect() -> AnimationEffect? {
        // Members without a duration of their own last as long as the group.
        let d = common.timing.effectiveDuration
        return AnimationEffect(common, .group(animations.compactMap { member in
            var m = member
            if m.duration == 0 { m.duration = d }
            return m.makeEffect()
        }))
    }
}

/// The arguments an action runs with.
public struct ActionArguments: Sendable {
    /// The value the property showed before the change (the presentation value when it
    /// was animating, else the old model value).
    public var previousValue: AnimationValue?
    /// The model value before the change.
    public var previousModelValue: AnimationValue?
    public init(previousValue: AnimationValue?, previousModelValue: AnimationValue? = nil) {
        self.previousValue = previousValue
        self.previousModelValue = previousModelValue ?? previousValue
    }
}

/// Something a layer runs when a property changes (`CAAction`): every `Animation` is one.
public protocol LayerAction {
    @MainActor func run(forKey key: String, on layer: Layer, arguments: ActionArguments)
}

/// The render-side form of an animation: immutable, with its key path parsed and its
/// values in components, evaluated by the renderer every frame (and by
/// `Layer.presentation()`). Made by `Animation.makeEffect()`.
public final class AnimationEffect: Sendable {
    enum Kind: Sendable {
        case basic(AnimatableProperty, from: AnimationValue?, to: AnimationValue?, by: AnimationValue?, spring: SpringSolver?,
                   additive: Bool, cumulative: Bool)
        case keyframes(AnimatableProperty, KeyframeData, additive: Bool, cumulative: Bool)
        case group([AnimationEffect])
        /// A `contents` animation: a cross-fade from one end to the other.
        case contents(from: FadeEnd, to: FadeEnd, spring: SpringSolver?)
        /// A keyframe animation of `contents`: keyframe indices, and their contents.
        case contentsKeyframes(KeyframeData, [ContentRef?])
        /// A transition (`TransitionAnimation`), by its identity, from `start` to `end` progress.
        case transition(id: UInt64, start: Double, end: Double)
    }
    let timing: MediaTiming
    let timingFunction: TimingFunction?
    let isRemovedOnCompletion: Bool
    let kind: Kind
    /// What the animation can change, for a renderer.
    let changes: LayerChanges

    init(_ c: AnimationCommon, _ kind: Kind) {
        timing = c.timing; timingFunction = c.timingFunction; isRemovedOnCompletion = c.isRemovedOnCompletion
        self.kind = kind
        switch kind {
        case .basic(let p, _, _, _, _, _, _), .keyframes(let p, _, _, _): changes = p.changes
        case .group(let members): changes = members.reduce(into: LayerChanges()) { $0.formUnion($1.changes) }
        case .contents, .contentsKeyframes: changes = .contents
        case .transition: changes = .groupOpacity
        }
        referencedContents = Self.contents(of: kind)
    }

    /// The transitions in it (itself, or members of a group), by id.
    var transitionIDs: [UInt64] {
        switch kind {
        case .transition(let id, _, _): return [id]
        case .group(let members): return members.flatMap(\.transitionIDs)
        default: return []
        }
    }

    /// The contents it shows besides the layer's own (kept on the GPU while it is on a
    /// layer). Worked out once: the render tree reads it at every update of an animated layer.
    let referencedContents: [ContentRef]

    private static func contents(of kind: Kind) -> [ContentRef] {
        switch kind {
        case .basic, .keyframes, .transition: return []
        case .group(let members): return members.flatMap(\.referencedContents)
        case let .contents(from, to, _): return [from, to].compactMap { if case .contents(let c?) = $0 { return c } else { return nil } }
        case .contentsKeyframes(_, let refs): return refs.compactMap { $0 }
        }
    }

    private init(copying e: AnimationEffect, beginTime: Double) {
        var t = e.timing
        t.beginTime = beginTime
        timing = t; timingFunction = e.timingFunction; isRemovedOnCompletion = e.isRemovedOnCompletion
        kind = e.kind; changes = e.changes; referencedContents = e.referencedContents
    }

    /// The same effect beginning at `beginTime`.
    func beginning(at beginTime: Double) -> AnimationEffect { AnimationEffect(copying: self, beginTime: beginTime) }

    /// Applies the animation at `parentTime` (its layer's time, or its group's) to `p`,
    /// which holds the values below it (the model's, then earlier animations').
    func apply(at parentTime: Double, to p: inout LayerProperties, inGroup: Bool = false) {
        let s = timing.evaluate(parentTime: parentTime)
        // A group's member is never removed by itself (the group is): its fill mode alone
        // says what it shows outside its own active time.
        guard s.contributes(fill: timing.fillMode, removedOnCompletion: isRemovedOnCompletion && !inGroup) else { return }
        let d = s.duration
        switch kind {
        case .group(let members):
            // The members run in the group's time, paced by its timing function.
            let t = timingFunction == nil ? s.time : d * paced(s.time / d, duration: d)
            for m in members { m.apply(at: t, to: &p, inGroup: true) }
        case let .basic(property, from, to, by, spring, additive, cumulative):
            // The value below is read only when it is needed (a transform component's
            // costs a decomposition).
            let needsBelow = additive || from == nil || (to == nil && by == nil) || (from == nil && to == nil)
            let below = needsBelow ? property.value(in: p) : property.kind
            guard let (a, b) = Self.endPoints(from: from, to: to, by: by, below: below) else { return }
            let f: Double
            if let spring {
                f = spring.value(at: s.time)
            } else {
                f = paced(s.time / d, duration: d)
            }
            var v = AnimationValue.interpolate(a, b, f)
            if cumulative && s.iteration > 0 {
                v = AnimationValue.adding(v, AnimationValue.scaled(AnimationValue.subtracting(b, a), by: s.iteration))
            }
            if additive { v = AnimationValue.adding(below, v) }
            property.set(v, in: &p)
        case let .contents(from, to, spring):
            // (A spring's overshoot is clamped: a mix has no meaning past its two ends.)
            let f = spring.map { $0.value(at: s.time) } ?? paced(s.time / d, duration: d)
            p.contentsFade = ContentsFade(from: from, to: to, fraction: f.isNaN ? 1 : min(max(f, 0), 1))
        case let .contentsKeyframes(data, refs):
            guard !refs.isEmpty, case .number(let x) = data.value(at: paced(s.time / d, duration: d)) else { return }
            let i = min(max(Int(x.rounded(.down)), 0), refs.count - 1)
            let f = i + 1 < refs.count ? min(max(x - Double(i), 0), 1) : 0
            p.contentsFade = ContentsFade(from: .contents(refs[i]), to: .contents(refs[min(i + 1, refs.count - 1)]), fraction: f)
        case let .transition(id, start, end):
            let f = paced(s.time / d, duration: d)
            p.transition = TransitionProgress(id: id, fraction: min(max(start + (end - start) * f, 0), 1))
        case let .keyframes(property, data, additive, cumulative):
            guard !data.values.isEmpty else { return }
            var v = data.value(at: paced(s.time / d, duration: d))
            if cumulative && s.iteration > 0, let delta = data.delta {
                v = AnimationValue.adding(v, AnimationValue.scaled(delta, by: s.iteration))
            }
            if additive { v = AnimationValue.adding(property.value(in: p), v) }
            property.set(v, in: &p)
        }
    }

    /// The fraction after the timing function (x(t) = x solved to 1e-7: Core Animation's
    /// own solver stops at 1/(200·duration), which moves a 100-point animation by up to
    /// a third of a point; the exact curve is what it approximates).
    private func paced(_ x: Double, duration: Double) -> Double {
        guard let tf = timingFunction else { return x }
        return tf.value(at: x)
    }

    static func endPoints(from: AnimationValue?, to: AnimationValue?, by: AnimationValue?,
                          below: AnimationValue) -> (AnimationValue, AnimationValue)? {
        let from = from?.converted(like: below), to = to?.converted(like: below), by = by?.converted(like: below)
        switch (from, to, by) {
        case let (f?, t?, _): return (f, t)
        case let (f?, nil, b?): return (f, AnimationValue.adding(f, b))
        case let (nil, t?, b?): return (AnimationValue.subtracting(t, b), t)
        case let (f?, nil, nil): return (f, below)
        case let (nil, t?, nil): return (below, t)
        case let (nil, nil, b?): return (below, AnimationValue.adding(below, b))
        case (nil, nil, nil): return nil
        }
    }

    /// Whether it is playing at `parentTime` (active, and its time advances): frames are
    /// needed. (Before its start nothing changes until then: the frame clock waits for it.)
    func isRunning(at parentTime: Double) -> Bool {
        let s = timing.evaluate(parentTime: parentTime)
        return s.phase == .active && !s.isFrozen
    }

    /// Whether its timing is usable: finite times, a non-negative duration and repeat
    /// duration, a repeat count that is a number ≥ 0 — its members' too.
    var hasValidTiming: Bool {
        let t = timing
        guard t.beginTime.isFinite, t.timeOffset.isFinite, t.duration.isFinite, t.duration >= 0, t.speed.isFinite,
              !t.repeatCount.isNaN, t.repeatCount >= 0, t.repeatDuration.isFinite, t.repeatDuration >= 0 else { return false }
        if case .group(let members) = kind { return members.allSatisfy(\.hasValidTiming) }
        return true
    }

    /// Whether it has ended at `parentTime` (and so its stop is reported).
    func hasEnded(at parentTime: Double) -> Bool { timing.evaluate(parentTime: parentTime).phase == .after }
    /// Whether it has started at `parentTime`.
    func hasStarted(at parentTime: Double) -> Bool { timing.evaluate(parentTime: parentTime).phase != .before }
}

/// A keyframe animation's values, as components.
struct KeyframeData: Sendable {
    var kind: AnimationValue
    var values: [[Double]]
    /// Transforms as 17 decomposition components (translation, scale, skew, perspective,
    /// quaternion) rather than 16 matrix elements.
    var decomposed = false
    var keyTimes: [Double]?
    var timingFunctions: [TimingFunction]?
    var mode: CalculationMode
    var tension, continuity, bias: [Double]?

    /// Works out the key times once (evaluated every frame with them: same values).
    func resolved() -> KeyframeData {
        guard let times = KeyframeMath.resolvedTimes(values: values, keyTimes: keyTimes, mode: mode) else { return self }
        var r = self
        r.keyTimes = times
        switch mode {
        case .paced: r.mode = .linear; r.timingFunctions = nil
        case .cubicPaced: r.mode = .cubic; r.timingFunctions = nil
        default: break
        }
        return r
    }

    func value(at progress: Double) -> AnimationValue {
        if decomposed, mode == .linear || mode == .discrete {
            // The segment and the fraction inside it (the same pacing, on the keyframes'
            // indices), then the two decompositions interpolated: the rotation by slerp.
            let x = KeyframeMath.evaluate(values: values.indices.map { [Double($0)] }, keyTimes: keyTimes,
                                          timingFunctions: timingFunctions, mode: mode, tension: nil, continuity: nil,
                                          bias: nil, progress: progress)[0]
            let i = min(max(Int(x.rounded(.down)), 0), values.count - 1)
            let f = x - Double(i)
            if i + 1 < values.count && f > 0 {
                return .transform(DecomposedTransform.interpolate(decomposition(values[i]), decomposition(values[i + 1]),
                                                                  fraction: f).recomposed())
            }
            return .transform(decomposition(values[i]).recomposed())
        }
        let v = KeyframeMath.evaluate(values: values, keyTimes: keyTimes, timingFunctions: timingFunctions, mode: mode,
                                      tension: tension, continuity: continuity, bias: bias, progress: progress)
        if decomposed, v.count == 17 {
            // (Paced and cubic modes: the components along the curve, the quaternion
            // normalized — close to, not exactly, a spherical interpolation.)
            var d = decomposition(v)
            let n = (v[13] * v[13] + v[14] * v[14] + v[15] * v[15] + v[16] * v[16]).squareRoot()
            if n > 0 {
                d.quaternionX /= n; d.quaternionY /= n; d.quaternionZ /= n; d.quaternionW /= n
            } else {
                (d.quaternionX, d.quaternionY, d.quaternionZ, d.quaternionW) = (0, 0, 0, 1)
            }
            return .transform(d.recomposed())
        }
        return AnimationValue.like(kind, v)
    }

    private func decomposition(_ v: [Double]) -> DecomposedTransform {
        DecomposedTransform(translationX: v[0], translationY: v[1], translationZ: v[2],
                            scaleX: v[3], scaleY: v[4], scaleZ: v[5], skewXY: v[6], skewXZ: v[7], skewYZ: v[8],
                            perspectiveX: v[9], perspectiveY: v[10], perspectiveZ: v[11], perspectiveW: v[12],
                            quaternionX: v[13], quaternionY: v[14], quaternionZ: v[15], quaternionW: v[16])
    }

    /// The last value minus the first (what a cumulative animation adds per iteration).
    var delta: AnimationValue? {
        guard values.count > 1 else { return nil }
        return AnimationValue.subtracting(value(at: 1), value(at: 0))
    }
}

/// An animation on a layer, as the model and the renderers hold it.
public struct AddedAnimation: Sendable {
    /// Its key (nil: added without one).
    public let key: String?
    let effect: AnimationEffect
    /// `beginTime` was 0: it begins when its layer is next committed.
    let beginsAtCommit: Bool
    /// The animation as added (for `animation(forKey:)` and its callbacks).
    let animation: any Animation
    /// The transaction it was added in (for completion blocks).
    let transactionID: Int
    /// Identifies it for the start and stop callbacks.
    let serial: UInt64

    private static let counter = Locked<UInt64>(0)
    static func nextSerial() -> UInt64 { counter.withLock { $0 += 1; return $0 } }

    /// The same animation, begun at `time` (its layer's time at the commit).
    func begun(at time: Double) -> AddedAnimation {
        var a = animation
        a.beginTime = time
        return AddedAnimation(key: key, effect: effect.beginning(at: time), beginsAtCommit: false, animation: a,
                              transactionID: transactionID, serial: serial)
    }
}

/// Applies a layer's animation effects, in the order they were added, to its model
/// properties at its local time `time`: what the renderer shows each frame and
/// `Layer.presentation()` returns.
func presentedProperties<S: Sequence<AnimationEffect>>(_ model: LayerProperties, effects: S, at time: Double) -> LayerProperties {
    var p = model
    for e in effects { e.apply(at: time, to: &p) }
    return p
}

/// The media clock (`CACurrentMediaTime`): seconds on the monotonic clock, or a time set
/// by a test or a tool (`lamina render --time`), so that a frame at an exact time can be
/// rendered. Thread-safe.
public enum MediaClock {
    private static let manual = Locked<Double?>(nil)

    /// The current media time.
    public static func now() -> Double {
        manual.withLock { $0 } ?? MainLoop.now()
    }

    /// Fixes the clock at `time` (nil: back to the real clock).
    public static func set(_ time: Double?) { manual.withLock { $0 = time } }

    /// Moves a fixed clock by `seconds` (fixes it at now + `seconds` if it was running).
    public static func advance(by seconds: Double) {
        let now = MainLoop.now()
        manual.withLock { $0 = ($0 ?? now) + seconds }
    }

    /// Whether the clock is fixed.
    public static var isFixed: Bool { manual.withLock { $0 != nil } }
}

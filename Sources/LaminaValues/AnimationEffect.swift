import FoundationEssentials
import Glibc
import LaminaGeometry

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
package struct TimingState {
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

/// The render-side form of an animation: immutable, with its key path parsed and its
/// values in components, evaluated by the renderer every frame (and by
/// `Layer.presentation()`). Made by `Animation.makeEffect()`.
public final class AnimationEffect: Sendable {
    /// Every payload is one reference (the rare kinds boxed): reading `kind` to switch on
    /// it, once per animation a frame, copies a word and retains it, not a wide payload.
    package enum Kind: Sendable {
        case basic(BasicValues)
        case keyframes(KeyframeValues)
        case group([AnimationEffect])
        /// A `contents` animation: a cross-fade from one end to the other.
        indirect case contents(from: FadeEnd, to: FadeEnd, spring: SpringSolver?)
        /// A keyframe animation of `contents`: keyframe indices, and their contents.
        indirect case contentsKeyframes(KeyframeData, [ContentRef?])
        /// A transition (`TransitionAnimation`), by its identity, from `start` to `end`
        /// progress, showing the old and new pictures as `motion` says.
        indirect case transition(id: UInt64, start: Double, end: Double, motion: TransitionMotion)
    }
    package let timing: MediaTiming
    let timingFunction: TimingFunction?
    package let isRemovedOnCompletion: Bool
    let kind: Kind
    /// What the animation can change, for a renderer.
    let changes: LayerChanges

    package init(timing: MediaTiming, timingFunction: TimingFunction?, isRemovedOnCompletion: Bool, _ kind: Kind) {
        self.timing = timing; self.timingFunction = timingFunction; self.isRemovedOnCompletion = isRemovedOnCompletion
        self.kind = kind
        switch kind {
        case .basic(let b): changes = b.property.changes
        case .keyframes(let k): changes = k.property.changes
        case .group(let members): changes = members.reduce(into: LayerChanges()) { $0.formUnion($1.changes) }
        case .contents, .contentsKeyframes: changes = .contents
        case .transition: changes = .groupOpacity
        }
        referencedContents = Self.contents(of: kind)
    }

    /// The transitions in it (itself, or members of a group), by id.
    package var transitionIDs: [UInt64] {
        switch kind {
        case .transition(let id, _, _, _): return [id]
        case .group(let members): return members.flatMap(\.transitionIDs)
        default: return []
        }
    }

    /// The contents it shows besides the layer's own (kept on the GPU while it is on a
    /// layer). Worked out once: the render tree reads it at every update of an animated layer.
    package let referencedContents: [ContentRef]

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

    /// The custom keys (`AnimatableProperty.customKey`) it animates, its members' included.
    public var customKeys: [String] {
        switch kind {
        case .group(let members): return members.flatMap(\.customKeys)
        case .basic(let b): return b.property.customKey.map { [$0] } ?? []
        case .keyframes(let k): return k.property.customKey.map { [$0] } ?? []
        default: return []
        }
    }

    /// The same effect beginning at `beginTime`.
    package func beginning(at beginTime: Double) -> AnimationEffect { AnimationEffect(copying: self, beginTime: beginTime) }

    /// Applies the animation at `parentTime` (its layer's time, or its group's) to `p`,
    /// which holds the values below it (the model's, then earlier animations').
    @usableFromInline func apply(at parentTime: Double, to p: inout LayerProperties, inGroup: Bool = false) {
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
        case .basic(let basic):
            if let (a, b) = basic.numberEnds {
                // The arithmetic of the general path below for two numbers (`interpolate`,
                // then `adding(v, scaled(subtracting(b, a), by:))`), without its values.
                let f = basic.spring.map { $0.value(at: s.time) } ?? paced(s.time / d, duration: d)
                var v = a + (b - a) * f
                if basic.cumulative && s.iteration > 0 { v = v + (b - a) * Double(s.iteration) }
                basic.property.set(.number(v), in: &p)
                return
            }
            let property = basic.property
            // The value below is read only when it is needed (a transform component's
            // costs a decomposition).
            let below = basic.needsBelow || property.isUniform ? property.value(in: p) : property.kind   // (a uniform's type is its value's)
            guard let (a, b) = Self.endPoints(from: basic.from, to: basic.to, by: basic.by, below: below) else { return }
            let f: Double
            if let spring = basic.spring {
                f = spring.value(at: s.time)
            } else {
                f = paced(s.time / d, duration: d)
            }
            var v = AnimationValue.interpolate(a, b, f)
            if basic.cumulative && s.iteration > 0 {
                v = AnimationValue.adding(v, AnimationValue.scaled(AnimationValue.subtracting(b, a), by: s.iteration))
            }
            if basic.additive { v = AnimationValue.adding(below, v) }
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
        case let .transition(id, start, end, motion):
            let f = paced(s.time / d, duration: d)
            p.transition = TransitionProgress(id: id, fraction: min(max(start + (end - start) * f, 0), 1), motion: motion)
        case .keyframes(let keyframes):
            // (`keyframes.data` read in place: bound to a local, the struct was copied, its
            // arrays retained and released, once per animation a frame.)
            guard !keyframes.data.values.isEmpty else { return }
            var v = keyframes.data.value(at: paced(s.time / d, duration: d))
            if keyframes.cumulative && s.iteration > 0, let delta = keyframes.data.delta {
                v = AnimationValue.adding(v, AnimationValue.scaled(delta, by: s.iteration))
            }
            if keyframes.additive { v = AnimationValue.adding(keyframes.property.value(in: p), v) }
            keyframes.property.set(v, in: &p)
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
        let from = from?.converted(like: below), to = to?.converted(like: below)
        // (Tested one by one: a switch over the three made a tuple of copies first.)
        if let f = from, let t = to { return (f, t) }
        let by = by?.converted(like: below)
        if let f = from { return (f, by.map { AnimationValue.adding(f, $0) } ?? below) }
        if let t = to { return (by.map { AnimationValue.subtracting(t, $0) } ?? below, t) }
        return by.map { (below, AnimationValue.adding(below, $0)) }
    }

    /// Whether it is playing at `parentTime` (active, and its time advances): frames are
    /// needed. (Before its start nothing changes until then: the frame clock waits for it.)
    package func isRunning(at parentTime: Double) -> Bool {
        let s = timing.evaluate(parentTime: parentTime)
        return s.phase == .active && !s.isFrozen
    }

    /// Whether its timing is usable: finite times, a non-negative duration and repeat
    /// duration, a repeat count that is a number ≥ 0 — its members' too.
    package var hasValidTiming: Bool {
        let t = timing
        guard t.beginTime.isFinite, t.timeOffset.isFinite, t.duration.isFinite, t.duration >= 0, t.speed.isFinite,
              !t.repeatCount.isNaN, t.repeatCount >= 0, t.repeatDuration.isFinite, t.repeatDuration >= 0 else { return false }
        if case .group(let members) = kind { return members.allSatisfy(\.hasValidTiming) }
        return true
    }

    /// Whether it has ended at `parentTime` (and so its stop is reported).
    package func hasEnded(at parentTime: Double) -> Bool { timing.evaluate(parentTime: parentTime).phase == .after }
    /// Whether it has started at `parentTime`.
    package func hasStarted(at parentTime: Double) -> Bool { timing.evaluate(parentTime: parentTime).phase != .before }
}

/// A basic animation's property and values. (A reference: an effect evaluated every frame
/// reads them in place, where an enum payload of them was copied whole at each evaluation.)
package final class BasicValues: Sendable {
    let property: AnimatableProperty
    let from, to, by: AnimationValue?
    let spring: SpringSolver?
    let additive, cumulative: Bool
    /// Whether the value below it is read: additive, or an end taken from it.
    let needsBelow: Bool
    /// Both ends as numbers, for a property of numbers whose ends are `from` and `to` and
    /// do not depend on the value below (most animations: opacity, a rotation, a scale):
    /// converted once here, not every frame (`AnimationEffect.apply`).
    let numberEnds: (from: Double, to: Double)?

    package init(_ property: AnimatableProperty, from: AnimationValue?, to: AnimationValue?, by: AnimationValue?,
                 spring: SpringSolver?, additive: Bool, cumulative: Bool) {
        self.property = property; self.from = from; self.to = to; self.by = by; self.spring = spring
        self.additive = additive; self.cumulative = cumulative
        needsBelow = additive || from == nil || (to == nil && by == nil)
        let kind = property.kind
        if !needsBelow, !property.isUniform, case .number = kind,
           case .number(let a)? = from?.converted(like: kind), case .number(let b)? = to?.converted(like: kind) {
            numberEnds = (a, b)
        } else {
            numberEnds = nil
        }
    }
}

/// A keyframe animation's property and values (a reference, as `BasicValues`).
package final class KeyframeValues: Sendable {
    let property: AnimatableProperty
    let data: KeyframeData
    let additive, cumulative: Bool

    package init(_ property: AnimatableProperty, _ data: KeyframeData, additive: Bool, cumulative: Bool) {
        self.property = property; self.data = data; self.additive = additive; self.cumulative = cumulative
    }
}

/// A keyframe animation's values, as components.
package struct KeyframeData: Sendable {
    var kind: AnimationValue
    var values: [[Double]]
    /// Transforms as 17 decomposition components (translation, scale, skew, perspective,
    /// quaternion) rather than 16 matrix elements.
    var decomposed = false
    var keyTimes: [Double]?
    var timingFunctions: [TimingFunction]?
    var mode: CalculationMode
    var tension, continuity, bias: [Double]?
    /// The values' common length once `resolved()` found the values and key times fit for
    /// `KeyframeMath.along` (nil: `evaluate` checks them at every frame).
    private var checkedLength: Int?

    package init(kind: AnimationValue, values: [[Double]], decomposed: Bool = false, keyTimes: [Double]?,
                 timingFunctions: [TimingFunction]?, mode: CalculationMode, tension: [Double]?, continuity: [Double]?,
                 bias: [Double]?) {
        self.kind = kind; self.values = values; self.decomposed = decomposed; self.keyTimes = keyTimes
        self.timingFunctions = timingFunctions; self.mode = mode; self.tension = tension; self.continuity = continuity; self.bias = bias
    }

    /// Works out the key times once (evaluated every frame with them: same values).
    package func resolved() -> KeyframeData {
        guard let times = KeyframeMath.resolvedTimes(values: values, keyTimes: keyTimes, mode: mode) else { return self }
        var r = self
        r.keyTimes = times
        switch mode {
        case .paced: r.mode = .linear; r.timingFunctions = nil
        case .cubicPaced: r.mode = .cubic; r.timingFunctions = nil
        default: break
        }
        if r.mode == .linear || r.mode == .cubic, let length = values.first?.count, values.allSatisfy({ $0.count == length }) {
            r.checkedLength = length
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
        let v: [Double]
        if let length = checkedLength, let times = keyTimes {
            if length == 1, !decomposed, case .number = kind {
                return .number(KeyframeMath.alongScalar(values, times: times, timingFunctions: timingFunctions, cubic: mode == .cubic,
                                                        tension: tension, continuity: continuity, bias: bias,
                                                        progress: progress.isNaN ? 0 : progress))
            }
            v = KeyframeMath.along(values, dim: length, times: times, timingFunctions: timingFunctions, cubic: mode == .cubic,
                                   tension: tension, continuity: continuity, bias: bias, progress: progress.isNaN ? 0 : progress)
        } else {
            v = KeyframeMath.evaluate(values: values, keyTimes: keyTimes, timingFunctions: timingFunctions, mode: mode,
                                      tension: tension, continuity: continuity, bias: bias, progress: progress)
        }
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

/// Applies a layer's animation effects, in the order they were added, to its model
/// properties at its local time `time`: what the renderer shows each frame and
/// `Layer.presentation()` returns.
/// (Inlinable: specialized where it is called — the renderer's arrays — instead of
/// stepping a generic iterator through witness calls.)
@inlinable
package func presentedProperties<S: Sequence<AnimationEffect>>(_ model: LayerProperties, effects: S, at time: Double) -> LayerProperties {
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
        manual.withLock { $0 } ?? MonotonicClock.now()
    }

    /// Fixes the clock at `time` (nil: back to the real clock).
    public static func set(_ time: Double?) { manual.withLock { $0 = time } }

    /// Moves a fixed clock by `seconds` (fixes it at now + `seconds` if it was running).
    public static func advance(by seconds: Double) {
        let now = MonotonicClock.now()
        manual.withLock { $0 = ($0 ?? now) + seconds }
    }

    /// Whether the clock is fixed.
    public static var isFixed: Bool { manual.withLock { $0 != nil } }
}


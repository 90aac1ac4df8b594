import FoundationEssentials
import Glibc
import LaminaGeometry
import LaminaValues

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
    /// The render-side form (immutable, Sendable): key paths parsed — `isCustomKey` says
    /// which names are keys of the layer's own kind (`LayerProperties.custom`) — values in
    /// components. Lamina's own kinds only; `nil` shows nothing.
    func makeEffect(customKeys isCustomKey: (String) -> Bool) -> AnimationEffect?
}

extension Animation {
    /// The render-side form, for a layer with no keys of its own.
    public func makeEffect() -> AnimationEffect? { makeEffect(customKeys: { _ in false }) }

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
        if a.common.timing.duration == 0 { a.common.timing.duration = layer.transactionContext.animationDuration() }
        if a.common.timingFunction == nil { a.common.timingFunction = layer.transactionContext.animationTimingFunction() ?? .default }
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

    public func makeEffect(customKeys isCustomKey: (String) -> Bool) -> AnimationEffect? {
        guard let p = AnimatableProperty(keyPath: keyPath, customKeys: isCustomKey) else { return nil }
        if p.base == .contents { return AnimationEffect(common, .contents(from: FadeEnd(fromValue), to: FadeEnd(toValue), spring: nil)) }
        return AnimationEffect(common, .basic(BasicValues(p, from: fromValue, to: toValue, by: byValue, spring: nil,
                                                          additive: isAdditive, cumulative: isCumulative)))
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
    /// How long the spring takes to come to rest from these parameters
    /// (`CASpringAnimation.settlingDuration`). A spring lasts its `duration`; one added
    /// without a duration takes the transaction's (0.25 s by default) and is cut there, as
    /// Core Animation's is: set `duration = settlingDuration` to run it to rest.
    public var settlingDuration: Double { solver.settlingDuration }

    public func makeEffect(customKeys isCustomKey: (String) -> Bool) -> AnimationEffect? {
        guard let p = AnimatableProperty(keyPath: keyPath, customKeys: isCustomKey) else { return nil }
        let c = common
        if p.base == .contents { return AnimationEffect(c, .contents(from: FadeEnd(fromValue), to: FadeEnd(toValue), spring: solver)) }
        return AnimationEffect(c, .basic(BasicValues(p, from: fromValue, to: toValue, by: byValue, spring: solver,
                                                     additive: isAdditive, cumulative: false)))
    }

    /// As an action: like a basic animation's (without a duration, the transaction's).
    @MainActor public func run(forKey key: String, on layer: Layer, arguments: ActionArguments) {
        var a = self
        if a.common.timing.duration == 0 { a.common.timing.duration = layer.transactionContext.animationDuration() }
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

    public func makeEffect(customKeys isCustomKey: (String) -> Bool) -> AnimationEffect? {
        guard let p = AnimatableProperty(keyPath: keyPath, customKeys: isCustomKey), let first = values.first else { return nil }
        if p.base == .contents {
            // Contents: the keyframes' indices are what is paced; between two keyframes
            // their contents cross-fade (discrete: a flip-book).
            let refs = values.map { v -> ContentRef? in if case .contents(let c) = v { return c } else { return nil } }
            return AnimationEffect(common, .contentsKeyframes(KeyframeData(
                kind: .number(0), values: refs.indices.map { [Double($0)] }, keyTimes: keyTimes, timingFunctions: timingFunctions,
                mode: calculationMode, tension: nil, continuity: nil, bias: nil).resolved(), refs))
        }
        // Every value in the first one's kind (the others converted, or dropped — as are
        // paths of other elements and lists of other lengths, which do not morph).
        let vs = values.compactMap { $0.converted(like: first) }.filter { first.morphs(into: $0) }
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
        return AnimationEffect(common, .keyframes(KeyframeValues(p, KeyframeData(
            kind: first, values: components, decomposed: decomposed, keyTimes: keyTimes, timingFunctions: timingFunctions,
            mode: calculationMode, tension: tensionValues, continuity: continuityValues, bias: biasValues).resolved(),
            additive: isAdditive, cumulative: isCumulative)))
    }
}

/// Runs animations together in its own time (`CAAnimationGroup`): its members' times are
/// relative to the group's (a member with `beginTime` 0.5 starts half a second into it);
/// members are cut off where the group ends.
public struct AnimationGroup: Animation {
    public var common = AnimationCommon()
    public var animations: [any Animation] = []
    public init(_ animations: [any Animation] = []) { self.animations = animations }

    public func makeEffect(customKeys isCustomKey: (String) -> Bool) -> AnimationEffect? {
        // Members without a duration of their own last as long as the group.
        let d = common.timing.effectiveDuration
        return AnimationEffect(common, .group(animations.compactMap { member in
            var m = member
            if m.duration == 0 { m.duration = d }
            return m.makeEffect(customKeys: isCustomKey)
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

extension AnimationEffect {
    /// An effect with an animation's timing.
    convenience init(_ c: AnimationCommon, _ kind: Kind) {
        self.init(timing: c.timing, timingFunction: c.timingFunction, isRemovedOnCompletion: c.isRemovedOnCompletion, kind)
    }
}

import FoundationEssentials
import Glibc
import LaminaCore
import LaminaGeometry

/// Options of `View.animate` (`UIView.AnimationOptions`).
public struct AnimationOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Views stay hit-testable while they animate (by default they are not, as in UIKit).
    public static let allowUserInteraction = AnimationOptions(rawValue: 1 << 1)
    /// Start from what is shown (the presentation value) rather than the old model value.
    public static let beginFromCurrentState = AnimationOptions(rawValue: 1 << 2)
    /// Repeat forever.
    public static let `repeat` = AnimationOptions(rawValue: 1 << 3)
    /// Run backwards after each run forwards.
    public static let autoreverse = AnimationOptions(rawValue: 1 << 4)
    /// The pacing; ease-in-ease-out when none is given.
    public static let curveEaseInOut = AnimationOptions(rawValue: 0 << 16)
    public static let curveEaseIn = AnimationOptions(rawValue: 1 << 16)
    public static let curveEaseOut = AnimationOptions(rawValue: 2 << 16)
    public static let curveLinear = AnimationOptions(rawValue: 3 << 16)

    /// `View.transition(with:…)`: the view's old picture cross-dissolves into its new one.
    public static let transitionCrossDissolve = AnimationOptions(rawValue: 5 << 20)
    /// `View.transition(with:…)`, Lamina's (UIKit has them only as `CATransition` types): the
    /// new picture slides in and pushes the old one out; slides in over the old one; the old
    /// one slides out, showing the new one. From the left unless a `transitionFrom…` option
    /// says otherwise.
    public static let transitionPush = AnimationOptions(rawValue: 8 << 20)
    public static let transitionMoveIn = AnimationOptions(rawValue: 9 << 20)
    public static let transitionReveal = AnimationOptions(rawValue: 10 << 20)
    /// Where `transitionPush`, `transitionMoveIn` and `transitionReveal` start.
    public static let transitionFromLeft = AnimationOptions(rawValue: 0 << 28)
    public static let transitionFromRight = AnimationOptions(rawValue: 1 << 28)
    public static let transitionFromTop = AnimationOptions(rawValue: 2 << 28)
    public static let transitionFromBottom = AnimationOptions(rawValue: 3 << 28)

    /// The transition the options ask for (nil: none, or one Lamina does not draw: the
    /// flips and curls).
    var transition: TransitionAnimation? {
        let subtypes: [TransitionAnimation.Subtype] = [.fromLeft, .fromRight, .fromTop, .fromBottom]
        let subtype = subtypes[Int((rawValue >> 28) & 3)]
        switch (rawValue >> 20) & 0xF {
        case 5: return TransitionAnimation(type: .fade)
        case 8: return TransitionAnimation(type: .push, subtype: subtype)
        case 9: return TransitionAnimation(type: .moveIn, subtype: subtype)
        case 10: return TransitionAnimation(type: .reveal, subtype: subtype)
        default: return nil
        }
    }

    var timingFunction: TimingFunction {
        switch (rawValue >> 16) & 3 {
        case 1: return .easeIn
        case 2: return .easeOut
        case 3: return .linear
        default: return .easeInEaseOut
        }
    }
}

/// An animation block being run (`View.animate`): the actions it gives the views' layers.
@MainActor
final class ViewAnimationBlock {
    let duration: Double
    let delay: Double
    let options: AnimationOptions
    /// Spring parameters (damping ratio, initial velocity), for the spring variant.
    let spring: (dampingRatio: Double, velocity: Double)?
    private var running = 0
    private var allFinished = true
    private var closed = false
    private var completion: ((Bool) -> Void)?

    init(duration: Double, delay: Double, options: AnimationOptions, spring: (Double, Double)?, completion: ((Bool) -> Void)?) {
        self.duration = max(0, duration.isFinite ? duration : 0)
        self.delay = max(0, delay.isFinite ? delay : 0)
        self.options = options
        self.spring = spring.map { (dampingRatio: $0.0, velocity: $0.1) }
        self.completion = completion
    }

    /// The animation for a change of `key` of `view`'s layer.
    func animate(_ key: String, of view: View, layer: Layer, arguments: ActionArguments) {
        // A block of no duration changes at once (UIKit): no animation; the completion
        // runs after the commit.
        guard duration > 0 || delay > 0 else { return }
        let from = options.contains(.beginFromCurrentState) ? arguments.previousValue : arguments.previousModelValue
        var animation: any Animation
        if let spring {
            // UIKit's spring: the duration sets the response (mass 1, stiffness (2π/d)²),
            // the damping ratio the damping (ζ · 2√k).
            var s = SpringAnimation(keyPath: key)
            let d = max(duration, 0.01)
            s.stiffness = pow(2 * Double.pi / d, 2)
            s.damping = 2 * max(0, spring.dampingRatio) * s.stiffness.squareRoot()
            s.initialVelocity = spring.velocity
            s.fromValue = from
            s.duration = max(duration, s.settlingDuration)
            animation = s
        } else {
            var b = BasicAnimation(keyPath: key)
            b.fromValue = from
            b.duration = max(duration, 1e-6)   // (no duration after a delay: a step then)
            b.timingFunction = options.timingFunction
            animation = b
        }
        if options.contains(.repeat) { animation.repeatCount = .infinity }
        if options.contains(.autoreverse) { animation.autoreverses = true }
        if delay > 0 {
            animation.beginTime = layer.convertTime(MediaClock.now(), from: nil) + delay
            animation.fillMode = .backwards
        }
        running += 1
        let blocksInteraction = !options.contains(.allowUserInteraction)
        if blocksInteraction { view.animationsBlockingInteraction += 1 }
        // The animations keep their block (nothing else does once `animate` returns) until
        // the last one stops and the completion has run.
        animation.didStop = { [self, weak view] finished in
            if blocksInteraction { view?.animationsBlockingInteraction -= 1 }
            stopped(finished: finished)
        }
        layer.add(animation, forKey: key)
    }

    private func stopped(finished: Bool) {
        running -= 1
        if !finished { allFinished = false }
        if closed && running == 0 { complete() }
    }

    /// The block has run: with no animation started, the completion runs after the commit.
    func close() {
        closed = true
        if running == 0 { Transaction.afterNextCommit { [self] in complete() } }
    }

    private func complete() {
        let c = completion
        completion = nil
        c?(allFinished)
    }
}

/// Runs a block's animation for one key (the action a view answers inside a block).
struct ViewAnimationAction: LayerAction {
    let block: ViewAnimationBlock
    weak var view: View?
    func run(forKey key: String, on layer: Layer, arguments: ActionArguments) {
        guard let view else { return }
        block.animate(key, of: view, layer: layer, arguments: arguments)
    }
}

extension View {
    /// The animation blocks being run, innermost last.
    static var animationBlocks: [ViewAnimationBlock] = []

    /// Animates the changes `animations` makes to views' animatable properties (frame,
    /// bounds, center, transform, alpha, backgroundColor) from their old values to the
    /// new ones (`UIView.animate(withDuration:delay:options:animations:completion:)`).
    /// The views' model values change at once (hit testing and layout see them); what is
    /// shown moves there over `duration` seconds. `completion` runs on the main actor when
    /// every animation started by the block has stopped, with `true` when all ran to their
    /// end (at the next commit when the block changed nothing animatable).
    public static func animate(withDuration duration: Double, delay: Double = 0, options: AnimationOptions = [],
                               animations: () -> Void, completion: ((Bool) -> Void)? = nil) {
        run(ViewAnimationBlock(duration: duration, delay: delay, options: options, spring: nil, completion: completion), animations)
    }

    /// A spring animation block: `dampingRatio` 1 settles without overshoot, smaller
    /// values oscillate; `initialSpringVelocity` is in units of the whole distance per
    /// second (`UIView.animate(withDuration:delay:usingSpringWithDamping:initialSpringVelocity:…)`).
    public static func animate(withDuration duration: Double, delay: Double = 0, usingSpringWithDamping dampingRatio: Double,
                               initialSpringVelocity velocity: Double, options: AnimationOptions = [],
                               animations: () -> Void, completion: ((Bool) -> Void)? = nil) {
        run(ViewAnimationBlock(duration: duration, delay: delay, options: options, spring: (dampingRatio, velocity),
                               completion: completion), animations)
    }

    /// A transition of a view (`UIView.transition(with:duration:options:animations:completion:)`):
    /// with `.transitionCrossDissolve`, the view and its subviews as they were before
    /// `animations` cross-dissolve into what they show after it — subviews added or
    /// removed, content redrawn, anything — over `duration` seconds (a `TransitionAnimation`
    /// on its layer); with `.transitionPush`, `.transitionMoveIn` or `.transitionReveal`
    /// (and a `.transitionFrom…` side) the two pictures slide instead. The changes
    /// themselves are not animated one by one. Without a transition option they happen at
    /// once. `completion` runs when the transition ends (`true`) or is replaced (`false`).
    public static func transition(with view: View, duration: Double, options: AnimationOptions = [],
                                  animations: (() -> Void)?, completion: ((Bool) -> Void)? = nil) {
        let d = duration.isFinite ? max(0, duration) : 0
        if var t = options.transition, d > 0 {
            t.duration = d
            t.timingFunction = options.timingFunction
            let blocksInteraction = !options.contains(.allowUserInteraction)
            if blocksInteraction { view.animationsBlockingInteraction += 1 }
            t.didStop = { [weak view] finished in
                if blocksInteraction { view?.animationsBlockingInteraction -= 1 }
                completion?(finished)
            }
            view.layer.add(t, forKey: "transition")
            Transaction.withoutActions { performWithoutAnimation { animations?() } }
        } else {
            Transaction.withoutActions { performWithoutAnimation { animations?() } }
            if let completion { Transaction.afterNextCommit { completion(true) } }
        }
    }

    /// Runs `changes` without animating them, even inside an animation block.
    public static func performWithoutAnimation(_ changes: () -> Void) {
        let saved = animationBlocks
        animationBlocks = []
        defer { animationBlocks = saved }
        changes()
    }

    private static func run(_ block: ViewAnimationBlock, _ animations: () -> Void) {
        animationBlocks.append(block)
        animations()
        animationBlocks.removeLast()
        block.close()
    }

    /// A view's layer animates only inside an animation block (UIKit: outside one, no
    /// implicit animation).
    public func action(for layer: Layer, forKey key: String) -> ActionLookup {
        guard let block = View.animationBlocks.last else { return .none }
        return .action(ViewAnimationAction(block: block, view: self))
    }
}

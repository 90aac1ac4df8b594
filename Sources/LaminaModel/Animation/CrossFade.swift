import LaminaValues
import LaminaGeometry

/// A transition between the layer's states (`CATransition`): added to a layer in the same
/// transaction as changes to it — its sublayers, contents, colours, anything it draws —
/// it shows the layer as it was before the transaction turning into the layer as it is
/// now, over `duration` (0.25 s by default): cross-fading (`fade`), or moving (`push`,
/// `moveIn`, `reveal`, from the side `subtype` names). The old picture is the layer and its
/// sublayers as last composited, at the place they were; the new one is rendered live, so
/// animations under it go on. Added without a key it goes under `"transition"` (so a new
/// transition replaces one still running, as `kCATransition` does).
///
/// The moving kinds move the pictures by the layer's width (from the left or right) or
/// height (from the top or bottom) in its own coordinates, so through its transform; as
/// in Core Animation nothing clips them but `masksToBounds` on a superlayer.
public struct TransitionAnimation: Animation {
    /// The kinds of transition (`CATransitionType`).
    public enum Kind: String, Sendable, CaseIterable {
        /// The old picture fades out as the new one fades in.
        case fade
        /// The new picture slides in from the subtype's side, pushing the old one out.
        case push
        /// The new picture slides in from the subtype's side over the old one, which stays.
        case moveIn
        /// The old picture slides out towards the side opposite the subtype's, showing the
        /// new one under it.
        case reveal
    }
    /// Where a moving transition starts (`CATransitionSubtype`). Lamina's layers have their
    /// origin at the top left (iOS's geometry): from the top moves down.
    public enum Subtype: String, Sendable, CaseIterable {
        case fromLeft, fromRight, fromTop, fromBottom
    }
    public var common = AnimationCommon()
    public var type: Kind
    /// The side a `push`, `moveIn` or `reveal` starts from (nil: from the left, as Core
    /// Animation's default); a fade ignores it.
    public var subtype: Subtype?
    /// Where in the transition it starts and ends (0…1).
    public var startProgress = 0.0
    public var endProgress = 1.0

    public init(type: Kind = .fade, subtype: Subtype? = nil) { self.type = type; self.subtype = subtype }

    public func makeEffect(customKeys isCustomKey: (String) -> Bool) -> AnimationEffect? {
        let (dx, dy): (Double, Double)
        switch subtype ?? .fromLeft {
        case .fromLeft: (dx, dy) = (1, 0)
        case .fromRight: (dx, dy) = (-1, 0)
        case .fromTop: (dx, dy) = (0, 1)
        case .fromBottom: (dx, dy) = (0, -1)
        }
        let motion: TransitionMotion
        switch type {
        case .fade: motion = .fade
        case .push: motion = .push(dx: dx, dy: dy)
        case .moveIn: motion = .moveIn(dx: dx, dy: dy)
        case .reveal: motion = .reveal(dx: dx, dy: dy)
        }
        return AnimationEffect(common, .transition(id: AddedAnimation.nextSerial(), start: startProgress, end: endProgress, motion: motion))
    }

    /// As an action: adds a copy under `key` with the transaction's duration and timing
    /// function when it has none of its own.
    @MainActor public func run(forKey key: String, on layer: Layer, arguments: ActionArguments) {
        var a = self
        if a.common.timing.duration == 0 { a.common.timing.duration = layer.transactionContext.animationDuration() }
        if a.common.timingFunction == nil { a.common.timingFunction = layer.transactionContext.animationTimingFunction() ?? .default }
        layer.add(a, forKey: key)
    }
}

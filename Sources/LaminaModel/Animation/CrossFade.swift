import LaminaValues
import LaminaGeometry

/// A transition between the layer's states (`CATransition`): added to a layer in the same
/// transaction as changes to it — its sublayers, contents, colours, anything it draws —
/// it shows the layer as it was before the transaction cross-fading into the layer as it
/// is now, over `duration` (0.25 s by default). The old picture is the layer and its
/// sublayers as last composited, at the place they were; the new one is rendered live, so
/// animations under it go on. Added without a key it goes under `"transition"` (so a new
/// transition replaces one still running, as `kCATransition` does).
public struct TransitionAnimation: Animation {
    /// The kinds of transition (`CATransitionType`).
    public enum Kind: String, Sendable, CaseIterable {
        /// The old picture fades out as the new one fades in.
        case fade
    }
    public var common = AnimationCommon()
    public var type: Kind
    /// Where in the transition it starts and ends (0…1).
    public var startProgress = 0.0
    public var endProgress = 1.0

    public init(type: Kind = .fade) { self.type = type }

    public func makeEffect(customKeys isCustomKey: (String) -> Bool) -> AnimationEffect? {
        AnimationEffect(common, .transition(id: AddedAnimation.nextSerial(), start: startProgress, end: endProgress))
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

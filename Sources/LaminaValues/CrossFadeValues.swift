import LaminaGeometry

/// One end of a contents cross-fade: the layer's own contents (the model's), or given ones
/// (nil: no contents, which fades as transparent).
package enum FadeEnd: Sendable, Hashable {
    case model
    case contents(ContentRef?)

    /// An animation's from or to value: contents given, or (nil, or not contents) the model's.
    package init(_ value: AnimationValue?) {
        if case .contents(let c)? = value { self = .contents(c) } else { self = .model }
    }

    package func resolved(model: ContentRef?) -> ContentRef? {
        switch self {
        case .model: return model
        case .contents(let c): return c
        }
    }
}

/// What a `contents` animation presents: `from` cross-fading into `to`, `fraction` of the
/// way (each pixel is (1 − fraction)·from + fraction·to, premultiplied — the exact mix,
/// not two translucent layers, which would dip where both are opaque).
package struct ContentsFade: Sendable, Hashable {
    package var from: FadeEnd
    package var to: FadeEnd
    package var fraction: Double
}

/// What a transition presents: the layer's old picture cross-fading into its new one, or
/// the two moving (push, move in, reveal).
package struct TransitionProgress: Sendable, Hashable {
    /// The transition's identity (its old picture is kept under it).
    package var id: UInt64
    package var fraction: Double
    package var motion: TransitionMotion = .fade
}

/// How a transition shows the old picture and the new (`CATransitionType` and its
/// subtype): `dx`, `dy` is the direction things move in, in the layer's own coordinates
/// (y down), one of (±1, 0) and (0, ±1) — from the left is (1, 0).
package enum TransitionMotion: Sendable, Hashable {
    /// The old picture fades out as the new fades in (the exact per-pixel mix).
    case fade
    /// The new picture comes in from the subtype's side and pushes the old out.
    case push(dx: Double, dy: Double)
    /// The new picture comes in over the old, which stays.
    case moveIn(dx: Double, dy: Double)
    /// The old picture moves out, showing the new under it.
    case reveal(dx: Double, dy: Double)
}

extension AnimationValue {
    /// An image as the value of a `contents` animation.
    public static func image(_ image: ContentImage?) -> AnimationValue { .contents(image.map { .image($0) }) }
}


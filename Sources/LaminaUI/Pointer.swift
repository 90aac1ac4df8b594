import LaminaGeometry

/// What happened to the pointer.
public enum PointerPhase: String, Sendable, CaseIterable {
    /// The pointer is at `location` (it entered the window if it was outside).
    case moved
    /// The pointer left the window.
    case exited
}

/// What the host reports for the pointer (mouse, trackpad cursor): a move to a location in
/// window points, or leaving the window. Hand it to `Window.send(_:)`.
///
/// The pointer's buttons are touches (as UIKit delivers an indirect pointer's clicks): the
/// host sends a `TouchInput` `began`/`ended` with the same `identifier` on button down/up.
/// While such a touch is down, a move moves it (`touchesMoved` to the view it began in)
/// instead of delivering `pointerMoved`, so the host sends every motion once, as a
/// `PointerInput`.
public struct PointerInput: Sendable {
    /// Moved (over or outside the window), or left the window.
    public var phase: PointerPhase
    /// Window points (ignored for `exited`).
    public var location: Point
    /// Seconds, on the host's clock.
    public var timestamp: Double
    /// The identifier of the pointer's touches (`TouchInput.identifier`).
    public var identifier: Int

    /// A pointer move to `location`, or an exit.
    public init(phase: PointerPhase, location: Point = .zero, timestamp: Double = 0, identifier: Int = 0) {
        self.phase = phase; self.location = location; self.timestamp = timestamp; self.identifier = identifier
    }
}

/// A pointer event: `pointerEntered`, `pointerMoved` and `pointerExited` receive it.
@MainActor
public struct PointerEvent {
    /// Seconds, on the host's clock.
    public var timestamp: Double
    /// The modifiers held.
    public var modifierFlags: KeyModifierFlags
    var locationInWindow: Point

    /// The pointer's location in `view`'s coordinates (nil: the window's).
    public func location(in view: View?) -> Point {
        guard let view else { return locationInWindow }
        return view.convert(locationInWindow, from: nil)
    }
}

/// What the host reports for a scroll wheel or a two-finger scroll: hand it to
/// `Window.send(_:)`. The deltas are in points, with AppKit's sign (how far the content
/// should move): positive `deltaY` moves the content down (the wheel turned away from the
/// user, scrolling toward the top), positive `deltaX` moves it right (scrolling toward the
/// left edge). `ScrollView` subtracts them from its `contentOffset`.
public struct ScrollInput: Sendable {
    /// Points one wheel click scrolls by.
    public static let pointsPerWheelClick = 40.0

    /// Points the content should move right (negative: left).
    public var deltaX: Double
    /// Points the content should move down (negative: up).
    public var deltaY: Double
    /// Where the pointer is, in window points; nil: where the last `PointerInput` put it.
    public var location: Point?
    /// Seconds, on the host's clock.
    public var timestamp: Double

    /// A scroll by points, with AppKit's sign (see the type).
    public init(deltaX: Double = 0, deltaY: Double, location: Point? = nil, timestamp: Double = 0) {
        self.deltaX = deltaX; self.deltaY = deltaY; self.location = location; self.timestamp = timestamp
    }

    /// A scroll by wheel clicks, as the wheel moved (SDL's and X11's convention):
    /// `wheelY` > 0 turned away from the user, `wheelX` > 0 tilted (or swiped) to the right.
    /// Each click is `pointsPerWheelClick` points: `deltaY = wheelY × 40`,
    /// `deltaX = −wheelX × 40`.
    public init(wheelX: Double = 0, wheelY: Double, location: Point? = nil, timestamp: Double = 0) {
        self.init(deltaX: -wheelX * Self.pointsPerWheelClick, deltaY: wheelY * Self.pointsPerWheelClick,
                  location: location, timestamp: timestamp)
    }
}

/// A scroll-wheel event (`NSEvent` of type `.scrollWheel`): `scrollWheel(with:)` receives it.
@MainActor
public struct ScrollEvent {
    /// Points the content should move (AppKit's sign; see `ScrollInput`).
    public var deltaX: Double
    /// Points the content should move down (see `deltaX`).
    public var deltaY: Double
    /// Seconds, on the host's clock.
    public var timestamp: Double
    /// The modifiers held.
    public var modifierFlags: KeyModifierFlags
    var locationInWindow: Point

    /// The pointer's location in `view`'s coordinates (nil: the window's).
    public func location(in view: View?) -> Point {
        guard let view else { return locationInWindow }
        return view.convert(locationInWindow, from: nil)
    }
}

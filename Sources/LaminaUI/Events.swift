import LaminaGeometry

public enum TouchPhase: String, Sendable, CaseIterable { case began, moved, stationary, ended, cancelled }

/// One finger (or the pointer) over its life, from `began` to `ended`/`cancelled`. The same
/// object is handed to every phase, so identity compares touches across events.
@MainActor
public final class Touch: Hashable {
    /// The host's identifier for this finger or pointer.
    public let identifier: Int
    public internal(set) var phase: TouchPhase
    /// Seconds, on the host's clock.
    public internal(set) var timestamp: Double
    /// The view the touch began in: it receives every later phase, even outside it.
    public internal(set) weak var view: View?
    public internal(set) weak var window: Window?
    var locationInWindow: Point
    var previousLocationInWindow: Point

    init(identifier: Int, phase: TouchPhase, location: Point, timestamp: Double, window: Window) {
        self.identifier = identifier; self.phase = phase; self.timestamp = timestamp; self.window = window
        locationInWindow = location; previousLocationInWindow = location
    }

    /// The touch's location in `view`'s coordinates (nil: the window's).
    public func location(in view: View?) -> Point {
        guard let view else { return locationInWindow }
        return view.convert(locationInWindow, from: nil)
    }

    public func previousLocation(in view: View?) -> Point {
        guard let view else { return previousLocationInWindow }
        return view.convert(previousLocationInWindow, from: nil)
    }

    nonisolated public static func == (a: Touch, b: Touch) -> Bool { a === b }
    nonisolated public func hash(into h: inout Hasher) { h.combine(ObjectIdentifier(self)) }
}

/// An input event: the touches that changed, and every touch down at the time.
@MainActor
public struct Event {
    public var timestamp: Double
    public var allTouches: Set<Touch>
    /// The touches of `allTouches` that `view` handles (those that began in it).
    public func touches(for view: View) -> Set<Touch> { allTouches.filter { $0.view === view } }
}

/// What the host reports for one finger or pointer: its identity, phase and position in
/// window points. Hand a batch of them (one per finger that changed) to `Window.send`.
public struct TouchInput: Sendable {
    public var identifier: Int
    public var phase: TouchPhase
    public var location: Point
    public var timestamp: Double
    public init(identifier: Int = 0, phase: TouchPhase, location: Point, timestamp: Double = 0) {
        self.identifier = identifier; self.phase = phase; self.location = location; self.timestamp = timestamp
    }
}

/// The responder chain (`UIResponder`): touches not handled by a view go to its
/// superview, then up to the window.
@MainActor
open class Responder {
    public init() {}
    open var next: Responder? { nil }
    open func touchesBegan(_ touches: Set<Touch>, with event: Event) { next?.touchesBegan(touches, with: event) }
    open func touchesMoved(_ touches: Set<Touch>, with event: Event) { next?.touchesMoved(touches, with: event) }
    open func touchesEnded(_ touches: Set<Touch>, with event: Event) { next?.touchesEnded(touches, with: event) }
    open func touchesCancelled(_ touches: Set<Touch>, with event: Event) { next?.touchesCancelled(touches, with: event) }
}

import LaminaGeometry

/// The phases of a touch (`UITouch.Phase`).
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
    /// The modifier keys held (as of the last key input).
    public var modifierFlags: KeyModifierFlags = []
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

/// The responder chain (`UIResponder`): events a responder does not handle go to its
/// `next` — for a view its superview, then up to the window. Touches, pointer moves and
/// scroll-wheel events start at the view under the finger or pointer; key presses start at
/// the window's first responder (or the window when there is none).
@MainActor
open class Responder {
    public init() {}
    /// The next responder of the chain (a view's superview; nil after the window).
    open var next: Responder? { nil }

    // MARK: Forwarding up the chain

    /// The event methods whose base implementation forwards to `next`.
    enum ForwardedEvent { case touchesBegan, touchesMoved, touchesEnded, touchesCancelled
        case pressesBegan, pressesChanged, pressesEnded, pressesCancelled, pointerMoved, scrollWheel }

    /// The responder (and method) a forwarding loop is calling now.
    private static var forwardingTo: (responder: ObjectIdentifier, event: ForwardedEvent)?
    /// Set when that responder's base implementation was reached (it did not handle the event).
    private static var reachedBase = false

    /// The base implementation of an event method: passes the event up the responder chain
    /// in a loop, not a call per level (a chain 100 000 views deep must not overflow the
    /// stack). A responder's method is called; when its base implementation is reached
    /// (not overridden, or an override calling `super`), the loop goes on to its `next`
    /// once the method returns; an override that does not call `super` ends it.
    func forward(_ event: ForwardedEvent, _ call: (Responder) -> Void) {
        if let f = Responder.forwardingTo, f.responder == ObjectIdentifier(self), f.event == event {
            Responder.forwardingTo = nil
            Responder.reachedBase = true   // the enclosing loop forwards
            return
        }
        let saved = (Responder.forwardingTo, Responder.reachedBase)
        defer { (Responder.forwardingTo, Responder.reachedBase) = saved }
        var responder = next
        while let current = responder {
            Responder.forwardingTo = (ObjectIdentifier(current), event)
            Responder.reachedBase = false
            call(current)
            Responder.forwardingTo = nil
            guard Responder.reachedBase else { return }   // handled
            responder = current.next
        }
    }

    // MARK: Touches

    /// Fingers (or pointer buttons) went down on the view.
    open func touchesBegan(_ touches: Set<Touch>, with event: Event) { forward(.touchesBegan) { $0.touchesBegan(touches, with: event) } }
    open func touchesMoved(_ touches: Set<Touch>, with event: Event) { forward(.touchesMoved) { $0.touchesMoved(touches, with: event) } }
    open func touchesEnded(_ touches: Set<Touch>, with event: Event) { forward(.touchesEnded) { $0.touchesEnded(touches, with: event) } }
    open func touchesCancelled(_ touches: Set<Touch>, with event: Event) { forward(.touchesCancelled) { $0.touchesCancelled(touches, with: event) } }

    // MARK: First responder

    /// The window in which this responder can be first responder (a view's window).
    var firstResponderWindow: Window? { nil }

    /// Whether this responder accepts to become first responder (false by default: override
    /// to return true).
    open var canBecomeFirstResponder: Bool { false }

    /// Whether this responder accepts to give up first responder status (true by default).
    open var canResignFirstResponder: Bool { true }

    /// Whether this responder is its window's first responder.
    public var isFirstResponder: Bool {
        guard let window = firstResponderWindow else { return false }
        return window.firstResponder === self
    }

    /// Makes this responder its window's first responder, as UIKit does: only a view in a
    /// window whose `canBecomeFirstResponder` is true can; the current first responder is
    /// asked to resign first and may refuse. Returns whether this responder is now the
    /// first responder. Override to react (call `super`).
    @discardableResult
    open func becomeFirstResponder() -> Bool {
        guard let window = firstResponderWindow else { return false }
        if window.firstResponder === self { return true }
        guard canBecomeFirstResponder else { return false }
        // The current first responder may refuse (an override returning true without
        // calling super is replaced all the same).
        if let current = window.firstResponder, !current.resignFirstResponder() { return false }
        window.firstResponder = self
        return true
    }

    /// Gives up first responder status, unless `canResignFirstResponder` is false. Returns
    /// whether this responder is no longer the first responder (true when it was not).
    /// Override to react (call `super`).
    @discardableResult
    open func resignFirstResponder() -> Bool {
        guard let window = firstResponderWindow, window.firstResponder === self else { return true }
        guard canResignFirstResponder else { return false }
        window.firstResponder = nil
        return true
    }

    // MARK: Presses (keys)

    /// Keys went down. Presses start at the first responder (or the window).
    open func pressesBegan(_ presses: Set<Press>, with event: PressesEvent) { forward(.pressesBegan) { $0.pressesBegan(presses, with: event) } }
    /// Held keys repeated (auto-repeat; `Press.repeatCount` counts them).
    open func pressesChanged(_ presses: Set<Press>, with event: PressesEvent) { forward(.pressesChanged) { $0.pressesChanged(presses, with: event) } }
    open func pressesEnded(_ presses: Set<Press>, with event: PressesEvent) { forward(.pressesEnded) { $0.pressesEnded(presses, with: event) } }
    /// Presses stopped without their keys going up (the window lost the keyboard).
    open func pressesCancelled(_ presses: Set<Press>, with event: PressesEvent) { forward(.pressesCancelled) { $0.pressesCancelled(presses, with: event) } }

    // MARK: Pointer (hover) and scroll wheel

    /// The pointer entered this view (it is over the view or one of its subviews). Sent to
    /// each view concerned only, outermost first; never forwarded.
    open func pointerEntered(_ event: PointerEvent) {}
    /// The pointer moved over the view (the deepest one under it) with no button down.
    /// Forwarded up the chain when not handled.
    open func pointerMoved(_ event: PointerEvent) { forward(.pointerMoved) { $0.pointerMoved(event) } }
    /// The pointer left this view (it is over none of the view and its subviews any more,
    /// or left the window, or the view left the window). Sent to each view concerned only,
    /// deepest first; never forwarded.
    open func pointerExited(_ event: PointerEvent) {}
    /// The scroll wheel turned over the view (AppKit's name). Forwarded up the chain when
    /// not handled; `ScrollView` scrolls.
    open func scrollWheel(with event: ScrollEvent) { forward(.scrollWheel) { $0.scrollWheel(with: event) } }
}

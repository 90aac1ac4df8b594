import CLamina
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaUI

// Views and windows for C (lamina_view_*, lamina_window_*): LaminaUI's Window delivers the
// host's input through hit testing and the responder chain; a view made in C hands each
// event to its C handler, and passes on (to `super`, which forwards up the chain) what the
// handler did not handle.

/// A view made by `lamina_view_create`: its layer takes a draw callback (a `CAPILayer`),
/// its events go to a C handler; it takes text when it is the first responder.
final class CAPIView: View, KeyInput {
    override class var layerClass: Layer.Type { CAPILayer.self }

    private var handler: lamina_event_fn?
    private var userData: UnsafeMutableRawPointer?
    private var destroy: lamina_destroy_fn?
    var acceptsFirstResponder = false

    override var canBecomeFirstResponder: Bool { acceptsFirstResponder }

    /// Replaces the handler; the old one's destroy runs when the API call returns.
    func setHandler(_ h: lamina_event_fn?, _ user: UnsafeMutableRawPointer?, _ x: lamina_destroy_fn?) {
        if let old = destroy, !(userData == user && x.map { unsafeBitCast($0, to: UInt.self) } == unsafeBitCast(old, to: UInt.self)) {
            let oldUser = userData
            pendingCallbacks.append { old(oldUser) }
        }
        (handler, userData, destroy) = (h, user, x)
    }

    isolated deinit {
        handler = nil
        if let destroy { let user = userData; pendingCallbacks.append { destroy(user) } }
    }

    /// Calls the handler with `event` (its type and time set), the location given in window
    /// points made the view's. Returns whether it was handled (false without a handler).
    private func deliver(_ type: lamina_event_type, _ timestamp: Double, windowLocation: Point? = nil,
                         _ fill: (inout lamina_event) -> Void = { _ in }) -> Bool {
        guard let handler else { return false }
        var e = lamina_event()
        e.type = type
        e.timestamp = timestamp
        if let p = windowLocation {
            let local = convert(p, from: nil)
            e.location = lamina_point(x: local.x, y: local.y)
        }
        fill(&e)
        let h = Handles.handle(for: .view(self))
        eventDepth += 1
        defer { eventDepth -= 1; try? Handles.release(UnsafeRawPointer(h)) }
        return handler(h, &e, userData) != 0
    }

    // MARK: Touches: each touch one event; those not handled go up the chain.

    private func touches(_ touches: Set<Touch>, _ type: lamina_event_type, _ event: Event) -> Set<Touch> {
        // (In a stable order: the touches' identifiers.)
        Set(touches.sorted { $0.identifier < $1.identifier }.filter { t in
            !deliver(type, t.timestamp, windowLocation: t.location(in: nil)) {
                $0.touch_id = Int32(truncatingIfNeeded: t.identifier)
                $0.modifiers = cModifiers(event.modifierFlags)
            }
        })
    }
    override func touchesBegan(_ t: Set<Touch>, with event: Event) {
        let rest = touches(t, LAMINA_EVENT_TOUCH_BEGAN, event)
        if !rest.isEmpty { super.touchesBegan(rest, with: event) }
    }
    override func touchesMoved(_ t: Set<Touch>, with event: Event) {
        let rest = touches(t, LAMINA_EVENT_TOUCH_MOVED, event)
        if !rest.isEmpty { super.touchesMoved(rest, with: event) }
    }
    override func touchesEnded(_ t: Set<Touch>, with event: Event) {
        let rest = touches(t, LAMINA_EVENT_TOUCH_ENDED, event)
        if !rest.isEmpty { super.touchesEnded(rest, with: event) }
    }
    override func touchesCancelled(_ t: Set<Touch>, with event: Event) {
        let rest = touches(t, LAMINA_EVENT_TOUCH_CANCELLED, event)
        if !rest.isEmpty { super.touchesCancelled(rest, with: event) }
    }

    // MARK: Keys: each press one event; those not handled go up the chain.

    private func presses(_ presses: Set<Press>, _ type: lamina_event_type, _ event: PressesEvent) -> Set<Press> {
        // (In a stable order: when they began, then their keys.)
        let ordered = presses.sorted { ($0.timestamp, $0.key?.keyCode.rawValue ?? 0) < ($1.timestamp, $1.key?.keyCode.rawValue ?? 0) }
        return Set(ordered.filter { p in
            let characters = p.key?.characters ?? ""
            return !characters.withCString { text in
                deliver(type, p.timestamp) {
                    $0.key_code = Int32(truncatingIfNeeded: p.key?.keyCode.rawValue ?? 0)
                    $0.repeat_count = Int32(truncatingIfNeeded: p.repeatCount)
                    $0.modifiers = cModifiers(event.modifierFlags)
                    $0.text = text
                }
            }
        })
    }
    override func pressesBegan(_ p: Set<Press>, with event: PressesEvent) {
        let rest = presses(p, LAMINA_EVENT_KEY_DOWN, event)
        if !rest.isEmpty { super.pressesBegan(rest, with: event) }
    }
    override func pressesChanged(_ p: Set<Press>, with event: PressesEvent) {
        let rest = presses(p, LAMINA_EVENT_KEY_REPEAT, event)
        if !rest.isEmpty { super.pressesChanged(rest, with: event) }
    }
    override func pressesEnded(_ p: Set<Press>, with event: PressesEvent) {
        let rest = presses(p, LAMINA_EVENT_KEY_UP, event)
        if !rest.isEmpty { super.pressesEnded(rest, with: event) }
    }
    override func pressesCancelled(_ p: Set<Press>, with event: PressesEvent) {
        let rest = presses(p, LAMINA_EVENT_KEY_CANCELLED, event)
        if !rest.isEmpty { super.pressesCancelled(rest, with: event) }
    }

    // MARK: Text (KeyInput)

    var hasText: Bool { true }
    func insertText(_ text: String) {
        _ = text.withCString { t in deliver(LAMINA_EVENT_TEXT, textTimestamp) { $0.text = t } }
    }
    func deleteBackward() { _ = deliver(LAMINA_EVENT_DELETE_BACKWARD, textTimestamp) }
    /// The time of the text or editing key being delivered (the window's input).
    private var textTimestamp: Double { window?.textInputTimestamp ?? 0 }

    // MARK: Pointer and scroll wheel

    override func pointerEntered(_ event: PointerEvent) {
        _ = deliver(LAMINA_EVENT_POINTER_ENTERED, event.timestamp, windowLocation: event.location(in: nil)) { $0.modifiers = cModifiers(event.modifierFlags) }
    }
    override func pointerExited(_ event: PointerEvent) {
        _ = deliver(LAMINA_EVENT_POINTER_EXITED, event.timestamp, windowLocation: event.location(in: nil)) { $0.modifiers = cModifiers(event.modifierFlags) }
    }
    override func pointerMoved(_ event: PointerEvent) {
        let handled = deliver(LAMINA_EVENT_POINTER_MOVED, event.timestamp, windowLocation: event.location(in: nil)) {
            $0.modifiers = cModifiers(event.modifierFlags)
        }
        if !handled { super.pointerMoved(event) }
    }
    override func scrollWheel(with event: ScrollEvent) {
        let handled = deliver(LAMINA_EVENT_SCROLL, event.timestamp, windowLocation: event.location(in: nil)) {
            $0.scroll_dx = event.deltaX
            $0.scroll_dy = event.deltaY
            $0.modifiers = cModifiers(event.modifierFlags)
        }
        if !handled { super.scrollWheel(with: event) }
    }
}

/// Event handlers running now (input sent from inside one is refused).
nonisolated(unsafe) private var eventDepth = 0

/// C's modifier bits from Lamina's flags, and back.
private let modifierPairs: [(UInt32, KeyModifierFlags)] = [
    (UInt32(LAMINA_MODIFIER_SHIFT), .shift), (UInt32(LAMINA_MODIFIER_CONTROL), .control),
    (UInt32(LAMINA_MODIFIER_ALT), .alternate), (UInt32(LAMINA_MODIFIER_SUPER), .command),
    (UInt32(LAMINA_MODIFIER_CAPS_LOCK), .alphaShift)]

private func cModifiers(_ flags: KeyModifierFlags) -> UInt32 {
    modifierPairs.reduce(0) { flags.contains($1.1) ? $0 | $1.0 : $0 }
}

private func modifierFlags(_ bits: UInt32) throws -> KeyModifierFlags {
    let known = modifierPairs.reduce(UInt32(0)) { $0 | $1.0 }
    guard bits & ~known == 0 else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "unknown modifier bits 0x\(String(bits & ~known, radix: 16))") }
    return modifierPairs.reduce(into: KeyModifierFlags()) { if bits & $1.0 != 0 { $0.insert($1.1) } }
}

private func point(_ p: lamina_point, _ what: String) throws -> Point {
    try finite(p.x, p.y, what: what)
    return Point(x: p.x, y: p.y)
}

@MainActor private func cView(_ name: String, _ v: OpaquePointer?) throws -> CAPIView {
    let view = try Handles.view(v)
    guard let c = view as? CAPIView else {
        throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "\(name): a window takes no handler and no first-responder setting: add a view covering it (lamina_view_create)")
    }
    return c
}

/// Runs `body` with the window of `w`, outside any draw or event callback (input delivered
/// from a handler would re-enter the window's delivery).
private func withWindow(_ name: String, _ w: OpaquePointer?, _ body: @MainActor (Window) throws -> Void) -> lamina_status {
    nonisolated(unsafe) let w = w
    return call(name) {
        guard eventDepth == 0 else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "input cannot be sent from inside an event handler (send it after the handler returns)")
        }
        try body(try Handles.window(w))
    }
}

@_cdecl("lamina_window_create")
public func c_window_create(_ t: OpaquePointer?, _ background: UnsafePointer<lamina_color>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let t = t, background = background, out = out
    return call("lamina_window_create") {
        let target = try Handles.target(t)
        let bg = try background.map { try color($0.pointee) }
        _ = try required(out)
        let window = Window(target: target, background: bg)
        Handles.windowHosts.insert(ObjectIdentifier(window.host))
        try give(.view(window), to: out)
    }
}

@_cdecl("lamina_window_get_host")
public func c_window_get_host(_ w: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let w = w, out = out
    return call("lamina_window_get_host") { try give(.host(try Handles.window(w).host), to: out) }
}

@_cdecl("lamina_window_set_target")
public func c_window_set_target(_ w: OpaquePointer?, _ t: OpaquePointer?) -> lamina_status {
    nonisolated(unsafe) let w = w, t = t
    return call("lamina_window_set_target") {
        let window = try Handles.window(w), target = try Handles.target(t)
        window.target = target
    }
}

@_cdecl("lamina_view_create")
public func c_view_create(_ frame: lamina_rect, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let out = out
    return call("lamina_view_create") {
        try give(.view(CAPIView(frame: try rect(frame))), to: out)
    }
}

@_cdecl("lamina_view_add_subview")
public func c_view_add_subview(_ v: OpaquePointer?, _ s: OpaquePointer?) -> lamina_status {
    nonisolated(unsafe) let v = v, s = s
    return call("lamina_view_add_subview") {
        let parent = try Handles.view(v), child = try Handles.view(s)
        guard !(child is Window) else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a window cannot be a subview") }
        guard !parent.isDescendant(of: child) else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the subview is the view or one of its ancestors (a cycle)")
        }
        parent.addSubview(child)
    }
}

@_cdecl("lamina_view_remove_from_superview")
public func c_view_remove(_ v: OpaquePointer?) -> lamina_status {
    nonisolated(unsafe) let v = v
    return call("lamina_view_remove_from_superview") { try Handles.view(v).removeFromSuperview() }
}

@_cdecl("lamina_view_set_frame")
public func c_view_set_frame(_ v: OpaquePointer?, _ frame: lamina_rect) -> lamina_status {
    nonisolated(unsafe) let v = v
    return call("lamina_view_set_frame") {
        let view = try Handles.view(v)
        guard !(view is Window) else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a window's frame is its target's size") }
        view.frame = try rect(frame)
    }
}

@_cdecl("lamina_view_get_layer")
public func c_view_get_layer(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let v = v, out = out
    return call("lamina_view_get_layer") { try give(.layer(try Handles.view(v).layer), to: out) }
}

@_cdecl("lamina_view_set_event_handler")
public func c_view_set_event_handler(_ v: OpaquePointer?, _ h: lamina_event_fn?, _ user: UnsafeMutableRawPointer?,
                                     _ destroy: lamina_destroy_fn?) -> lamina_status {
    nonisolated(unsafe) let v = v, user = user
    return call("lamina_view_set_event_handler") { try cView("lamina_view_set_event_handler", v).setHandler(h, user, destroy) }
}

@_cdecl("lamina_view_set_user_interaction_enabled")
public func c_view_set_interaction(_ v: OpaquePointer?, _ on: Int32) -> lamina_status {
    nonisolated(unsafe) let v = v
    return call("lamina_view_set_user_interaction_enabled") { try Handles.view(v).isUserInteractionEnabled = on != 0 }
}

@_cdecl("lamina_view_set_accepts_first_responder")
public func c_view_set_accepts_first_responder(_ v: OpaquePointer?, _ on: Int32) -> lamina_status {
    nonisolated(unsafe) let v = v
    return call("lamina_view_set_accepts_first_responder") {
        try cView("lamina_view_set_accepts_first_responder", v).acceptsFirstResponder = on != 0
    }
}

@_cdecl("lamina_view_become_first_responder")
public func c_view_become_first_responder(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<Int32>?) -> lamina_status {
    nonisolated(unsafe) let v = v, out = out
    return call("lamina_view_become_first_responder") {
        let became = try Handles.view(v).becomeFirstResponder()
        if let out { out.pointee = became ? 1 : 0 }
    }
}

@_cdecl("lamina_view_resign_first_responder")
public func c_view_resign_first_responder(_ v: OpaquePointer?) -> lamina_status {
    nonisolated(unsafe) let v = v
    return call("lamina_view_resign_first_responder") { _ = try Handles.view(v).resignFirstResponder() }
}

@_cdecl("lamina_view_hit_test")
public func c_view_hit_test(_ v: OpaquePointer?, _ p: lamina_point, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let v = v, out = out
    return call("lamina_view_hit_test") {
        let view = try Handles.view(v)
        let o = try required(out)
        o.pointee = view.hitTest(try point(p, "the point"), with: nil).map { Handles.handle(for: .view($0)) }
    }
}

@_cdecl("lamina_window_send_touch")
public func c_window_send_touch(_ w: OpaquePointer?, _ id: Int32, _ phase: lamina_event_type, _ p: lamina_point, _ time: Double) -> lamina_status {
    withWindow("lamina_window_send_touch", w) { window in
        let phases: [lamina_event_type: TouchPhase] = [LAMINA_EVENT_TOUCH_BEGAN: .began, LAMINA_EVENT_TOUCH_MOVED: .moved,
                                                       LAMINA_EVENT_TOUCH_ENDED: .ended, LAMINA_EVENT_TOUCH_CANCELLED: .cancelled]
        guard let phase = phases[phase] else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a touch's phase is LAMINA_EVENT_TOUCH_BEGAN … LAMINA_EVENT_TOUCH_CANCELLED (got \(phase.rawValue))")
        }
        try finite(time, what: "the timestamp")
        window.send([TouchInput(identifier: Int(id), phase: phase, location: try point(p, "the location"), timestamp: time)])
    }
}

@_cdecl("lamina_window_send_pointer")
public func c_window_send_pointer(_ w: OpaquePointer?, _ id: Int32, _ inside: Int32, _ p: lamina_point, _ time: Double) -> lamina_status {
    withWindow("lamina_window_send_pointer", w) { window in
        try finite(time, what: "the timestamp")
        window.send(PointerInput(phase: inside != 0 ? .moved : .exited, location: try point(p, "the location"), timestamp: time,
                                 identifier: Int(id)))
    }
}

@_cdecl("lamina_window_send_scroll")
public func c_window_send_scroll(_ w: OpaquePointer?, _ dx: Double, _ dy: Double, _ p: UnsafePointer<lamina_point>?, _ time: Double) -> lamina_status {
    nonisolated(unsafe) let p = p
    return withWindow("lamina_window_send_scroll", w) { window in
        try finite(dx, dy, time, what: "the scroll's deltas and timestamp")
        window.send(ScrollInput(deltaX: dx, deltaY: dy, location: try p.map { try point($0.pointee, "the location") }, timestamp: time))
    }
}

@_cdecl("lamina_window_send_key")
public func c_window_send_key(_ w: OpaquePointer?, _ phase: lamina_event_type, _ code: Int32, _ modifiers: UInt32,
                             _ characters: UnsafePointer<CChar>?, _ time: Double) -> lamina_status {
    nonisolated(unsafe) let characters = characters
    return withWindow("lamina_window_send_key", w) { window in
        let phases: [lamina_event_type: PressPhase] = [LAMINA_EVENT_KEY_DOWN: .began, LAMINA_EVENT_KEY_REPEAT: .changed,
                                                       LAMINA_EVENT_KEY_UP: .ended, LAMINA_EVENT_KEY_CANCELLED: .cancelled]
        guard let phase = phases[phase] else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a key's phase is LAMINA_EVENT_KEY_DOWN … LAMINA_EVENT_KEY_CANCELLED (got \(phase.rawValue))")
        }
        guard code >= 0, code <= 0xFFFF else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a key code is a HID usage, 0 … 0xFFFF (got \(code))") }
        try finite(time, what: "the timestamp")
        let text = characters.map { String(cString: $0) }
        window.send(KeyPressInput(phase: phase, keyCode: KeyboardHIDUsage(rawValue: Int(code)), modifierFlags: try modifierFlags(modifiers),
                                  characters: text, timestamp: time))
    }
}

@_cdecl("lamina_window_send_text")
public func c_window_send_text(_ w: OpaquePointer?, _ text: UnsafePointer<CChar>?, _ time: Double) -> lamina_status {
    nonisolated(unsafe) let text = text
    return withWindow("lamina_window_send_text", w) { window in
        try finite(time, what: "the timestamp")
        window.send(TextInput(text: try cString(text, "the text"), timestamp: time))
    }
}

@_cdecl("lamina_window_cancel_keys")
public func c_window_cancel_keys(_ w: OpaquePointer?, _ time: Double) -> lamina_status {
    withWindow("lamina_window_cancel_keys", w) { window in
        try finite(time, what: "the timestamp")
        window.cancelPresses(timestamp: time)
    }
}

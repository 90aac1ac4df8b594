import Foundation
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import Testing
@testable import LaminaUI

private func px(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8 = 255) -> RGBAPixel { RGBAPixel(r: r, g: g, b: b, a: a) }

@MainActor
private func offscreen(_ device: GPUDevice, width: Double, height: Double, scale: Double = 1) throws -> OffscreenTarget {
    try OffscreenTarget(device: device, size: Size(width: width, height: height), scale: scale)
}

/// A window that logs what reaches it (the end of every chain), on a fresh offscreen target.
@MainActor
private final class LogWindow: Window {
    var log: [String] = []
    var onLayout: (() -> Void)?
    override func pressesBegan(_ presses: Set<Press>, with event: PressesEvent) {
        log.append("window began \(presses.first!.key!.charactersIgnoringModifiers)")
        super.pressesBegan(presses, with: event)
    }
    override func pressesEnded(_ presses: Set<Press>, with event: PressesEvent) {
        log.append("window ended \(presses.first!.key!.charactersIgnoringModifiers)")
        super.pressesEnded(presses, with: event)
    }
    override func pointerEntered(_ event: PointerEvent) { log.append("enter window") }
    override func pointerMoved(_ event: PointerEvent) { log.append("move window") }
    override func pointerExited(_ event: PointerEvent) { log.append("exit window") }
    override func scrollWheel(with event: ScrollEvent) { log.append("scroll window") }
    override func layoutSubviews() { onLayout?() }
}

@MainActor
private func makeWindow(width: Double = 200, height: Double = 200, scale: Double = 1) throws -> LogWindow {
    try Transaction.flush()   // nothing left over from other tests
    return LogWindow(target: try offscreen(try GPUDevice(), width: width, height: height, scale: scale))
}

@MainActor
private func pixels(_ w: Window) throws -> RGBAImage { try w.host.target.readPixels() }

@MainActor
private func key(_ phase: PressPhase, _ code: KeyboardHIDUsage, _ flags: KeyModifierFlags = []) -> KeyPressInput {
    KeyPressInput(phase: phase, keyCode: code, modifierFlags: flags)
}

/// A view logging key presses into a shared log; it handles the keys in `handles`
/// (others go up the chain), and may become first responder.
@MainActor
private final class KeyView: View {
    var name = ""
    var log: ((String) -> Void)?
    var handles: Set<KeyboardHIDUsage> = []
    var acceptsFirstResponder = true
    var refusesToResign = false
    override var canBecomeFirstResponder: Bool { acceptsFirstResponder }
    override var canResignFirstResponder: Bool { !refusesToResign }
    /// Logs each press (in key-code order); true when one of them is handled here.
    private func note(_ what: String, _ presses: Set<Press>) -> Bool {
        var handled = false
        for p in presses.sorted(by: { $0.key!.keyCode.rawValue < $1.key!.keyCode.rawValue }) {
            let k = p.key!
            log?("\(name) \(what) \(k.charactersIgnoringModifiers.isEmpty ? "\(k.keyCode)" : k.charactersIgnoringModifiers)")
            if handles.contains(k.keyCode) { handled = true }
        }
        return handled
    }
    override func pressesBegan(_ presses: Set<Press>, with event: PressesEvent) {
        if !note("began", presses) { super.pressesBegan(presses, with: event) }
    }
    override func pressesChanged(_ presses: Set<Press>, with event: PressesEvent) {
        if !note("repeat\(presses.first!.repeatCount)", presses) { super.pressesChanged(presses, with: event) }
    }
    override func pressesEnded(_ presses: Set<Press>, with event: PressesEvent) {
        if !note("ended", presses) { super.pressesEnded(presses, with: event) }
    }
    override func pressesCancelled(_ presses: Set<Press>, with event: PressesEvent) {
        if !note("cancelled", presses) { super.pressesCancelled(presses, with: event) }
    }
    override func becomeFirstResponder() -> Bool {
        let ok = super.becomeFirstResponder()
        log?("\(name) become → \(ok)")
        return ok
    }
    override func resignFirstResponder() -> Bool {
        let ok = super.resignFirstResponder()
        log?("\(name) resign → \(ok)")
        return ok
    }
}

/// A text field: takes text (`KeyInput`), keeps it in `text`.
@MainActor
private final class Field: View, KeyInput {
    var text = ""
    var log: [String] = []
    var handlesBackspaceItself = false
    override var canBecomeFirstResponder: Bool { true }
    var hasText: Bool { !text.isEmpty }
    func insertText(_ t: String) { text += t; log.append("insert \(t.debugDescription)") }
    func deleteBackward() { if !text.isEmpty { text.removeLast() }; log.append("deleteBackward") }
    override func pressesBegan(_ presses: Set<Press>, with event: PressesEvent) {
        if handlesBackspaceItself && presses.first!.key!.keyCode == .keyboardDeleteOrBackspace {
            log.append("own backspace")
            return
        }
        super.pressesBegan(presses, with: event)
    }
}

@MainActor
@Suite("Input: keyboard, first responder, text")
struct KeyboardTests {
    @Test("presses reach the first responder and go up the chain until handled; later phases and repeats stay with the responder they began at")
    func pressesAndChain() throws {
        let window = try makeWindow()
        var log: [String] { get { window.log } set { window.log = newValue } }
        let container = KeyView(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        container.name = "container"; container.acceptsFirstResponder = false
        container.handles = [.keyboardEscape]
        let field = KeyView(frame: Rect(x: 10, y: 10, width: 50, height: 20))
        field.name = "field"; field.handles = [.keyboardLeftArrow]
        let other = KeyView(frame: Rect(x: 10, y: 40, width: 50, height: 20))
        other.name = "other"; other.handles = [.keyboardA]
        for v in [container, field, other] { v.log = { window.log.append($0) } }
        container.addSubview(field); container.addSubview(other)
        window.addSubview(container)
        #expect(field.becomeFirstResponder())
        #expect(window.firstResponder === field && field.isFirstResponder && !other.isFirstResponder)
        log = []
        window.send(key(.began, .keyboardLeftArrow))                   // handled by the first responder
        window.send(key(.ended, .keyboardLeftArrow))
        window.send(key(.began, .keyboardEscape))                      // handled one step up
        window.send(key(.ended, .keyboardEscape))
        window.send(key(.began, .keyboardB))                           // handled by nobody: to the window
        #expect(log == [
            "field began HID 0x50", "field ended HID 0x50",
            "field began \u{1B}", "container began \u{1B}",
            "field ended \u{1B}", "container ended \u{1B}",
            "field began b", "container began b", "window began b",
        ], "\(log)")
        // The key held: repeats are pressesChanged with a growing repeatCount, to the same
        // responder, even after the first responder changed; so is the release.
        log = []
        window.send(key(.began, .keyboardA))
        #expect(other.becomeFirstResponder())
        window.send(key(.began, .keyboardA))                           // auto-repeat
        window.send(KeyPressInput(phase: .began, keyCode: .keyboardA))  // and another
        window.send(key(.ended, .keyboardA))
        #expect(log == ["field began a", "container began a", "window began a", "field resign → true", "other become → true",
                        "field repeat1 a", "container repeat1 a", "field repeat2 a", "container repeat2 a",
                        "field ended a", "container ended a", "window ended a"], "\(log)")
        #expect(window.pressesInProgress == 1, "b is still down")
        log = []
        window.send(key(.ended, .keyboardB))
        window.send(key(.ended, .keyboardB))                           // not down: ignored
        window.send(key(.ended, .keyboardC))                           // never went down: ignored
        #expect(window.pressesInProgress == 0)
        #expect(log == ["field ended b", "container ended b", "window ended b"], "b ends where it began, not at `other`")
        // Now `other` handles a itself.
        log = []
        window.send(key(.began, .keyboardA)); window.send(key(.ended, .keyboardA))
        #expect(log == ["other began a", "other ended a"])
    }

    @Test("keys, modifiers and characters: Shift, Caps Lock, keypad; SDL's KMOD bits; modifiers reach every kind of event")
    func keysAndModifiers() throws {
        let window = try makeWindow()
        final class Catcher: View {
            var presses: [Press] = []
            var touchFlags: KeyModifierFlags?
            override var canBecomeFirstResponder: Bool { true }
            override func pressesBegan(_ presses: Set<Press>, with event: PressesEvent) { self.presses += presses }
            override func touchesBegan(_ touches: Set<Touch>, with event: Event) { touchFlags = event.modifierFlags }
        }
        let v = Catcher(frame: Rect(x: 0, y: 0, width: 50, height: 50))
        window.addSubview(v)
        v.becomeFirstResponder()
        let shift = KeyModifierFlags(sdlKeymod: 0x0001)               // KMOD_LSHIFT
        #expect(shift == .shift)
        #expect(KeyModifierFlags(sdlKeymod: 0x0080 | 0x0200 | 0x0400 | 0x2000 | 0x1000) == [.control, .alternate, .command, .alphaShift])
        window.send(key(.began, .keyboardLeftShift, shift))
        window.send(key(.began, .keyboardA, shift))
        window.send(key(.began, .keyboard1, shift))
        window.send([TouchInput(phase: .began, location: Point(x: 5, y: 5))])
        window.send(key(.ended, .keyboard1, shift))
        window.send(key(.ended, .keyboardA, shift))
        window.send(key(.ended, .keyboardLeftShift))
        window.send(key(.began, .keyboardA, .alphaShift))
        window.send(key(.ended, .keyboardA, .alphaShift))
        window.send(key(.began, .keyboardA, [.alphaShift, .shift]))
        window.send(key(.ended, .keyboardA, [.alphaShift, .shift]))
        window.send(key(.began, .keypad7))
        window.send(key(.began, .keyboardUpArrow, .control))
        window.send(KeyPressInput(phase: .began, keyCode: .keyboardQ, characters: "ä", charactersIgnoringModifiers: "a"))
        let keys = v.presses.map { $0.key! }
        #expect(keys.map(\.characters) == ["", "A", "!", "A", "a", "7", "", "ä"])
        #expect(keys.map(\.charactersIgnoringModifiers) == ["", "a", "1", "a", "a", "7", "", "a"])
        #expect(keys[0].keyCode == .keyboardLeftShift && keys[1].modifierFlags == .shift)
        #expect(keys[5].modifierFlags == .numericPad && keys[6].modifierFlags == .control)
        #expect(v.touchFlags == .shift, "a touch while Shift is held carries it")
        #expect(Key(keyCode: .keyboardReturnOrEnter).characters == "\r" && Key(keyCode: .keyboardEscape).characters == "\u{1B}")
        #expect(KeyboardHIDUsage(rawValue: 4) == .keyboardA && KeyboardHIDUsage.keyboardF12.rawValue == 0x45)
    }

    @Test("without a first responder, presses go to the window only, and text goes nowhere")
    func noFirstResponder() throws {
        let window = try makeWindow()
        var log: [String] = []
        let view = KeyView(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        view.name = "view"; view.log = { log.append($0) }
        let field = Field(frame: Rect(x: 0, y: 100, width: 100, height: 20))
        window.addSubview(view); window.addSubview(field)
        window.send(key(.began, .keyboardX))
        window.send(key(.began, .keyboardDeleteOrBackspace))
        window.send(TextInput(text: "hello"))
        window.send(key(.ended, .keyboardX))
        window.send(key(.ended, .keyboardDeleteOrBackspace))
        #expect(window.firstResponder == nil)
        #expect(log.isEmpty && field.log.isEmpty && field.text.isEmpty)
        #expect(window.log == ["window began x", "window began \u{8}", "window ended x", "window ended \u{8}"])
        #expect(window.pressesInProgress == 0)
    }

    @Test("becoming and resigning: canBecome, a window needed, the current one asked and able to refuse, removal resigns, hiding does not")
    func firstResponderRules() throws {
        let window = try makeWindow()
        var log: [String] = []
        let plain = View(frame: Rect(x: 0, y: 0, width: 10, height: 10))
        window.addSubview(plain)
        #expect(!plain.canBecomeFirstResponder && !plain.becomeFirstResponder() && window.firstResponder == nil)
        let a = KeyView(), b = KeyView(), c = KeyView()
        a.name = "a"; b.name = "b"; c.name = "c"
        for v in [a, b, c] { v.log = { log.append($0) } }
        #expect(!a.becomeFirstResponder(), "not in a window")
        window.addSubview(a); window.addSubview(b)
        let group = View()
        group.addSubview(c)
        window.addSubview(group)
        #expect(a.becomeFirstResponder() && a.isFirstResponder)
        #expect(a.becomeFirstResponder(), "already first responder: true, nothing resigns")
        #expect(b.becomeFirstResponder() && window.firstResponder === b && !a.isFirstResponder)
        #expect(log == ["a become → false", "a become → true", "a become → true", "a resign → true", "b become → true"], "\(log)")
        // A first responder refusing to resign keeps its place.
        log = []
        b.refusesToResign = true
        #expect(!c.becomeFirstResponder() && window.firstResponder === b)
        #expect(!b.resignFirstResponder() && b.isFirstResponder)
        #expect(log == ["b resign → false", "c become → false", "b resign → false"])
        // Hidden or not interactive, it stays first responder (as in UIKit).
        b.isHidden = true
        b.isUserInteractionEnabled = false
        #expect(b.isFirstResponder)
        // Removed from the window, it resigns — even though it refuses.
        log = []
        b.removeFromSuperview()
        #expect(window.firstResponder == nil && !b.isFirstResponder && log == ["b resign → false"])
        // A first responder inside a subtree moved to another window resigns.
        let other = try makeWindow()
        b.refusesToResign = false
        #expect(c.becomeFirstResponder())
        log = []
        other.addSubview(group)
        #expect(window.firstResponder == nil && other.firstResponder == nil && log == ["c resign → true"])
        // Reordering within the same window keeps it.
        #expect(c.becomeFirstResponder())
        other.addSubview(View())
        other.sendSubviewToBack(group)
        #expect(c.isFirstResponder && other.firstResponder === c)
        // A first responder that resigns by itself.
        #expect(c.resignFirstResponder() && other.firstResponder == nil)
        #expect(c.resignFirstResponder(), "not first responder: true")
    }

    @Test("text reaches insertText of a first responder that takes text; unhandled Backspace, Return and Tab edit it; cancelPresses cancels held keys")
    func textInput() throws {
        let window = try makeWindow()
        let field = Field(frame: Rect(x: 0, y: 0, width: 100, height: 20))
        let plain = KeyView(frame: Rect(x: 0, y: 30, width: 100, height: 20))
        window.addSubview(field); window.addSubview(plain)
        #expect(field.becomeFirstResponder())
        window.send(TextInput(text: "héllo"))
        window.send(TextInput(text: ""))                                   // nothing
        window.send(key(.began, .keyboardDeleteOrBackspace))               // → deleteBackward
        window.send(key(.began, .keyboardDeleteOrBackspace))               // repeat → again
        window.send(key(.ended, .keyboardDeleteOrBackspace))
        window.send(key(.began, .keyboardReturnOrEnter)); window.send(key(.ended, .keyboardReturnOrEnter))
        window.send(key(.began, .keyboardTab)); window.send(key(.ended, .keyboardTab))
        window.send(key(.began, .keyboardDeleteOrBackspace, .control))     // a shortcut, not editing
        window.send(key(.ended, .keyboardDeleteOrBackspace, .control))
        window.send(key(.began, .keyboardH)); window.send(key(.ended, .keyboardH))   // letters type through TextInput only
        #expect(field.log == ["insert \"héllo\"", "deleteBackward", "deleteBackward", "insert \"\\n\"", "insert \"\\t\""], "\(field.log)")
        #expect(field.text == "hél\n\t" && field.hasText)
        // A field handling Backspace itself: no deleteBackward from the window.
        field.handlesBackspaceItself = true
        field.log = []
        window.send(key(.began, .keyboardDeleteOrBackspace)); window.send(key(.ended, .keyboardDeleteOrBackspace))
        #expect(field.log == ["own backspace"])
        // A first responder that does not take text: text is dropped.
        var log: [String] = []
        plain.log = { log.append($0) }; plain.name = "plain"
        #expect(plain.becomeFirstResponder())
        window.send(TextInput(text: "lost"))
        #expect(field.text == "hél\n\t")
        // Losing the keyboard: held keys are cancelled at the responders they began at.
        window.log = []
        log = []
        window.send(KeyPressInput(phase: .began, keyCode: .keyboardJ, modifierFlags: .shift, timestamp: 1))
        window.send(KeyPressInput(phase: .began, keyCode: .keyboardK, modifierFlags: .shift, timestamp: 2))
        #expect(window.modifierFlags == .shift)
        window.cancelPresses()
        #expect(window.pressesInProgress == 0 && window.modifierFlags.isEmpty)
        #expect(log == ["plain began j", "plain began k", "plain cancelled j", "plain cancelled k"], "one pressesCancelled with both: \(log)")
        window.send(key(.ended, .keyboardJ))                               // after cancel: ignored
        #expect(log.count == 4)
    }
}

/// A view logging pointer and scroll events; `forwards` passes moves and scrolls up the chain.
@MainActor
private final class Tracker: View {
    var name = ""
    var log: ((String) -> Void)?
    var forwards = false
    override func pointerEntered(_ event: PointerEvent) { log?("enter \(name)") }
    override func pointerExited(_ event: PointerEvent) { log?("exit \(name)") }
    override func pointerMoved(_ event: PointerEvent) {
        let p = event.location(in: self)
        log?("move \(name) \(Int(p.x)),\(Int(p.y))")
        if forwards { super.pointerMoved(event) }
    }
    override func scrollWheel(with event: ScrollEvent) {
        log?("scroll \(name) \(Int(event.deltaY))")
        if forwards { super.scrollWheel(with: event) }
    }
    override func touchesMoved(_ touches: Set<Touch>, with event: Event) { log?("touchesMoved \(name)") }
    override func touchesBegan(_ touches: Set<Touch>, with event: Event) { log?("touchesBegan \(name)") }
}

@MainActor
@Suite("Input: pointer hover and scroll wheel")
struct PointerTests {
    @Test("hover: exact enter/exit/move sequences across nested and sibling views, the window, hidden views, removal, and a drag")
    func hover() throws {
        let window = try makeWindow()
        var log: [String] { get { window.log } set { window.log = newValue } }
        let a = Tracker(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        let a1 = Tracker(frame: Rect(x: 10, y: 10, width: 30, height: 30))
        let b = Tracker(frame: Rect(x: 100, y: 0, width: 100, height: 100))
        a.name = "A"; a1.name = "A1"; b.name = "B"
        a1.forwards = true
        for v in [a, a1, b] { v.log = { window.log.append($0) } }
        a.addSubview(a1)
        window.addSubview(a); window.addSubview(b)
        func move(_ x: Double, _ y: Double) -> [String] {
            log = []
            window.send(PointerInput(phase: .moved, location: Point(x: x, y: y)))
            return log
        }
        #expect(move(150, 150) == ["enter window", "move window"])
        #expect(move(50, 50) == ["enter A", "move A 50,50"])
        #expect(move(20, 20) == ["enter A1", "move A1 10,10", "move A 20,20"], "unhandled moves go up the chain")
        #expect(move(25, 25) == ["move A1 15,15", "move A 25,25"], "no enter/exit inside the same view")
        #expect(move(150, 50) == ["exit A1", "exit A", "enter B", "move B 50,50"], "deepest exits first, then entries")
        log = []
        window.send(PointerInput(phase: .exited))
        #expect(log == ["exit B", "exit window"], "leaving the window exits every view, the window last")
        #expect(window.pointerLocation == nil)
        #expect(move(20, 20) == ["enter window", "enter A", "enter A1", "move A1 10,10", "move A 20,20"], "outermost enters first")
        // Hidden or non-interactive views are not under the pointer (hitTest's rules).
        a1.isHidden = true
        #expect(move(21, 21) == ["exit A1", "move A 21,21"])
        a1.isHidden = false
        #expect(move(22, 22) == ["enter A1", "move A1 12,12", "move A 22,22"])
        a1.isUserInteractionEnabled = false
        #expect(move(23, 23) == ["exit A1", "move A 23,23"])
        a1.isUserInteractionEnabled = true
        _ = move(24, 24)
        // Removed from the window while under the pointer: exited, deepest first.
        log = []
        a.removeFromSuperview()
        #expect(log == ["exit A1", "exit A"])
        #expect(move(24, 24) == ["move window"])
        window.insertSubview(a, at: 0)
        #expect(move(30, 30) == ["enter A", "enter A1", "move A1 20,20", "move A 30,30"])
        // A drag: the pointer's button is a touch; moves go to the touch's view, hover follows.
        log = []
        window.send([TouchInput(phase: .began, location: Point(x: 30, y: 30))])
        #expect(log == ["touchesBegan A1"])
        log = []
        window.send(PointerInput(phase: .moved, location: Point(x: 150, y: 50)))
        #expect(log == ["exit A1", "exit A", "enter B", "touchesMoved A1"], "no pointerMoved while the button is down: \(log)")
        window.send([TouchInput(phase: .ended, location: Point(x: 150, y: 50))])
        #expect(move(151, 50) == ["move B 51,50"], "released: moves are pointer moves again")
    }

    @Test("scroll: reaches the view under the pointer, bubbles to the enclosing ScrollView which scrolls (clamped); the next frame's pixels moved; hover follows the content")
    func scrollWheel() throws {
        let window = try makeWindow(width: 100, height: 100)
        var log: [String] { get { window.log } set { window.log = newValue } }
        let scroll = ScrollView(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        scroll.contentSize = Size(width: 100, height: 300)
        for (i, color) in [Color.red, .green, .blue].enumerated() {
            let stripe = View(frame: Rect(x: 0, y: Double(i) * 100, width: 100, height: 100))
            stripe.backgroundColor = color
            stripe.isUserInteractionEnabled = false
            scroll.addSubview(stripe)
        }
        let child = Tracker(frame: Rect(x: 0, y: 0, width: 100, height: 60))   // in content coordinates
        child.name = "child"; child.forwards = true
        child.log = { window.log.append($0) }
        scroll.addSubview(child)
        window.addSubview(scroll)
        try window.compositeNow()
        #expect(try pixels(window)[50, 70] == px(255, 0, 0))
        window.send(PointerInput(phase: .moved, location: Point(x: 50, y: 50)))
        log = []
        // One click toward the user: content moves up by 40 points.
        window.send(ScrollInput(wheelY: -1))
        #expect(scroll.contentOffset == Point(x: 0, y: 40))
        #expect(log == ["scroll child -40", "exit child"], "the child got it first; the content moved from under the pointer: \(log)")
        try window.compositeNow()
        #expect(try pixels(window)[50, 70] == px(0, 255, 0), "content y 110 is green")
        #expect(try pixels(window)[50, 50] == px(255, 0, 0), "content y 90 is red")
        // Clamped at both ends.
        window.send(ScrollInput(wheelY: -10))
        #expect(scroll.contentOffset == Point(x: 0, y: 200))
        try window.compositeNow()
        #expect(try pixels(window)[50, 50] == px(0, 0, 255))
        window.send(ScrollInput(deltaY: 1000, location: Point(x: 50, y: 50)))
        #expect(scroll.contentOffset == .zero)
        #expect(log.last == "enter child", "back under the pointer")
        // The content fits horizontally: a horizontal scroll goes up the chain to the window.
        log = []
        window.send(ScrollInput(wheelX: 1, wheelY: 0))
        #expect(scroll.contentOffset == .zero)
        #expect(log == ["scroll child 0", "scroll window"])
        // Pointer outside the window and no location: dropped.
        window.send(PointerInput(phase: .exited))
        log = []
        window.send(ScrollInput(wheelY: -1))
        #expect(log.isEmpty && scroll.contentOffset == .zero)
    }

    @Test("scroll: an inner scroll view that cannot scroll along the event's axis passes it to the enclosing one")
    func nestedScrollViews() throws {
        let window = try makeWindow(width: 100, height: 100)
        let outer = ScrollView(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        outer.contentSize = Size(width: 300, height: 100)          // scrolls horizontally only
        let inner = ScrollView(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        inner.contentSize = Size(width: 100, height: 500)          // vertically only
        outer.addSubview(inner)
        window.addSubview(outer)
        window.send(PointerInput(phase: .moved, location: Point(x: 50, y: 50)))
        window.send(ScrollInput(wheelY: -2))
        #expect(inner.contentOffset == Point(x: 0, y: 80) && outer.contentOffset == .zero)
        window.send(ScrollInput(wheelX: 1, wheelY: 0))                  // to the right
        #expect(inner.contentOffset == Point(x: 0, y: 80) && outer.contentOffset == Point(x: 40, y: 0))
        window.send(ScrollInput(wheelY: 5))                             // inner at its top: keeps the event
        #expect(inner.contentOffset == .zero && outer.contentOffset == Point(x: 40, y: 0))
    }
}

@MainActor
@Suite("Window lifecycle: resize, scale, device")
struct WindowLifecycleTests {
    /// A view drawing red with a black bar half a point wide at x 10…10.5.
    final class Barred: View {
        var draws = 0
        override func draw(_ rect: Rect) {
            draws += 1
            let c = currentGraphicsContext()!
            c.setFillColor(.red); c.fill(bounds)
            c.setFillColor(.black); c.fill(Rect(x: 10, y: 0, width: 0.5, height: bounds.height))
        }
    }

    @Test("moved to a target of another size: the frame follows now, autoresizing and layoutSubviews run in the next commit, pixels land on the new target")
    func resize() throws {
        let window = try makeWindow(width: 100, height: 100)
        var log: [String] = []
        let fixed = View(frame: Rect(x: 0, y: 0, width: 50, height: 100))
        fixed.backgroundColor = .red
        let panel = View(frame: Rect(x: 50, y: 0, width: 50, height: 100))
        panel.backgroundColor = .blue
        panel.autoresizingMask = [.flexibleWidth]
        final class Redrawn: View {
            var draws = 0
            override func draw(_ rect: Rect) {
                draws += 1
                currentGraphicsContext()!.setFillColor(.green)
                currentGraphicsContext()!.fill(Rect(x: bounds.width - 10, y: 0, width: 10, height: bounds.height))
            }
        }
        let footer = Redrawn(frame: Rect(x: 0, y: 80, width: 100, height: 20))
        footer.autoresizingMask = [.flexibleWidth]
        footer.contentMode = .redraw
        window.addSubview(fixed); window.addSubview(panel); window.addSubview(footer)
        try window.compositeNow()
        #expect(footer.draws == 1)
        window.onLayout = { log.append("window layoutSubviews: panel \(Int(panel.frame.width)) wide") }
        window.host.didComposite = { _ in log.append("composite") }
        let old = window.target
        window.target = try offscreen(window.host.device, width: 200, height: 100)
        old.release()                                                  // the host drops the old one at once
        #expect(window.frame == Rect(x: 0, y: 0, width: 200, height: 100) && window.bounds.size == Size(width: 200, height: 100))
        #expect(panel.frame.width == 50, "autoresizing waits for the commit")
        try window.compositeNow()
        #expect(log == ["window layoutSubviews: panel 150 wide", "composite"], "\(log)")
        #expect(panel.frame == Rect(x: 50, y: 0, width: 150, height: 100) && fixed.frame.width == 50)
        #expect(footer.draws == 2 && footer.frame.width == 200, "contentMode .redraw redraws at the new width")
        let image = try pixels(window)
        #expect(image.width == 200 && image.height == 100)
        #expect(image[25, 50] == px(255, 0, 0) && image[150, 50] == px(0, 0, 255))
        #expect(image[195, 90] == px(0, 255, 0) && image[150, 90] == px(0, 0, 255))
        // Hit testing follows the new size.
        #expect(window.hitTest(Point(x: 150, y: 50), with: nil) === panel)
        // The same target again: nothing happens.
        log = []
        window.target = window.target
        try window.compositeNow()
        #expect(log == ["composite"] && window.lastFrame.skipped, "nothing laid out or drawn")
    }

    @Test("moved to a target of another scale: every layer takes it, views that draw redraw at it (backing-store pixels), others do not; pixels right")
    func rescale() throws {
        let window = try makeWindow(width: 100, height: 100, scale: 1)
        let barred = Barred(frame: Rect(x: 0, y: 0, width: 50, height: 50))
        let plain = View(frame: Rect(x: 50, y: 0, width: 50, height: 50))
        plain.backgroundColor = .blue
        let nested = Barred(frame: Rect(x: 0, y: 0, width: 20, height: 20))
        plain.addSubview(nested)
        window.addSubview(barred); window.addSubview(plain)
        try window.compositeNow()
        #expect(barred.layer.backingStore?.pixelSize == PixelSize(width: 50, height: 50) && barred.draws == 1)
        let old = window.target
        old.release()                                                  // released before the move: fine too
        window.target = try offscreen(window.host.device, width: 100, height: 100, scale: 2)
        #expect(window.scale == 2 && window.frame.size == Size(width: 100, height: 100))
        #expect([window, barred, plain, nested].allSatisfy { $0.layer.contentsScale == 2 })
        try window.compositeNow()
        #expect(barred.draws == 2 && nested.draws == 2)
        #expect(barred.layer.backingStore?.pixelSize == PixelSize(width: 100, height: 100))
        #expect(nested.layer.backingStore?.pixelSize == PixelSize(width: 40, height: 40))
        #expect(plain.layer.displayCount <= 1 && plain.layer.backingStore == nil, "a view that does not draw is not drawn")
        #expect(window.lastFrame.displays.count == 2)
        let image = try pixels(window)
        #expect(image.width == 200)
        // The half-point bar is exactly one pixel wide at scale 2: drawn again, not stretched.
        #expect(image[20, 10] == px(0, 0, 0) && image[21, 10] == px(255, 0, 0) && image[19, 10] == px(255, 0, 0))
        #expect(image[100 + 20, 10] == px(0, 0, 0) && image[100 + 21, 10] == px(255, 0, 0))
        #expect(image[150, 60] == px(0, 0, 255))
        // Back to scale 1 on a target of another size at once.
        window.target = try offscreen(window.host.device, width: 80, height: 60, scale: 1)
        try window.compositeNow()
        #expect(barred.layer.backingStore?.pixelSize == PixelSize(width: 50, height: 50) && barred.draws == 3)
        #expect(try pixels(window)[60, 30] == px(0, 0, 255))
    }

    @Test("moved to a target on another device: the next commit composites there")
    func anotherDevice() throws {
        let window = try makeWindow(width: 60, height: 40)
        let barred = Barred(frame: Rect(x: 0, y: 0, width: 30, height: 40))
        window.addSubview(barred)
        try window.compositeNow()
        let device = try GPUDevice()
        window.target = try offscreen(device, width: 60, height: 40)
        try window.compositeNow()
        #expect(window.host.device === device)
        #expect(barred.draws == 1, "same size and scale: nothing redrawn, the bitmap is uploaded to the new device")
        let image = try pixels(window)
        #expect(image[5, 5] == px(255, 0, 0) && image[45, 5] == px(255, 255, 255))
    }
}

import CSDL2
import LaminaGeometry
import LaminaUI

/// SDL's events, one Lamina call each (the table in docs/views.md). The HUD covers a
/// rectangle of the SDL window: pointer events inside it go to Lamina's window (in its
/// points), those outside are the host's own (a click there pauses the triangle).
@MainActor
final class InputMapper {
    let window: Window
    let origin: Point
    let size: Size
    /// A mouse button went down over the HUD: Lamina owns the drag until it comes up.
    private var touchInHUD = false
    private var pointerInHUD = false

    init(window: Window, origin: Point, size: Size) {
        self.window = window; self.origin = origin; self.size = size
    }

    private func hud(_ x: Int32, _ y: Int32) -> Point {
        Point(x: (Double(x) - origin.x) / window.scale, y: (Double(y) - origin.y) / window.scale)
    }
    private func inside(_ p: Point) -> Bool { p.x >= 0 && p.y >= 0 && p.x < size.width && p.y < size.height }

    /// Hands one SDL event to Lamina (or to the host); true for a click, key, text or wheel
    /// event (`frame` goes into the reports).
    @discardableResult
    func handle(_ e: SDL_Event, scene: HostScene, frame: Int) -> Bool {
        let t = Double(e.common.timestamp) / 1000
        switch e.type {
        case SDL_KEYDOWN.rawValue, SDL_KEYUP.rawValue:
            // SDL scancodes below 0xE8 are USB HID usages (page 7); those from 0x100 are SDL's own.
            let code = Int(e.key.keysym.scancode.rawValue)
            guard code < 0xE8 else { return false }
            window.send(KeyPressInput(phase: e.type == SDL_KEYDOWN.rawValue ? .began : .ended, keyCode: KeyboardHIDUsage(rawValue: code),
                                      modifierFlags: KeyModifierFlags(sdlKeymod: Int(e.key.keysym.mod)), timestamp: t))
            return true
        case SDL_TEXTINPUT.rawValue:
            let text = withUnsafeBytes(of: e.text.text) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            window.send(TextInput(text: text, timestamp: t))
            return true
        case SDL_MOUSEMOTION.rawValue:
            let p = hud(e.motion.x, e.motion.y)
            if inside(p) || touchInHUD {
                pointerInHUD = true
                window.send(PointerInput(phase: .moved, location: p, timestamp: t))
            } else if pointerInHUD {
                pointerInHUD = false
                window.send(PointerInput(phase: .exited, timestamp: t))
            }
            return false
        case SDL_MOUSEBUTTONDOWN.rawValue, SDL_MOUSEBUTTONUP.rawValue:
            guard e.button.button == UInt8(SDL_BUTTON_LEFT) else { return false }
            let p = hud(e.button.x, e.button.y)
            let down = e.type == SDL_MOUSEBUTTONDOWN.rawValue
            if down && inside(p) {
                touchInHUD = true
                window.send([TouchInput(phase: .began, location: p, timestamp: t)])
            } else if !down && touchInHUD {
                touchInHUD = false
                window.send([TouchInput(phase: .ended, location: p, timestamp: t)])
                report("touch ended frame=\(frame)")
                return true
            } else if down {
                scene.paused.toggle()
                report("host click paused=\(scene.paused)")
            }
            return false
        case SDL_MOUSEWHEEL.rawValue:
            // Fractional ticks (SDL 2.0.18+); x > 0 to the right, y > 0 away from the user.
            var x = Double(e.wheel.preciseX), y = Double(e.wheel.preciseY)
            if e.wheel.direction == SDL_MOUSEWHEEL_FLIPPED.rawValue { x = -x; y = -y }
            guard pointerInHUD else { return false }
            window.send(ScrollInput(wheelX: x, wheelY: y, timestamp: t))
            return true
        case SDL_WINDOWEVENT.rawValue:
            switch UInt32(e.window.event) {
            case SDL_WINDOWEVENT_LEAVE.rawValue:
                report("pointer left the window")
                pointerInHUD = false
                window.send(PointerInput(phase: .exited, timestamp: t))
            case SDL_WINDOWEVENT_FOCUS_LOST.rawValue:
                // SDL itself sends key-ups for held keys first; a drag in the HUD is cancelled.
                window.cancelPresses(timestamp: t)
                if touchInHUD {
                    touchInHUD = false
                    window.send([TouchInput(phase: .cancelled, location: .zero, timestamp: t)])
                }
            default: break
            }
            return false
        default:
            return false
        }
    }
}

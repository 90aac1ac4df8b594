/// A key's USB HID usage code (usage page 7, "Keyboard/Keypad"), as `UIKeyboardHIDUsage`:
/// the physical key, whatever the layout. SDL's scancodes are these codes
/// (`SDL_SCANCODE_A` is 4), so `KeyboardHIDUsage(rawValue: Int(scancode))` maps one.
public struct KeyboardHIDUsage: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    // Letters (0x04…0x1D) and digits (0x1E…0x27, 1 to 9 then 0).
    public static let keyboardA = KeyboardHIDUsage(rawValue: 0x04)
    public static let keyboardB = KeyboardHIDUsage(rawValue: 0x05)
    public static let keyboardC = KeyboardHIDUsage(rawValue: 0x06)
    public static let keyboardD = KeyboardHIDUsage(rawValue: 0x07)
    public static let keyboardE = KeyboardHIDUsage(rawValue: 0x08)
    public static let keyboardF = KeyboardHIDUsage(rawValue: 0x09)
    public static let keyboardG = KeyboardHIDUsage(rawValue: 0x0A)
    public static let keyboardH = KeyboardHIDUsage(rawValue: 0x0B)
    public static let keyboardI = KeyboardHIDUsage(rawValue: 0x0C)
    public static let keyboardJ = KeyboardHIDUsage(rawValue: 0x0D)
    public static let keyboardK = KeyboardHIDUsage(rawValue: 0x0E)
    public static let keyboardL = KeyboardHIDUsage(rawValue: 0x0F)
    public static let keyboardM = KeyboardHIDUsage(rawValue: 0x10)
    public static let keyboardN = KeyboardHIDUsage(rawValue: 0x11)
    public static let keyboardO = KeyboardHIDUsage(rawValue: 0x12)
    public static let keyboardP = KeyboardHIDUsage(rawValue: 0x13)
    public static let keyboardQ = KeyboardHIDUsage(rawValue: 0x14)
    public static let keyboardR = KeyboardHIDUsage(rawValue: 0x15)
    public static let keyboardS = KeyboardHIDUsage(rawValue: 0x16)
    public static let keyboardT = KeyboardHIDUsage(rawValue: 0x17)
    public static let keyboardU = KeyboardHIDUsage(rawValue: 0x18)
    public static let keyboardV = KeyboardHIDUsage(rawValue: 0x19)
    public static let keyboardW = KeyboardHIDUsage(rawValue: 0x1A)
    public static let keyboardX = KeyboardHIDUsage(rawValue: 0x1B)
    public static let keyboardY = KeyboardHIDUsage(rawValue: 0x1C)
    public static let keyboardZ = KeyboardHIDUsage(rawValue: 0x1D)
    public static let keyboard1 = KeyboardHIDUsage(rawValue: 0x1E)
    public static let keyboard2 = KeyboardHIDUsage(rawValue: 0x1F)
    public static let keyboard3 = KeyboardHIDUsage(rawValue: 0x20)
    public static let keyboard4 = KeyboardHIDUsage(rawValue: 0x21)
    public static let keyboard5 = KeyboardHIDUsage(rawValue: 0x22)
    public static let keyboard6 = KeyboardHIDUsage(rawValue: 0x23)
    public static let keyboard7 = KeyboardHIDUsage(rawValue: 0x24)
    public static let keyboard8 = KeyboardHIDUsage(rawValue: 0x25)
    public static let keyboard9 = KeyboardHIDUsage(rawValue: 0x26)
    public static let keyboard0 = KeyboardHIDUsage(rawValue: 0x27)

    // Editing and whitespace.
    public static let keyboardReturnOrEnter = KeyboardHIDUsage(rawValue: 0x28)
    public static let keyboardEscape = KeyboardHIDUsage(rawValue: 0x29)
    /// Backspace (the key labelled Delete on Apple keyboards).
    public static let keyboardDeleteOrBackspace = KeyboardHIDUsage(rawValue: 0x2A)
    public static let keyboardTab = KeyboardHIDUsage(rawValue: 0x2B)
    public static let keyboardSpacebar = KeyboardHIDUsage(rawValue: 0x2C)

    // Punctuation (US layout names).
    public static let keyboardHyphen = KeyboardHIDUsage(rawValue: 0x2D)
    public static let keyboardEqualSign = KeyboardHIDUsage(rawValue: 0x2E)
    public static let keyboardOpenBracket = KeyboardHIDUsage(rawValue: 0x2F)
    public static let keyboardCloseBracket = KeyboardHIDUsage(rawValue: 0x30)
    public static let keyboardBackslash = KeyboardHIDUsage(rawValue: 0x31)
    public static let keyboardSemicolon = KeyboardHIDUsage(rawValue: 0x33)
    public static let keyboardQuote = KeyboardHIDUsage(rawValue: 0x34)
    public static let keyboardGraveAccentAndTilde = KeyboardHIDUsage(rawValue: 0x35)
    public static let keyboardComma = KeyboardHIDUsage(rawValue: 0x36)
    public static let keyboardPeriod = KeyboardHIDUsage(rawValue: 0x37)
    public static let keyboardSlash = KeyboardHIDUsage(rawValue: 0x38)
    public static let keyboardCapsLock = KeyboardHIDUsage(rawValue: 0x39)

    // Function keys (0x3A…0x45).
    public static let keyboardF1 = KeyboardHIDUsage(rawValue: 0x3A)
    public static let keyboardF2 = KeyboardHIDUsage(rawValue: 0x3B)
    public static let keyboardF3 = KeyboardHIDUsage(rawValue: 0x3C)
    public static let keyboardF4 = KeyboardHIDUsage(rawValue: 0x3D)
    public static let keyboardF5 = KeyboardHIDUsage(rawValue: 0x3E)
    public static let keyboardF6 = KeyboardHIDUsage(rawValue: 0x3F)
    public static let keyboardF7 = KeyboardHIDUsage(rawValue: 0x40)
    public static let keyboardF8 = KeyboardHIDUsage(rawValue: 0x41)
    public static let keyboardF9 = KeyboardHIDUsage(rawValue: 0x42)
    public static let keyboardF10 = KeyboardHIDUsage(rawValue: 0x43)
    public static let keyboardF11 = KeyboardHIDUsage(rawValue: 0x44)
    public static let keyboardF12 = KeyboardHIDUsage(rawValue: 0x45)

    // Navigation.
    public static let keyboardInsert = KeyboardHIDUsage(rawValue: 0x49)
    public static let keyboardHome = KeyboardHIDUsage(rawValue: 0x4A)
    public static let keyboardPageUp = KeyboardHIDUsage(rawValue: 0x4B)
    /// Forward delete (the Delete key of PC keyboards).
    public static let keyboardDeleteForward = KeyboardHIDUsage(rawValue: 0x4C)
    public static let keyboardEnd = KeyboardHIDUsage(rawValue: 0x4D)
    public static let keyboardPageDown = KeyboardHIDUsage(rawValue: 0x4E)
    public static let keyboardRightArrow = KeyboardHIDUsage(rawValue: 0x4F)
    public static let keyboardLeftArrow = KeyboardHIDUsage(rawValue: 0x50)
    public static let keyboardDownArrow = KeyboardHIDUsage(rawValue: 0x51)
    public static let keyboardUpArrow = KeyboardHIDUsage(rawValue: 0x52)

    // Keypad (0x53…0x63, 0x67).
    public static let keypadNumLock = KeyboardHIDUsage(rawValue: 0x53)
    public static let keypadSlash = KeyboardHIDUsage(rawValue: 0x54)
    public static let keypadAsterisk = KeyboardHIDUsage(rawValue: 0x55)
    public static let keypadHyphen = KeyboardHIDUsage(rawValue: 0x56)
    public static let keypadPlus = KeyboardHIDUsage(rawValue: 0x57)
    public static let keypadEnter = KeyboardHIDUsage(rawValue: 0x58)
    public static let keypad1 = KeyboardHIDUsage(rawValue: 0x59)
    public static let keypad2 = KeyboardHIDUsage(rawValue: 0x5A)
    public static let keypad3 = KeyboardHIDUsage(rawValue: 0x5B)
    public static let keypad4 = KeyboardHIDUsage(rawValue: 0x5C)
    public static let keypad5 = KeyboardHIDUsage(rawValue: 0x5D)
    public static let keypad6 = KeyboardHIDUsage(rawValue: 0x5E)
    public static let keypad7 = KeyboardHIDUsage(rawValue: 0x5F)
    public static let keypad8 = KeyboardHIDUsage(rawValue: 0x60)
    public static let keypad9 = KeyboardHIDUsage(rawValue: 0x61)
    public static let keypad0 = KeyboardHIDUsage(rawValue: 0x62)
    public static let keypadPeriod = KeyboardHIDUsage(rawValue: 0x63)
    public static let keypadEqualSign = KeyboardHIDUsage(rawValue: 0x67)

    // Modifiers (0xE0…0xE7). GUI is the Super/Windows key (Command on Apple keyboards).
    public static let keyboardLeftControl = KeyboardHIDUsage(rawValue: 0xE0)
    public static let keyboardLeftShift = KeyboardHIDUsage(rawValue: 0xE1)
    public static let keyboardLeftAlt = KeyboardHIDUsage(rawValue: 0xE2)
    public static let keyboardLeftGUI = KeyboardHIDUsage(rawValue: 0xE3)
    public static let keyboardRightControl = KeyboardHIDUsage(rawValue: 0xE4)
    public static let keyboardRightShift = KeyboardHIDUsage(rawValue: 0xE5)
    public static let keyboardRightAlt = KeyboardHIDUsage(rawValue: 0xE6)
    public static let keyboardRightGUI = KeyboardHIDUsage(rawValue: 0xE7)

    /// True for the keys of the numeric keypad (they add `.numericPad` to a key's flags).
    public var isKeypad: Bool { (0x53...0x63).contains(rawValue) || rawValue == 0x67 }

    /// "HID 0x…", the code in hexadecimal.
    public var description: String { "HID 0x" + String(rawValue, radix: 16, uppercase: true) }

    /// The text the key types on a US layout (unshifted, shifted); nil for keys that type none.
    var usLayoutCharacters: (plain: String, shifted: String)? {
        let r = rawValue
        switch r {
        case 0x04...0x1D:
            let c = Character(Unicode.Scalar(UInt8(0x61 + r - 0x04)))
            return (String(c), String(c).uppercased())
        case 0x1E...0x27:
            let digits = Array("1234567890"), shifted = Array("!@#$%^&*()")
            return (String(digits[r - 0x1E]), String(shifted[r - 0x1E]))
        case 0x28, 0x58: return ("\r", "\r")
        case 0x29: return ("\u{1B}", "\u{1B}")
        case 0x2A: return ("\u{8}", "\u{8}")
        case 0x2B: return ("\t", "\t")
        case 0x2C: return (" ", " ")
        case 0x2D...0x38 where r != 0x32:
            let plain = Array("-=[]\\_;'`,./"), shifted = Array("_+{}|_:\"~<>?")
            let i = r - 0x2D
            return (String(plain[i]), String(shifted[i]))
        case 0x4C: return ("\u{7F}", "\u{7F}")
        case 0x54: return ("/", "/")
        case 0x55: return ("*", "*")
        case 0x56: return ("-", "-")
        case 0x57: return ("+", "+")
        case 0x59...0x62:
            let digits = Array("1234567890")
            return (String(digits[r - 0x59]), String(digits[r - 0x59]))
        case 0x63: return (".", ".")
        case 0x67: return ("=", "=")
        default: return nil
        }
    }
}

/// The modifier keys held with a key or at an event (`UIKeyModifierFlags`, same bits).
public struct KeyModifierFlags: OptionSet, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Caps Lock is on.
    public static let alphaShift = KeyModifierFlags(rawValue: 1 << 16)
    public static let shift = KeyModifierFlags(rawValue: 1 << 17)
    public static let control = KeyModifierFlags(rawValue: 1 << 18)
    /// Alt (Option on Apple keyboards).
    public static let alternate = KeyModifierFlags(rawValue: 1 << 19)
    /// The GUI key: Super/Windows (Command on Apple keyboards).
    public static let command = KeyModifierFlags(rawValue: 1 << 20)
    /// The key is on the numeric keypad (set by Lamina from the key code).
    public static let numericPad = KeyModifierFlags(rawValue: 1 << 21)

    /// The flags of an SDL2 `SDL_Keymod` (`KMOD_*` bits: either Shift, Ctrl, Alt or GUI key,
    /// and Caps Lock; Num Lock, AltGr and Scroll Lock have no flag and are ignored).
    public init(sdlKeymod mod: Int) {
        var flags: KeyModifierFlags = []
        if mod & 0x0003 != 0 { flags.insert(.shift) }        // KMOD_LSHIFT | KMOD_RSHIFT
        if mod & 0x00C0 != 0 { flags.insert(.control) }      // KMOD_LCTRL | KMOD_RCTRL
        if mod & 0x0300 != 0 { flags.insert(.alternate) }    // KMOD_LALT | KMOD_RALT
        if mod & 0x0C00 != 0 { flags.insert(.command) }      // KMOD_LGUI | KMOD_RGUI
        if mod & 0x2000 != 0 { flags.insert(.alphaShift) }   // KMOD_CAPS
        self = flags
    }
}

/// A key of a physical keyboard, as one press saw it (`UIKey`).
public struct Key: Hashable, Sendable, CustomStringConvertible {
    /// The physical key.
    public var keyCode: KeyboardHIDUsage
    /// The text the key types with the modifiers held ("A" for Shift-a); "" for keys that
    /// type nothing (arrows, function keys, modifiers). Return is "\r", Tab "\t", Escape
    /// "\u{1B}", Backspace "\u{8}", forward delete "\u{7F}".
    public var characters: String
    /// The text the key types without modifiers ("a" for Shift-a).
    public var charactersIgnoringModifiers: String
    /// The modifiers held (with `.numericPad` for keypad keys).
    public var modifierFlags: KeyModifierFlags

    /// A key; characters not given are those of a US layout: Shift (and Caps Lock, for
    /// letters) select the shifted character, other modifiers change nothing.
    public init(keyCode: KeyboardHIDUsage, modifierFlags: KeyModifierFlags = [],
                characters: String? = nil, charactersIgnoringModifiers: String? = nil) {
        self.keyCode = keyCode
        var flags = modifierFlags
        if keyCode.isKeypad { flags.insert(.numericPad) }
        self.modifierFlags = flags
        let us = keyCode.usLayoutCharacters
        self.charactersIgnoringModifiers = charactersIgnoringModifiers ?? us?.plain ?? ""
        if let characters {
            self.characters = characters
        } else if let us {
            let isLetter = (0x04...0x1D).contains(keyCode.rawValue)
            let shifted = flags.contains(.shift) != (isLetter && flags.contains(.alphaShift))
            self.characters = shifted ? us.shifted : us.plain
        } else {
            self.characters = ""
        }
    }

    /// The key code and characters.
    public var description: String { "Key(\(keyCode), \(characters.debugDescription))" }
}

/// The phases of a key press (`UIPress.Phase`, without `stationary`).
public enum PressPhase: String, Sendable, CaseIterable {
    /// The key went down.
    case began
    /// The key repeats while held (each auto-repeat of the host is one `changed`).
    case changed
    /// The key went up.
    case ended
    /// The press stopped without the key going up (`Window.cancelPresses`).
    case cancelled
}

/// One key press over its life, from `began` to `ended`/`cancelled` (`UIPress`). The same
/// object is handed to every phase (repeats included), so identity compares presses.
@MainActor
public final class Press: Hashable {
    public internal(set) var phase: PressPhase
    /// Seconds, on the host's clock.
    public internal(set) var timestamp: Double
    /// The key (always set for keyboard presses, the only kind Lamina has).
    public internal(set) var key: Key?
    /// How many auto-repeats the press has had (0 when it began).
    public internal(set) var repeatCount = 0
    /// The responder the press began at (the first responder then, or the window): it
    /// receives every later phase of the press.
    public internal(set) weak var responder: Responder?
    public internal(set) weak var window: Window?

    init(key: Key, timestamp: Double, responder: Responder, window: Window) {
        phase = .began; self.key = key; self.timestamp = timestamp; self.responder = responder; self.window = window
    }

    nonisolated public static func == (a: Press, b: Press) -> Bool { a === b }
    nonisolated public func hash(into h: inout Hasher) { h.combine(ObjectIdentifier(self)) }
}

/// A key event (`UIPressesEvent`): the presses that changed, and every press down at the time.
@MainActor
public struct PressesEvent {
    /// Seconds, on the host's clock.
    public var timestamp: Double
    /// Every press in progress, with those of this event.
    public var allPresses: Set<Press>
    /// The modifiers held.
    public var modifierFlags: KeyModifierFlags
    /// The presses of `allPresses` that began at `responder`.
    public func presses(for responder: Responder) -> Set<Press> { allPresses.filter { $0.responder === responder } }
}

/// What the host reports for one key going down, repeating or up: hand it to
/// `Window.send(_:)`. A `began` for a key already down is an auto-repeat (delivered as
/// `pressesChanged`), so the host needs no repeat flag. Characters left nil are those of a
/// US layout (see `Key`); printable text should come as `TextInput` anyway.
public struct KeyPressInput: Sendable {
    /// `began` (down, or an auto-repeat when already down), `ended` (up), `cancelled`.
    public var phase: PressPhase
    /// The physical key (SDL: the scancode).
    public var keyCode: KeyboardHIDUsage
    /// The modifiers held, including this key's own when it is a modifier going down.
    public var modifierFlags: KeyModifierFlags
    /// The text the key types with its modifiers; nil: the US layout's (see `Key`).
    public var characters: String?
    /// The text the key types without modifiers; nil: the US layout's.
    public var charactersIgnoringModifiers: String?
    /// Seconds, on the host's clock.
    public var timestamp: Double

    /// A key going down, repeating or up.
    public init(phase: PressPhase, keyCode: KeyboardHIDUsage, modifierFlags: KeyModifierFlags = [],
                characters: String? = nil, charactersIgnoringModifiers: String? = nil, timestamp: Double = 0) {
        self.phase = phase; self.keyCode = keyCode; self.modifierFlags = modifierFlags
        self.characters = characters; self.charactersIgnoringModifiers = charactersIgnoringModifiers
        self.timestamp = timestamp
    }
}

/// Text typed by the user, as the host's text-input system produced it (SDL_TEXTINPUT:
/// printable characters, composed and input-method text): hand it to `Window.send(_:)`,
/// which inserts it into a first responder conforming to `KeyInput`.
public struct TextInput: Sendable {
    /// The text, UTF-8 decoded.
    public var text: String
    /// Seconds, on the host's clock.
    public var timestamp: Double
    /// Typed text.
    public init(text: String, timestamp: Double = 0) { self.text = text; self.timestamp = timestamp }
}

/// A responder that takes text (`UIKeyInput`): when it is the first responder, typed text
/// goes to `insertText(_:)`, and the editing keys nobody handled — Backspace calls
/// `deleteBackward()`, Return and keypad Enter insert "\n", Tab inserts "\t".
@MainActor
public protocol KeyInput: AnyObject {
    /// Whether there is text to delete.
    var hasText: Bool { get }
    /// Inserts typed text (or "\n", "\t" for Return and Tab) at the insertion point.
    func insertText(_ text: String)
    /// Deletes the character before the insertion point (Backspace).
    func deleteBackward()
}

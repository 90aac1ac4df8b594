import Foundation
import LaminaCore
import LaminaGeometry
import LaminaGraphics
import LaminaUI

/// Writes a line for the test driver and flushes it at once (stdout is a pipe).
func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// A one-line text view.
@MainActor
final class Label: View {
    var text: String { didSet { if text != oldValue { setNeedsDisplay() } } }
    let font: Font
    let color: Color
    init(text: String, font: Font, color: Color, frame: Rect) {
        self.text = text; self.font = font; self.color = color
        super.init(frame: frame)
        isOpaque = false
        isUserInteractionEnabled = false
    }
    override func draw(_ rect: Rect) {
        // Centred both ways.
        let height = GraphicsContext.measure(text, font: font).height
        let box = Rect(x: 0, y: ((bounds.height - height) / 2).rounded(), width: bounds.width, height: height)
        currentGraphicsContext()?.draw(text, in: box, font: font, color: color, alignment: .center)
    }
}

/// A button whose background is one small rounded image stretched nine-slice
/// (`contentsCenter`): resizing or pressing it never redraws it; three images for the
/// normal, hovered and pressed states.
@MainActor
final class StretchButton: View {
    let label: Label
    var action: (() -> Void)?
    static let normalFill = Color(r8: 40, g8: 110, b8: 230)
    static let hoverFill = Color(r8: 90, g8: 150, b8: 255)
    static let pressedFill = Color(r8: 20, g8: 60, b8: 150)
    private let normal = StretchButton.background(StretchButton.normalFill)
    private let hover = StretchButton.background(StretchButton.hoverFill)
    private let pressed = StretchButton.background(StretchButton.pressedFill)
    private var isHovered = false
    private var isPressed = false

    init(title: String, frame: Rect) {
        label = Label(text: title, font: Font(family: "DejaVu Sans", size: 15, weight: .bold), color: .white,
                      frame: Rect(origin: .zero, size: frame.size))
        super.init(frame: frame)
        layer.contentsCenter = Rect(x: 0.45, y: 0.45, width: 0.1, height: 0.1)
        addSubview(label)
        update()
    }

    /// A 24×24 rounded rectangle with an outline, drawn once.
    static func background(_ fill: Color) -> ContentImage {
        let bitmap = try! Bitmap(pixelSize: PixelSize(width: 24, height: 24))
        let c = GraphicsContext(bitmap: bitmap)
        c.addRoundedRect(Rect(x: 1, y: 1, width: 22, height: 22), cornerRadius: 8)
        c.setFillColor(fill)
        c.fillPath()
        c.addRoundedRect(Rect(x: 1, y: 1, width: 22, height: 22), cornerRadius: 8)
        c.setStrokeColor(Color(red: 1, green: 1, blue: 1, alpha: 0.6))
        c.setLineWidth(1.5)
        c.strokePath()
        c.invalidate()
        return ContentImage(bitmap.rgbaImage())
    }

    private func update() {
        layer.contents = .image(isPressed ? pressed : isHovered ? hover : normal)
    }
    override func layoutSubviews() { label.frame = bounds }
    override func pointerEntered(_ event: PointerEvent) { isHovered = true; update() }
    override func pointerExited(_ event: PointerEvent) { isHovered = false; update() }
    override func touchesBegan(_ touches: Set<Touch>, with event: Event) { isPressed = true; update() }
    override func touchesCancelled(_ touches: Set<Touch>, with event: Event) { isPressed = false; update() }
    override func touchesEnded(_ touches: Set<Touch>, with event: Event) {
        isPressed = false
        update()
        if let t = touches.first, bounds.contains(t.location(in: self)) { action?() }
    }
}

/// A custom-drawn meter: one bar per tap (up to ten). It draws only when `taps` changes.
@MainActor
final class TapMeter: View {
    var taps = 0 { didSet { if taps != oldValue { setNeedsDisplay() } } }
    private(set) var draws = 0
    static let barColor = Color(r8: 60, g8: 220, b8: 120)
    override func draw(_ rect: Rect) {
        guard let c = currentGraphicsContext() else { return }
        draws += 1
        c.addRoundedRect(bounds, cornerRadius: 6)
        c.setFillColor(Color(red: 1, green: 1, blue: 1, alpha: 0.12))
        c.fillPath()
        let barWidth = (bounds.width - 8) / 10
        for i in 0..<min(taps, 10) {
            c.setFillColor(TapMeter.barColor)
            c.fill(Rect(x: 4 + Double(i) * barWidth + 1, y: 6, width: barWidth - 2, height: bounds.height - 12))
        }
    }
}

/// A text field: the first responder for keys and text (`KeyInput`); draws what was typed.
@MainActor
final class TextField: View, KeyInput {
    private(set) var text = "" { didSet { setNeedsDisplay(); report("text=\(text)") } }
    var hasText: Bool { !text.isEmpty }
    override var canBecomeFirstResponder: Bool { true }
    func insertText(_ t: String) { text += t }
    func deleteBackward() { if !text.isEmpty { text.removeLast() } }
    override func touchesEnded(_ touches: Set<Touch>, with event: Event) { becomeFirstResponder() }
    static let textColor = Color(r8: 20, g8: 20, b8: 30)
    override func draw(_ rect: Rect) {
        guard let c = currentGraphicsContext() else { return }
        c.addRoundedRect(bounds, cornerRadius: 6)
        c.setFillColor(Color(r8: 245, g8: 245, b8: 240))
        c.fillPath()
        _ = c.draw(text.isEmpty ? "type here" : text, at: Point(x: 8, y: 7), font: Font(family: "DejaVu Sans Mono", size: 14),
                   color: text.isEmpty ? Color(r8: 150, g8: 150, b8: 150) : TextField.textColor)
    }
}

/// A scroll view of coloured stripes (the wheel scrolls it).
@MainActor
final class Stripes: ScrollView {
    override init(frame: Rect) {
        super.init(frame: frame)
        contentSize = Size(width: frame.width, height: frame.height * 4)
        let colors = [Color(r8: 230, g8: 80, b8: 80), Color(r8: 230, g8: 190, b8: 60), Color(r8: 80, g8: 200, b8: 120), Color(r8: 90, g8: 140, b8: 240)]
        for (i, color) in colors.enumerated() {
            let stripe = View(frame: Rect(x: 0, y: Double(i) * frame.height, width: frame.width, height: frame.height))
            stripe.backgroundColor = color
            stripe.isUserInteractionEnabled = false
            addSubview(stripe)
        }
        layer.cornerRadius = 6
    }
    override func scrollWheel(with event: ScrollEvent) {
        super.scrollWheel(with: event)
        report("scroll offset=\(Int(contentOffset.y))")
    }
}

/// The HUD: a translucent rounded panel with a title, a nine-slice button, a tap meter,
/// a text field and a scrolling strip. 280×196 points.
@MainActor
final class HUD {
    static let size = Size(width: 280, height: 196)
    static let panelColor = Color(red: 0.04, green: 0.04, blue: 0.08, alpha: 0.75)
    let panel = View(frame: Rect(origin: .zero, size: HUD.size))
    let button = StretchButton(title: "Tap me", frame: Rect(x: 16, y: 44, width: 150, height: 40))
    let meter = TapMeter(frame: Rect(x: 176, y: 44, width: 88, height: 40))
    let field = TextField(frame: Rect(x: 16, y: 96, width: 248, height: 32))
    let stripes = Stripes(frame: Rect(x: 16, y: 140, width: 248, height: 40))
    private(set) var taps = 0

    init(in window: Window) {
        panel.backgroundColor = HUD.panelColor
        panel.layer.cornerRadius = 14
        panel.clipsToBounds = true
        panel.layer.borderWidth = 1
        panel.layer.borderColor = Color(red: 1, green: 1, blue: 1, alpha: 0.25)
        window.addSubview(panel)
        panel.addSubview(Label(text: "Lamina HUD", font: Font(family: "DejaVu Sans", size: 17, weight: .bold), color: .white,
                               frame: Rect(x: 16, y: 10, width: 248, height: 24)))
        panel.addSubview(button)
        panel.addSubview(meter)
        panel.addSubview(field)
        panel.addSubview(stripes)
        button.action = { [unowned self] in
            taps += 1
            meter.taps = taps
            report("tap count=\(taps)")
        }
        field.becomeFirstResponder()
    }
}

import ArgumentParser
import Foundation
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import LaminaUI

/// `lamina demo`: a small interface built from views, driven by a scripted sequence of
/// touches; every turn's frame is written as a PNG with what it cost, then a contact sheet.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Build a small interface (stretchable button, label, custom-drawn view, tiled scroll view), replay scripted touches, write each frame as a PNG and a contact sheet.")
    @OptionGroup var device: DeviceOptions
    @Option(name: .shortAndLong, help: "Output folder.") var output: String = "out/demo"
    @Option(help: "Pixels per point.") var scale: Double = 2

    func run() throws {
        try MainActor.assumeIsolated {
            let d = try device.open()
            defer { d.close() }
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            try DemoApp(device: d, scale: scale, output: output).run()
        }
    }
}

/// A label: draws its text; sizes itself to it.
@MainActor
final class Label: View {
    var text: String { didSet { if text != oldValue { setNeedsDisplay() } } }
    var font: Font
    var color: Color
    init(text: String, font: Font, color: Color = .black) {
        self.text = text; self.font = font; self.color = color
        super.init(frame: .zero)
        sizeToFit()
    }
    override func sizeThatFits(_ size: Size) -> Size { GraphicsContext.measure(text, font: font) }
    override func draw(_ rect: Rect) {
        currentGraphicsContext()?.draw(text, at: .zero, font: font, color: color)
    }
}

/// A button whose background is a small rounded image stretched by nine-slice
/// (`contentStretch`): resizing it never redraws the background.
@MainActor
final class StretchButton: View {
    let label: Label
    var action: (() -> Void)?
    private let normal: ContentImage
    private let pressed: ContentImage

    init(title: String, frame: Rect, scale: Double) throws {
        normal = try StretchButton.background(fill: Color(r8: 66, g8: 133, b8: 244), scale: scale)
        pressed = try StretchButton.background(fill: Color(r8: 30, g8: 80, b8: 180), scale: scale)
        label = Label(text: title, font: Font(family: "DejaVu Sans", size: 15, weight: .bold), color: .white)
        super.init(frame: frame)
        layer.contents = .image(normal)
        layer.contentsScale = scale
        contentMode = .scaleToFill
        contentStretch = Rect(x: 0.45, y: 0.45, width: 0.1, height: 0.1)
        label.isUserInteractionEnabled = false
        addSubview(label)
    }

    /// A 24×24-point rounded rectangle with a border and a highlight, drawn once.
    static func background(fill: Color, scale: Double) throws -> ContentImage {
        let bitmap = try Bitmap(pixelSize: PixelSize(covering: Size(width: 24, height: 24), scale: scale))
        let c = GraphicsContext(bitmap: bitmap, scale: scale)
        c.addRoundedRect(Rect(x: 1, y: 1, width: 22, height: 22), cornerRadius: 9)
        c.setFillColor(fill)
        c.fillPath()
        c.addRoundedRect(Rect(x: 1, y: 1, width: 22, height: 22), cornerRadius: 9)
        c.setStrokeColor(Color(red: 0, green: 0, blue: 0, alpha: 0.35))
        c.setLineWidth(1.5)
        c.strokePath()
        c.save()
        c.clip(to: Rect(x: 0, y: 0, width: 24, height: 12))
        c.addRoundedRect(Rect(x: 2, y: 2, width: 20, height: 20), cornerRadius: 8)
        c.setFillColor(Color(red: 1, green: 1, blue: 1, alpha: 0.18))
        c.fillPath()
        c.restore()
        c.invalidate()
        return ContentImage(bitmap.rgbaImage())
    }

    override func layoutSubviews() {
        label.center = Point(x: bounds.midX, y: bounds.midY)
    }
    override func touchesBegan(_ touches: Set<Touch>, with event: Event) { layer.contents = .image(pressed) }
    override func touchesCancelled(_ touches: Set<Touch>, with event: Event) { layer.contents = .image(normal) }
    override func touchesEnded(_ touches: Set<Touch>, with event: Event) {
        layer.contents = .image(normal)
        if let t = touches.first, bounds.contains(t.location(in: self)) { action?() }
    }
}

/// A custom-drawn bar chart; a tap on a bar raises it and redraws only that bar's column.
@MainActor
final class ChartView: View {
    var values: [Double] = [0.3, 0.55, 0.4, 0.8, 0.65, 0.45]
    private var barWidth: Double { bounds.width / Double(values.count) }
    override func draw(_ rect: Rect) {
        guard let c = currentGraphicsContext() else { return }
        c.drawLinearGradient(Gradient(colors: [Color(r8: 250, g8: 250, b8: 252), Color(r8: 225, g8: 230, b8: 240)]),
                             start: .zero, end: Point(x: 0, y: bounds.height))
        for (i, v) in values.enumerated() {
            let x = Double(i) * barWidth
            let h = v * (bounds.height - 24)
            c.addRoundedRect(Rect(x: x + 6, y: bounds.height - h - 4, width: barWidth - 12, height: h), cornerRadius: 5)
            c.setFillColor(Color(red: 0.2 + 0.12 * Double(i), green: 0.55, blue: 0.85 - 0.1 * Double(i)))
            c.fillPath()
            c.draw("\(Int(v * 100))", at: Point(x: x + 8, y: bounds.height - h - 20), font: Font(size: 11), color: .black)
        }
    }
    override func touchesEnded(_ touches: Set<Touch>, with event: Event) {
        guard let t = touches.first else { return }
        let i = min(values.count - 1, max(0, Int(t.location(in: self).x / barWidth)))
        values[i] = min(1, values[i] + 0.15)
        setNeedsDisplay(Rect(x: Double(i) * barWidth, y: 0, width: barWidth, height: bounds.height))
    }
}

@MainActor
struct DemoApp {
    let device: GPUDevice
    let scale: Double
    let output: String

    func run() throws {
        let target = try OffscreenTarget(device: device, size: Size(width: 360, height: 300), scale: scale)
        defer { target.release() }
        let window = Window(target: target, background: Color(r8: 242, g8: 244, b8: 248))
        defer { window.host.detach() }

        let title = Label(text: "Lamina demo", font: Font(family: "DejaVu Sans", size: 20, weight: .bold))
        title.frame.origin = Point(x: 16, y: 12)
        let counter = Label(text: "taps: 0", font: Font(family: "DejaVu Sans Mono", size: 13), color: Color(r8: 80, g8: 80, b8: 90))
        counter.frame.origin = Point(x: 16, y: 44)
        let button = try StretchButton(title: "Tap me", frame: Rect(x: 16, y: 70, width: 120, height: 40), scale: scale)
        var taps = 0
        button.action = {
            taps += 1
            counter.text = "taps: \(taps)"
            counter.sizeToFit()
            button.frame.size.width += 40          // stretches: the background is not redrawn
        }
        let chart = ChartView(frame: Rect(x: 16, y: 124, width: 200, height: 160))
        chart.layer.cornerRadius = 10
        chart.clipsToBounds = true
        let tiles = TiledScrollView(frame: Rect(x: 232, y: 70, width: 112, height: 214),
                                    contentSize: Size(width: 112, height: 1200), tileSize: Size(width: 56, height: 50)) { row, column, rect, c in
            let hue = Double((row * 2 + column) % 7) / 7
            c.setFillColor(Color(red: 0.6 + 0.4 * hue, green: 0.75 - 0.3 * hue, blue: 0.9 - 0.2 * hue))
            c.fill(rect.insetBy(dx: 2, dy: 2))
            c.draw("\(row),\(column)", at: Point(x: rect.minX + 8, y: rect.minY + 16), font: Font(size: 12, weight: .bold), color: .black)
        }
        tiles.layer.cornerRadius = 10
        tiles.layer.borderWidth = 1
        tiles.layer.borderColor = Color(red: 0, green: 0, blue: 0, alpha: 0.2)
        for v in [title, counter, button, chart, tiles] as [View] { window.addSubview(v) }

        // The script: one run-loop turn per step.
        let loop = try MainLoop()
        typealias Step = (String, [TouchInput])
        func tap(_ p: Point) -> [[TouchInput]] { [[TouchInput(phase: .began, location: p)], [TouchInput(phase: .ended, location: p)]] }
        var steps: [Step] = [("first frame", [])]
        steps += zip(["press the button", "release: taps 1, button wider"], tap(Point(x: 60, y: 90))).map { ($0, $1) }
        steps += zip(["press the button again", "release: taps 2, wider again"], tap(Point(x: 60, y: 90))).map { ($0, $1) }
        steps += zip(["touch bar 4", "release: bar 4 grows (partial redraw)"], tap(Point(x: 16 + 3.5 * 200 / 6, y: 250))).map { ($0, $1) }
        steps.append(("drag the tiles up by one row", [TouchInput(phase: .began, location: Point(x: 288, y: 200))]))
        steps.append(("…", [TouchInput(phase: .moved, location: Point(x: 288, y: 150))]))
        steps.append(("…and three more rows", [TouchInput(phase: .moved, location: Point(x: 288, y: 0))]))
        steps.append(("release", [TouchInput(phase: .ended, location: Point(x: 288, y: 0))]))
        steps.append(("idle frame: nothing changes", []))

        var frames: [RGBAImage] = []
        for (i, step) in steps.enumerated() {
            loop.perform { if !step.1.isEmpty { window.send(step.1) } }
            let before = window.host.frameCount
            try loop.runFrame()
            let f = window.lastFrame
            let composited = window.host.frameCount > before
            let drawn = composited ? f.displays.map { "\($0.layer) \(Int($0.rect.width))×\(Int($0.rect.height)) pt by \($0.reasons.first.map { "\($0)" } ?? "")" } : []
            let path = (output as NSString).appendingPathComponent(String(format: "frame-%02d.png", i + 1))
            let image = try target.readPixels()
            try image.writePNG(to: path)
            frames.append(image)
            if composited {
                print("frame \(i + 1) — \(step.0): laid out \(f.layoutPasses), drew \(f.layersDrawn)\(drawn.isEmpty ? "" : " [\(drawn.joined(separator: "; "))]"), uploaded \(f.textureBytesUploaded) B, \(f.drawCalls) draw calls")
            } else {
                print("frame \(i + 1) — \(step.0): nothing changed — no layout, no draw, no upload, no draw call")
            }
        }
        let sheet = (output as NSString).appendingPathComponent("contact-sheet.png")
        try contactSheet(frames, columns: 4).writePNG(to: sheet)
        print("wrote \(frames.count) frames and \(sheet); tiles drawn: \(tiles.tileDraws) (of \(tiles.tiles.count) recycled tile views)")
    }

    /// The frames side by side, composited by Lamina itself (each frame a layer's contents).
    func contactSheet(_ frames: [RGBAImage], columns: Int) throws -> RGBAImage {
        let cell = Size(width: 180, height: 150), gap = 8.0
        let rows = (frames.count + columns - 1) / columns
        let size = Size(width: Double(columns) * (cell.width + gap) + gap, height: Double(rows) * (cell.height + gap) + gap)
        let target = try OffscreenTarget(device: device, size: size, scale: 2)
        defer { target.release() }
        let root = Layer()
        root.frame = Rect(origin: .zero, size: size)
        for (i, frame) in frames.enumerated() {
            let l = Layer()
            l.frame = Rect(x: gap + Double(i % columns) * (cell.width + gap), y: gap + Double(i / columns) * (cell.height + gap),
                           width: cell.width, height: cell.height)
            l.contents = .image(ContentImage(frame))
            l.contentsGravity = .resizeAspect
            l.borderWidth = 1
            l.borderColor = Color(red: 0, green: 0, blue: 0, alpha: 0.25)
            root.addSublayer(l)
        }
        let compositor = Compositor(device: device)
        defer { compositor.release() }
        try compositor.render(root, to: target, background: Color(r8: 200, g8: 204, b8: 212))
        return try target.readPixels()
    }
}

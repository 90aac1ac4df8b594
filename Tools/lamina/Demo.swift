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
        abstract: "Build a small interface (stretchable button, label, custom-drawn view, tiled scroll view), replay scripted touches and animations, write each frame as a PNG and a contact sheet.",
        discussion: "The media clock is fixed for every frame (MediaClock.set), so the animation frames, and the PNGs, are the same on every run.")
    @OptionGroup var device: DeviceOptions
    @Option(name: .shortAndLong, help: "Output folder.") var output: String = "out/demo"
    @Option(help: "Pixels per point.") var scale: Double = 2
    @Option(help: "Also write a filmstrip of one animation (frames at fixed times side by side) to this PNG.")
    var filmstrip: String?
    @Option(help: "Also write a filmstrip of a fade transition and a contents cross-fade to this PNG.")
    var transitionFilmstrip: String?
    @Option(help: "Also write a filmstrip of push, move-in and reveal transitions to this PNG.")
    var pushFilmstrip: String?
    @Option(help: "Also write a filmstrip of a tiled layer (100 000² pt, 5 levels of detail) zooming in and out to this PNG.")
    var tiledFilmstrip: String?

    func run() throws {
        try MainActor.assumeIsolated {
            let d = try device.open()
            defer { d.close() }
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            defer { MediaClock.set(nil) }
            let app = DemoApp(device: d, scale: scale, output: output)
            try app.run()
            if let filmstrip { try app.writeFilmstrip(to: filmstrip) }
            if let transitionFilmstrip { try app.writeTransitionFilmstrip(to: transitionFilmstrip) }
            if let tiledFilmstrip { try app.writeTiledFilmstrip(to: tiledFilmstrip) }
            if let pushFilmstrip { try app.writePushFilmstrip(to: pushFilmstrip) }
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
        // A standalone layer (no view): Core Animation's implicit animations once rendered.
        let badge = Layer()
        badge.name = "badge"
        badge.frame = Rect(x: 244, y: 22, width: 28, height: 28)
        badge.backgroundColor = Color(r8: 244, g8: 160, b8: 66)
        badge.cornerRadius = 6
        window.layer.addSublayer(badge)

        // The script: one run-loop turn per step, each at a fixed media time (`dt` after the
        // previous step's), so that animation frames are the same on every run.
        let loop = try MainLoop()
        struct Step {
            var name: String
            var touches: [TouchInput] = []
            var action: (() -> Void)?
            var dt = 0.1
            /// Part of an animation: expected to draw and upload nothing.
            var animating = false
        }
        func tap(_ p: Point) -> [[TouchInput]] { [[TouchInput(phase: .began, location: p)], [TouchInput(phase: .ended, location: p)]] }
        func frames(_ n: Int, every dt: Double) -> [Step] { (0..<n).map { _ in Step(name: "…", dt: dt, animating: true) } }
        var steps: [Step] = [Step(name: "first frame")]
        steps += zip(["press the button", "release: taps 1, button wider"], tap(Point(x: 60, y: 90))).map { Step(name: $0, touches: $1) }
        steps += zip(["press the button again", "release: taps 2, wider again"], tap(Point(x: 60, y: 90))).map { Step(name: $0, touches: $1) }
        steps += zip(["touch bar 4", "release: bar 4 grows (partial redraw)"], tap(Point(x: 16 + 3.5 * 200 / 6, y: 250))).map { Step(name: $0, touches: $1) }
        steps.append(Step(name: "drag the tiles up by one row", touches: [TouchInput(phase: .began, location: Point(x: 288, y: 200))]))
        steps.append(Step(name: "…", touches: [TouchInput(phase: .moved, location: Point(x: 288, y: 150))]))
        steps.append(Step(name: "…and three more rows", touches: [TouchInput(phase: .moved, location: Point(x: 288, y: 0))]))
        steps.append(Step(name: "release", touches: [TouchInput(phase: .ended, location: Point(x: 288, y: 0))]))
        // Implicit animations of the standalone layer: the transaction's duration, the
        // default timing function.
        steps.append(Step(name: "implicit animations: the badge slides, turns, rounds and goes green (0.6 s)", action: {
            Transaction.setAnimationDuration(0.6)
            badge.position = Point(x: 322, y: 36)
            badge.transform = Transform3D(rotationAngle: .pi / 2, x: 0, y: 0, z: 1)
            badge.cornerRadius = 14
            badge.backgroundColor = Color(r8: 52, g8: 168, b8: 83)
        }, animating: true))
        steps += frames(4, every: 0.15)
        // Explicit animations: a keyframe path (a Catmull-Rom loop) and a spring.
        steps.append(Step(name: "explicit: the badge loops along a keyframe path, the button springs (scale 0.7 → 1)", action: {
            var path = KeyframeAnimation(keyPath: "position")
            path.values = [Point(x: 322, y: 36), Point(x: 292, y: 56), Point(x: 256, y: 36), Point(x: 292, y: 16), Point(x: 322, y: 36)].map { .point($0) }
            path.calculationMode = .cubicPaced
            path.duration = 1.2
            badge.add(path, forKey: "loop")
            var spring = SpringAnimation(keyPath: "transform.scale")
            spring.fromValue = .number(0.7)
            spring.toValue = .number(1)
            spring.stiffness = 300
            spring.damping = 14
            button.layer.add(spring, forKey: "bounce")
        }, animating: true))
        steps += frames(6, every: 0.2)
        // A view animation block: the views' model values change at once.
        var completion = ""
        steps.append(Step(name: "View.animate: the chart fades and shrinks, the counter slides (0.5 s, ease in-out)", action: {
            View.animate(withDuration: 0.5, animations: {
                chart.alpha = 0.55
                chart.transform = Transform2D(scaleX: 0.9, y: 0.9)
                counter.center = Point(x: counter.center.x + 70, y: counter.center.y)
            }, completion: { completion = "completion(\($0))" })
        }, animating: true))
        steps += frames(4, every: 0.125)
        steps.append(Step(name: "idle frame: nothing changes"))

        var images: [RGBAImage] = []
        var clock = 1000.0
        var animationFrames = 0, animationDraws = 0, animationBytes = 0
        for (i, step) in steps.enumerated() {
            clock += step.dt
            MediaClock.set(clock)
            loop.perform {
                if !step.touches.isEmpty { window.send(step.touches) }
                step.action?()
            }
            let before = window.host.frameCount
            completion = ""
            try loop.runFrame()
            let f = window.lastFrame
            let composited = window.host.frameCount > before
            let drawn = composited ? f.displays.map { "\($0.layer) \(Int($0.rect.width))×\(Int($0.rect.height)) pt by \($0.reasons.first.map { "\($0)" } ?? "")" } : []
            let path = (output as NSString).appendingPathComponent(String(format: "frame-%02d.png", i + 1))
            let image = try target.readPixels()
            try image.writePNG(to: path)
            images.append(image)
            let time = String(format: "t = %.2f s", clock - 1000)
            let running = window.host.compositor.hasRunningAnimations ? ", animations running" : ""
            if composited {
                print("frame \(i + 1) (\(time)) — \(step.name): laid out \(f.layoutPasses), drew \(f.layersDrawn)\(drawn.isEmpty ? "" : " [\(drawn.joined(separator: "; "))]"), uploaded \(f.textureBytesUploaded) B, \(f.drawCalls) draw calls\(running)\(completion.isEmpty ? "" : "; \(completion)")")
            } else {
                print("frame \(i + 1) (\(time)) — \(step.name): nothing changed — no layout, no draw, no upload, no draw call")
            }
            if step.animating {
                animationFrames += 1
                animationDraws += f.layersDrawn
                animationBytes += f.textureBytesUploaded
            }
        }
        let sheet = (output as NSString).appendingPathComponent("contact-sheet.png")
        try contactSheet(images, columns: 6).writePNG(to: sheet)
        print("animation frames: \(animationFrames), layers drawn in them: \(animationDraws), bytes uploaded: \(animationBytes)")
        print("wrote \(images.count) frames and \(sheet); tiles drawn: \(tiles.tileDraws) (of \(tiles.tiles.count) recycled tile views)")
    }

    /// One animation at fixed media times, side by side, each frame rendered by Lamina (a
    /// host on an offscreen target, the clock fixed per frame) and the strip composited by
    /// Lamina too: a card springs along a track (overshooting), turns and changes colour.
    func writeFilmstrip(to path: String) throws {
        var card: Layer!
        try recordFilmstrip(to: path, times: [0.0, 0.1, 0.2, 0.3, 0.45, 0.6, 0.8, 1.2], start: 2000, build: { root in
            let track = Layer()
            track.frame = Rect(x: 10, y: 47, width: 170, height: 2)
            track.backgroundColor = Color(r8: 200, g8: 205, b8: 215)
            let goal = Layer()     // where the card comes to rest (its model position)
            goal.frame = Rect(x: 96, y: 24, width: 48, height: 48)
            goal.cornerRadius = 11
            goal.borderWidth = 1.5
            goal.borderColor = Color(r8: 150, g8: 160, b8: 175)
            card = Layer()
            card.name = "card"
            card.bounds = Rect(x: 0, y: 0, width: 44, height: 44)
            card.position = Point(x: 120, y: 48)
            card.cornerRadius = 10
            card.backgroundColor = Color(r8: 230, g8: 120, b8: 40)
            let dot = Layer()      // shows the turn
            dot.frame = Rect(x: 28, y: 6, width: 10, height: 10)
            dot.cornerRadius = 5
            dot.backgroundColor = .white
            card.addSublayer(dot)
            for l in [track, goal, card!] { root.addSublayer(l) }
        }, animate: {
            var slide = SpringAnimation(keyPath: "position.x")
            slide.fromValue = .number(32)
            slide.stiffness = 120
            slide.damping = 9
            var turn = BasicAnimation(keyPath: "transform.rotation.z")
            turn.fromValue = .number(-Double.pi / 2)
            turn.toValue = .number(0)
            turn.duration = 0.8
            turn.timingFunction = .easeInEaseOut
            var tint = BasicAnimation(keyPath: "backgroundColor")
            tint.fromValue = .color(Color(r8: 66, g8: 133, b8: 244))
            tint.duration = 0.8
            card.add(slide, forKey: "slide")
            card.add(turn, forKey: "turn")
            card.add(tint, forKey: "tint")
        }, describe: { t, f in
            String(format: "filmstrip t = %.2f s: card at x %.1f, drew %d, uploaded %d B", t, card.presentation().position.x,
                   f.layersDrawn, f.textureBytesUploaded)
        })
        print("wrote \(path): frames of a spring (stiffness 120, damping 9), a turn and a tint")
    }

    /// Records a filmstrip: a 190×96-point scene on an offscreen target with a host, built by
    /// `build` and committed at media time `start`; `animate` makes its changes in one
    /// transaction there; then a frame at each `start + t` (the clock fixed), each printed
    /// with `describe`, side by side with captions into the PNG `path`.
    private func recordFilmstrip(to path: String, times: [Double], start: Double, build: (Layer) throws -> Void,
                                 animate: () throws -> Void, describe: (Double, FrameStatistics) -> String) throws {
        let scene = Size(width: 190, height: 96)
        let target = try OffscreenTarget(device: device, size: scene, scale: 1)
        defer { target.release() }
        let root = Layer()
        root.frame = Rect(origin: .zero, size: scene)
        root.backgroundColor = Color(r8: 248, g8: 249, b8: 252)
        let host = LayerTreeHost(rootLayer: root, target: target, background: .white)
        defer { host.detach() }
        try build(root)
        MediaClock.set(start)
        try Transaction.flush()
        Transaction.begin()
        try animate()
        try Transaction.commit()
        var frames: [(RGBAImage, String)] = []
        for t in times {
            MediaClock.set(start + t)
            try Transaction.flush()
            print(describe(t, host.lastFrame))
            frames.append((try target.readPixels(), String(format: "t = %.2f s", t)))
        }
        try strip(frames, cell: scene).writePNG(to: path)
    }

    /// A fade transition and a contents cross-fade at fixed media times: a card whose
    /// sublayers change under a `TransitionAnimation` (its old picture dissolves into the
    /// new one), beside an image layer whose `contents` cross-fade (an implicit animation).
    func writeTransitionFilmstrip(to path: String) throws {
        func picture(_ a: Color, _ b: Color, ring: Bool) throws -> ContentImage {
            let bitmap = try Bitmap(pixelSize: PixelSize(width: 72, height: 72))
            let c = GraphicsContext(bitmap: bitmap, scale: 1)
            c.setFillColor(a)
            c.fill(Rect(x: 0, y: 0, width: 72, height: 72))
            c.setFillColor(b)
            if ring {
                c.fillEllipse(in: Rect(x: 12, y: 12, width: 48, height: 48))
            } else {
                c.fill(Rect(x: 0, y: 36, width: 72, height: 36))
            }
            c.invalidate()
            return ContentImage(bitmap.rgbaImage())
        }
        let card = Layer(), before = Layer(), photo = Layer()
        try recordFilmstrip(to: path, times: [0.0, 0.1, 0.2, 0.3, 0.4, 0.5], start: 3000, build: { root in
            card.frame = Rect(x: 8, y: 12, width: 92, height: 72)
            card.cornerRadius = 10
            card.masksToBounds = true
            card.backgroundColor = Color(r8: 66, g8: 133, b8: 244)
            before.frame = Rect(x: 12, y: 12, width: 30, height: 30)
            before.cornerRadius = 15
            before.backgroundColor = .white
            card.addSublayer(before)
            photo.frame = Rect(x: 110, y: 12, width: 72, height: 72)
            photo.contents = .image(try picture(Color(r8: 250, g8: 200, b8: 60), Color(r8: 230, g8: 120, b8: 40), ring: true))
            for l in [card, photo] { root.addSublayer(l) }
        }, animate: {
            // In one transaction: the card's new sublayers and colour under a transition; the
            // photo's new contents by its implicit action (a cross-fade).
            Transaction.setAnimationDuration(0.5)
            Transaction.setAnimationTimingFunction(.linear)
            var transition = TransitionAnimation(type: .fade)
            transition.duration = 0.5
            card.add(transition, forKey: nil)
            Transaction.withoutActions {
                before.removeFromSuperlayer()
                let after = Layer()
                after.frame = Rect(x: 46, y: 30, width: 36, height: 30)
                after.cornerRadius = 4
                after.backgroundColor = Color(r8: 250, g8: 250, b8: 250)
                card.addSublayer(after)
                card.backgroundColor = Color(r8: 52, g8: 168, b8: 83)
            }
            photo.contents = .image(try picture(Color(r8: 120, g8: 80, b8: 200), Color(r8: 40, g8: 200, b8: 200), ring: false))
        }, describe: Self.passLine("transition filmstrip"))
        print("wrote \(path): frames of a fade transition (left) and a contents cross-fade (right), 0.5 s, linear")
    }

    /// The moving transitions at fixed media times: three cards (each inside a frame that
    /// clips it: `masksToBounds`) change from a blue face to a green one under a push from the right,
    /// a move-in from the bottom and a reveal from the left.
    func writePushFilmstrip(to path: String) throws {
        var cards: [(Layer, Layer, Layer)] = []
        try recordFilmstrip(to: path, times: [0.0, 0.1, 0.2, 0.3, 0.4, 0.5], start: 4000, build: { root in
            for i in 0..<3 {
                // The transition is not clipped by its own layer: a frame around it clips it.
                let frame = Layer(), card = Layer(), dot = Layer(), bar = Layer()
                frame.frame = Rect(x: 6 + Double(i) * 62, y: 18, width: 54, height: 60)
                frame.cornerRadius = 8
                frame.masksToBounds = true
                frame.addSublayer(card)
                card.frame = Rect(x: 0, y: 0, width: 54, height: 60)
                card.backgroundColor = Color(r8: 66, g8: 133, b8: 244)
                dot.frame = Rect(x: 15, y: 18, width: 24, height: 24)
                dot.cornerRadius = 12
                dot.backgroundColor = .white
                card.addSublayer(dot)
                bar.frame = Rect(x: 8, y: 40, width: 38, height: 10)
                bar.cornerRadius = 3
                bar.backgroundColor = Color(r8: 250, g8: 250, b8: 250)
                root.addSublayer(frame)
                cards.append((card, dot, bar))
            }
        }, animate: {
            let kinds: [(TransitionAnimation.Kind, TransitionAnimation.Subtype)] = [(.push, .fromRight), (.moveIn, .fromBottom), (.reveal, .fromLeft)]
            for ((card, dot, bar), (kind, subtype)) in zip(cards, kinds) {
                var transition = TransitionAnimation(type: kind, subtype: subtype)
                transition.duration = 0.5
                transition.timingFunction = .linear
                card.add(transition, forKey: nil)
                Transaction.withoutActions {
                    dot.removeFromSuperlayer()
                    card.addSublayer(bar)
                    card.backgroundColor = Color(r8: 52, g8: 168, b8: 83)
                }
            }
        }, describe: Self.passLine("push filmstrip"))
        print("wrote \(path): frames of a push from the right, a move-in from the bottom and a reveal from the left, 0.5 s, linear")
    }

    /// A filmstrip frame's line: what it drew and uploaded, and its offscreen passes.
    private static func passLine(_ name: String) -> (Double, FrameStatistics) -> String {
        { t, f in
            String(format: "\(name) t = %.2f s: drew %d, uploaded %d B, %d offscreen passes", t, f.layersDrawn, f.textureBytesUploaded,
                   f.offscreenPasses)
        }
    }

    /// Frames side by side with a caption under each, composited by Lamina.
    private func strip(_ frames: [(RGBAImage, String)], cell: Size) throws -> RGBAImage {
        let gap = 6.0, caption = 18.0
        let size = Size(width: Double(frames.count) * (cell.width + gap) + gap, height: cell.height + caption + 2 * gap)
        let target = try OffscreenTarget(device: device, size: size, scale: 1)
        defer { target.release() }
        let root = Layer()
        root.frame = Rect(origin: .zero, size: size)
        let font = Font(family: "DejaVu Sans", size: 11)
        for (i, (image, text)) in frames.enumerated() {
            let x = gap + Double(i) * (cell.width + gap)
            let l = Layer()
            l.frame = Rect(x: x, y: gap, width: cell.width, height: cell.height)
            l.contents = .image(ContentImage(image))
            l.borderWidth = 1
            l.borderColor = Color(red: 0, green: 0, blue: 0, alpha: 0.15)
            root.addSublayer(l)
            let label = Layer()
            let measured = GraphicsContext.measure(text, font: font)
            let bitmap = try Bitmap(pixelSize: PixelSize(covering: measured, scale: 1))
            let c = GraphicsContext(bitmap: bitmap, scale: 1)
            _ = c.draw(text, at: .zero, font: font, color: Color(r8: 60, g8: 64, b8: 72))
            c.invalidate()
            label.contents = .image(ContentImage(bitmap.rgbaImage()))
            label.frame = Rect(x: x + (cell.width - measured.width) / 2, y: gap + cell.height + 3, width: measured.width, height: measured.height)
            root.addSublayer(label)
        }
        let compositor = LayerRenderer(device: device)
        defer { compositor.release() }
        try compositor.render(root, to: target, background: Color(r8: 232, g8: 235, b8: 240))
        return try target.readPixels()
    }

    /// A tiled layer zooming: a 100 000 × 100 000 point map in a 200×150 window, zoomed
    /// about its centre from ¼× to 8× and back. Each zoom is captured twice: at once (the
    /// tiles of the level shown before, stretched, while the new level is drawn on the
    /// workers) and when its tiles have arrived. Tiles of each level are outlined in that
    /// level's colour.
    func writeTiledFilmstrip(to path: String) throws {
        let size = Size(width: 200, height: 150)
        let target = try OffscreenTarget(device: device, size: size, scale: 1)
        defer { target.release() }
        let root = Layer()
        root.frame = Rect(origin: .zero, size: size)
        root.masksToBounds = true
        let map = TiledLayer(drawing: { ctx in
            EffectsBench.drawMap(ctx)
            // The tile's outline, coloured by its level (its pixels per point).
            let r = ctx.clipBoundingBox
            let level = Int((log2(max(ctx.ctm.a, 1e-9))).rounded())
            let colors = [Color(red: 0.9, green: 0.2, blue: 0.2), Color(red: 0.2, green: 0.6, blue: 0.2), Color(red: 0.2, green: 0.3, blue: 0.9),
                          Color(red: 0.7, green: 0.3, blue: 0.8), Color(red: 0.9, green: 0.6, blue: 0.1)]
            ctx.setStrokeColor(colors[(level + 8) % colors.count])
            ctx.setLineWidth(2 / max(ctx.ctm.a, 1e-9))
            ctx.stroke(r.insetBy(dx: 1 / max(ctx.ctm.a, 1e-9), dy: 1 / max(ctx.ctm.a, 1e-9)))
        })
        map.tileSize = Size(width: 128, height: 128)
        map.levelsOfDetail = 6
        map.levelsOfDetailBias = 3
        map.fadeDuration = 0
        map.bounds = Rect(x: 0, y: 0, width: 100_000, height: 100_000)
        map.position = Point(x: size.width / 2, y: size.height / 2)
        root.addSublayer(map)
        let host = LayerTreeHost(rootLayer: root, target: target, background: Color(r8: 232, g8: 235, b8: 240))
        defer { host.detach() }
        try Transaction.flush()
        map.waitForPendingTiles()
        try Transaction.flush()
        var frames: [(RGBAImage, String)] = [(try target.readPixels(), "1× (level 3)")]
        print("tiled filmstrip: 1×: \(map.tilesDrawn) tiles drawn, level \(map.currentLevel)")
        for zoom in [2.0, 8.0, 0.25, 1.0] {
            let before = map.tilesDrawn
            Transaction.withoutActions { map.transform = Transform3D(scaleX: zoom, y: zoom) }
            try Transaction.flush()
            let label = zoom < 1 ? "¼×" : "\(Int(zoom))×"
            frames.append((try target.readPixels(), "\(label): at once"))
            map.waitForPendingTiles()
            try Transaction.flush()
            frames.append((try target.readPixels(), "\(label): tiles in"))
            print("tiled filmstrip: \(label): level \(map.currentLevel), \(map.tilesDrawn - before) tiles drawn, \(map.residentTiles) resident (\(map.residentTileBytes / 1024) KiB)")
        }
        try strip(frames, cell: size).writePNG(to: path)
        print("wrote \(path): a 100 000² pt tiled layer zooming (tiles outlined in their level's colour)")
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
        let compositor = LayerRenderer(device: device)
        defer { compositor.release() }
        try compositor.render(root, to: target, background: Color(r8: 200, g8: 204, b8: 212))
        return try target.readPixels()
    }
}

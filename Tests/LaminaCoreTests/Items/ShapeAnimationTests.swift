import Foundation
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import Testing
@testable import LaminaCore
@testable import LaminaModel
@testable import LaminaRender
@testable import LaminaValues
import LaminaTestSupport

// Animations of a shape layer's own keys (strokeEnd, colours, line width) and of a
// subclass's keys with needsDisplay(forKey:): the layer is displayed at every frame with
// the values shown. Expected values are computed here from the animations' definitions
// (linear pacing, piecewise-linear keyframes, the closed form of a damped spring), never
// by Lamina's interpolation.

/// A ring drawn from a key of its own, "progress" (as a CALayer subclass with an
/// @NSManaged property and needsDisplay(forKey:)): a bar `progress` × 100 points wide.
private final class ProgressBar: Layer {
    var progress: Double {
        get { if case .number(let v)? = value(forKey: "progress") { return v } else { return 0 } }
        set { setValue(.number(newValue), forKey: "progress") }
    }
    private(set) var drawn: [Double] = []
    required init() {
        super.init()
        progress = 0
    }
    override class func needsDisplay(forKey key: String) -> Bool { key == "progress" || super.needsDisplay(forKey: key) }
    override func draw(in ctx: GraphicsContext) {
        drawn.append(progress)
        ctx.setFillColor(.red)
        ctx.fill(Rect(x: 0, y: 0, width: 100 * progress, height: 20))
    }
}

extension EffectsTests {
    /// A ring: a circle of radius 40 about (50, 50), stroked 8 wide.
    private func ring() -> ShapeLayer {
        let s = ShapeLayer()
        s.frame = Rect(x: 0, y: 0, width: 100, height: 100)
        var p = Path()
        p.addEllipse(in: Rect(x: 10, y: 10, width: 80, height: 80))
        s.path = p
        s.fillColor = nil
        s.strokeColor = .blue
        s.lineWidth = 8
        return s
    }

    /// A hosted tree with one ring, on a 100×100 target, at media time `start`.
    private func hostedRing(device: GPUDevice) throws -> (ShapeLayer, LayerTreeHost) {
        let root = rootLayer(width: 100, height: 100)
        let shape = ring()
        root.addSublayer(shape)
        let host = LayerTreeHost(rootLayer: root, target: try OffscreenTarget(device: device, size: Size(width: 100, height: 100)),
                                 background: .white)
        return (shape, host)
    }

    /// The same ring, still, with `configure` applied: its pixels.
    private func stillRing(_ configure: (ShapeLayer) -> Void) throws -> RGBAImage {
        let root = rootLayer(width: 100, height: 100)
        let s = ring()
        configure(s)
        root.addSublayer(s)
        try Transaction.flush()
        return try render(root, width: 100, height: 100).image
    }

    @Test("strokeEnd animates (a progress ring): presented values at fixed media times are the linear ones, each frame's pixels equal a still ring at that strokeEnd, one display per frame")
    func strokeEndAnimates() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let (shape, host) = try hostedRing(device: device)
        defer { host.detach() }
        let start = MonotonicClock.now()
        MediaClock.set(start)
        defer { MediaClock.set(nil) }
        try Transaction.flush()
        var grow = BasicAnimation(keyPath: "strokeEnd")
        grow.fromValue = .number(0)
        grow.toValue = .number(1)
        grow.duration = 2
        grow.beginTime = start
        grow.timingFunction = .linear
        shape.add(grow, forKey: "progress")
        #expect(shape.animation(forKey: "progress") != nil, "strokeEnd is animatable on a shape layer")
        for t in [0.3, 0.9, 1.5] {
            MediaClock.set(start + t)
            let displays = shape.displayCount
            try TransactionContext.current.commitIfNeeded()
            #expect(shape.displayCount == displays + 1, "one display for the frame at \(t) s")
            let expected = t / 2                                  // linear, 0 → 1 over 2 s
            #expect(abs(shape.presentation().strokeEnd - expected) < 1e-9, "\(shape.presentation().strokeEnd) at \(t) s")
            #expect(shape.strokeEnd == 1, "the model keeps its value")
            let frame = try host.target.readPixels()
            let still = try stillRing { $0.strokeEnd = expected }
            let d = frame.difference(from: still, tolerance: 0)
            #expect(d.differing == 0, "at \(t) s: \(d.differing) pixels differ from a still ring at strokeEnd \(expected)")
        }
        // After the end (removed on completion): the model's value, drawn once more, then nothing.
        MediaClock.set(start + 2.5)
        try TransactionContext.current.commitIfNeeded()
        try TransactionContext.current.commitIfNeeded()
        let settled = shape.displayCount
        for _ in 0..<3 { try TransactionContext.current.commitIfNeeded() }
        #expect(shape.displayCount == settled && shape.animation(forKey: "progress") == nil)
        let end = try host.target.readPixels()
        #expect(end.difference(from: try stillRing { _ in }, tolerance: 0).differing == 0, "the whole ring after the end")
    }

    @Test("path morphs point by point between paths of the same elements (pixels equal the still in-between path); other paths switch half-way")
    func pathMorphs() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        func triangle(_ x: Double, _ y: Double) -> Path {
            var p = Path()
            p.move(to: Point(x: 10, y: 10))
            p.addLine(to: Point(x: 90, y: 10))
            p.addQuadCurve(to: Point(x: x, y: y), control: Point(x: 90, y: 50))
            p.closeSubpath()
            return p
        }
        let (shape, host) = try hostedRing(device: device)
        defer { host.detach() }
        shape.path = triangle(10, 90)
        shape.fillColor = .red
        let start = MonotonicClock.now()
        MediaClock.set(start)
        defer { MediaClock.set(nil) }
        try Transaction.flush()
        var morph = BasicAnimation(keyPath: "path")
        morph.fromValue = .path(triangle(10, 90))
        morph.toValue = .path(triangle(90, 90))
        morph.duration = 2
        morph.beginTime = start
        morph.timingFunction = .linear
        shape.add(morph, forKey: "morph")
        for t in [0.5, 1.2] {
            MediaClock.set(start + t)
            try TransactionContext.current.commitIfNeeded()
            let x = 10 + 80 * t / 2                                   // the end point, linear over 2 s
            let shown = try #require(shape.presentation().path)
            #expect(shown.structure == triangle(x, 90).structure
                    && zip(shown.morphComponents, triangle(x, 90).morphComponents).allSatisfy { abs($0 - $1) < 1e-6 },
                    "at \(t) s: \(shown.elements)")
            #expect(shape.path == triangle(10, 90), "the model keeps its path")
            let still = try stillRing { $0.path = triangle(x, 90); $0.fillColor = .red }
            let d = try host.target.readPixels().difference(from: still, tolerance: 0)
            #expect(d.differing == 0, "at \(t) s: \(d.differing) pixels differ from the still path")
        }
        // A path of other elements (an ellipse): no morph, the old path until half-way.
        var swap = BasicAnimation(keyPath: "path")
        swap.fromValue = .path(triangle(10, 90))
        swap.toValue = .path(Path(ellipseIn: Rect(x: 20, y: 20, width: 60, height: 60)))
        swap.duration = 2
        swap.beginTime = start + 3
        shape.add(swap, forKey: "morph")
        MediaClock.set(start + 3.9)
        try TransactionContext.current.commitIfNeeded()
        #expect(shape.presentation().path == triangle(10, 90))
        MediaClock.set(start + 4.1)
        try TransactionContext.current.commitIfNeeded()
        #expect(shape.presentation().path == Path(ellipseIn: Rect(x: 20, y: 20, width: 60, height: 60)))
        // Keyframes drop values that do not morph into the first.
        var frames = KeyframeAnimation(keyPath: "path")
        frames.values = [.path(triangle(10, 90)), .path(Path(ellipseIn: Rect(x: 0, y: 0, width: 9, height: 9))), .path(triangle(90, 90))]
        frames.duration = 2
        frames.beginTime = start + 6
        shape.add(frames, forKey: "morph")
        MediaClock.set(start + 7)
        try TransactionContext.current.commitIfNeeded()
        let between = try #require(shape.presentation().path)
        #expect(zip(between.morphComponents, triangle(50, 90).morphComponents).allSatisfy { abs($0 - $1) < 1e-6 },
                "half-way between the two triangles: \(between.elements)")
    }

    @Test("fillColor, strokeColor, lineWidth and strokeStart animate: keyframe and basic values at fixed times, pixels equal the still shape with those values")
    func shapeStyleAnimates() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let (shape, host) = try hostedRing(device: device)
        defer { host.detach() }
        shape.fillColor = .white
        let start = MonotonicClock.now()
        MediaClock.set(start)
        defer { MediaClock.set(nil) }
        try Transaction.flush()
        var width = KeyframeAnimation(keyPath: "lineWidth")
        width.values = [.number(2), .number(12), .number(4)]
        width.keyTimes = [0, 0.5, 1]
        width.duration = 1
        width.beginTime = start
        var stroke = BasicAnimation(keyPath: "strokeColor")
        stroke.fromValue = .color(.red)
        stroke.toValue = .color(.blue)
        stroke.duration = 1
        stroke.beginTime = start
        stroke.timingFunction = .linear
        var fill = BasicAnimation(keyPath: "fillColor")
        fill.toValue = .color(Color(red: 0, green: 1, blue: 0))   // from the model's white
        fill.duration = 1
        fill.beginTime = start
        fill.timingFunction = .linear
        var trim = BasicAnimation(keyPath: "strokeStart")
        trim.byValue = .number(0.5)
        trim.duration = 1
        trim.beginTime = start
        trim.timingFunction = .linear
        for (a, key) in [(width as any Animation, "w"), (stroke, "s"), (fill, "f"), (trim, "t")] { shape.add(a, forKey: key) }
        #expect(shape.animationKeys() == ["w", "s", "f", "t"])
        MediaClock.set(start + 0.25)
        try TransactionContext.current.commitIfNeeded()
        let p = shape.presentation()
        // lineWidth: 2 → 12 over the first half: 7 at a quarter. Colours: a quarter of the way.
        #expect(abs(p.lineWidth - 7) < 1e-9, "\(p.lineWidth)")
        #expect(p.strokeColor.map { abs($0.red - 0.75) < 1e-9 && abs($0.blue - 0.25) < 1e-9 } == true, "\(String(describing: p.strokeColor))")
        #expect(p.fillColor.map { abs($0.red - 0.75) < 1e-9 && abs($0.green - 1) < 1e-9 } == true, "\(String(describing: p.fillColor))")
        #expect(abs(p.strokeStart - 0.125) < 1e-9, "\(p.strokeStart)")
        let still = try stillRing {
            $0.fillColor = Color(red: 0.75, green: 1, blue: 0.75)
            $0.strokeColor = Color(red: 0.75, green: 0, blue: 0.25)
            $0.lineWidth = 7
            $0.strokeStart = 0.125
        }
        let d = try host.target.readPixels().difference(from: still, tolerance: 0)
        #expect(d.differing == 0, "\(d.differing) pixels differ (max \(d.maxDifference))")
    }

    @Test("a spring on strokeEnd follows the damped oscillator's closed form; a key not of the layer's kind is refused")
    func strokeEndSpring() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let (shape, host) = try hostedRing(device: device)
        defer { host.detach() }
        let start = MonotonicClock.now()
        MediaClock.set(start)
        defer { MediaClock.set(nil) }
        try Transaction.flush()
        var spring = SpringAnimation(keyPath: "strokeEnd")
        spring.fromValue = .number(0)
        spring.toValue = .number(1)
        spring.mass = 1
        spring.stiffness = 100
        spring.damping = 10
        spring.duration = spring.settlingDuration
        spring.beginTime = start
        shape.add(spring, forKey: "spring")
        // ω₀ = √(k/m) = 10, ζ = c / (2√(km)) = 0.5, ω_d = ω₀√(1 − ζ²).
        let w0 = 10.0, zeta = 0.5, wd = w0 * (1 - zeta * zeta).squareRoot()
        for t in [0.1, 0.25, 0.4] {
            MediaClock.set(start + t)
            try TransactionContext.current.commitIfNeeded()
            let expected = 1 - exp(-zeta * w0 * t) * (cos(wd * t) + zeta * w0 / wd * sin(wd * t))
            #expect(abs(shape.presentation().strokeEnd - expected) < 1e-6, "at \(t): \(shape.presentation().strokeEnd) vs \(expected)")
        }
        // A plain layer has no strokeEnd: the animation is not added (and says why).
        let plain = Layer()
        var warned: String?
        TransactionContext.current.warningHandler = { warned = "\($0)" }
        defer { TransactionContext.current.warningHandler = nil }
        plain.add(BasicAnimation(keyPath: "strokeEnd"), forKey: "x")
        #expect(plain.animationKeys().isEmpty && warned?.contains("strokeEnd") == true, "\(warned ?? "no warning")")
    }

    @Test("a paused ring scrubbed by timeOffset draws the strokeEnd of each offset (and not again while it stays); a ring outside every rendered tree is not drawn at every commit; non-finite or wrong-kind values are refused")
    func strokeEndScrubbedAndGuarded() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let (shape, host) = try hostedRing(device: device)
        defer { host.detach() }
        try Transaction.flush()
        shape.speed = 0
        var grow = BasicAnimation(keyPath: "strokeEnd")
        grow.fromValue = .number(0)
        grow.toValue = .number(1)
        grow.duration = 1
        grow.beginTime = 1e-9                       // local time 0 (0 would mean "when committed")
        grow.timingFunction = .linear
        grow.fillMode = .both
        shape.add(grow, forKey: "scrub")
        for offset in [0.4, 0.7] {
            shape.timeOffset = offset
            try Transaction.flush()
            let d = try host.target.readPixels().difference(from: try stillRing { $0.strokeEnd = offset }, tolerance: 0)
            #expect(d.differing == 0, "paused at \(offset): \(d.differing) pixels differ from a still ring")
        }
        let displays = shape.displayCount
        for _ in 0..<3 { try Transaction.flush(); try TransactionContext.current.commitIfNeeded() }
        #expect(shape.displayCount == displays, "no redraw while the paused time stays")

        let loose = ring()                           // in no rendered tree
        var spin = BasicAnimation(keyPath: "strokeEnd")
        spin.fromValue = .number(0)
        spin.toValue = .number(1)
        spin.duration = 10
        loose.add(spin, forKey: "loose")
        try Transaction.flush()
        let looseDisplays = loose.displayCount
        for _ in 0..<3 { loose.transactionContext.noteChange(); try Transaction.flush() }
        #expect(loose.displayCount == looseDisplays, "\(loose.displayCount - looseDisplays) displays of a layer nobody shows")

        var warnings: [String] = []
        TransactionContext.current.warningHandler = { warnings.append("\($0)") }
        defer { TransactionContext.current.warningHandler = nil }
        shape.lineWidth = .nan
        shape.setValue(.point(Point(x: 1, y: 2)), forKey: "strokeEnd")
        #expect(shape.lineWidth == 8 && shape.strokeEnd == 1 && warnings.count == 2, "\(warnings)")
    }

    @Test("a subclass's own key with needsDisplay(forKey:) redraws at every frame of its animation with the value shown, and not after it ends")
    func customKeyRedraws() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let root = rootLayer(width: 100, height: 20)
        let bar = ProgressBar()
        bar.frame = Rect(x: 0, y: 0, width: 100, height: 20)
        bar.setNeedsDisplay()
        root.addSublayer(bar)
        let host = LayerTreeHost(rootLayer: root, target: try OffscreenTarget(device: device, size: Size(width: 100, height: 20)),
                                 background: .white)
        defer { host.detach() }
        let start = MonotonicClock.now()
        MediaClock.set(start)
        defer { MediaClock.set(nil) }
        try Transaction.flush()
        #expect(bar.drawn == [0])
        var fill = BasicAnimation(keyPath: "progress")
        fill.fromValue = .number(0.2)
        fill.toValue = .number(1)
        fill.duration = 1
        fill.beginTime = start
        fill.timingFunction = .linear
        bar.add(fill, forKey: "fill")
        try TransactionContext.current.commitIfNeeded()
        for t in [0.25, 0.5] {
            MediaClock.set(start + t)
            try TransactionContext.current.commitIfNeeded()
            let expected = 0.2 + 0.8 * t
            #expect(abs((bar.drawn.last ?? -1) - expected) < 1e-9, "drawn with \(bar.drawn.last ?? -1) at \(t) s")
            #expect(bar.progress == 0, "outside draw(in:), the model's value")
            let image = try host.target.readPixels()
            let edge = Int((100 * expected).rounded())
            #expect(image[edge - 2, 10] == red && image[edge + 2, 10] == white, "the bar ends at \(edge)")
        }
        MediaClock.set(start + 1.5)
        try TransactionContext.current.commitIfNeeded()
        try TransactionContext.current.commitIfNeeded()
        let count = bar.drawn.count
        #expect(bar.drawn.last == 0, "after the end the model's value is drawn")
        for _ in 0..<3 { try TransactionContext.current.commitIfNeeded() }
        #expect(bar.drawn.count == count, "no draws once it ended: \(bar.drawn)")
        // A key every layer has cannot be set as a key of one's own.
        bar.setValue(.number(0.5), forKey: "opacity")
        #expect(bar.value(forKey: "opacity") == nil && bar.opacity == 1)
    }
}

@MainActor
@Suite("Shape layers: implicit animations of their own keys", .isolatedTransactions)
struct ShapeImplicitAnimationTests {
    @Test("setting strokeEnd or strokeColor of a hosted shape layer animates (CAShapeLayer's implicit actions), from the value shown")
    func implicit() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let root = rootLayer(width: 50, height: 50)
        let shape = ShapeLayer()
        var p = Path()
        p.addEllipse(in: Rect(x: 5, y: 5, width: 40, height: 40))
        shape.path = p
        root.addSublayer(shape)
        let host = LayerTreeHost(rootLayer: root, target: try OffscreenTarget(device: device, size: Size(width: 50, height: 50)),
                                 background: .white)
        defer { host.detach() }
        try Transaction.flush()
        shape.strokeEnd = 0.25
        shape.strokeColor = .red
        #expect(Set(shape.animationKeys()) == ["strokeEnd", "strokeColor"], "\(shape.animationKeys())")
        shape.path = Path(ellipseIn: Rect(x: 10, y: 10, width: 30, height: 30))
        let morph = try #require(shape.animation(forKey: "path") as? BasicAnimation, "a new path animates too (CAShapeLayer's path)")
        #expect(morph.fromValue == .path(p))
        let a = try #require(shape.animation(forKey: "strokeEnd") as? BasicAnimation)
        #expect(a.fromValue == .number(1) && (a.toValue == nil || a.toValue == .number(0.25)), "\(String(describing: a.fromValue)) → \(String(describing: a.toValue))")
        #expect(shape.strokeEnd == 0.25)
        // A custom key of a subclass has no implicit animation (as Core Animation's).
        let bar = ProgressBar()
        root.addSublayer(bar)
        try Transaction.flush()
        bar.progress = 0.5
        #expect(bar.animationKeys().isEmpty)
    }
}

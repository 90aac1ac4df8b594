import CGLES
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

// Gradients (Sources/LaminaRender/Items/GradientItem.swift).
extension EffectsTests {
    @Test("axial and radial gradients equal the 2D context's (opaque stops, within 2/255: the dithering's half step and rounding)")
    func gradientReftest() throws {
        final class Drawn: Layer {
            var radial = false
            override func draw(in ctx: GraphicsContext) {
                let g = Gradient(stops: [(0, Color(red: 1, green: 0.2, blue: 0)), (0.4, Color(red: 0.1, green: 0.8, blue: 0.3)),
                                         (1, Color(red: 0.1, green: 0.1, blue: 0.9))])
                if radial {
                    ctx.drawRadialGradient(g, startCenter: Point(x: 60, y: 60), startRadius: 0, endCenter: Point(x: 60, y: 60), endRadius: 60)
                } else {
                    ctx.drawLinearGradient(g, start: Point(x: 0, y: 0), end: Point(x: 120, y: 120))
                }
            }
        }
        for radial in [false, true] {
            let root = rootLayer()
            let g = GradientLayer()
            g.frame = Rect(x: 40, y: 40, width: 120, height: 120)
            g.type = radial ? .radial : .axial
            g.colors = [Color(red: 1, green: 0.2, blue: 0), Color(red: 0.1, green: 0.8, blue: 0.3), Color(red: 0.1, green: 0.1, blue: 0.9)]
            g.locations = [0, 0.4, 1]
            g.startPoint = radial ? Point(x: 0.5, y: 0.5) : .zero
            g.endPoint = radial ? Point(x: 1, y: 1) : Point(x: 1, y: 1)
            root.addSublayer(g)
            let (image, _) = try render(root)
            let root2 = rootLayer()
            let d = Drawn()
            d.radial = radial
            d.frame = g.frame
            d.setNeedsDisplay()
            root2.addSublayer(d)
            try Transaction.flush()
            let (reference, _) = try render(root2)
            let diff = image.difference(from: reference, tolerance: 2)
            #expect(diff.differing == 0, "\(radial ? "radial" : "axial"): \(diff.differing) pixels differ by up to \(diff.maxDifference)")
        }
    }

    @Test("gradients interpolate premultiplied colour; a conic gradient follows the angle; dithering keeps each column's mean on the exact value (no 8-bit bands)")
    func gradientSemantics() throws {
        let root = rootLayer()
        let g = GradientLayer()
        g.frame = Rect(x: 0, y: 0, width: 200, height: 40)
        g.colors = [Color(red: 1, green: 0, blue: 0), Color(red: 0, green: 0, blue: 1, alpha: 0)]
        g.startPoint = Point(x: 0, y: 0.5)
        g.endPoint = Point(x: 1, y: 0.5)
        root.addSublayer(g)
        let ramp = GradientLayer()
        ramp.frame = Rect(x: 0, y: 50, width: 200, height: 64)
        ramp.colors = [Color(red: 100 / 255, green: 100 / 255, blue: 100 / 255), Color(red: 104 / 255, green: 104 / 255, blue: 104 / 255)]
        ramp.startPoint = Point(x: 0, y: 0.5)
        ramp.endPoint = Point(x: 1, y: 0.5)
        root.addSublayer(ramp)
        let cone = GradientLayer()
        cone.frame = Rect(x: 0, y: 120, width: 80, height: 80)
        cone.type = .conic
        cone.colors = [.black, .white]
        cone.startPoint = Point(x: 0.5, y: 0.5)
        cone.endPoint = Point(x: 1, y: 0.5)
        root.addSublayer(cone)
        let (image, _) = try render(root)
        // Halfway: premultiplied (0.5, 0, 0, 0.5) over white = (1, 0.5, 0.5); straight-alpha
        // interpolation would give (0.75, 0.5, 0.75).
        let mid = image[100, 20]
        #expect(abs(Int(mid.r) - 255) <= 2 && abs(Int(mid.g) - 128) <= 2 && abs(Int(mid.b) - 128) <= 2, "\(mid)")
        var worst = 0.0
        for x in 0..<200 {
            var sum = 0.0
            for y in 50..<114 { sum += Double(image[x, y].g) }
            let exact = 100 + 4 * (Double(x) + 0.5) / 200
            worst = max(worst, abs(sum / 64 - exact))
        }
        #expect(worst < 0.3, "column means stay within 0.3 of the exact ramp (rounding alone errs by up to 0.5): \(worst)")
        // The conic: angle from +x, clockwise on screen (y down): below the centre is a quarter turn.
        let below = Double(image[40, 175].r), left = Double(image[5, 160].r), above = Double(image[40, 125].r)
        #expect(abs(below - 64) <= 6 && abs(left - 128) <= 6 && abs(above - 191) <= 6, "\(below) \(left) \(above)")
    }
}

extension EffectsTests {
    @Test("a gradient fills its rounded shape without masksToBounds (CAGradientLayer.h): the corners stay empty, as with a rounded background; with masksToBounds the same")
    func gradientRoundedCorners() throws {
        func render(masks: Bool) throws -> RGBAImage {
            let root = rootLayer(width: 200, height: 140)
            let g = GradientLayer()
            g.frame = Rect(x: 20, y: 20, width: 160, height: 100)
            g.colors = [.red, .blue]
            g.cornerRadius = 24
            g.masksToBounds = masks
            root.addSublayer(g)
            return try LaminaCoreTests.render(root, width: 200, height: 140, background: .white).image
        }
        // The reference: the same rounded rectangle as a background (its coverage is Lamina's analytic one).
        let ref = rootLayer(width: 200, height: 140)
        let shape = solid(Rect(x: 20, y: 20, width: 160, height: 100), .black)
        shape.cornerRadius = 24
        ref.addSublayer(shape)
        let mask = try LaminaCoreTests.render(ref, width: 200, height: 140, background: .white).image
        for masks in [false, true] {
            let image = try render(masks: masks)
            // Outside the rounded shape (where the reference is white) the gradient drew nothing.
            var painted = 0, outside = 0
            for y in 0..<140 { for x in 0..<200 where mask[x, y] == white {
                outside += 1
                if image[x, y].maxChannelDifference(white) > 2 { painted += 1 }
            } }
            #expect(painted == 0, "masksToBounds \(masks): \(painted) pixels painted outside the rounded shape")
            #expect(outside > 12_000)   // (the frame around, and the four corners: about 490 pixels)
            // The corner itself, and inside the shape near it.
            #expect(image[21, 21] == white, "\(image[21, 21])")
            #expect(image[40, 40].maxChannelDifference(white) > 100)
        }
    }
}

extension EffectsTests {
    @Test("a gradient's startPoint and endPoint animate on the GPU: presented values at fixed times are the linear ones, each frame equals a still gradient with them, nothing is drawn on the CPU")
    func gradientPointsAnimate() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        func gradient() -> GradientLayer {
            let g = GradientLayer()
            g.frame = Rect(x: 10, y: 10, width: 80, height: 80)
            g.colors = [.red, Color(red: 0.1, green: 0.8, blue: 0.3), .blue]
            g.startPoint = Point(x: 0, y: 0.5)
            g.endPoint = Point(x: 1, y: 0.5)
            return g
        }
        let root = rootLayer(width: 100, height: 100)
        let g = gradient()
        root.addSublayer(g)
        let host = LayerTreeHost(rootLayer: root, target: try OffscreenTarget(device: device, size: Size(width: 100, height: 100)),
                                 background: .white)
        defer { host.detach() }
        let start = MonotonicClock.now()
        MediaClock.set(start)
        defer { MediaClock.set(nil) }
        try Transaction.flush()
        var sweep = BasicAnimation(keyPath: "endPoint")
        sweep.fromValue = .point(Point(x: 1, y: 0.5))
        sweep.toValue = .point(Point(x: 0.5, y: 1))
        sweep.duration = 1
        sweep.beginTime = start
        sweep.timingFunction = .linear
        var shift = BasicAnimation(keyPath: "startPoint")
        shift.byValue = .point(Point(x: 0.2, y: -0.4))
        shift.duration = 1
        shift.beginTime = start
        shift.timingFunction = .linear
        g.add(sweep, forKey: "sweep")
        g.add(shift, forKey: "shift")
        for t in [0.25, 0.7] {
            MediaClock.set(start + t)
            try TransactionContext.current.commitIfNeeded()
            let end = Point(x: 1 - 0.5 * t, y: 0.5 + 0.5 * t), begin = Point(x: 0.2 * t, y: 0.5 - 0.4 * t)
            let p = g.presentation()
            #expect(abs(p.endPoint.x - end.x) < 1e-9 && abs(p.endPoint.y - end.y) < 1e-9, "\(p.endPoint) at \(t)")
            #expect(abs(p.startPoint.x - begin.x) < 1e-9 && abs(p.startPoint.y - begin.y) < 1e-9, "\(p.startPoint) at \(t)")
            #expect(host.lastFrame.textureBytesUploaded == 0, "evaluated on the GPU: \(host.lastFrame)")
            let stillRoot = rootLayer(width: 100, height: 100)
            let still = gradient()
            still.startPoint = begin
            still.endPoint = end
            stillRoot.addSublayer(still)
            try Transaction.flush()
            let d = try host.target.readPixels().difference(from: try render(stillRoot, width: 100, height: 100).image, tolerance: 0)
            #expect(d.differing == 0, "at \(t): \(d.differing) pixels differ (max \(d.maxDifference))")
        }
    }
}

extension EffectsTests {
    @Test("colors and locations animate on the GPU: presented values at fixed times are the linear ones (colours premultiplied), pixels equal still gradients with them, nothing uploaded")
    func gradientColorsAnimate() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let half = Color(red: 0, green: 0, blue: 1, alpha: 0.5)
        func gradient() -> GradientLayer {
            let g = GradientLayer()
            g.frame = Rect(x: 10, y: 10, width: 80, height: 80)
            g.colors = [.red, .green, half]
            g.startPoint = Point(x: 0, y: 0.5)
            g.endPoint = Point(x: 1, y: 0.5)
            return g
        }
        let root = rootLayer(width: 100, height: 100)
        let g = gradient()
        root.addSublayer(g)
        let host = LayerTreeHost(rootLayer: root, target: try OffscreenTarget(device: device, size: Size(width: 100, height: 100)),
                                 background: .white)
        defer { host.detach() }
        let start = MonotonicClock.now()
        MediaClock.set(start)
        defer { MediaClock.set(nil) }
        try Transaction.flush()
        var recolor = BasicAnimation(keyPath: "colors")
        recolor.fromValue = .colors([.red, .green, half])
        recolor.toValue = .colors([.blue, .white, .clear])
        recolor.duration = 2
        recolor.beginTime = start
        recolor.timingFunction = .linear
        var move = KeyframeAnimation(keyPath: "locations")
        move.values = [.numbers([0, 0.5, 1]), .numbers([0.2, 0.3, 0.4]), .numbers([0, 0.9, 1])]
        move.duration = 2
        move.beginTime = start
        g.add(recolor, forKey: "recolor")
        g.add(move, forKey: "move")
        for t in [0.5, 1.5] {
            MediaClock.set(start + t)
            try TransactionContext.current.commitIfNeeded()
            // Linear in premultiplied components: (1 − f)·from + f·to, then un-premultiplied.
            let f = t / 2
            func mix(_ a: Color, _ b: Color) -> Color {
                let alpha = (1 - f) * a.alpha + f * b.alpha
                func c(_ x: Double, _ y: Double) -> Double { ((1 - f) * x * a.alpha + f * y * b.alpha) / alpha }
                return Color(red: c(a.red, b.red), green: c(a.green, b.green), blue: c(a.blue, b.blue), alpha: alpha)
            }
            let colors = [mix(.red, .blue), mix(.green, .white), mix(half, .clear)]
            // Keyframes at 0, 1, 2 s: linear between the two around t.
            let (a, b, u): ([Double], [Double], Double) = t < 1 ? ([0, 0.5, 1], [0.2, 0.3, 0.4], t) : ([0.2, 0.3, 0.4], [0, 0.9, 1], t - 1)
            let stops = zip(a, b).map { $0 + ($1 - $0) * u }
            let p = g.presentation()
            #expect(p.colors.count == 3 && zip(p.colors, colors).allSatisfy { x, y in
                abs(x.red - y.red) < 1e-9 && abs(x.green - y.green) < 1e-9 && abs(x.blue - y.blue) < 1e-9 && abs(x.alpha - y.alpha) < 1e-9
            }, "\(p.colors) vs \(colors) at \(t)")
            #expect(zip(p.locations ?? [], stops).allSatisfy { abs($0 - $1) < 1e-9 }, "\(String(describing: p.locations)) vs \(stops)")
            #expect(g.colors == [.red, .green, half] && g.locations == nil, "the model keeps its values")
            #expect(host.lastFrame.textureBytesUploaded == 0, "evaluated on the GPU: \(host.lastFrame)")
            let stillRoot = rootLayer(width: 100, height: 100)
            let still = gradient()
            still.colors = colors
            still.locations = stops
            stillRoot.addSublayer(still)
            try Transaction.flush()
            let d = try host.target.readPixels().difference(from: try render(stillRoot, width: 100, height: 100).image, tolerance: 0)
            #expect(d.differing == 0, "at \(t): \(d.differing) pixels differ (max \(d.maxDifference))")
        }
        // Lists of other lengths do not morph: the first half shows the old ones.
        var grow = BasicAnimation(keyPath: "colors")
        grow.fromValue = .colors([.red, .blue])
        grow.toValue = .colors([.green, .green, .green])
        grow.duration = 2
        grow.beginTime = start + 3
        g.removeAllAnimations()
        g.add(grow, forKey: "grow")
        MediaClock.set(start + 3.5)
        try TransactionContext.current.commitIfNeeded()
        #expect(g.presentation().colors == [.red, .blue])
        MediaClock.set(start + 4.5)
        try TransactionContext.current.commitIfNeeded()
        #expect(g.presentation().colors == [.green, .green, .green] && g.presentation().locations == [0, 0.5, 1])
    }
}

@MainActor
@Suite("Gradient layers: implicit animations of their points", .isolatedTransactions)
struct GradientImplicitAnimationTests {
    @Test("setting a hosted gradient's startPoint animates it from the point shown (CAGradientLayer's implicit action)")
    func implicit() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let root = rootLayer(width: 50, height: 50)
        let g = GradientLayer()
        g.frame = Rect(x: 0, y: 0, width: 50, height: 50)
        g.colors = [.red, .blue]
        root.addSublayer(g)
        let host = LayerTreeHost(rootLayer: root, target: try OffscreenTarget(device: device, size: Size(width: 50, height: 50)),
                                 background: .white)
        defer { host.detach() }
        try Transaction.flush()
        g.startPoint = Point(x: 0.5, y: 0.5)
        let a = try #require(g.animation(forKey: "startPoint") as? BasicAnimation)
        #expect(a.fromValue == .point(Point(x: 0.5, y: 0)))
        #expect(g.startPoint == Point(x: 0.5, y: 0.5))
    }
}

import Foundation
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import Testing
@testable import LaminaCore

/// Layer effects: shadows (analytic and layer-alpha), blend modes, backdrop blur, gradients.
/// Pixels are read back from real GL targets and compared with formulas or CPU references
/// at stated tolerances.
@MainActor
@Suite("Layer effects", .serialized, .withoutImplicitAnimations)
struct EffectsTests {
    /// erf (Abramowitz–Stegun 7.1.26 is what the shader uses; the reference uses libm's).
    static func shadowAlpha(x: Double, y: Double, rect: Rect, sigma: Double) -> Double {
        let k = 1 / (sigma * 2.0.squareRoot())
        let ax = 0.5 * (erf((rect.maxX - x) * k) - erf((rect.minX - x) * k))
        let ay = 0.5 * (erf((rect.maxY - y) * k) - erf((rect.minY - y) * k))
        return ax * ay
    }

    /// The discrete Gaussian the blur uses, normalised, radius ⌈3σ⌉.
    static func kernel(_ sigma: Double) -> [Double] {
        let r = Int((3 * sigma).rounded(.up))
        var w = (0...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = w[0] + 2 * w.dropFirst().reduce(0, +)
        w = w.map { $0 / total }
        return w
    }

    /// A separable CPU blur of an alpha plane (zero outside).
    static func blur(_ plane: [Double], width: Int, height: Int, sigma: Double) -> [Double] {
        let w = kernel(sigma), r = w.count - 1
        var h = [Double](repeating: 0, count: plane.count), out = h
        for y in 0..<height {
            for x in 0..<width {
                var s = 0.0
                for i in -r...r where x + i >= 0 && x + i < width { s += w[abs(i)] * plane[y * width + x + i] }
                h[y * width + x] = s
            }
        }
        for y in 0..<height {
            for x in 0..<width {
                var s = 0.0
                for i in -r...r where y + i >= 0 && y + i < height { s += w[abs(i)] * h[(y + i) * width + x] }
                out[y * width + x] = s
            }
        }
        return out
    }

    @Test("an analytic rectangle shadow matches the Gaussian's erf profile (σ = shadowRadius) within 2/255")
    func rectangleProfile() throws {
        let root = rootLayer()
        let l = solid(Rect(x: 60, y: 70, width: 80, height: 50), Color(red: 0, green: 0, blue: 1))
        l.shadowOpacity = 1
        l.shadowRadius = 6
        l.shadowOffset = Size(width: 10, height: 12)
        root.addSublayer(l)
        let (image, stats) = try render(root)
        #expect(stats.offscreenPasses == 0 && stats.blurs == 0, "the fast path draws no offscreen pass: \(stats)")
        let shape = Rect(x: 70, y: 82, width: 80, height: 50)
        var worst = 0.0, checked = 0
        for y in stride(from: 60, to: 170, by: 3) {
            for x in stride(from: 50, to: 180, by: 3) where !(Double(x) >= 59 && Double(x) <= 141 && Double(y) >= 69 && Double(y) <= 121) {
                let a = Self.shadowAlpha(x: Double(x) + 0.5, y: Double(y) + 0.5, rect: shape, sigma: 6)
                let expected = 255 * (1 - a)
                worst = max(worst, abs(Double(image[x, y].r) - expected))
                checked += 1
            }
        }
        #expect(checked > 500)
        #expect(worst <= 2, "largest difference from the erf profile: \(worst)/255")
        // The shadow reaches about 3σ past the shape and no further.
        #expect(image[70 + 80 + 19, 100] == white && image[100, 82 + 50 + 19] == white)
    }

    /// A layer whose alpha is an arbitrary shape (an image: a ring and a bar), drawn with
    /// and without its shadow; the shadow must equal the CPU blur of the layer's alpha.
    func alphaShadowMatchesCPUBlur(radius: Double) throws {
        let size = 64
        var shape = RGBAImage(width: size, height: size)
        for y in 0..<size {
            for x in 0..<size {
                let dx = Double(x) - 31.5, dy = Double(y) - 31.5, d = (dx * dx + dy * dy).squareRoot()
                if (d > 14 && d < 26) || (x >= 28 && x < 36) { shape[x, y] = px(200, 0, 0, 255) }
            }
        }
        func scene(shadow: Bool) -> Layer {
            let root = rootLayer()
            let l = Layer()
            l.frame = Rect(x: 60, y: 50, width: 64, height: 64)
            l.contents = .image(ContentImage(shape))
            if shadow {
                l.shadowOpacity = 1
                l.shadowRadius = radius
                l.shadowOffset = Size(width: 20, height: 25)
                l.shadowColor = Color(red: 0, green: 0, blue: 0)
            }
            root.addSublayer(l)
            return root
        }
        let (withShadow, stats) = try render(scene(shadow: true), background: .white)
        #expect(stats.blurs == 1 && stats.offscreenPasses == 1, "\(stats)")
        let (plain, _) = try render(scene(shadow: false), background: .white)
        // The layer's alpha in target pixels, shifted by the offset, blurred on the CPU.
        var plane = [Double](repeating: 0, count: 200 * 200)
        for y in 0..<size { for x in 0..<size { plane[(50 + 25 + y) * 200 + 60 + 20 + x] = Double(shape[x, y].a) / 255 } }
        let blurred = Self.blur(plane, width: 200, height: 200, sigma: radius)
        var worst = 0.0, at = (0, 0)
        for y in 0..<200 {
            for x in 0..<200 {
                let layer = plain[x, y]
                guard layer == white else { continue }   // where the layer itself does not cover
                let expected = 255 * (1 - blurred[y * 200 + x])
                let d = abs(Double(withShadow[x, y].g) - expected)
                if d > worst { worst = d; at = (x, y) }
            }
        }
        #expect(worst <= (radius > GaussianBlur.maximumDirectSigma ? 4 : 2),
                "σ \(radius): largest difference from the CPU blur \(worst)/255 at \(at)")
    }

    @Test("a layer-alpha shadow equals a CPU Gaussian blur of the layer's alpha (σ 3 at full resolution within 2/255; σ 10, downsampled, within 4/255)",
          arguments: [3.0, 10.0])
    func alphaShadow(radius: Double) throws { try alphaShadowMatchesCPUBlur(radius: radius) }
}

extension EffectsTests {
    @Test("smoke picture") func smoke() throws {
        let root = rootLayer(width: 400, height: 300)
        let a = solid(Rect(x: 20, y: 20, width: 100, height: 70), Color(red: 0.2, green: 0.5, blue: 0.9))
        a.cornerRadius = 12; a.shadowOpacity = 0.8; a.shadowRadius = 8; a.shadowOffset = Size(width: 0, height: 6)
        root.addSublayer(a)
        let b = solid(Rect(x: 160, y: 20, width: 100, height: 70), Color(red: 0.9, green: 0.5, blue: 0.2))
        b.cornerRadius = 12; b.shadowOpacity = 0.8; b.shadowRadius = 8; b.shadowOffset = Size(width: 0, height: 6)
        b.addSublayer(solid(Rect(x: 10, y: 10, width: 30, height: 30), .white))
        root.addSublayer(b)
        let g = GradientLayer(); g.frame = Rect(x: 20, y: 130, width: 150, height: 80)
        g.colors = [Color(red: 1, green: 0, blue: 0), Color(red: 0, green: 0, blue: 1, alpha: 0.5)]
        g.startPoint = Point(x: 0, y: 0.5); g.endPoint = Point(x: 1, y: 0.5)
        root.addSublayer(g)
        let m = solid(Rect(x: 200, y: 130, width: 150, height: 80), Color(red: 1, green: 1, blue: 0))
        m.compositingFilter = .multiply
        root.addSublayer(m)
        let glass = solid(Rect(x: 60, y: 150, width: 220, height: 100), Color(red: 1, green: 1, blue: 1, alpha: 0.2))
        glass.cornerRadius = 16
        glass.backgroundFilters = [.gaussianBlur(radius: 6)]
        root.addSublayer(glass)
        let s = solid(Rect(x: 300, y: 30, width: 60, height: 60), Color(red: 0, green: 0.7, blue: 0.3))
        s.shadowPath = Path(ellipseIn: Rect(x: 0, y: 0, width: 60, height: 60)); s.shadowOpacity = 1; s.shadowRadius = 5
        s.cornerRadius = 30
        root.addSublayer(s)
        let masked = solid(Rect(x: 300, y: 120, width: 80, height: 80), Color(red: 0.8, green: 0.1, blue: 0.6))
        masked.addSublayer(solid(Rect(x: 0, y: 0, width: 40, height: 40), Color(red: 0.1, green: 0.8, blue: 0.1)))
        let m1 = ShapeLayer()
        m1.path = Path(ellipseIn: Rect(x: 5, y: 5, width: 70, height: 70))
        masked.mask = m1
        masked.transform = Transform3D(rotationAngle: 0.3, x: 0, y: 0, z: 1)
        root.addSublayer(masked)
        let shape = ShapeLayer()
        shape.position = Point(x: 300, y: 240)
        var star = Path()
        for i in 0..<10 {
            let r = i % 2 == 0 ? 40.0 : 16.0, a = Double(i) * .pi / 5 - .pi / 2
            let p = Point(x: r * cos(a), y: r * sin(a))
            if i == 0 { star.move(to: p) } else { star.addLine(to: p) }
        }
        star.closeSubpath()
        shape.path = star
        shape.fillColor = Color(red: 1, green: 0.8, blue: 0)
        shape.strokeColor = Color(red: 0.5, green: 0.2, blue: 0)
        shape.lineWidth = 3
        shape.lineJoin = .round
        shape.strokeEnd = 0.7
        root.addSublayer(shape)
        try Transaction.flush()
        let (image, stats) = try render(root, width: 400, height: 300)
        print(stats)
        try image.writePNG(to: "/tmp/smoke.png")
    }
}

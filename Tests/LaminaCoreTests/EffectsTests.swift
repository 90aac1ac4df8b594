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
    @Test("the analytic shadow of a rounded rectangle and the layer-alpha path (the same shape blurred on the GPU) agree within 3/255 (σ 4) and 4/255 (σ 12, downsampled)",
          arguments: [4.0, 12.0])
    func fastAndGeneralAgree(radius: Double) throws {
        func scene(general: Bool) -> Layer {
            let root = rootLayer()
            let l = solid(Rect(x: 50, y: 40, width: 90, height: 70), Color(red: 0.1, green: 0.4, blue: 0.8))
            l.cornerRadius = 18
            l.shadowOpacity = 0.9
            l.shadowRadius = radius
            l.shadowOffset = Size(width: 6, height: 14)
            // An empty sublayer: the shadow must follow the alpha of the layer's subtree.
            if general { l.addSublayer(Layer()) }
            root.addSublayer(l)
            return root
        }
        let (fast, fastStats) = try render(scene(general: false))
        let (general, generalStats) = try render(scene(general: true))
        #expect(fastStats.blurs == 0 && fastStats.offscreenPasses == 0)
        #expect(generalStats.blurs == 1 && generalStats.offscreenPasses == 1)
        let d = fast.difference(from: general, tolerance: radius > GaussianBlur.maximumDirectSigma ? 4 : 3)
        #expect(d.differing == 0, "\(d.differing) pixels differ, by up to \(d.maxDifference)/255")
        #expect(fast[150, 120] != white, "the shadow shows past the layer")
    }

    @Test("a shadow is blurred once: frames that change other layers or move nothing in it reuse it; a new shadow colour blurs again without rendering the image; new content renders and blurs again")
    func shadowCache() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let target = try OffscreenTarget(device: device, size: Size(width: 200, height: 200))
        let root = rootLayer()
        let l = solid(Rect(x: 40, y: 40, width: 60, height: 60), Color(red: 1, green: 0.5, blue: 0))
        let inner = solid(Rect(x: 10, y: 10, width: 20, height: 20), .white)
        l.addSublayer(inner)
        l.shadowOpacity = 1
        l.shadowRadius = 6
        let other = solid(Rect(x: 150, y: 150, width: 20, height: 20), .black)
        root.addSublayer(l)
        root.addSublayer(other)
        let host = LayerTreeHost(rootLayer: root, target: target, background: .white)
        defer { host.detach() }
        try Transaction.flush()
        #expect(host.lastFrame.blurs == 1 && host.lastFrame.offscreenPasses == 1)
        other.backgroundColor = Color(red: 0, green: 0, blue: 1)
        try Transaction.flush()
        #expect(host.lastFrame.blurs == 0 && host.lastFrame.offscreenPasses == 0, "\(host.lastFrame)")
        l.shadowColor = Color(red: 0.5, green: 0, blue: 0)
        try Transaction.flush()
        #expect(host.lastFrame.blurs == 1 && host.lastFrame.offscreenPasses == 0, "\(host.lastFrame)")
        inner.backgroundColor = .black
        try Transaction.flush()
        #expect(host.lastFrame.blurs == 1 && host.lastFrame.offscreenPasses == 1, "\(host.lastFrame)")
        // Turning the shadow off frees its blur; the layer is a single item again.
        l.shadowOpacity = 0
        try Transaction.flush()
        #expect(host.compositor.encoder.images[.shadow(l.id)] == nil, "the blurred shadow is freed")
    }

    @Test("a non-rectangular shadowPath is rasterised once and blurred once; its shadow matches the CPU blur of the path's shape within 3/255")
    func pathShadow() throws {
        let root = rootLayer()
        let l = Layer()
        l.frame = Rect(x: 40, y: 40, width: 80, height: 80)
        l.shadowPath = Path(ellipseIn: Rect(x: 0, y: 0, width: 80, height: 80))
        l.shadowOpacity = 1
        l.shadowRadius = 3
        l.shadowOffset = Size(width: 0, height: 0)
        root.addSublayer(l)
        let (image, stats) = try render(root)
        #expect(stats.blurs == 1 && stats.offscreenPasses == 0)
        // The ellipse's coverage (4×4 supersampled), blurred.
        var plane = [Double](repeating: 0, count: 200 * 200)
        for y in 0..<200 {
            for x in 0..<200 {
                var c = 0.0
                for sy in 0..<4 { for sx in 0..<4 {
                    let px = Double(x) + (Double(sx) + 0.5) / 4 - 80, py = Double(y) + (Double(sy) + 0.5) / 4 - 80
                    if px * px + py * py <= 1600 { c += 1 / 16 }
                } }
                plane[y * 200 + x] = c
            }
        }
        let blurred = Self.blur(plane, width: 200, height: 200, sigma: 3)
        var worst = 0.0
        for y in 20..<140 { for x in 20..<140 { worst = max(worst, abs(Double(image[x, y].r) - 255 * (1 - blurred[y * 200 + x]))) } }
        #expect(worst <= 3, "largest difference \(worst)/255")
    }
}

// MARK: Blend modes and backdrops

extension EffectsTests {
    @Test("each compositingFilter equals its formula on premultiplied colour (W3C compositing), translucent source and backdrop, within 1/255",
          arguments: BlendMode.allCases)
    func blendMode(mode: BlendMode) throws {
        let back = Color(red: 0.8, green: 0.3, blue: 0.55, alpha: 0.75)
        let front = Color(red: 0.2, green: 0.7, blue: 0.9, alpha: 0.6)
        func scene(_ filter: BlendMode?, front show: Bool) -> Layer {
            let root = rootLayer()
            root.addSublayer(solid(Rect(x: 20, y: 20, width: 100, height: 100), back))
            let f = solid(Rect(x: 60, y: 60, width: 100, height: 100), front)
            f.compositingFilter = filter
            f.isHidden = !show
            root.addSublayer(f)
            return root
        }
        let (image, _) = try render(scene(mode, front: true), background: .clear)
        let (backdrop, _) = try render(scene(nil, front: false), background: .clear)
        func unit(_ p: RGBAPixel) -> (Double, Double, Double, Double) { (Double(p.r) / 255, Double(p.g) / 255, Double(p.b) / 255, Double(p.a) / 255) }
        let s = front.premultiplied
        for (x, y) in [(90, 90), (140, 140), (40, 40)] {
            let d = unit(backdrop[x, y])
            let inFront = x >= 60 && y >= 60
            let e = inFront ? mode.apply((s.r, s.g, s.b, s.a), over: d) : d
            let got = unit(image[x, y])
            let worst = max(abs(got.0 - e.0), abs(got.1 - e.1), abs(got.2 - e.2), abs(got.3 - e.3)) * 255
            #expect(worst <= 1.01, "\(mode) at (\(x), \(y)): got \(image[x, y]), expected \(e) (backdrop \(backdrop[x, y]))")
        }
    }

    @Test("a backdrop blur equals the CPU blur of what lies behind the layer, inside its bounds (σ 4 within 2/255; σ 10, downsampled, within 4/255), also on a layer that is a group (opacity 0.99, a background: within 3/255 of the same composited on the CPU)",
          arguments: [(4.0, false), (10.0, false), (4.0, true)])
    func backdropBlur(radius: Double, group: Bool) throws {
        var stripes = RGBAImage(width: 200, height: 200)
        for y in 0..<200 { for x in 0..<200 {
            stripes[x, y] = (x / 7 + y / 11) % 2 == 0 ? px(230, 40, 30) : px(20, 60, 200)
        } }
        func scene(glass: Bool) -> Layer {
            let root = rootLayer()
            let back = Layer()
            back.frame = Rect(x: 0, y: 0, width: 200, height: 200)
            back.contents = .image(ContentImage(stripes))
            root.addSublayer(back)
            if glass {
                let g = Layer()
                g.frame = Rect(x: 60, y: 50, width: 90, height: 80)
                g.backgroundFilters = [.gaussianBlur(radius: radius)]
                if group {
                    // Two items (the backdrop and a translucent white background) at opacity
                    // 0.99: a group, whose backdrop is drawn behind its image.
                    g.opacity = 0.99
                    g.backgroundColor = Color(red: 1, green: 1, blue: 1, alpha: 0.2)
                }
                root.addSublayer(g)
            }
            return root
        }
        let (image, stats) = try render(scene(glass: true))
        #expect(stats.blurs == 1)
        #expect(!group || stats.offscreenPasses == 1, "the glass is a group, with an image: \(stats)")
        let (behind, _) = try render(scene(glass: false))
        var worst = 0.0
        for channel in 0..<3 {
            var plane = [Double](repeating: 0, count: 200 * 200)
            for y in 0..<200 { for x in 0..<200 {
                let p = behind[x, y]
                plane[y * 200 + x] = Double(channel == 0 ? p.r : channel == 1 ? p.g : p.b)
            } }
            let blurred = Self.blur(plane, width: 200, height: 200, sigma: radius)
            for y in 51..<129 { for x in 61..<149 {
                let p = image[x, y]
                let got = Double(channel == 0 ? p.r : channel == 1 ? p.g : p.b)
                var expected = blurred[y * 200 + x]
                if group {
                    // The backdrop at 0.99 over what is behind, then the white at 0.2 × 0.99.
                    let q = behind[x, y], under = Double(channel == 0 ? q.r : channel == 1 ? q.g : q.b)
                    expected = (0.99 * expected + 0.01 * under) * (1 - 0.198) + 255 * 0.198
                }
                worst = max(worst, abs(got - expected))
            } }
        }
        // (At opacity 0.99 the blur's pixels are 1 % of the way back to what is behind.)
        #expect(worst <= (radius > GaussianBlur.maximumDirectSigma ? 4 : group ? 3 : 2), "largest difference \(worst)/255")
        #expect(image[30, 30] == behind[30, 30] && image[170, 170] == behind[170, 170], "outside the layer nothing changes")
    }
}

// MARK: Masks

extension EffectsTests {
    /// A layer of `color` in `frame`, masked by a rounded rectangle of its bounds (corner
    /// radius `r`), or showing that rounded rectangle itself.
    func roundedScene(masked: Bool, transform: Transform3D, perspective: Bool) -> Layer {
        let root = rootLayer()
        if perspective { var t = Transform3D.identity; t.m34 = -1 / 300; root.sublayerTransform = t }
        let l = solid(Rect(x: 50, y: 50, width: 100, height: 90), Color(red: 0.9, green: 0.2, blue: 0.3))
        if masked {
            let m = solid(Rect(x: 0, y: 0, width: 100, height: 90), .black)
            m.cornerRadius = 25
            l.mask = m
        } else {
            l.cornerRadius = 25
        }
        l.transform = transform
        root.addSublayer(l)
        return root
    }

    @Test("a mask of a rounded rectangle equals the layer drawn with those corners, flat, rotated and in perspective (within 2/255)",
          arguments: [0, 1, 2])
    func maskReftest(kind: Int) throws {
        let t: Transform3D = kind == 0 ? .identity : kind == 1 ? Transform3D(rotationAngle: 0.5, x: 0, y: 0, z: 1)
            : Transform3D(rotationAngle: 0.7, x: 0, y: 1, z: 0)
        let (masked, stats) = try render(roundedScene(masked: true, transform: t, perspective: kind == 2))
        let (reference, _) = try render(roundedScene(masked: false, transform: t, perspective: kind == 2))
        #expect(stats.offscreenPasses >= 2, "the layer and its mask render offscreen: \(stats)")
        let d = masked.difference(from: reference, tolerance: 2)
        #expect(d.differing == 0, "\(d.differing) pixels differ by up to \(d.maxDifference)")
        #expect(masked[100, 95] != white)
    }

    @Test("masks nest: a masked layer inside a masked layer shows only where both masks are; the mask's alpha and a ShapeLayer mask count")
    func nestedMasks() throws {
        let root = rootLayer()
        let outer = solid(Rect(x: 20, y: 20, width: 160, height: 160), Color(red: 0, green: 0, blue: 1))
        outer.mask = solid(Rect(x: 0, y: 0, width: 80, height: 160), .black)          // left half
        let inner = solid(Rect(x: 0, y: 0, width: 160, height: 160), Color(red: 1, green: 0, blue: 0))
        let circle = ShapeLayer()
        circle.path = Path(ellipseIn: Rect(x: 30, y: 30, width: 100, height: 100))
        inner.mask = circle
        outer.addSublayer(inner)
        let half = solid(Rect(x: 0, y: 140, width: 160, height: 20), Color(red: 0, green: 1, blue: 0))
        half.mask = solid(Rect(x: 0, y: 0, width: 160, height: 20), Color(red: 0, green: 0, blue: 0, alpha: 0.5))
        outer.addSublayer(half)
        root.addSublayer(outer)
        try Transaction.flush()
        let (image, _) = try render(root)
        func inCircle(_ x: Int, _ y: Int) -> Double {
            let dx = Double(x) + 0.5 - 100, dy = Double(y) + 0.5 - 100
            return (dx * dx + dy * dy).squareRoot() - 50
        }
        var checked = 0
        for y in stride(from: 22, to: 158, by: 2) {
            for x in stride(from: 10, to: 190, by: 2) where abs(inCircle(x, y)) > 1.5 && abs(x - 100) > 1 {
                let expected: RGBAPixel
                if x < 20 || x >= 100 { expected = white }
                else if inCircle(x, y) < 0 { expected = red }
                else { expected = blue }
                #expect(image[x, y] == expected, "(\(x), \(y)): \(image[x, y]) expected \(expected)")
                checked += 1
                if image[x, y] != expected { return }
            }
        }
        #expect(checked > 2000)
        // Half-alpha mask over green, on blue (left half): 50 % green over blue.
        let g = image[50, 170]
        #expect(abs(Int(g.g) - 128) <= 1 && abs(Int(g.b) - 127) <= 1 && g.r == 0, "\(g)")
        #expect(image[150, 170] == white)
    }

    @Test("a mask combines with masksToBounds + cornerRadius and group opacity: pixels inside all three show the layer's image at its opacity")
    func maskWithClipsAndOpacity() throws {
        let root = rootLayer()
        let l = solid(Rect(x: 40, y: 40, width: 120, height: 120), Color(red: 1, green: 0, blue: 0))
        l.masksToBounds = true
        l.cornerRadius = 30
        l.opacity = 0.5
        l.addSublayer(solid(Rect(x: -20, y: -20, width: 80, height: 80), Color(red: 0, green: 0, blue: 1)))   // overlaps the corner
        let m = ShapeLayer()
        m.path = Path(rect: Rect(x: 0, y: 0, width: 120, height: 60))   // the top half only
        l.mask = m
        root.addSublayer(l)
        try Transaction.flush()
        let (image, _) = try render(root)
        // Inside: blue over red as one image at half opacity, over white.
        let blueHalf = image[60, 60], redHalf = image[140, 80]
        #expect(abs(Int(blueHalf.r) - 127) <= 1 && abs(Int(blueHalf.b) - 255) <= 1 && abs(Int(blueHalf.g) - 127) <= 1, "\(blueHalf)")
        #expect(abs(Int(redHalf.r) - 255) <= 1 && abs(Int(redHalf.g) - 127) <= 1, "\(redHalf)")
        #expect(image[42, 42] == white, "the rounded corner clips")
        #expect(image[100, 140] == white, "the mask's bottom half hides")
        #expect(image[30, 60] == white, "the sublayer is clipped to the bounds")
    }
}

// MARK: Shape and gradient layers

/// The same drawing as a ShapeLayer, done by a layer's draw(in:) with the 2D context.
private final class PathDrawing: Layer {
    var path = Path()
    override func draw(in ctx: GraphicsContext) {
        ctx.setFillColor(Color(red: 0.9, green: 0.7, blue: 0.1))
        ctx.addPath(path)
        ctx.fillPath(using: .evenOdd)
        ctx.setStrokeColor(Color(red: 0.2, green: 0.1, blue: 0.6))
        ctx.setLineWidth(4)
        ctx.setLineJoin(.round)
        ctx.setLineCap(.round)
        ctx.setLineDash(phase: 2, lengths: [12, 6])
        ctx.addPath(path)
        ctx.strokePath()
    }
}

extension EffectsTests {
    static func star(scale k: Double = 1, center: Point) -> Path {
        var star = Path()
        for i in 0..<10 {
            let r = (i % 2 == 0 ? 60.0 : 25.0) * k, a = Double(i) * .pi / 5 - .pi / 2
            let p = Point(x: center.x + r * cos(a), y: center.y + r * sin(a))
            if i == 0 { star.move(to: p) } else { star.addLine(to: p) }
        }
        star.closeSubpath()
        star.addEllipse(in: Rect(x: center.x - 10 * k, y: center.y - 10 * k, width: 20 * k, height: 20 * k))
        return star
    }

    func styled(_ s: ShapeLayer) {
        s.fillColor = Color(red: 0.9, green: 0.7, blue: 0.1)
        s.fillRule = .evenOdd
        s.strokeColor = Color(red: 0.2, green: 0.1, blue: 0.6)
        s.lineWidth = 4
        s.lineJoin = .round
        s.lineCap = .round
        s.lineDashPattern = [12, 6]
        s.lineDashPhase = 2
    }

    @Test("a ShapeLayer equals the same path filled and stroked (dashes, joins, caps, even-odd) by draw(in:) with the 2D context (within 1/255)")
    func shapeReftest() throws {
        let root = rootLayer()
        let shape = ShapeLayer()
        shape.frame = Rect(x: 30, y: 30, width: 140, height: 140)
        shape.path = Self.star(center: Point(x: 70, y: 70))
        styled(shape)
        root.addSublayer(shape)
        try Transaction.flush()
        let (image, _) = try render(root)
        let root2 = rootLayer()
        let drawn = PathDrawing()
        drawn.frame = Rect(x: 30, y: 30, width: 140, height: 140)
        drawn.path = Self.star(center: Point(x: 70, y: 70))
        drawn.setNeedsDisplay()
        root2.addSublayer(drawn)
        try Transaction.flush()
        let (reference, _) = try render(root2)
        let d = image.difference(from: reference, tolerance: 1)
        #expect(d.differing == 0, "\(d.differing) pixels differ by up to \(d.maxDifference)")
        #expect(image[100, 60] != white && image[100, 100] == white, "filled, with the even-odd hole in the middle")
    }

    @Test("a ShapeLayer draws once per change of path or style, never on a move or transform; strokeStart/strokeEnd trim the stroke; a path outside the bounds shows")
    func shapeCounts() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let target = try OffscreenTarget(device: device, size: Size(width: 200, height: 200))
        let root = rootLayer()
        let shape = ShapeLayer()                    // zero-sized, placed by position
        shape.position = Point(x: 100, y: 100)
        shape.path = Self.star(center: .zero)
        styled(shape)
        root.addSublayer(shape)
        let host = LayerTreeHost(rootLayer: root, target: target, background: .white)
        defer { host.detach() }
        try Transaction.flush()
        #expect(shape.displayCount == 1)
        #expect(try target.readPixels()[100, 60] != white, "the path, outside the zero-sized bounds, shows")
        shape.position = Point(x: 90, y: 110)
        shape.transform = Transform3D(rotationAngle: 0.4, x: 0, y: 0, z: 1)
        try Transaction.flush()
        #expect(shape.displayCount == 1 && host.lastFrame.textureBytesUploaded == 0, "moving draws nothing: \(host.lastFrame)")
        shape.path = Self.star(scale: 0.8, center: .zero)
        shape.strokeColor = .black
        try Transaction.flush()
        #expect(shape.displayCount == 2 && host.lastFrame.layersDrawn == 1, "a new path and colour draw once together")
        // Trimming: strokeEnd 0 leaves the fill only.
        shape.transform = .identity
        shape.position = Point(x: 100, y: 100)
        shape.fillColor = nil
        shape.strokeEnd = 0.5
        try Transaction.flush()
        let half = try target.readPixels()
        shape.strokeEnd = 1
        try Transaction.flush()
        let whole = try target.readPixels()
        let d = half.difference(from: whole, tolerance: 0)
        #expect(d.differing > 200, "the second half of the stroke is missing at strokeEnd 0.5")
        #expect(shape.displayCount == 4)
    }

    @Test("a ShapeLayer shown larger (a scale transform on an ancestor) is rasterised again at the new scale: it equals the path drawn at that scale, not a blurred enlargement")
    func shapeScale() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let target = try OffscreenTarget(device: device, size: Size(width: 200, height: 200))
        let root = rootLayer()
        let container = Layer()
        container.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        let shape = ShapeLayer()
        shape.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        shape.path = Self.star(scale: 1 / 3, center: Point(x: 100 / 3, y: 100 / 3))
        styled(shape)
        shape.lineWidth = 4.0 / 3
        shape.lineDashPattern = nil
        container.addSublayer(shape)
        root.addSublayer(container)
        let host = LayerTreeHost(rootLayer: root, target: target, background: .white)
        defer { host.detach() }
        try Transaction.flush()
        #expect(shape.rasterizedScale == 1)
        container.anchorPoint = .zero
        container.position = .zero
        container.transform = Transform3D(scaleX: 3, y: 3)
        try Transaction.flush()
        #expect(shape.rasterizedScale == 3 && shape.displayCount == 2)
        let scaled = try target.readPixels()
        // The reference: the same path drawn 3× larger at scale 1.
        let root2 = rootLayer()
        let big = ShapeLayer()
        big.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        big.path = Self.star(scale: 1, center: Point(x: 100, y: 100))
        styled(big)
        big.lineDashPattern = nil
        root2.addSublayer(big)
        try Transaction.flush()
        let (reference, _) = try render(root2)
        let d = scaled.difference(from: reference, tolerance: 2)
        #expect(d.differing < 40, "\(d.differing) pixels differ by up to \(d.maxDifference) (a 3× enlargement of a 1× raster differs in thousands)")
    }

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

// MARK: Replicator

/// A drawn circle, counting its draws.
private final class Dot: Layer {
    var red = 0.8
    override func draw(in ctx: GraphicsContext) {
        ctx.setFillColor(Color(red: red, green: 0.6, blue: 0.4))
        ctx.fillEllipse(in: bounds)
    }
}

extension EffectsTests {
    @Test("a ReplicatorLayer equals the same sublayer placed and tinted by hand for each instance (translation, colour offsets; within 2/255), drawn once")
    func replicatorReftest() throws {
        let root = rootLayer()
        let r = ReplicatorLayer()
        r.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        let dot = Dot()
        dot.frame = Rect(x: 10, y: 80, width: 30, height: 30)
        dot.setNeedsDisplay()
        r.addSublayer(dot)
        r.instanceCount = 4
        r.instanceTransform = Transform3D(translationX: 45, y: 5)
        r.instanceRedOffset = -0.25
        r.instanceAlphaOffset = -0.2
        root.addSublayer(r)
        try Transaction.flush()
        let (image, stats) = try render(root)
        #expect(dot.displayCount == 1 && stats.offscreenPasses == 1, "\(stats)")
        let root2 = rootLayer()
        for k in 0..<4 {
            let copy = Dot()
            copy.frame = Rect(x: 10 + 45 * Double(k), y: 80 + 5 * Double(k), width: 30, height: 30)
            copy.setNeedsDisplay()
            // The instance colour multiplies the dot's (one flat colour): the same dot in the
            // product colour, at the instance's alpha.
            copy.red = 0.8 * (1 - 0.25 * Double(k))
            let holder = Layer()
            holder.frame = root2.bounds
            holder.opacity = 1 - 0.2 * Double(k)
            holder.addSublayer(copy)
            root2.addSublayer(holder)
        }
        try Transaction.flush()
        let (reference, _) = try render(root2)
        let d = image.difference(from: reference, tolerance: 2)
        #expect(d.differing == 0, "\(d.differing) pixels differ by up to \(d.maxDifference)")
        #expect(image[25 + 135, 95 + 15] != white)
    }

    @Test("replicator instances turn about the replicator's anchor point; changing the instances or moving the replicator draws no sublayer again and renders no image again")
    func replicatorRotationAndCounts() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let target = try OffscreenTarget(device: device, size: Size(width: 200, height: 200))
        let root = rootLayer()
        let r = ReplicatorLayer()
        r.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        let dot = Dot()
        dot.frame = Rect(x: 90, y: 10, width: 20, height: 20)
        dot.setNeedsDisplay()
        r.addSublayer(dot)
        r.instanceCount = 4
        r.instanceTransform = Transform3D(rotationAngle: .pi / 2, x: 0, y: 0, z: 1)
        root.addSublayer(r)
        let host = LayerTreeHost(rootLayer: root, target: target, background: .white)
        defer { host.detach() }
        try Transaction.flush()
        let image = try target.readPixels()
        let dotColor = px(204, 153, 102)
        for (x, y) in [(100, 20), (180, 100), (100, 180), (20, 100)] {
            #expect(image[x, y] == dotColor, "an instance at (\(x), \(y)): \(image[x, y])")
        }
        #expect(image[100, 100] == white)
        r.instanceCount = 2
        r.instanceColor = Color(red: 1, green: 0, blue: 0)
        try Transaction.flush()
        #expect(host.lastFrame.offscreenPasses == 0 && dot.displayCount == 1, "\(host.lastFrame)")
        let fewer = try target.readPixels()
        #expect(fewer[100, 180] == white && fewer[180, 100] == px(204, 0, 0))
        r.position = Point(x: 110, y: 100)
        try Transaction.flush()
        #expect(dot.displayCount == 1 && host.lastFrame.textureBytesUploaded == 0)
        #expect(try target.readPixels()[190, 100] == px(204, 0, 0))
    }
}

extension EffectsTests {
    @Test("shadow properties animate (shadowOpacity, shadowRadius, shadowOffset, shadowColor): mid-animation frames equal the static frame at the interpolated values (within 1/255)")
    func shadowAnimation() throws {
        func still(opacity: Double, radius: Double, offset: Size) throws -> RGBAImage {
            let root = rootLayer()
            let l = solid(Rect(x: 60, y: 60, width: 80, height: 60), Color(red: 0.2, green: 0.5, blue: 0.9))
            l.shadowOpacity = opacity
            l.shadowRadius = radius
            l.shadowOffset = offset
            root.addSublayer(l)
            return try render(root).image
        }
        let stage = try AnimationStage()
        defer { stage.close() }
        let l = solid(Rect(x: 60, y: 60, width: 80, height: 60), Color(red: 0.2, green: 0.5, blue: 0.9))
        l.shadowOpacity = 1
        l.shadowRadius = 12
        l.shadowOffset = Size(width: 10, height: 20)
        stage.root.addSublayer(l)
        var fade = BasicAnimation(keyPath: "shadowOpacity")
        fade.fromValue = .number(0)
        fade.duration = 1
        var blur = BasicAnimation(keyPath: "shadowRadius")
        blur.fromValue = .number(4)
        blur.duration = 1
        var move = BasicAnimation(keyPath: "shadowOffset")
        move.fromValue = .size(Size(width: 0, height: 0))
        move.duration = 1
        l.add(fade, forKey: "fade")
        l.add(blur, forKey: "blur")
        l.add(move, forKey: "move")
        let start = try stage.frame(at: 0)
        let mid = try stage.frame(at: 0.5)
        let end = try stage.frame(at: 2)
        let d0 = start.difference(from: try still(opacity: 0, radius: 4, offset: .zero), tolerance: 1)
        let d1 = mid.difference(from: try still(opacity: 0.5, radius: 8, offset: Size(width: 5, height: 10)), tolerance: 1)
        let d2 = end.difference(from: try still(opacity: 1, radius: 12, offset: Size(width: 10, height: 20)), tolerance: 1)
        #expect(d0.differing == 0 && d1.differing == 0 && d2.differing == 0, "\(d0) \(d1) \(d2)")
        #expect(mid != end && mid[142, 128] != white)
    }
}

// MARK: Cases the review found

extension EffectsTests {
    @Test("a masked layer in a transition fades: its masked composite follows the mix (not frozen at its first frame)")
    func maskedTransition() throws {
        let stage = try AnimationStage()
        defer { stage.close() }
        let l = Layer()
        l.frame = Rect(x: 40, y: 40, width: 120, height: 120)
        l.mask = { let m = solid(Rect(x: 0, y: 0, width: 120, height: 120), .black); m.cornerRadius = 30; return m }()
        let a = solid(Rect(x: 0, y: 0, width: 120, height: 120), Color(red: 1, green: 0, blue: 0))
        l.addSublayer(a)
        stage.root.addSublayer(l)
        try stage.frame(at: 0)
        var t = TransitionAnimation(type: .fade)
        t.duration = 1
        l.add(t, forKey: nil)
        a.backgroundColor = Color(red: 0, green: 0, blue: 1)
        let start = try stage.frame(at: 0), mid = try stage.frame(at: 0.5), end = try stage.frame(at: 1.5)
        #expect(start[100, 100].r > 240 && end[100, 100].b > 240, "\(start[100, 100]) \(end[100, 100])")
        #expect(abs(Int(mid[100, 100].r) - 128) <= 3 && abs(Int(mid[100, 100].b) - 128) <= 3, "half way: \(mid[100, 100])")
        #expect(mid[42, 42] == white, "the mask's rounded corner")
    }

    @Test("a replicator's sublayer off the target's edge shows where an instance moves it on screen; a layer-alpha shadow of a layer half off screen is whole")
    func offscreenSources() throws {
        let root = rootLayer()
        let r = ReplicatorLayer()
        r.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        r.addSublayer(solid(Rect(x: -40, y: 20, width: 30, height: 30), Color(red: 1, green: 0, blue: 0)))
        r.instanceCount = 2
        r.instanceTransform = Transform3D(translationX: 60, y: 0)
        root.addSublayer(r)
        let l = solid(Rect(x: -50, y: 100, width: 100, height: 60), Color(red: 0, green: 0, blue: 1))
        l.addSublayer(Layer())   // (the shadow follows the subtree's alpha)
        l.shadowOpacity = 1
        l.shadowRadius = 4
        l.shadowOffset = Size(width: 60, height: 0)
        root.addSublayer(l)
        let (image, _) = try render(root)
        #expect(image[35, 35] == red, "the second instance, on screen: \(image[35, 35])")
        // The shadow, 60 to the right: its whole 100-point width shows, from the off-screen part too.
        #expect(image[62, 130].r < 40 && image[100, 130].r < 40, "\(image[62, 130]) \(image[100, 130])")
    }

    @Test("mask cycles are refused: a layer cannot mask a layer above it, nor become a sublayer of its own mask")
    func maskCycles() throws {
        let a = Layer(), b = Layer(), c = Layer()
        a.mask = b
        b.mask = a
        #expect(a.mask === b && b.mask == nil)
        b.addSublayer(c)
        c.mask = a
        #expect(c.mask == nil)
        #expect(b.addSublayer(a) == false && a.superlayer == nil)
        #expect(a.rootLayer === a && b.rootLayer === a)
    }
}

extension EffectsTests {
    @Test("blend modes and backdrop blurs read the right pixels of a caller's framebuffer stored bottom row first, in a panel of it (as a window's): the same picture as an offscreen target", arguments: [false, true])
    func effectsOnCallersFramebuffer(bottomRowFirst: Bool) throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let (scene, expected) = try EffectsTests.framebufferScene(device)
        // The caller's framebuffer: 90×80, Lamina drawing into a 64×56 panel at (10, 12).
        let texture = try device.makeTexture(pixelSize: PixelSize(width: 90, height: 80))
        var fbo: GLuint = 0
        try device.withContext {
            glGenFramebuffers(1, &fbo)
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), fbo)
            glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D), texture.glName, 0)
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
        }
        defer { try? device.withContext { glDeleteFramebuffers(1, &fbo) } }
        let panel = try ExternalFramebufferTarget(device: device, framebuffer: fbo, pixelSize: PixelSize(width: 90, height: 80),
                                                  region: PixelRect(x: 10, y: 12, width: 64, height: 56), bottomRowFirst: bottomRowFirst)
        let c2 = LayerRenderer(device: device)
        defer { c2.release() }
        try c2.render(scene(), to: panel, background: .white)
        let got = try panel.readPixels()
        let d = got.difference(from: expected, tolerance: 1)
        #expect(d.differing == 0, "\(d.differing) pixels differ by up to \(d.maxDifference)")
        #expect(c2.lastFrame.blurs == 1)
    }
}

extension EffectsTests {
    @Test("blend modes and backdrop blurs on a host's multisampled RGB8 framebuffer (resolved in its own format before the copy) equal an offscreen render")
    func effectsOnMultisampledFramebuffer() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let (scene, expected) = try EffectsTests.framebufferScene(device)
        // The host's framebuffer: 4× multisampled RGB8 colour, 8-bit stencil.
        var fbo: GLuint = 0, color: GLuint = 0, stencil: GLuint = 0, resolveFBO: GLuint = 0, resolveColor: GLuint = 0
        try device.withContext {
            glGenRenderbuffers(1, &color)
            glBindRenderbuffer(GLenum(GL_RENDERBUFFER), color)
            glRenderbufferStorageMultisample(GLenum(GL_RENDERBUFFER), 4, GLenum(GL_RGB8), 64, 56)
            glGenRenderbuffers(1, &stencil)
            glBindRenderbuffer(GLenum(GL_RENDERBUFFER), stencil)
            glRenderbufferStorageMultisample(GLenum(GL_RENDERBUFFER), 4, GLenum(GL_DEPTH24_STENCIL8), 64, 56)
            glGenFramebuffers(1, &fbo)
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), fbo)
            glFramebufferRenderbuffer(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_RENDERBUFFER), color)
            glFramebufferRenderbuffer(GLenum(GL_FRAMEBUFFER), GLenum(GL_DEPTH_STENCIL_ATTACHMENT), GLenum(GL_RENDERBUFFER), stencil)
            glGenRenderbuffers(1, &resolveColor)
            glBindRenderbuffer(GLenum(GL_RENDERBUFFER), resolveColor)
            glRenderbufferStorage(GLenum(GL_RENDERBUFFER), GLenum(GL_RGB8), 64, 56)
            glGenFramebuffers(1, &resolveFBO)
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), resolveFBO)
            glFramebufferRenderbuffer(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_RENDERBUFFER), resolveColor)
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
            glBindRenderbuffer(GLenum(GL_RENDERBUFFER), 0)
        }
        defer {
            try? device.withContext {
                glDeleteFramebuffers(1, &fbo); glDeleteFramebuffers(1, &resolveFBO)
                glDeleteRenderbuffers(1, &color); glDeleteRenderbuffers(1, &stencil); glDeleteRenderbuffers(1, &resolveColor)
            }
        }
        let host = try ExternalFramebufferTarget(device: device, framebuffer: fbo, pixelSize: PixelSize(width: 64, height: 56), bottomRowFirst: false)
        let c2 = LayerRenderer(device: device)
        defer { c2.release() }
        try c2.render(scene(), to: host, background: .white)
        #expect(c2.lastFrame.blurs == 1)
        // Read it as the host would show it: resolved.
        var bytes = [UInt8](repeating: 0, count: 64 * 56 * 4)
        try device.withContext {
            glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), fbo)
            glBindFramebuffer(GLenum(GL_DRAW_FRAMEBUFFER), resolveFBO)
            glDisable(GLenum(GL_SCISSOR_TEST))
            glBlitFramebuffer(0, 0, 64, 56, 0, 0, 64, 56, GLbitfield(GL_COLOR_BUFFER_BIT), GLenum(GL_NEAREST))
            glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), resolveFBO)
            glReadPixels(0, 0, 64, 56, GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), &bytes)
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
            #expect(glGetError() == GLenum(GL_NO_ERROR))
        }
        let got = RGBAImage(width: 64, height: 56, bytes: bytes)
        let d = got.difference(from: expected, tolerance: 1)
        #expect(d.differing == 0, "\(d.differing) pixels differ by up to \(d.maxDifference)")
    }
}

extension EffectsTests {
    /// The scene of the framebuffer tests (stripes, a backdrop blur, a multiply layer), and
    /// its pixels rendered into an offscreen target: what a caller's framebuffer must show.
    static func framebufferScene(_ device: GPUDevice) throws -> (() -> Layer, RGBAImage) {
        var stripes = RGBAImage(width: 64, height: 56)
        for y in 0..<56 { for x in 0..<64 { stripes[x, y] = (x / 5 + y / 7) % 2 == 0 ? px(230, 40, 30) : px(20, 60, 200) } }
        func scene() -> Layer {
            let root = Layer()
            root.frame = Rect(x: 0, y: 0, width: 64, height: 56)
            let back = Layer()
            back.frame = root.frame
            back.contents = .image(ContentImage(stripes))
            root.addSublayer(back)
            let glass = Layer()
            glass.frame = Rect(x: 8, y: 6, width: 30, height: 40)
            glass.backgroundFilters = [.gaussianBlur(radius: 3)]
            root.addSublayer(glass)
            let tint = solid(Rect(x: 30, y: 20, width: 28, height: 30), Color(red: 1, green: 0.8, blue: 0.2))
            tint.compositingFilter = .multiply
            root.addSublayer(tint)
            return root
        }
        let reference = try OffscreenTarget(device: device, size: Size(width: 64, height: 56))
        let c1 = LayerRenderer(device: device)
        defer { c1.release() }
        try c1.render(scene(), to: reference, background: .white)
        return (scene, try reference.readPixels())
    }
}

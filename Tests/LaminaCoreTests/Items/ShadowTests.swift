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

// Shadows (Sources/LaminaRender/Items/ShadowItems.swift, AlphaShadow.swift): analytic,
// of the layer's alpha, of a shadowPath; blurred once; animated.
extension EffectsTests {
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

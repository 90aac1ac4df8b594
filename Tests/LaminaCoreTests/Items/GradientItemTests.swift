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

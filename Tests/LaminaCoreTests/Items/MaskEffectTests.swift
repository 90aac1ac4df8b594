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

// Masks (Sources/LaminaRender/Items/MaskEffect.swift).
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

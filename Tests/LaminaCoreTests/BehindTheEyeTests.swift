import Foundation
import LaminaGeometry
import LaminaGPU
import Testing
@testable import LaminaCore

/// Layers partly behind the eye (perspective with a corner at w < 0), checked against
/// pixels worked out analytically here — not from the renderer's own transforms.
///
/// The scenes: a 200×200 target, the root's `sublayerTransform.m34 = -1/d` about its centre
/// (100, 100), and a `W`×`H` layer centred there, turned by θ about Y. A point (u, v) of
/// the layer relative to its centre lands at X = u·cos θ, Y = v, Z = −u·sin θ
/// (CATransform3D's rotation), w = 1 − Z/d, on screen at (100 + X/w, 100 + Y/w); it is
/// in front of the eye where w > 0. Inverting: a screen point (100 + a, 100 + b) comes
/// from u = a / (cos θ − a·sin θ/d), w = 1 + u·sin θ/d, v = b·w.
@MainActor
@Suite("Layers partly behind the eye (pixels)", .serialized)
struct BehindTheEyeTests {
    /// Tolerance: pixels whose centre lies within `margin` points of an edge of the visible
    /// part (or of the horizon) are not checked; every other one must match exactly
    /// (solid colours: one value each).
    static let margin = 1.5

    /// Whether the screen point (sx, sy) shows the layer (nil: too close to an edge to say).
    static func covers(_ sx: Double, _ sy: Double, width: Double, height: Double, angle: Double, d: Double) -> Bool? {
        func inside(_ sx: Double, _ sy: Double) -> Bool {
            let a = sx - 100, b = sy - 100
            let denominator = cos(angle) - a * sin(angle) / d
            guard abs(denominator) > 1e-9 else { return false }
            let u = a / denominator, w = 1 + u * sin(angle) / d
            guard w > 0 else { return false }
            let v = b * w
            return abs(u) < width / 2 && abs(v) < height / 2
        }
        let c = inside(sx, sy)
        for (dx, dy) in [(-margin, 0.0), (margin, 0), (0, -margin), (0, margin), (-margin, -margin), (margin, margin), (-margin, margin), (margin, -margin)]
        where inside(sx + dx, sy + dy) != c { return nil }
        return c
    }

    /// Renders the scene: the layer `color`, turned by `angle` about Y, optionally inside
    /// `wrapper` layers; returns the pixels.
    static func renderTurned(width: Double, height: Double, angle: Double, d: Double, doubleSided: Bool,
                             color: Color = .green) throws -> RGBAImage {
        let root = rootLayer()
        root.sublayerTransform.m34 = -1 / d
        let card = Layer()
        card.bounds = Rect(x: 0, y: 0, width: width, height: height)
        card.position = Point(x: 100, y: 100)
        card.backgroundColor = color
        card.isDoubleSided = doubleSided
        card.transform = Transform3D(rotationAngle: angle, x: 0, y: 1, z: 0)
        root.addSublayer(card)
        return try render(root).image
    }

    @Test("a front face with a corner behind the eye is drawn (isDoubleSided = false): its visible part, exactly")
    func frontFacePartlyBehind() throws {
        // 400 wide, turned ±60°: one end (|u| > 115) is behind the eye at d = 100 — the
        // right end (the corners at maxX) for −60°, the left one for +60°.
        let (w, h, d) = (400.0, 60.0, 100.0)
        for angle in [-Double.pi / 3, Double.pi / 3] { for doubleSided in [false, true] {
            let image = try Self.renderTurned(width: w, height: h, angle: angle, d: d, doubleSided: doubleSided)
            var shown = 0
            let wrong = image.mismatches { x, y in
                guard let c = Self.covers(Double(x) + 0.5, Double(y) + 0.5, width: w, height: h, angle: angle, d: d) else { return nil }
                if c { shown += 1 }
                return c ? green : white
            }
            #expect(wrong.isEmpty, "angle \(angle), isDoubleSided \(doubleSided): \(wrong)")
            #expect(shown > 2000, "the visible part is large: \(shown) pixels")
        } }
    }

    @Test("a back face with a corner behind the eye is not drawn (isDoubleSided = false); double-sided, its back is")
    func backFacePartlyBehind() throws {
        // Turned ±120°: the back faces the viewer; one end is behind the eye.
        let (w, h, d) = (400.0, 60.0, 100.0)
        for angle in [-2 * Double.pi / 3, 2 * Double.pi / 3] {
        let culled = try Self.renderTurned(width: w, height: h, angle: angle, d: d, doubleSided: false)
        let wrong = culled.mismatches { _, _ in white }
        #expect(wrong.isEmpty, "angle \(angle): nothing drawn: \(wrong)")
        let shown = try Self.renderTurned(width: w, height: h, angle: angle, d: d, doubleSided: true)
        var count = 0
        let wrongShown = shown.mismatches { x, y in
            guard let c = Self.covers(Double(x) + 0.5, Double(y) + 0.5, width: w, height: h, angle: angle, d: d) else { return nil }
            if c { count += 1 }
            return c ? green : white
        }
        #expect(wrongShown.isEmpty, "angle \(angle): \(wrongShown)")
        #expect(count > 1000, "\(count)")
        }
    }

    @Test("a single-sided layer entirely behind the eye draws nothing and is not visible in the plan")
    func entirelyBehind() throws {
        let root = rootLayer()
        root.sublayerTransform.m34 = -1 / 100.0
        let card = solid(Rect(x: 50, y: 50, width: 100, height: 100), .green)
        card.isDoubleSided = false
        card.zPosition = 150      // the whole layer is past the eye (w = 1 − 150/100 < 0)
        root.addSublayer(card)
        let device = try GPUDevice()
        defer { device.close() }
        let compositor = Compositor(device: device)
        defer { compositor.release() }
        let target = try OffscreenTarget(device: device, size: Size(width: 200, height: 200))
        try compositor.render(root, to: target, background: .white)
        #expect(try target.readPixels().mismatches { _, _ in white }.isEmpty)
        let node = try #require(compositor.tree?.nodes[card.id])
        #expect(!node.visible)
    }
}

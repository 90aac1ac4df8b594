import Foundation
import LaminaGeometry
import LaminaGPU
import Testing
@testable import LaminaCore
@testable import LaminaModel
@testable import LaminaRender
@testable import LaminaValues
import LaminaTestSupport

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
@Suite("Layers partly behind the eye (pixels)", .isolatedTransactions)
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
        let compositor = LayerRenderer(device: device)
        defer { compositor.release() }
        let target = try OffscreenTarget(device: device, size: Size(width: 200, height: 200))
        try compositor.render(root, to: target, background: .white)
        #expect(try target.readPixels().mismatches { _, _ in white }.isEmpty)
        let node = try #require(compositor.tree?.nodes[card.id])
        #expect(!node.visible)
    }
}

/// Two flattening levels, each putting part of a layer behind the eye: the layer's points
/// whose w is negative at both levels have a positive product and, unclipped, draw a
/// mirrored ghost. Expected pixels are worked out by inverting each level's homography
/// separately here: a screen point shows the layer when its preimage in the middle plane is
/// in front of the eye (w > 0 at the outer level), its preimage on the layer in front at the
/// inner level, and inside the layer's bounds.
@MainActor
@Suite("Nested flattening behind the eye (pixels)", .isolatedTransactions)
struct NestedBehindTheEyeTests {
    /// The scene's parameters: a middle layer A (turned θa about Y in the root's perspective
    /// d) holding B (turned θb in A's own perspective d), both centred.
    struct Scene {
        var angleA = -Double.pi / 3, angleB = Double.pi / 3, d = 100.0
        var sizeA = Size(width: 400, height: 200), sizeB = Size(width: 600, height: 100)
        var masksB = false

        /// B's bounds → A's plane, and A's bounds → the target, as 3×3 homographies on rows
        /// (x, y, 1): built from the CATransform3D conventions directly.
        func homographies() -> (b: [Double], a: [Double]) {
            func perspective(about c: (Double, Double)) -> Transform3D {
                var p = Transform3D.identity
                p.m34 = -1 / d
                return Transform3D(translationX: -c.0, y: -c.1).concatenating(p).concatenating(Transform3D(translationX: c.0, y: c.1))
            }
            func placed(_ size: Size, angle: Double, at c: (Double, Double)) -> Transform3D {
                Transform3D(translationX: -size.width / 2, y: -size.height / 2)
                    .concatenating(Transform3D(rotationAngle: angle, x: 0, y: 1, z: 0))
                    .concatenating(Transform3D(translationX: c.0, y: c.1))
            }
            let centreA = (sizeA.width / 2, sizeA.height / 2)
            let tb = placed(sizeB, angle: angleB, at: centreA).concatenating(perspective(about: centreA))
            let ta = placed(sizeA, angle: angleA, at: (100, 100)).concatenating(perspective(about: (100, 100)))
            func h(_ t: Transform3D) -> [Double] { [t.m11, t.m12, t.m14, t.m21, t.m22, t.m24, t.m41, t.m42, t.m44] }
            return (h(tb), h(ta))
        }

        static func inverse(_ a: [Double]) -> [Double] {
            let c00 = a[4] * a[8] - a[5] * a[7], c01 = a[5] * a[6] - a[3] * a[8], c02 = a[3] * a[7] - a[4] * a[6]
            let det = a[0] * c00 + a[1] * c01 + a[2] * c02
            return [c00, a[2] * a[7] - a[1] * a[8], a[1] * a[5] - a[2] * a[4],
                    c01, a[0] * a[8] - a[2] * a[6], a[2] * a[3] - a[0] * a[5],
                    c02, a[1] * a[6] - a[0] * a[7], a[0] * a[4] - a[1] * a[3]].map { $0 / det }
        }

        /// (x, y, 1)·h.
        static func apply(_ h: [Double], _ x: Double, _ y: Double) -> (Double, Double, Double) {
            (x * h[0] + y * h[3] + h[6], x * h[1] + y * h[4] + h[7], x * h[2] + y * h[5] + h[8])
        }

        /// Whether screen point (sx, sy) shows B.
        func shows(_ sx: Double, _ sy: Double, _ hs: (b: [Double], a: [Double]), _ inv: (b: [Double], a: [Double])) -> Bool {
            // The point of A's plane seen there, and whether it is in front of the eye.
            let (ax, ay, aw) = Scene.apply(inv.a, sx, sy)
            guard abs(aw) > 1e-12 else { return false }
            let a = (ax / aw, ay / aw)
            guard Scene.apply(hs.a, a.0, a.1).2 > 0 else { return false }
            let (bx, by, bw) = Scene.apply(inv.b, a.0, a.1)
            guard abs(bw) > 1e-12 else { return false }
            let b = (bx / bw, by / bw)
            guard Scene.apply(hs.b, b.0, b.1).2 > 0 else { return false }
            return b.0 > 0 && b.0 < sizeB.width && b.1 > 0 && b.1 < sizeB.height
        }

        /// The expected colour, or nil within 1.5 pt of an edge.
        func expected(_ x: Int, _ y: Int, color: RGBAPixel) -> RGBAPixel? {
            let hs = homographies(), inv = (Scene.inverse(hs.b), Scene.inverse(hs.a))
            let cx = Double(x) + 0.5, cy = Double(y) + 0.5
            let c = shows(cx, cy, hs, inv)
            let m = 1.5
            for (dx, dy) in [(-m, 0.0), (m, 0), (0, -m), (0, m), (-m, -m), (m, m), (-m, m), (m, -m)]
            where shows(cx + dx, cy + dy, hs, inv) != c { return nil }
            return c ? color : white
        }

        @MainActor func render() throws -> RGBAImage {
            let root = rootLayer()
            root.sublayerTransform.m34 = -1 / d
            let a = Layer()
            a.bounds = Rect(origin: .zero, size: sizeA)
            a.position = Point(x: 100, y: 100)
            a.transform = Transform3D(rotationAngle: angleA, x: 0, y: 1, z: 0)
            a.sublayerTransform.m34 = -1 / d
            let b = Layer()
            b.bounds = Rect(origin: .zero, size: sizeB)
            b.position = Point(x: sizeA.width / 2, y: sizeA.height / 2)
            b.transform = Transform3D(rotationAngle: angleB, x: 0, y: 1, z: 0)
            b.backgroundColor = .green
            if masksB {
                // The colour comes from a sublayer clipped by B: the clip shape needs the
                // same clipping as contents.
                b.backgroundColor = nil
                b.masksToBounds = true
                let fill = solid(Rect(x: -1000, y: -1000, width: 3000, height: 3000), .green)
                b.addSublayer(fill)
            }
            a.addSublayer(b)
            root.addSublayer(a)
            return try LaminaCoreTests.render(root).image
        }
    }

    @Test("no mirrored ghost: a layer turned behind the eye inside a layer turned behind the eye draws only its visible part", arguments: [false, true])
    func noGhost(masks: Bool) throws {
        var scene = Scene()
        scene.masksB = masks
        let image = try scene.render()
        var shown = 0, background = 0
        let wrong = image.mismatches { x, y in
            let e = scene.expected(x, y, color: green)
            if e == green { shown += 1 } else if e == white { background += 1 }
            return e
        }
        #expect(wrong.isEmpty, "masksToBounds \(masks): \(wrong)")
        #expect(shown > 500 && background > 500, "both parts are large: \(shown) shown, \(background) background")
    }
}

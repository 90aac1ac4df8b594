import Foundation
import LaminaGeometry
import Testing

@Suite("Transform3D (CATransform3D conventions)")
struct Transform3DTests {
    private func close(_ p: Point, _ x: Double, _ y: Double) -> Bool { abs(p.x - x) < 1e-12 && abs(p.y - y) < 1e-12 }

    @Test("a positive rotation about z turns +x towards +y (clockwise on a y-down screen)")
    func rotationDirection() {
        let r = Transform3D(rotationAngle: .pi / 2, x: 0, y: 0, z: 1)
        #expect(close(r.apply(to: Point(x: 1, y: 0)), 0, 1))
        #expect(close(r.apply(to: Point(x: 0, y: 1)), -1, 0))
    }

    @Test("rotation about y moves +x towards -z (CATransform3DMakeRotation), which perspective shrinks")
    func rotationAboutY() {
        let r = Transform3D(rotationAngle: .pi / 2, x: 0, y: 1, z: 0)
        // (1, 0, 0) · R = (cos, 0, -sin).
        #expect(abs(r.m11) < 1e-12 && abs(r.m13 + 1) < 1e-12)
        var p = Transform3D.identity
        p.m34 = -1 / 100
        let small = Transform3D(rotationAngle: 0.5, x: 0, y: 1, z: 0).concatenating(p)
        // The +x side went away from the viewer: it projects closer to the axis than cos·x.
        #expect(small.apply(to: Point(x: 50, y: 0)).x < 50 * cos(0.5))
        #expect(small.apply(to: Point(x: -50, y: 0)).x < -50 * cos(0.5))
    }

    @Test("concatenating applies the receiver first; translatedBy/scaledBy prepend like CATransform3DTranslate/Scale")
    func order() {
        let t = Transform3D(translationX: 10, y: 0)
        let s = Transform3D(scaleX: 2, y: 2)
        #expect(close(t.concatenating(s).apply(to: Point(x: 1, y: 1)), 22, 2))   // translate, then scale
        #expect(close(s.concatenating(t).apply(to: Point(x: 1, y: 1)), 12, 2))   // scale, then translate
        #expect(s.translatedBy(x: 10, y: 0) == t.concatenating(s))
        #expect(t.scaledBy(x: 2, y: 2) == s.concatenating(t))
        #expect(Transform3D.identity.concatenating(t) == t && t.concatenating(.identity) == t)
    }

    @Test("translated(before:after:) equals translation · M · translation, for matrices with perspective")
    func translatedMatchesProducts() {
        var m = Transform3D(rotationAngle: 0.7, x: 0.3, y: 1, z: 0.2).concatenating(Transform3D(scaleX: 1.5, y: 0.5, z: 2))
        m.m14 = 0.01; m.m24 = -0.02; m.m34 = -1 / 300; m.m41 = 4; m.m42 = -7; m.m43 = 2
        let b = (x: -12.5, y: 30.0, z: 3.0), a = (x: 100.0, y: -40.0, z: 7.5)
        let expected = Transform3D(translationX: b.x, y: b.y, z: b.z).concatenating(m)
            .concatenating(Transform3D(translationX: a.x, y: a.y, z: a.z))
        let got = m.translated(before: b, after: a)
        for (x, y) in zip(got.values, expected.values) { #expect(abs(x - y) <= 1e-12 * max(1, abs(y)), "\(got) vs \(expected)") }
    }

    @Test("values are in memory order m11…m44 and round-trip")
    func values() {
        let v = (1...16).map(Double.init)
        let t = Transform3D(v)
        #expect(t.values == v && t.m12 == 2 && t.m34 == 12 && t.m41 == 13)
    }
}

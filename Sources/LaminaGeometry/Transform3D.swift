import FoundationEssentials
import Glibc

/// A 4×4 homogeneous transform laid out like Core Animation's `CATransform3D`:
/// points are row vectors, `p' = p · M`, so translation lives in m41…m43 and
/// perspective in m34 (`m34 = -1/d` for an eye at distance d).
/// `a.concatenating(b)` applies `a` first, then `b` (like `CATransform3DConcat`).
public struct Transform3D: Hashable, Sendable {
    public var m11, m12, m13, m14: Double
    public var m21, m22, m23, m24: Double
    public var m31, m32, m33, m34: Double
    public var m41, m42, m43, m44: Double

    @inlinable
    public init(m11: Double, m12: Double, m13: Double, m14: Double,
                m21: Double, m22: Double, m23: Double, m24: Double,
                m31: Double, m32: Double, m33: Double, m34: Double,
                m41: Double, m42: Double, m43: Double, m44: Double) {
        self.m11 = m11; self.m12 = m12; self.m13 = m13; self.m14 = m14
        self.m21 = m21; self.m22 = m22; self.m23 = m23; self.m24 = m24
        self.m31 = m31; self.m32 = m32; self.m33 = m33; self.m34 = m34
        self.m41 = m41; self.m42 = m42; self.m43 = m43; self.m44 = m44
    }

    /// Sixteen values in memory order m11, m12, …, m44. Another count is a programming
    /// error (a trap whose message release builds print).
    public init(_ v: [Double]) {
        guard v.count == 16 else { fatalError("Transform3D needs 16 values, got \(v.count)") }
        self.init(m11: v[0], m12: v[1], m13: v[2], m14: v[3], m21: v[4], m22: v[5], m23: v[6], m24: v[7],
                  m31: v[8], m32: v[9], m33: v[10], m34: v[11], m41: v[12], m42: v[13], m43: v[14], m44: v[15])
    }

    public static let identity = Transform3D(m11: 1, m12: 0, m13: 0, m14: 0, m21: 0, m22: 1, m23: 0, m24: 0,
                                             m31: 0, m32: 0, m33: 1, m34: 0, m41: 0, m42: 0, m43: 0, m44: 1)

    /// Values in memory order m11…m44. Uploaded unchanged to a GLSL `mat4` (column-major),
    /// this is the transpose, so the shader's `M * v` computes the row-vector product `v · M`.
    public var values: [Double] {
        [m11, m12, m13, m14, m21, m22, m23, m24, m31, m32, m33, m34, m41, m42, m43, m44]
    }

    /// (Compared with the constants in place: `self == .identity` read the static and called
    /// the synthesized `==`, about 115 instructions, once a layer a frame in frame building.)
    @inlinable public var isIdentity: Bool {
        m11 == 1 && m12 == 0 && m13 == 0 && m14 == 0 && m21 == 0 && m22 == 1 && m23 == 0 && m24 == 0
            && m31 == 0 && m32 == 0 && m33 == 1 && m34 == 0 && m41 == 0 && m42 == 0 && m43 == 0 && m44 == 1
    }

    /// Every element is finite (not infinite, not a number). (x × 0 is ±0 for every finite
    /// x and NaN otherwise, and NaN survives the sum: one test without sixteen branches —
    /// every `transform` set checks it.)
    @inlinable public var isFinite: Bool {
        let a = m11 * 0 + m12 * 0 + m13 * 0 + m14 * 0, b = m21 * 0 + m22 * 0 + m23 * 0 + m24 * 0
        let c = m31 * 0 + m32 * 0 + m33 * 0 + m34 * 0, d = m41 * 0 + m42 * 0 + m43 * 0 + m44 * 0
        return a + b + c + d == 0
    }

    /// A translation by `before`, then `self`, then a translation by `after` — what
    /// `Transform3D(translationX:…).concatenating(self).concatenating(Transform3D(translationX:…))`
    /// computes, without two full products (a layer's transform about its anchor point).
    @inlinable
    public func translated(before b: (x: Double, y: Double, z: Double), after a: (x: Double, y: Double, z: Double)) -> Transform3D {
        // T(b) · M: rows 1–3 of M; row 4 = b.x·row1 + b.y·row2 + b.z·row3 + row4.
        let r41 = b.x * m11 + b.y * m21 + b.z * m31 + m41
        let r42 = b.x * m12 + b.y * m22 + b.z * m32 + m42
        let r43 = b.x * m13 + b.y * m23 + b.z * m33 + m43
        let r44 = b.x * m14 + b.y * m24 + b.z * m34 + m44
        // · T(a): each row (p1, p2, p3, p4) becomes (p1 + p4·a.x, p2 + p4·a.y, p3 + p4·a.z, p4).
        return Transform3D(
            m11: m11 + m14 * a.x, m12: m12 + m14 * a.y, m13: m13 + m14 * a.z, m14: m14,
            m21: m21 + m24 * a.x, m22: m22 + m24 * a.y, m23: m23 + m24 * a.z, m24: m24,
            m31: m31 + m34 * a.x, m32: m32 + m34 * a.y, m33: m33 + m34 * a.z, m34: m34,
            m41: r41 + r44 * a.x, m42: r42 + r44 * a.y, m43: r43 + r44 * a.z, m44: r44)
    }

    public init(translationX tx: Double, y ty: Double, z tz: Double = 0) {
        self = .identity; m41 = tx; m42 = ty; m43 = tz
    }

    public init(scaleX sx: Double, y sy: Double, z sz: Double = 1) {
        self = .identity; m11 = sx; m22 = sy; m33 = sz
    }

    /// Rotation by `angle` radians about the axis (x, y, z), as `CATransform3DMakeRotation`.
    /// About z, positive angles turn +x towards +y (clockwise on a y-down screen).
    public init(rotationAngle angle: Double, x: Double, y: Double, z: Double) {
        let len = (x * x + y * y + z * z).squareRoot()
        guard len > 0 else { self = .identity; return }
        let (ax, ay, az) = (x / len, y / len, z / len)
        let c = cos(angle), s = sin(angle), t = 1 - c
        self.init(m11: t * ax * ax + c, m12: t * ax * ay + s * az, m13: t * ax * az - s * ay, m14: 0,
                  m21: t * ax * ay - s * az, m22: t * ay * ay + c, m23: t * ay * az + s * ax, m24: 0,
                  m31: t * ax * az + s * ay, m32: t * ay * az - s * ax, m33: t * az * az + c, m34: 0,
                  m41: 0, m42: 0, m43: 0, m44: 1)
    }

    /// `self` first, then `other`.
    @inlinable
    public func concatenating(_ b: Transform3D) -> Transform3D {
        let a = self
        return Transform3D(
            m11: a.m11 * b.m11 + a.m12 * b.m21 + a.m13 * b.m31 + a.m14 * b.m41,
            m12: a.m11 * b.m12 + a.m12 * b.m22 + a.m13 * b.m32 + a.m14 * b.m42,
            m13: a.m11 * b.m13 + a.m12 * b.m23 + a.m13 * b.m33 + a.m14 * b.m43,
            m14: a.m11 * b.m14 + a.m12 * b.m24 + a.m13 * b.m34 + a.m14 * b.m44,
            m21: a.m21 * b.m11 + a.m22 * b.m21 + a.m23 * b.m31 + a.m24 * b.m41,
            m22: a.m21 * b.m12 + a.m22 * b.m22 + a.m23 * b.m32 + a.m24 * b.m42,
            m23: a.m21 * b.m13 + a.m22 * b.m23 + a.m23 * b.m33 + a.m24 * b.m43,
            m24: a.m21 * b.m14 + a.m22 * b.m24 + a.m23 * b.m34 + a.m24 * b.m44,
            m31: a.m31 * b.m11 + a.m32 * b.m21 + a.m33 * b.m31 + a.m34 * b.m41,
            m32: a.m31 * b.m12 + a.m32 * b.m22 + a.m33 * b.m32 + a.m34 * b.m42,
            m33: a.m31 * b.m13 + a.m32 * b.m23 + a.m33 * b.m33 + a.m34 * b.m43,
            m34: a.m31 * b.m14 + a.m32 * b.m24 + a.m33 * b.m34 + a.m34 * b.m44,
            m41: a.m41 * b.m11 + a.m42 * b.m21 + a.m43 * b.m31 + a.m44 * b.m41,
            m42: a.m41 * b.m12 + a.m42 * b.m22 + a.m43 * b.m32 + a.m44 * b.m42,
            m43: a.m41 * b.m13 + a.m42 * b.m23 + a.m43 * b.m33 + a.m44 * b.m43,
            m44: a.m41 * b.m14 + a.m42 * b.m24 + a.m43 * b.m34 + a.m44 * b.m44)
    }

    public func translatedBy(x: Double, y: Double, z: Double = 0) -> Transform3D {
        Transform3D(translationX: x, y: y, z: z).concatenating(self)
    }

    public func scaledBy(x: Double, y: Double, z: Double = 1) -> Transform3D {
        Transform3D(scaleX: x, y: y, z: z).concatenating(self)
    }

    public func rotated(by angle: Double, x: Double, y: Double, z: Double) -> Transform3D {
        Transform3D(rotationAngle: angle, x: x, y: y, z: z).concatenating(self)
    }

    /// The point (x, y, 0) transformed, with the perspective divide applied.
    public func apply(to p: Point) -> Point {
        let x = p.x * m11 + p.y * m21 + m41
        let y = p.x * m12 + p.y * m22 + m42
        let w = p.x * m14 + p.y * m24 + m44
        return Point(x: x / w, y: y / w)
    }
}

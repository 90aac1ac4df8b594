import FoundationEssentials
import Glibc

/// A `Transform3D` split into simple parts (the "unmatrix" decomposition of Graphics Gems II,
/// as CSS Transforms Level 2 uses to interpolate 3D matrices), in `Transform3D`'s row-vector
/// convention. A point goes through the parts in this order:
/// scale, then skew, then rotation (the unit `quaternion`), then translation, then perspective:
///
///     M = Scale · Skew · Rotation · Translation · Perspective     (p' = p · M)
///
/// - `Skew` is the identity with m21 = `skewXY`, m31 = `skewXZ`, m32 = `skewYZ`
///   (so the y axis leans towards x by `skewXY`, and so on).
/// - `Perspective` is the identity with its fourth column replaced by
///   (`perspectiveX`, `perspectiveY`, `perspectiveZ`, `perspectiveW`); a plain
///   `m34 = -1/d` decomposes into perspectiveZ = -1/d, perspectiveW = 1.
/// - The quaternion (x, y, z, w) is (axis · sin(θ/2), cos(θ/2)) for a rotation by θ about the
///   axis, turning the same way as `Transform3D(rotationAngle:x:y:z:)`.
/// - A matrix with a negative determinant (a mirror) decomposes with all three scales negated,
///   as Graphics Gems does: scale (-1, 1, 1) reads back as scale (1, -1, -1) with a half turn
///   about x. Recomposition gives the same matrix.
public struct DecomposedTransform: Hashable, Sendable {
    public var translationX: Double, translationY: Double, translationZ: Double
    public var scaleX: Double, scaleY: Double, scaleZ: Double
    public var skewXY: Double, skewXZ: Double, skewYZ: Double
    public var perspectiveX: Double, perspectiveY: Double, perspectiveZ: Double, perspectiveW: Double
    public var quaternionX: Double, quaternionY: Double, quaternionZ: Double, quaternionW: Double

    public init(translationX: Double = 0, translationY: Double = 0, translationZ: Double = 0,
                scaleX: Double = 1, scaleY: Double = 1, scaleZ: Double = 1,
                skewXY: Double = 0, skewXZ: Double = 0, skewYZ: Double = 0,
                perspectiveX: Double = 0, perspectiveY: Double = 0, perspectiveZ: Double = 0, perspectiveW: Double = 1,
                quaternionX: Double = 0, quaternionY: Double = 0, quaternionZ: Double = 0, quaternionW: Double = 1) {
        self.translationX = translationX; self.translationY = translationY; self.translationZ = translationZ
        self.scaleX = scaleX; self.scaleY = scaleY; self.scaleZ = scaleZ
        self.skewXY = skewXY; self.skewXZ = skewXZ; self.skewYZ = skewYZ
        self.perspectiveX = perspectiveX; self.perspectiveY = perspectiveY
        self.perspectiveZ = perspectiveZ; self.perspectiveW = perspectiveW
        self.quaternionX = quaternionX; self.quaternionY = quaternionY
        self.quaternionZ = quaternionZ; self.quaternionW = quaternionW
    }

    /// The decomposition of the identity matrix.
    public static let identity = DecomposedTransform()

    /// The matrix these parts describe (the quaternion is normalized first; a zero quaternion
    /// counts as no rotation).
    public func recomposed() -> Transform3D {
        let r = Quaternion(x: quaternionX, y: quaternionY, z: quaternionZ, w: quaternionW).normalized.rotationRows
        // Upper 3×3 L = Scale · Skew · Rotation: row i = scale_i · Σ_j skew_ij · u_j.
        let l0 = scaleX * r.0
        let l1 = scaleY * (skewXY * r.0 + r.1)
        let l2 = scaleZ * (skewXZ * r.0 + skewYZ * r.1 + r.2)
        let t = SIMD3(translationX, translationY, translationZ)
        let p = SIMD3(perspectiveX, perspectiveY, perspectiveZ)
        // L · T · P: rows 1–3 are (L_i, L_i·p); row 4 is (t, t·p + w).
        return Transform3D(
            m11: l0.x, m12: l0.y, m13: l0.z, m14: dot(l0, p),
            m21: l1.x, m22: l1.y, m23: l1.z, m24: dot(l1, p),
            m31: l2.x, m32: l2.y, m33: l2.z, m34: dot(l2, p),
            m41: t.x, m42: t.y, m43: t.z, m44: dot(t, p) + perspectiveW)
    }

    /// The parts at `fraction` of the way from `a` to `b`: translation, scale, skew and perspective
    /// linearly, the rotation by spherical interpolation along the shorter arc. Fractions
    /// outside 0…1 extrapolate (the slerp continues round the same great circle).
    public static func interpolate(_ a: DecomposedTransform, _ b: DecomposedTransform, fraction f: Double) -> DecomposedTransform {
        func mix(_ x: Double, _ y: Double) -> Double { x + (y - x) * f }
        let q = Quaternion.slerp(
            Quaternion(x: a.quaternionX, y: a.quaternionY, z: a.quaternionZ, w: a.quaternionW).normalized,
            Quaternion(x: b.quaternionX, y: b.quaternionY, z: b.quaternionZ, w: b.quaternionW).normalized, f)
        return DecomposedTransform(
            translationX: mix(a.translationX, b.translationX), translationY: mix(a.translationY, b.translationY),
            translationZ: mix(a.translationZ, b.translationZ),
            scaleX: mix(a.scaleX, b.scaleX), scaleY: mix(a.scaleY, b.scaleY), scaleZ: mix(a.scaleZ, b.scaleZ),
            skewXY: mix(a.skewXY, b.skewXY), skewXZ: mix(a.skewXZ, b.skewXZ), skewYZ: mix(a.skewYZ, b.skewYZ),
            perspectiveX: mix(a.perspectiveX, b.perspectiveX), perspectiveY: mix(a.perspectiveY, b.perspectiveY),
            perspectiveZ: mix(a.perspectiveZ, b.perspectiveZ), perspectiveW: mix(a.perspectiveW, b.perspectiveW),
            quaternionX: q.x, quaternionY: q.y, quaternionZ: q.z, quaternionW: q.w)
    }

    /// Euler angles (radians) of the rotation: the rotation equals a turn by `x` about the x axis,
    /// then by `y` about y, then by `z` about z (`Transform3D(rotationAngle: x, x: 1, y: 0, z: 0)
    /// .concatenating(…y…).concatenating(…z…)`). x and z are in (-π, π], y in [-π/2, π/2];
    /// at y = ±π/2 (gimbal lock) x is 0.
    public var rotationAngles: (x: Double, y: Double, z: Double) {
        let r = Quaternion(x: quaternionX, y: quaternionY, z: quaternionZ, w: quaternionW).normalized.rotationRows
        // Column-vector form C = Rz·Ry·Rx; the rows here are its transpose, C[i][j] = r_j[i].
        let sinY = -r.0.z   // C[2][0] = -sin y
        var x, y, z: Double
        if abs(sinY) >= 1 - 1e-12 {
            y = sinY > 0 ? Double.pi / 2 : -Double.pi / 2
            x = 0
            z = atan2(-r.1.x, r.1.y)   // -C[0][1], C[1][1]
        } else {
            y = asin(sinY)
            x = atan2(r.1.z, r.2.z)    // C[2][1], C[2][2]
            z = atan2(r.0.y, r.0.x)    // C[1][0], C[0][0]
        }
        if x == -Double.pi { x = Double.pi }
        if z == -Double.pi { z = Double.pi }
        if y == 0 { y = 0 }   // no negative zero
        return (x, y, z)
    }

    /// The same parts with the rotation replaced by Euler angles (see `rotationAngles`).
    public func settingRotationAngles(x: Double, y: Double, z: Double) -> DecomposedTransform {
        let q = Quaternion(angle: z, axis: 2) * Quaternion(angle: y, axis: 1) * Quaternion(angle: x, axis: 0)
        var d = self
        d.quaternionX = q.x; d.quaternionY = q.y; d.quaternionZ = q.z; d.quaternionW = q.w
        return d
    }
}

extension Transform3D {
    /// The parts of this matrix (see `DecomposedTransform`), or nil when the matrix cannot be
    /// decomposed: m44 == 0, a singular upper 3×3 (for example a scale of 0), or a
    /// non-finite element.
    public func decomposed() -> DecomposedTransform? {
        guard isFinite, m44 != 0 else { return nil }
        let n = 1 / m44
        var r0 = SIMD3(m11, m12, m13) * n
        var r1 = SIMD3(m21, m22, m23) * n
        var r2 = SIMD3(m31, m32, m33) * n
        let t = SIMD3(m41, m42, m43) * n
        let pc = SIMD3(m14, m24, m34) * n   // the fourth column, rows 1–3

        // Perspective: solve L·p = pc (L = upper 3×3, rows r0…r2); w = m44 - t·p.
        let c12 = cross(r1, r2), c20 = cross(r2, r0), c01 = cross(r0, r1)
        let det = dot(r0, c12)
        guard det != 0, det.isFinite else { return nil }
        var p = SIMD3<Double>(repeating: 0)
        if pc != SIMD3(repeating: 0) {
            p = (pc.x * c12 + pc.y * c20 + pc.z * c01) / det
        }
        let w = 1 - dot(t, p)

        // Scale and skew by Gram–Schmidt on the rows.
        var sx = length(r0); r0 /= sx
        var kxy = dot(r0, r1); r1 -= kxy * r0
        var sy = length(r1); r1 /= sy; kxy /= sy
        var kxz = dot(r0, r2); r2 -= kxz * r0
        var kyz = dot(r1, r2); r2 -= kyz * r1
        var sz = length(r2); r2 /= sz; kxz /= sz; kyz /= sz
        // A mirror: negate the scales and the rows so the rows form a rotation.
        if dot(r0, cross(r1, r2)) < 0 {
            sx = -sx; sy = -sy; sz = -sz
            r0 = -r0; r1 = -r1; r2 = -r2
        }
        let q = Quaternion(rotationRows: (r0, r1, r2))
        let d = DecomposedTransform(
            translationX: t.x, translationY: t.y, translationZ: t.z,
            scaleX: sx, scaleY: sy, scaleZ: sz,
            skewXY: kxy, skewXZ: kxz, skewYZ: kyz,
            perspectiveX: p.x, perspectiveY: p.y, perspectiveZ: p.z, perspectiveW: w,
            quaternionX: q.x, quaternionY: q.y, quaternionZ: q.z, quaternionW: q.w)
        // x·0 is 0 for finite x and NaN for ±∞ or NaN, so this is 0 exactly when every part is finite.
        let parts = SIMD16(t.x, t.y, t.z, sx, sy, sz, kxy, kxz, kyz, p.x, p.y, p.z, w, q.x, q.y, q.z + q.w)
        let probe = (parts * 0).sum()
        return probe == 0 ? d : nil
    }

    /// Interpolates by decomposition, as Core Animation interpolates transform matrices:
    /// translation, scale, skew and perspective linearly, the rotation by quaternion slerp the
    /// short way. A fraction outside 0…1 extrapolates (linearly; the slerp continues past the
    /// end). When either matrix cannot be decomposed (see `decomposed()`), the result is `from`
    /// for fraction < 0.5 and `to` otherwise. A NaN fraction gives `from`.
    public static func interpolate(from: Transform3D, to: Transform3D, fraction: Double) -> Transform3D {
        guard fraction.isFinite else { return fraction > 0 ? to : from }
        if fraction == 0 { return from }
        if fraction == 1 { return to }
        guard let a = from.decomposed(), let b = to.decomposed() else { return fraction < 0.5 ? from : to }
        return DecomposedTransform.interpolate(a, b, fraction: fraction).recomposed()
    }

    /// Euler angles (radians) of the rotation part, as Core Animation's `transform.rotation.x/.y/.z`
    /// read them: the rotation equals turning by x about the x axis, then by y about y, then by
    /// z about z. For a pure rotation about z by a, z == a within (-π, π]. An undecomposable
    /// matrix reads (0, 0, 0).
    public var rotationAngles: (x: Double, y: Double, z: Double) {
        (decomposed() ?? .identity).rotationAngles
    }

    /// The decomposed translation's x and y (Core Animation's `transform.translation`, a size).
    public var translationXY: (x: Double, y: Double) {
        let d = decomposed() ?? looseDecomposition
        return (d.translationX, d.translationY)
    }

    /// One component, by Core Animation's transform key paths: "rotation.x", "rotation.y",
    /// "rotation.z", "rotation" (= rotation.z), "scale.x", "scale.y", "scale.z", "scale" (the
    /// average of the three, as Core Animation documents), "translation.x", "translation.y",
    /// "translation.z". Nil for any other key path.
    ///
    /// An undecomposable matrix (say a scale of 0) still reads: translation as m41…m43 / m44
    /// (m41…m43 when m44 == 0), scale as the lengths of the first three rows (/ |m44|),
    /// rotation as 0.
    public func value(forKeyPath keyPath: String) -> Double? {
        TransformComponent(rawValue: keyPath).map { value(for: $0) }
    }

    /// One component (`value(forKeyPath:)`, its key path parsed).
    package func value(for component: TransformComponent) -> Double {
        let d = decomposed() ?? looseDecomposition
        switch component {
        case .rotationX: return d.rotationAngles.x
        case .rotationY: return d.rotationAngles.y
        case .rotationZ, .rotation: return d.rotationAngles.z
        case .scaleX: return d.scaleX
        case .scaleY: return d.scaleY
        case .scaleZ: return d.scaleZ
        case .scale: return (d.scaleX + d.scaleY + d.scaleZ) / 3
        case .translationX: return d.translationX
        case .translationY: return d.translationY
        case .translationZ: return d.translationZ
        }
    }

    /// This transform with one component (key paths as for `value(forKeyPath:)`) replaced:
    /// decompose, replace, recompose. For "rotation.*" the Euler angles (see `rotationAngles`)
    /// are read, one replaced, and the rotation rebuilt from them; "scale" sets x, y and z.
    /// Nil for an unknown key path. An undecomposable matrix is replaced by the identity first.
    public func setting(_ value: Double, forKeyPath keyPath: String) -> Transform3D? {
        TransformComponent(rawValue: keyPath).map { setting(value, for: $0) }
    }

    /// This transform with one component replaced (`setting(_:forKeyPath:)`, its key path
    /// parsed: an animation of a component sets it every frame).
    package func setting(_ value: Double, for component: TransformComponent) -> Transform3D {
        var d = decomposed() ?? .identity
        switch component {
        case .rotationX, .rotationY, .rotationZ, .rotation:
            var (x, y, z) = d.rotationAngles
            switch component {
            case .rotationX: x = value
            case .rotationY: y = value
            default: z = value
            }
            d = d.settingRotationAngles(x: x, y: y, z: z)
        case .scaleX: d.scaleX = value
        case .scaleY: d.scaleY = value
        case .scaleZ: d.scaleZ = value
        case .scale: d.scaleX = value; d.scaleY = value; d.scaleZ = value
        case .translationX: d.translationX = value
        case .translationY: d.translationY = value
        case .translationZ: d.translationZ = value
        }
        return d.recomposed()
    }

    /// What can be read from a matrix `decomposed()` refuses: translation and row lengths.
    private var looseDecomposition: DecomposedTransform {
        let n = m44 != 0 && m44.isFinite ? 1 / m44 : 1
        func len(_ a: Double, _ b: Double, _ c: Double) -> Double { (a * a + b * b + c * c).squareRoot() * abs(n) }
        return DecomposedTransform(
            translationX: m41 * n, translationY: m42 * n, translationZ: m43 * n,
            scaleX: len(m11, m12, m13), scaleY: len(m21, m22, m23), scaleZ: len(m31, m32, m33))
    }
}

/// A component of a transform by Core Animation's key paths (`Transform3D.value(forKeyPath:)`).
package enum TransformComponent: String, Sendable {
    case rotationX = "rotation.x", rotationY = "rotation.y", rotationZ = "rotation.z", rotation
    case scaleX = "scale.x", scaleY = "scale.y", scaleZ = "scale.z", scale
    case translationX = "translation.x", translationY = "translation.y", translationZ = "translation.z"
}

// MARK: - Small vector and quaternion helpers

private func dot(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { (a * b).sum() }
private func length(_ a: SIMD3<Double>) -> Double { dot(a, a).squareRoot() }
private func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

/// A rotation quaternion (x, y, z, w); rotates like `Transform3D(rotationAngle:x:y:z:)`.
private struct Quaternion {
    var x, y, z, w: Double

    init(x: Double, y: Double, z: Double, w: Double) { self.x = x; self.y = y; self.z = z; self.w = w }

    /// A rotation by `angle` about the coordinate axis 0 (x), 1 (y) or 2 (z).
    init(angle: Double, axis: Int) {
        let s = sin(angle / 2)
        self.init(x: axis == 0 ? s : 0, y: axis == 1 ? s : 0, z: axis == 2 ? s : 0, w: cos(angle / 2))
    }

    /// From the rows of a rotation matrix in `Transform3D`'s row-vector form (r_ij = m(i+1)(j+1)).
    /// Shepperd's method: the largest of w, x, y, z comes from a square root, the others from
    /// off-diagonal sums and differences, so none loses precision near zero.
    init(rotationRows r: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)) {
        let (r00, r01, r02) = (r.0.x, r.0.y, r.0.z)
        let (r10, r11, r12) = (r.1.x, r.1.y, r.1.z)
        let (r20, r21, r22) = (r.2.x, r.2.y, r.2.z)
        let trace = r00 + r11 + r22
        if trace >= r00 && trace >= r11 && trace >= r22 {
            let s = 2 * (1 + trace).squareRoot()   // 4w
            self.init(x: (r12 - r21) / s, y: (r20 - r02) / s, z: (r01 - r10) / s, w: s / 4)
        } else if r00 >= r11 && r00 >= r22 {
            let s = 2 * (1 + r00 - r11 - r22).squareRoot()   // 4x
            self.init(x: s / 4, y: (r01 + r10) / s, z: (r02 + r20) / s, w: (r12 - r21) / s)
        } else if r11 >= r22 {
            let s = 2 * (1 + r11 - r00 - r22).squareRoot()   // 4y
            self.init(x: (r01 + r10) / s, y: s / 4, z: (r12 + r21) / s, w: (r20 - r02) / s)
        } else {
            let s = 2 * (1 + r22 - r00 - r11).squareRoot()   // 4z
            self.init(x: (r02 + r20) / s, y: (r12 + r21) / s, z: s / 4, w: (r01 - r10) / s)
        }
        self = normalized
    }

    var norm: Double { (x * x + y * y + z * z + w * w).squareRoot() }

    /// Unit length; a zero (or non-finite) quaternion becomes the identity rotation.
    var normalized: Quaternion {
        let n = norm
        guard n > 0, n.isFinite else { return Quaternion(x: 0, y: 0, z: 0, w: 1) }
        return Quaternion(x: x / n, y: y / n, z: z / n, w: w / n)
    }

    /// The rotation's matrix rows in `Transform3D`'s row-vector form.
    var rotationRows: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>) {
        (SIMD3(1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w)),
         SIMD3(2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w)),
         SIMD3(2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)))
    }

    /// Hamilton product: `a * b` rotates by b first, then a (column-vector convention).
    static func * (a: Quaternion, b: Quaternion) -> Quaternion {
        Quaternion(x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                   y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                   z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                   w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z)
    }

    /// Spherical interpolation of unit quaternions along the shorter arc; `f` may lie outside 0…1.
    static func slerp(_ a: Quaternion, _ b0: Quaternion, _ f: Double) -> Quaternion {
        var b = b0
        if a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w < 0 { b = Quaternion(x: -b.x, y: -b.y, z: -b.z, w: -b.w) }
        // The angle between them, accurately also when small: θ = 2·atan2(|a - b|, |a + b|).
        let diff = Quaternion(x: a.x - b.x, y: a.y - b.y, z: a.z - b.z, w: a.w - b.w).norm
        let sum = Quaternion(x: a.x + b.x, y: a.y + b.y, z: a.z + b.z, w: a.w + b.w).norm
        let theta = 2 * atan2(diff, sum)
        let wa, wb: Double
        if theta < 1e-12 {
            (wa, wb) = (1 - f, f)
        } else {
            let s = sin(theta)
            (wa, wb) = (sin((1 - f) * theta) / s, sin(f * theta) / s)
        }
        return Quaternion(x: wa * a.x + wb * b.x, y: wa * a.y + wb * b.y,
                          z: wa * a.z + wb * b.z, w: wa * a.w + wb * b.w).normalized
    }
}

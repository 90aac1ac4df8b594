import Glibc

/// Which corners of a layer `cornerRadius` rounds (`CACornerMask`). Corners are named in
/// the layer's bounds space: with Lamina's y-down points, `layerMinXMinYCorner` is the
/// top-left corner of the bounds as drawn under an identity transform.
public struct CornerMask: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0b1111 }

    public static let layerMinXMinYCorner = CornerMask(rawValue: 1 << 0)
    public static let layerMaxXMinYCorner = CornerMask(rawValue: 1 << 1)
    public static let layerMinXMaxYCorner = CornerMask(rawValue: 1 << 2)
    public static let layerMaxXMaxYCorner = CornerMask(rawValue: 1 << 3)
    /// The four corners (the default).
    public static let all: CornerMask = [.layerMinXMinYCorner, .layerMaxXMinYCorner, .layerMinXMaxYCorner, .layerMaxXMaxYCorner]

    /// The same corners of the rectangle mirrored left to right (and/or top to bottom): the
    /// corners of a rectangle given with a negative width (height).
    public func mirrored(x: Bool, y: Bool) -> CornerMask {
        var bits = rawValue
        if x { bits = ((bits & 0b0101) << 1) | ((bits & 0b1010) >> 1) }
        if y { bits = ((bits & 0b0011) << 2) | ((bits & 0b1100) >> 2) }
        return CornerMask(rawValue: bits)
    }
}

/// The curve of a layer's rounded corners (`CALayerCornerCurve`).
public enum CornerCurve: String, Sendable, Hashable, CaseIterable {
    /// A quarter circle of `cornerRadius` (the default).
    case circular
    /// A curvature-continuous corner: it leaves each edge further from the corner
    /// (`continuousExtent` × the radius) with zero curvature, so the straight edge flows
    /// into it without the kink in curvature a quarter circle has, and crosses the corner's
    /// diagonal where the circular corner does. Lamina draws it analytically as a
    /// superellipse (exponent `continuousExponent`) over that extent.
    case continuous

    /// How far along each edge a continuous corner reaches, in corner radii.
    public static let continuousExtent = 1.528665
    /// The superellipse exponent of a continuous corner: the curve through the circular
    /// corner's point on the diagonal (r(1 − 1/√2) in from each edge) over `continuousExtent`.
    public static let continuousExponent = 3.258816
}

/// A rectangle's corner shape: the radius, which corners it rounds and their curve.
public struct CornerShape: Sendable, Hashable, CustomStringConvertible {
    public var radius: Double
    public var corners: CornerMask
    public var curve: CornerCurve

    public init(radius: Double, corners: CornerMask = .all, curve: CornerCurve = .circular) {
        self.radius = radius; self.corners = corners; self.curve = curve
    }

    /// Square corners.
    public static let square = CornerShape(radius: 0)

    /// Some corner is rounded (a positive radius and at least one corner masked).
    public var isRounded: Bool { radius > 0 && !corners.isEmpty }
    /// Four quarter circles of one radius, or square corners: the shape analytic shadows
    /// and the scissor fast paths know.
    public var isUniformCircular: Bool { !isRounded || (corners == .all && curve == .circular) }

    /// The radius a corner is drawn with, at most half the shorter side of `rect` (the
    /// clamp Core Animation and the shaders apply) — for continuous corners, the extent
    /// along the edges is clamped to that instead.
    public func radius(of corner: CornerMask, in size: Size) -> Double {
        guard corners.contains(corner), radius > 0 else { return 0 }
        let half = min(abs(size.width), abs(size.height)) / 2
        return curve == .continuous ? min(radius * CornerCurve.continuousExtent, half) / CornerCurve.continuousExtent
                                    : min(radius, half)
    }

    /// Whether `p` (points of `rect`'s space) lies inside the rectangle with these corners
    /// (the exact shape the shaders antialias).
    public func contains(_ p: Point, in rect: Rect) -> Bool {
        signedDistance(to: p, in: rect) <= 0
    }

    /// The signed distance (points; negative inside) from `p` to the edge of `rect` with
    /// these corners: exact for circular corners, the superellipse's first-order
    /// distance for continuous ones. The shader `batch-rrect.frag` computes the same.
    public func signedDistance(to p: Point, in rect: Rect) -> Double {
        let r = rect.standardized
        let half = (x: r.width / 2, y: r.height / 2)
        let q = (x: p.x - r.midX, y: p.y - r.midY)
        let corner: CornerMask = q.x < 0 ? (q.y < 0 ? .layerMinXMinYCorner : .layerMinXMaxYCorner)
                                         : (q.y < 0 ? .layerMaxXMinYCorner : .layerMaxXMaxYCorner)
        let a = (x: abs(q.x), y: abs(q.y))
        let radius = self.radius(of: corner, in: r.size)
        guard radius > 0 else { return max(a.x - half.x, a.y - half.y) }
        if curve == .circular {
            let c = (x: a.x - half.x + radius, y: a.y - half.y + radius)
            let outside = (max(c.x, 0) * max(c.x, 0) + max(c.y, 0) * max(c.y, 0)).squareRoot()
            return outside + min(max(c.x, c.y), 0) - radius
        }
        let e = radius * CornerCurve.continuousExtent, n = CornerCurve.continuousExponent
        let u = (x: (a.x - half.x + e) / e, y: (a.y - half.y + e) / e)
        let c = (x: max(u.x, 0), y: max(u.y, 0))
        guard c.x > 0 || c.y > 0 else { return (max(u.x, u.y) - 1) * e }
        let norm = Glibc.pow(Glibc.pow(c.x, n) + Glibc.pow(c.y, n), 1 / n)
        let gradient = (Glibc.pow(c.x / norm, 2 * n - 2) + Glibc.pow(c.y / norm, 2 * n - 2)).squareRoot()
        return (norm - 1) / gradient * e
    }

    public var description: String {
        guard isRounded else { return "square" }
        var s = "r\(radius)"
        if corners != .all { s += " corners 0b" + String(corners.rawValue, radix: 2) }
        if curve == .continuous { s += " continuous" }
        return s
    }
}

import FoundationEssentials
import Glibc

/// A cubic Bézier easing curve from (0, 0) to (1, 1), as `CAMediaTimingFunction`: x is the
/// fraction of time, y the fraction of progress. The control points' x are clamped to 0…1
/// (so the curve is a function of x); their y may lie anywhere (overshoot).
public struct TimingFunction: Hashable, Sendable, CustomStringConvertible {
    /// The inner control points: the curve runs (0,0), (c1x,c1y), (c2x,c2y), (1,1).
    public let c1x: Double, c1y: Double, c2x: Double, c2y: Double

    /// x is clamped to 0…1; a NaN coordinate (or an infinite y) is replaced by `linear`'s
    /// (c1 = (0, 0), c2 = (1, 1)).
    public init(controlPoints c1x: Double, _ c1y: Double, _ c2x: Double, _ c2y: Double) {
        func x(_ v: Double, _ fallback: Double) -> Double { v.isNaN ? fallback : min(max(v, 0), 1) }
        func y(_ v: Double, _ fallback: Double) -> Double { v.isFinite ? v : fallback }
        self.c1x = x(c1x, 0); self.c1y = y(c1y, 0)
        self.c2x = x(c2x, 1); self.c2y = y(c2y, 1)
    }

    public static let linear = TimingFunction(controlPoints: 0, 0, 1, 1)
    public static let easeIn = TimingFunction(controlPoints: 0.42, 0, 1, 1)
    public static let easeOut = TimingFunction(controlPoints: 0, 0, 0.58, 1)
    public static let easeInEaseOut = TimingFunction(controlPoints: 0.42, 0, 0.58, 1)
    /// `CAMediaTimingFunctionName.default`: what implicit animations use.
    public static let `default` = TimingFunction(controlPoints: 0.25, 0.1, 0.25, 1)

    public var description: String {
        switch self {
        case .linear: return "linear"
        case .easeIn: return "easeIn"
        case .easeOut: return "easeOut"
        case .easeInEaseOut: return "easeInEaseOut"
        case .default: return "default"
        default: return "TimingFunction(\(c1x), \(c1y), \(c2x), \(c2y))"
        }
    }

    /// Control point 0…3 as (x, y), as `CAMediaTimingFunction.getControlPoint(at:)`:
    /// 0 is (0, 0), 3 is (1, 1). An index outside 0…3 gives (0, 0).
    public func controlPoint(at index: Int) -> (x: Double, y: Double) {
        switch index {
        case 1: return (c1x, c1y)
        case 2: return (c2x, c2y)
        case 3: return (1, 1)
        default: return (0, 0)
        }
    }

    /// Progress y at time fraction x. Inside 0…1 it solves x(t) = x for the curve parameter t
    /// (Newton–Raphson from t = x, falling back to bisection) to within `epsilon` in x
    /// (Core Animation and WebKit use 1/(200·duration)), then returns y(t); x = 0 and x = 1
    /// give exactly 0 and 1. Outside 0…1 the curve is **extrapolated** along its end tangents
    /// (as WebKit does), so an overshooting animation-level fraction keeps moving; where an end
    /// tangent is vertical, the extension is flat (y stays 0 or 1). A curve whose control points
    /// lie on the diagonal (such as `linear`) returns x itself. NaN gives NaN.
    public func value(at x: Double, epsilon: Double = 1e-7) -> Double {
        if x.isNaN { return x }
        if isLinear { return x }
        if x <= 0 { return x == 0 ? 0 : Self.flat(startSlope) * x }
        if x >= 1 { return x == 1 ? 1 : 1 + Self.flat(endSlope) * (x - 1) }
        return sampleY(solve(x, epsilon: epsilon))
    }

    /// dy/dx at x: inside 0…1 the curve's slope (at 0 and 1 the limit from inside; ±infinity
    /// where the curve is vertical); outside, the slope of the straight extension `value(at:)` uses.
    public func slope(at x: Double) -> Double {
        if x.isNaN { return x }
        if isLinear { return 1 }
        if x < 0 { return Self.flat(startSlope) }
        if x > 1 { return Self.flat(endSlope) }
        if x == 0 { return startSlope }
        if x == 1 { return endSlope }
        let t = solve(x, epsilon: 1e-12)
        let dx = sampleDX(t), dy = sampleDY(t)
        if dx != 0 { return dy / dx }
        if dy != 0 { return dy > 0 ? .infinity : -.infinity }
        // Both derivatives vanish (a cusp of the parameterisation): the ratio of second derivatives.
        let ddx = 6 * ax * t + 2 * bx, ddy = 6 * ay * t + 2 * by
        return ddx != 0 ? ddy / ddx : 1
    }

    // MARK: - The curve

    private var isLinear: Bool { c1x == c1y && c2x == c2y }

    // x(t) = ((ax·t + bx)·t + cx)·t, likewise y.
    private var cx: Double { 3 * c1x }
    private var bx: Double { 3 * (c2x - c1x) - cx }
    private var ax: Double { 1 - cx - bx }
    private var cy: Double { 3 * c1y }
    private var by: Double { 3 * (c2y - c1y) - cy }
    private var ay: Double { 1 - cy - by }

    private func sampleX(_ t: Double) -> Double { ((ax * t + bx) * t + cx) * t }
    private func sampleY(_ t: Double) -> Double { ((ay * t + by) * t + cy) * t }
    private func sampleDX(_ t: Double) -> Double { (3 * ax * t + 2 * bx) * t + cx }
    private func sampleDY(_ t: Double) -> Double { (3 * ay * t + 2 * by) * t + cy }

    /// The parameter t in 0…1 with |x(t) - x| < epsilon (x(t) is nondecreasing because the
    /// control points' x lie in 0…1).
    private func solve(_ x: Double, epsilon: Double) -> Double {
        let eps = epsilon > 0 ? min(epsilon, 0.5) : 1e-7
        var t = x
        for _ in 0..<8 {
            let err = sampleX(t) - x
            if abs(err) < eps { return t }
            let d = sampleDX(t)
            if abs(d) < 1e-6 { break }
            t -= err / d
            if !(0...1).contains(t) { break }
        }
        var lo = 0.0, hi = 1.0
        t = x
        for _ in 0..<100 {
            let v = sampleX(t)
            if abs(v - x) < eps { return t }
            if v < x { lo = t } else { hi = t }
            t = (lo + hi) / 2
        }
        return t
    }

    /// Slope of the tangent at (0,0): towards the first control point that differs from it.
    private var startSlope: Double {
        for (px, py) in [(c1x, c1y), (c2x, c2y), (1.0, 1.0)] where px != 0 || py != 0 {
            return px > 0 ? py / px : (py > 0 ? .infinity : -.infinity)
        }
        return 1
    }

    /// Slope of the tangent at (1,1): from the last control point that differs from it.
    private var endSlope: Double {
        for (px, py) in [(c2x, c2y), (c1x, c1y), (0.0, 0.0)] where px != 1 || py != 1 {
            return px < 1 ? (1 - py) / (1 - px) : (py < 1 ? .infinity : -.infinity)
        }
        return 1
    }

    /// A vertical tangent extends flat.
    private static func flat(_ slope: Double) -> Double { slope.isFinite ? slope : 0 }
}

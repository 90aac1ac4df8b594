import FoundationEssentials
import Glibc

/// How a keyframe animation fills the time between its values (`CAAnimationCalculationMode`).
public enum CalculationMode: String, Sendable, Hashable, CaseIterable {
    /// Straight lines between values at their key times.
    case linear
    /// Each value held until the next key time; no interpolation.
    case discrete
    /// Straight lines, timed for constant speed (key times and timing functions ignored).
    case paced
    /// A Kochanek–Bartels (by default Catmull-Rom) spline through the values at their key times.
    case cubic
    /// The cubic spline, timed as `paced` (key times and timing functions ignored).
    case cubicPaced
}

/// The calculation modes of `CAKeyframeAnimation`, on values given as component vectors
/// (the caller turns points, colours, transforms … into components and back).
public enum KeyframeMath {
    /// The animation's value at `progress` (0…1, after the animation-level timing function).
    ///
    /// - values: at least one vector; vectors of unequal length are cut to the shortest.
    ///   No values gives []; one value gives it.
    /// - keyTimes (linear, cubic): one per value, nondecreasing from 0 to 1 (equal neighbours
    ///   make a jump). For discrete, n or n + 1: value i is shown from keyTimes[i] until
    ///   keyTimes[i + 1] and the last from keyTimes[n - 1] on (with n, only at 1 when it is 1).
    ///   Nil or invalid (wrong count, decreasing, non-finite, first ≠ 0 or last ≠ 1, within
    ///   1e-9) means evenly spaced: i/(n-1) for linear and cubic, i/n for discrete (each value
    ///   shown for 1/n of the time). Ignored for paced and cubicPaced.
    /// - timingFunctions (linear, cubic): timingFunctions[i] eases the fraction inside segment i
    ///   (values i → i+1); segments without one (nil, or an array shorter than n - 1) are linear.
    ///   Ignored for discrete, paced and cubicPaced.
    /// - paced, cubicPaced: segment times proportional to the Euclidean distance between
    ///   consecutive vectors (even spacing when every distance is 0). cubicPaced measures the
    ///   chords, not the curve's arc length, so its speed is only approximately constant.
    /// - tension, continuity, bias (cubic, cubicPaced): Kochanek–Bartels parameters, one per
    ///   value; nil or missing entries are 0, which gives a Catmull-Rom spline. The end values
    ///   act as their own missing neighbours. Tangents are scaled for unequal segment times so that,
    ///   with continuity 0 (and no timing functions), the curve's velocity is continuous in time.
    /// - progress outside 0…1 extrapolates the first or last segment (its line, its cubic, and its
    ///   timing function's straight extension); discrete holds the first or last value.
    ///   A NaN progress counts as 0.
    public static func evaluate(values: [[Double]], keyTimes: [Double]?, timingFunctions: [TimingFunction]?,
                                mode: CalculationMode, tension: [Double]?, continuity: [Double]?, bias: [Double]?,
                                progress: Double) -> [Double] {
        guard let first = values.first else { return [] }
        let n = values.count
        let dim = values.lazy.map { $0.count }.min() ?? 0
        let points = values.allSatisfy({ $0.count == dim }) ? values : values.map { Array($0.prefix(dim)) }
        if n == 1 { return first }
        let p = progress.isNaN ? 0 : progress

        let times: [Double]
        switch mode {
        case .discrete:
            let k = validKeyTimes(keyTimes, counts: [n, n + 1]) ?? (0...n).map { Double($0) / Double(n) }
            return points[lastIndex(in: k, atOrBefore: p, upTo: n - 1)]
        case .linear, .cubic:
            times = validKeyTimes(keyTimes, counts: [n]) ?? evenTimes(n)
        case .paced, .cubicPaced:
            times = pacedTimes(points)
        }
        return along(points, dim: dim, times: times, timingFunctions: mode == .linear || mode == .cubic ? timingFunctions : nil,
                     cubic: mode == .cubic || mode == .cubicPaced, tension: tension, continuity: continuity, bias: bias, progress: p)
    }

    /// `evaluate` once its inputs are checked: at least two `points`, each `dim` long, valid
    /// `times` (one per point), `progress` not NaN; straight lines or the cubic spline. (An
    /// animation evaluated every frame checks its values and times once: `KeyframeData`.)
    static func along(_ points: [[Double]], dim: Int, times: [Double], timingFunctions: [TimingFunction]?, cubic: Bool,
                      tension: [Double]?, continuity: [Double]?, bias: [Double]?, progress p: Double) -> [Double] {
        let point = CurvePoint(points, times: times, timingFunctions: timingFunctions, cubic: cubic,
                               tension: tension, continuity: continuity, bias: bias, progress: p)
        // (The spline bound once, not copied — its arrays retained — for each component.)
        guard let c = point.spline else { return (0..<dim).map(point.component) }
        return (0..<dim).map { c.value($0, point.a, point.b) }
    }

    /// `along` for one-number keyframes (an opacity, a rotation, a scale): the same value,
    /// without an array a frame.
    static func alongScalar(_ points: [[Double]], times: [Double], timingFunctions: [TimingFunction]?, cubic: Bool,
                            tension: [Double]?, continuity: [Double]?, bias: [Double]?, progress p: Double) -> Double {
        CurvePoint(points, times: times, timingFunctions: timingFunctions, cubic: cubic,
                   tension: tension, continuity: continuity, bias: bias, progress: p).component(0)
    }

    /// Where `progress` falls on the keyframes' curve: the segment, the fraction along it
    /// and, for the cubic spline, the weights of its tangents; `component(k)` is the value
    /// of the curve's k-th component there.
    private struct CurvePoint {
        let a: [Double], b: [Double], s: Double
        /// Cubic: the neighbouring points and the tangents' weights (nil: straight lines).
        let spline: Spline?

        struct Spline {
            let before: [Double], after: [Double]
            let outPrev, outNext, inPrev, inNext, outScale, inScale: Double
            /// The Hermite basis at the fraction.
            let h00, h10, h01, h11: Double

            func value(_ k: Int, _ a: [Double], _ b: [Double]) -> Double {
                let outTangent = outScale * (outPrev * (a[k] - before[k]) + outNext * (b[k] - a[k]))
                let inTangent = inScale * (inPrev * (b[k] - a[k]) + inNext * (after[k] - b[k]))
                return h00 * a[k] + h10 * outTangent + h01 * b[k] + h11 * inTangent
            }
        }

        init(_ points: [[Double]], times: [Double], timingFunctions: [TimingFunction]?, cubic: Bool,
             tension: [Double]?, continuity: [Double]?, bias: [Double]?, progress p: Double) {
            let n = points.count
            let i = lastIndex(in: times, atOrBefore: p, upTo: n - 2)
            let width = times[i + 1] - times[i]
            var s = width > 0 ? (p - times[i]) / width : (p < times[i] ? 0 : 1)
            if let tf = timingFunctions, i < tf.count {
                s = tf[i].value(at: s)
            }
            self.s = s
            a = points[i]; b = points[i + 1]
            guard cubic else { spline = nil; return }
            func param(_ array: [Double]?, _ j: Int) -> Double {
                guard let array, j < array.count, array[j].isFinite else { return 0 }
                return array[j]
            }
            func point(_ j: Int) -> [Double] { points[min(max(j, 0), n - 1)] }
            func duration(_ j: Int) -> Double { let j = min(max(j, 0), n - 2); return times[j + 1] - times[j] }
            func ratio(_ x: Double, _ y: Double) -> Double { x + y > 0 ? 2 * x / (x + y) : 1 }
            // Outgoing tangent at i and incoming tangent at i + 1 (Kochanek–Bartels), each scaled
            // for the durations of the segments either side.
            let (ti, ci, bi) = (param(tension, i), param(continuity, i), param(bias, i))
            let (tj, cj, bj) = (param(tension, i + 1), param(continuity, i + 1), param(bias, i + 1))
            let s2 = s * s, s3 = s2 * s
            spline = Spline(before: point(i - 1), after: point(i + 2),
                            outPrev: (1 - ti) * (1 + bi) * (1 - ci) / 2, outNext: (1 - ti) * (1 - bi) * (1 + ci) / 2,
                            inPrev: (1 - tj) * (1 + bj) * (1 + cj) / 2, inNext: (1 - tj) * (1 - bj) * (1 - cj) / 2,
                            outScale: ratio(duration(i), duration(i - 1)), inScale: ratio(duration(i), duration(i + 1)),
                            h00: 2 * s3 - 3 * s2 + 1, h10: s3 - 2 * s2 + s, h01: -2 * s3 + 3 * s2, h11: s3 - s2)
        }

        func component(_ k: Int) -> Double {
            guard let c = spline else { return a[k] + (b[k] - a[k]) * s }
            return c.value(k, a, b)
        }
    }

    /// `keyTimes` when its count is one of `counts`, its entries finite and nondecreasing,
    /// the first 0 and the last 1 (within 1e-9); otherwise nil.
    /// The key times `evaluate` uses for `values` in a continuous mode (linear, cubic: the
    /// given ones when valid, else even; paced modes: by distance); nil for discrete. An
    /// animation evaluated every frame works them out once: `evaluate` with these times and
    /// the mode `.linear` (for `.paced`) or `.cubic` (for `.cubicPaced`), without timing
    /// functions for the paced modes, gives the same values.
    static func resolvedTimes(values: [[Double]], keyTimes: [Double]?, mode: CalculationMode) -> [Double]? {
        let n = values.count
        guard n > 1 else { return nil }
        switch mode {
        case .discrete: return nil
        case .linear, .cubic: return validKeyTimes(keyTimes, counts: [n]) ?? evenTimes(n)
        case .paced, .cubicPaced:
            let dim = values.lazy.map { $0.count }.min() ?? 0
            return pacedTimes(values.map { Array($0.prefix(dim)) })
        }
    }

    static func validKeyTimes(_ keyTimes: [Double]?, counts: [Int]) -> [Double]? {
        guard let k = keyTimes, counts.contains(k.count), let f = k.first, let l = k.last,
              abs(f) <= 1e-9, abs(l - 1) <= 1e-9, k.allSatisfy(\.isFinite) else { return nil }
        for j in 1..<k.count where k[j] < k[j - 1] { return nil }
        return k
    }

    /// n times evenly spaced from 0 to 1.
    static func evenTimes(_ n: Int) -> [Double] {
        (0..<n).map { Double($0) / Double(n - 1) }
    }

    /// Times proportional to the cumulative distance along the values (even when the path has
    /// no length or an infinite one).
    static func pacedTimes(_ points: [[Double]]) -> [Double] {
        var cumulative = [0.0]
        for j in 1..<points.count {
            let d = zip(points[j], points[j - 1]).reduce(0.0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }.squareRoot()
            cumulative.append(cumulative[j - 1] + d)
        }
        let total = cumulative[cumulative.count - 1]
        guard total > 0, total.isFinite else { return evenTimes(points.count) }
        var times = cumulative.map { $0 / total }
        times[times.count - 1] = 1
        return times
    }

    /// The largest index j ≤ `upTo` with times[j] ≤ p; 0 when there is none.
    static func lastIndex(in times: [Double], atOrBefore p: Double, upTo limit: Int) -> Int {
        // Binary search (the times never decrease): a keyframe animation of many values is
        // evaluated every frame.
        let top = min(limit, times.count - 1)
        guard top > 0, !p.isNaN, !(times[top] <= p) else { return max(top, 0) }
        guard times[0] <= p else { return 0 }
        var lo = 0, hi = top   // times[lo] ≤ p < times[hi]
        while hi - lo > 1 {
            let m = (lo + hi) / 2
            if times[m] <= p { lo = m } else { hi = m }
        }
        return lo
    }
}

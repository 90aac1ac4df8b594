import FoundationEssentials
import Glibc

/// The analytic damped harmonic oscillator behind `CASpringAnimation`: position x(t) goes from 0
/// at t = 0 towards 1 (rest) under m·x'' = -k·(x - 1) - c·x', with x(0) = 0 and
/// x'(0) = `initialVelocity` (in whole distances per second, as CASpringAnimation's).
/// Under-, critically and over-damped springs are all solved in closed form.
///
/// Invalid parameters are replaced, one by one, by CASpringAnimation's defaults:
/// a mass ≤ 0 or non-finite by 1, a stiffness ≤ 0 or non-finite by 100, a damping < 0 or
/// non-finite by 10, a non-finite initial velocity by 0. The stored properties hold the values
/// used. Parameters so extreme that the derived rates overflow fall back to all four defaults.
/// `value(at:)` and `velocity(at:)` never return NaN.
public struct SpringSolver: Sendable, Hashable {
    public let mass: Double
    public let stiffness: Double
    public let damping: Double
    public let initialVelocity: Double

    public init(mass: Double, stiffness: Double, damping: Double, initialVelocity: Double) {
        var m = mass.isFinite && mass > 0 ? mass : 1
        var k = stiffness.isFinite && stiffness > 0 ? stiffness : 100
        var c = damping.isFinite && damping >= 0 ? damping : 10
        var v = initialVelocity.isFinite ? initialVelocity : 0
        let w0 = (k / m).squareRoot(), alpha = c / (2 * m)
        if !(w0.isFinite && w0 > 0 && alpha.isFinite && (alpha * alpha).isFinite && (w0 * w0).isFinite) {
            (m, k, c, v) = (1, 100, 10, 0)
        }
        self.mass = m; self.stiffness = k; self.damping = c; self.initialVelocity = v
    }

    /// CASpringAnimation's defaults: mass 1, stiffness 100, damping 10, initial velocity 0.
    public static let `default` = SpringSolver(mass: 1, stiffness: 100, damping: 10, initialVelocity: 0)

    /// Position at `t` seconds (0 at t ≤ 0 or NaN; tends to 1).
    public func value(at t: Double) -> Double {
        guard t > 0 else { return 0 }
        let x = 1 + motion.offset(t)
        return x.isFinite ? x : 1
    }

    /// Velocity (distances per second) at `t` seconds (`initialVelocity` at t ≤ 0 or NaN).
    public func velocity(at t: Double) -> Double {
        guard t > 0 else { return initialVelocity }
        let v = motion.velocity(t)
        return v.isFinite ? v : 0
    }

    /// The time after which the spring is at rest: its energy (potential plus kinetic) stays below
    /// that of a spring held still at 0.001 of the distance from rest, i.e.
    /// (x - 1)² + (x' / ω₀)² < 0.001² with ω₀ = √(k/m). So from then on |x - 1| < 0.001 and
    /// |x'| < 0.001·ω₀ (distances per second). The energy never grows (damping only removes it), so
    /// the moment is found exactly: doubling to an upper bound, then bisection to 1e-9 s.
    /// Capped at 1000 s (an undamped spring never settles).
    public var settlingDuration: Double {
        let threshold = 0.001 * 0.001
        let motion = self.motion
        let w0 = motion.omega0
        func moving(_ t: Double) -> Bool {
            let u = motion.offset(t), v = motion.velocity(t) / w0
            return !(u * u + v * v < threshold)
        }
        let cap = 1000.0
        var hi = 1.0 / max(w0, 1e-3)
        while moving(hi) {
            if hi >= cap { return cap }
            hi = min(hi * 2, cap)
        }
        var lo = 0.0   // moving at 0: the offset is -1
        while hi - lo > 1e-9 * max(1, hi) {
            let mid = (lo + hi) / 2
            if moving(mid) { lo = mid } else { hi = mid }
        }
        return hi
    }

    // MARK: - Closed forms for the offset u = x - 1: u'' + 2α·u' + ω₀²·u = 0, u(0) = -1, u'(0) = v₀.

    private var motion: Motion { Motion(mass: mass, stiffness: stiffness, damping: damping, v0: initialVelocity) }

    private struct Motion {
        let omega0: Double   // √(k/m)
        let alpha: Double    // c / 2m = ζ·ω₀
        let kind: Kind
        enum Kind {
            /// u = e^{-αt}(a·cos ωt + b·sin ωt)
            case under(omega: Double, a: Double, b: Double)
            /// u = e^{-αt}(a + b·t)
            case critical(a: Double, b: Double)
            /// u = e^{-αt}(a·cosh γt + b·sinh γt) = p·e^{(γ-α)t} + q·e^{-(γ+α)t}
            case over(gamma: Double, a: Double, b: Double)
        }

        init(mass m: Double, stiffness k: Double, damping c: Double, v0: Double) {
            omega0 = (k / m).squareRoot()
            alpha = c / (2 * m)
            let a = -1.0
            let d = alpha * alpha - omega0 * omega0   // (ζ² - 1)·ω₀²
            if d < 0 {
                let w = (-d).squareRoot()
                kind = .under(omega: w, a: a, b: (v0 + alpha * a) / w)
            } else if d == 0 {
                kind = .critical(a: a, b: v0 + alpha * a)
            } else {
                let g = d.squareRoot()
                kind = .over(gamma: g, a: a, b: (v0 + alpha * a) / g)
            }
        }

        func offset(_ t: Double) -> Double {
            switch kind {
            case let .under(w, a, b):
                return exp(-alpha * t) * (a * cos(w * t) + b * sin(w * t))
            case let .critical(a, b):
                return exp(-alpha * t) * (a + b * t)
            case let .over(g, a, b):
                if g * t < 20 { return exp(-alpha * t) * (a * cosh(g * t) + b * sinh(g * t)) }
                return (a + b) / 2 * exp((g - alpha) * t) + (a - b) / 2 * exp(-(g + alpha) * t)
            }
        }

        func velocity(_ t: Double) -> Double {
            switch kind {
            case let .under(w, a, b):
                return exp(-alpha * t) * ((w * b - alpha * a) * cos(w * t) - (alpha * b + w * a) * sin(w * t))
            case let .critical(a, b):
                return exp(-alpha * t) * (b - alpha * (a + b * t))
            case let .over(g, a, b):
                let ca = g * b - alpha * a, sa = g * a - alpha * b   // coefficients of cosh, sinh
                if g * t < 20 { return exp(-alpha * t) * (ca * cosh(g * t) + sa * sinh(g * t)) }
                return (ca + sa) / 2 * exp((g - alpha) * t) + (ca - sa) / 2 * exp(-(g + alpha) * t)
            }
        }
    }
}

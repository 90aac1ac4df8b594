import Foundation
// PLACEHOLDER (replaced by the anim-math branch).
public struct SpringSolver: Sendable, Hashable {
    let m, k, c, v0: Double
    public init(mass: Double, stiffness: Double, damping: Double, initialVelocity: Double) {
        m = mass; k = stiffness; c = damping; v0 = initialVelocity
    }
    public func value(at t: Double) -> Double {
        let w0 = (k / m).squareRoot(), z = c / (2 * (k * m).squareRoot())
        let wd = w0 * (1 - z * z).squareRoot()
        return 1 - exp(-z * w0 * t) * (cos(wd * t) + (z * w0 - v0) / wd * sin(wd * t))
    }
    public var settlingDuration: Double { 1.5 }
}

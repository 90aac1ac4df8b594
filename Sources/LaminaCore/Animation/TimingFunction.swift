// PLACEHOLDER (replaced by the anim-math branch).
public struct TimingFunction: Hashable, Sendable {
    public let c1x, c1y, c2x, c2y: Double
    public init(controlPoints c1x: Double, _ c1y: Double, _ c2x: Double, _ c2y: Double) {
        self.c1x = c1x; self.c1y = c1y; self.c2x = c2x; self.c2y = c2y
    }
    public static let linear = TimingFunction(controlPoints: 0, 0, 1, 1)
    public static let easeIn = TimingFunction(controlPoints: 0.42, 0, 1, 1)
    public static let easeOut = TimingFunction(controlPoints: 0, 0, 0.58, 1)
    public static let easeInEaseOut = TimingFunction(controlPoints: 0.42, 0, 0.58, 1)
    public static let `default` = TimingFunction(controlPoints: 0.25, 0.1, 0.25, 1)
    public func value(at x: Double, epsilon: Double = 1e-7) -> Double {
        func bx(_ t: Double) -> Double { 3 * c1x * t * (1 - t) * (1 - t) + 3 * c2x * t * t * (1 - t) + t * t * t }
        func by(_ t: Double) -> Double { 3 * c1y * t * (1 - t) * (1 - t) + 3 * c2y * t * t * (1 - t) + t * t * t }
        var lo = 0.0, hi = 1.0
        for _ in 0..<60 { let m = (lo + hi) / 2; if bx(m) < x { lo = m } else { hi = m } }
        return by((lo + hi) / 2)
    }
}

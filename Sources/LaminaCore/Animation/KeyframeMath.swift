// PLACEHOLDER (replaced by the anim-math branch).
public enum CalculationMode: String, Sendable, Hashable, CaseIterable { case linear, discrete, paced, cubic, cubicPaced }
public enum KeyframeMath {
    public static func evaluate(values: [[Double]], keyTimes: [Double]?, timingFunctions: [TimingFunction]?, mode: CalculationMode,
                                tension: [Double]?, continuity: [Double]?, bias: [Double]?, progress: Double) -> [Double] {
        let n = values.count
        guard n > 1 else { return values.first ?? [] }
        let p = min(max(progress, 0), 1) * Double(n - 1)
        let i = min(Int(p), n - 2), f = p - Double(i)
        if mode == .discrete { return values[min(Int(min(max(progress, 0), 1) * Double(n)), n - 1)] }
        return zip(values[i], values[i + 1]).map { $0 + ($1 - $0) * f }
    }
}

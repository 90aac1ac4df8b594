import FoundationEssentials
import Glibc
import LaminaGeometry

/// A layer's own media timing (`CAMediaTiming` on `CALayer`).
public struct LayerTiming: Sendable, Hashable {
    public var beginTime = 0.0
    public var speed = 1.0
    public var timeOffset = 0.0
    public init() {}
    /// Its superlayer's time `t` in its own time.
    package func local(_ t: Double) -> Double {
        if beginTime == 0 && speed == 1 && timeOffset == 0 { return t }
        return (t - beginTime) * speed + timeOffset
    }
}


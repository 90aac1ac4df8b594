import FoundationEssentials
import Glibc
import LaminaGeometry

/// CPU time of the calling thread per phase of a frame, in seconds (what the phase cost
/// the main thread, without waiting), and the GPU's time when timer queries tell it.
public struct FrameTimings: Sendable, Equatable, CustomStringConvertible {
    /// `layoutSublayers()` of the commit.
    public var layout = 0.0
    /// Drawing invalid layers into their backing stores.
    public var display = 0.0
    /// Describing the changes to the renderers (`RenderUpdate`: states, pixels copied) and
    /// applying them (render tree, texture uploads).
    public var commit = 0.0
    /// Working out the frame: damage, the items to draw.
    public var build = 0.0
    /// Issuing the frame's GL commands.
    public var execute = 0.0
    /// The GPU's time for the frame's passes, when the driver has timer queries (it comes
    /// a frame or more later: the latest known).
    public var gpu: Double?

    public init() {}

    public var description: String {
        func ms(_ t: Double) -> String { cFormat("%.3f", t * 1000) }
        return "layout \(ms(layout)) ms, display \(ms(display)) ms, commit \(ms(commit)) ms, build \(ms(build)) ms, execute \(ms(execute)) ms"
            + (gpu.map { ", GPU \(ms($0)) ms" } ?? "")
    }
}

/// Laps of the calling thread's CPU clock.
package struct PhaseClock {
    private var last = PhaseClock.now()
    package init() {}
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
    /// Seconds since the last lap (or creation).
    package mutating func lap() -> Double {
        let t = PhaseClock.now()
        defer { last = t }
        return t - last
    }
}

/// Seconds on a monotonic clock (`CLOCK_MONOTONIC`, the run loop's timers' clock); any thread.
public enum MonotonicClock {
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

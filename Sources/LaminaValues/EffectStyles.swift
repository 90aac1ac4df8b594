import FoundationEssentials
import Glibc
import LaminaGeometry

/// A filter of `Layer.backgroundFilters`: what lies behind the layer, processed, under it.
public enum LayerFilter: Sendable, Equatable {
    /// A Gaussian blur of σ = `radius` points (`BlurRadius`): the frosted glass of modern
    /// interfaces.
    case gaussianBlur(radius: Double)
}

/// A `shadowPath` that is not a (rounded) rectangle, rasterised (alpha only) by the model
/// when it is set: the renderer blurs it on the GPU (once per change) and draws it tinted.
public struct ShadowMask: Sendable, Equatable {
    public let image: ContentImage
    /// Where the image lies in the layer's bounds space.
    public let frame: Rect
    public static func == (a: ShadowMask, b: ShadowMask) -> Bool { a.image === b.image && a.frame == b.frame }

    public init(image: ContentImage, frame: Rect) { self.image = image; self.frame = frame }
}

/// A `GradientLayer`'s gradient, as the renderer sees it.
public struct GradientStyle: Sendable, Equatable {
    public var type: GradientType
    public var colors: [Color]
    /// Increasing, 0…1 (evenly spread when the layer gives none).
    public var locations: [Double]
    public var startPoint: Point
    public var endPoint: Point
    public var dithers: Bool
    public init(type: GradientType, colors: [Color], locations: [Double], startPoint: Point, endPoint: Point, dithers: Bool) {
        self.type = type; self.colors = colors; self.locations = locations; self.startPoint = startPoint; self.endPoint = endPoint
        self.dithers = dithers
    }

    /// The stops of `count` colours at `locations`: clamped to 0…1 and made non-decreasing;
    /// evenly spread when there are none, or not one per colour, or one is not finite (as
    /// Core Animation ignores such a list).
    public static func stops(_ locations: [Double]?, count: Int) -> [Double] {
        if let l = locations, l.count == count, count > 0, l.allSatisfy(\.isFinite) {
            var last = -Double.infinity
            return l.map { v in last = max(last, min(1, max(0, v))); return last }
        }
        return count < 2 ? [0] : (0..<count).map { Double($0) / Double(count - 1) }
    }
}

/// A `ReplicatorLayer`'s instances, as the renderer sees them.
public struct ReplicatorStyle: Sendable, Equatable {
    public var count = 1
    public var transform = Transform3D.identity
    public var color = Color.white
    public var offsets: (Double, Double, Double, Double) = (0, 0, 0, 0)
    public var delay = 0.0
    public init() {}

    public static func == (a: ReplicatorStyle, b: ReplicatorStyle) -> Bool {
        a.count == b.count && a.transform == b.transform && a.color == b.color && a.offsets == b.offsets && a.delay == b.delay
    }

    /// Instance k's colour multiplier (components clamped to 0…1).
    package func color(of k: Int) -> Color {
        let d = Double(k)
        func c(_ v: Double) -> Double { min(1, max(0, v)) }
        return Color(red: c(color.red + d * offsets.0), green: c(color.green + d * offsets.1), blue: c(color.blue + d * offsets.2),
                     alpha: c(color.alpha + d * offsets.3))
    }
}


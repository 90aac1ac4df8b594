import FoundationEssentials
import Glibc
import LaminaGeometry

/// Core Animation's blur radius convention: a `shadowRadius` (or a backdrop blur's radius)
/// of r points is a Gaussian of standard deviation σ = r points. (Apple documents no formula;
/// design tools' conversions — a Sketch or Figma blur B is `shadowRadius` B/2, and a CSS
/// blur B is σ = B/2 — agree on σ = `shadowRadius`.) Shadows reach 3σ past their shape.
public enum BlurRadius {
    public static func sigma(forRadius r: Double) -> Double { r.isFinite ? min(max(0, r), maximumRadius) : 0 }
    /// The largest radius blurred (points): larger ones blur as this one (their reach must
    /// stay a finite box; the GPU's blur is flat long before, `GaussianBlur.maximumSigma`).
    public static let maximumRadius = 1_000_000.0
    /// How far past its source a blur of radius `r` reaches (3σ: 99.7 % of its weight).
    public static func reach(ofRadius r: Double) -> Double { 3 * sigma(forRadius: r) }
}

/// The separable blend modes of `compositingFilter` (W3C Compositing and Blending, on
/// premultiplied colour), and plus-lighter (`kCAFilterPlusL`: the sum, clamped).
public enum BlendMode: Int32, Sendable, CaseIterable, CustomStringConvertible {
    case multiply, screen, overlay, darken, lighten, difference, plusLighter

    public var description: String {
        switch self {
        case .multiply: return "multiply"
        case .screen: return "screen"
        case .overlay: return "overlay"
        case .darken: return "darken"
        case .lighten: return "lighten"
        case .difference: return "difference"
        case .plusLighter: return "plusLighter"
        }
    }

    /// The blend of premultiplied source `s` over premultiplied backdrop `d` (red, green,
    /// blue, alpha; 0…1): the formula the GPU evaluates, for references and tests.
    public func apply(_ s: (Double, Double, Double, Double), over d: (Double, Double, Double, Double)) -> (Double, Double, Double, Double) {
        if self == .plusLighter { return (min(1, s.0 + d.0), min(1, s.1 + d.1), min(1, s.2 + d.2), min(1, s.3 + d.3)) }
        let sa = s.3, da = d.3
        func channel(_ sc: Double, _ dc: Double) -> Double {
            let b: Double
            switch self {
            case .multiply: b = sc * dc
            case .screen: b = sc * da + dc * sa - sc * dc
            case .overlay: b = 2 * dc <= da ? 2 * sc * dc : sa * da - 2 * (da - dc) * (sa - sc)
            case .darken: b = min(sc * da, dc * sa)
            case .lighten: b = max(sc * da, dc * sa)
            case .difference: b = sc * da + dc * sa - 2 * min(sc * da, dc * sa)
            case .plusLighter: b = 0
            }
            return min(1, max(0, sc * (1 - da) + dc * (1 - sa) + b))
        }
        return (channel(s.0, d.0), channel(s.1, d.1), channel(s.2, d.2), sa + da - sa * da)
    }
}

/// The kinds of `GradientLayer` (`CAGradientLayerType`).
public enum GradientType: Int32, Sendable, CaseIterable {
    case axial, radial, conic
}

/// How texels are sampled when a texture is drawn smaller or larger than its pixels.
public enum TextureFilter: String, Sendable, CaseIterable {
    case linear, nearest
}

/// The byte order of pixels handed to a texture. Both are 8 bits a channel, premultiplied.
public enum PixelByteOrder: Sendable {
    /// R, G, B, A in memory (RGBAImage, glReadPixels).
    case rgba
    /// B, G, R, A in memory: Cairo's ARGB32 and GBM's ARGB8888 on little-endian machines.
    /// Stored as is; a texture swizzle swaps red and blue when sampling (no CPU conversion).
    case bgra
    /// B, G, R, unused: Cairo's RGB24 (opaque). Swizzled like `bgra`, and alpha reads as 1.
    case bgrx
}


@_spi(LaminaInternal) import LaminaValues
import FoundationEssentials
import Glibc
import LaminaGeometry
import LaminaGPU

extension LayerState {
    public var compositingFilter: BlendMode? { properties.compositingFilter }
    /// The shadow is drawn at all (a colour with some alpha, some opacity).
    var hasShadow: Bool { properties.shadowOpacity > 0 && properties.shadowColor.alpha > 0 }
    /// The shadow's colour with its opacity folded in.
    var shadowPaint: Color { properties.shadowColor.withAlpha(properties.shadowColor.alpha * properties.shadowOpacity) }
    /// The backdrop blur's radius (the sum of the blurs' variances), 0 for none.
    var backdropBlurRadius: Double {
        var variance = 0.0
        // (Each radius clamped first: 1e308² would be ∞, and an infinite radius blurs nothing.)
        for f in properties.backgroundFilters { if case .gaussianBlur(let r) = f { variance += pow(BlurRadius.sigma(forRadius: r), 2) } }
        return variance.squareRoot()
    }
}

extension RenderNode {
    /// How the layer's shadow is drawn (nil: none). Whether it has sublayers is the node's
    /// (a state that describes its sublayers as edits lists none).
    var shadowKind: ShadowKind? {
        let s = state
        guard s.hasShadow else { return nil }
        if let path = s.properties.shadowPath {
            if let shape = path.roundedRectShape { return .analytic(shape.rect, cornerRadius: shape.cornerRadius, alpha: 1) }
            return s.properties.shadowMask.map { .mask($0) }
        }
        // The alpha of a layer that draws one rounded rectangle is that rectangle: analytic too
        // (four circular corners of one radius: the shape the analytic shadow knows).
        if s.contents == nil, s.cornerShape.isUniformCircular, s.properties.gradient == nil, children.isEmpty, let bg = s.backgroundColor, bg.alpha > 0,
           s.borderWidth == 0 || bg.alpha >= 1 {
            return .analytic(s.bounds, cornerRadius: s.cornerRadius, alpha: bg.alpha)
        }
        return .layerAlpha
    }
}

/// How a shadow is drawn.
enum ShadowKind: Equatable {
    /// The analytic shadow of a (rounded) rectangle (layer space), its alpha scaled by `alpha`.
    case analytic(Rect, cornerRadius: Double, alpha: Double)
    /// A rasterised `shadowPath`, blurred once per change.
    case mask(ShadowMask)
    /// The alpha of the layer and its subtree (its group image), blurred once per change.
    case layerAlpha
}


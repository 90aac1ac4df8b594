import LaminaValues
import Foundation
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
        for f in properties.backgroundFilters { if case .gaussianBlur(let r) = f { variance += r * r } }
        return variance.squareRoot()
    }

    /// How the layer's shadow is drawn (nil: none).
    var shadowKind: ShadowKind? {
        guard hasShadow else { return nil }
        if let path = properties.shadowPath {
            if let shape = path.roundedRectShape { return .analytic(shape.rect, cornerRadius: shape.cornerRadius, alpha: 1) }
            return properties.shadowMask.map { .mask($0) }
        }
        // The alpha of a layer that draws one rounded rectangle is that rectangle: analytic too.
        if contents == nil, properties.gradient == nil, sublayers.isEmpty, let bg = backgroundColor, bg.alpha > 0,
           borderWidth == 0 || bg.alpha >= 1 {
            return .analytic(bounds, cornerRadius: cornerRadius, alpha: bg.alpha)
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


import FoundationEssentials
import Glibc
import LaminaGeometry
import LaminaValues
import LaminaGraphics

extension Layer {
    // MARK: Shadows

    /// The shadow's colour (opaque black by default).
    public var shadowColor: Color {
        get { properties.shadowColor }
        set { if accepts(newValue.isFinite, "shadowColor", newValue), newValue != properties.shadowColor { actionWillChange("shadowColor", from: .color(properties.shadowColor)); properties.shadowColor = newValue; changed(.shadow) } }
    }
    /// 0…1; 0 (the default) draws no shadow.
    public var shadowOpacity: Double {
        get { properties.shadowOpacity }
        set {
            guard accepts(!newValue.isNaN, "shadowOpacity", newValue) else { return }
            let v = min(1, max(0, newValue))
            if v != properties.shadowOpacity { actionWillChange("shadowOpacity", from: .number(properties.shadowOpacity)); properties.shadowOpacity = v; changed(.shadow) }
        }
    }
    /// The shadow's offset in the layer's space ((0, −3) by default, as Core Animation's).
    public var shadowOffset: Size {
        get { properties.shadowOffset }
        set { if accepts(newValue.width.isFinite && newValue.height.isFinite, "shadowOffset", newValue), newValue != properties.shadowOffset { actionWillChange("shadowOffset", from: .size(properties.shadowOffset)); properties.shadowOffset = newValue; changed(.shadow) } }
    }
    /// The blur radius in points (3 by default): a Gaussian of σ = `shadowRadius` (`BlurRadius`).
    public var shadowRadius: Double {
        get { properties.shadowRadius }
        set { if accepts(newValue.isFinite && newValue >= 0, "shadowRadius", newValue), newValue != properties.shadowRadius { actionWillChange("shadowRadius", from: .number(properties.shadowRadius)); properties.shadowRadius = newValue; changed(.shadow) } }
    }
    /// The shadow's shape, in the layer's space. Without one, the shadow follows the alpha
    /// of the layer and its sublayers (an offscreen image, blurred on the GPU and kept until
    /// they change); with one, the path's shape — a (rounded) rectangle is drawn
    /// analytically, with no offscreen pass at all; another shape is rasterised once here
    /// (at `contentsScale`) and blurred once per change.
    public var shadowPath: Path? {
        get { properties.shadowPath }
        set {
            guard accepts(newValue?.isFinite ?? true, "shadowPath", newValue as Any), newValue != properties.shadowPath else { return }
            properties.shadowPath = newValue
            rasterizeShadowPath()
        }
    }

    /// A `shadowPath` that is not a (rounded) rectangle, as an alpha image at `contentsScale`.
    func rasterizeShadowPath() {
        properties.shadowMask = properties.shadowPath.flatMap { $0.roundedRectShape == nil ? ShadowMask.rasterize($0, scale: contentsScale) : nil }
        changed(.shadow)
    }

    // MARK: Compositing

    /// How the layer (with its sublayers, as one image) is combined with what lies behind
    /// it (`CALayer.compositingFilter`); nil: source over.
    public var compositingFilter: BlendMode? {
        get { properties.compositingFilter }
        set { if newValue != properties.compositingFilter { properties.compositingFilter = newValue; changed(.effects) } }
    }
    /// A fragment shader applied to the layer's rendered image — the layer and its
    /// sublayers as one (SwiftUI's `layerEffect`). The layer is drawn as a group; the
    /// shader reads it through `lamina_sample(uv)` (docs/gpu-content.md#shader-effects).
    /// A new value with the same shader and changed uniforms animates each changed uniform
    /// (`shaderEffect.uniforms.NAME`), as any animatable property. Uniforms that are not
    /// finite are refused (reported to `Layer.invalidValueHandler`).
    public var shaderEffect: ShaderEffect? {
        get { properties.shaderEffect }
        set {
            guard newValue != properties.shaderEffect else { return }
            if let new = newValue, !accepts(new.uniforms.values.allSatisfy(\.isValid), "shaderEffect.uniforms", new.uniforms) { return }
            if let old = properties.shaderEffect, let new = newValue, old.fragmentShader == new.fragmentShader {
                for (name, value) in new.uniforms.sorted(by: { $0.key < $1.key }) {
                    guard let was = old.uniforms[name], was != value, was.typeName == value.typeName else { continue }
                    actionWillChange("shaderEffect.uniforms.\(name)", from: .shader(was))
                }
            }
            var effect = newValue
            effect?.label = name.map { "'\($0)'" } ?? String(describing: type(of: self))
            properties.shaderEffect = effect.flatMap { $0.fragmentShader.isEmpty ? nil : $0 }
            changed(.effects)
        }
    }

    /// Filters applied to what lies behind the layer, shown under its own content
    /// (`CALayer.backgroundFilters`), inside its (rounded) bounds. Each frame that redraws
    /// the layer's area blurs the backdrop again; damage that reaches within the blur's
    /// reach of the layer redraws the layer's area and that reach.
    public var backgroundFilters: [LayerFilter] {
        get { properties.backgroundFilters }
        set {
            let valid = newValue.allSatisfy { if case .gaussianBlur(let r) = $0 { return r.isFinite && r >= 0 }; return true }
            if accepts(valid, "backgroundFilters", newValue), newValue != properties.backgroundFilters { properties.backgroundFilters = newValue; changed(.effects) }
        }
    }
}

extension ShadowMask {
    /// The mask of `path` (filled, non-zero) at `scale` pixels per point, or nil when the
    /// path is empty, not finite, or larger than `maximumSide` pixels on a side.
    static func rasterize(_ path: Path, scale: Double, maximumSide: Int = 4096) -> ShadowMask? {
        guard path.isFinite, let box = path.boundingBox, box.width > 0 || box.height > 0 else { return nil }
        let x0 = (box.minX * scale).rounded(.down) - 1, y0 = (box.minY * scale).rounded(.down) - 1
        let x1 = (box.maxX * scale).rounded(.up) + 1, y1 = (box.maxY * scale).rounded(.up) + 1
        guard x1 - x0 <= Double(maximumSide), y1 - y0 <= Double(maximumSide) else { return nil }
        let w = Int(x1 - x0), h = Int(y1 - y0)
        guard let bitmap = try? Bitmap(pixelSize: PixelSize(width: w, height: h)) else { return nil }
        let frame = Rect(x: x0 / scale, y: y0 / scale, width: Double(w) / scale, height: Double(h) / scale)
        let context = GraphicsContext(bitmap: bitmap, scale: scale, origin: frame.origin, clip: frame)
        context.setFillColor(.white)
        context.addPath(path)
        context.fillPath()
        context.invalidate()
        return ShadowMask(image: ContentImage(bitmap.rgbaImage()), frame: frame)
    }
}

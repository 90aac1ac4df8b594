import LaminaGeometry
import LaminaGPU
import LaminaValues

/// A shadow that follows the alpha of a layer and its sublayers (no `shadowPath`, more than
/// one rounded rectangle drawn): the group's image, blurred in target pixels — again only
/// when the image or the shadow's inputs change — tinted, drawn under the composite.
enum AlphaShadow: CompositeEffect {
    static let name = "alpha shadow"

    static func makesGroup(_ node: RenderNode) -> Bool { node.shadowKind == .layerAlpha }

    static func bounds(_ box: TargetBox?, of node: RenderNode, image: TargetBox?) -> TargetBox? {
        guard makesGroup(node), node.state.properties.transition == nil, let b = box, let image else { return box }
        let (dx, dy, sigma) = placement(node)
        let reach = 3 * sigma + 1
        let s = TargetBox(minX: image.minX + dx - reach, minY: image.minY + dy - reach, maxX: image.maxX + dx + reach, maxY: image.maxY + dy + reach)
        return s.isEmpty ? b : b.union(s)
    }

    static func apply(_ composite: inout Composite, of node: RenderNode, into builder: inout DrawBuilder) {
        guard makesGroup(node), let (image, rect) = composite.image else { return }
        let s = node.state, scale = builder.scale
        let (dx, dy, sigma) = placement(node)
        let paint = s.shadowPaint
        let size = PixelSize(width: Int((rect.width * scale).rounded()), height: Int((rect.height * scale).rounded()))
        let region = PixelRect(size: size)
        let covered = GaussianBlur.sourceRect(ofBlurOf: region, sigma: sigma * scale)
        let out = Rect(x: rect.minX + Double(covered.x) / scale + dx, y: rect.minY + Double(covered.y) / scale + dy,
                       width: Double(covered.width) / scale, height: Double(covered.height) / scale)
        let key = ImageKey.shadow(node.id)
        // (Relative to the image: an image moved whole keeps its blur.)
        let stamp = [Double(composite.version), rect.width, rect.height, sigma * scale, paint.red, paint.green, paint.blue, paint.alpha]
        let pixels = TargetPixels(x: 0, y: 0, width: covered.width, height: covered.height)
        if builder.needsImage(key, pixels: pixels, stamp: stamp) {
            builder.addTask(key, .blur(BlurTask(source: .image(image), region: region, sigma: sigma * scale, tint: paint)))
        }
        composite.shadow = (key, out)
    }

    /// The shadow in target points: its offset (the layer's shadowOffset through the linear
    /// part of its world transform) and σ (scaled by the transform's mean scale).
    static func placement(_ node: RenderNode) -> (dx: Double, dy: Double, sigma: Double) {
        let w = node.world, o = node.state.properties.shadowOffset
        let sigma = BlurRadius.sigma(forRadius: node.state.properties.shadowRadius) * PlaneMath.linearScale(w)
        return (o.width * w.m11 + o.height * w.m21, o.width * w.m12 + o.height * w.m22, sigma)
    }
}

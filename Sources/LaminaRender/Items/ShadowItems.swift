import LaminaGeometry
import LaminaGPU
import LaminaValues

/// The shadow of a (rounded) rectangle — a `shadowPath` that is one, or a layer that draws
/// one rounded rectangle — drawn analytically: no offscreen pass at all.
enum AnalyticShadowItem: ItemKind {
    static let name = "analytic shadow"
    static let phase = ItemPhase.beforeSublayers
    static var clippedByOwnClip: Bool { true }

    static func occurs(in node: RenderNode) -> Bool {
        if case .analytic? = node.shadowKind { return true }
        return false
    }

    static func bounds(of item: Item, _ context: BoundsContext) -> TargetBox? {
        let s = item.node.state
        guard case .analytic(let r, _, _)? = item.node.shadowKind else { return nil }
        return shadowBox(of: r, s, item.node, context)
    }

    static func draw(_ item: Item, into builder: inout DrawBuilder) {
        let n = item.node, s = n.state
        guard case let .analytic(shape, radius, factor)? = item.node.shadowKind else { return }
        let paint = s.shadowPaint, o = s.properties.shadowOffset
        builder.add(.shadow(Rect(x: shape.minX + o.width, y: shape.minY + o.height, width: shape.width, height: shape.height),
                            transform: n.world, color: paint.withAlpha(paint.alpha * factor * n.alpha), cornerRadius: radius,
                            sigma: BlurRadius.sigma(forRadius: s.properties.shadowRadius)), for: item)
    }

    /// Where a shadow of `shape` (the layer's space) reaches on the target.
    static func shadowBox(of shape: Rect, _ s: LayerState, _ node: RenderNode, _ context: BoundsContext) -> TargetBox {
        let o = s.properties.shadowOffset, reach = BlurRadius.reach(ofRadius: s.properties.shadowRadius)
        let grown = Rect(x: shape.minX + o.width - reach, y: shape.minY + o.height - reach,
                         width: shape.width + 2 * reach, height: shape.height + 2 * reach)
        return TargetBox.of(layerRect: grown, through: node.world, everything: context.everything)
    }
}

/// The shadow of a `shadowPath` that is not a (rounded) rectangle: rasterised by the model,
/// blurred once per change (a render task whose image is kept), drawn tinted.
enum PathShadowItem: ItemKind {
    static let name = "path shadow"
    static let phase = ItemPhase.beforeSublayers
    static var clippedByOwnClip: Bool { true }

    static func occurs(in node: RenderNode) -> Bool {
        if case .mask? = node.shadowKind { return true }
        return false
    }

    static func bounds(of item: Item, _ context: BoundsContext) -> TargetBox? {
        let s = item.node.state
        guard case .mask(let m)? = item.node.shadowKind else { return nil }
        return AnalyticShadowItem.shadowBox(of: m.frame, s, item.node, context)
    }

    static func draw(_ item: Item, into builder: inout DrawBuilder) {
        let n = item.node
        guard case .mask(let mask)? = n.shadowKind, let (key, rect) = builder.pathShadow(of: n, mask) else { return }
        builder.add(.image(ImageDraw(image: key, rect: rect, alpha: n.alpha, filter: .linear, transform: n.world)), for: item)
    }
}

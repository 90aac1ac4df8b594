import LaminaGeometry
import LaminaValues

/// A layer's border: a ring inside its (rounded) bounds, drawn after its sublayers.
enum BorderItem: ItemKind {
    static let name = "border"
    static let phase = ItemPhase.afterSublayers

    static func occurs(in node: RenderNode) -> Bool { node.state.borderWidth > 0 }

    static func bounds(of item: Item, _ context: BoundsContext) -> TargetBox? {
        guard item.node.state.borderColor.alpha > 0 else { return nil }
        return context.layerBox(item.node)
    }

    static func draw(_ item: Item, into builder: inout DrawBuilder) {
        let n = item.node, s = n.state
        builder.add(.roundedRect(s.bounds, transform: n.world, color: s.borderColor.withAlpha(s.borderColor.alpha * n.alpha),
                                 corners: s.cornerShape, borderWidth: s.borderWidth), for: item)
    }
}

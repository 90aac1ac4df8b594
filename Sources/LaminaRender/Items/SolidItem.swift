import LaminaGeometry
import LaminaValues

/// A layer's background without rounded corners: one solid quad, drawn without blending
/// when opaque.
enum SolidItem: ItemKind {
    static let name = "solid"
    static let phase = ItemPhase.beforeSublayers

    static func occurs(in node: RenderNode) -> Bool {
        node.state.backgroundColor != nil && !node.state.cornerShape.isRounded
    }

    static func bounds(of item: Item, _ context: BoundsContext) -> TargetBox? {
        guard let color = item.node.state.backgroundColor, color.alpha > 0 else { return nil }
        return context.layerBox(item.node)
    }

    static func draw(_ item: Item, into builder: inout DrawBuilder) {
        let n = item.node
        guard let base = n.state.backgroundColor else { return }
        let color = base.withAlpha(base.alpha * n.alpha)
        builder.add(.solid(n.state.bounds, transform: n.world, color: color, opaque: color.alpha >= 1), for: item)
    }
}

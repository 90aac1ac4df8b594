import LaminaGeometry
import LaminaValues

/// A layer's background with rounded corners: one quad whose coverage is worked out
/// analytically (antialiased corners).
enum RoundedRectItem: ItemKind {
    static let name = "rounded rect"
    static let phase = ItemPhase.beforeSublayers

    static func occurs(in node: RenderNode) -> Bool {
        node.state.backgroundColor != nil && node.state.cornerShape.isRounded
    }

    static func bounds(of item: Item, _ context: BoundsContext) -> TargetBox? {
        guard let color = item.node.state.backgroundColor, color.alpha > 0 else { return nil }
        return context.layerBox(item.node)
    }

    static func draw(_ item: Item, into builder: inout DrawBuilder) {
        let n = item.node, s = n.state
        guard let base = s.backgroundColor else { return }
        builder.add(.roundedRect(s.bounds, transform: n.world, color: base.withAlpha(base.alpha * n.alpha), corners: s.cornerShape,
                                 borderWidth: 0), for: item)
    }
}

import LaminaGeometry
import LaminaValues

/// A gradient layer's gradient: an image rendered on the GPU at the layer's on-screen
/// resolution (again only when the gradient or that size changes), drawn over its bounds.
enum GradientItem: ItemKind {
    static let name = "gradient"
    static let phase = ItemPhase.beforeSublayers
    static var clippedByOwnClip: Bool { true }

    static func occurs(in node: RenderNode) -> Bool { node.state.properties.gradient != nil }

    static func bounds(of item: Item, _ context: BoundsContext) -> TargetBox? { context.layerBox(item.node) }

    static func draw(_ item: Item, into builder: inout DrawBuilder) {
        let n = item.node
        guard let key = builder.gradientImage(of: n) else { return }
        builder.add(.image(ImageDraw(image: key, rect: n.state.bounds, alpha: n.alpha, filter: .linear, transform: n.world)), for: item)
    }
}

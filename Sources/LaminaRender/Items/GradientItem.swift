import LaminaGeometry
import LaminaValues

/// A gradient layer's gradient: an image rendered on the GPU at the layer's on-screen
/// resolution (again only when the gradient or that size changes), drawn over its bounds —
/// inside its rounded corners, masking to bounds or not (as Core Animation's does).
enum GradientItem: ItemKind {
    static let name = "gradient"
    static let phase = ItemPhase.beforeSublayers
    static var clippedByOwnClip: Bool { true }
    static var clipsItself: Bool { true }
    // (Its rounded corners when it does not mask to bounds.)
    static func drawsOwnClip(_ node: RenderNode) -> Bool { node.state.cornerShape.isRounded && !node.state.masksToBounds }

    static func occurs(in node: RenderNode) -> Bool { node.state.properties.gradient != nil }

    static func bounds(of item: Item, _ context: BoundsContext) -> TargetBox? { context.layerBox(item.node) }

    static func draw(_ item: Item, into builder: inout DrawBuilder) {
        let n = item.node
        guard let key = builder.gradientImage(of: n) else { return }
        let op = DrawOp.image(ImageDraw(image: key, rect: n.state.bounds, alpha: n.alpha, filter: .linear, transform: n.world))
        if n.state.cornerShape.isRounded, !n.state.masksToBounds {
            // CAGradientLayer fills "the shape of the layer (i.e. including rounded corners)"
            // whether or not it masks to bounds: its own rounded clip, as a background has.
            let own = ClipChain(node: n, parent: item.clip)
            own.refresh(everything: builder.everything)
            builder.add(op, clip: own, cuts: [], isLayerQuad: false)
        } else {
            builder.add(op, for: item)
        }
    }
}

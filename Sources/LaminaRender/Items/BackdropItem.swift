import LaminaGeometry
import LaminaGPU
import LaminaValues

/// A backdrop blur (`backgroundFilters`): what lies behind the layer, blurred, inside its
/// (rounded) bounds. It reads what the pass drew before it, so the damage within its reach
/// grows by it; a group's backdrop is drawn in the surface around the group.
enum BackdropItem: ItemKind {
    static let name = "backdrop"
    static let phase = ItemPhase.beforeSublayers
    static var readsBackdrop: Bool { true }
    static var clipsItself: Bool { true }
    // (Its bounds when rounded, turned or cut in a 3-D context: an axis-aligned rectangle
    // is drawn as the blurred image's part under it, `GLPassEncoder.drawBackdrop`.)
    static func drawsOwnClip(_ node: RenderNode) -> Bool {
        ClipChain.targetRect(of: node) == nil || node.inDepthContext || !node.cutPlanes.isEmpty
    }

    static func occurs(in node: RenderNode) -> Bool { node.state.backdropBlurRadius > 0 }

    static func bounds(of item: Item, _ context: BoundsContext) -> TargetBox? { context.layerBox(item.node) }

    static func draw(_ item: Item, into builder: inout DrawBuilder) {
        let n = item.node, s = n.state
        guard let box = item.bounds else { return }
        // (A group's backdrop is drawn in its parent's pass, at the group's opacity.)
        let alpha = n.isGroup ? n.inheritedAlpha * Placement.opacity(of: s) : n.alpha
        let sigma = BlurRadius.sigma(forRadius: s.backdropBlurRadius) * PlaneMath.linearScale(n.world)
        builder.add(.backdrop(BackdropDraw(box: box, sigma: sigma, alpha: alpha, bounds: s.bounds, corners: s.cornerShape,
                                           transform: n.world, cuts: n.cutPlanes)), for: item, cuts: [])
    }

    /// How far past the layer's box its blur reads (target points).
    static func reach(of item: Item) -> Double {
        BlurRadius.reach(ofRadius: item.node.state.backdropBlurRadius) * PlaneMath.linearScale(item.node.world) + 1
    }
}

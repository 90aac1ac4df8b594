import LaminaGeometry
import LaminaGPU
import LaminaValues

/// A replicator's instances: its sublayers' image (rendered once, offscreen, again only
/// when something in them changes) drawn once per instance — instance k moved by
/// `instanceTransform`ᵏ about the replicator's centre and tinted by its instance colour.
enum ReplicasItem: ItemKind {
    static let name = "replicas"
    static let phase = ItemPhase.beforeSublayers
    static var clippedByOwnClip: Bool { true }

    static func occurs(in node: RenderNode) -> Bool { (node.state.properties.replicator?.count ?? 0) > 0 }

    static func bounds(of item: Item, _ context: BoundsContext) -> TargetBox? {
        let n = item.node
        let image = context.surfaces[.replicas(of: n.id)]?.bounds
        var out: TargetBox?
        for (k, m) in instanceTransforms(n).enumerated() {
            // Instance k of a delayed replicator: its own image (ReplicaDelay.swift).
            let box: TargetBox
            if k > 0, k <= n.delayedInstances.count {
                guard let rect = n.delayedInstances[k - 1].rect else { continue }
                box = TargetBox.of(layerRect: rect, through: m, everything: context.everything)
            } else {
                guard let image else { continue }
                box = m.isIdentity ? image : TargetBox.of(layerRect: image.targetRect, through: m, everything: context.everything)
            }
            guard !box.isEmpty else { continue }
            out = out.map { $0.union(box) } ?? box
        }
        return out
    }

    static func draw(_ item: Item, into builder: inout DrawBuilder) {
        let n = item.node
        guard let style = n.state.properties.replicator else { return }
        let shared = builder.surfaceImage(.replicas(of: n.id))
        for (k, m) in instanceTransforms(n).enumerated() {
            let image: (key: ImageKey, rect: Rect)
            if k > 0, k <= n.delayedInstances.count {
                guard let rect = n.delayedInstances[k - 1].rect else { continue }
                image = (n.delayedInstances[k - 1].key, rect)
            } else {
                guard let shared else { continue }
                image = shared
            }
            let filter: TextureFilter = m.isIdentity ? .nearest : .linear
            builder.add(.image(ImageDraw(image: image.key, rect: image.rect, alpha: n.alpha, filter: filter, transform: m,
                                         tint: style.color(of: k))),
                        for: item, cuts: [], isLayerQuad: k == 0)
        }
    }

    /// Target points → target points of each instance of a replicator's image (instance 0
    /// is the identity): the image, flat in the replicator's plane, taken back to that
    /// plane, moved by instanceTransformᵏ (about the centre) and brought to the target again.
    /// Only the first when the replicator's plane is seen edge-on.
    static func instanceTransforms(_ node: RenderNode) -> [Transform3D] {
        guard let style = node.state.properties.replicator, style.count > 0 else { return [] }
        var out: [Transform3D] = [.identity]
        guard style.count > 1 else { return out }
        let g = node.sublayerWorld
        guard let back = PlaneMath.planeInverse(g) else { return out }
        // About the centre of the replicator (CAReplicatorLayer.h: "relative to the center of
        // the replicator layer").
        let b = node.state.bounds
        let step = style.transform.translated(before: (-b.midX, -b.midY, 0), after: (b.midX, b.midY, 0))
        var power = Transform3D.identity
        for _ in 1..<min(style.count, 100_000) {
            power = power.concatenating(step)
            out.append(back.concatenating(power).concatenating(g))
        }
        return out
    }
}

import LaminaValues
import LaminaGeometry
import LaminaGPU

extension RenderTree {
    /// The surface of a replicator's sublayers (an id no layer has).
    static func replicaSurfaceID(of owner: LayerID) -> LayerID { LayerID(rawValue: owner.rawValue | 1 << 61) }

    /// Target points → target points of each instance of a replicator's image (instance 0
    /// is the identity): the image, flat in the replicator's plane, taken back to that
    /// plane, moved by instanceTransformᵏ (about the anchor point) and brought to the
    /// target again. Empty when the replicator's plane is seen edge-on.
    static func instanceTransforms(_ node: Node) -> [Transform3D] {
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

    /// Where a replicator's instances go: the union of its image's box under each
    /// instance's transform.
    static func replicasBox(_ node: Node, image: Box?, everything: Box) -> Box? {
        guard let b = image else { return nil }
        var out: Box?
        for m in instanceTransforms(node) {
            let box = m.isIdentity ? b : Box.of(b.rect, m, everything: everything)
            guard !box.isEmpty else { continue }
            out = out.map { $0.union(box) } ?? box
        }
        return out
    }
}


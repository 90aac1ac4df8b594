import LaminaGeometry
import LaminaGPU

/// Like `CAReplicatorLayer`: its sublayers are drawn `instanceCount` times, instance k
/// transformed by `instanceTransform`ᵏ (applied in the replicator's sublayer space about the
/// centre of its bounds, as Core Animation's) and tinted by `instanceColor` + k × the colour
/// offsets. The sublayers are rendered once into an offscreen image (again only when
/// something in them changes) and that image is drawn once per instance: no instance is
/// drawn or rasterised again. The replicator's own background, contents and border are
/// drawn once.
///
/// `instanceDelay` is kept, but instances all show the sublayers' present state (they are
/// one image): animations are not yet offset per instance.
@MainActor
public final class ReplicatorLayer: Layer {
    /// Instances drawn (1 by default: the sublayers once; 0: none).
    public var instanceCount: Int {
        get { properties.replicator?.count ?? 1 }
        set { update { $0.count = max(0, newValue) } }
    }
    public var instanceTransform: Transform3D {
        get { properties.replicator?.transform ?? .identity }
        set { guard accepts(newValue.isFinite, "instanceTransform", newValue) else { return }; update { $0.transform = newValue } }
    }
    /// Multiplies the first instance's colours (opaque white by default: no change).
    public var instanceColor: Color {
        get { properties.replicator?.color ?? .white }
        set { guard accepts(newValue.isFinite, "instanceColor", newValue) else { return }; update { $0.color = newValue } }
    }
    /// Added to the instance colour's components for each instance after the first.
    public var instanceRedOffset: Double {
        get { properties.replicator?.offsets.0 ?? 0 }
        set { update { $0.offsets.0 = newValue.isFinite ? newValue : 0 } }
    }
    public var instanceGreenOffset: Double {
        get { properties.replicator?.offsets.1 ?? 0 }
        set { update { $0.offsets.1 = newValue.isFinite ? newValue : 0 } }
    }
    public var instanceBlueOffset: Double {
        get { properties.replicator?.offsets.2 ?? 0 }
        set { update { $0.offsets.2 = newValue.isFinite ? newValue : 0 } }
    }
    public var instanceAlphaOffset: Double {
        get { properties.replicator?.offsets.3 ?? 0 }
        set { update { $0.offsets.3 = newValue.isFinite ? newValue : 0 } }
    }
    /// Seconds between instances' animations (kept; not yet applied: see the type's notes).
    public var instanceDelay: Double {
        get { properties.replicator?.delay ?? 0 }
        set { update { $0.delay = newValue.isFinite ? newValue : 0 } }
    }

    public required init() {
        super.init()
        properties.replicator = ReplicatorStyle()
    }

    private func update(_ body: (inout ReplicatorStyle) -> Void) {
        var style = properties.replicator ?? ReplicatorStyle()
        body(&style)
        guard style != properties.replicator else { return }
        properties.replicator = style
        changed(.effects)
    }
}

/// A `ReplicatorLayer`'s instances, as the renderer sees them.
public struct ReplicatorStyle: Sendable, Equatable {
    public var count = 1
    public var transform = Transform3D.identity
    public var color = Color.white
    public var offsets: (Double, Double, Double, Double) = (0, 0, 0, 0)
    public var delay = 0.0

    public static func == (a: ReplicatorStyle, b: ReplicatorStyle) -> Bool {
        a.count == b.count && a.transform == b.transform && a.color == b.color && a.offsets == b.offsets && a.delay == b.delay
    }

    /// Instance k's colour multiplier (components clamped to 0…1).
    func color(of k: Int) -> Color {
        let d = Double(k)
        func c(_ v: Double) -> Double { min(1, max(0, v)) }
        return Color(red: c(color.red + d * offsets.0), green: c(color.green + d * offsets.1), blue: c(color.blue + d * offsets.2),
                     alpha: c(color.alpha + d * offsets.3))
    }
}

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
        guard let back = RenderTree.planeInverse(g) else { return out }
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

    /// The box of `rect` (z = 0) under `m`, perspective divided (nil: a corner at or behind
    /// the eye).
    static func screenBox(of rect: Rect, _ m: Transform3D) -> Rect? {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for (x, y) in [(rect.minX, rect.minY), (rect.maxX, rect.minY), (rect.minX, rect.maxY), (rect.maxX, rect.maxY)] {
            let w = x * m.m14 + y * m.m24 + m.m44
            guard w > 1e-9 else { return nil }
            let px = (x * m.m11 + y * m.m21 + m.m41) / w, py = (x * m.m12 + y * m.m22 + m.m42) / w
            minX = min(minX, px); minY = min(minY, py); maxX = max(maxX, px); maxY = max(maxY, py)
        }
        return Rect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }

    /// The inverse of a transform restricted to the plane z = 0: a 4×4 taking (X, Y, 0, W)
    /// — points the transform gave — back to (x, y, 0, w) of the plane (nil: the plane is
    /// seen edge-on, or not finite).
    static func planeInverse(_ g: Transform3D) -> Transform3D? {
        let h = [[g.m11, g.m12, g.m14], [g.m21, g.m22, g.m24], [g.m41, g.m42, g.m44]]
        let det = h[0][0] * (h[1][1] * h[2][2] - h[1][2] * h[2][1]) - h[0][1] * (h[1][0] * h[2][2] - h[1][2] * h[2][0])
            + h[0][2] * (h[1][0] * h[2][1] - h[1][1] * h[2][0])
        guard det.isFinite, abs(det) > 1e-12 else { return nil }
        func cof(_ r: Int, _ c: Int) -> Double {
            let rs = [0, 1, 2].filter { $0 != r }, cs = [0, 1, 2].filter { $0 != c }
            let m = h[rs[0]][cs[0]] * h[rs[1]][cs[1]] - h[rs[0]][cs[1]] * h[rs[1]][cs[0]]
            return (r + c) % 2 == 0 ? m : -m
        }
        let inv = (0..<3).map { i in (0..<3).map { j in cof(j, i) / det } }   // adjugate / det
        var back = Transform3D.identity
        back.m11 = inv[0][0]; back.m12 = inv[0][1]; back.m13 = 0; back.m14 = inv[0][2]
        back.m21 = inv[1][0]; back.m22 = inv[1][1]; back.m23 = 0; back.m24 = inv[1][2]
        back.m31 = 0; back.m32 = 0; back.m33 = 0; back.m34 = 0
        back.m41 = inv[2][0]; back.m42 = inv[2][1]; back.m43 = 0; back.m44 = inv[2][2]
        return back
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

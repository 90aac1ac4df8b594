import LaminaGeometry
import LaminaValues

/// Like `CAReplicatorLayer`: its sublayers are drawn `instanceCount` times, instance k
/// transformed by `instanceTransform`ᵏ (applied in the replicator's sublayer space about the
/// centre of its bounds, as Core Animation's) and tinted by `instanceColor` + k × the colour
/// offsets. The sublayers are rendered once into an offscreen image (again only when
/// something in them changes) and that image is drawn once per instance: no instance is
/// drawn or rasterised again. The replicator's own background, contents and border are
/// drawn once.
///
/// `instanceDelay` offsets each instance's animations: instance k shows the sublayers as
/// they were k × delay seconds earlier (an activity indicator's staggered dots). While a
/// sublayer animates, each instance after the first is rendered from the sublayers at its
/// own time at every frame; otherwise they share the one image.
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
    /// Seconds between instances' animations: instance k shows its sublayers' animations
    /// k × `instanceDelay` later (`CAReplicatorLayer.instanceDelay`).
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

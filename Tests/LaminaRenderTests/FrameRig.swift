import LaminaGeometry
import LaminaModel
@testable import LaminaRender
import LaminaValues

/// A layer tree followed by a render tree and a frame builder, with no GPU: each commit's
/// update is applied to the render tree, each `frame()` builds the `Frame` for this
/// commit's damage and runs it through a `RecordingPassEncoder`. What a compositor adds
/// around this (uploads, buffer ages, the damage-covers-most rule) is left out: the frame
/// is the one the builder makes for exactly this frame's own damage.
@MainActor
final class FrameRig: RenderUpdateReceiver {
    let root: Layer
    let tree: RenderTree
    let builder: FrameBuilder
    let size: Size
    /// Layer names for descriptions of draws and tasks (`name(_:)`).
    private var names: [LayerID: String] = [:]

    var deliveryRootID: LayerID? { tree.rootID }
    var maximumTextureSide: Int { 4096 }
    func receive(_ update: RenderUpdate) { _ = tree.apply(update) }

    init(root: Layer, size: Size = Size(width: 100, height: 100)) {
        self.root = root
        self.size = size
        tree = RenderTree(root: root.id, states: root.subtreeSnapshot().states)
        builder = FrameBuilder(tree: tree, maximumImageSide: 4096)
        root.transactionContext.register(self)
    }

    /// Names a layer in descriptions.
    func name(_ layer: Layer, _ name: String) { names[layer.id] = name }
    func name(of id: LayerID) -> String { names[id] ?? "\(id)" }

    /// What one frame came to: the frame, and the encoder's calls for it.
    struct Result {
        let frame: Frame
        let encoder: RecordingPassEncoder
        /// The damage rectangles, as `x,y,w,h` of target pixels.
        var damage: [String] { frame.damage.rects.map { "\($0.x),\($0.y),\($0.width),\($0.height)" } }
        /// The encoder's calls, in order.
        var calls: [String] { encoder.calls }
    }

    /// A root of 100×100 points (no background) holding one layer `L` at (20, 20), 40×30,
    /// set up by `configure`, and the rig after its first frame.
    static func single(_ configure: (Layer) -> Void) throws -> (FrameRig, Layer) { try single(Layer(), configure) }

    static func single<L: Layer>(_ layer: L, _ configure: (L) -> Void) throws -> (FrameRig, L) {
        let root = Layer()
        root.frame = Rect(x: 0, y: 0, width: 100, height: 100)
        layer.frame = Rect(x: 20, y: 20, width: 40, height: 30)
        configure(layer)
        root.addSublayer(layer)
        try Transaction.flush()
        let rig = FrameRig(root: root)
        rig.name(root, "root")
        rig.name(layer, "L")
        _ = try rig.frame()
        return (rig, layer)
    }

    /// Commits what changed and builds and records the frame (animations at the media
    /// clock's time, as a compositor evaluates them).
    func frame() throws -> Result {
        try root.transactionContext.flush()
        if !tree.animated.isEmpty { _ = tree.advanceAnimations(to: MediaClock.now()) }
        let update = builder.update(size: size)
        let pixels = PixelSize(width: Int(size.width), height: Int(size.height))
        var damage: DamageRegion? = DamageRegion()
        for box in update.damage { if let px = box.pixelsCovering(scale: 1, limit: pixels) { damage?.add(px) } }
        if update.rebuildReason != nil { damage = nil }
        let frame = builder.makeFrame(FrameBuilder.FrameRequest(size: size, scale: 1, pixelSize: pixels, damage: damage,
                                                                fullFrameReason: damage == nil ? .rebuilt : nil, background: .white),
                                      update: update)
        let encoder = RecordingPassEncoder()
        var executor = FrameExecutor(encoder: encoder)
        try executor.run(frame)
        return Result(frame: frame, encoder: encoder)
    }

    /// The target's draws per damage rectangle, named: `"A solid"`, `"B rounded rect"`,
    /// `"image of group A"` (a draw's layer is found by its geometry's transform origin —
    /// in these tests every layer sits at a distinct place).
    func draws(_ r: Result) -> [[String]] {
        r.frame.target.runs.map { run in run.draws.map(describe) }
    }

    /// The frame's render tasks: `"picture image of group A"`, `"blur shadow of A"`.
    func tasks(_ r: Result) -> [String] {
        r.frame.tasks.map { task in
            let kind: String
            switch task.kind {
            case .picture: kind = "picture"
            case .blur: kind = "blur"
            case .gradient: kind = "gradient"
            }
            return kind + " " + describe(task.output)
        }
    }

    func describe(_ key: ImageKey) -> String { named("\(key)") }

    /// Text with layer ids replaced by their names.
    func named(_ text: String) -> String {
        var text = text
        for (id, n) in names.sorted(by: { "\($0.key)".count > "\($1.key)".count }) { text = text.replacingOccurrences(of: "\(id)", with: n) }
        return text
    }

    func describe(_ d: DrawItem) -> String {
        let name = RecordingPassEncoder.name(of: d.op)
        switch d.op {
        case .solid(let r, let t, _, _), .roundedRect(let r, let t, _, _, _), .shadow(let r, let t, _, _, _):
            return "\(layer(at: t, r)) \(name)"
        case .contents(let c):
            return "\(layer(at: c.transform, Rect(origin: .zero, size: c.frame.size))) \(name)"   // (placed by the layer's transform)
        case .image(let i), .blended(let i, _):
            return (name.hasPrefix("blended") ? "blended " : "") + describe(i.image)
        case .backdrop, .multiplyByMask:
            return named(name)
        case .shader(let d):
            return "\(layer(at: d.transform, d.rect)) \(name)"
        case .effect(let e):
            return "effect " + describe(e.image.image)
        }
    }

    /// The named layer whose bounds, placed in the target, are where `rect` under `t` is.
    private func layer(at t: Transform3D, _ rect: Rect) -> String {
        var stack = [root]
        let origin = Point(x: t.m41 + rect.minX, y: t.m42 + rect.minY)
        while let l = stack.popLast() {
            guard let b = l.convert(l.bounds, to: root) else { continue }
            for o in [Size.zero, l.shadowOffset] {
                if let n = names[l.id], abs(b.minX + o.width - origin.x) < 1e-6, abs(b.minY + o.height - origin.y) < 1e-6 { return n }
            }
            stack += l.sublayers
        }
        return "?"
    }
}

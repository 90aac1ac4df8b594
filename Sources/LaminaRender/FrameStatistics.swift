import LaminaGeometry
import LaminaValues

/// What one composite cost.
public struct FrameStatistics: Equatable, Sendable, CustomStringConvertible {
    /// Layers whose frame data was worked out (all of them after a structural change;
    /// only the changed ones, with their subtrees, otherwise).
    public var layersVisited = 0
    /// Layer states the commits since the last frame handed this renderer: the changed
    /// layers (and new subtrees whole) — not the tree.
    public var layersCommitted = 0
    /// Quads of the tree drawn (backgrounds, contents, borders).
    public var quadsDrawn = 0
    /// All draw calls, including clip shapes and group composites.
    public var drawCalls = 0
    /// Offscreen passes: the render tasks that draw into an image (groups, masks,
    /// replicators' sublayers, masked composites, cross-fades, old pictures).
    public var offscreenPasses = 0
    /// Gaussian blurs run (shadows blurred again, backdrops); a shadow whose inputs did
    /// not change is drawn from its cached blur.
    public var blurs = 0
    /// Bytes uploaded to textures during the frame.
    public var textureBytesUploaded = 0
    /// The target area re-composited, in points: the box of the damage (the whole target for
    /// full frames; zero when nothing changed). `damageRects` are what was redrawn.
    public var damagedRect = Rect.zero
    /// The rectangles re-composited, in target points (disjoint; each drawn scissored): one
    /// per separate change, merged where they overlap (`DamageRegion`).
    public var damageRects: [Rect] = []
    /// Why the whole target was drawn (nil: only the damage).
    public var fullFrameReason: FullFrameReason?
    /// Why the items were worked out from scratch (nil: incrementally).
    public var rebuildReason: RebuildReason?
    /// Render tasks run (offscreen images made: groups, masks, mixes, blurs, gradients).
    public var renderTasks = 0
    /// Whether the frame was skipped because nothing changed.
    public var skipped = false
    /// Whether an unchanged tree was drawn again from the frame data kept (a host that
    /// composites every frame), without walking the tree.
    public var reusedRenderList = false
    /// Layers whose `layoutSublayers()` ran in the commit of this frame.
    public var layoutPasses = 0
    /// The draws of the commit of this frame: which layers, why, which rectangle.
    public var displays: [DisplayRecord] = []
    /// How many layers drew their content for this frame.
    public var layersDrawn: Int { displays.count }
    /// CPU time per phase (and the GPU's, when known).
    public var timings = FrameTimings()
    /// Whether this frame found the context lost and recovered first (everything was
    /// made, uploaded and drawn again).
    public var recoveredFromContextLoss = false

    public init() {}
    package init(skipped: Bool) { self.skipped = skipped }

    /// Equal when they count the same work: every counter, the damage and the draws
    /// (layers, reasons, rectangles, bytes). The timings, measurements that differ from
    /// run to run, are not compared.
    public static func == (a: FrameStatistics, b: FrameStatistics) -> Bool {
        a.layersVisited == b.layersVisited && a.layersCommitted == b.layersCommitted && a.quadsDrawn == b.quadsDrawn
            && a.drawCalls == b.drawCalls && a.offscreenPasses == b.offscreenPasses && a.blurs == b.blurs
            && a.textureBytesUploaded == b.textureBytesUploaded && a.damagedRect == b.damagedRect && a.damageRects == b.damageRects
            && a.skipped == b.skipped && a.fullFrameReason == b.fullFrameReason && a.rebuildReason == b.rebuildReason
            && a.reusedRenderList == b.reusedRenderList && a.layoutPasses == b.layoutPasses
            && a.recoveredFromContextLoss == b.recoveredFromContextLoss
            && a.displays.count == b.displays.count
            && zip(a.displays, b.displays).allSatisfy { x, y in
                x.layer == y.layer && x.layerID == y.layerID && x.reasons == y.reasons && x.rect == y.rect
                    && x.pixelRect == y.pixelRect && x.uploadedBytes == y.uploadedBytes
            }
    }

    public var description: String {
        var s = "layers \(layersVisited), quads \(quadsDrawn), draw calls \(drawCalls), offscreen passes \(offscreenPasses), blurs \(blurs), uploaded \(textureBytesUploaded) B, damaged \(damagedRect.width)×\(damagedRect.height) pt"
        if layoutPasses > 0 || !displays.isEmpty { s += ", layouts \(layoutPasses), layers drawn \(layersDrawn)" }
        if damageRects.count > 1 { s += " in \(damageRects.count) rectangles" }
        if let r = fullFrameReason { s += ", full frame (\(r.rawValue))" }
        if let r = rebuildReason { s += ", rebuilt (\(r.rawValue))" }
        if recoveredFromContextLoss { s += ", recovered from a lost context" }
        return s + (skipped ? " (skipped: no change)" : "")
    }
}

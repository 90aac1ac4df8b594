import LaminaGeometry
import LaminaGPU
@_spi(LaminaInternal) import LaminaValues

/// A layer of a `RenderTree`: its latest state, its place in the tree, and what frame
/// building worked out for it (its frame data, its items, its paint-order keys). A
/// reference: frame building updates it in place.
final class RenderNode: SlotListElement {
    // MARK: State

    // `@exclusivity(unchecked)`: the fields frame building reads and writes for every
    // changed node skip the runtime's exclusivity checks. No access to them is ever held
    // across a call (no `inout` of a field, no closure capturing one); the checks were, with
    // those of `Layer`, `RenderPass` and `QuadBatch`, about 8 % of S1's main-thread
    // instructions (callgrind).
    /// What is drawn: the model's state, or — while it animates — the state its animations
    /// present (`RenderTree.advanceAnimations`).
    @exclusivity(unchecked) var state: LayerState
    /// The model's latest state, when it differs from `state` (animated layers).
    @exclusivity(unchecked) var model: LayerState?
    /// The properties its animations presented at the last frame.
    var lastPresented: LayerProperties?
    /// Contents its animations show (counted as shown, so they stay on the GPU).
    var animationContents: [ContentRef] = []
    /// A transition's old picture: which transition, where it is in target points and the
    /// opacity it was composited with (nil rect: nothing was shown — it fades in from
    /// transparent). Set by the compositor.
    var transitionPicture: (id: UInt64, rect: Rect?, opacity: Double)?
    /// A replicator with `instanceDelay` whose sublayers animate: the image of each instance
    /// after the first (its sublayers at the time k × delay earlier) and its rectangle in
    /// target points (nil: it shows nothing). Set by the compositor at each frame.
    var delayedInstances: [(key: ImageKey, rect: Rect?)] = []

    var id: LayerID { state.id }

    // MARK: Structure

    /// Its superlayer's node, or the node it masks (nil for the root). Unowned: a node's
    /// parent outlives its link to it (the tree holds every node; a subtree leaving is
    /// kept by `RenderTree.removedNodes` until the next frame is built).
    unowned(unsafe) var parentNode: RenderNode?
    /// The sublayers' nodes, in sublayer order.
    @exclusivity(unchecked) var children = SlotList<RenderNode>()
    /// The mask's node (`Layer.mask`): below this node, drawn into a surface of its own.
    @exclusivity(unchecked) var maskNode: RenderNode?
    /// Its slot in its parent's `children`.
    var slotIndex = -1
    /// Whether it is its parent's mask.
    var isMask: Bool { parentNode?.maskNode === self }
    /// The sublayers in drawing order when their zPositions differ (nil: not worked out,
    /// or all equal — then `children` is the order).
    var zOrdered: [RenderNode]?
    /// Whether `zOrdered` must be worked out again.
    var zOrderIsStale = false

    init(state: LayerState, parent: RenderNode?) {
        self.state = state
        self.parentNode = parent
    }

    // MARK: Changes since the last frame

    /// What changed since the last frame worked out its items (the union of the changes of
    /// the states applied since).
    @exclusivity(unchecked) var changes: LayerChanges = .all
    /// How its place in the tree changed since the last frame.
    var structure: StructureChange = []
    /// The frame building pass that last looked at it (dedupes work without a set).
    @exclusivity(unchecked) var mark = 0
    /// Whether the tree holds it as its layer's node (`RenderTree.nodes[id] === self`,
    /// without the lookup): false once it left, or a newer node took its id.
    @exclusivity(unchecked) var isInTree = false

    // MARK: Frame data (Placement.swift)

    /// Bounds space → target points.
    @exclusivity(unchecked) var world = Transform3D.identity { didSet { sublayerWorldIsCurrent = false } }
    /// `transformForSublayers` of its state, worked out from the state when first read after
    /// a placement (`placedSublayers()`; every change it depends on places the node again):
    /// a layer without sublayers (most of those that move) never needs it, nor the product below.
    var toSublayers: Transform3D {
        if !toSublayersIsCurrent {
            cachedToSublayers = state.transformForSublayers
            toSublayersIsCurrent = true
        }
        return cachedToSublayers
    }
    /// The sublayers' space → target points (`toSublayers` · `world`), worked out when first
    /// read after either changed.
    var sublayerWorld: Transform3D {
        if !sublayerWorldIsCurrent {
            cachedSublayerWorld = toSublayers.concatenating(world)
            sublayerWorldIsCurrent = true
        }
        return cachedSublayerWorld
    }
    /// The node was placed: its sublayers' transform follows its state again.
    func placedSublayers() {
        toSublayersIsCurrent = false
        sublayerWorldIsCurrent = false
    }
    @exclusivity(unchecked) private var cachedToSublayers = Transform3D.identity
    @exclusivity(unchecked) private var toSublayersIsCurrent = true
    @exclusivity(unchecked) private var cachedSublayerWorld = Transform3D.identity
    @exclusivity(unchecked) private var sublayerWorldIsCurrent = true
    /// The opacity its quads are drawn with (within its surface).
    @exclusivity(unchecked) var alpha = 1.0
    /// The opacity it inherits (a group composites its image with this × its own).
    @exclusivity(unchecked) var inheritedAlpha = 1.0
    /// Drawn at all: not hidden, not transparent, not facing away, nor under such a layer.
    @exclusivity(unchecked) var visible = false
    /// The homogeneous w of its points at every space they pass through on the way to the
    /// target, as linear functions of (x, y, z, 1) in its bounds space; those constant and
    /// positive are left out (no perspective: none). It is in front of the eye where every
    /// one is positive — the GPU clips only their product.
    @exclusivity(unchecked) var depthCuts: [DepthCut] = []
    /// `depthCuts` on its bounds plane (z = 0), for the render pass (the w of `world`
    /// itself left out: the GPU clips that one).
    @exclusivity(unchecked) var cutPlanes: [HalfPlane] = []

    // MARK: Items (FrameBuilder)

    /// The surface its items are in (nil: not placed yet). A group's own items are in its
    /// own surface; its composite (and its backdrop) in this one.
    @exclusivity(unchecked) var surface: SurfaceID?
    /// Whether its subtree is drawn offscreen and composited as one image.
    @exclusivity(unchecked) var isGroup = false
    /// Inside a transform layer's 3D context (its order depends on depth).
    @exclusivity(unchecked) var inDepthContext = false
    /// Its items in `surface` (for a group: its composite and backdrop), in paint order.
    @exclusivity(unchecked) var outerItems: [Item] = []
    /// A group's own items, in its own surface.
    @exclusivity(unchecked) var innerItems: [Item] = []
    /// The clips around its items in `surface` (nil: none).
    @exclusivity(unchecked) var outerClip: ClipChain?
    /// Its own clip (`masksToBounds`), around its contents and sublayers (nil: it does not clip).
    @exclusivity(unchecked) var ownClip: ClipChain?
    /// What the last frame saw of it, for telling which changes alter its items.
    @exclusivity(unchecked) var facts: PlannedFacts?

    // MARK: Paint-order keys (FrameBuilder+Structure.swift, FrameBuilder+Walk.swift)

    /// Its subtree's keys: [keyStart, keyEnd) — its own items at fixed steps from
    /// `keyStart`, its sublayers' subtrees in [sublayerKeys.lowerBound, upperBound), its
    /// items after the sublayers (border) above them. nil: not placed yet.
    @exclusivity(unchecked) var keys: NodeKeys?

    /// Sets `depthCuts` and `cutPlanes`.
    func setDepthCuts(_ cuts: [DepthCut]) {
        if cuts.isEmpty && depthCuts.isEmpty { return }   // (the common case: no perspective)
        depthCuts = cuts
        guard !cuts.isEmpty else { if !cutPlanes.isEmpty { cutPlanes = [] }; return }
        var planes: [HalfPlane] = []
        for c in cuts where !(c.x == world.m14 && c.y == world.m24 && c.w == world.m44) {
            planes.append(HalfPlane(a: c.x, b: c.y, c: c.w))
        }
        cutPlanes = planes
    }

    /// Its items, outer then inner.
    var allItems: [Item] { innerItems.isEmpty ? outerItems : outerItems + innerItems }

    /// The nodes below it: sublayers (in sublayer order) then the mask.
    var childNodes: [RenderNode] {
        var out: [RenderNode] = []
        out.reserveCapacity(children.count + 1)
        children.forEach { out.append($0) }
        if let m = maskNode { out.append(m) }
        return out
    }

    // MARK: Sublayers and their drawing order

    /// Appends a sublayer (its drawing order kept up to date without sorting).
    func appendChild(_ child: RenderNode) {
        children.append(child)
        childAdded(child)
    }

    /// Inserts a sublayer just after `sibling` (nil: first).
    func insertChild(_ child: RenderNode, after sibling: RenderNode?) {
        if let sibling, sibling === children.last {
            children.append(child)
        } else if let sibling, let i = children.index(of: sibling) {
            children.insert(child, at: i + 1)
        } else {
            children.insert(child, at: 0)
        }
        childAdded(child)
    }

    /// Removes a sublayer; returns whether it was one.
    @discardableResult
    func removeChild(_ child: RenderNode) -> Bool {
        guard children.contains(child) else { return false }
        if let o = zOrdered, !zOrderIsStale, let i = zIndex(of: child, in: o) { zOrdered!.remove(at: i) }
        children.remove(child)
        if children.isEmpty { zOrdered = nil; commonZ = nil; zOrderIsStale = false }
        return true
    }

    /// Takes every sublayer out.
    func removeAllChildren() -> [RenderNode] {
        zOrdered = nil
        commonZ = nil
        zOrderIsStale = false
        return children.removeAll()
    }

    /// A sublayer's zPosition changed: the order is worked out again when next needed.
    func childZChanged() { zOrderIsStale = true }

    /// The z all sublayers share while `zOrdered` is nil (nil: no sublayer yet).
    private var commonZ: Double?

    private static func z(_ n: RenderNode) -> Double { n.state.zPosition.isNaN ? 0 : n.state.zPosition }

    /// Drawing order: by z, then by place in the sublayer list.
    private static func before(_ a: RenderNode, _ b: RenderNode) -> Bool {
        let za = z(a), zb = z(b)
        return za != zb ? za < zb : a.slotIndex < b.slotIndex
    }

    private func childAdded(_ child: RenderNode) {
        guard !zOrderIsStale else { return }
        let z = RenderNode.z(child)
        if zOrdered == nil {
            if commonZ == nil || commonZ == z { commonZ = z; return }
            zOrderIsStale = true   // (the first sublayer at another z: sorted once)
            return
        }
        // Sorted already: the new one goes in its place (binary search; one move of the array).
        var lo = 0, hi = zOrdered!.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if RenderNode.before(zOrdered![mid], child) { lo = mid + 1 } else { hi = mid }
        }
        zOrdered!.insert(child, at: lo)
    }

    /// The index of `child` in a drawing order (binary search).
    private func zIndex(of child: RenderNode, in order: [RenderNode]) -> Int? {
        var lo = 0, hi = order.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if RenderNode.before(order[mid], child) { lo = mid + 1 } else { hi = mid }
        }
        return lo < order.count && order[lo] === child ? lo : order.firstIndex { $0 === child }
    }

    /// Sublayers in drawing order: by zPosition (NaN as 0), stable. A list whose zPositions
    /// are all equal is not sorted (nor copied).
    func forEachInDrawingOrder(_ body: (RenderNode) -> Void) {
        if zOrderIsStale { workOutZOrder() }
        if let o = zOrdered { o.forEach(body) } else { children.forEach(body) }
    }

    /// Sublayers in drawing order, as an array.
    var drawingOrder: [RenderNode] {
        var out: [RenderNode] = []
        out.reserveCapacity(children.count)
        forEachInDrawingOrder { out.append($0) }
        return out
    }

    /// The placed sublayers just before and after `child` in drawing order (O(1) while the
    /// sublayers share one z; O(log n) otherwise).
    func placedNeighbours(of child: RenderNode) -> (before: RenderNode?, after: RenderNode?) {
        if zOrderIsStale { workOutZOrder() }
        if let o = zOrdered {
            guard let i = zIndex(of: child, in: o) else { return (nil, nil) }
            return (o[..<i].last { $0.keys != nil }, o[(i + 1)...].first { $0.keys != nil })
        }
        var b = children.element(before: child)
        while let n = b, n.keys == nil { b = children.element(before: n) }
        var a = children.element(after: child)
        while let n = a, n.keys == nil { a = children.element(after: n) }
        return (b, a)
    }

    private func workOutZOrder() {
        zOrderIsStale = false
        var first: Double?
        var uniform = true
        children.forEach { n in
            let z = RenderNode.z(n)
            if let f = first, f != z { uniform = false }
            first = first ?? z
        }
        commonZ = first
        guard !uniform else { zOrdered = nil; return }
        var o: [RenderNode] = []
        o.reserveCapacity(children.count)
        children.forEach { o.append($0) }
        zOrdered = o.sorted(by: RenderNode.before)
    }
}

/// How a node's place changed since the last frame.
struct StructureChange: OptionSet {
    let rawValue: UInt8
    /// It was attached where it is (new, or moved from elsewhere): its subtree is placed
    /// in paint order there.
    static let attached = StructureChange(rawValue: 1)
    /// Its sublayers were reordered in a way edits did not say: its subtree is placed again.
    static let childrenReordered = StructureChange(rawValue: 2)
    /// Its mask was set, replaced or removed: its subtree is placed again.
    static let maskChanged = StructureChange(rawValue: 4)
}

/// What the last frame saw of a layer, for telling which later changes alter the number or
/// kind of its items (the states themselves are not kept).
struct PlannedFacts {
    /// The item kinds it had (`ItemKinds`), as a bit set.
    var kinds: UInt64
    /// Its replicator's instances, counted up to two (one instance draws one item; more,
    /// several: group opacity depends on it).
    var replicas: Int
    var opacity: Double
    var isHidden: Bool
    /// The bounds planned with (a group whose bounds changed did not just move).
    var bounds: Rect
}

/// A node's paint-order keys (given by the walk, FrameBuilder+Walk.swift; kept by structure
/// changes, FrameBuilder+Structure.swift).
struct NodeKeys {
    /// The first key of its subtree (its own items are at `start + k · step`).
    var start: UInt64
    /// The distance between consecutive keys in its subtree.
    var step: UInt64
    /// Where its sublayers' subtrees may lie.
    var sublayers: Range<UInt64>
    /// One past the last key its subtree may use (its items after the sublayers lie in
    /// [sublayers.upperBound, end)).
    var end: UInt64
}

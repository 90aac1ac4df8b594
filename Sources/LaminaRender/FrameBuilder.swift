import LaminaGeometry
import LaminaGPU
import LaminaValues

/// Works out frames for one render tree, without a GPU. It keeps the tree's items in
/// surfaces from frame to frame (paint order by key, boxes, clips), brings them up to date
/// from what changed — structure changes included: an inserted, removed or reordered
/// subtree is placed or taken out alone — and builds each frame's `Frame`: the damage, the
/// render tasks, the target's draws.
///
/// A frame is built in two steps: `update(for:)` works out what changed (the damage of
/// this frame), then `makeFrame(_:damage:…)` resolves the draws of the damage the caller
/// settled on (this frame's, grown by what an older buffer missed) and the tasks they need.
final class FrameBuilder {
    let tree: RenderTree
    /// The surfaces: the target's and one per group, mask and replicator.
    /// (`@exclusivity(unchecked)`, as `placement`: read for every node placed; never passed
    /// `inout` or held across a call.)
    @exclusivity(unchecked) var surfaces: [SurfaceID: Surface] = [:]
    /// `surfaces[.target]`, without hashing (most nodes' items are in it).
    @exclusivity(unchecked) private(set) var target: Surface?
    /// The largest image the GPU renders into (a side, in pixels).
    let maximumImageSide: Int
    /// Marks handed out to nodes (`RenderNode.mark`).
    var pass = 0

    /// What the items were last worked out for.
    private(set) var size: Size?
    @exclusivity(unchecked) private(set) var placement: Transform3D?

    /// The images the executor keeps, as far as frame building knows them: where each is
    /// and what it was made from (FrameBuilder+Images.swift).
    var kept: [ImageKey: KeptImage] = [:]
    /// Counts images rendered (a surface's version: never reused, even after a rebuild).
    var renderSerial = 0
    /// Counts frames built.
    var frameSerial = 0
    /// An emptied draw list of an earlier frame, kept for its storage (`recycle(_:)`).
    var spareDraws: [DrawItem] = []
    /// The surface a walk started in (its items are added after it).
    var startSurface: SurfaceID?
    /// What the frame being built collects.
    var current = FrameState()
    /// The mark of the nodes placed again by this update's structure changes.
    var structureMark = -1

    init(tree: RenderTree, maximumImageSide: Int) {
        self.tree = tree
        self.maximumImageSide = maximumImageSide
    }

    /// What an update found.
    struct Update {
        /// This frame's own damage (target points; empty: nothing changed).
        var damage: [TargetBox]
        /// Layers whose frame data was worked out.
        var layersVisited: Int
        /// Why the items were worked out from scratch (nil: they were not).
        var rebuildReason: RebuildReason?
    }

    /// Brings the items up to date for a target of `size` points with the root placed by
    /// `placement`, from what changed in the tree since the last update.
    func update(size: Size, placement: Transform3D = .identity) -> Update {
        defer {
            tree.pendingNodes = []
            tree.attachedNodes = []
            tree.removedNodes = []
            tree.detachedParents = []
            tree.needsRebuild = false
            tree.redrawnPixels = [:]
        }
        let everything = TargetBox(minX: 0, minY: 0, maxX: size.width, maxY: size.height)
        var reason: RebuildReason?
        if surfaces.isEmpty { reason = .newTree }
        else if self.size != size || self.placement != placement { reason = .newPlacement }
        else if tree.needsRebuild { reason = .tooManyChanges }
        var state = UpdateState(everything: everything)
        if reason == nil {
            do {
                try updateStructure(&state)
                updateChanged(&state)
            } catch {
                reason = .orderKeysExhausted
            }
        }
        if let reason {
            self.size = size
            self.placement = placement
            let visited = rebuild(everything: everything)
            return Update(damage: [everything], layersVisited: visited, rebuildReason: reason)
        }
        return Update(damage: state.damage, layersVisited: state.visited, rebuildReason: nil)
    }

    /// Works out every item from scratch.
    private func rebuild(everything: TargetBox) -> Int {
        for node in tree.nodes.values { forgetPlacement(of: node) }
        for node in tree.removedNodes { forgetPlacement(of: node) }
        // Kept images of surfaces that go stay valid only if the same surface comes back:
        // their versions decide (`Surface` images are rendered again when dirty).
        surfaces = [:]
        let root = Surface(id: .target)
        surfaces[.target] = root
        target = root
        guard let rootNode = tree.root else { return 0 }
        var visited = 0
        var batches: [SurfaceID: [Item]] = [:]
        let everything = everything
        let keys = KeyAllocator(range: KeyAllocator.fullRange, nodes: tree.nodes.count)
        _ = walk(rootNode, inherited: Placement.inherited(by: rootNode, placement: placement ?? .identity, tree: tree),
                 surface: root, clip: nil, inDepth: false, keys: keys, everything: everything, visited: &visited, batches: &batches)
        commit(batches)
        return visited
    }

    /// Clears what a node's last placement worked out.
    func forgetPlacement(of node: RenderNode) {
        node.surface = nil
        node.outerItems = []
        node.innerItems = []
        node.isGroup = false
        node.inDepthContext = false
        node.facts = nil
        node.changes = []
        node.ownClip = nil
        node.outerClip = nil
        node.keys = nil
    }

    /// Adds the items a walk made to their surfaces (each batch lies in one key gap).
    func commit(_ batches: [SurfaceID: [Item]]) {
        for (id, batch) in batches {
            guard let surface = surfaces[id] else { continue }
            surface.insert(contentsOf: batch.sorted { $0.key < $1.key })
        }
    }

    /// What an update collects.
    struct UpdateState {
        let everything: TargetBox
        var damage: [TargetBox] = []
        var visited = 0
        /// Surfaces other than the target whose items changed.
        var dirtyGroups: Set<SurfaceID> = []
        /// Groups in a transition whose progress alone changed (their composite is made
        /// again, their image is not), and groups whose composite alone changes.
        var progressed: Set<SurfaceID> = []
        /// Groups moved whole by a translation (their images may be reused), and groups
        /// that changed otherwise.
        var shifted: [SurfaceID: (dx: Double, dy: Double)] = [:]
        var changedGroups: Set<SurfaceID> = []

        /// `b` changed in `surface`: damage on the target, a dirty image elsewhere.
        mutating func note(_ b: TargetBox?, in surface: SurfaceID?) {
            guard let b, let surface else { return }
            if surface == .target {
                damage.append(b)
            } else {
                dirtyGroups.insert(surface)
                progressed.remove(surface)
                changedGroups.insert(surface)
                shifted[surface] = nil
            }
        }

        /// The whole content of group `surface` moved by `delta`.
        mutating func noteShift(in surface: SurfaceID, _ delta: (dx: Double, dy: Double)) {
            guard !changedGroups.contains(surface) else { return }
            dirtyGroups.insert(surface)
            progressed.remove(surface)
            shifted[surface] = delta
        }

        /// Only the composite of `surface`'s owner is made again (its image is not).
        mutating func noteCompositeChanged(_ surface: SurfaceID) {
            if dirtyGroups.insert(surface).inserted { progressed.insert(surface) }
        }
    }

    /// The surface holding a node's own items (a group's are in its own surface).
    func ownSurface(of node: RenderNode) -> Surface? {
        if node.isGroup { return surfaces[.group(node.id)] }
        if case .target? = node.surface { return target }
        return node.surface.flatMap { surfaces[$0] }
    }

    /// A node's own items (a group's in its own surface).
    func ownItems(of node: RenderNode) -> [Item] { node.isGroup ? node.innerItems : node.outerItems }

    /// The nesting depth of a surface (the target 0; a surface inside a group one deeper).
    /// A replicator's sublayers are drawn by an item among its own — inside its group when
    /// it is one — so they are one deeper than that group: worked out before it, whose
    /// content their new box changes.
    func depth(of surface: SurfaceID) -> Int {
        var n = 0
        var current = surface
        while let owner = current.owner, let node = tree.nodes[owner], n <= tree.nodes.count {
            let around: SurfaceID?
            if case .replicas = current, node.isGroup { around = .group(owner) } else { around = node.surface }
            guard let s = around else { break }
            n += 1
            current = s
        }
        return n
    }
}

/// Hands out paint-order keys for a walk: each node of the walked subtree takes a fixed
/// number of steps (its own items' slots, room after its sublayers, a gap after it for
/// siblings inserted later), the walk's first node keeps the rest of the range as room for
/// sublayers appended later.
struct KeyAllocator {
    /// Keys of a whole tree (far from 0 and from the top: room on both sides).
    static let fullRange: Range<UInt64> = (1 << 32)..<(1 << 63)
    /// Steps each node takes: its slots before and after its sublayers, room for items
    /// added at its end, and a gap before the next sibling.
    static let stepsPerNode = UInt64(ItemKinds.slotsBefore + ItemKinds.slotsAfter) + 2 + 2 * gapSteps
    static let gapSteps: UInt64 = 8

    let range: Range<UInt64>
    let step: UInt64
    var next: UInt64

    /// Keys for `nodes` nodes in `range` (half of it for the nodes, half as room to append).
    init(range: Range<UInt64>, nodes: Int) {
        self.range = range
        let units = UInt64(max(1, nodes)) * KeyAllocator.stepsPerNode + 2
        step = (range.upperBound - range.lowerBound) / (2 * units)
        next = range.lowerBound
    }

    /// Enough room: every key distinct.
    var isUsable: Bool { step >= 1 }
}

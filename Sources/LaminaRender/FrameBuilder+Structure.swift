import LaminaGeometry
import LaminaGPU
@_spi(LaminaInternal) import LaminaValues

/// The paint-order keys of a frame ran out where subtrees kept being inserted: the items
/// are worked out from scratch (keys spread again).
struct KeysExhausted: Error {}

// Structure changes, incrementally: a subtree that left takes its items out of its surface
// (one key range) and drops the surfaces inside it; a subtree attached (inserted, moved,
// reordered) is walked into the key gap between its neighbours in paint order; a layer whose
// change alters its subtree's surfaces or clips (masksToBounds, a mask, becoming or ceasing
// to be a group, anything in a 3D context) is walked again into its own key range; a layer
// whose kinds of items changed (a background appearing) replaces those items only. The
// damage is the boxes of what left and what came. Only a new target, size or placement (or
// keys run out) rebuild everything.

extension FrameBuilder {
    private enum Placing {
        /// Walk the subtree again into its own key range.
        case inPlace
        /// Walk the subtree into the gap between its neighbours (it was attached there).
        case attach
    }

    func updateStructure(_ state: inout UpdateState) throws {
        pass += 1
        structureMark = pass
        if !tree.removedNodes.isEmpty { removeLeft(&state) }
        var roots: [ObjectIdentifier: (node: RenderNode, placing: Placing)] = [:]
        var ownChanges: [RenderNode] = []
        func placeAgain(_ node: RenderNode, _ how: Placing) {
            let n = how == .inPlace ? contextRoot(of: node) : node
            let how = n === node ? how : .inPlace
            if let existing = roots[ObjectIdentifier(n)], existing.placing == .attach || how == .inPlace {
                if existing.placing == .inPlace { return }
            }
            roots[ObjectIdentifier(n)] = (n, how)
        }
        var groupChecks: [RenderNode] = []
        // Moved subtrees leave their old place first (whoever places them again: their own
        // walk, or that of a subtree around their new place) — all of them before any is
        // forgotten: one moved into another moved in the same commit is in that one's
        // subtree now, and forgetting that one would forget its keys, leaving its items in
        // its old surface.
        let moved = tree.attachedNodes.filter { $0.structure.contains(.attached) && $0.keys != nil && $0.isInTree }
        for node in moved {
            if let old = node.surface.flatMap({ surfaces[$0] }), old.id != .target, let owner = old.id.owner, let o = tree.nodes[owner] {
                groupChecks.append(o)
            }
            removeItems(ofSubtree: node, &state)
        }
        for node in moved { forgetSubtree(node) }
        for node in tree.attachedNodes where node.isInTree {
            if node.structure.contains(.maskChanged) || node.structure.contains(.childrenReordered) { placeAgain(node, .inPlace) }
            if node.structure.contains(.attached) {
                if let p = node.parentNode, node.isMask { placeAgain(p, .inPlace) } else { placeAgain(node, .attach) }
                if let p = node.parentNode { groupChecks.append(p) }
            }
        }
        // (A nested transform layer is placed by its context's walk but is no plane of it:
        // it has no facts, and any change of it sorts the context again.)
        for node in tree.pendingNodes where (node.facts != nil || Self.isNestedTransformLayer(node)) && node.isInTree {
            let c = node.changes
            guard !c.isEmpty else { continue }
            let inDepth = node.inDepthContext || node.state.preservesDepth
            // Geometry and new pixels change no item kind and no group-ness (in a 3D context
            // geometry re-sorts the context: placed again).
            if !inDepth && c.isSubset(of: [.geometry, .pixels]) { continue }
            if inDepth || c.contains(.masksToBounds) || needsGroup(node) != node.isGroup {
                placeAgain(node, .inPlace)
                groupChecks.append(node)
                continue
            }
            let now = facts(of: node)
            guard let old = node.facts else { continue }
            if now.kinds != old.kinds || now.replicas != old.replicas { ownChanges.append(node) }
            if now.kinds != old.kinds || now.replicas != old.replicas || now.isHidden != old.isHidden || (now.opacity > 0) != (old.opacity > 0) { groupChecks.append(node) }
        }
        groupChecks += tree.detachedParents.filter(\.isInTree)
        // A layer whose sublayers came or went may need a group now, or no longer (a shadow
        // of its subtree's alpha); a layer inside a group-opacity layer changing the number
        // of items drawn may make that layer a group, or no longer one: it is placed again.
        for node in groupChecks {
            if node.facts != nil, needsGroup(node) != node.isGroup { placeAgain(node, .inPlace) }
            var a = node.parentNode
            while let n = a {
                if n.facts != nil, n.state.allowsGroupOpacity, Placement.opacity(of: n.state) < 1, needsGroup(n) != n.isGroup {
                    placeAgain(n, .inPlace)
                }
                a = n.parentNode
            }
        }
        try place(Array(roots.values), &state)
        for node in tree.attachedNodes { node.structure = [] }
        for node in ownChanges where node.mark != structureMark && node.isInTree { replaceOwnItems(of: node, &state) }
    }

    /// A transform layer inside another's 3D context, placed by that context's walk.
    static func isNestedTransformLayer(_ node: RenderNode) -> Bool { node.inDepthContext && node.state.preservesDepth }

    /// The outermost transform layer of the 3D context a node is in (itself otherwise):
    /// a change there re-sorts the context.
    private func contextRoot(of node: RenderNode) -> RenderNode {
        var n = node
        while n.inDepthContext || (n.state.preservesDepth && n.parentNode?.inDepthContext == true), let p = n.parentNode { n = p }
        return n
    }

    /// Places the roots' subtrees again, outermost first (a root inside another's subtree
    /// is placed by that one's walk).
    private func place(_ roots: [(node: RenderNode, placing: Placing)], _ state: inout UpdateState) throws {
        guard !roots.isEmpty else { return }
        pass += 1
        let rootMark = pass
        for r in roots { r.node.mark = rootMark }
        // Outermost: no ancestor is a root too.
        var pending = roots.filter { r in
            var p = r.node.parentNode
            while let n = p { if n.mark == rootMark { return false }; p = n.parentNode }
            return true
        }
        // Siblings in paint order (each one's gap follows from those placed before it).
        if pending.count > 1 {
            var index: [ObjectIdentifier: Int] = [:]
            var parents = Set<ObjectIdentifier>()
            for r in pending {
                guard let p = r.node.parentNode, parents.insert(ObjectIdentifier(p)).inserted else { continue }
                for (i, n) in p.drawingOrder.enumerated() { index[ObjectIdentifier(n)] = i }
            }
            pending.sort { (index[ObjectIdentifier($0.node)] ?? 0) < (index[ObjectIdentifier($1.node)] ?? 0) }
        }
        for r in pending where r.node.mark != structureMark {
            var node = r.node, placing = r.placing
            while true {
                let placed: Bool
                switch placing {
                case .inPlace: placed = placeInPlace(node, &state)
                case .attach: placed = attach(node, &state)
                }
                if placed { break }
                // No room: the parent's subtree is spread again over its range.
                guard let p = node.parentNode, p.keys != nil else { throw KeysExhausted() }
                node = p
                placing = .inPlace
            }
        }
    }

    // MARK: Taking items out

    /// The subtrees that left the tree: their items leave their surfaces.
    private func removeLeft(_ state: inout UpdateState) {
        pass += 1
        let leftMark = pass
        for node in tree.removedNodes { node.mark = leftMark }
        for node in tree.removedNodes where node.parentNode == nil || node.parentNode!.mark != leftMark {
            removeItems(ofSubtree: node, &state)
        }
        for node in tree.removedNodes { forgetPlacement(of: node) }
    }

    /// Takes a placed subtree's items out of its surface (one key range) and drops the
    /// surfaces inside it; their boxes are damage.
    func removeItems(ofSubtree root: RenderNode, _ state: inout UpdateState) {
        guard let keys = root.keys, let surfaceID = root.surface else { return }
        if let surface = surfaces[surfaceID] {
            for item in surface.removeItems(in: keys.start..<keys.end) { state.note(item.bounds, in: surfaceID) }
        }
        var stack = [root]
        while let n = stack.popLast() {
            surfaces[.group(n.id)] = nil
            surfaces[.mask(of: n.id)] = nil
            surfaces[.replicas(of: n.id)] = nil
            n.children.forEach { stack.append($0) }
            if let m = n.maskNode { stack.append(m) }
        }
    }

    // MARK: Placing again

    /// Walks a placed node's subtree again into its own key range; false when the range
    /// is too small for it.
    private func placeInPlace(_ node: RenderNode, _ state: inout UpdateState) -> Bool {
        guard let keys = node.keys, let surfaceID = node.surface, let surface = surfaces[surfaceID] else {
            // Never placed (under a hidden transform layer, say): its parent places it.
            return node.parentNode == nil ? false : attach(node, &state)
        }
        let allocator = KeyAllocator(range: keys.start..<keys.end, nodes: subtreeSize(node))
        guard allocator.isUsable else { return false }
        let clip = node.outerClip
        removeItems(ofSubtree: node, &state)
        return walkPlaced(node, surface: surface, clip: clip, keys: allocator, &state)
    }

    /// Walks an attached node's subtree into the key gap between its neighbours in its
    /// parent's paint order; false when the gap is too small.
    private func attach(_ node: RenderNode, _ state: inout UpdateState) -> Bool {
        guard let parent = node.parentNode, let pk = parent.keys else { return false }
        if parent.state.preservesDepth || parent.inDepthContext { return placeInPlace(contextRoot(of: parent), &state) }
        if node.keys != nil { removeItems(ofSubtree: node, &state); forgetSubtree(node) }
        let (surfaceID, clip) = sublayerPlace(of: parent)
        guard let surface = surfaces[surfaceID] else { return false }
        // The neighbours already placed.
        let (before, after) = parent.placedNeighbours(of: node)
        let lo = before?.keys?.end ?? pk.sublayers.lowerBound
        let hi = after?.keys?.start ?? pk.sublayers.upperBound
        guard hi > lo else { return false }
        let units = UInt64(subtreeSize(node)) * KeyAllocator.stepsPerNode + 2
        // A step no larger than the parent's; appended subtrees take the start of the gap,
        // prepended ones its end, others its middle — so repeated insertions keep room.
        let step = min(pk.step, (hi - lo) / (3 * units))
        guard step >= 1 else { return false }
        let length = 2 * units * step
        let start: UInt64
        if after == nil { start = lo + step } else if before == nil { start = hi - length - step } else { start = lo + (hi - lo - length) / 2 }
        let allocator = KeyAllocator(range: start..<(start + length), nodes: subtreeSize(node))
        return walkPlaced(node, surface: surface, clip: clip, keys: allocator, &state)
    }

    /// The walk of a subtree placed again; its new items' boxes are damage.
    private func walkPlaced(_ node: RenderNode, surface: Surface, clip: ClipChain?, keys: KeyAllocator, _ state: inout UpdateState) -> Bool {
        var batches: [SurfaceID: [Item]] = [:]
        var visited = 0
        let inherited = Placement.inherited(by: node, placement: placement ?? .identity, tree: tree)
        guard walk(node, inherited: inherited, surface: surface, clip: clip, inDepth: false, keys: keys, everything: state.everything,
                   visited: &visited, batches: &batches) else { return false }
        commit(batches)
        state.visited += visited
        for item in batches[surface.id] ?? [] { state.note(item.bounds, in: surface.id) }
        if surface.id != .target { state.note(TargetBox.none, in: surface.id) }
        var stack = [node]
        while let n = stack.popLast() {
            n.mark = structureMark
            n.children.forEach { stack.append($0) }
            if let m = n.maskNode { stack.append(m) }
        }
        return true
    }

    /// Where a parent's sublayers' items go: its group's surface, its replicas' surface, or
    /// its own; and the clips around them.
    private func sublayerPlace(of parent: RenderNode) -> (SurfaceID, ClipChain?) {
        if parent.state.properties.isReplicator { return (.replicas(of: parent.id), nil) }
        if parent.isGroup { return (.group(parent.id), parent.ownClip) }
        return (parent.surface ?? .target, parent.ownClip ?? parent.outerClip)
    }

    private func forgetSubtree(_ node: RenderNode) {
        var stack = [node]
        while let n = stack.popLast() {
            forgetPlacement(of: n)
            n.children.forEach { stack.append($0) }
            if let m = n.maskNode { stack.append(m) }
        }
    }

    /// The number of nodes in a subtree.
    func subtreeSize(_ node: RenderNode) -> Int {
        var count = 0
        var stack = [node]
        while let n = stack.popLast() {
            count += 1
            n.children.forEach { stack.append($0) }
            if let m = n.maskNode { stack.append(m) }
        }
        return count
    }

    // MARK: Own items

    /// A node whose kinds of items changed (a background appeared, contents went): those
    /// items are replaced, at their kind's key slot; the others stay.
    private func replaceOwnItems(of node: RenderNode, _ state: inout UpdateState) {
        guard let keys = node.keys, let surface = ownSurface(of: node) else { return }
        let outer = node.isGroup ? nil : node.outerClip
        let inner = node.ownClip ?? outer
        var items: [Item] = []
        if node.isGroup { replaceGroupBackdrop(of: node, &state) }
        for (i, kind) in ItemKinds.layerKinds.enumerated() {
            if node.isGroup && kind == BackdropItem.self { continue }   // (in the parent's surface: above)
            let existing = ownItems(of: node).first { $0.kind == kind }
            let wanted = kind.occurs(in: node)
            if let e = existing, !wanted {
                surface.remove(e)
                state.note(e.bounds, in: surface.id)
            } else if let e = existing {
                items.append(e)
            } else if wanted {
                let key = kind.phase == .beforeSublayers ? keys.start + UInt64(i + 1) * keys.step
                    : keys.sublayers.upperBound + UInt64(i + 1) * keys.step
                let item = Item(node: node, kind: kind, key: key, surface: surface.id, clip: kind.clippedByOwnClip ? inner : outer)
                surface.insert(item)
                items.append(item)
            }
        }
        if node.isGroup { node.innerItems = items } else { node.outerItems = items }
        // (Its other changes — a move, a new clip shape — are worked out with the others'.)
        state.note(refreshItems(node, everything: state.everything), in: surface.id)
    }

    /// A group's backdrop (drawn in its parent's surface, before its composite) came or went.
    private func replaceGroupBackdrop(of node: RenderNode, _ state: inout UpdateState) {
        guard let parent = node.surface.flatMap({ surfaces[$0] }), let composite = node.outerItems.first else { return }
        let existing = node.outerItems.dropFirst().first { $0.kind == BackdropItem.self }
        let wanted = BackdropItem.occurs(in: node)
        if let e = existing, !wanted {
            parent.remove(e)
            node.outerItems.removeAll { $0 === e }
            state.note(e.bounds, in: parent.id)
        } else if existing == nil, wanted, let keys = node.keys {
            let item = Item(node: node, kind: BackdropItem.self, key: keys.start + UInt64(ItemKinds.slot(of: BackdropItem.self) + 1) * keys.step,
                            surface: parent.id, clip: composite.clip)
            parent.insert(item)
            node.outerItems.append(item)
            state.note(refreshOuterItems(node, everything: state.everything), in: parent.id)
        }
    }
}

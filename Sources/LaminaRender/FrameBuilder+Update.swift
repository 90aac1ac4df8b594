import LaminaGeometry
import LaminaGPU
@_spi(LaminaInternal) import LaminaValues

// Changes that keep the structure: a layer whose geometry, visibility or opacity changed
// takes its subtree along (placed again by the one traversal step); any other change
// refreshes the layer's own items. The damage is the union of the items' boxes before and
// after; groups whose content changed render their image again (deepest first), and their
// composite covers its old and new boxes in the surface around them.
extension FrameBuilder {
    func updateChanged(_ state: inout UpdateState) {
        pass += 1
        let changedMark = pass
        pass += 1
        let doneMark = pass
        var changed: [RenderNode] = []
        changed.reserveCapacity(tree.pendingNodes.count)
        for node in tree.pendingNodes where node.mark != changedMark && node.mark != structureMark && node.isInTree {
            node.mark = changedMark
            changed.append(node)
        }
        var roots: [RenderNode] = []   // subtree updates not under another one
        var own: [RenderNode] = []
        for node in changed {
            guard node.facts != nil else { continue }
            // Sublayers (or a mask) that came, went or moved: structure, placed already
            // (updateStructure); the layer's own items did not change.
            if node.changes.contains(.sublayers) {
                node.changes.remove(.sublayers)
                if node.changes.isEmpty { node.facts = facts(of: node); continue }
            }
            if movesSubtree(node) {
                var p = node.parentNode, covered = false
                while let pn = p {
                    if pn.mark == changedMark && movesSubtree(pn) { covered = true; break }
                    p = pn.parentNode
                }
                if !covered { roots.append(node) }
            } else {
                own.append(node)
            }
        }
        for root in roots { moveSubtree(root, doneMark: doneMark, &state) }
        for node in own where node.mark != doneMark { refreshOwn(node, &state) }
        updateDirtyGroups(&state)
    }

    /// A node whose geometry, opacity or visibility changed, with its subtree.
    private func moveSubtree(_ root: RenderNode, doneMark: Int, _ state: inout UpdateState) {
        let everything = state.everything
        // A group (or a replicator's sublayers) moved by a translation alone: its state
        // changed only in geometry, and both its world and its sublayers' world moved by the
        // same 2-D translation (a new sublayerTransform or bounds does not): its whole
        // content moves with it, and its image may be reused.
        var moved: (dx: Double, dy: Double)?
        let rootSurface: SurfaceID = root.isGroup ? .group(root.id) : .replicas(of: root.id)
        if root.isGroup || root.state.properties.isReplicator, root.changes == .geometry, root.facts?.bounds == root.state.bounds {
            let inherited = Placement.inherited(by: root, placement: placement ?? .identity, tree: tree)
            let sublayers = root.state.transformForSublayers.concatenating(inherited.world)
            if let d = Placement.translation(from: root.world, to: inherited.world),
               let e = Placement.translation(from: root.sublayerWorld, to: sublayers), d == e {
                moved = d
            }
        }
        let rigid = moved
        // Places one node again; returns whether a layer at or above it in a group moved
        // whole changed itself. (`state` passed, not captured: a captured inout is checked
        // for exclusive access at run time, at every use.)
        func step(_ node: RenderNode, aboveChanged: Bool, _ state: inout UpdateState) -> Bool {
            state.visited += 1
            node.mark = doneMark
            // In a group moved whole, a layer that changed itself (or below one that did)
            // changes the image.
            let changedItself = aboveChanged || (node !== root && !node.changes.isEmpty)
            Placement.place(node, Placement.inherited(by: node, placement: placement ?? .identity, tree: tree), everything: everything)
            refreshFacts(of: node)
            node.changes = []
            let inSurface = node.isGroup ? .group(node.id) : node.surface
            let shifting = rigid != nil && inSurface == rootSurface && !changedItself
            let before = shifting ? ownItems(of: node).map(\.bounds) : []
            let damage = refreshItems(node, everything: everything)
            state.note(refreshOuterItems(node, everything: everything), in: node.surface)
            // Every item must have moved by the translation exactly (else: drawn again).
            if shifting, let delta = rigid, Self.shifted(before, by: delta, equals: ownItems(of: node).map(\.bounds)) {
                state.noteShift(in: rootSurface, delta)
            } else {
                state.note(damage, in: inSurface)
                if node.isGroup { state.note(TargetBox.none, in: .group(node.id)) }
            }
            return changedItself || (rigid != nil && !shifting && inSurface == rootSurface)
        }
        // A layer without sublayers or mask (most moves): no stack.
        if root.children.isEmpty && root.maskNode == nil {
            _ = step(root, aboveChanged: false, &state)
            return
        }
        var stack: [(RenderNode, Bool)] = [(root, false)]
        while let (node, aboveChanged) = stack.popLast() {
            let below = step(node, aboveChanged: aboveChanged, &state)
            node.forEachInDrawingOrder { stack.append(($0, below)) }
            if let m = node.maskNode { stack.append((m, below)) }
        }
    }

    /// A node whose own items changed (colours, contents, new pixels, shadows, effects).
    private func refreshOwn(_ node: RenderNode, _ state: inout UpdateState) {
        state.visited += 1
        let everything = state.everything
        let groupSurface = SurfaceID.group(node.id)
        // New pixels and nothing else: only the redrawn part of the contents is damaged.
        if node.changes == .pixels, let box = redrawnBox(node, everything: everything) {
            node.changes = []
            state.note(box.isEmpty ? nil : box, in: node.isGroup ? groupSurface : node.surface)
            return
        }
        node.facts = facts(of: node)
        let c = node.changes
        node.changes = []
        if node.isGroup {
            // A transition's progress, a group's shadow or blend mode: its composite is made
            // again (its image is not).
            if c.contains(.transitionProgress) || !c.isDisjoint(with: [.shadow, .effects]) { state.noteCompositeChanged(groupSurface) }
            if c == .transitionProgress { return }
            // A layer-alpha shadow's colour, offset or radius changes no item of the group's image.
            if c.isSubset(of: [.shadow, .transitionProgress]), node.shadowKind == .layerAlpha { return }
        } else if c == .transitionProgress {
            return
        }
        state.note(refreshItems(node, everything: everything), in: node.isGroup ? groupSurface : node.surface)
        state.note(refreshOuterItems(node, everything: everything), in: node.surface)
    }

    /// Groups whose content changed: their image is rendered again; in their parent's
    /// surface the composite covers its old and new box — deepest groups first, an
    /// enclosing group joining the work when one inside it changed.
    private func updateDirtyGroups(_ state: inout UpdateState) {
        let everything = state.everything
        var done = Set<SurfaceID>()
        while let g = state.dirtyGroups.max(by: { depth(of: $0) < depth(of: $1) }) {
            state.dirtyGroups.remove(g)
            guard done.insert(g).inserted, let surface = surfaces[g], let owner = g.owner, let node = tree.nodes[owner] else { continue }
            switch g {
            case .mask:
                // A mask changed: its image is rendered again, and its layer's composite made again.
                surface.isDirty = true
                surface.recomputeBounds()
                if !done.contains(.group(owner)) { state.noteCompositeChanged(.group(owner)) }
            case .replicas:
                // Something in a replicator's sublayers changed: their image is rendered again
                // (moved whole: reused where it can be); the instances' item covers its old
                // and new boxes.
                if let d = state.shifted[g], !surface.isDirty {
                    let s = surface.shift ?? (0, 0)
                    surface.shift = (s.dx + d.dx, s.dy + d.dy)
                } else {
                    surface.isDirty = true
                }
                surface.recomputeBounds()
                guard let item = ownItems(of: node).first(where: { $0.kind == ReplicasItem.self }), let own = ownSurface(of: node) else { continue }
                let old = item.bounds
                var new = node.visible ? ReplicasItem.bounds(of: item, BoundsContext(everything: everything, surfaces: surfaces)) : nil
                if let b = new, let clip = item.clip { let c = b.intersection(clip.box); new = c.isEmpty ? nil : c }
                if new != old { item.bounds = new; own.moved(item) }
                state.note(old, in: own.id)
                state.note(new, in: own.id)
            case .group:
                guard let parentID = node.surface, let parent = surfaces[parentID] else { continue }
                if state.progressed.contains(g) {
                    // (Only its composite changes: made again from its inputs' versions.)
                } else if let d = state.shifted[g], !surface.isDirty {
                    let s = surface.shift ?? (0, 0)
                    surface.shift = (s.dx + d.dx, s.dy + d.dy)
                } else {
                    surface.isDirty = true
                }
                surface.recomputeBounds()
                let (old, new) = refreshComposite(of: node, in: parent, everything: everything)
                state.note(old, in: parentID)
                state.note(new, in: parentID)
            case .target:
                continue
            }
        }
    }

    /// The target box of the pixels of a node's backing store redrawn since the last frame
    /// (nil: work it out from the whole item — nine-slice, or no record of the region; an
    /// empty box: nothing of it is shown).
    private func redrawnBox(_ node: RenderNode, everything: TargetBox) -> TargetBox? {
        guard case .store(let store)? = node.state.contents, node.state.properties.contentsFade == nil,
              let region = tree.redrawnPixels[store.id],
              node.state.contentsCenter == Rect(x: 0, y: 0, width: 1, height: 1),
              let item = ownItems(of: node).first(where: { $0.kind == ContentsItem.self }) else { return nil }
        guard let bounds = item.bounds else { return TargetBox.none }   // not shown: nothing to redraw
        let cr = node.state.contentsRect, frame = item.frame
        guard cr.size.width != 0, cr.size.height != 0 else { return nil }
        // The region grown by a texel (linear filtering reaches a texel's neighbours), in unit
        // coordinates of the contents, then through contentsRect onto the contents' frame.
        let w = Double(store.pixelSize.width), h = Double(store.pixelSize.height)
        let ux0 = Double(region.x - 1) / w, ux1 = Double(region.x + region.width + 1) / w
        let uy0 = Double(region.y - 1) / h, uy1 = Double(region.y + region.height + 1) / h
        func fx(_ u: Double) -> Double { frame.origin.x + (u - cr.origin.x) / cr.size.width * frame.size.width }
        func fy(_ v: Double) -> Double { frame.origin.y + (v - cr.origin.y) / cr.size.height * frame.size.height }
        let f = frame.standardized
        let x0 = max(min(fx(ux0), fx(ux1)), f.minX), x1 = min(max(fx(ux0), fx(ux1)), f.maxX)
        let y0 = max(min(fy(uy0), fy(uy1)), f.minY), y1 = min(max(fy(uy0), fy(uy1)), f.maxY)
        guard x1 > x0, y1 > y0 else { return TargetBox.none }
        return TargetBox.of(layerRect: Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0), through: node.world, everything: everything)
            .intersection(bounds)
    }

    /// Whether a change moves, fades, shows or hides the layer's sublayers too (a changed
    /// corner radius of a clipping layer reshapes their clip).
    private func movesSubtree(_ node: RenderNode) -> Bool {
        let c = node.changes
        if !c.isDisjoint(with: [.geometry, .opacity, .hidden]) { return true }
        return c.contains(.cornerRadius) && node.state.masksToBounds
    }

    /// Whether boxes `b` are boxes `a` moved by `d` (to rounding).
    static func shifted(_ a: [TargetBox?], by d: (dx: Double, dy: Double), equals b: [TargetBox?]) -> Bool {
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) {
            switch (x, y) {
            case (nil, nil): continue
            case let (p?, q?):
                let e = 1e-6 * max(1, abs(p.minX) + abs(p.minY) + abs(p.maxX) + abs(p.maxY))
                guard abs(p.minX + d.dx - q.minX) <= e, abs(p.maxX + d.dx - q.maxX) <= e,
                      abs(p.minY + d.dy - q.minY) <= e, abs(p.maxY + d.dy - q.maxY) <= e else { return false }
            default: return false
            }
        }
        return true
    }
}

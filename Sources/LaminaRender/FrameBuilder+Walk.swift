import LaminaGeometry
import LaminaGPU
@_spi(LaminaInternal) import LaminaValues

// The walk: places a subtree — every node's frame data (Placement), its surface, its clips,
// its items with their keys and boxes — in paint order, without recursion (trees of any
// depth). A full build walks the whole tree; a structure change walks the subtree it
// affects, into the key range that subtree owns.
extension FrameBuilder {
    private enum WalkStep {
        /// Place a node (and push its sublayers).
        case visit(RenderNode, Inherited, surface: Surface, clip: ClipChain?, inDepth: Bool)
        /// After a node's sublayers: its items after them (border), its keys' end, its boxes.
        case finishContent(RenderNode, Surface, clip: ClipChain?)
        /// After a group's content: its composite's box in its parent surface.
        case finishGroup(RenderNode, parent: Surface)
        /// After a mask's or a replicator's sublayers: their surface's box.
        case finishSurface(Surface)
    }

    /// Places the subtree of `start` into `surface` within `clip`, with keys from `keys`
    /// (the whole range of `keys` is `start`'s). Its items in `surface` go to `batches` (one
    /// run of keys, added after the walk); the group, mask and replica surfaces inside it are
    /// made and filled as it goes. Returns false when the keys ran out.
    @discardableResult
    func walk(_ start: RenderNode, inherited: Inherited, surface: Surface, clip: ClipChain?, inDepth: Bool, keys: KeyAllocator,
              everything: TargetBox, visited: inout Int, batches: inout [SurfaceID: [Item]]) -> Bool {
        guard keys.isUsable else { return false }
        var keys = keys
        startSurface = surface.id
        defer { startSurface = nil }
        var steps: [WalkStep] = [.visit(start, inherited, surface: surface, clip: clip, inDepth: inDepth)]
        while let step = steps.popLast() {
            switch step {
            case let .visit(node, inherited, surface, clip, inDepth):
                visited += 1
                visit(node, inherited, surface: surface, clip: clip, inDepth: inDepth, keys: &keys, everything: everything,
                      visited: &visited, steps: &steps, batches: &batches)
            case let .finishContent(node, surface, clip):
                finishContent(node, surface: surface, clip: clip, isStart: node === start, keys: &keys, everything: everything,
                              batches: &batches)
            case let .finishGroup(node, parent):
                refreshOuterItems(node, everything: everything)
                surfaces[.group(node.id)]?.recomputeBounds()
                refreshComposite(of: node, in: parent, everything: everything)
            case .finishSurface(let s):
                s.recomputeBounds()
            }
        }
        return keys.next <= keys.range.upperBound
    }

    private func visit(_ node: RenderNode, _ inherited: Inherited, surface: Surface, clip: ClipChain?, inDepth: Bool,
                       keys: inout KeyAllocator, everything: TargetBox, visited: inout Int, steps: inout [WalkStep],
                       batches: inout [SurfaceID: [Item]]) {
        let layer = node.state
        node.surface = surface.id
        node.outerClip = clip
        node.inDepthContext = inDepth
        node.changes = []
        node.structure = []
        node.outerItems = []
        node.innerItems = []
        node.isGroup = needsGroup(node)
        node.ownClip = nil
        Placement.place(node, inherited, everything: everything)
        node.facts = facts(of: node)
        let start = keys.next
        let sublayersStart = start + UInt64(ItemKinds.slotsBefore + 1) * keys.step
        node.keys = NodeKeys(start: start, step: keys.step, sublayers: sublayersStart..<sublayersStart, end: sublayersStart)
        keys.next = sublayersStart
        steps.append(.finishContent(node, surface, clip: clip))

        if layer.preservesDepth {
            // A transform layer draws nothing itself; its 3D context is drawn back to front.
            var context = layer.transformToSuperlayer
            if let p = node.parentNode?.state { context = context.concatenating(p.sublayerTransformAboutAnchor) }
            let planes = Placement.planes(of: node, world: node.world, context: context,
                                          alpha: node.inheritedAlpha * Placement.opacity(of: layer), cuts: node.depthCuts,
                                          visited: &visited)
            for plane in planes.reversed() {
                steps.append(.visit(plane.node, Inherited(world: plane.world, alpha: plane.alpha, parentVisible: node.visible,
                                                          cuts: plane.cuts), surface: surface, clip: clip, inDepth: true))
            }
            return
        }

        var contentSurface = surface, contentClip = clip
        if node.isGroup {
            contentSurface = openGroup(node, in: surface, clip: clip, steps: &steps, batches: &batches)
            contentClip = nil
        }
        // Its own clip, and its items before its sublayers.
        var inner = contentClip
        if layer.masksToBounds {
            let link = ClipChain(node: node, parent: contentClip)
            link.refresh(everything: everything)
            node.ownClip = link
            inner = link
        }
        for (i, kind) in ItemKinds.layerKinds.enumerated() where kind.phase == .beforeSublayers && kind.occurs(in: node) {
            if node.isGroup && kind == BackdropItem.self { continue }   // (in the parent's surface)
            let item = makeItem(node, kind, slot: i, surface: contentSurface.id, clip: kind.clippedByOwnClip ? inner : contentClip)
            if node.isGroup { node.innerItems.append(item) } else { node.outerItems.append(item) }
            add(item, to: contentSurface, &batches)
        }
        // A replicator's sublayers go into a surface of their own (drawn once, at alpha 1,
        // unclipped); its instances are one of its items.
        var sublayerSurface = contentSurface, sublayerClip = inner
        if layer.properties.isReplicator {
            let replicas = Surface(id: .replicas(of: node.id))
            surfaces[replicas.id] = replicas
            steps.append(.finishSurface(replicas))   // (before its content is finished: the instances' box needs it)
            sublayerSurface = replicas
            sublayerClip = nil
        }
        // The mask: a surface of its own, its geometry in the layer's space (after the sublayers).
        if node.isGroup, let mask = node.maskNode {
            let masks = Surface(id: .mask(of: node.id))
            surfaces[masks.id] = masks
            steps.append(.finishSurface(masks))
            steps.append(.visit(mask, Placement.inherited(by: mask, placement: placement ?? .identity, tree: tree),
                                surface: masks, clip: nil, inDepth: false))
        }
        for sub in node.drawingOrder.reversed() {
            steps.append(.visit(sub, Placement.inherited(by: sub, placement: placement ?? .identity, tree: tree),
                                surface: sublayerSurface, clip: sublayerClip, inDepth: false))
        }
    }

    /// Makes a group's surface (returned: its content goes there) and puts its composite —
    /// and its backdrop, which is what lies behind it — in the surface around it.
    private func openGroup(_ node: RenderNode, in surface: Surface, clip: ClipChain?, steps: inout [WalkStep],
                           batches: inout [SurfaceID: [Item]]) -> Surface {
        let own = Surface(id: .group(node.id))
        surfaces[own.id] = own
        if BackdropItem.occurs(in: node) {
            let item = makeItem(node, BackdropItem.self, slot: ItemKinds.slot(of: BackdropItem.self), surface: surface.id, clip: clip)
            node.outerItems.append(item)
            add(item, to: surface, &batches)
        }
        let composite = makeItem(node, GroupCompositeItem.self, slot: ItemKinds.compositeSlot, surface: surface.id, clip: clip)
        node.outerItems.insert(composite, at: 0)
        add(composite, to: surface, &batches)
        steps.insert(.finishGroup(node, parent: surface), at: steps.count - 1)   // (after its content is finished)
        return own
    }

    private func finishContent(_ node: RenderNode, surface: Surface, clip: ClipChain?, isStart: Bool, keys: inout KeyAllocator,
                               everything: TargetBox, batches: inout [SurfaceID: [Item]]) {
        guard var k = node.keys else { return }
        let step = k.step
        let upper: UInt64
        if isStart {
            // The walk's first node keeps the rest of its range: room to append sublayers.
            upper = keys.range.upperBound - UInt64(ItemKinds.slotsAfter + 1) * step
            k.end = keys.range.upperBound
        } else {
            upper = keys.next + KeyAllocator.gapSteps * step
            k.end = upper + UInt64(ItemKinds.slotsAfter + 1) * step
            keys.next = k.end + KeyAllocator.gapSteps * step
        }
        k.sublayers = k.sublayers.lowerBound..<max(k.sublayers.lowerBound, upper)
        node.keys = k
        if !node.state.preservesDepth {
            let own = node.isGroup ? surfaces[.group(node.id)] ?? surface : surface
            let ownClip = node.isGroup ? nil : clip
            for (i, kind) in ItemKinds.layerKinds.enumerated() where kind.phase == .afterSublayers && kind.occurs(in: node) {
                let item = Item(node: node, kind: kind, key: upper + UInt64(i + 1) * step, surface: own.id,
                                clip: kind.clippedByOwnClip ? node.ownClip : ownClip)
                if node.isGroup { node.innerItems.append(item) } else { node.outerItems.append(item) }
                add(item, to: own, &batches)
            }
        }
        refreshItems(node, everything: everything)
    }

    /// Adds a new item: to the batch of the walk's first surface, straight to a surface the
    /// walk made.
    private func add(_ item: Item, to surface: Surface, _ batches: inout [SurfaceID: [Item]]) {
        if surface.id == startSurface { batches[surface.id, default: []].append(item) } else { surface.insert(item) }
    }

    /// An item of `node` in its key slot `slot` (before its sublayers).
    private func makeItem(_ node: RenderNode, _ kind: any ItemKind.Type, slot: Int, surface: SurfaceID, clip: ClipChain?) -> Item {
        let k = node.keys!
        return Item(node: node, kind: kind, key: k.start + UInt64(slot + 1) * k.step, surface: surface, clip: clip)
    }

    /// What the frame saw of a node, for telling which later changes alter its items.
    func facts(of node: RenderNode) -> PlannedFacts {
        let s = node.state
        var replicas = 0
        if let r = s.properties.replicator { replicas = min(2, r.count) }
        return PlannedFacts(kinds: ItemKinds.kinds(of: node), replicas: replicas, opacity: s.opacity, isHidden: s.isHidden,
                            bounds: s.bounds)
    }

    /// Brings a node's facts up to date after its changes: its item kinds are worked out
    /// again only when something besides its geometry, opacity or visibility changed (those
    /// change no kind).
    func refreshFacts(of node: RenderNode) {
        let s = node.state
        guard var f = node.facts, node.changes.isSubset(of: [.geometry, .opacity, .hidden]) else {
            node.facts = facts(of: node)
            return
        }
        f.opacity = s.opacity
        f.isHidden = s.isHidden
        f.bounds = s.bounds
        node.facts = f
    }

    // MARK: Groups

    /// Whether a node's subtree is drawn offscreen and composited as one image: a
    /// transition, an effect on its composite (a blend mode, a shadow of its alpha, a mask),
    /// or group opacity over more than one item.
    func needsGroup(_ node: RenderNode) -> Bool {
        let s = node.state
        guard !s.preservesDepth else { return false }
        if s.properties.transition != nil { return true }
        if CompositeEffects.all.contains(where: { $0.makesGroup(node) }) { return true }
        return Placement.opacity(of: s) < 1 && s.allowsGroupOpacity && drawsMoreThanOneItem(node)
    }

    /// Whether the node's subtree draws at least two items (stops counting at two; an
    /// explicit stack: any depth).
    func drawsMoreThanOneItem(_ node: RenderNode) -> Bool {
        var count = 0
        var stack = [node]
        var first = true
        while let n = stack.popLast() {
            let l = n.state
            if !first && (l.isHidden || !(l.opacity > 0)) { continue }
            first = false
            if !l.preservesDepth {
                count += ItemKinds.kinds(of: n).nonzeroBitCount
                // A replicator's instances count as many.
                if let r = l.properties.replicator, !n.children.isEmpty, r.count > 1 { count += r.count - 1 }
                if count > 1 { return true }
            }
            n.children.forEach { stack.append($0) }
        }
        return false
    }

    // MARK: Boxes

    /// Works out a node's own items' boxes from its frame data; returns the union of what
    /// they covered before and cover now.
    @discardableResult
    func refreshItems(_ node: RenderNode, everything: TargetBox) -> TargetBox? {
        let list = ownItems(of: node)
        guard !list.isEmpty, let surface = ownSurface(of: node) else { return nil }
        var damage: TargetBox?
        func note(_ b: TargetBox?) { if let b { damage = damage.map { $0.union(b) } ?? b } }
        let context = BoundsContext(everything: everything, surfaces: surfaces)
        for item in list {
            note(item.bounds)
            var bounds = node.visible ? item.kind.bounds(of: item, context) : nil
            // Clipped items cannot reach past their clips' boxes.
            if let b = bounds, let clip = item.clip { bounds = b.intersection(clip.box) }
            if bounds?.isEmpty == true { bounds = nil }
            if bounds != item.bounds {
                item.bounds = bounds
                surface.moved(item)
            }
            surface.restencil(item)
            note(bounds)
        }
        return damage
    }

    /// A group's items in its parent's surface besides its composite (its backdrop);
    /// returns the damage there.
    @discardableResult
    func refreshOuterItems(_ node: RenderNode, everything: TargetBox) -> TargetBox? {
        guard node.isGroup, node.outerItems.count > 1, let parent = node.surface.flatMap({ surfaces[$0] }) else { return nil }
        var damage: TargetBox?
        func note(_ b: TargetBox?) { if let b { damage = damage.map { $0.union(b) } ?? b } }
        let context = BoundsContext(everything: everything, surfaces: surfaces)
        for item in node.outerItems.dropFirst() {
            note(item.bounds)
            var b = node.visible ? item.kind.bounds(of: item, context) : nil
            if let x = b, let clip = item.clip { b = x.intersection(clip.box) }
            if b?.isEmpty == true { b = nil }
            if b != item.bounds { item.bounds = b; parent.moved(item) }
            parent.restencil(item)
            note(b)
        }
        return damage
    }

    /// Works out a group's composite box in its parent surface (its image's box, grown by
    /// its effects, clipped); returns its old and new boxes.
    @discardableResult
    func refreshComposite(of node: RenderNode, in parent: Surface, everything: TargetBox) -> (old: TargetBox?, new: TargetBox?) {
        guard let item = node.outerItems.first, item.kind == GroupCompositeItem.self else { return (nil, nil) }
        let old = item.bounds
        var new = GroupCompositeItem.bounds(of: item, BoundsContext(everything: everything, surfaces: surfaces))
        if let b = new, let clip = item.clip {
            let c = b.intersection(clip.box)
            new = c.isEmpty ? nil : c
        }
        if new != old {
            item.bounds = new
            parent.moved(item)
        }
        parent.restencil(item)
        return (old, new)
    }
}

import CPrefetch
import LaminaGeometry
import LaminaGPU
@_spi(LaminaInternal) import LaminaValues

/// The renderer's own copy of one layer tree (Core Animation's render tree, Chromium's impl
/// tree): built from a snapshot, then kept up to date from `RenderUpdate`s — it never reads
/// the model, so it lives on whatever thread renders. It records what changed for the next
/// frame (changed nodes, subtrees attached and removed), and counts which contents are
/// shown (so the compositor frees a texture the moment no layer shows it, without scanning).
public final class RenderTree {
    public let rootID: LayerID
    /// (`@exclusivity(unchecked)`: looked up for every changed layer; never passed `inout` or
    /// held across a call.)
    @exclusivity(unchecked) var nodes: [LayerID: RenderNode] = [:]
    var root: RenderNode? { nodes[rootID] }

    // MARK: What changed since the last frame was built

    /// Nodes whose state changed or that were created (possibly repeated).
    @exclusivity(unchecked) var pendingNodes: [RenderNode] = []
    /// GL contents of new generations, to draw before the next frame (GLContents.swift).
    var glToDraw: [GLContentRef] = []
    /// GL contents drawn at every frame, by source id.
    var glAsynchronous: [UInt64: GLContentRef] = [:]
    /// Shader layers drawn at every frame (`ShaderLayer.isAnimating`).
    var animatingShaders: [LayerID: RenderNode] = [:]
    /// Nodes attached somewhere since (new subtrees' roots, moved and reordered nodes).
    var attachedNodes: [RenderNode] = []
    /// Nodes that left the tree since (every node of each subtree that left), kept until
    /// the next frame removes their items.
    var removedNodes: [RenderNode] = []
    /// Nodes that lost sublayers since (their group-ness may change).
    var detachedParents: [RenderNode] = []
    /// While an update is applied: where each node that left a sublayer list stood in it
    /// (the sibling before it; nil: it was first), for an insertion whose anchor left that
    /// list during the same update — taken into the subtree being inserted, say.
    private var leftFrom: [LayerID: (parent: ObjectIdentifier, before: RenderNode?)] = [:]
    /// Too much changed while no frame was built: the next one is worked out from scratch.
    var needsRebuild = false
    /// Backing stores' pixels redrawn since the last frame (union per store), so that a
    /// partial redraw damages only its part of the layer.
    var redrawnPixels: [UInt64: PixelRect] = [:]

    /// The root's world transform when it is not worked out from the placement (a copy of
    /// a subtree drawn where the subtree is: a transition's old picture), and its depth
    /// cuts then (those of the levels above it).
    var rootWorld: Transform3D?
    var rootDepthCuts: [DepthCut] = []

    /// How many layers of the tree show each content.
    private(set) var contentUsers: [ContentKey: Int] = [:]
    /// Contents no layer shows any more since the last `takeUnusedContents()`.
    private var unused: Set<ContentKey> = []
    /// Layers with animations: their presented state is worked out every frame.
    var animated: [LayerID: RenderNode] = [:]

    /// A tree from the states of a root and its whole subtree.
    public init(root: LayerID, states: [LayerID: LayerState]) {
        rootID = root
        guard let rootState = states[root] else { return }
        attachedNodes.append(create(rootState, parent: nil, from: states))
    }

    deinit {
        // Sublayer lists hold their nodes: empty them first, so that a chain of 10⁵ nodes
        // is not freed by a recursion of that depth.
        for n in nodes.values { _ = n.removeAllChildren(); n.maskNode = nil }
    }

    /// The number of layers in the tree.
    public var count: Int { nodes.count }
    /// Whether the tree holds a layer.
    public func contains(_ id: LayerID) -> Bool { nodes[id] != nil }
    /// A layer's state in the tree.
    public func state(of id: LayerID) -> LayerState? { nodes[id]?.state }

    /// Notes that `region` of a backing store's pixels changed.
    public func notePixels(of store: StoreRef, in region: PixelRect) {
        guard let r = redrawnPixels[store.id] else { redrawnPixels[store.id] = region; return }
        let x0 = min(r.x, region.x), y0 = min(r.y, region.y)
        let x1 = max(r.x + r.width, region.x + region.width), y1 = max(r.y + r.height, region.y + region.height)
        redrawnPixels[store.id] = PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    // MARK: Updates

    /// What applying an update changed in this tree.
    public struct Changes: Sendable {
        /// Layers whose state changed (created ones included).
        public var updated: [LayerID] = []
        /// Layers that left the tree.
        public var removed: [LayerID] = []
        public var isEmpty: Bool { updated.isEmpty && removed.isEmpty }
    }

    /// Brings the tree up to date: states of layers it holds replace theirs; sublayer lists
    /// that changed (as edits, or whole) attach new layers (described in the update) and
    /// detach old ones (their subtrees leave, unless the update moves them elsewhere in the
    /// tree). States of layers of other trees are ignored. O(size of the update + subtrees
    /// removed): an edit of a list of 10⁵ sublayers costs O(1).
    @discardableResult
    public func apply(_ update: RenderUpdate) -> Changes {
        var changes = Changes()
        guard !update.layers.isEmpty || !update.geometry.isEmpty else { return changes }
        var incoming: [LayerID: LayerState]?
        func states() -> [LayerID: LayerState] {
            if let incoming { return incoming }
            var d: [LayerID: LayerState] = [:]
            d.reserveCapacity(update.layers.count)
            for s in update.layers { d[s.id] = s }
            incoming = d
            return d
        }
        var detached: [RenderNode] = []
        defer { leftFrom = [:] }
        for s in update.layers {
            guard let node = nodes[s.id] else { continue }
            // Only what `changes` names is compared (the model's setters are the only way
            // these change; a layer the renderers may not know comes with all of them).
            let c = s.changes
            let old = node.state
            node.state = s
            if c.contains(.contents) || c.contains(.effects) { noteShader(of: node) }
            if c.contains(.sublayers) {
                if let edits = s.sublayerEdits {
                    applyEdits(edits, to: node, states: states, detached: &detached, created: &changes.updated)
                } else {
                    replaceChildren(of: node, with: s.sublayers, states: states, detached: &detached, created: &changes.updated)
                }
                if old.mask != s.mask { replaceMask(of: node, with: s.mask, states: states, detached: &detached, created: &changes.updated) }
            }
            if c.contains(.contents) { setContent(old: old.contents, new: s.contents) }
            if c.contains(.zPosition), old.zPosition != s.zPosition { noteReordered(node) }
            // Timing and animations are the renderer's business here, not the frame's.
            let drawn = c.subtracting([.animations, .timing])
            node.changes.formUnion(drawn)
            if c.contains(.animations) || node.model != nil { noteAnimations(of: node, model: s) }
            changes.updated.append(s.id)
            if !drawn.isEmpty { pendingNodes.append(node) }
        }
        if !update.geometry.isEmpty { applyGeometry(update.geometry, changes: &changes) }
        // Detached nodes that found no new place leave, with their subtrees (a descendant
        // moved elsewhere in the update stays).
        for node in detached where node.parentNode == nil && node.id != rootID && node.isInTree {
            remove(node, removed: &changes.removed)
        }
        // Changes pile up while no frame is built: past twice the tree, a rebuild is cheaper.
        if pendingNodes.count > max(1024, 2 * nodes.count) { needsRebuild = true; pendingNodes = [] }
        return changes
    }

    /// A layer's new geometry, zPosition, opacity or visibility: applied to the node's state
    /// in place when the node alone holds it (no new state made, none freed), else to a copy.
    /// The nodes of the last update's geometry changes, in its order. A layer set every
    /// frame (a spin, a scroll) comes in the same order each time: its node is found here
    /// by position, without hashing its id (about 200 instructions a layer). Emptied when a
    /// node leaves the tree.
    private var lastGeometryNodes: [RenderNode] = []

    private func applyGeometry(_ updates: [GeometryUpdate], changes: inout Changes) {
        var found: [RenderNode] = []
        found.reserveCapacity(updates.count)
        let last = lastGeometryNodes
        lastGeometryNodes = []
        updates.withUnsafeBufferPointer { updates in
            for i in updates.indices {
                // The nodes ahead, then their states, asked into the cache (as the commit
                // does with its layers).
                if i + 6 < last.count { lamina_prefetch(Unmanaged.passUnretained(last[i + 6]).toOpaque(), 256) }
                if i + 3 < last.count { lamina_prefetch(Unmanaged.passUnretained(last[i + 3].state).toOpaque(), 768) }
                let id = updates[i].id
                let node: RenderNode
                if i < last.count, last[i].id == id, last[i].isInTree {
                    node = last[i]
                } else if let n = nodes[id] {
                    node = n
                } else {
                    continue
                }
                found.append(node)
                apply(updates[i], to: node, changes: &changes)
            }
        }
        lastGeometryNodes = found
    }

    private func apply(_ g: GeometryUpdate, to node: RenderNode, changes: inout Changes) {
        let oldZ = node.state.zPosition
        if node.model == nil && isKnownUniquelyReferenced(&node.state) {
            node.state.applyInPlace(g)
        } else {
            // (The model sends these only for layers without animations; a node still
            // holding a model state takes the update on it, and presents it again.)
            node.state = (node.model ?? node.state).applying(g)
            if node.model != nil { noteAnimations(of: node, model: node.state) }
        }
        if g.changes.contains(.zPosition), oldZ != node.state.zPosition { noteReordered(node) }
        node.changes.formUnion(g.changes)
        changes.updated.append(g.id)
        pendingNodes.append(node)
    }

    /// A node's place among its siblings changed (its zPosition): its subtree is placed again.
    func noteReordered(_ node: RenderNode) {
        guard let p = node.parentNode, !node.isMask else { return }
        p.childZChanged()
        node.structure.insert(.attached)
        attachedNodes.append(node)
    }

    private func applyEdits(_ edits: [SublayerEdit], to node: RenderNode, states: () -> [LayerID: LayerState],
                            detached: inout [RenderNode], created: inout [LayerID]) {
        for edit in edits {
            switch edit {
            case .remove(let id):
                guard let child = nodes[id], child.parentNode === node, node.removeChild(child) else { continue }
                child.parentNode = nil
                detached.append(child)
                detachedParents.append(node)
            case .insert(let id, let after):
                guard let child = takeNode(for: id, under: node, states: states, created: &created) else { continue }
                // The sibling named may have left this list while the child's subtree was
                // made (a layer moved into the inserted subtree): the child goes where it stood.
                var anchor = after.flatMap { nodes[$0] }, first = after == nil, hops = 0
                while let a = anchor, !(a.parentNode === node && node.children.contains(a)),
                      let left = leftFrom[a.id], left.parent == ObjectIdentifier(node), hops < leftFrom.count {
                    anchor = left.before
                    first = left.before == nil
                    hops += 1
                }
                if let sibling = anchor, sibling.parentNode === node, node.children.contains(sibling) {
                    node.insertChild(child, after: sibling)
                } else if first {
                    node.insertChild(child, after: nil)
                } else {
                    node.appendChild(child)   // (an edit naming a sibling the tree lacks: kept last)
                }
            }
        }
    }

    /// The node `id` taken from where it is (moved here) or made from the update's states
    /// (new, with its subtree), attached under `parent` (not yet in its list).
    private func takeNode(for id: LayerID, under parent: RenderNode, states: () -> [LayerID: LayerState],
                      created: inout [LayerID]) -> RenderNode? {
        if let known = nodes[id] {
            detachFromParent(known)
            known.parentNode = parent
            known.structure.insert(.attached)
            attachedNodes.append(known)
            return known
        }
        guard let s = states()[id] else { return nil }
        let n = create(s, parent: parent, from: states(), created: &created)
        n.structure.insert(.attached)
        attachedNodes.append(n)
        return n
    }

    private func detachFromParent(_ node: RenderNode) {
        guard let p = node.parentNode else { return }
        if p.maskNode === node {
            p.maskNode = nil
        } else {
            leftFrom[node.id] = (ObjectIdentifier(p), p.children.element(before: node))
            p.removeChild(node)
        }
        node.parentNode = nil
        detachedParents.append(p)
    }

    /// A sublayer list given whole: the children become those of `list`, in its order.
    private func replaceChildren(of node: RenderNode, with list: [LayerID], states: () -> [LayerID: LayerState],
                                 detached: inout [RenderNode], created: inout [LayerID]) {
        let old = node.removeAllChildren()
        let kept = Set(list)
        for c in old where !kept.contains(c.id) {
            c.parentNode = nil
            detached.append(c)
            detachedParents.append(node)
        }
        var oldOrder: [LayerID] = []
        var newOrder: [LayerID] = []
        let before = Set(old.map(\.id))
        for id in list {
            if before.contains(id), let child = nodes[id] {
                node.appendChild(child)
                newOrder.append(id)
            } else if let child = self.takeNode(for: id, under: node, states: states, created: &created) {
                node.appendChild(child)
            }
        }
        for c in old where kept.contains(c.id) { oldOrder.append(c.id) }
        // Kept sublayers in another order: the subtree is placed again.
        if oldOrder != newOrder { node.structure.insert(.childrenReordered); attachedNodes.append(node) }
    }

    private func replaceMask(of node: RenderNode, with id: LayerID?, states: () -> [LayerID: LayerState],
                             detached: inout [RenderNode], created: inout [LayerID]) {
        node.structure.insert(.maskChanged)
        attachedNodes.append(node)
        if let old = node.maskNode, old.id != id {
            node.maskNode = nil
            old.parentNode = nil
            detached.append(old)
        }
        guard let id, node.maskNode?.id != id, let m = self.takeNode(for: id, under: node, states: states, created: &created) else { return }
        node.maskNode = m
    }

    /// Creates a layer's node and its new subtree from `states`; sublayers the tree holds
    /// already are moved under it.
    @discardableResult
    private func create(_ s: LayerState, parent: RenderNode?, from states: [LayerID: LayerState]) -> RenderNode {
        var ignored: [LayerID] = []
        return create(s, parent: parent, from: states, created: &ignored)
    }

    private func create(_ s: LayerState, parent: RenderNode?, from states: [LayerID: LayerState],
                        created: inout [LayerID]) -> RenderNode {
        let top = RenderNode(state: s, parent: parent)
        var stack: [RenderNode] = [top]
        while let node = stack.popLast() {
            let state = node.state
            if let older = nodes.updateValue(node, forKey: state.id), older !== node { older.isInTree = false }
            node.isInTree = true
            pendingNodes.append(node)
            if !state.effects.isEmpty { noteAnimations(of: node, model: state) }
            setContent(old: nil, new: state.contents)
            noteShader(of: node)
            created.append(state.id)
            for (i, id) in state.children.enumerated() {
                let child: RenderNode
                if let known = nodes[id] {
                    // Moved here from elsewhere in the tree.
                    detachFromParent(known)
                    known.parentNode = node
                    known.structure.insert(.attached)
                    attachedNodes.append(known)
                    child = known
                } else if let cs = states[id] {
                    child = RenderNode(state: cs, parent: node)
                    stack.append(child)
                } else {
                    continue
                }
                if state.mask == id && i == state.children.count - 1 { node.maskNode = child } else { node.appendChild(child) }
            }
        }
        return top
    }

    /// A node leaves with its subtree (descendants moved elsewhere stay), kept in
    /// `removedNodes` until the next frame removes its items.
    private func remove(_ node: RenderNode, removed: inout [LayerID]) {
        lastGeometryNodes = []   // (holds only nodes in the tree)
        var stack = [node]
        while let current = stack.popLast() {
            guard current.isInTree else { continue }
            for c in current.childNodes where c.parentNode === current { stack.append(c) }
            setContent(old: current.state.contents, new: nil)
            for c in current.animationContents { setContent(old: c, new: nil) }
            current.animationContents = []
            nodes[current.id] = nil
            current.isInTree = false
            animated[current.id] = nil
            removedNodes.append(current)
            removed.append(current.id)
        }
    }

    // MARK: Contents shown

    private func setContent(old: ContentRef?, new: ContentRef?) {
        guard old != new else { return }
        noteGL(old: old, new: new)
        if let old {
            let key = ContentKey(old)
            let n = (contentUsers[key] ?? 1) - 1
            if n <= 0 { contentUsers[key] = nil; unused.insert(key) } else { contentUsers[key] = n }
        }
        if let new {
            let key = ContentKey(new)
            contentUsers[key, default: 0] += 1
            unused.remove(key)
            if case .external(let e) = new, let buffer = e.buffer as? ExternalBuffer, externalsShown[buffer.id] == nil {
                externalsShown[buffer.id] = buffer
                newExternals.append(buffer)
            }
        }
    }

    /// Contents that no layer of the tree shows any more (since the last call).
    func takeUnusedContents() -> Set<ContentKey> {
        defer { unused = [] }
        let gone = unused.filter { contentUsers[$0] == nil }
        for case .external(let id) in gone { externalsShown[id] = nil }
        return gone
    }

    /// External buffers the tree shows (by id), and those it began showing since the last
    /// `takeNewExternals()`.
    private(set) var externalsShown: [UInt64: ExternalBuffer] = [:]
    private var newExternals: [ExternalBuffer] = []
    func takeNewExternals() -> [ExternalBuffer] { defer { newExternals = [] }; return newExternals }

    /// Every content shown now.
    var shownContents: Dictionary<ContentKey, Int>.Keys { contentUsers.keys }

    /// Counts a content as shown by an animation of `node` (or not any more).
    func setAnimationContents(_ shown: [ContentRef], of node: RenderNode) {
        guard shown != node.animationContents else { return }
        for c in shown { setContent(old: nil, new: c) }
        for c in node.animationContents { setContent(old: c, new: nil) }
        node.animationContents = shown
    }
}

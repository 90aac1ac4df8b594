import LaminaValues
import LaminaGeometry
import LaminaGPU

/// The renderer's own copy of one layer tree (Core Animation's render tree, Chromium's
/// impl tree): built from a snapshot, then kept up to date from `RenderUpdate`s — it
/// never reads the model, so it could live on another thread. GPU-free: it works out frame
/// plans (FramePlan.swift), and counts which contents are shown (so the compositor frees
/// a texture the moment no layer shows it, without scanning).
public final class RenderTree {
    public let rootID: LayerID

    /// A layer of the tree (a reference: the per-frame work updates it in place).
    final class Node {
        /// What the plan draws: the model's state, or — while it animates — the state its
        /// animations present (`advanceAnimations`).
        var state: LayerState
        /// The model's latest state, when it differs from `state` (animated layers).
        var model: LayerState?
        /// The properties its animations presented at the last frame.
        var lastPresented: LayerProperties?
        /// Contents its animations show (counted as shown, so they stay on the GPU).
        var animationContents: [ContentRef] = []
        /// A transition's old picture: which transition, and where it is in target points
        /// (nil: nothing was shown — it fades in from transparent). Set by the compositor.
        var transitionPicture: (id: UInt64, box: Box?)?
        /// Its superlayer's node (nil for the root).
        var parentNode: Node?
        var parent: LayerID? { parentNode?.state.id }
        init(state: LayerState, parent: Node?) { self.state = state; self.parentNode = parent }
        /// What changed since the last frame plan worked out its items (the union of the
        /// states' `changes` applied since).
        var changes: LayerChanges = .all
        /// The plan pass that last looked at it (dedupes work without a set).
        var mark = 0
        /// Sublayers in drawing order (increasing zPosition, stable), made when first needed
        /// after the sublayers or their zPositions changed.
        var ordered: [LayerID]?

        // What the last frame plan worked out (see FramePlan.swift).
        /// Bounds space → target points.
        var world = Transform3D.identity
        /// The sublayers' space → target points (`transformForSublayers` · `world`).
        var sublayerWorld = Transform3D.identity
        /// The opacity its quads are drawn with (within its surface).
        var alpha = 1.0
        /// Drawn at all: not hidden, not transparent, not facing away, nor under such a layer.
        var visible = false
        /// The surface holding its items: the root's, or the group it is drawn in.
        var surface = LayerID(rawValue: 0)
        /// Its items in that surface (background, contents, border, or its group composite).
        var items: [Int] = []
        /// Whether its subtree is drawn offscreen and composited as one image (group opacity).
        var isGroup = false
        /// Inside a transform layer's 3D context (order depends on depth).
        var inDepthContext = false
        /// The state its items were last worked out from (nil: none yet).
        var itemsState: PlannedFacts?
        /// The opacity it inherits (a group composites its image with this × its own).
        var inheritedAlpha = 1.0
        /// A group's own items, in its own surface (`items` holds its composite).
        var groupItems: [Int] = []
        /// Its clip (`masksToBounds`), the innermost link of the chain its contents and
        /// sublayers' items are clipped by (nil: it does not clip).
        var ownClip: ClipChain?
        /// The homogeneous w of its points at every space they pass through on the way to
        /// the target (its superlayer's plane, its superlayer's superlayer's, … the
        /// target), as linear functions of (x, y, z, 1) in its bounds space; those constant
        /// and positive are left out (no perspective: none). The layer is in front of the
        /// eye where every one is positive — the GPU clips only their product.
        var depthCuts: [DepthCut] = []
        /// `depthCuts` on its bounds plane (z = 0), for the render pass.
        var cutPlanes: [HalfPlane] = []

        /// Sets `depthCuts` (and `cutPlanes`, leaving out the w of `world` itself: the
        /// GPU clips that one).
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
        /// `transformForSublayers` of its state (worked out with its frame data).
        var toSublayers = Transform3D.identity

        deinit {
            // A chain of 10⁵ nodes each holding its parent: free it without recursion.
            var next = parentNode
            parentNode = nil
            while next != nil, isKnownUniquelyReferenced(&next!) {
                let after = next!.parentNode
                next!.parentNode = nil
                next = after
            }
        }
    }

    /// A linear function of a point (x, y, z, 1): the w its transform to some space gives it.
    struct DepthCut: Equatable {
        var x, y, z, w: Double

        /// The cuts of a layer whose points reach its parent's space by `t` · `s` (its
        /// `transformToSuperlayer`, the parent's `transformForSublayers`), from its parent's.
        /// Without perspective on the way, none (and no matrix product).
        static func through(_ t: Transform3D, _ s: Transform3D, from parent: [DepthCut], isLeaf: Bool = false) -> [DepthCut] {
            // A layer without sublayers needs only the cuts of the levels above it: its own
            // (the w of its world, with no cuts above) is the GPU's and Box.of's business.
            if isLeaf && parent.isEmpty { return [] }
            let own = DepthCut(x: t.m11 * s.m14 + t.m12 * s.m24 + t.m13 * s.m34 + t.m14 * s.m44,
                               y: t.m21 * s.m14 + t.m22 * s.m24 + t.m23 * s.m34 + t.m24 * s.m44,
                               z: t.m31 * s.m14 + t.m32 * s.m24 + t.m33 * s.m34 + t.m34 * s.m44,
                               w: t.m41 * s.m14 + t.m42 * s.m24 + t.m43 * s.m34 + t.m44 * s.m44)
            if parent.isEmpty && own.isConstantPositive { return [] }
            return through(t.concatenating(s), from: parent)
        }

        /// The cuts of a layer whose points reach its parent's space by `m`, from its parent's.
        static func through(_ m: Transform3D, from parent: [DepthCut]) -> [DepthCut] {
            var out: [DepthCut] = []
            let own = DepthCut(x: m.m14, y: m.m24, z: m.m34, w: m.m44)
            if parent.isEmpty && own.isConstantPositive { return out }
            out.reserveCapacity(parent.count + 1)
            for c in parent {
                let t = DepthCut(x: m.m11 * c.x + m.m12 * c.y + m.m13 * c.z + m.m14 * c.w,
                                 y: m.m21 * c.x + m.m22 * c.y + m.m23 * c.z + m.m24 * c.w,
                                 z: m.m31 * c.x + m.m32 * c.y + m.m33 * c.z + m.m34 * c.w,
                                 w: m.m41 * c.x + m.m42 * c.y + m.m43 * c.z + m.m44 * c.w)
                if !t.isConstantPositive && !out.contains(t) { out.append(t) }
            }
            if !own.isConstantPositive && !out.contains(own) { out.append(own) }
            return out
        }

        var isConstantPositive: Bool { x == 0 && y == 0 && z == 0 && w > 0 }

        /// Negative (or NaN) at every corner of `r` (z = 0): nothing of it is in front.
        func excludes(_ r: Rect) -> Bool {
            let x0 = r.minX * x, x1 = r.maxX * x, y0 = r.minY * y + w, y1 = r.maxY * y + w
            return !(x0 + y0 > 0 || x1 + y0 > 0 || x0 + y1 > 0 || x1 + y1 > 0)
        }
    }

    /// What the last frame plan saw of a layer, for telling which later changes alter the
    /// number or kind of its items (the states themselves are not kept).
    struct PlannedFacts {
        var hasBackground: Bool, hasContents: Bool, hasBorder: Bool, opacity: Double, isHidden: Bool
        /// The kinds of effect items and effect groups (`RenderTree.effectFacts`).
        var effects: UInt8
        /// The bounds planned with (a group whose bounds changed did not just move).
        var bounds: Rect
        init(_ s: LayerState) {
            hasBackground = s.backgroundColor != nil; hasContents = s.showsContents; hasBorder = s.borderWidth > 0
            opacity = s.opacity; isHidden = s.isHidden
            effects = RenderTree.effectFacts(s)
            bounds = s.bounds
        }
    }

    var nodes: [LayerID: Node] = [:]
    /// The target's surface (not the root layer's id: the root layer may be a group).
    static let rootSurfaceID = LayerID(rawValue: .max)
    var rootSurfaceID: LayerID { Self.rootSurfaceID }
    /// The surfaces of the last frame plan: the target's and one per group.
    var surfaces: [LayerID: Surface] = [:]
    /// Counts marks handed out by frame plans (`Node.mark`).
    var planPass = 0
    /// Changes applied since the last frame plan.
    /// Nodes changed or created since the last frame plan (possibly repeated).
    var pendingNodes: [Node] = []
    /// Layers left the tree since the last frame plan.
    var pendingRemovals = false
    /// Backing stores' pixels redrawn since the last frame plan (union per store), so that a
    /// partial redraw damages only its part of the layer.
    var redrawnPixels: [UInt64: PixelRect] = [:]

    /// Notes that `region` of a backing store's pixels changed.
    public func notePixels(of store: StoreRef, in region: PixelRect) {
        guard let r = redrawnPixels[store.id] else { redrawnPixels[store.id] = region; return }
        let x0 = min(r.x, region.x), y0 = min(r.y, region.y)
        let x1 = max(r.x + r.width, region.x + region.width), y1 = max(r.y + r.height, region.y + region.height)
        redrawnPixels[store.id] = PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
    /// The root's world transform, when it is not worked out from the placement (a copy
    /// of a subtree drawn where the subtree is: a transition's old picture).
    var rootWorld: Transform3D?
    /// Its depth cuts then (those of the levels above it).
    var rootDepthCuts: [DepthCut] = []
    /// The last plan's placement; another one needs a rebuild.
    var plannedPlacement: Transform3D?
    /// How many layers of the tree show each content.
    private(set) var contentUsers: [ContentKey: Int] = [:]
    /// Contents no layer shows any more since the last `takeUnusedContents()`.
    private var unused: Set<ContentKey> = []

    /// A tree from the states of a root and its whole subtree.
    public init(root: LayerID, states: [LayerID: LayerState]) {
        rootID = root
        guard let rootState = states[root] else { return }
        create(rootState, parent: nil, from: states)
    }

    /// The number of layers in the tree.
    public var count: Int { nodes.count }

    /// Whether the tree holds a layer.
    public func contains(_ id: LayerID) -> Bool { nodes[id] != nil }

    /// A layer's state in the tree.
    public func state(of id: LayerID) -> LayerState? { nodes[id]?.state }

    // MARK: Updates

    /// What applying an update changed in this tree.
    public struct Changes: Sendable {
        /// Layers whose state changed (created ones included).
        public var updated: [LayerID] = []
        /// Layers that left the tree.
        public var removed: [LayerID] = []
        public var isEmpty: Bool { updated.isEmpty && removed.isEmpty }
    }

    /// Brings the tree up to date: states of layers it holds replace theirs; sublayer
    /// lists that changed attach new layers (described in the update) and detach old ones
    /// (their subtrees leave, unless the update moves them elsewhere in the tree). States
    /// of layers of other trees are ignored. O(size of the update + subtrees removed).
    @discardableResult
    public func apply(_ update: RenderUpdate) -> Changes {
        var changes = Changes()
        defer {
            if !changes.removed.isEmpty { pendingRemovals = true }
            // Changes pile up while no frame is planned: past twice the tree, a rebuild is cheaper.
            if pendingNodes.count > max(1024, 2 * nodes.count) { pendingNodes = []; pendingRemovals = true }
        }
        guard !update.layers.isEmpty else { return changes }

        // Known layers take their new state; collect every sublayer list that changed.
        var newParents: [LayerID: LayerID] = [:]
        var detached: [LayerID] = []
        var structural: [LayerID] = []
        for s in update.layers {
            guard let node = nodes[s.id] else { continue }
            // Only what `changes` names is compared (the model's setters are the only way
            // these change; a layer the renderers may not know comes with all of them).
            let c = s.changes
            if c.contains(.sublayers), node.state.children != s.children {
                structural.append(s.id)
                let kept = Set(s.children)
                for c in node.state.children where !kept.contains(c) { detached.append(c) }
                node.ordered = nil
            }
            if c.contains(.contents) { setContent(old: node.state.contents, new: s.contents) }
            if c.contains(.zPosition), node.state.zPosition != s.zPosition { node.parentNode?.ordered = nil }
            // Timing and animations are the renderer's business here, not the plan's.
            let planned = c.subtracting([.animations, .timing])
            node.changes.formUnion(planned)
            node.state = s
            if c.contains(.animations) || node.model != nil { noteAnimations(of: node, model: s) }
            changes.updated.append(s.id)
            if !planned.isEmpty { pendingNodes.append(node) }
        }
        guard !structural.isEmpty else { return changes }
        var incoming: [LayerID: LayerState] = [:]
        incoming.reserveCapacity(update.layers.count)
        for s in update.layers { incoming[s.id] = s }
        // New sublayers: known ones move here; unknown ones are created from the update.
        for id in structural {
            guard let list = nodes[id]?.state.children else { continue }
            for c in list { newParents[c] = id }
        }
        for (child, parent) in Array(newParents) {
            if let node = nodes[child] {
                if node.parent != parent {
                    node.parentNode?.ordered = nil
                    node.parentNode = nodes[parent]
                }
            } else if let s = incoming[child] {
                create(s, parent: nodes[parent], from: incoming, created: &changes.updated, claims: &newParents)
            }
        }
        // Detached sublayers that found no new parent leave, with their subtrees (a
        // descendant moved elsewhere in the update stays).
        for id in detached where newParents[id] == nil {
            guard let node = nodes[id], let p = node.parent, nodes[p]?.state.children.contains(id) != true else { continue }
            remove(id, keeping: newParents, removed: &changes.removed)
        }
        return changes
    }

    private func create(_ s: LayerState, parent: Node?, from states: [LayerID: LayerState]) {
        var ignored: [LayerID] = []
        var claims: [LayerID: LayerID] = [:]
        create(s, parent: parent, from: states, created: &ignored, claims: &claims)
    }

    /// Creates a layer and its new subtree from `states`; sublayers the tree holds already
    /// are moved under it (recorded in `claims`, so that they are not removed).
    private func create(_ s: LayerState, parent: Node?, from states: [LayerID: LayerState],
                        created: inout [LayerID], claims: inout [LayerID: LayerID]) {
        var stack: [(LayerState, Node?)] = [(s, parent)]
        while let (state, parent) = stack.popLast() {
            let node = Node(state: state, parent: parent)
            nodes[state.id] = node
            pendingNodes.append(node)
            if !state.effects.isEmpty { noteAnimations(of: node, model: state) }
            setContent(old: nil, new: state.contents)
            created.append(state.id)
            for c in state.children {
                claims[c] = state.id
                if let known = nodes[c] {
                    if known.parentNode !== node { known.parentNode?.ordered = nil }
                    known.parentNode = node
                } else if let cs = states[c] {
                    stack.append((cs, node))
                }
            }
        }
    }

    private func remove(_ id: LayerID, keeping moved: [LayerID: LayerID], removed: inout [LayerID]) {
        var stack = [id]
        while let current = stack.popLast() {
            guard let node = nodes[current] else { continue }
            for c in node.state.children {
                if let p = moved[c], p != current { continue }   // moved out of the leaving subtree
                stack.append(c)
            }
            setContent(old: node.state.contents, new: nil)
            for c in node.animationContents { setContent(old: c, new: nil) }
            node.animationContents = []
            nodes[current] = nil
            animated[current] = nil
            removed.append(current)
        }
    }

    private func setContent(old: ContentRef?, new: ContentRef?) {
        guard old != new else { return }
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

    // MARK: Animations

    /// Layers with animations: their presented state is worked out every frame.
    var animated: [LayerID: Node] = [:]

    /// A layer's model state arrived: it animates (its presented state is worked out at
    /// the next frame) or stops animating (it shows the model again).
    private func noteAnimations(of node: Node, model: LayerState) {
        // (Most animations name no contents: then nothing is allocated here.)
        let shown = model.effects.contains { !$0.referencedContents.isEmpty } ? model.effects.flatMap(\.referencedContents) : []
        if shown != node.animationContents {
            for c in shown { setContent(old: nil, new: c) }
            for c in node.animationContents { setContent(old: c, new: nil) }
            node.animationContents = shown
        }
        if model.effects.isEmpty {
            if animated.removeValue(forKey: model.id) != nil, let shown = node.lastPresented, shown != model.properties {
                // Back to the model's values: planned again (damage: the presented box and the model's).
                node.changes.formUnion(Self.changes(from: shown, to: model.properties))
                if shown.zPosition != model.properties.zPosition { node.parentNode?.ordered = nil }
                pendingNodes.append(node)
            }
            node.model = nil
            node.lastPresented = nil
        } else {
            node.model = model
            animated[model.id] = node
        }
    }

    /// Works out what every animating layer shows at media time `time` (its animations
    /// applied to its model state, in its local time: the layer timing of its ancestors
    /// and its own). A layer whose presented properties changed is planned again like a
    /// changed one (damage: its old and new boxes). Returns whether any animation will
    /// show something else later (the frame clock must keep running).
    @discardableResult
    public func advanceAnimations(to time: Double) -> Bool {
        var running = false
        for node in animated.values {
            guard let model = node.model else { continue }
            // The layer's time, from the root down (only layers with timing of their own
            // change it: usually none).
            var timed: [LayerTiming] = []
            var n: Node? = node
            while let c = n {
                let timing = (c.model ?? c.state).properties.timing
                if timing != LayerTiming() { timed.append(timing) }
                n = c.parentNode
            }
            var t = time
            var frozen = false
            for timing in timed.reversed() {
                t = timing.local(t)
                if timing.speed == 0 { frozen = true }
            }
            var p = presentedProperties(model.properties, effects: model.effects, at: t)
            if model.preservesDepth { p.transition = nil }   // (a transform layer draws nothing of its own to fade)
            if !frozen && !running { running = model.effects.contains { $0.isRunning(at: t) } }
            if p != node.state.properties {
                node.state = model.presenting(p)
            }
            if let last = node.lastPresented, last == p { continue }
            let c = Self.changes(from: node.lastPresented ?? model.properties, to: p)
            if !c.isEmpty {
                node.changes.formUnion(c)
                pendingNodes.append(node)
                if c.contains(.zPosition) { node.parentNode?.ordered = nil }
            }
            node.lastPresented = p
        }
        return running
    }

    /// What differs between two sets of properties, as a renderer sees it.
    static func changes(from a: LayerProperties, to b: LayerProperties) -> LayerChanges {
        var c: LayerChanges = []
        if a.bounds != b.bounds || a.position != b.position || a.anchorPoint != b.anchorPoint || a.anchorPointZ != b.anchorPointZ
            || a.transform != b.transform || a.sublayerTransform != b.sublayerTransform { c.insert(.geometry) }
        if a.zPosition != b.zPosition { c.insert(.zPosition) }
        if a.opacity != b.opacity { c.insert(.opacity) }
        if a.backgroundColor != b.backgroundColor { c.insert(.background) }
        if a.borderColor != b.borderColor || a.borderWidth != b.borderWidth { c.insert(.border) }
        if a.cornerRadius != b.cornerRadius { c.insert(.cornerRadius) }
        if a.contentsRect != b.contentsRect || a.contentsCenter != b.contentsCenter || a.contentsFade != b.contentsFade {
            c.insert(.contents)
        }
        if a.shadowOpacity != b.shadowOpacity || a.shadowRadius != b.shadowRadius || a.shadowOffset != b.shadowOffset
            || a.shadowColor != b.shadowColor { c.insert(.shadow) }
        if a.transition?.id != b.transition?.id { c.insert(.groupOpacity) }   // it starts or ends: a group, or no longer
        if a.transition != b.transition { c.insert(.transitionProgress) }
        return c
    }

    // MARK: Render lists

    /// Sublayers of a node in drawing order (cached): by zPosition (NaN as 0), stable. One
    /// look-up per sublayer; a list whose zPositions are all equal is not sorted.
    func ordered(_ id: LayerID) -> [LayerID] {
        guard let node = nodes[id] else { return [] }
        if let o = node.ordered { return o }
        var subs: [(id: LayerID, z: Double)] = []
        subs.reserveCapacity(node.state.sublayers.count)
        var uniform = true
        for sub in node.state.sublayers {
            guard let n = nodes[sub] else { continue }
            let z = n.state.zPosition.isNaN ? 0 : n.state.zPosition
            if let first = subs.first, first.z != z { uniform = false }
            subs.append((sub, z))
        }
        let o: [LayerID]
        if uniform {
            o = subs.map(\.id)
        } else {
            o = subs.enumerated().sorted { x, y in
                x.element.z != y.element.z ? x.element.z < y.element.z : x.offset < y.offset
            }.map(\.element.id)
        }
        node.ordered = o
        return o
    }

    /// The sublayers of a transform layer, through nested transform layers, each with its
    /// world transform and its depth in the shared 3D space (z of its centre; NaN counts as
    /// 0), in the order of the sublayer lists (an explicit stack: any nesting).
    func collectPlanes(of id: LayerID, world: Transform3D, context: Transform3D, alpha: Double, cuts: [DepthCut],
                       into planes: inout [Plane], visited: inout Int) {
        guard let layer = nodes[id]?.state else { return }
        // Transform layers being expanded, each with the next sublayer to look at.
        var stack: [(layer: LayerState, world: Transform3D, context: Transform3D, alpha: Double, cuts: [DepthCut], next: Int)] =
            [(layer, world, context, alpha, cuts, 0)]
        while !stack.isEmpty {
            let top = stack.count - 1
            let frame = stack[top]
            guard frame.next < frame.layer.sublayers.count else { stack.removeLast(); continue }
            stack[top].next += 1
            guard let s = nodes[frame.layer.sublayers[frame.next]]?.state else { continue }
            let local = s.transformToSuperlayer.concatenating(frame.layer.transformForSublayers)
            let subWorld = local.concatenating(frame.world)
            let subContext = local.concatenating(frame.context)
            let subCuts = DepthCut.through(local, from: frame.cuts)
            if s.preservesDepth {
                visited += 1
                let opacity = RenderTree.opacity(of: s)
                guard !s.isHidden, opacity > 0 else { continue }
                stack.append((s, subWorld, subContext, frame.alpha * opacity, subCuts, 0))
            } else {
                let c = Point(x: s.bounds.midX, y: s.bounds.midY)
                let t = subContext
                let z = c.x * t.m13 + c.y * t.m23 + t.m43
                let w = c.x * t.m14 + c.y * t.m24 + t.m44
                let depth = abs(w) > 1e-12 ? z / w : z
                planes.append(Plane(id: s.id, world: subWorld, alpha: frame.alpha, depth: depth.isNaN ? 0 : depth, cuts: subCuts))
            }
        }
    }

    /// A layer of a transform layer's 3D context, placed.
    struct Plane {
        var id: LayerID, world: Transform3D, alpha: Double, depth: Double, cuts: [DepthCut]
    }

    /// Whether the layer's subtree draws at least two items (stops counting at two; an
    /// explicit stack: any depth).
    func drawsMoreThanOneItem(_ id: LayerID) -> Bool {
        var count = 0
        var stack = [id]
        var first = true
        while let next = stack.popLast() {
            guard let l = nodes[next]?.state else { continue }
            if !first && (l.isHidden || !(l.opacity > 0)) { continue }
            first = false
            if !l.preservesDepth {
                if l.backgroundColor != nil { count += 1 }
                if l.showsContents { count += 1 }
                if l.borderWidth > 0 { count += 1 }
                // Effect items: a shadow, a backdrop, a gradient, a replicator's instances.
                if l.hasShadow { count += 1 }
                if l.backdropBlurRadius > 0 { count += 1 }
                if l.properties.gradient != nil { count += 1 }
                if let r = l.properties.replicator, !l.sublayers.isEmpty { count += r.count }
                if count > 1 { return true }
            }
            stack.append(contentsOf: l.sublayers)
        }
        return false
    }

    /// True when the layer's front faces away from the viewer under `world`, or when none
    /// of it is in front of the eye (w > 0 nowhere on its bounds) — or its geometry is not
    /// finite: a single-sided layer is then not drawn.
    ///
    /// Facing is the orientation of the visible part: where w > 0, the Jacobian of the
    /// plane's homography H, (x, y, 1)·H = (X, Y, W) ↦ (X/W, Y/W), has determinant
    /// det H / W³, so its sign — the same at every visible point — is det H's. (Three
    /// projected corners say nothing once one of them is behind the eye: its projection
    /// is mirrored through the centre.)
    static func facesAway(_ bounds: Rect, _ world: Transform3D) -> Bool {
        let h = world.planeHomography.m
        let det = h[0] * (h[4] * h[8] - h[5] * h[7]) - h[1] * (h[3] * h[8] - h[5] * h[6]) + h[2] * (h[3] * h[7] - h[4] * h[6])
        guard det.isFinite, det > 0 else { return true }
        // w is linear over the bounds: it is positive somewhere iff at a corner.
        for x in [bounds.minX, bounds.maxX] {
            for y in [bounds.minY, bounds.maxY] where x * world.m14 + y * world.m24 + world.m44 > 0 { return false }
        }
        return true
    }
}

import LaminaValues
import LaminaGeometry
import LaminaGPU

/// An axis-aligned box in target points.
struct Box: Equatable {
    var minX, minY, maxX, maxY: Double

    init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX; self.minY = minY; self.maxX = maxX; self.maxY = maxY
    }
    init(_ r: Rect) { self.init(minX: r.minX, minY: r.minY, maxX: r.maxX, maxY: r.maxY) }

    var isEmpty: Bool { !(maxX > minX && maxY > minY) }
    var area: Double { isEmpty ? 0 : (maxX - minX) * (maxY - minY) }
    var rect: Rect { Rect(x: minX, y: minY, width: max(0, maxX - minX), height: max(0, maxY - minY)) }

    func union(_ b: Box) -> Box {
        Box(minX: min(minX, b.minX), minY: min(minY, b.minY), maxX: max(maxX, b.maxX), maxY: max(maxY, b.maxY))
    }
    func intersection(_ b: Box) -> Box {
        Box(minX: max(minX, b.minX), minY: max(minY, b.minY), maxX: min(maxX, b.maxX), maxY: min(maxY, b.maxY))
    }
    func intersects(_ b: Box) -> Bool { minX < b.maxX && b.minX < maxX && minY < b.maxY && b.minY < maxY }

    /// No box: nothing drawn (an empty box, which `intersection` keeps empty).
    static let none = Box(minX: 0, minY: 0, maxX: 0, maxY: 0)

    /// Target coordinates beyond this (points) are not drawn: past it, single-precision
    /// clip-space coordinates lose all meaning (and reach infinity near 3.4e38).
    static let maxMagnitude = 1e15

    /// The screen box of `rect` (a layer's bounds space) under `world`; with any corner at
    /// or behind the eye (w ≤ 0) the projection is unbounded: `everything` (none when every
    /// corner is behind it: nothing is visible). Non-finite geometry (NaN or ∞ in the
    /// rectangle or the transform) or corners landing beyond `maxMagnitude` points are not
    /// drawn: `Box.none`.
    static func of(_ rect: Rect, _ world: Transform3D, everything: Box) -> Box {
        let xs = (rect.minX, rect.maxX), ys = (rect.minY, rect.maxY)
        var b = Box(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
        var behind = 0
        for i in 0..<4 {
            let x = i & 1 == 0 ? xs.0 : xs.1, y = i & 2 == 0 ? ys.0 : ys.1
            let w = x * world.m14 + y * world.m24 + world.m44
            let px = x * world.m11 + y * world.m21 + world.m41
            let py = x * world.m12 + y * world.m22 + world.m42
            guard w.isFinite, px.isFinite, py.isFinite else { return .none }
            guard w > 1e-6 else { behind += 1; continue }
            let sx = px / w, sy = py / w
            guard abs(sx) <= maxMagnitude, abs(sy) <= maxMagnitude else { return .none }
            b.minX = min(b.minX, sx); b.minY = min(b.minY, sy); b.maxX = max(b.maxX, sx); b.maxY = max(b.maxY, sy)
        }
        if behind == 4 { return .none }
        if behind > 0 { return everything }
        // Antialiased edges reach half a pixel out; a point of slack covers any scale ≥ 0.5.
        return Box(minX: b.minX - 1, minY: b.minY - 1, maxX: b.maxX + 1, maxY: b.maxY + 1)
    }
}

/// The `masksToBounds` clips around items of one surface, as a chain shared by every item
/// inside the same clips (an item holds its innermost link: O(1) per item at any depth).
/// Each link belongs to the clipping layer and is brought up to date with its frame data.
final class ClipChain {
    /// The clipping layer.
    unowned let node: RenderTree.Node
    /// The clips around this one (nil: none in this surface).
    private(set) var parent: ClipChain?
    /// The intersection of the boxes of every clip of the chain, in target points (empty:
    /// everything is clipped away).
    var box = Box.none
    /// What a renderer pushes for this link: its own shape on top of `stencilParent`'s, or —
    /// when this clip and the one around it are both axis-aligned rectangles in target
    /// points — their intersection, replacing the parent's (`rect`). A chain of any number of
    /// axis-aligned clips is then one stencil level.
    private(set) var stencilParent: ClipChain?
    /// The axis-aligned rectangle (target points) the link stands for, when it is one.
    private(set) var rect: Rect?
    /// The number of stencil levels the chain needs (this one's included).
    private(set) var stencilDepth = 1
    /// Links in the chain (this one's included).
    let depth: Int

    init(node: RenderTree.Node, parent: ClipChain?) {
        self.node = node; self.parent = parent
        depth = (parent?.depth ?? 0) + 1
    }

    deinit {
        // Chains can be 10⁵ links long: free them without recursion.
        var next = parent
        parent = nil
        while next != nil, isKnownUniquelyReferenced(&next!) {
            let after = next!.parent
            next!.parent = nil
            next = after
        }
    }

    /// Works out the box and the stencil shape from the node's world transform (its
    /// parent link is up to date).
    func refresh(everything: Box) {
        let s = node.state, world = node.world
        var own = Box.of(s.bounds, world, everything: everything)
        if node.depthCuts.contains(where: { $0.excludes(s.bounds) }) { own = .none }
        box = parent.map { $0.box.intersection(own) } ?? own
        if box.isEmpty { box = .none }
        // An axis-aligned rectangle: scale and translation only, no corner radius.
        var r: Rect?
        if !(s.cornerRadius > 0), world.m12 == 0, world.m21 == 0, world.m14 == 0, world.m24 == 0, world.m44 == 1,
           world.m11 != 0, world.m22 != 0 {
            let b = s.bounds
            let x0 = b.minX * world.m11 + world.m41, x1 = b.maxX * world.m11 + world.m41
            let y0 = b.minY * world.m22 + world.m42, y1 = b.maxY * world.m22 + world.m42
            if x0.isFinite, x1.isFinite, y0.isFinite, y1.isFinite {
                r = Rect(x: min(x0, x1), y: min(y0, y1), width: abs(x1 - x0), height: abs(y1 - y0))
            }
        }
        if let r, let p = parent, let pr = p.rect {
            let x0 = max(r.minX, pr.minX), y0 = max(r.minY, pr.minY)
            let x1 = min(r.maxX, pr.maxX), y1 = min(r.maxY, pr.maxY)
            rect = Rect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
            stencilParent = p.stencilParent
        } else {
            rect = r
            stencilParent = parent
        }
        stencilDepth = (stencilParent?.stencilDepth ?? 0) + 1
    }

    /// The clipping layers, outermost first (O(depth): for tests and debugging).
    var layers: [LayerID] {
        var out: [LayerID] = []
        var c: ClipChain? = self
        while let link = c { out.append(link.node.state.id); c = link.parent }
        return out.reversed()
    }
}

/// One drawable thing of a surface, in paint order. What it draws is read from its node
/// when drawn (the node's world transform, opacity and state were brought up to date by
/// the same frame's plan).
struct Item {
    enum Slot { case shadow, backdrop, background, gradient, contents, replicas, border, group }
    let node: RenderTree.Node
    let slot: Slot
    /// The `masksToBounds` clips around it within its surface (nil: none).
    var clip: ClipChain?
    /// The clipping layers, outermost first (O(depth): for tests).
    var clips: [LayerID] { clip?.layers ?? [] }
    /// Where, in target points (nil: it draws nothing — hidden, transparent, empty, or
    /// clipped away).
    var bounds: Box?
    /// Contents: where they are drawn in the layer's bounds space, and their size in points.
    var frame = Rect.zero
    var contentSize = Size.zero
    /// Contents: where the compositor keeps them (its cache, cleared when the contents change).
    var place: ContentPlace?

    init(node: RenderTree.Node, slot: Slot, clip: ClipChain?) {
        self.node = node; self.slot = slot; self.clip = clip
    }
    var id: LayerID { node.state.id }
}

/// What is drawn into one target: the root's (the render target itself), or a group's
/// offscreen image (group opacity), cached until something in it changes.
final class Surface {
    let id: LayerID
    var items: [Item] = []
    /// The union of the items' bounds (a group's image covers this).
    var bounds: Box?
    /// Something in it changed since its image was last rendered (groups).
    var isDirty = true
    /// Its composite (a transition's mix of its old picture and its image) is to be made
    /// again, its image is not.
    var compositeIsStale = false
    /// Everything in it moved by this translation (target points) since its image was
    /// rendered, and nothing else changed: the image is reused where the move is a whole
    /// number of pixels (`Compositor.groupImage`).
    var shift: (dx: Double, dy: Double)?
    /// How many times its image was rendered (a composite made from it knows when it is old).
    var renders = 0
    /// Where the items are, for finding those in a small damaged region (root only).
    var grid: Grid?
    /// The backdrop-blur items (root only): damage within their reach grows by it.
    var backdrops: [Int] = []
    /// A mask's surface: the layer it masks (its image multiplies that layer's composite).
    var maskOwner: LayerID?
    /// A replicator's surface (its sublayers): the replicator (its image is drawn per instance).
    var replicaOwner: LayerID?
    /// The layer whose composite shows this surface's image (groups: the group itself).
    var owner: LayerID? { maskOwner ?? replicaOwner }
    init(id: LayerID) { self.id = id }

    func recomputeBounds() {
        var b: Box?
        for item in items { if let ib = item.bounds { b = b.map { $0.union(ib) } ?? ib } }
        bounds = b
    }
}

/// A uniform grid over the target: which root-surface items touch each cell.
struct Grid {
    static let cell = 64.0
    let columns: Int, rows: Int
    var cells: [[Int32]]
    /// Items too large for cells (covering very many), drawn whenever they meet the damage.
    var large: Set<Int32> = []
    /// The cells each item is in (x0, y0, x1, y1; empty range: none).
    var placement: [Int32: (Int, Int, Int, Int)] = [:]

    init(size: Size) {
        columns = max(1, Int((size.width / Grid.cell).rounded(.up)))
        rows = max(1, Int((size.height / Grid.cell).rounded(.up)))
        cells = Array(repeating: [], count: columns * rows)
    }

    /// The cells a box covers (nil: none). Any box is safe: NaN covers nothing, and the
    /// cell numbers are clamped before they become integers (a box 1e300 wide covers every
    /// column, not 1e298 of them).
    private func range(_ b: Box) -> (Int, Int, Int, Int)? {
        guard b.maxX > 0, b.maxY > 0, b.minX <= b.maxX, b.minY <= b.maxY else { return nil }
        func cell(_ v: Double, _ count: Int) -> Int {
            let c = (v / Grid.cell).rounded(.down)
            return c <= 0 ? 0 : c >= Double(count - 1) ? count - 1 : Int(c)
        }
        let x0 = cell(b.minX, columns), y0 = cell(b.minY, rows), x1 = cell(b.maxX, columns), y1 = cell(b.maxY, rows)
        guard x0 <= x1, y0 <= y1, b.minX < Double(columns) * Grid.cell, b.minY < Double(rows) * Grid.cell else { return nil }
        return (x0, y0, x1, y1)
    }

    mutating func insert(_ item: Int32, _ b: Box?) {
        guard let b, let (x0, y0, x1, y1) = range(b) else { return }
        if (x1 - x0 + 1) * (y1 - y0 + 1) > 64 { large.insert(item); placement[item] = (1, 1, 0, 0); return }
        for y in y0...y1 { for x in x0...x1 { cells[y * columns + x].append(item) } }
        placement[item] = (x0, y0, x1, y1)
    }

    mutating func remove(_ item: Int32) {
        guard let (x0, y0, x1, y1) = placement.removeValue(forKey: item) else { return }
        if x0 > x1 { large.remove(item); return }
        for y in y0...y1 {
            for x in x0...x1 {
                let c = y * columns + x
                if let i = cells[c].firstIndex(of: item) { cells[c].swapAt(i, cells[c].count - 1); cells[c].removeLast() }
            }
        }
    }

    /// Items whose cells meet `b` (duplicates possible).
    func query(_ b: Box, into out: inout [Int32]) {
        out.append(contentsOf: large)
        guard let (x0, y0, x1, y1) = range(b) else { return }
        for y in y0...y1 { for x in x0...x1 { out.append(contentsOf: cells[y * columns + x]) } }
    }
}

/// What a frame redraws, worked out by the render tree without a GPU: the damaged region
/// and the root surface's items to draw there (group images to render again are flagged
/// on their surfaces).
public struct FramePlan {
    /// The region recomposited, in target points: the target (full frames), the union of
    /// what changed, or empty (nothing to draw).
    public var damage: Rect
    /// Whether the whole target is redrawn (the first frame, a structural change, a new
    /// target or placement).
    public var isFull: Bool
    /// Layers whose frame data was worked out (all of them when rebuilt; O(changed) else).
    public var layersVisited: Int
    /// Whether the item lists were rebuilt from the tree (a structural change).
    public var rebuilt: Bool
    /// The root surface's items to draw, in paint order (nil: all).
    var items: [Int]?
}

extension RenderTree {
    // MARK: Planning a frame

    /// Works out the next frame for a target of `size` points: brings the per-layer data
    /// up to date from the changes applied since the last plan (incrementally, or by a
    /// rebuild after structural changes), and returns the damage and what to draw.
    /// `full` asks for the whole target (a new target, a cleared background).
    func plan(size: Size, placement: Transform3D = .identity, full: Bool) -> FramePlan {
        let everything = Box(minX: 0, minY: 0, maxX: size.width, maxY: size.height)
        let changed = pendingNodes, removals = pendingRemovals
        pendingNodes = []
        pendingRemovals = false
        defer { redrawnPixels = [:] }
        var visited = 0
        var damage: Box?
        var rebuild = surfaces.isEmpty || plannedPlacement != placement || removals
        if !rebuild {
            for node in changed where isStructural(node) { rebuild = true; break }
        }
        if rebuild {
            visited = rebuildSurfaces(placement: placement, everything: everything)
            plannedPlacement = placement
        } else if !changed.isEmpty {
            (visited, damage) = update(changed, everything: everything)
        }
        let root = surfaces[rootSurfaceID]
        if rebuild || full || root == nil {
            return FramePlan(damage: everything.rect, isFull: true, layersVisited: visited, rebuilt: rebuild, items: nil)
        }
        guard var d = damage?.intersection(everything), !d.isEmpty else {
            return FramePlan(damage: .zero, isFull: false, layersVisited: visited, rebuilt: false, items: [])
        }
        if let root, !root.backdrops.isEmpty { d = grownForBackdrops(d, root).intersection(everything) }
        return FramePlan(damage: d.rect, isFull: false, layersVisited: visited, rebuilt: false, items: items(meeting: d, size: size))
    }

    /// Damage grown for backdrop blurs: a backdrop whose blur reaches into the damage shows
    /// something new, and drawing it needs what lies under it, within the blur's reach,
    /// drawn again too — so the damage takes in the layer's box grown by that reach (and
    /// again, for backdrops the grown damage now reaches).
    func grownForBackdrops(_ damage: Box, _ root: Surface) -> Box {
        var d = damage
        var pending = root.backdrops
        var grew = true
        while grew {
            grew = false
            pending.removeAll { index in
                let item = root.items[index]
                guard let b = item.bounds else { return true }
                let reach = BlurRadius.reach(ofRadius: item.node.state.backdropBlurRadius) * PlaneMath.linearScale(item.node.world) + 1
                let grown = Box(minX: b.minX - reach, minY: b.minY - reach, maxX: b.maxX + reach, maxY: b.maxY + reach)
                guard grown.intersects(d) else { return false }
                d = d.union(grown)
                grew = true
                return true
            }
        }
        return d
    }

    /// The same plan for the whole target.
    func fullPlan(_ plan: FramePlan, size: Size) -> FramePlan {
        var p = plan
        p.isFull = true
        p.damage = Rect(origin: .zero, size: size)
        p.items = nil
        return p
    }

    /// The same plan for a larger damage (the frames a rotating buffer missed).
    func replan(_ plan: FramePlan, damage: Box, size: Size) -> FramePlan {
        let everything = Box(minX: 0, minY: 0, maxX: size.width, maxY: size.height)
        var d = damage.intersection(everything)
        if !d.isEmpty, let root = surfaces[rootSurfaceID], !root.backdrops.isEmpty { d = grownForBackdrops(d, root).intersection(everything) }
        var p = plan
        p.damage = d.isEmpty ? .zero : d.rect
        p.items = d.isEmpty ? [] : items(meeting: d, size: size)
        return p
    }

    /// The root surface's items meeting a damaged box, in paint order: from the grid for
    /// a small box; all of them (nil) for a large one.
    private func items(meeting d: Box, size: Size) -> [Int]? {
        guard let root = surfaces[rootSurfaceID], d.area < 0.5 * size.width * size.height else { return nil }
        if root.grid == nil {
            var grid = Grid(size: size)
            for (i, item) in root.items.enumerated() { grid.insert(Int32(i), item.bounds) }
            root.grid = grid
        }
        var found: [Int32] = []
        root.grid!.query(d, into: &found)
        found.sort()      // paint order; an item in several cells comes once per cell
        var result: [Int] = []
        result.reserveCapacity(found.count)
        var last: Int32 = -1
        for i in found where i != last {
            last = i
            if root.items[Int(i)].bounds?.intersects(d) == true { result.append(Int(i)) }
        }
        return result
    }

    /// A change that moves items between surfaces or changes their order or number: the
    /// plan is rebuilt from the tree. Only what the node's `changes` name is compared.
    private func isStructural(_ node: Node) -> Bool {
        if node.surface.rawValue == 0 || node.inDepthContext || node.state.preservesDepth { return true }
        guard let old = node.itemsState else { return true }
        let c = node.changes, s = node.state
        if !c.isDisjoint(with: [.sublayers, .zPosition, .masksToBounds, .groupOpacity]) { return true }
        if c.contains(.background) && old.hasBackground != (s.backgroundColor != nil) { return true }
        if c.contains(.contents) && old.hasContents != s.showsContents { return true }
        if c.contains(.border) && old.hasBorder != (s.borderWidth > 0) { return true }
        if !c.isDisjoint(with: [.shadow, .effects, .background, .contents, .border, .sublayers]) && old.effects != RenderTree.effectFacts(s) {
            return true
        }
        if c.contains(.opacity) && (old.opacity < 1) != (s.opacity < 1) { return true }
        // Visibility and opacity of a layer inside a possible group decide whether the group
        // draws one item or more (and so whether it is a group).
        if (c.contains(.hidden) && old.isHidden != s.isHidden) || (c.contains(.opacity) && (old.opacity > 0) != (s.opacity > 0)) {
            var p = node.parentNode
            while let pn = p {
                if pn.state.opacity < 1 && pn.state.allowsGroupOpacity { return true }
                p = pn.parentNode
            }
        }
        return false
    }

    // MARK: Rebuild

    private func rebuildSurfaces(placement: Transform3D, everything: Box) -> Int {
        for node in nodes.values {
            node.surface = LayerID(rawValue: 0)
            node.items = []
            node.groupItems = []
            node.isGroup = false
            node.inDepthContext = false
            node.itemsState = nil
            node.changes = []
            node.ownClip = nil
        }
        surfaces = [:]
        let root = Surface(id: rootSurfaceID)
        surfaces[rootSurfaceID] = root
        guard let rootNode = nodes[rootID] else { return 0 }
        var visited = 0
        walk(rootNode, world: rootWorld ?? rootNode.state.transformToSuperlayer.concatenating(.flatten).concatenating(placement),
             surface: root, everything: everything, visited: &visited)
        return visited
    }

    /// One step of the rebuild's walk (an explicit stack: trees of any depth).
    private enum Step {
        /// Work out a layer (and push its sublayers).
        case visit(Node, world: Transform3D, alpha: Double, parentVisible: Bool, surface: Surface, clip: ClipChain?, inDepth: Bool,
                   cuts: [DepthCut])
        /// After a layer's sublayers: its border, then its items' boxes.
        case finishContent(Node, Surface, clip: ClipChain?)
        /// After a group's content: the box of its composite in the parent surface.
        case finishGroup(Node, Surface, parent: Surface, index: Int)
        /// After a mask's content: its surface's box.
        case finishMask(Surface)
        /// After a replicator's sublayers: their surface's box.
        case finishReplicas(Node, Surface)
    }

    /// Works out the frame data of a subtree and its items, in paint order, without
    /// recursion.
    private func walk(_ start: Node, world startWorld: Transform3D, surface startSurface: Surface, everything: Box,
                      visited: inout Int) {
        let startCuts = rootWorld != nil ? rootDepthCuts : DepthCut.through(startWorld, from: [])
        var steps: [Step] = [.visit(start, world: startWorld, alpha: 1, parentVisible: true, surface: startSurface, clip: nil,
                                    inDepth: false, cuts: startCuts)]
        var planes: [Plane] = []
        while let step = steps.popLast() {
            switch step {
            case let .visit(node, world, alpha, parentVisible, surface, clip, inDepth, cuts):
                visited += 1
                let layer = node.state
                let opacity = RenderTree.opacity(of: layer)
                let visible = parentVisible && !layer.isHidden && opacity > 0 && alpha > 0
                    && (layer.isDoubleSided || !RenderTree.facesAway(layer.bounds, world))
                node.world = world
                node.toSublayers = layer.transformForSublayers
                node.sublayerWorld = node.toSublayers.concatenating(world)
                node.visible = visible
                node.surface = surface.id
                node.inDepthContext = inDepth
                node.itemsState = PlannedFacts(layer)
                node.changes = []
                node.inheritedAlpha = alpha
                node.setDepthCuts(cuts)

                if layer.preservesDepth {
                    // A transform layer draws nothing itself; its 3D context is sorted back to front.
                    planes.removeAll(keepingCapacity: true)
                    var context = layer.transformToSuperlayer
                    if let p = node.parentNode?.state { context = context.concatenating(p.sublayerTransformAboutAnchor) }
                    collectPlanes(of: layer.id, world: world, context: context, alpha: alpha * opacity, cuts: cuts, into: &planes,
                                  visited: &visited)
                    markDepthContext(layer.id)
                    let sorted = planes.enumerated().sorted { a, b in
                        a.element.depth != b.element.depth ? a.element.depth < b.element.depth : a.offset < b.offset
                    }
                    for (_, plane) in sorted.reversed() {
                        guard let n = nodes[plane.id] else { continue }
                        steps.append(.visit(n, world: plane.world, alpha: plane.alpha, parentVisible: visible, surface: surface,
                                            clip: clip, inDepth: true, cuts: plane.cuts))
                    }
                    continue
                }

                // A transition composites the layer's picture (its old one cross-fading into it).
                let group = layer.properties.transition != nil
                    || (opacity < 1 && layer.allowsGroupOpacity && drawsMoreThanOneItem(layer.id))
                    || RenderTree.needsEffectGroup(layer)
                node.isGroup = group
                node.alpha = group ? RenderTree.alphaInGroup(layer, opacity) : alpha * opacity
                if group {
                    let sub = Surface(id: layer.id)
                    surfaces[layer.id] = sub
                    // A group's backdrop is what lies behind it: drawn in the parent's surface,
                    // before the composite (listed after it: the composite's index comes first).
                    var outer: [Int] = []
                    if layer.backdropBlurRadius > 0 {
                        outer.append(surface.items.count)
                        surface.items.append(Item(node: node, slot: .backdrop, clip: clip))
                        if surface.id == rootSurfaceID { surface.backdrops.append(surface.items.count - 1) }
                    }
                    let index = surface.items.count
                    surface.items.append(Item(node: node, slot: .group, clip: clip))
                    node.items = [index] + outer
                    steps.append(.finishGroup(node, sub, parent: surface, index: index))
                    beginContent(node, surface: sub, clip: nil, everything: everything, steps: &steps)
                    if let m = layer.mask, let maskNode = nodes[m] {
                        // The mask: a surface of its own, its geometry in the layer's space.
                        let masks = Surface(id: RenderTree.maskSurfaceID(of: layer.id))
                        masks.maskOwner = layer.id
                        surfaces[masks.id] = masks
                        steps.append(.finishMask(masks))
                        // (In the layer's bounds space, flattened into its plane; its sublayerTransform
                        // is for its sublayers, not its mask.)
                        let local = maskNode.state.transformToSuperlayer
                        steps.append(.visit(maskNode, world: local.concatenating(Transform3D.flatten).concatenating(node.world), alpha: 1,
                                            parentVisible: true, surface: masks, clip: nil, inDepth: false,
                                            cuts: DepthCut.through(local, .flatten, from: node.depthCuts,
                                                                   isLeaf: maskNode.state.sublayers.isEmpty)))
                    }
                } else {
                    beginContent(node, surface: surface, clip: clip, everything: everything, steps: &steps)
                }

            case let .finishContent(node, surface, clip):
                var own = node.isGroup ? node.groupItems : node.items
                if node.state.borderWidth > 0 {
                    own.append(surface.items.count)
                    surface.items.append(Item(node: node, slot: .border, clip: clip))
                }
                // A group node's own items live in its surface; its composite item is kept first.
                if node.isGroup { node.groupItems = own } else { node.items = own }
                refreshItems(node, everything: everything)

            case let .finishMask(masks):
                masks.recomputeBounds()

            case let .finishReplicas(_, replicas):
                replicas.recomputeBounds()

            case let .finishGroup(node, sub, parent, index):
                refreshOuterItems(node, everything: everything)
                sub.recomputeBounds()
                var b = compositeBox(node, sub)
                if let box = b, let clip = parent.items[index].clip {
                    let clipped = box.intersection(clip.box)
                    b = clipped.isEmpty ? nil : clipped
                }
                parent.items[index].bounds = b
            }
        }
    }

    /// A layer's own items before its sublayers (background, contents), its clip, and the
    /// steps for its sublayers and its border, into `surface`.
    private func beginContent(_ node: Node, surface: Surface, clip: ClipChain?, everything: Box, steps: inout [Step]) {
        let layer = node.state
        var own: [Int] = []
        var inner = clip
        if layer.masksToBounds {
            let link = ClipChain(node: node, parent: clip)
            link.refresh(everything: everything)
            node.ownClip = link
            inner = link
        } else {
            node.ownClip = nil
        }
        // A shadow drawn as an item of its own (a layer-alpha shadow is drawn with the
        // group's composite); clipped by the layer's own masksToBounds, as Core Animation's.
        switch layer.shadowKind {
        case .analytic?, .mask?:
            own.append(surface.items.count)
            surface.items.append(Item(node: node, slot: .shadow, clip: inner))
        default: break
        }
        if layer.backdropBlurRadius > 0, !node.isGroup {
            own.append(surface.items.count)
            surface.items.append(Item(node: node, slot: .backdrop, clip: clip))
            if surface.id == rootSurfaceID { surface.backdrops.append(surface.items.count - 1) }
        }
        if layer.backgroundColor != nil {
            own.append(surface.items.count)
            surface.items.append(Item(node: node, slot: .background, clip: clip))
        }
        if layer.properties.gradient != nil {
            // (Clipped like contents: by the layer's own masksToBounds.)
            own.append(surface.items.count)
            surface.items.append(Item(node: node, slot: .gradient, clip: inner))
        }
        if layer.showsContents {
            own.append(surface.items.count)
            surface.items.append(Item(node: node, slot: .contents, clip: inner))
        }
        // A replicator's sublayers go into a surface of their own (drawn once offscreen, at
        // alpha 1 and unclipped); its instances are one item here, clipped by its clips.
        var sublayerSurface = surface, sublayerAlpha = node.alpha, sublayerClip = inner
        if let r = layer.properties.replicator {
            let replicas = Surface(id: RenderTree.replicaSurfaceID(of: layer.id))
            replicas.replicaOwner = layer.id
            surfaces[replicas.id] = replicas
            if r.count > 0 {
                own.append(surface.items.count)
                surface.items.append(Item(node: node, slot: .replicas, clip: inner))
            }
            sublayerSurface = replicas
            sublayerAlpha = 1
            sublayerClip = nil
            steps.append(.finishReplicas(node, replicas))   // (after the sublayers, before the border)
        }
        if node.isGroup { node.groupItems = own } else { node.items = own }
        if layer.properties.replicator == nil { steps.append(.finishContent(node, surface, clip: clip)) }
        else { steps.insert(.finishContent(node, surface, clip: clip), at: steps.count - 1) }
        for sub in ordered(layer.id).reversed() {
            guard let n = nodes[sub] else { continue }
            let local = n.state.transformToSuperlayer
            steps.append(.visit(n, world: local.concatenating(node.sublayerWorld),
                                alpha: sublayerAlpha, parentVisible: node.visible, surface: sublayerSurface, clip: sublayerClip, inDepth: false,
                                cuts: DepthCut.through(local, node.toSublayers, from: node.depthCuts, isLeaf: n.state.sublayers.isEmpty)))
        }
    }

    /// Where a group's composite goes in its parent surface (before clipping): its image's
    /// box — and, in a transition, the old picture's too.
    private func compositeBox(_ node: Node, _ surface: Surface) -> Box? {
        if let t = node.state.properties.transition, let old = node.transitionPicture, old.id == t.id, let ob = old.box {
            // The old picture shows even when the layer itself is now hidden or transparent
            // (a transition that hides it fades it out) — not when a superlayer hides it.
            guard node.inheritedAlpha > 0, node.parentNode?.visible ?? true else { return nil }
            return node.visible ? surface.bounds.map { $0.union(ob) } ?? ob : ob
        }
        guard node.visible, let b = surface.bounds else { return nil }
        if node.state.shadowKind == .layerAlpha, let shadow = RenderTree.shadowBox(of: b, node) { return b.union(shadow) }
        return b
    }

    /// Where a layer-alpha shadow of a group image covering `image` (target points) goes.
    static func shadowBox(of image: Box, _ node: Node) -> Box? {
        let (dx, dy, sigma) = shadowPlacement(node)
        let reach = 3 * sigma + 1
        let b = Box(minX: image.minX + dx - reach, minY: image.minY + dy - reach, maxX: image.maxX + dx + reach, maxY: image.maxY + dy + reach)
        return b.isEmpty ? nil : b
    }

    /// A layer-alpha shadow in target points: its offset (the layer's shadowOffset through
    /// the linear part of its world transform) and σ (scaled by the transform's mean scale).
    static func shadowPlacement(_ node: Node) -> (dx: Double, dy: Double, sigma: Double) {
        let w = node.world, o = node.state.properties.shadowOffset
        let sigma = BlurRadius.sigma(forRadius: node.state.properties.shadowRadius) * PlaneMath.linearScale(w)
        return (o.width * w.m11 + o.height * w.m21, o.width * w.m12 + o.height * w.m22, sigma)
    }

    /// The 2-D translation taking `a` to `b` (applied after it), when that is all that differs
    /// and both are affine (nil otherwise).
    static func translation(from a: Transform3D, to b: Transform3D) -> (dx: Double, dy: Double)? {
        guard isAffine(a), isAffine(b), a.m11 == b.m11, a.m12 == b.m12, a.m13 == b.m13, a.m21 == b.m21, a.m22 == b.m22, a.m23 == b.m23,
              a.m31 == b.m31, a.m32 == b.m32, a.m33 == b.m33, a.m43 == b.m43 else { return nil }
        return (b.m41 - a.m41, b.m42 - a.m42)
    }

    /// Whether boxes `b` are boxes `a` moved by `d` (to rounding).
    static func shifted(_ a: [Box?], by d: (dx: Double, dy: Double), equals b: [Box?]) -> Bool {
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

    /// No perspective: w is 1 for every point.
    static func isAffine(_ w: Transform3D) -> Bool { w.m14 == 0 && w.m24 == 0 && w.m34 == 0 && w.m44 == 1 }

    /// The kinds of effect items and groups a layer has (a change of them is structural).
    static func effectFacts(_ s: LayerState) -> UInt8 {
        var f: UInt8 = 0
        switch s.shadowKind {
        case .analytic?: f |= 1
        case .mask?: f |= 2
        case .layerAlpha?: f |= 4
        case nil: break
        }
        if s.backdropBlurRadius > 0 { f |= 8 }
        if s.compositingFilter != nil { f |= 16 }
        if s.properties.gradient != nil { f |= 32 }
        // A replicator: no instance, one, or more (whether it has an item, and counts as
        // several items for group opacity).
        if let r = s.properties.replicator { f |= r.count == 0 ? 128 : r.count == 1 ? 192 : 64 }
        return f
    }

    /// Effects that composite the layer and its subtree as one image: a blend mode, a
    /// shadow that follows their alpha.
    static func needsEffectGroup(_ s: LayerState) -> Bool {
        s.compositingFilter != nil || s.shadowKind == .layerAlpha || s.mask != nil
    }

    /// The surface of the mask of layer `owner` (an id no layer has).
    static func maskSurfaceID(of owner: LayerID) -> LayerID { LayerID(rawValue: owner.rawValue | 1 << 62) }

    /// The alpha a group's own items are drawn with in its image: 1 (its opacity applies
    /// to the composite) — except a layer made a group only by a transition that has no
    /// group opacity, whose items keep their own.
    static func alphaInGroup(_ layer: LayerState, _ opacity: Double) -> Double {
        layer.properties.transition != nil && !layer.allowsGroupOpacity ? opacity : 1
    }

    /// The opacity a layer is drawn with: clamped to 0…1, NaN as 0 (not drawn).
    static func opacity(of s: LayerState) -> Double {
        let o = s.opacity
        return o >= 1 ? 1 : o > 0 ? o : 0
    }

    /// Marks the layers of a 3D context (changes there re-sort it: a rebuild).
    private func markDepthContext(_ id: LayerID) {
        var stack = nodes[id]?.state.sublayers ?? []
        while let c = stack.popLast() {
            nodes[c]?.inDepthContext = true
            stack += nodes[c]?.state.sublayers ?? []
        }
    }

    // MARK: Items

    /// A group's items in its parent's surface besides its composite (its backdrop, drawn
    /// before it); returns the damage there.
    @discardableResult
    private func refreshOuterItems(_ node: Node, everything: Box) -> Box? {
        guard node.isGroup, node.items.count > 1, let parent = surfaces[node.surface] else { return nil }
        var damage: Box?
        func note(_ b: Box?) { if let b { damage = damage.map { $0.union(b) } ?? b } }
        let s = node.state
        for index in node.items.dropFirst() {
            note(parent.items[index].bounds)
            var b: Box? = node.visible ? Box.of(s.bounds, node.world, everything: everything) : nil
            if b != nil, node.depthCuts.contains(where: { $0.excludes(s.bounds) }) { b = nil }
            if let x = b, let clip = parent.items[index].clip { b = x.intersection(clip.box) }
            if b?.isEmpty == true { b = nil }
            parent.items[index].bounds = b
            note(b)
            if parent.grid != nil, parent.id == rootSurfaceID { parent.grid!.remove(Int32(index)); parent.grid!.insert(Int32(index), b) }
        }
        return damage
    }

    /// The boxes of a node's own items, in order.
    private func itemBoxes(_ node: Node) -> [Box?] {
        guard let surface = ownSurface(node, node.state.id) else { return [] }
        return (node.isGroup ? node.groupItems : node.items).map { surface.items[$0].bounds }
    }

    /// The surface holding a node's own items (a group's own items are in its surface).
    private func ownSurface(_ node: Node, _ id: LayerID) -> Surface? {
        node.isGroup ? surfaces[id] : surfaces[node.surface]
    }

    /// Works out a node's items (where they are) from its cached world, alpha and
    /// visibility; returns the box of everything they covered before and cover now.
    @discardableResult
    private func refreshItems(_ node: Node, everything: Box, contentsChanged: Bool = true) -> Box? {
        let list = node.isGroup ? node.groupItems : node.items
        guard !list.isEmpty, let surface = ownSurface(node, node.state.id) else { return nil }
        let layer = node.state
        var damage: Box?
        func note(_ b: Box?) { if let b { damage = damage.map { $0.union(b) } ?? b } }
        // The layer's box, shared by its background and border.
        var layerBox: Box?
        for index in list {
            note(surface.items[index].bounds)
            if contentsChanged { surface.items[index].place = nil }   // (also while hidden)
            var bounds: Box?
            if node.visible {
                switch surface.items[index].slot {
                case .background:
                    if let color = layer.backgroundColor, color.alpha > 0 {
                        layerBox = layerBox ?? Box.of(layer.bounds, node.world, everything: everything)
                        bounds = layerBox
                    }
                case .contents:
                    if let fade = layer.properties.contentsFade {
                        // A cross-fade covers both contents' frames.
                        for end in [fade.from, fade.to] {
                            guard let c = end.resolved(model: layer.contents) else { continue }
                            let (frame, size) = ContentsGeometry.frame(of: c, in: layer)
                            guard !frame.isEmpty else { continue }
                            let b = Box.of(frame, node.world, everything: everything)
                            surface.items[index].frame = frame
                            surface.items[index].contentSize = size
                            bounds = bounds.map { $0.union(b) } ?? b
                        }
                    } else if let contents = layer.contents {
                        let (frame, size) = ContentsGeometry.frame(of: contents, in: layer)
                        if !frame.isEmpty {
                            surface.items[index].frame = frame
                            surface.items[index].contentSize = size
                            bounds = Box.of(frame, node.world, everything: everything)
                        }
                    }
                case .border:
                    if layer.borderColor.alpha > 0 {
                        layerBox = layerBox ?? Box.of(layer.bounds, node.world, everything: everything)
                        bounds = layerBox
                    }
                case .backdrop, .gradient:
                    layerBox = layerBox ?? Box.of(layer.bounds, node.world, everything: everything)
                    bounds = layerBox
                case .replicas:
                    bounds = RenderTree.replicasBox(node, image: surfaces[RenderTree.replicaSurfaceID(of: layer.id)]?.bounds,
                                                    everything: everything)
                case .shadow:
                    let o = layer.properties.shadowOffset, reach = BlurRadius.reach(ofRadius: layer.properties.shadowRadius)
                    var shape: Rect?
                    switch layer.shadowKind {
                    case .analytic(let r, _, _)?: shape = r
                    case .mask(let m)?: shape = m.frame
                    default: break
                    }
                    if let r = shape {
                        let grown = Rect(x: r.minX + o.width - reach, y: r.minY + o.height - reach,
                                         width: r.width + 2 * reach, height: r.height + 2 * reach)
                        bounds = Box.of(grown, node.world, everything: everything)
                    }
                case .group:
                    break
                }
            }
            // Wholly behind the eye at some level: not drawn.
            if bounds != nil, !node.depthCuts.isEmpty, surface.items[index].slot != .shadow, surface.items[index].slot != .replicas {
                let r = surface.items[index].slot == .contents ? surface.items[index].frame : layer.bounds
                if node.depthCuts.contains(where: { $0.excludes(r) }) { bounds = nil }
            }
            // Clipped items cannot reach past their clips' boxes.
            if let b = bounds, let clip = surface.items[index].clip { bounds = b.intersection(clip.box) }
            if bounds?.isEmpty == true { bounds = nil }
            surface.items[index].bounds = bounds
            note(bounds)
            if surface.grid != nil, surface.id == rootSurfaceID { surface.grid!.remove(Int32(index)); surface.grid!.insert(Int32(index), bounds) }
        }
        return damage
    }

    // MARK: Incremental update

    /// Brings the frame data of changed layers up to date: a layer whose geometry,
    /// visibility or opacity changed takes its subtree along; others refresh their own
    /// items. Returns the layers visited and the damage in target points.
    private func update(_ updated: [Node], everything: Box) -> (Int, Box?) {
        var visited = 0
        var damage: Box?
        var dirtyGroups: Set<LayerID> = []
        // Groups in a transition whose progress alone changed: their composite (the mix) is
        // made again, their image is not.
        var progressed: Set<LayerID> = []
        // Groups moved whole by a translation (their images may be reused), and groups that
        // changed otherwise (their images are rendered again).
        var shifted: [LayerID: (dx: Double, dy: Double)] = [:]
        var changedGroups: Set<LayerID> = []
        func note(_ b: Box?, in surface: LayerID) {
            guard let b else { return }
            if surface == rootSurfaceID {
                damage = damage.map { $0.union(b) } ?? b
            } else {
                dirtyGroups.insert(surface)
                progressed.remove(surface)
                changedGroups.insert(surface)
                shifted[surface] = nil
            }
        }
        /// A change inside group `surface` that is its whole content moving by `delta`.
        func noteShift(in surface: LayerID, _ delta: (dx: Double, dy: Double)) {
            guard !changedGroups.contains(surface) else { return }
            dirtyGroups.insert(surface)
            progressed.remove(surface)
            shifted[surface] = delta
        }
        planPass += 1
        let changedMark = planPass      // in `updated`
        planPass += 1
        let doneMark = planPass         // worked out in this plan
        var changed: [Node] = []
        changed.reserveCapacity(updated.count)
        for node in updated where node.mark != changedMark {
            node.mark = changedMark
            changed.append(node)
        }
        var roots: [Node] = []   // subtree updates not under another one
        var own: [Node] = []
        for node in changed {
            guard node.itemsState != nil else { continue }
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
        // Each node with whether a layer above it in a group moved whole changed itself.
        var stack: [(Node, Bool)] = []
        for root in roots {
            stack.append((root, false))
            // A group moved by a translation alone: its state changed only in geometry, and
            // both its world and its sublayers' world moved by the same 2-D translation (a new
            // sublayerTransform or bounds does not); its whole content moves with it.
            var rigid: (dx: Double, dy: Double)?
            if root.isGroup, root.changes == .geometry, root.itemsState?.bounds == root.state.bounds, let p = root.parentNode {
                let world = root.state.transformToSuperlayer.concatenating(p.sublayerWorld)
                let sublayers = root.state.transformForSublayers.concatenating(world)
                if let d = RenderTree.translation(from: root.world, to: world), let e = RenderTree.translation(from: root.sublayerWorld, to: sublayers),
                   d == e {
                    rigid = d
                }
            }
            while let (node, aboveChanged) = stack.popLast() {
                visited += 1
                node.mark = doneMark
                let layer = node.state
                // From the parent's frame data (the root: from the placement).
                var world: Transform3D, alpha: Double, parentVisible: Bool
                if let p = node.parentNode {
                    let local = layer.transformToSuperlayer
                    // (A mask is in its layer's bounds space without the sublayerTransform, and
                    // drawn at alpha 1 into its image, as a replicator's sublayers are.)
                    let isMask = p.state.mask == layer.id
                    world = isMask ? local.concatenating(Transform3D.flatten).concatenating(p.world) : local.concatenating(p.sublayerWorld)
                    alpha = isMask || p.state.properties.replicator != nil ? 1 : p.alpha
                    parentVisible = isMask || p.visible
                    node.world = world
                    if !(p.depthCuts.isEmpty && layer.sublayers.isEmpty && node.depthCuts.isEmpty) {
                        node.setDepthCuts(DepthCut.through(local, isMask ? .flatten : p.toSublayers, from: p.depthCuts, isLeaf: layer.sublayers.isEmpty))
                    }
                } else {
                    world = layer.transformToSuperlayer.concatenating(.flatten).concatenating(plannedPlacement ?? .identity)
                    alpha = 1; parentVisible = true
                    node.world = world
                    node.setDepthCuts(DepthCut.through(world, from: []))
                }
                node.world = world
                node.inheritedAlpha = alpha
                let opacity = RenderTree.opacity(of: layer)
                node.visible = parentVisible && !layer.isHidden && opacity > 0 && alpha > 0
                    && (layer.isDoubleSided || !RenderTree.facesAway(layer.bounds, world))
                node.alpha = node.isGroup ? RenderTree.alphaInGroup(layer, opacity) : alpha * opacity
                node.itemsState = PlannedFacts(layer)
                let contentsChanged = node.changes.contains(.contents)
                // In a group moved whole, a layer that changed itself (or below one that did)
                // changes the image.
                let changedItself = aboveChanged || (node !== root && !node.changes.isEmpty)
                node.changes = []
                node.toSublayers = layer.transformForSublayers
                node.sublayerWorld = node.toSublayers.concatenating(world)
                node.ownClip?.refresh(everything: everything)
                let inSurface = node.isGroup ? layer.id : node.surface
                let shifting = rigid != nil && inSurface == root.state.id && !changedItself
                let before = shifting ? itemBoxes(node) : []
                let changed = refreshItems(node, everything: everything, contentsChanged: contentsChanged)
                note(refreshOuterItems(node, everything: everything), in: node.surface)
                // Every item must have moved by the translation exactly (else: drawn again).
                if shifting, let delta = rigid, RenderTree.shifted(before, by: delta, equals: itemBoxes(node)) {
                    noteShift(in: inSurface, delta)
                } else {
                    note(changed, in: inSurface)
                    if node.isGroup { dirtyGroups.insert(layer.id); progressed.remove(layer.id); changedGroups.insert(layer.id); shifted[layer.id] = nil }
                }
                let below = changedItself || (rigid != nil && !shifting && inSurface == root.state.id)
                if !layer.sublayers.isEmpty {
                    for sub in ordered(layer.id) { if let n = nodes[sub] { stack.append((n, below)) } }
                }
                if let m = layer.mask, let n = nodes[m] { stack.append((n, below)) }
            }
        }
        for node in own where node.mark != doneMark {
            visited += 1
            // New pixels and nothing else: only the redrawn part of the contents is damaged.
            if node.changes == .pixels, let box = redrawnBox(node, everything: everything) {
                node.changes = []
                note(box.isEmpty ? nil : box, in: node.isGroup ? node.state.id : node.surface)
                continue
            }
            node.itemsState = PlannedFacts(node.state)
            let contentsChanged = node.changes.contains(.contents)
            // A transition's progress: its composite is made again.
            if node.changes.contains(.transitionProgress) && node.isGroup, dirtyGroups.insert(node.state.id).inserted {
                progressed.insert(node.state.id)
            }
            // A group's shadow or blend mode: its composite is drawn again (its image is not).
            if node.isGroup, !node.changes.isDisjoint(with: [.shadow, .effects]), dirtyGroups.insert(node.state.id).inserted {
                progressed.insert(node.state.id)
            }
            if node.changes == .transitionProgress { node.changes = []; continue }   // (nothing else to work out)
            // A layer-alpha shadow's colour, offset or radius changes no item of the group's image.
            if node.isGroup, node.changes.isSubset(of: [.shadow, .transitionProgress]), node.state.shadowKind == .layerAlpha {
                node.changes = []
                continue
            }
            node.changes = []
            let changed = refreshItems(node, everything: everything, contentsChanged: contentsChanged)
            note(changed, in: node.isGroup ? node.state.id : node.surface)
            note(refreshOuterItems(node, everything: everything), in: node.surface)
        }
        // Groups whose content changed: their image is rendered again; in their parent's
        // surface the composite covers the old and the new box — deepest groups first, an
        // enclosing group joining the work when one inside it changed.
        var done = Set<LayerID>()
        while let g = dirtyGroups.max(by: { depth(of: $0) < depth(of: $1) }) {
            dirtyGroups.remove(g)
            guard done.insert(g).inserted, let surface = surfaces[g] else { continue }
            if let owner = surface.maskOwner {
                // A mask changed: its image is rendered again, and its layer's composite made again.
                surface.isDirty = true
                surface.recomputeBounds()
                if !done.contains(owner), dirtyGroups.insert(owner).inserted { progressed.insert(owner) }
                continue
            }
            if let owner = surface.replicaOwner {
                // Something in a replicator's sublayers changed: their image is rendered again;
                // the instances' item covers its old and new boxes.
                surface.isDirty = true
                surface.recomputeBounds()
                guard let node = nodes[owner], let own = ownSurface(node, owner) else { continue }
                let list = node.isGroup ? node.groupItems : node.items
                guard let index = list.first(where: { own.items[$0].slot == .replicas }) else { continue }
                let old = own.items[index].bounds
                var new = node.visible ? RenderTree.replicasBox(node, image: surface.bounds, everything: everything) : nil
                if let b = new, let clip = own.items[index].clip { let c = b.intersection(clip.box); new = c.isEmpty ? nil : c }
                own.items[index].bounds = new
                if own.id == rootSurfaceID, own.grid != nil { own.grid!.remove(Int32(index)); own.grid!.insert(Int32(index), new) }
                note(old, in: own.id)
                note(new, in: own.id)
                continue
            }
            guard let node = nodes[g], let parent = surfaces[node.surface], let index = node.items.first else { continue }
            if progressed.contains(g) {
                surface.compositeIsStale = true
            } else if let d = shifted[g], !surface.isDirty {
                let s = surface.shift ?? (0, 0)
                surface.shift = (s.dx + d.dx, s.dy + d.dy)
                surface.compositeIsStale = true
            } else {
                surface.isDirty = true
            }
            let old = parent.items[index].bounds
            surface.recomputeBounds()
            var new = compositeBox(node, surface)
            if let b = new, let clip = parent.items[index].clip {
                let clipped = b.intersection(clip.box)
                new = clipped.isEmpty ? nil : clipped
            }
            parent.items[index].bounds = new
            if parent.id == rootSurfaceID, parent.grid != nil { parent.grid!.remove(Int32(index)); parent.grid!.insert(Int32(index), new) }
            note(old, in: parent.id)
            note(new, in: parent.id)
        }
        return (visited, damage)
    }

    /// The target box of the pixels of a node's backing store redrawn since the last plan
    /// (nil: work it out from the whole item — nine-slice, or no record of the region; an
    /// empty box: nothing of it is shown).
    private func redrawnBox(_ node: Node, everything: Box) -> Box? {
        guard case .store(let store)? = node.state.contents, node.state.properties.contentsFade == nil,
              let region = redrawnPixels[store.id],
              node.state.contentsCenter == Rect(x: 0, y: 0, width: 1, height: 1),
              let surface = ownSurface(node, node.state.id) else { return nil }
        let list = node.isGroup ? node.groupItems : node.items
        guard let index = list.first(where: { surface.items[$0].slot == .contents }) else { return nil }
        let item = surface.items[index]
        guard let bounds = item.bounds else { return Box(minX: 0, minY: 0, maxX: 0, maxY: 0) }   // not shown: nothing to redraw
        let cr = node.state.contentsRect, frame = item.frame
        guard cr.size.width != 0, cr.size.height != 0 else { return nil }
        // The region grown by a texel (linear filtering reaches a texel's neighbours), in unit
        // coordinates of the contents, then through contentsRect onto the contents' frame.
        let w = Double(store.pixelSize.width), h = Double(store.pixelSize.height)
        let ux0 = Double(region.x - 1) / w, ux1 = Double(region.x + region.width + 1) / w
        let uy0 = Double(region.y - 1) / h, uy1 = Double(region.y + region.height + 1) / h
        func fx(_ u: Double) -> Double { frame.origin.x + (u - cr.origin.x) / cr.size.width * frame.size.width }
        func fy(_ v: Double) -> Double { frame.origin.y + (v - cr.origin.y) / cr.size.height * frame.size.height }
        let r = Box(minX: min(fx(ux0), fx(ux1)), minY: min(fy(uy0), fy(uy1)), maxX: max(fx(ux0), fx(ux1)), maxY: max(fy(uy0), fy(uy1)))
            .intersection(Box(frame.standardized))
        guard !r.isEmpty else { return Box(minX: 0, minY: 0, maxX: 0, maxY: 0) }
        return Box.of(r.rect, node.world, everything: everything).intersection(bounds)
    }

    /// Whether a change moves, fades, shows or hides the layer's sublayers too (a changed
    /// corner radius of a clipping layer reshapes their clip).
    private func movesSubtree(_ node: Node) -> Bool {
        let c = node.changes
        if !c.isDisjoint(with: [.geometry, .opacity, .hidden]) { return true }
        return c.contains(.cornerRadius) && node.state.masksToBounds
    }

    private func depth(of id: LayerID) -> Int {
        if nodes[id] == nil, let owner = surfaces[id]?.owner { return depth(of: owner) + 1 }   // (before its layer)
        var n = 0
        var p = nodes[id]?.parent
        while let pid = p { n += 1; p = nodes[pid]?.parent }
        return n
    }
}

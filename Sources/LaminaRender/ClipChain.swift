import LaminaGeometry
import LaminaValues

/// The `masksToBounds` clips around items of one surface, as a chain shared by every item
/// inside the same clips (an item holds its innermost link: O(1) per item at any depth).
/// Each link belongs to the clipping layer and is brought up to date with its frame data.
final class ClipChain {
    /// The clipping layer.
    unowned let node: RenderNode
    /// The clips around this one (nil: none in this surface).
    private(set) var parent: ClipChain?
    /// The intersection of the boxes of every clip of the chain, in target points (empty:
    /// everything is clipped away).
    var box = TargetBox.none
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
    /// Whether drawing inside the chain needs the stencil: some link is not an axis-aligned
    /// rectangle (else the intersection of all is one rectangle, the scissor's).
    var needsStencil: Bool { rect == nil || stencilParent != nil }

    init(node: RenderNode, parent: ClipChain?) {
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
    func refresh(everything: TargetBox) {
        let s = node.state, world = node.world
        var own = TargetBox.of(layerRect: s.bounds, through: world, everything: everything)
        if node.depthCuts.contains(where: { $0.excludes(s.bounds) }) { own = .none }
        box = parent.map { $0.box.intersection(own) } ?? own
        if box.isEmpty { box = .none }
        let r = Self.targetRect(of: node)
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

    /// A node's bounds in target points when they are an axis-aligned rectangle there: its
    /// world transform a scale and a translation, no corner radius (nil otherwise). Such a
    /// clip is the scissor's; any other is a stencil level.
    static func targetRect(of node: RenderNode) -> Rect? {
        let s = node.state, world = node.world
        guard !s.cornerShape.isRounded, world.m12 == 0, world.m21 == 0, world.m14 == 0, world.m24 == 0, world.m44 == 1,
              world.m11 != 0, world.m22 != 0 else { return nil }
        let b = s.bounds
        let x0 = b.minX * world.m11 + world.m41, x1 = b.maxX * world.m11 + world.m41
        let y0 = b.minY * world.m22 + world.m42, y1 = b.maxY * world.m22 + world.m42
        guard x0.isFinite, x1.isFinite, y0.isFinite, y1.isFinite else { return nil }
        return Rect(x: min(x0, x1), y: min(y0, y1), width: abs(x1 - x0), height: abs(y1 - y0))
    }

    /// The clipping layers, outermost first (O(depth): for tests and debugging).
    var layers: [LayerID] {
        var out: [LayerID] = []
        var c: ClipChain? = self
        while let link = c { out.append(link.node.id); c = link.parent }
        return out.reversed()
    }
}

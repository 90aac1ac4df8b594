import LaminaGeometry
import LaminaGPU
@_spi(LaminaInternal) import LaminaValues

/// What a node receives from above: the transform to target points, the opacity it is
/// drawn with in its surface, whether what is above it is shown, and the depth cuts of the
/// levels above.
struct Inherited {
    var world: Transform3D
    var alpha: Double
    var parentVisible: Bool
    var cuts: [DepthCut]
}

/// The one traversal step: a node's frame data — world transform, opacity, visibility,
/// facing, depth cuts, its sublayers' space and its own clip — worked out from what its
/// parent hands it. Frame building calls it for a whole tree, for a subtree placed again, and
/// for the subtrees a change moves: one definition of the math.
enum Placement {
    /// What `node` inherits from its parent (`parent`'s frame data worked out), or — for
    /// the root — from the placement of the tree on the target.
    static func inherited(by node: RenderNode, placement: Transform3D, tree: RenderTree) -> Inherited {
        let local = node.state.transformToSuperlayer
        guard let p = node.parentNode else {
            if let world = tree.rootWorld {
                return Inherited(world: world, alpha: 1, parentVisible: true, cuts: tree.rootDepthCuts)
            }
            let world = local.concatenating(.flatten).concatenating(placement)
            return Inherited(world: world, alpha: 1, parentVisible: true, cuts: DepthCut.through(world, from: []))
        }
        let leaf = node.children.isEmpty && node.maskNode == nil
        if p.maskNode === node {
            // A mask is in its layer's bounds space (flattened into its plane; the
            // sublayerTransform is for sublayers), drawn at alpha 1 into its own image.
            return Inherited(world: local.concatenating(.flatten).concatenating(p.world), alpha: 1, parentVisible: true,
                             cuts: DepthCut.through(local, .flatten, from: p.depthCuts, isLeaf: leaf))
        }
        // A replicator's sublayers are drawn once, at alpha 1, into their own image.
        let alpha = p.state.properties.isReplicator ? 1 : p.alpha
        let cuts = p.depthCuts.isEmpty && leaf && node.depthCuts.isEmpty
            ? [] : DepthCut.through(local, p.toSublayers, from: p.depthCuts, isLeaf: leaf)
        return Inherited(world: local.concatenating(p.sublayerWorld), alpha: alpha, parentVisible: p.visible, cuts: cuts)
    }

    /// Works out `node`'s frame data from `inherited` (its group-ness already decided).
    static func place(_ node: RenderNode, _ inherited: Inherited, everything: TargetBox) {
        let layer = node.state
        node.world = inherited.world
        node.inheritedAlpha = inherited.alpha
        node.setDepthCuts(inherited.cuts)
        let opacity = Self.opacity(of: layer)
        node.visible = inherited.parentVisible && !layer.isHidden && opacity > 0 && inherited.alpha > 0
            && (layer.isDoubleSided || !Facing.facesAway(layer.bounds, inherited.world))
        node.alpha = node.isGroup ? alphaInGroup(layer, opacity) : inherited.alpha * opacity
        node.placedSublayers()
        node.ownClip?.refresh(everything: everything)
    }

    /// The opacity a layer is drawn with: clamped to 0…1, NaN as 0 (not drawn).
    static func opacity(of s: LayerState) -> Double {
        let o = s.opacity
        return o >= 1 ? 1 : o > 0 ? o : 0
    }

    /// The alpha a group's own items are drawn with in its image: 1 (its opacity applies
    /// to the composite) — except a layer made a group only by a transition that has no
    /// group opacity, whose items keep their own.
    static func alphaInGroup(_ layer: LayerState, _ opacity: Double) -> Double {
        layer.properties.transition != nil && !layer.allowsGroupOpacity ? opacity : 1
    }

    /// No perspective: w is 1 for every point.
    static func isAffine(_ w: Transform3D) -> Bool { w.m14 == 0 && w.m24 == 0 && w.m34 == 0 && w.m44 == 1 }

    /// The 2-D translation taking `a` to `b` (applied after it), when that is all that differs
    /// and both are affine (nil otherwise).
    static func translation(from a: Transform3D, to b: Transform3D) -> (dx: Double, dy: Double)? {
        guard isAffine(a), isAffine(b), a.m11 == b.m11, a.m12 == b.m12, a.m13 == b.m13, a.m21 == b.m21, a.m22 == b.m22, a.m23 == b.m23,
              a.m31 == b.m31, a.m32 == b.m32, a.m33 == b.m33, a.m43 == b.m43 else { return nil }
        return (b.m41 - a.m41, b.m42 - a.m42)
    }

    // MARK: 3D contexts

    /// A layer of a transform layer's 3D context, placed.
    struct Plane {
        var node: RenderNode, world: Transform3D, alpha: Double, depth: Double, cuts: [DepthCut]
    }

    /// The sublayers of a transform layer, through nested transform layers, each with its
    /// world transform and its depth in the shared 3D space (z of its centre; NaN counts as
    /// 0), in sublayer order (an explicit stack: any nesting). Nested transform layers are
    /// placed (`visited` counts them) but draw nothing.
    static func planes(of node: RenderNode, world: Transform3D, context: Transform3D, alpha: Double, cuts: [DepthCut],
                       visited: inout Int) -> [Plane] {
        var planes: [Plane] = []
        var stack: [(node: RenderNode, subs: [RenderNode], world: Transform3D, context: Transform3D, alpha: Double, cuts: [DepthCut], next: Int)] =
            [(node, node.drawingOrder, world, context, alpha, cuts, 0)]
        while !stack.isEmpty {
            let top = stack.count - 1
            let frame = stack[top]
            guard frame.next < frame.subs.count else { stack.removeLast(); continue }
            stack[top].next += 1
            let n = frame.subs[frame.next]
            let s = n.state
            let local = s.transformToSuperlayer.concatenating(frame.node.state.transformForSublayers)
            let subWorld = local.concatenating(frame.world)
            let subContext = local.concatenating(frame.context)
            let subCuts = DepthCut.through(local, from: frame.cuts)
            n.inDepthContext = true
            if s.preservesDepth {
                // A nested transform layer: placed (its sublayers' frame data follows from it
                // when a move above updates them), nothing drawn.
                visited += 1
                let opacity = Self.opacity(of: s)
                n.world = subWorld
                n.inheritedAlpha = frame.alpha
                n.alpha = frame.alpha * opacity
                n.visible = frame.node.visible && !s.isHidden && opacity > 0 && frame.alpha > 0
                n.placedSublayers()
                n.setDepthCuts(subCuts)
                guard !s.isHidden, opacity > 0 else { continue }
                stack.append((n, n.drawingOrder, subWorld, subContext, frame.alpha * opacity, subCuts, 0))
            } else {
                let c = Point(x: s.bounds.midX, y: s.bounds.midY)
                let t = subContext
                let z = c.x * t.m13 + c.y * t.m23 + t.m43
                let w = c.x * t.m14 + c.y * t.m24 + t.m44
                let depth = abs(w) > 1e-12 ? z / w : z
                planes.append(Plane(node: n, world: subWorld, alpha: frame.alpha, depth: depth.isNaN ? 0 : depth, cuts: subCuts))
            }
        }
        // Back to front; equal depths keep their order.
        return planes.enumerated().sorted { a, b in
            a.element.depth != b.element.depth ? a.element.depth < b.element.depth : a.offset < b.offset
        }.map(\.element)
    }
}

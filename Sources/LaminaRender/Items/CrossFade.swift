import LaminaGeometry
import LaminaGPU
import LaminaValues

// Cross-fades: a `contents` animation mixes the layer's two contents, a transition mixes
// the layer's old picture with its new one. Both are mixed exactly — offscreen, the old
// drawn at 1 − f and the new added at f (additive blending into a cleared image), so each
// pixel is (1 − f)·old + f·new, premultiplied — and the mix is composited like any image
// (two translucent draws over the target would dip where both are opaque).

/// The contents of a layer whose `contents` animate: a mix of the two contents, made once
/// per frame, drawn where both would be.
enum ContentsCrossFadeItem: ItemKind {
    static let name = "contents cross-fade"
    static let phase = ItemPhase.beforeSublayers
    static var clippedByOwnClip: Bool { true }

    static func occurs(in node: RenderNode) -> Bool { node.state.properties.contentsFade != nil }

    static func bounds(of item: Item, _ context: BoundsContext) -> TargetBox? {
        let n = item.node, s = n.state
        guard let fade = s.properties.contentsFade else { return nil }
        var bounds: TargetBox?
        for end in [fade.from, fade.to] {
            guard let c = end.resolved(model: s.contents) else { continue }
            let (frame, size) = ContentsGeometry.frame(of: c, in: s)
            guard !frame.isEmpty, context.inFront(n, frame) else { continue }
            item.frame = frame
            item.contentSize = size
            let b = TargetBox.of(layerRect: frame, through: n.world, everything: context.everything)
            bounds = bounds.map { $0.union(b) } ?? b
        }
        return bounds
    }

    static func draw(_ item: Item, into builder: inout DrawBuilder) {
        let n = item.node, s = n.state
        guard let fade = s.properties.contentsFade, let box = item.bounds,
              let pixels = builder.imagePixels(covering: box) else { return }
        let key = ImageKey.contentsMix(n.id)
        // (Made once per frame: the frame's serial is part of what it is made from.)
        let stamp = [fade.fraction, Double(builder.frameSerial)]
        if builder.needsImage(key, pixels: pixels, stamp: stamp) {
            var draws: [DrawItem] = []
            for (end, alpha) in [(fade.from, 1 - fade.fraction), (fade.to, fade.fraction)] {
                guard let c = end.resolved(model: s.contents), alpha > 0 else { continue }
                let (frame, size) = ContentsGeometry.frame(of: c, in: s)
                draws.append(DrawItem(clip: nil, cuts: n.cutPlanes, op: .contents(ContentsDraw(
                    content: c, frame: frame, contentSize: size, contentsRect: s.contentsRect, contentsCenter: s.contentsCenter,
                    minFilter: s.minificationFilter, magFilter: s.magnificationFilter, alpha: alpha, isOpaque: false, transform: n.world))))
            }
            // (Every content its animations show is placed from the first frame: a flip-book's
            // images are uploaded now, not when each comes up.)
            builder.addTask(key, .picture(PictureTask(pixels: pixels, scale: builder.scale, additive: true, draws: draws,
                                                      prepares: n.animationContents)))
        }
        builder.add(.image(ImageDraw(image: key, rect: pixels.targetBox(scale: builder.scale).targetRect, alpha: n.alpha,
                                     filter: .nearest)), for: item, cuts: [])
    }
}

/// A transition (`TransitionAnimation`): while it runs the layer is a group, and its
/// composite is made from its old picture (taken when the transition was added) and its
/// image now, again as the progress advances: their exact mix for a fade; for a push, a
/// move in or a reveal the two drawn over each other (source over), moved along the
/// transition's direction by the layer's width or height through its transform.
enum TransitionCrossFade: CompositeEffect {
    static let name = "transition"

    static func makesGroup(_ node: RenderNode) -> Bool { node.state.properties.transition != nil }

    static func bounds(_ box: TargetBox?, of node: RenderNode, image: TargetBox?) -> TargetBox? {
        guard let t = node.state.properties.transition, let old = node.transitionPicture, old.id == t.id, let rect = old.rect else { return box }
        // The old picture shows even when the layer itself is now hidden or transparent (a
        // transition that hides it fades it out) — not when a superlayer hides it.
        guard node.inheritedAlpha > 0, node.parentNode?.visible ?? true else { return nil }
        let (oldOffset, newOffset) = offsets(t, of: node)
        let ob = TargetBox(targetRect: moved(rect, oldOffset))
        return node.visible ? image.map { TargetBox(targetRect: moved($0.targetRect, newOffset)).union(ob) } ?? ob : ob
    }

    /// Where the old and the new picture are drawn, as offsets in target points: along the
    /// motion's direction, by the layer's width or height times the progress (the new one
    /// starts a whole width or height away), mapped through the layer's transform.
    static func offsets(_ t: TransitionProgress, of node: RenderNode) -> (old: Point, new: Point) {
        let b = node.state.bounds, world = node.world
        func along(_ dx: Double, _ dy: Double, _ k: Double) -> Point {
            let c = Point(x: b.midX, y: b.midY)
            let p = world.apply(to: c), q = world.apply(to: Point(x: c.x + dx * b.width * k, y: c.y + dy * b.height * k))
            let d = Point(x: q.x - p.x, y: q.y - p.y)
            return d.x.isFinite && d.y.isFinite ? d : .zero
        }
        let f = t.fraction
        switch t.motion {
        case .fade: return (.zero, .zero)
        case let .push(dx, dy): return (along(dx, dy, f), along(dx, dy, f - 1))
        case let .moveIn(dx, dy): return (.zero, along(dx, dy, f - 1))
        case let .reveal(dx, dy): return (along(dx, dy, f), .zero)
        }
    }

    private static func moved(_ r: Rect, _ by: Point) -> Rect {
        Rect(x: r.origin.x + by.x, y: r.origin.y + by.y, width: r.size.width, height: r.size.height)
    }

    static func apply(_ composite: inout Composite, of node: RenderNode, into builder: inout DrawBuilder) {
        let s = node.state
        guard let t = s.properties.transition else { return }
        // The new picture at the layer's opacity now (0 when it is now hidden), the old at its
        // opacity then: the mix fades between the two opacities too.
        let newOpacity = node.visible ? (s.allowsGroupOpacity ? Placement.opacity(of: s) : 1) : 0
        let old = node.transitionPicture.flatMap { $0.id == t.id ? $0 : nil }
        let (oldOffset, newOffset) = offsets(t, of: node)
        let oldRect = old?.rect.map { moved($0, oldOffset) }
        let image = composite.image.map { (key: $0.key, rect: moved($0.rect, newOffset)) }
        var box = image.map { TargetBox(targetRect: $0.rect) }
        if let r = oldRect { box = box.map { $0.union(TargetBox(targetRect: r)) } ?? TargetBox(targetRect: r) }
        guard let b = box, let pixels = builder.imagePixels(covering: b) else { composite.image = nil; return }
        let key = ImageKey.transitionMix(node.id)
        let stamp = [t.fraction, Double(composite.version), newOpacity, oldOffset.x, oldOffset.y]
            + (image.map { [$0.rect.minX, $0.rect.minY, $0.rect.width, $0.rect.height] } ?? [])
        if builder.needsImage(key, pixels: pixels, stamp: stamp) {
            var oldDraw: DrawItem?, newDraw: DrawItem?
            let fades = t.motion == .fade
            // A fade mixes (each at its share, added); the others draw each whole.
            if let o = old, let rect = oldRect, o.opacity > 0, !fades || t.fraction < 1 {
                oldDraw = DrawItem(clip: nil, cuts: [], op: .image(ImageDraw(image: .oldPicture(t.id), rect: rect,
                                                                            alpha: (fades ? 1 - t.fraction : 1) * o.opacity, filter: .nearest)))
            }
            if let (k, r) = image, newOpacity > 0, !fades || t.fraction > 0 {
                newDraw = DrawItem(clip: nil, cuts: [], op: .image(ImageDraw(image: k, rect: r, alpha: (fades ? t.fraction : 1) * newOpacity,
                                                                            filter: .nearest)))
            }
            // A reveal's old picture lies over the new; a push's and a move-in's new over the old.
            var draws = [oldDraw, newDraw].compactMap { $0 }
            if case .reveal = t.motion { draws.reverse() }
            builder.addTask(key, .picture(PictureTask(pixels: pixels, scale: builder.scale, additive: fades, draws: draws)))
        }
        composite.image = (key, pixels.targetBox(scale: builder.scale).targetRect)
        composite.version = builder.version(of: key)
    }
}

import LaminaValues
import LaminaGeometry
import LaminaGPU

/// An offscreen image mixing two pictures, where it goes (target pixels), and what it was
/// made from (made again when that changes).
struct Mix {
    var target: OffscreenTarget
    var box: PixelRect
    var stamp: MixStamp
}

/// What a mix was made from.
struct MixStamp: Equatable {
    var fraction: Double
    /// The frame it was made in (contents mixes), or 0.
    var frame: Int
    /// The group image it mixes: how many times it was rendered, and where (transitions).
    var renders = 0
    var image: Rect?
    /// The opacity of the new picture (transitions).
    var opacity = 1.0
}

/// A transition's old picture: the layer's subtree as it was, in target space, and the
/// opacity it was composited with.
struct OldPicture {
    var target: OffscreenTarget
    var rect: Rect
    var opacity: Double
}

/// Cross-fades: a `contents` animation mixes the layer's two contents, a transition mixes
/// the layer's old picture with its new one. Both are mixed exactly — offscreen, the old
/// drawn at 1 − f and the new added at f (additive blending into a cleared image), so each
/// pixel is (1 − f)·old + f·new, premultiplied — and the mix is composited like any other
/// image (two translucent draws over the target would dip where both are opaque).
extension Compositor {
    /// Pixels of the target covering `b` (points at `scale`), clamped to `limit`.
    static func pixelBox(_ b: Box, scale: Double, limit: PixelSize) -> PixelRect? {
        func pixel(_ v: Double, _ rule: FloatingPointRoundingRule, _ maximum: Int) -> Int? {
            let p = (v * scale).rounded(rule)
            return p.isNaN ? nil : Int(min(max(p, 0), Double(maximum)))
        }
        guard let x0 = pixel(b.minX, .down, limit.width), let y0 = pixel(b.minY, .down, limit.height),
              let x1 = pixel(b.maxX, .up, limit.width), let y1 = pixel(b.maxY, .up, limit.height),
              x1 > x0, y1 > y0 else { return nil }
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// An offscreen target for a mix of `box`, reused when its size fits.
    private func mixTarget(_ old: Mix?, box: PixelRect, scale: Double) throws -> OffscreenTarget {
        if let old, old.target.pixelSize == box.size, old.target.scale == scale, !old.target.isReleased { return old.target }
        old?.target.release()
        return try OffscreenTarget(device: device, pixelSize: box.size, scale: scale)
    }

    // MARK: Contents

    /// The mix of a cross-fading layer's two contents over `box` (target points: its
    /// contents item), made once per frame; nil when nothing of it is in the target.
    func contentsMix(_ node: RenderTree.Node, fade: ContentsFade, box: Box, scale: Double,
                     within limit: PixelSize, stats: inout FrameStatistics) throws -> (Texture, Rect)? {
        guard let px = Compositor.pixelBox(box, scale: scale, limit: limit) else { return nil }
        let id = node.state.id, layer = node.state
        let stamp = MixStamp(fraction: fade.fraction, frame: frameSerial)
        let origin = Point(x: Double(px.x) / scale, y: Double(px.y) / scale)
        let rect = Rect(x: origin.x, y: origin.y, width: Double(px.width) / scale, height: Double(px.height) / scale)
        if let m = contentMixes[id], m.box == px, m.stamp == stamp, !m.target.isReleased { return (m.target.texture!, rect) }
        if contentMixes[id] == nil {
            // The first frame of the fade places every content its animations show (a
            // flip-book's images are uploaded now, not when each comes up).
            for c in node.animationContents { _ = try place(for: c) }
        }
        let target = try mixTarget(contentMixes[id], box: px, scale: scale)
        contentMixes[id] = Mix(target: target, box: px, stamp: MixStamp(fraction: .nan, frame: -1))
        let world = node.world.concatenating(Transform3D(translationX: -origin.x, y: -origin.y))
        let pass = try device.beginRenderPass(on: target, clear: .clear)
        pass.blendsAdditively = true
        pass.cutPlanes = node.cutPlanes
        var pieces: [Quad] = []
        for (end, alpha) in [(fade.from, 1 - fade.fraction), (fade.to, fade.fraction)] {
            // (Both are placed — an image uploaded — from the first frame, drawn or not:
            // the later frames of the fade upload nothing.)
            guard let c = end.resolved(model: layer.contents), let place = try place(for: c), alpha > 0 else { continue }
            let (frame, size) = ContentsGeometry.frame(of: c, in: layer)
            try SurfaceDrawer.addContents(place, of: layer, frame: frame, contentSize: size, world: world, alpha: alpha,
                                          opaque: false, pass: pass, pieces: &pieces)
        }
        pass.submit()
        contentMixes[id]?.stamp = stamp   // (made: a pass that threw leaves it to be made again)
        stats.offscreenPasses += 1
        return (target.texture!, rect)
    }

    // MARK: Transitions

    /// Takes the old picture of every layer a transition was just added to (before the
    /// update that brings it is applied: the layers as they were last composited).
    func captureTransitions(in update: RenderUpdate) {
        guard let tree else { return }
        for s in update.layers where s.changes.contains(.animations) {
            for id in s.effects.flatMap(\.transitionIDs) where !transitionsSeen.contains(id) {
                transitionsSeen.insert(id)
                guard let node = tree.nodes[s.id] else { continue }   // new here: it fades in
                do {
                    let picture = try picture(of: node)
                    node.transitionPicture = (id, picture.map { Box($0.rect) })
                    if let picture { transitionPictures[id] = picture }
                } catch {
                    node.transitionPicture = (id, nil)
                    deferredError = deferredError ?? error
                }
            }
        }
    }

    /// The layer and its subtree as last composited, into an image of the target's space
    /// (without the layer's own opacity, which applies to its composite); nil when it
    /// showed nothing.
    private func picture(of node: RenderTree.Node) throws -> OldPicture? {
        guard let tree, let target = lastTarget, !target.isReleased, node.visible, node.itemsState != nil else { return nil }
        var states: [LayerID: LayerState] = [:]
        var stack = [node.state.id]
        while let id = stack.popLast() {
            guard let n = tree.nodes[id] else { continue }
            states[id] = n.state
            stack += n.state.children
        }
        // Without the layer's own opacity (it is part of the composite's mix), unless the
        // layer has no group opacity (then its items carry it). A transition running on it
        // stays: the picture is what was on screen, mid-transition or not.
        var p = node.state.properties
        let groupOpacity = node.state.allowsGroupOpacity
        let opacity = groupOpacity ? RenderTree.opacity(of: node.state) : 1
        if groupOpacity { p.opacity = 1 }
        states[node.state.id] = node.state.presenting(p)
        let copy = RenderTree(root: node.state.id, states: states)
        for (id, copied) in copy.nodes { copied.transitionPicture = tree.nodes[id]?.transitionPicture }
        copy.rootWorld = node.world
        copy.rootDepthCuts = node.depthCuts
        _ = copy.plan(size: target.size, full: true)
        guard let surface = copy.surfaces[RenderTree.rootSurfaceID] else { return nil }
        surface.recomputeBounds()
        let limit = target.pixelSize, scale = target.scale
        guard let b = surface.bounds, let px = Compositor.pixelBox(b, scale: scale, limit: limit) else { return nil }
        let image = try OffscreenTarget(device: device, pixelSize: px.size, scale: scale)
        let origin = Point(x: Double(px.x) / scale, y: Double(px.y) / scale)
        // The copy is drawn with the compositor's caches set aside (its groups and mixes are its own).
        let saved = (tree: self.tree, groups: groupImages, contents: contentMixes, transitions: transitionMixes, root: rootPixelSize)
        self.tree = copy
        groupImages = [:]; contentMixes = [:]; transitionMixes = [:]
        rootPixelSize = limit
        defer {
            for g in groupImages.values { g.target.release() }
            for m in Array(contentMixes.values) + Array(transitionMixes.values) { m.target.release() }
            self.tree = saved.tree
            groupImages = saved.groups; contentMixes = saved.contents; transitionMixes = saved.transitions
            rootPixelSize = saved.root
        }
        do {
            var stats = FrameStatistics()
            try device.withContext {
                try renderDirtyGroups(scale: scale, limit: limit, stats: &stats)
                let pass = try device.beginRenderPass(on: image, clear: .clear)
                var drawer = SurfaceDrawer(compositor: self, tree: copy, pass: pass,
                                           offset: Transform3D(translationX: -origin.x, y: -origin.y), scale: scale, stats: stats)
                try drawer.draw(surface, items: nil)
                try drawer.finish()
                pass.submit()
            }
        } catch {
            image.release()
            throw error
        }
        return OldPicture(target: image, rect: Rect(x: origin.x, y: origin.y, width: Double(px.width) / scale, height: Double(px.height) / scale),
                          opacity: opacity)
    }

    /// What a group composites: its image — or, in a transition, its old picture mixed
    /// with its image (made again when the image or the progress changes).
    func compositeImage(_ id: LayerID, scale: Double, within limit: PixelSize, stats: inout FrameStatistics) throws -> (Texture, Rect)? {
        let surface = tree?.surfaces[id]
        surface?.compositeIsStale = false
        let image = try groupImage(id, scale: scale, within: limit, stats: &stats)
        guard let node = tree?.nodes[id], let t = node.state.properties.transition else { return image }
        // The new picture at the layer's opacity now (0 when it is now hidden), the old at its
        // opacity then: the mix fades between the two opacities too.
        let state = node.state
        let newOpacity = node.visible ? (state.allowsGroupOpacity ? RenderTree.opacity(of: state) : 1) : 0
        let old = node.transitionPicture?.id == t.id ? transitionPictures[t.id] : nil
        var box: Box? = image.map { Box($0.1) }
        if let o = old { box = box.map { $0.union(Box(o.rect)) } ?? Box(o.rect) }
        guard let b = box, let px = Compositor.pixelBox(b, scale: scale, limit: limit) else { return nil }
        let origin = Point(x: Double(px.x) / scale, y: Double(px.y) / scale)
        let rect = Rect(x: origin.x, y: origin.y, width: Double(px.width) / scale, height: Double(px.height) / scale)
        let stamp = MixStamp(fraction: t.fraction, frame: 0, renders: surface?.renders ?? 0, image: image?.1, opacity: newOpacity)
        if let m = transitionMixes[id], m.box == px, m.stamp == stamp, !m.target.isReleased { return (m.target.texture!, rect) }
        let target = try mixTarget(transitionMixes[id], box: px, scale: scale)
        transitionMixes[id] = Mix(target: target, box: px, stamp: MixStamp(fraction: .nan, frame: -1))
        let pass = try device.beginRenderPass(on: target, clear: .clear)
        pass.blendsAdditively = true
        let offset = Transform3D(translationX: -origin.x, y: -origin.y)
        if let o = old, t.fraction < 1, o.opacity > 0, let texture = o.target.texture {
            try pass.draw(texture, in: o.rect, alpha: (1 - t.fraction) * o.opacity, minFilter: .nearest, magFilter: .nearest,
                          transform: offset)
        }
        if let (texture, r) = image, t.fraction > 0, newOpacity > 0 {
            try pass.draw(texture, in: r, alpha: t.fraction * newOpacity, minFilter: .nearest, magFilter: .nearest, transform: offset)
        }
        pass.submit()
        transitionMixes[id]?.stamp = stamp
        stats.offscreenPasses += 1
        return (target.texture!, rect)
    }

    /// Frees the old pictures of transitions no layer has any more.
    func releaseEndedTransitions() {
        guard let tree else { return }
        var live = Set<UInt64>()
        for node in tree.animated.values { for e in (node.model ?? node.state).effects { live.formUnion(e.transitionIDs) } }
        for id in transitionsSeen where !live.contains(id) {
            transitionsSeen.remove(id)
            transitionPictures.removeValue(forKey: id)?.target.release()
        }
    }
}

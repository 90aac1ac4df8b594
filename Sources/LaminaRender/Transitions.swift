import LaminaGeometry
import LaminaGPU
@_spi(LaminaInternal) import LaminaValues

// Transitions' old pictures: when an update adds a transition to a layer, the compositor
// takes the layer's picture *before* applying it — its subtree as the render tree held it,
// copied into a small tree of its own, placed at the layer's last world transform, built as
// a frame into an image of target space and run. The image is kept (`ImageKey.oldPicture`)
// until no layer has the transition any more; `TransitionCrossFade` mixes it.
extension Compositor {
    /// Takes the old picture of every layer a transition was just added to (before the
    /// update that brings it is applied: the layers as they were last composited).
    func captureTransitions(in update: RenderUpdate) {
        guard let tree else { return }
        for s in update.layers where s.changes.contains(.animations) {
            for id in s.effects.flatMap(\.transitionIDs) where !transitionsSeen.contains(id) {
                transitionsSeen.insert(id)
                guard let node = tree.nodes[s.id] else { continue }   // new here: it fades in
                do {
                    let picture = try picture(of: node, transition: id)
                    node.transitionPicture = (id, picture?.rect, picture?.opacity ?? 1)
                    if let picture { transitionPictures[id] = picture }
                } catch {
                    node.transitionPicture = (id, nil, 1)
                    deferredError = deferredError ?? error
                }
            }
        }
    }

    /// The node and its subtree as last composited, into an image of the target's space
    /// (without the layer's own opacity, which applies to its composite); nil when it showed
    /// nothing.
    private func picture(of node: RenderNode, transition: UInt64) throws -> (rect: Rect, opacity: Double)? {
        guard let tree, let target = lastTarget, !target.isReleased, node.visible, node.facts != nil else { return nil }
        // The subtree's states, each with its sublayer list whole.
        var states: [LayerID: LayerState] = [:]
        var stack = [node]
        while let n = stack.popLast() {
            states[n.id] = n.state.describedWhole(sublayers: n.children.map(\.id), mask: n.maskNode?.id)
            stack += n.childNodes
        }
        // Without the layer's own opacity (it is part of the composite's mix), unless the
        // layer has no group opacity (then its items carry it). A transition running on it
        // stays: the picture is what was on screen, mid-transition or not.
        var p = node.state.properties
        let groupOpacity = node.state.allowsGroupOpacity
        let opacity = groupOpacity ? Placement.opacity(of: node.state) : 1
        if groupOpacity { p.opacity = 1 }
        states[node.id] = node.state.describedWhole(sublayers: node.children.map(\.id), mask: node.maskNode?.id, properties: p)
        let copy = RenderTree(root: node.id, states: states)
        for (id, copied) in copy.nodes { copied.transitionPicture = tree.nodes[id]?.transitionPicture }
        copy.rootWorld = node.world
        copy.rootDepthCuts = node.depthCuts
        return try picture(of: copy, as: .oldPicture(transition), on: target).map { ($0, opacity) }
    }

    /// A tree of its own (a copy of a subtree, placed where it was) built as a frame into
    /// the image `key` of the target's space, kept by the encoder; its rectangle in target
    /// points (nil: it shows nothing).
    func picture(of copy: RenderTree, as key: ImageKey, on target: RenderTarget) throws -> Rect? {
        let builder = FrameBuilder(tree: copy, maximumImageSide: device.capabilities.maxRenderTargetSize)
        let update = builder.update(size: target.size)
        guard let surface = builder.target else { return nil }
        surface.recomputeBounds()
        guard let b = surface.bounds, let px = b.pixelsCovering(scale: target.scale, limit: target.pixelSize) else { return nil }
        var frame = builder.makeFrame(FrameBuilder.FrameRequest(size: target.size, scale: target.scale, pixelSize: target.pixelSize,
                                                                damage: nil, fullFrameReason: .rebuilt, background: .clear),
                                      update: update)
        frame.destination = .image(key, pixels: px, scale: target.scale)
        // Its own images (groups, mixes) are its own: a second encoder, sharing the contents.
        let own = GLPassEncoder(device: device, contents: contents)
        own.target = target
        // The old pictures of transitions running in the subtree are lent (it shows them mid-fade).
        let lent = encoder.images.filter { if case .oldPicture = $0.key { return true }; return false }
        for (k, image) in lent { own.keepImage(image, as: k) }
        defer {
            for k in lent.keys { _ = own.takeImages(k) }
            own.releaseAll()
        }
        var executor = FrameExecutor(encoder: own)
        try device.withContext { try executor.run(frame) }
        if let image = own.takeImages(key) { encoder.keepImage(image, as: key) }
        return px.targetBox(scale: target.scale).targetRect
    }

    /// Frees the old pictures of transitions no layer has any more.
    func releaseEndedTransitions() {
        guard let tree else { return }
        var live = Set<UInt64>()
        for node in tree.animated.values { for e in (node.model ?? node.state).effects { live.formUnion(e.transitionIDs) } }
        for id in transitionsSeen where !live.contains(id) {
            transitionsSeen.remove(id)
            transitionPictures[id] = nil
            encoder.release(.oldPicture(id))
        }
    }
}


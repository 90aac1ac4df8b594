import LaminaGeometry
import LaminaGPU
@_spi(LaminaInternal) import LaminaValues

// `ReplicatorLayer.instanceDelay`: instance k shows the replicator's sublayers as they were
// k × delay seconds earlier (Core Animation offsets each copy's animations by k × delay). While
// no sublayer animates, every instance is the same image (`ReplicasItem`). While one does, at
// each frame the compositor renders each later instance from a copy of the sublayers with
// their animations evaluated at the earlier time (`Compositor.picture(of:as:on:)`, as a
// transition's old picture is), and the replicator is worked out again (damage: its
// instances' boxes before and after).
extension Compositor {
    /// At most this many instances are rendered apart (the rest show the shared image: the
    /// sublayers as they are now).
    static let maximumDelayedInstances = 256

    /// Renders the delayed instances of every replicator that needs them now (placed: after
    /// the frame's update); lets go of those of replicators that no longer do. Returns
    /// whether a replicator changed (its items are to be worked out again).
    func renderDelayedInstances(_ tree: RenderTree, on target: RenderTarget) -> Bool {
        var changed = false
        var wanted: [RenderNode] = []
        if !tree.animated.isEmpty {
            var seen = Set<ObjectIdentifier>()
            for node in tree.animated.values where node.isInTree {
                var p = node.parentNode
                while let r = p {
                    if let style = r.state.properties.replicator, style.delay != 0, style.count > 1, r.visible,
                       seen.insert(ObjectIdentifier(r)).inserted {
                        wanted.append(r)
                    }
                    p = r.parentNode
                }
            }
        }
        let wantedIDs = Set(wanted.map(\.id))
        for (id, count) in delayedReplicators where !wantedIDs.contains(id) {
            delayedReplicators[id] = nil
            for k in 0..<count { encoder.release(.delayedInstance(id, k + 1)) }
            if let node = tree.nodes[id], node.isInTree {
                node.delayedInstances = []
                node.changes.insert(.effects)
                tree.pendingNodes.append(node)
                changed = true
            }
        }
        guard !wanted.isEmpty else { return changed }
        let now = lastFrameMediaTime ?? MediaClock.now()
        for r in wanted {
            do {
                let (images, running) = try delayedInstances(of: r, tree: tree, at: now, on: target)
                let held = delayedReplicators[r.id] ?? 0
                if held > images.count { for k in images.count..<held { encoder.release(.delayedInstance(r.id, k + 1)) } }
                delayedReplicators[r.id] = images.count
                r.delayedInstances = images
                hasRunningAnimations = hasRunningAnimations || running
            } catch {
                r.delayedInstances = []
                deferredError = deferredError ?? error
            }
            r.changes.insert(.effects)
            tree.pendingNodes.append(r)
        }
        return true
    }

    /// The images of instances 1… of replicator `r` at media time `time`, and whether an
    /// animation of some instance still runs.
    private func delayedInstances(of r: RenderNode, tree: RenderTree, at time: Double,
                                  on target: RenderTarget) throws -> ([(key: ImageKey, rect: Rect?)], Bool) {
        guard let style = r.state.properties.replicator else { return ([], false) }
        // The replicator itself draws nothing in the copy: only its sublayers, in its space.
        var own = r.state.properties
        own.backgroundColor = nil; own.borderWidth = 0; own.shadowOpacity = 0; own.opacity = 1; own.isHidden = false
        own.masksToBounds = false; own.replicator = nil; own.gradient = nil; own.shader = nil; own.shaderEffect = nil
        own.compositingFilter = nil; own.backgroundFilters = []; own.transition = nil; own.contentsFade = nil
        var nodes: [RenderNode] = []
        var stack = Array(r.childNodes)
        while let n = stack.popLast() { nodes.append(n); stack += n.childNodes }
        var images: [(key: ImageKey, rect: Rect?)] = []
        var running = false
        for k in 1..<min(style.count, Self.maximumDelayedInstances) {
            let at = time - Double(k) * style.delay
            var states: [LayerID: LayerState] = [
                r.id: LayerState(id: r.id, properties: own, preservesDepth: r.state.preservesDepth, contents: nil,
                                 sublayers: r.children.map(\.id), changes: .all)]
            for n in nodes {
                var p = n.state.properties
                if let model = n.model {
                    let (t, frozen) = tree.localTime(of: n, at: at)
                    p = presentedProperties(model.properties, effects: model.effects, at: t)
                    if !frozen && !running { running = model.effects.contains { $0.isRunning(at: t) } }
                }
                states[n.id] = LayerState(id: n.id, properties: p, preservesDepth: n.state.preservesDepth, contents: n.state.contents,
                                          sublayers: n.children.map(\.id), mask: n.maskNode?.id, changes: .all)
            }
            let copy = RenderTree(root: r.id, states: states)
            copy.rootWorld = r.world
            copy.rootDepthCuts = r.depthCuts
            let key = ImageKey.delayedInstance(r.id, k)
            let rect = try picture(of: copy, as: key, on: target)
            if rect == nil { encoder.release(key) }
            images.append((key, rect))
        }
        return (images, running)
    }
}

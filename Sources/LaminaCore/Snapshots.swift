import LaminaGeometry
import LaminaGPU
import LaminaModel
import LaminaRender
import LaminaValues

/// A full snapshot of `root`'s tree: its render tree and the pixels of every backing store
/// in it (what a renderer starts from; later commits keep it up to date).
@MainActor
func snapshot(of root: Layer) -> (RenderTree, [ContentUpload]) {
    var states: [LayerID: LayerState] = [:]
    var uploads: [ContentUpload] = []
    var stack = [root]
    while let l = stack.popLast() {
        states[l.id] = l.wholeState
        if case .backingStore(let store)? = l.contents { uploads.append(store.upload()) }
        stack += l.renderChildren
    }
    return (RenderTree(root: root.id, states: states), uploads)
}

extension Compositor: @MainActor RenderUpdateReceiver {
    package var deliveryRootID: LayerID? { tree?.rootID }
    package var maximumTextureSide: Int { device.capabilities.maxTextureSize }
    package func receive(_ update: RenderUpdate) { apply(update) }

    /// Composites `root` (placed in target points) into `target`, cleared to `background`
    /// first — or, with `background` nil, over what the target already holds (a host's
    /// frame). Changes made to the tree since the last commit are taken first (without
    /// layout or display: `Transaction.flush()` runs those).
    ///
    /// Only what changed is recomposited: the damage — the boxes of what moved, faded,
    /// was redrawn, appeared or disappeared, before and after — is cleared and drawn,
    /// scissored, and the target keeps the rest (for targets that keep their pixels:
    /// `RenderTarget.bufferAge`; a structural change, a new target or background, or a
    /// `nil` background redraws the whole target). When nothing changed, nothing is drawn
    /// (the statistics say `skipped`, zero draw calls) unless `always` is set: then the
    /// whole target is drawn again from the frame data kept, without walking the tree (a
    /// host that redraws its framebuffer every frame). `overlays` are drawn last over the
    /// whole target (debugging aids).
    @MainActor
    @discardableResult
    public func render(_ root: Layer, to target: RenderTarget, background: Color? = .clear, always: Bool = false,
                       overlays: [(rect: Rect, color: Color, transform: Transform3D)] = []) throws -> FrameStatistics {
        let clock = PhaseClock()
        guard target.device === device else { throw GPUError.wrongDevice(what: "the render target") }
        let recovered = try recoverIfContextLost(target)
        guard !target.isReleased else { throw GPUError.released(what: "the render target", operation: "Compositor.render") }
        root.transactionContext.deliverChanges()
        if tree?.rootID != root.id {
            let (tree, uploads) = snapshot(of: root)
            adopt(tree, uploads: uploads)
            root.transactionContext.register(self)
        }
        return try renderFrame(to: target, background: background, always: always, overlays: overlays, clock: clock,
                               recovered: recovered)
    }
}

extension RenderThread: @MainActor RenderUpdateReceiver {
    package var deliveryRootID: LayerID? { rootID }
    package var maximumTextureSide: Int { compositor.device.capabilities.maxTextureSize }
    package func receive(_ update: RenderUpdate) {
        hasUnrenderedUpdates = true
        enqueue(update)
    }

    /// Hands the thread a snapshot of `root`'s tree (the first frame, or after a context loss).
    @MainActor
    func attach(_ root: Layer) {
        let (tree, uploads) = snapshot(of: root)
        hasUnrenderedUpdates = true
        attach(tree, uploads: uploads)
    }
}

import LaminaGeometry
import LaminaGPU
import LaminaModel
import LaminaRender
import LaminaValues

/// A full snapshot of `root`'s tree: its render tree and the pixels of every backing store
/// in it (what a renderer starts from; later commits keep it up to date).
@MainActor
func snapshot(of root: Layer) -> (RenderTree, [ContentUpload]) {
    let (states, uploads) = root.subtreeSnapshot()
    return (RenderTree(root: root.id, states: states), uploads)
}

extension Compositor: @MainActor RenderUpdateReceiver {
    package var deliveryRootID: LayerID? { tree?.rootID }
    package var maximumTextureSide: Int { device.capabilities.maxTextureSize }
    package func receive(_ update: RenderUpdate) { apply(update) }
}

/// Renders a layer tree into render targets when asked (Core Animation's `CARenderer`): the
/// bridge between a tree of `Layer`s and a `Compositor`, which sees only what commits hand
/// it. The first render takes a snapshot of the tree; later commits of the tree's transaction
/// context keep the compositor's copy up to date. The compositor's properties read through
/// (`renderer.lastFrame`, `renderer.cachedTextureCount`, …).
@MainActor
@dynamicMemberLookup
public final class LayerRenderer {
    public let compositor: Compositor

    public init(device: GPUDevice) { compositor = Compositor(device: device) }

    public var device: GPUDevice { compositor.device }

    public subscript<T>(dynamicMember keyPath: KeyPath<Compositor, T>) -> T { compositor[keyPath: keyPath] }
    public subscript<T>(dynamicMember keyPath: ReferenceWritableKeyPath<Compositor, T>) -> T {
        get { compositor[keyPath: keyPath] }
        set { compositor[keyPath: keyPath] = newValue }
    }

    /// Composites `root` (placed in target points) into `target`, cleared to `background`
    /// first — or, with `background` nil, over what the target already holds (a host's
    /// frame). Changes made to the tree since the last commit are taken first (without
    /// layout or display: `Transaction.flush()` runs those).
    ///
    /// Only what changed is recomposited: the damage — the boxes of what moved, faded, was
    /// redrawn, appeared or disappeared, before and after, as a few rectangles — is cleared
    /// and drawn, each scissored, and the target keeps the rest (for targets that keep their
    /// pixels: `RenderTarget.bufferAge`; a new target or background, or a `nil` background,
    /// redraws the whole target). When nothing changed, nothing is drawn (the statistics say
    /// `skipped`, zero draw calls) unless `always` is set: then the whole target is drawn
    /// again from the items kept, without walking the tree (a host that redraws its
    /// framebuffer every frame). `overlays` are drawn last over the whole target.
    @discardableResult
    public func render(_ root: Layer, to target: RenderTarget, background: Color? = .clear, always: Bool = false,
                       overlays: [(rect: Rect, color: Color, transform: Transform3D)] = []) throws -> FrameStatistics {
        try LayerRenderer.render(root, with: compositor, to: target, background: background, always: always, overlays: overlays)
    }

    /// Forgets the last frame, so the next render redraws the whole target.
    public func forgetLastFrame() { compositor.forgetLastFrame() }

    /// Frees every GPU object and stops following the tree (the next render starts from a
    /// new snapshot).
    public func release() {
        compositor.release()
    }

    /// `render(_:to:…)` with a given compositor (a host's).
    static func render(_ root: Layer, with compositor: Compositor, to target: RenderTarget, background: Color?, always: Bool,
                       overlays: [(rect: Rect, color: Color, transform: Transform3D)]) throws -> FrameStatistics {
        let clock = PhaseClock()
        guard target.device === compositor.device else { throw GPUError.wrongDevice(what: "the render target") }
        return try compositor.inFrameScope(on: target) { recovered in
            // (After a recovery: a target that lost its storage with the context has it again.)
            guard !target.isReleased else { throw GPUError.released(what: "the render target", operation: "LayerRenderer.render") }
            root.transactionContext.deliverChanges()
            if compositor.tree?.rootID != root.id {
                let (tree, uploads) = snapshot(of: root)
                compositor.adopt(tree, uploads: uploads)
                root.transactionContext.register(compositor)
            }
            return try compositor.renderFrame(to: target, background: background, always: always, overlays: overlays, clock: clock,
                                              recovered: recovered)
        }
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

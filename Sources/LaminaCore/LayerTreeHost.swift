import FoundationEssentials
import Glibc
import LaminaGeometry
import LaminaGPU
import LaminaModel
import LaminaRender
import LaminaValues

/// Connects a layer tree to a render target: every commit that changed the tree
/// composites it (`Transaction`), and layers of the tree upload their drawn content to
/// this host's device as soon as they draw.
///
/// For a host program that redraws its own framebuffer every frame there are two modes
/// (docs/embedding.md): keep the output in a retained texture (a target of Lamina's own,
/// composited only when the tree changed) and draw it each frame (`present(into:)`, one
/// quad); or composite straight into the host's framebuffer every frame over what the
/// host drew (`background` nil, `compositesEveryFrame`).
@MainActor
public final class LayerTreeHost: CommitHost {
    public let rootLayer: Layer
    /// The transaction context whose commits composite this host: its root layer's.
    public var context: TransactionContext { rootLayer.transactionContext }
    /// Where frames land. Setting another target (a resized window surface, another
    /// device's target) makes the next commit composite there; the compositor follows the
    /// target's device.
    public var target: RenderTarget {
        didSet {
            guard target !== oldValue else { return }
            if target.device !== compositor.device {
                if renderThread != nil {
                    stopRenderThread()
                    compositor = Compositor(device: target.device)
                    startRenderThread()
                } else {
                    compositor.release()
                    compositor = Compositor(device: target.device)
                }
            } else {
                renderThread?.setTarget(target)
            }
            context.noteChange()
        }
    }
    /// The thread compositing this tree, when the host renders on one (`rendersOnThread`):
    /// it owns the compositor, the device and the target (see `RenderThread`).
    public private(set) var renderThread: RenderThread?
    private var renderThreadAttached = false
    private var lastRequestedBackground: Color??
    public private(set) var compositor: Compositor
    public var device: GPUDevice { compositor.device }
    /// What the target is cleared to before each frame; nil: nothing is cleared, the tree
    /// is composited over what the target holds (a host's frame).
    public var background: Color? { didSet { if background != oldValue { rootLayer.contentsDidChange() } } }
    /// Composite at every commit (every `MainLoop` turn, `Transaction.commitIfNeeded()`),
    /// even when nothing changed: for a host that redraws its framebuffer every frame and
    /// composites Lamina over it. An unchanged tree is drawn again from the frame data
    /// kept (its items and their world transforms), without walking the tree, laying out, drawing or uploading.
    public var compositesEveryFrame = false {
        didSet { if compositesEveryFrame { context.noteChange() } }
    }
    /// The last frame's statistics (with the layouts and draws of its commit).
    public private(set) var lastFrame = FrameStatistics()
    /// Frames composited so far.
    public private(set) var frameCount = 0
    /// Called after each composited frame.
    public var didComposite: ((FrameStatistics) -> Void)?
    /// Debug: paints each frame's redrawn rectangles in translucent magenta over the output
    /// (Core Animation's "flash updated regions"). Defaults to `LAMINA_SHOW_REDRAWS=1`.
    public var showsRedrawRegions = ProcessInfo.processInfo.environment["LAMINA_SHOW_REDRAWS"] == "1"
    private var flashVisible = false

    /// With `rendersOnThread`, the tree is composited on a render thread of its own
    /// (`RenderThread`): animations keep running while the main thread is busy, and from
    /// then on the device and the target belong to that thread (use
    /// `renderThread.perform` for GPU work of your own, e.g. reading pixels).
    /// `renderDriver` `.external`: the host's own thread drives it (`serviceFrame()`).
    /// With a render thread, `lastFrame`, `frameCount` and `didComposite` follow the frames
    /// a commit waited for (`flush()`, explicit commits); the end-of-turn commit's frames
    /// and the thread's own animation frames are counted by `renderThread.framesRendered`
    /// and seen by its `frameObserver`.
    public init(rootLayer: Layer, target: RenderTarget, background: Color? = .clear, rendersOnThread: Bool = false,
                renderDriver: RenderThread.Driver = .ownThread) {
        self.rootLayer = rootLayer
        self.target = target
        self.background = background
        self.compositor = Compositor(device: target.device)
        self.renderDriver = renderDriver
        context.hosts.append(WeakHost(host: self))
        if rendersOnThread { startRenderThread() }
        context.noteChange()
    }
    private let renderDriver: RenderThread.Driver

    private func startRenderThread() {
        let loop = MainLoop.main
        let thread = RenderThread(compositor: compositor, target: target, rootID: rootLayer.id, driver: renderDriver,
                                  framesPerSecond: context.animationFramesPerSecond,
                                  postToMain: { body in loop.post(body) })
        thread.snapshotNeeded = { [weak self] in
            guard let self, let thread = self.renderThread else { return }
            thread.attach(self.rootLayer)
            context.noteChange()
        }
        renderThread = thread
        renderThreadAttached = false
    }

    /// A host dropped without `detach()` stops its render thread (which would otherwise
    /// wait for work forever) and frees the thread's GPU objects.
    isolated deinit {
        if renderThread != nil { stopRenderThread() }
    }

    private func stopRenderThread() {
        guard let thread = renderThread else { return }
        context.unregister(thread)
        thread.stop()
        renderThread = nil
    }

    /// Whether the next commit must draw even without layer changes (a flash to remove,
    /// or a context known to be lost: the frame recovers it, so that an unchanged tree is
    /// shown again at once).
    package var needsFrameRequest: Bool {
        if let thread = renderThread { return flashVisible || thread.needsSnapshot }
        return flashVisible || compositor.showsDamageFlash || compositor.device.isContextLost || compositor.hasRunningAnimations
    }

    package var needsFrame: Bool {
        if let thread = renderThread {
            // The thread makes its own animation frames; the device is its business.
            return flashVisible || compositesEveryFrame || thread.needsSnapshot
        }
        return flashVisible || compositor.showsDamageFlash || compositesEveryFrame || compositor.device.isContextLost
            || compositor.hasRunningAnimations
    }

    package func composite(displays: [DisplayRecord], layouts: Int, timings: FrameTimings) throws {
        // (With a render thread, the compositor is the thread's: the request says it.)
        if flashVisible && renderThread == nil { compositor.forgetLastFrame() }
        let flash = showsRedrawRegions && !displays.isEmpty
        var overlays: [(rect: Rect, color: Color, transform: Transform3D)] = []
        if flash {
            // Debugging aid: the model's layers are found by walking the tree.
            var byID: [LayerID: Layer] = [:]
            var stack = [rootLayer]
            while let l = stack.popLast() { byID[l.id] = l; stack += l.renderChildren }
            for record in displays {
                guard let layer = byID[record.layerID] else { continue }
                overlays.append((record.rect, Color(red: 1, green: 0, blue: 1, alpha: 0.35), layer.transformToRoot))
            }
        }
        if let thread = renderThread {
            if !renderThreadAttached || thread.needsSnapshot {
                // The thread's first snapshot (later commits reach it as updates), or a new
                // one after its copy of the tree went with a lost context.
                thread.attach(rootLayer)
                context.register(thread)
                renderThreadAttached = true
            }
            // Nothing new for the thread (a commit that only ran the frame clock, which the
            // thread follows by itself): no frame asked for.
            guard context.waitsForFrames || thread.hasUnrenderedUpdates || context.animationsDue || compositesEveryFrame || flashVisible
                    || !overlays.isEmpty || background != lastRequestedBackground else { return }
            thread.hasUnrenderedUpdates = false
            lastRequestedBackground = background
            let request = RenderThread.FrameRequest(background: background, always: compositesEveryFrame, overlays: overlays,
                                                    redrawsAll: flashVisible)
            flashVisible = !overlays.isEmpty
            guard var stats = try thread.requestFrame(request, wait: context.waitsForFrames) else { return }
            if thread.needsSnapshot {
                // The frame found the context lost: the thread recovered it but its copy of
                // the tree went with it. A new snapshot, and the frame again.
                thread.attach(rootLayer)
                if let again = try thread.requestFrame(request, wait: true) {
                    stats = again
                    stats.recoveredFromContextLoss = true
                }
            }
            stats.layoutPasses = layouts
            stats.timings.layout = timings.layout
            stats.timings.display = timings.display
            stats.timings.commit += timings.commit   // describing (main thread) + applying (render thread)
            stats.displays = displays
            if !stats.skipped { frameCount += 1 }
            lastFrame = stats
            didComposite?(stats)
            return
        }
        var stats = try LayerRenderer.render(rootLayer, with: compositor, to: target, background: background, always: compositesEveryFrame,
                                             overlays: overlays)
        flashVisible = !overlays.isEmpty
        stats.layoutPasses = layouts
        stats.timings.layout = timings.layout
        stats.timings.display = timings.display
        stats.timings.commit = timings.commit   // the delivery includes the compositor applying it
        // The draws of layers in this tree.
        stats.displays = displays.filter { compositor.tree?.contains($0.layerID) == true }
        if !stats.skipped { frameCount += 1 }
        lastFrame = stats
        didComposite?(stats)
    }

    /// Retained-output mode: draws the last composited frame — this host's target's
    /// texture — into `destination` (a host's framebuffer, say) over what it holds, in
    /// `rect` (points of `destination`; nil: all of it). One quad, one draw call; nothing
    /// is composited again. The target must be one of Lamina's own (it has a texture).
    @discardableResult
    public func present(into destination: RenderTarget, in rect: Rect? = nil) throws -> FrameStatistics {
        if let thread = renderThread {
            // The device is the thread's: drawn there.
            let target = self.target
            return try thread.perform { try LayerTreeHost.present(target, into: destination, in: rect) }
        }
        return try LayerTreeHost.present(target, into: destination, in: rect)
    }

    private nonisolated static func present(_ target: RenderTarget, into destination: RenderTarget, in rect: Rect?) throws -> FrameStatistics {
        guard let texture = target.texture else {
            throw GPUError.unusableTarget(reason: "present(into:) needs a retained output texture, but this host renders into a caller's framebuffer: give it an OffscreenTarget")
        }
        var stats = FrameStatistics()
        let calls = destination.device.drawCalls
        try destination.composite(texture, in: rect ?? Rect(origin: .zero, size: destination.size))
        stats.drawCalls = destination.device.drawCalls - calls
        stats.quadsDrawn = 1
        stats.damagedRect = rect ?? Rect(origin: .zero, size: destination.size)
        return stats
    }

    /// Stops compositing this tree and frees the compositor's GPU objects (the host is
    /// detached from its tree and from the commits; its target is left to its owner).
    public func detach() {
        context.hosts.removeAll { $0.host === self || $0.host == nil }
        if renderThread != nil { stopRenderThread() } else { compositor.release() }
    }
}

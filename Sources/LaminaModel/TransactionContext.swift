import CPrefetch
import FoundationEssentials
import LaminaValues
import Glibc
import LaminaGeometry

/// A layer kind with work to do at every commit before the display pass (a shape layer
/// rasterised again where its on-screen scale grew, a tiled layer updating its tiles): it
/// registers with its context (`TransactionContext.addCommitHook`) instead of being called
/// by name.
@MainActor
package protocol CommitHookLayer: Layer {
    func commitWillDisplay()
}

/// One transaction context (Core Animation's transactions are per thread): the queues of
/// layers waiting for layout and display, the changes waiting for delivery, the hosts and
/// renderers of its trees, the explicit transactions open, the animations in flight and the
/// commit hooks of layer kinds. `Transaction`'s static API is a façade over the current
/// context: `TransactionContext.main` (the main actor's, committed by `MainLoop.main`), or one
/// a caller made and entered (`withCurrent(_:)`: tests run isolated from each other this way).
/// A layer belongs to the context current when it was made; its changes, layout and display
/// go there.
@MainActor
public final class TransactionContext {
    /// The main actor's context: the one `MainLoop.main` commits at the end of each turn.
    public static let main = TransactionContext()
    /// The context entered by this task (`withCurrent(_:)`), if any.
    @TaskLocal package static var entered: TransactionContext?
    /// The context `Transaction`'s static API works on: the one this task entered, else `main`.
    public static var current: TransactionContext { entered ?? main }

    public init() {}

    /// Runs `body` with this context as the current one (for the task running it: layers made
    /// there belong to it, `Transaction.flush()` commits it).
    public func withCurrent<T>(_ body: () throws -> T) rethrows -> T {
        try TransactionContext.$entered.withValue(self) { try body() }
    }

    // MARK: Animation state (used by AnimationTransaction.swift)

    /// The innermost transaction first, the implicit one (of this run-loop turn) last.
    /// (`@exclusivity(unchecked)`: read at every animatable setter, `disableActions()`; never
    /// passed `inout` or held across a call.)
    @exclusivity(unchecked) var frames: [TransactionFrame] = [TransactionFrame(id: 1)]
    var lastTransactionID = 1
    /// What `disableActions()` is in a transaction that does not set it: false, as in
    /// Core Animation (standalone layers in a rendered tree animate their changes). A
    /// program that sets its layers' properties every frame itself — a compositor, a game,
    /// a benchmark — sets it true once instead of disabling actions in every transaction.
    public var disablesActionsByDefault = false
    /// Layers with animations (unretained: a layer leaves when freed, `forget`).
    var animatingLayers: [ObjectIdentifier: Unmanaged<Layer>] = [:]
    /// Layers with an animation of a key they draw (`needsDisplay(forKey:)`): displayed at
    /// every frame while it runs (a subset of `animatingLayers`, walked every commit).
    var drawnAnimationLayers: [ObjectIdentifier: Unmanaged<Layer>] = [:]
    var startedSerials = Set<UInt64>()
    var stoppedSerials = Set<UInt64>()
    /// Animations added per open transaction (for its completion block).
    var animationCounts: [Int: Int] = [:]
    var pendingCompletions: [Int: PendingCompletion] = [:]
    var completionsDue: [@MainActor () -> Void] = []
    var frameTimer: MainLoop.Token?
    var wakeTimer: MainLoop.Token?
    /// An animation's start or end time came: hosts composite this commit (threaded ones
    /// ask their thread for a frame) even without changes.
    package var animationsDue = false
    /// Frames per second at which `MainLoop.main` wakes while animations run (the frame
    /// clock stops when the last one ends).
    public var animationFramesPerSecond = 60.0
    /// After a commit: reports animations that started or ended by now (removing ended
    /// ones that are removed on completion), runs due callbacks and completion blocks, and
    /// keeps `MainLoop.main` waking at the frame rate while any animation runs.
    /// The media time of the next start or end of an animation (-∞: to be worked out
    /// again), and whether any animation was running at the last look: until then,
    /// nothing is reported and the frame clock keeps its state (no walk per frame).
    var nextAnimationEvent = -Double.infinity
    var runningAtLastLook = false

    // MARK: Commit state

    private var depth = 0
    /// An end of turn already found the explicit transaction open.
    private var openAtEndOfTurn = false
    private var pendingChanges = false {
        didSet { if pendingChanges && !oldValue { requestFrame() } }
    }
    private var layoutQueue = LayerQueue(.layout)
    private var displayQueue = LayerQueue(.display)
    private var records: [DisplayRecord] = []
    private var layoutCount = 0
    package var hosts: [WeakHost] = []
    /// Layers changed since their state last went to the renderers (each once).
    @exclusivity(unchecked) private var changedLayers = LayerQueue(.changes)
    /// Backing stores the renderers get whole at the next delivery (new to them).
    private var fullUploads: [UInt64: BackingStore] = [:]
    /// The renderers (compositors) that receive every update.
    private var renderers: [WeakRenderer] = []

    /// Registers a receiver of every later update (until it is freed or unregistered).
    package func register(_ renderer: any RenderUpdateReceiver) {
        renderers.removeAll { $0.renderer == nil || $0.renderer === renderer }
        renderers.append(WeakRenderer(renderer: renderer))
    }
    package func unregister(_ renderer: any RenderUpdateReceiver) {
        renderers.removeAll { $0.renderer == nil || $0.renderer === renderer }
    }
    /// The roots of the trees the renderers composite.
    var deliveryRoots: [LayerID] { renderers.compactMap { $0.renderer?.deliveryRootID } }

    /// Observes each phase of each commit as it starts. A test hook:
    /// `@_spi(Testing) import LaminaModel`.
    @_spi(Testing) public var phaseObserver: ((CommitPhase) -> Void)?

    /// Called with every misuse the transaction recovered from. The default logs a
    /// warning (`LaminaLog.logger`); set it to collect them (tests) or to nil.
    public var warningHandler: ((TransactionWarning) -> Void)? = { warning in
        LaminaLog.logger.warning("\(warning)")
    }

    /// Layout passes a commit runs at most before it gives up on a layout that keeps
    /// invalidating itself (and throws a `CommitError`).
    public static let maximumLayoutPasses = 1000

    /// Whether changes wait for a commit.
    public var needsCommit: Bool { pendingChanges || !layoutQueue.isEmpty || !displayQueue.isEmpty }

    /// Opens an explicit transaction: nothing commits until the matching `commit()`.
    public func begin() { depth += 1; pushFrame() }

    /// Closes an explicit transaction; the outermost one commits. Without an open
    /// transaction it commits what is pending and reports `.commitWithoutBegin`.
    public func commit() throws {
        guard depth > 0 else {
            warningHandler?(.commitWithoutBegin)
            try commitWaiting()
            return
        }
        depth -= 1
        popFrame()
        if depth == 0 { openAtEndOfTurn = false; try commitWaiting() }
    }

    /// Commits now: layout, display, composite of everything changed so far. Inside an
    /// explicit transaction it waits, as Core Animation's does: the outermost `commit()`
    /// commits.
    public func flush() throws {
        guard depth == 0 else { return }
        try commitWaiting()
    }

    /// Whether the commit running waits for hosts that render on a thread to put its frame
    /// on their targets (`flush()`, an explicit `commit()`; not the end-of-turn commit).
    package private(set) var waitsForFrames = false

    private func commitWaiting() throws {
        waitsForFrames = true
        defer { waitsForFrames = false }
        try commitNow()
    }

    /// The end-of-turn hook: commits the implicit transaction if anything changed and no
    /// explicit transaction is open. `MainLoop` calls it after every turn; a host with its
    /// own loop calls it at the end of each iteration. An explicit transaction found open
    /// at two ends of turn in a row was never committed: it is closed (with
    /// `.uncommittedTransaction`) and its changes commit.
    public func commitIfNeeded() throws {
        if depth > 0 {
            guard openAtEndOfTurn else { openAtEndOfTurn = true; return }
            warningHandler?(.uncommittedTransaction(depth: depth))
            depth = 0
            while frames.count > 1 { popFrame() }
            openAtEndOfTurn = false
            try commitNow()
            return
        }
        guard wantsFrame else { return }
        try commitNow()
    }

    // MARK: Frame requests

    /// Called on the main actor when this context wants a frame: something changed that the
    /// next commit shows (a layer's property, `setNeedsDisplay()` or `setNeedsLayout()`,
    /// tiles that arrived), an animation runs, or a host must draw again (a damage flash, a
    /// lost context). A host that owns its frame clock (GTK's `gtk_gl_area_queue_render`,
    /// Qt's `QWindow::requestUpdate()`, a `wl_surface.frame` callback) schedules a frame here;
    /// in that frame it may set the frame's presentation time (`MediaClock.set(_:)`, which
    /// animations are evaluated at) and commits (`flush()` or `commitIfNeeded()`).
    ///
    /// Requests coalesce: after one, none comes until a commit runs. A commit that leaves
    /// something to show (an animation still running, changes made while compositing) asks
    /// again as it ends; when nothing changes, nothing is asked. Setting a handler while a
    /// frame is wanted asks at once. The handler runs inside the call that made the change
    /// (a property setter, say): it schedules, it does not commit or change layers.
    public var frameRequestHandler: (@MainActor () -> Void)? {
        didSet { frameRequested = false; if wantsFrameRequest { requestFrame() } }
    }
    /// A request was made and no commit has run since.
    private var frameRequested = false
    /// The handler is running (a request from inside it is not made again).
    private var isRequestingFrame = false
    /// Frame requests made (for tests and hosts that count them).
    public private(set) var frameRequestCount = 0

    /// Whether the next `commitIfNeeded()` would commit: changes wait, an animation runs, or
    /// a host must draw again.
    public var wantsFrame: Bool {
        needsCommit || animationsInFlight || hosts.contains(where: { $0.host?.needsFrame == true })
    }

    /// Whether a frame request is due: `wantsFrame`, less hosts that composite at every
    /// frame their host draws (`CommitHost.needsFrameRequest`).
    var wantsFrameRequest: Bool {
        needsCommit || animationsInFlight || hosts.contains(where: { $0.host?.needsFrameRequest == true })
    }

    private func requestFrame() {
        guard let handler = frameRequestHandler, !frameRequested, !isRequestingFrame else { return }
        frameRequested = true
        frameRequestCount += 1
        isRequestingFrame = true
        defer { isRequestingFrame = false }
        handler()
    }

    package func noteChange() { pendingChanges = true }

    /// Contexts other than `main` whose frame clock or animation wake-up fired during this
    /// run-loop turn, in the order they fired: `MainLoop.main` commits them at the end of the
    /// turn, after `main` (their animations advance as the main context's do).
    private static var dueAtEndOfTurn: [TransactionContext] = []

    /// What `MainLoop.main` commits at the end of each turn: the main context, and the
    /// contexts whose animations asked for a frame.
    package static func commitAtEndOfTurn() throws {
        try main.commitIfNeeded()
        guard !dueAtEndOfTurn.isEmpty else { return }
        let due = dueAtEndOfTurn
        dueAtEndOfTurn = []
        for context in due { try context.commitIfNeeded() }
    }

    /// This context's frame clock or wake-up fired: committed at the end of the turn.
    func noteDueAtEndOfTurn() {
        guard self !== TransactionContext.main,
              !TransactionContext.dueAtEndOfTurn.contains(where: { $0 === self }) else { return }
        TransactionContext.dueAtEndOfTurn.append(self)
    }
    func noteChanged(_ layer: Layer) {
        changedLayers.insert(layer)
        pendingChanges = true   // (last: a frame request may commit what is queued)
    }
    func noteNeedsFullUpload(_ store: BackingStore) { fullUploads[store.id] = store }


    /// The largest content side every registered renderer's GPU can hold (nil: none yet).
    var maximumContentSide: Int? {
        renderers.compactMap { $0.renderer?.maximumTextureSide }.min()
    }

    /// Counts of the last delivery (for tests): layers described, layers left out (not in
    /// a hosted tree).
    private(set) var lastDelivery = (described: 0, leftOut: 0)

    /// The last delivery's look-up of hosted trees (its answers hold while no tree changed shape).
    private var lastHostedTrees: HostedTrees?

    /// Describes the layers changed since the last delivery, with the pixels drawn, and
    /// hands the update to every renderer. Part of every commit; `LayerRenderer.render` calls
    /// it too (it composites what the model holds, without layout or display). Layers
    /// freed since, or outside every hosted tree, are left out.
    package func deliverChanges() {
        guard !changedLayers.isEmpty || !fullUploads.isEmpty else { return }
        let hosted = HostedTrees(roots: Set(hosts.compactMap { $0.host?.rootLayer.id }
                                            + renderers.compactMap { $0.renderer?.deliveryRootID }), reusing: lastHostedTrees)
        lastHostedTrees = hosted
        var update = spare.take()
        defer { spare.keep(&update) }
        let changed = changedLayers.take()
        var uploaded = Set<UInt64>()
        var leftOut = 0
        for (i, layer) in changed.enumerated() {
            // The layer three ahead is asked into the cache (its properties are read for
            // its update): a commit's layers lie scattered on the heap, where the hardware
            // prefetchers do not follow (a fifth of S1's commit phase).
            if i + 3 < changed.count { lamina_prefetch(Unmanaged.passUnretained(changed[i + 3]).toOpaque(), 1024) }
            layer.subtreeDescribed = false
            guard hosted.contains(layer) else {
                // Described whole when it joins a hosted tree.
                layer.pendingChanges = []
                leftOut += 1
                continue
            }
            // (Each array reserved for every changed layer at its first: no copies as it grows.)
            if let g = layer.geometryUpdate {
                if update.geometry.isEmpty { update.geometry.reserveCapacity(changed.count) }
                update.geometry.append(g)
            } else {
                if update.layers.isEmpty { update.layers.reserveCapacity(changed.count) }
                update.layers.append(layer.state)
            }
            layer.pendingChanges = []
            if case .backingStore(let store)? = layer.contents, uploaded.insert(store.id).inserted {
                if fullUploads.removeValue(forKey: store.id) != nil {
                    _ = store.takePendingUpload()
                    update.uploads.append(store.upload())
                } else if let u = store.takePendingUpload() {
                    update.uploads.append(u)
                }
            }
        }
        lastDelivery = (update.layerCount, leftOut)
        fullUploads = [:]
        renderers.removeAll { $0.renderer == nil }
        guard !update.isEmpty else { return }
        for entry in renderers { entry.renderer?.receive(update) }
    }

    /// The arrays of the last delivery's update, emptied, for the next: an update of S1's
    /// thousand layers is 376 KB, and a fresh one at every commit came from fresh pages
    /// (glibc gives memory back to the system between frames, with llvmpipe's scene blocks):
    /// about 100 page faults a frame, 0.2 µs a layer of main-thread time.
    private var spare = SpareUpdate()

    /// Something outside the layers (a tile drawn on another thread) needs a commit.
    func requestCommit() { pendingChanges = true }
    func noteNeedsLayout(_ layer: Layer) { layoutQueue.insert(layer); pendingChanges = true }
    func noteNeedsDisplay(_ layer: Layer) { displayQueue.insert(layer); pendingChanges = true }

    /// A layer is being freed: it leaves every queue (they do not keep layers alive).
    // MARK: Commit hooks

    /// Layers whose kind does work at every commit, before the display pass.
    private var hooks: [WeakHook] = []
    private struct WeakHook { weak var layer: (any CommitHookLayer)? }

    /// Registers `layer`'s commit hook (`CommitHookLayer.commitWillDisplay()`), run at every
    /// commit of this context before the display pass while the layer lives.
    package func addCommitHook(_ layer: any CommitHookLayer) {
        hooks.append(WeakHook(layer: layer))
    }

    private func runCommitHooks() {
        guard !hooks.isEmpty else { return }
        hooks.removeAll { $0.layer == nil || $0.layer?.transactionContext !== self }
        for hook in hooks { hook.layer?.commitWillDisplay() }
    }

    /// A layer moved here from another context (with a subtree added to a tree of this one):
    /// it leaves the other context's queues and joins this one's, with its pending work.
    func adopt(_ layer: Layer) {
        let old = layer.transactionContext
        guard old !== self else { return }
        old.release(layer)
        layer.transactionContext = self
        if layer.needsLayout { noteNeedsLayout(layer) }
        if layer.needsDisplay { noteNeedsDisplay(layer) }
        if !layer.pendingChanges.isEmpty { noteChanged(layer) }
        if !layer.addedAnimations.isEmpty { animatingLayers[ObjectIdentifier(layer)] = Unmanaged.passUnretained(layer) }
        if layer.addedAnimations.contains(where: { layer.draws($0.effect) }) {
            drawnAnimationLayers[ObjectIdentifier(layer)] = Unmanaged.passUnretained(layer)
        }
        if let hooked = layer as? any CommitHookLayer { addCommitHook(hooked) }
    }

    /// Takes `layer` out of every queue, its animations left running (it moves to another context).
    private func release(_ layer: Layer) {
        animatingLayers[ObjectIdentifier(layer)] = nil
        drawnAnimationLayers[ObjectIdentifier(layer)] = nil
        changedLayers.remove(layer)
        layoutQueue.remove(layer)
        displayQueue.remove(layer)
    }

    func forget(_ layer: Layer) {
        if !drawnAnimationLayers.isEmpty { drawnAnimationLayers[ObjectIdentifier(layer)] = nil }
        if !animatingLayers.isEmpty { forgetAnimations(of: layer) }
        changedLayers.remove(layer)
        layoutQueue.remove(layer)
        displayQueue.remove(layer)
    }
    func noteDisplay(_ record: DisplayRecord) { records.append(record) }
    func noteLayout(_ layer: Layer) { layoutCount += 1 }

    private func commitNow() throws {
        frameRequested = true   // (what the commit itself changes is asked for as it ends)
        pendingChanges = false
        var timings = FrameTimings()
        var clock = PhaseClock()
        var failures: [CommitError.Failure] = []
        // Layout: top-down; layouts may ask for more layout or display.
        phaseObserver?(.layout)
        var passes = 0
        let layoutRuns = !layoutQueue.isEmpty
        while !layoutQueue.isEmpty {
            let queued = layoutQueue.take()
            guard passes < Self.maximumLayoutPasses else {
                // Abandoned: a later setNeedsLayout() queues them again.
                for layer in queued { layer.needsLayout = false }
                let names = Set(queued.map { $0.name ?? String(describing: type(of: $0)) }).sorted().prefix(5)
                failures.append(CommitError.Failure(
                    phase: .layout, layer: queued.first.map { $0.name ?? String(describing: type(of: $0)) }, layerID: queued.first?.id,
                    message: "layout does not settle: after \(Self.maximumLayoutPasses) passes layoutSublayers() still invalidates layout (of \(names.joined(separator: ", "))); do not call setNeedsLayout() on a layer or its ancestors from its own layoutSublayers() unless something changed",
                    cause: .layoutDoesNotSettle(passes: Self.maximumLayoutPasses, layers: Array(names))))
                break
            }
            var depths = Depths()
            let batch = queued.map { (depths.of($0), $0) }.sorted { $0.0 < $1.0 }
            for (_, layer) in batch where layer.needsLayout { layer.layoutSubtreeIfNeeded() }
            passes += 1
        }
        let layoutTime = clock.lap()
        if layoutRuns { timings.layout = layoutTime }     // a phase with nothing to do reads 0
        // Display: every invalid layer draws once (shape layers now shown larger than they
        // were rasterised are invalid too).
        runCommitHooks()
        markDrawnAnimations()
        phaseObserver?(.display)
        let toDisplay = displayQueue.take()
        for layer in toDisplay {
            guard layer.needsDisplay else { continue }
            do { try layer.displayIfNeeded() } catch {
                failures.append(CommitError.Failure(phase: .display, layer: layer.name ?? String(describing: type(of: layer)),
                                                    layerID: layer.id, message: "\(error)", cause: .init(error)))
            }
        }
        let drawn = records
        records = []
        let layouts = layoutCount
        layoutCount = 0
        let displayTime = clock.lap()
        if !toDisplay.isEmpty { timings.display = displayTime }
        // The renderers get what changed; then each host composites.
        deliverChanges()
        // What layout and display changed is delivered: only what they queued for another
        // pass keeps a commit pending (not the contents the display set, which would make
        // the next end of turn commit again for nothing).
        pendingChanges = !changedLayers.isEmpty || !fullUploads.isEmpty || !layoutQueue.isEmpty || !displayQueue.isEmpty
        timings.commit = clock.lap()
        phaseObserver?(.composite)
        hosts.removeAll { $0.host == nil }
        for entry in hosts {
            guard let host = entry.host else { continue }
            do { try host.composite(displays: drawn, layouts: layouts, timings: timings) } catch {
                let own = error as? any LayerAttributedError
                failures.append(CommitError.Failure(phase: .composite, layer: own?.layerName ?? host.rootLayer.name,
                                                    layerID: own?.layerID ?? host.rootLayer.id, message: "\(error)", cause: .init(error)))
            }
        }
        // (Changes made while compositing, e.g. in didComposite, wait for the next commit.)
        // The implicit transaction ends here; animation callbacks and the frame clock.
        if frames.count == 1 { popFrame() }
        animationsDue = false
        updateAnimations()
        // The next frame, when something is left to show.
        frameRequested = false
        if frameRequestHandler != nil && wantsFrameRequest { requestFrame() }
        if !failures.isEmpty { throw CommitError(failures: failures) }
    }
}

/// A `RenderUpdate`'s arrays kept between deliveries (WebRender recycles its frame's
/// vectors alike). A renderer that keeps the update it received (the render thread's queue)
/// shares them: emptying them then makes new ones, as a fresh update would. Storage grown
/// by a burst is dropped once deliveries are small again.
struct SpareUpdate {
    private var geometry: [GeometryUpdate] = []
    private var layers: [LayerState] = []

    /// An empty update, with the kept arrays.
    mutating func take() -> RenderUpdate {
        var update = RenderUpdate()
        swap(&update.geometry, &geometry)
        swap(&update.layers, &layers)
        return update
    }

    /// Keeps `update`'s arrays, emptied (`update` is left empty).
    mutating func keep(_ update: inout RenderUpdate) {
        geometry = Self.emptied(&update.geometry)
        layers = Self.emptied(&update.layers)
        update = RenderUpdate()
    }

    private static func emptied<T>(_ array: inout [T]) -> [T] {
        var kept: [T] = []
        swap(&kept, &array)
        // (At most 4 times what was used, or 1024 elements: a burst's storage is not held.)
        guard kept.capacity <= max(4 * kept.count, 1024) else { return [] }
        kept.removeAll(keepingCapacity: true)
        return kept
    }
}

import Foundation
import LaminaValues
import Glibc
import LaminaGeometry

/// The phases of a commit, in order.
public enum CommitPhase: String, Sendable { case layout, display, composite }

/// Groups changes into commits, as Core Animation's `CATransaction`.
///
/// Every property change, `setNeedsLayout()` and `setNeedsDisplay()` made during one turn
/// of the run loop belongs to an implicit transaction; at the end of the turn
/// (`MainLoop`, or the embedding host calling `commitIfNeeded()`) one commit runs:
/// **layout** (each layer that needs it, top-down) → **display** (each invalid layer draws
/// once, however often it was invalidated) → the layers that changed are described to every
/// renderer (`RenderUpdate`: their state, and the pixels drawn) → **composite** (each
/// `LayerTreeHost` whose tree changed draws a frame). `begin()`/`commit()` nest; the
/// outermost `commit()` commits. `flush()` commits now.
///
/// Misuse is reported, never a trap: `commit()` without `begin()` commits what is pending
/// and reports `TransactionWarning.commitWithoutBegin` (Core Animation: harmless). An
/// explicit transaction still open at two ends of turn in a row (a `begin()` whose
/// `commit()` was forgotten) is closed there, with `TransactionWarning.uncommittedTransaction`,
/// and its changes are committed — as Core Animation warns about uncommitted transactions;
/// otherwise it would hold back every later commit. A layout that never settles (each
/// `layoutSublayers()` invalidating layout again) stops after
/// `Transaction.maximumLayoutPasses` passes: the commit goes on and throws a `CommitError`.
///
/// The transaction holds the layers it waits for weakly: a layer freed before the commit
/// (e.g. the half-built layers of a failed `Scene.parse`) is neither laid out, drawn nor
/// described to the renderers; a live layer that is not in a hosted tree (the root of a
/// `LayerTreeHost`, or a tree a `Compositor` renders) is not described to the renderers
/// (they could not show it) — when it joins one, it is described whole.
@MainActor
public enum Transaction {
    private static var depth = 0
    /// An end of turn already found the explicit transaction open.
    private static var openAtEndOfTurn = false
    private static var pendingChanges = false
    private static var layoutQueue = LayerQueue(.layout)
    private static var displayQueue = LayerQueue(.display)
    private static var records: [DisplayRecord] = []
    private static var layoutCount = 0
    package static var hosts: [WeakHost] = []
    /// Layers changed since their state last went to the renderers (each once).
    private static var changedLayers = LayerQueue(.changes)
    /// Backing stores the renderers get whole at the next delivery (new to them).
    private static var fullUploads: [UInt64: BackingStore] = [:]
    /// The renderers (compositors) that receive every update.
    private static var renderers: [WeakRenderer] = []

    /// Registers a receiver of every later update (until it is freed or unregistered).
    package static func register(_ renderer: any RenderUpdateReceiver) {
        renderers.removeAll { $0.renderer == nil || $0.renderer === renderer }
        renderers.append(WeakRenderer(renderer: renderer))
    }
    package static func unregister(_ renderer: any RenderUpdateReceiver) {
        renderers.removeAll { $0.renderer == nil || $0.renderer === renderer }
    }
    /// The roots of the trees the renderers composite.
    static var deliveryRoots: [LayerID] { renderers.compactMap { $0.renderer?.deliveryRootID } }

    /// Observes each phase of each commit as it starts (for tests and tracing).
    public static var phaseObserver: ((CommitPhase) -> Void)?

    /// Called with every misuse the transaction recovered from. The default logs a
    /// warning (`LaminaLog.logger`); set it to collect them (tests) or to nil.
    public static var warningHandler: ((TransactionWarning) -> Void)? = { warning in
        LaminaLog.logger.warning("\(warning)")
    }

    /// Layout passes a commit runs at most before it gives up on a layout that keeps
    /// invalidating itself (and throws a `CommitError`).
    public static let maximumLayoutPasses = 1000

    /// Whether changes wait for a commit.
    public static var needsCommit: Bool { pendingChanges || !layoutQueue.isEmpty || !displayQueue.isEmpty }

    /// Opens an explicit transaction: nothing commits until the matching `commit()`.
    public static func begin() { depth += 1; pushFrame() }

    /// Closes an explicit transaction; the outermost one commits. Without an open
    /// transaction it commits what is pending and reports `.commitWithoutBegin`.
    public static func commit() throws {
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
    public static func flush() throws {
        guard depth == 0 else { return }
        try commitWaiting()
    }

    /// Whether the commit running waits for hosts that render on a thread to put its frame
    /// on their targets (`flush()`, an explicit `commit()`; not the end-of-turn commit).
    package static private(set) var waitsForFrames = false

    private static func commitWaiting() throws {
        waitsForFrames = true
        defer { waitsForFrames = false }
        try commitNow()
    }

    /// The end-of-turn hook: commits the implicit transaction if anything changed and no
    /// explicit transaction is open. `MainLoop` calls it after every turn; a host with its
    /// own loop calls it at the end of each iteration. An explicit transaction found open
    /// at two ends of turn in a row was never committed: it is closed (with
    /// `.uncommittedTransaction`) and its changes commit.
    public static func commitIfNeeded() throws {
        if depth > 0 {
            guard openAtEndOfTurn else { openAtEndOfTurn = true; return }
            warningHandler?(.uncommittedTransaction(depth: depth))
            depth = 0
            while frames.count > 1 { popFrame() }
            openAtEndOfTurn = false
            try commitNow()
            return
        }
        guard needsCommit || animationsInFlight || hosts.contains(where: { $0.host?.needsFrame == true }) else { return }
        try commitNow()
    }

    package static func noteChange() { pendingChanges = true }
    static func noteChanged(_ layer: Layer) {
        pendingChanges = true
        changedLayers.insert(layer)
    }
    static func noteNeedsFullUpload(_ store: BackingStore) { fullUploads[store.id] = store }


    /// The largest content side every registered renderer's GPU can hold (nil: none yet).
    static var maximumContentSide: Int? {
        renderers.compactMap { $0.renderer?.maximumTextureSide }.min()
    }

    /// Counts of the last delivery (for tests): layers described, layers left out (not in
    /// a hosted tree).
    static private(set) var lastDelivery = (described: 0, leftOut: 0)

    /// Describes the layers changed since the last delivery, with the pixels drawn, and
    /// hands the update to every renderer. Part of every commit; `Compositor.render` calls
    /// it too (it composites what the model holds, without layout or display). Layers
    /// freed since, or outside every hosted tree, are left out.
    package static func deliverChanges() {
        guard !changedLayers.isEmpty || !fullUploads.isEmpty else { return }
        var hosted = HostedTrees(roots: Set(hosts.compactMap { $0.host?.rootLayer.id }
                                            + renderers.compactMap { $0.renderer?.deliveryRootID }))
        var update = RenderUpdate()
        let changed = changedLayers.take()
        update.layers.reserveCapacity(changed.count)
        var uploaded = Set<UInt64>()
        var leftOut = 0
        for layer in changed {
            layer.subtreeDescribed = false
            guard hosted.contains(layer) else {
                // Described whole when it joins a hosted tree.
                layer.pendingChanges = []
                leftOut += 1
                continue
            }
            update.layers.append(layer.state)
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
        lastDelivery = (update.layers.count, leftOut)
        fullUploads = [:]
        renderers.removeAll { $0.renderer == nil }
        guard !update.layers.isEmpty || !update.uploads.isEmpty else { return }
        for entry in renderers { entry.renderer?.receive(update) }
    }
    /// Something outside the layers (a tile drawn on another thread) needs a commit.
    static func requestCommit() { pendingChanges = true }
    static func noteNeedsLayout(_ layer: Layer) { layoutQueue.insert(layer); pendingChanges = true }
    static func noteNeedsDisplay(_ layer: Layer) { displayQueue.insert(layer); pendingChanges = true }

    /// A layer is being freed: it leaves every queue (they do not keep layers alive).
    static func forget(_ layer: Layer) {
        if !animatingLayers.isEmpty { forgetAnimations(of: layer) }
        changedLayers.remove(layer)
        layoutQueue.remove(layer)
        displayQueue.remove(layer)
    }
    static func noteDisplay(_ record: DisplayRecord) { records.append(record) }
    static func noteLayout(_ layer: Layer) { layoutCount += 1 }

    private static func commitNow() throws {
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
            guard passes < maximumLayoutPasses else {
                // Abandoned: a later setNeedsLayout() queues them again.
                for layer in queued { layer.needsLayout = false }
                let names = Set(queued.map { $0.name ?? String(describing: type(of: $0)) }).sorted().prefix(5)
                failures.append(CommitError.Failure(
                    phase: .layout, layer: queued.first.map { $0.name ?? String(describing: type(of: $0)) }, layerID: queued.first?.id,
                    message: "layout does not settle: after \(maximumLayoutPasses) passes layoutSublayers() still invalidates layout (of \(names.joined(separator: ", "))); do not call setNeedsLayout() on a layer or its ancestors from its own layoutSublayers() unless something changed",
                    cause: .layoutDoesNotSettle(passes: maximumLayoutPasses, layers: Array(names))))
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
        ShapeLayer.redisplayWhereScaleGrew()
        TiledLayer.updateTiles()
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
                failures.append(CommitError.Failure(phase: .composite, layer: host.rootLayer.name, layerID: host.rootLayer.id,
                                                    message: "\(error)", cause: .init(error)))
            }
        }
        // (Changes made while compositing, e.g. in didComposite, wait for the next commit.)
        // The implicit transaction ends here; animation callbacks and the frame clock.
        if frames.count == 1 { popFrame() }
        animationsDue = false
        updateAnimations()
        if !failures.isEmpty { throw CommitError(failures: failures) }
    }
}

/// Misuse of transactions that Lamina recovered from (`Transaction.warningHandler`).
public enum TransactionWarning: Sendable, Equatable, CustomStringConvertible {
    /// `Transaction.commit()` without a `begin()`: what was pending was committed.
    case commitWithoutBegin
    /// Explicit transactions (`depth` of them) were still open at two ends of turn in a
    /// row: they were closed and their changes committed.
    case uncommittedTransaction(depth: Int)
    /// `Layer.add(_:forKey:)` refused an animation (why, in `reason`).
    case animationNotAdded(layer: String, key: String?, reason: String)

    public var description: String {
        switch self {
        case .animationNotAdded(let layer, let key, let reason):
            return "animation \(key.map { "'\($0)' " } ?? "")not added to layer '\(layer)': \(reason)"

        case .commitWithoutBegin:
            return "Transaction.commit() without Transaction.begin(): the pending changes were committed; pair each commit() with a begin()"
        case .uncommittedTransaction(let depth):
            return "\(depth) explicit transaction(s) begun but never committed were closed at the end of the run-loop turn and their changes committed; pair each Transaction.begin() with a commit()"
        }
    }
}

/// What went wrong in a commit (the rest of the commit still ran). Compared by its
/// failures, field by field (their causes by kind and description).
public struct CommitError: Error, Equatable, Sendable, CustomStringConvertible {
    /// One failure: the phase, the layer concerned (the host's root for a composite), what
    /// went wrong (`message`), and why, as a value to match on (`cause`).
    public struct Failure: Equatable, Sendable, CustomStringConvertible {
        public var phase: CommitPhase
        /// The layer's name, or its type.
        public var layer: String?
        public var layerID: LayerID?
        public var message: String
        public var cause: Cause

        /// Why a phase failed.
        public enum Cause: Sendable, Equatable {
            /// Layout kept invalidating itself for `passes` passes (the layers named).
            case layoutDoesNotSettle(passes: Int, layers: [String])
            /// A layer's display, or a host's composite, threw this (a `DisplayError`, a
            /// `GPUError`, a `RenderPassError`, …: match it with `as`).
            case error(any Error)
            /// A failure described by its message only (made with `Failure.init` without a cause).
            case other(String)

            init(_ error: any Error) { self = .error(error) }

            /// The error, when there is one.
            public var error: (any Error)? { if case .error(let e) = self { return e }; return nil }

            public static func == (a: Cause, b: Cause) -> Bool {
                switch (a, b) {
                case let (.layoutDoesNotSettle(p, l), .layoutDoesNotSettle(q, m)): return p == q && l == m
                case let (.error(x), .error(y)): return type(of: x) == type(of: y) && "\(x)" == "\(y)"
                case let (.other(x), .other(y)): return x == y
                default: return false
                }
            }
        }

        public init(phase: CommitPhase, layer: String?, layerID: LayerID?, message: String, cause: Cause? = nil) {
            self.phase = phase; self.layer = layer; self.layerID = layerID; self.message = message
            self.cause = cause ?? .other(message)
        }

        public var description: String { message }
    }

    public var failures: [Failure]

    public init(failures: [Failure]) { self.failures = failures }

    public var description: String { "commit failed: " + failures.map(\.description).joined(separator: "; ") }
}

/// Layers waiting for a phase of the commit, each once, without keeping them alive: a
/// layer's slot (`changeSlot`, `layoutSlot`, `displaySlot`) indexes its entry, which its `deinit` clears (`Transaction.forget`).
/// Unretained entries rather than weak references: a weak reference gives every layer a
/// side table, which makes each later retain and release of it several times slower.
@MainActor
struct LayerQueue {
    enum Kind { case changes, layout, display }
    private var entries: [Unmanaged<Layer>?] = []
    private let kind: Kind
    init(_ kind: Kind) { self.kind = kind }

    private func slot(of layer: Layer) -> Int {
        switch kind {
        case .changes: return layer.changeSlot
        case .layout: return layer.layoutSlot
        case .display: return layer.displaySlot
        }
    }

    private func setSlot(of layer: Layer, _ i: Int) {
        switch kind {
        case .changes: layer.changeSlot = i
        case .layout: layer.layoutSlot = i
        case .display: layer.displaySlot = i
        }
    }

    var isEmpty: Bool { entries.isEmpty }

    mutating func insert(_ layer: Layer) {
        guard slot(of: layer) < 0 else { return }
        setSlot(of: layer, entries.count)
        entries.append(Unmanaged.passUnretained(layer))
    }

    mutating func remove(_ layer: Layer) {
        let i = slot(of: layer)
        guard i >= 0, i < entries.count else { return }
        entries[i] = nil
        setSlot(of: layer, -1)
    }

    /// The live layers, in order (now retained), leaving the queue empty.
    mutating func take() -> [Layer] {
        var out: [Layer] = []
        out.reserveCapacity(entries.count)
        for case let e? in entries {
            let layer = e.takeUnretainedValue()
            setSlot(of: layer, -1)
            out.append(layer)
        }
        entries = []
        return out
    }
}

/// Depths of layers in their trees, each ancestor chain walked once (O(tree size) for a
/// whole batch, not O(layers × depth)).
@MainActor
struct Depths {
    private var known: [ObjectIdentifier: Int] = [:]
    mutating func of(_ layer: Layer) -> Int {
        var path: [Layer] = []
        var l = layer
        var base = -1
        while true {
            if let d = known[ObjectIdentifier(l)] { base = d; break }
            path.append(l)
            guard let p = l.superlayer else { break }
            l = p
        }
        // path: layer … topmost unknown; the topmost is at base + 1. A leaf is on no other
        // layer's way up: not remembered.
        let n = path.count
        for (i, p) in path.enumerated() where i > 0 || p.sublayerCount > 0 { known[ObjectIdentifier(p)] = base + n - i }
        return n == 0 ? base : base + n
    }
}

/// Whether layers are in a hosted tree (one whose root a host or a renderer shows), each
/// ancestor chain walked once.
@MainActor
struct HostedTrees {
    let roots: Set<LayerID>
    private var known: [ObjectIdentifier: Bool] = [:]
    init(roots: Set<LayerID>) { self.roots = roots }
    mutating func contains(_ layer: Layer) -> Bool {
        // Most changed layers have a superlayer already looked at: one look-up, no path.
        if let parent = layer.renderParent, let k = known[ObjectIdentifier(parent)], k || !roots.contains(layer.id) { return k }
        var path: [Layer] = []
        var l = layer
        var result = false
        while true {
            if let k = known[ObjectIdentifier(l)] { result = k; break }
            path.append(l)
            // A rendered root may itself have a superlayer (Compositor.render(child)).
            if roots.contains(l.id) { result = true; break }
            guard let p = l.renderParent else { result = false; break }
            l = p
        }
        for (i, p) in path.enumerated() where i > 0 || p.sublayerCount > 0 { known[ObjectIdentifier(p)] = result }
        return result
    }
}

/// What composites a hosted tree at each commit (`LayerTreeHost`): the model knows it only
/// through this.
@MainActor
package protocol CommitHost: AnyObject {
    /// The root of the tree it shows.
    var rootLayer: Layer { get }
    /// Whether the next end of turn must commit even without changes (a flash to remove,
    /// running animations, a lost context).
    var needsFrame: Bool { get }
    /// Composites the commit's frame.
    func composite(displays: [DisplayRecord], layouts: Int, timings: FrameTimings) throws
}

package struct WeakHost {
    package weak var host: (any CommitHost)?
    package init(host: any CommitHost) { self.host = host }
}

package struct WeakRenderer {
    weak var renderer: (any RenderUpdateReceiver)?
}

/// What receives every commit's `RenderUpdate`: a compositor on the main actor, or a
/// `RenderThread` (which hands it to its thread).
@MainActor
package protocol RenderUpdateReceiver: AnyObject {
    /// The root of the tree it composites (nil: none yet).
    var deliveryRootID: LayerID? { get }
    /// The largest texture side its device holds.
    var maximumTextureSide: Int { get }
    func receive(_ update: RenderUpdate)
}

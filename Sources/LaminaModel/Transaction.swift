import FoundationEssentials
import Glibc
import LaminaGeometry
import LaminaValues
import Synchronization

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
/// `LayerTreeHost`, or a tree a `LayerRenderer` renders) is not described to the renderers
/// (they could not show it) — when it joins one, it is described whole.
///
/// `Transaction`'s static API works on the current `TransactionContext` (the main actor's,
/// unless the task entered another one): the queues, hosts and animations are the
/// context's, not the process's.
@MainActor
public enum Transaction {
    private static var context: TransactionContext { TransactionContext.current }

    /// Opens an explicit transaction: nothing commits until the matching `commit()`.
    public static func begin() { context.begin() }
    /// Closes an explicit transaction; the outermost one commits. Without an open
    /// transaction it commits what is pending and reports `.commitWithoutBegin`.
    public static func commit() throws { try context.commit() }
    /// Commits now: layout, display, composite of everything changed so far. Inside an
    /// explicit transaction it waits, as Core Animation's does: the outermost `commit()`
    /// commits.
    public static func flush() throws { try context.flush() }
    /// The end-of-turn hook: commits the implicit transaction if anything changed and no
    /// explicit transaction is open (see `TransactionContext.commitIfNeeded()`).
    public static func commitIfNeeded() throws { try context.commitIfNeeded() }
    /// Whether changes wait for a commit.
    public static var needsCommit: Bool { context.needsCommit }
    /// Layout passes a commit runs at most before it gives up on a layout that keeps
    /// invalidating itself (and throws a `CommitError`).
    public static let maximumLayoutPasses = TransactionContext.maximumLayoutPasses
    /// Observes each phase of each commit of the current context as it starts. A test hook:
    /// `@_spi(Testing) import LaminaModel`.
    @_spi(Testing) public static var phaseObserver: ((CommitPhase) -> Void)? {
        get { context.phaseObserver }
        set { context.phaseObserver = newValue }
    }
    /// Called with every misuse the current context recovered from. The default logs a
    /// warning (`LaminaLog.logger`); set it to collect them (tests) or to nil.
    public static var warningHandler: ((TransactionWarning) -> Void)? {
        get { context.warningHandler }
        set { context.warningHandler = newValue }
    }

    // MARK: Animation settings (CATransaction's keyed values)

    /// The duration of implicit animations (`CATransaction.animationDuration()`): the
    /// innermost transaction's that sets one, else 0.25 s.
    public static func animationDuration() -> Double { context.animationDuration() }
    public static func setAnimationDuration(_ seconds: Double) { context.setAnimationDuration(seconds) }
    /// The timing function of implicit animations (nil: `.default`).
    public static func animationTimingFunction() -> TimingFunction? { context.animationTimingFunction() }
    public static func setAnimationTimingFunction(_ function: TimingFunction?) { context.setAnimationTimingFunction(function) }
    /// Whether property changes run no actions (no implicit animations).
    public static func disableActions() -> Bool { context.disableActions() }
    public static func setDisableActions(_ flag: Bool) { context.setDisableActions(flag) }
    /// Called once every animation added in this transaction has stopped (at once, after
    /// the commit, when it added none).
    public static func setCompletionBlock(_ block: (@MainActor () -> Void)?) { context.setCompletionBlock(block) }
    /// Runs `body` in a nested transaction with actions disabled (Core Animation's
    /// `begin()`, `setDisableActions(true)`, …, `commit()` inside another transaction:
    /// nothing is committed at its end — the changes join the enclosing transaction).
    public static func withoutActions<T>(_ body: () throws -> T) rethrows -> T { try context.withoutActions(body) }
    /// What `disableActions()` is in a transaction that does not set it: false, as in
    /// Core Animation (standalone layers in a rendered tree animate their changes). A
    /// program that sets its layers' properties every frame itself — a compositor, a game,
    /// a benchmark — sets it true once instead of disabling actions in every transaction.
    public static var disablesActionsByDefault: Bool {
        get { context.disablesActionsByDefault }
        set { context.disablesActionsByDefault = newValue }
    }
    /// `disablesActionsByDefault` for the code of one task (the tests of a suite about
    /// something else than animations run with it set).
    @TaskLocal package static var taskDisablesActions: Bool?
    /// Frames per second at which `MainLoop.main` wakes while the current context's
    /// animations run (the frame clock stops when the last one ends).
    public static var animationFramesPerSecond: Double {
        get { context.animationFramesPerSecond }
        set { context.animationFramesPerSecond = newValue }
    }

    // MARK: For the other modules of the package (hosts, views)

    package static func noteChange() { context.noteChange() }
    package static func afterNextCommit(_ block: @escaping @MainActor () -> Void) { context.afterNextCommit(block) }
    package static func invalidateAnimationEvents() { context.invalidateAnimationEvents() }
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
/// ancestor chain walked once. What a walk found is kept on the layers themselves
/// (`Layer.hostedMark`, this look-up's stamp and the answer): a dictionary keyed by layer
/// cost a hash per changed layer, a tenth of a microsecond each in S1.
@MainActor
struct HostedTrees {
    let roots: Set<LayerID>
    /// This look-up's stamp: new when the roots or any layer's render parent changed since
    /// the last look-up (so marks left by earlier ones never match); otherwise the last
    /// look-up's, whose answers still hold — most changed layers are then answered by their
    /// own mark, with no walk and no weak reference loaded.
    let stamp: UInt64
    /// `Layer.renderParentChanges` when the stamp was made.
    let shapeVersion: UInt64
    private static let stamps = Atomic<UInt64>(0)
    init(roots: Set<LayerID>, reusing last: HostedTrees?) {
        self.roots = roots
        let version = Layer.renderParentChanges.load(ordering: .relaxed)
        shapeVersion = version
        if let last, last.shapeVersion == version, last.roots == roots {
            stamp = last.stamp
        } else {
            stamp = HostedTrees.stamps.add(1, ordering: .relaxed).newValue
        }
    }
    /// What a look-up with this stamp found for `layer`, if one looked at it.
    private func known(_ layer: Layer) -> Bool? {
        layer.hostedMark >> 1 == stamp ? layer.hostedMark & 1 == 1 : nil
    }
    func contains(_ layer: Layer) -> Bool {
        if let k = known(layer) { return k }
        // Most other changed layers have a superlayer already looked at: no path.
        if let parent = layer.renderParent, let k = known(parent), k || !roots.contains(layer.id) {
            layer.hostedMark = stamp << 1 | (k ? 1 : 0)
            return k
        }
        var path: [Layer] = []
        var l = layer
        var result = false
        while true {
            if let k = known(l) { result = k; break }
            path.append(l)
            // A rendered root may itself have a superlayer (`LayerRenderer.render(child, …)`).
            if roots.contains(l.id) { result = true; break }
            guard let p = l.renderParent else { result = false; break }
            l = p
        }
        for p in path { p.hostedMark = stamp << 1 | (result ? 1 : 0) }
        return result
    }
}

extension Layer {
    /// Counts changes of any layer's render parent (in any context), so that a look-up of
    /// hosted trees may keep its answers while no tree changed shape (`HostedTrees`).
    static let renderParentChanges = Atomic<UInt64>(0)
    static func noteRenderParentChange() { renderParentChanges.add(1, ordering: .relaxed) }
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
    /// Whether it wants the host's frame clock to tick: `needsFrame`, except that a tree
    /// composited at every host frame (`compositesEveryFrame`) does not ask for frames by
    /// itself — its host draws them anyway, and a request per commit would keep a host that
    /// owns the frame clock (GTK, Qt) drawing forever.
    var needsFrameRequest: Bool { get }
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

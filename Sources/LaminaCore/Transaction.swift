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
@MainActor
public enum Transaction {
    private static var depth = 0
    private static var pendingChanges = false
    private static var layoutQueue: [Layer] = []
    private static var displayQueue: [Layer] = []
    private static var records: [DisplayRecord] = []
    private static var layoutCount = 0
    static var hosts: [WeakHost] = []
    /// Layers changed since their state last went to the renderers (each once).
    private static var changedLayers: [Layer] = []
    /// Backing stores the renderers get whole at the next delivery (new to them).
    private static var fullUploads: [UInt64: BackingStore] = [:]
    /// The renderers (compositors) that receive every update.
    private static var renderers: [WeakRenderer] = []

    /// Observes each phase of each commit as it starts (for tests and tracing).
    public static var phaseObserver: ((CommitPhase) -> Void)?

    /// Whether changes wait for a commit.
    public static var needsCommit: Bool { pendingChanges || !layoutQueue.isEmpty || !displayQueue.isEmpty }

    /// Opens an explicit transaction: nothing commits until the matching `commit()`.
    public static func begin() { depth += 1 }

    /// Closes an explicit transaction; the outermost one commits.
    public static func commit() throws {
        precondition(depth > 0, "Transaction.commit() without begin()")
        depth -= 1
        if depth == 0 { try commitNow() }
    }

    /// Commits now: layout, display, composite of everything changed so far. Inside an
    /// explicit transaction it waits, as Core Animation's does: the outermost `commit()`
    /// commits.
    public static func flush() throws {
        guard depth == 0 else { return }
        try commitNow()
    }

    /// The end-of-turn hook: commits the implicit transaction if anything changed and no
    /// explicit transaction is open. `MainLoop` calls it after every turn; a host with its
    /// own loop calls it at the end of each iteration.
    public static func commitIfNeeded() throws {
        guard depth == 0, needsCommit || hosts.contains(where: { $0.host?.needsFrame == true }) else { return }
        try commitNow()
    }

    static func noteChange() { pendingChanges = true }
    static func noteChanged(_ layer: Layer) {
        pendingChanges = true
        guard !layer.changeRecorded else { return }
        layer.changeRecorded = true
        changedLayers.append(layer)
    }
    static func noteNeedsFullUpload(_ store: BackingStore) { fullUploads[store.id] = store }

    /// Registers a renderer for every later update (until it is freed or unregistered).
    static func register(_ renderer: Compositor) {
        renderers.removeAll { $0.renderer == nil || $0.renderer === renderer }
        renderers.append(WeakRenderer(renderer: renderer))
    }
    static func unregister(_ renderer: Compositor) {
        renderers.removeAll { $0.renderer == nil || $0.renderer === renderer }
    }

    /// The largest content side every registered renderer's GPU can hold (nil: none yet).
    static var maximumContentSide: Int? {
        renderers.compactMap { $0.renderer?.device.capabilities.maxTextureSize }.min()
    }

    /// Describes the layers changed since the last delivery, with the pixels drawn, and
    /// hands the update to every renderer. Part of every commit; `Compositor.render` calls
    /// it too (it composites what the model holds, without layout or display).
    static func deliverChanges() {
        guard !changedLayers.isEmpty || !fullUploads.isEmpty else { return }
        var update = RenderUpdate()
        update.layers.reserveCapacity(changedLayers.count)
        var uploaded = Set<UInt64>()
        for layer in changedLayers {
            layer.changeRecorded = false
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
        for (id, store) in fullUploads where uploaded.insert(id).inserted {
            _ = store.takePendingUpload()
            update.uploads.append(store.upload())
        }
        changedLayers = []
        fullUploads = [:]
        renderers.removeAll { $0.renderer == nil }
        for entry in renderers { entry.renderer?.apply(update) }
    }
    static func noteNeedsLayout(_ layer: Layer) { layoutQueue.append(layer); pendingChanges = true }
    static func noteNeedsDisplay(_ layer: Layer) { displayQueue.append(layer); pendingChanges = true }
    static func noteDisplay(_ record: DisplayRecord) { records.append(record) }
    static func noteLayout(_ layer: Layer) { layoutCount += 1 }

    private static func commitNow() throws {
        pendingChanges = false
        var timings = FrameTimings()
        var clock = PhaseClock()
        // Layout: top-down; layouts may ask for more layout or display.
        phaseObserver?(.layout)
        var laidOut = 0
        let layoutRuns = !layoutQueue.isEmpty
        while !layoutQueue.isEmpty {
            let batch = layoutQueue.sorted { depthInTree($0) < depthInTree($1) }
            layoutQueue = []
            for layer in batch where layer.needsLayout { layer.layoutIfNeeded() }
            laidOut += 1
            precondition(laidOut < 1000, "layout does not settle: layoutSublayers keeps invalidating layout")
        }
        let layoutTime = clock.lap()
        if layoutRuns { timings.layout = layoutTime }     // a phase with nothing to do reads 0
        // Display: every invalid layer draws once.
        phaseObserver?(.display)
        var failures: [String] = []
        let toDisplay = displayQueue
        displayQueue = []
        for layer in toDisplay where layer.needsDisplay {
            do { try layer.displayIfNeeded() } catch { failures.append("\(error)") }
        }
        let drawn = records
        records = []
        let layouts = layoutCount
        layoutCount = 0
        let displayTime = clock.lap()
        if !toDisplay.isEmpty { timings.display = displayTime }
        // The renderers get what changed; then each host composites.
        deliverChanges()
        timings.commit = clock.lap()
        phaseObserver?(.composite)
        hosts.removeAll { $0.host == nil }
        for entry in hosts {
            guard let host = entry.host else { continue }
            do { try host.composite(displays: drawn, layouts: layouts, timings: timings) } catch { failures.append("\(error)") }
        }
        // (Changes made while compositing, e.g. in didComposite, wait for the next commit.)
        if !failures.isEmpty { throw CommitError(failures: failures) }
    }

    private static func depthInTree(_ layer: Layer) -> Int {
        var n = 0
        var l = layer.superlayer
        while let current = l { n += 1; l = current.superlayer }
        return n
    }
}

/// What went wrong in a commit (the rest of the commit still ran).
public struct CommitError: Error, CustomStringConvertible {
    public var failures: [String]
    public var description: String { "commit failed: " + failures.joined(separator: "; ") }
}

struct WeakHost {
    weak var host: LayerTreeHost?
}

struct WeakRenderer {
    weak var renderer: Compositor?
}

/// CPU time of the calling thread per phase of a frame, in seconds (what the phase cost
/// the main thread, without waiting), and the GPU's time when timer queries tell it.
public struct FrameTimings: Sendable, Equatable, CustomStringConvertible {
    /// `layoutSublayers()` of the commit.
    public var layout = 0.0
    /// Drawing invalid layers into their backing stores.
    public var display = 0.0
    /// Describing the changes to the renderers (`RenderUpdate`: states, pixels copied) and
    /// applying them (render tree, texture uploads).
    public var commit = 0.0
    /// Working out the frame: damage, the items to draw.
    public var build = 0.0
    /// Issuing the frame's GL commands.
    public var execute = 0.0
    /// The GPU's time for the frame's passes, when the driver has timer queries (it comes
    /// a frame or more later: the latest known).
    public var gpu: Double?

    public init() {}

    public var description: String {
        func ms(_ t: Double) -> String { String(format: "%.3f", t * 1000) }
        return "layout \(ms(layout)) ms, display \(ms(display)) ms, commit \(ms(commit)) ms, build \(ms(build)) ms, execute \(ms(execute)) ms"
            + (gpu.map { ", GPU \(ms($0)) ms" } ?? "")
    }
}

/// Laps of the calling thread's CPU clock.
struct PhaseClock {
    private var last = PhaseClock.now()
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
    /// Seconds since the last lap (or creation).
    mutating func lap() -> Double {
        let t = PhaseClock.now()
        defer { last = t }
        return t - last
    }
}

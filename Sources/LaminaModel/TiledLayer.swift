import LaminaValues
import FoundationEssentials
import Glibc
import LaminaGeometry
import LaminaGraphics
import Synchronization
import Dispatch

/// Like `CATiledLayer`: content of any size (100 000 × 100 000 points and more) drawn in
/// tiles of `tileSize` pixels, only where it is visible on screen, at the level of detail
/// its on-screen scale needs, on worker threads, each tile appearing (fading in over
/// `fadeDuration`) as it is finished. Tiles that are not visible are evicted, least
/// recently used first, to keep their pixels under `memoryBudget`.
/// `setNeedsDisplay(_:)` draws again only the tiles the rectangle touches (the old tile
/// stays on screen until the new one is done).
///
/// Tiles are drawn by `draw(in:)`, which for a tiled layer is `nonisolated`: it runs on a
/// worker thread, several at once, each with its own context (clipped to its tile,
/// `context.clipBoundingBox`, in the layer's bounds coordinates). Override it in a
/// subclass — it must touch only state that is safe to read from any thread — or give the
/// drawing as a `@Sendable` closure to `init(drawing:)`. The delegate is not asked (it
/// lives on the main actor).
///
/// Visibility is worked out at each commit from the layer's geometry and its ancestors'
/// (transforms, `masksToBounds` clips), with the root layer's frame as the screen and
/// `contentsScale` as the screen's pixels per point. A tiled layer draws tiles while it has
/// a superlayer (not as a root layer or a mask).
@MainActor
open class TiledLayer: Layer, CommitHookLayer {
    /// A tile's size in pixels (256 × 256 by default, as Core Animation's).
    public var tileSize = Size(width: 256, height: 256) { didSet { if tileSize != oldValue { discardTiles() } } }
    /// How many levels of detail exist below the full one: level i is drawn at 2^(bias − i)
    /// of full resolution (1 by default: full resolution only).
    public var levelsOfDetail = 1 { didSet { if levelsOfDetail != oldValue { discardTiles() } } }
    /// How many of the levels are magnified: 2^bias is the finest (0 by default).
    public var levelsOfDetailBias = 0 { didSet { if levelsOfDetailBias != oldValue { discardTiles() } } }
    /// The most bytes of tile pixels kept (tiles not visible go first; visible tiles are
    /// kept even past it). 64 MiB by default.
    public var memoryBudget = 64 << 20
    /// How long a new tile takes to fade in (0.25 s, as Core Animation's; 0: at once).
    public var fadeDuration = 0.25
    /// Tiles drawn at once, on as many worker threads.
    public var maximumConcurrentTiles = max(1, min(4, ProcessInfo.processInfo.activeProcessorCount))

    /// The drawing given to `init(drawing:)` (nil: `draw(in:)` of a subclass).
    public nonisolated let tileDrawing: (@Sendable (GraphicsContext) -> Void)?

    public required init() {
        tileDrawing = nil
        super.init()
        setUpContainer()
    }

    /// A tiled layer whose tiles `drawing` draws (on worker threads).
    public init(drawing: @escaping @Sendable (GraphicsContext) -> Void) {
        tileDrawing = drawing
        super.init()
        setUpContainer()
    }

    /// Draws one tile, on a worker thread: the context is clipped to the tile.
    nonisolated open override func draw(in context: GraphicsContext) {
        tileDrawing?(context)
    }

    // MARK: Statistics

    /// Tiles drawn (finished) so far.
    public private(set) var tilesDrawn = 0
    /// Tiles on the layer now, and their pixels' bytes.
    public var residentTiles: Int { tiles.count }
    public var residentTileBytes: Int { tiles.values.reduce(0) { $0 + $1.bytes } }
    /// The largest `residentTileBytes` seen after an update (for budget checks).
    public private(set) var peakTileBytes = 0
    /// Tiles being drawn or waiting for a worker.
    public var pendingTiles: Int { queue.outstanding }
    /// The level of detail last chosen (0: full resolution; see `levelsOfDetail`).
    public private(set) var currentLevel = 0
    /// The rectangle (bounds coordinates) visible at the last update (nil: none).
    public private(set) var visibleRect: Rect?

    // MARK: Tiles

    struct TileKey: Hashable, Sendable {
        let level: Int, column: Int, row: Int
    }
    struct Tile {
        let layer: Layer
        var bytes: Int
        var lastUsed: Int
        /// Drawn for this generation of the layer's content (older: to be drawn again).
        var generation: Int
    }
    private var tiles: [TileKey: Tile] = [:]
    /// The content's generation per tile when last invalidated (`setNeedsDisplay`).
    private var invalidated: [TileKey: Int] = [:]
    private var generation = 0
    private var updates = 0
    /// Counts discards of every tile: results of jobs made before the last are dropped.
    private var epoch = 0
    /// The bounds and scale the tiles were cut for (another one discards them).
    private var tiledFor: (bounds: Rect, scale: Double)?
    /// Holds the tiles, in the layer's bounds space, one container per level (coarser below).
    private let container = Layer()
    private var levelContainers: [Int: Layer] = [:]
    /// The tiles' work queue (made when first needed).
    private var queueStorage: TileQueue?
    private var queue: TileQueue {
        if let q = queueStorage { return q }
        let q = TileQueue(draw: { [weak self] context in self?.draw(in: context) },
                          finished: { [loop = MainLoop.main, transactionContext] in loop.post { transactionContext.requestCommit() } })
        queueStorage = q
        return q
    }

    override var renderSublayers: [Layer] { [container] + sublayers }
    override var describesSublayersAsEdits: Bool { false }

    private func setUpContainer() {
        container.internalOwner = self
        container.name = "tiles"
        transactionContext.addCommitHook(self)
    }

    /// Draws again the tiles `dirtyRect` touches (all of them for `setNeedsDisplay()`).
    public override func display() throws {
        let rect = dirtyRect
        generation += 1
        // Tiles shown, and tiles being drawn or drawn and not yet shown: their content is old.
        for key in Set(tiles.keys).union(queue.pendingKeys()) where rect == nil || !tileRect(key).intersection(rect!).isEmpty {
            invalidated[key] = generation
        }
        transactionContext.requestCommit()
    }

    /// Drops every tile (a new tile size or level set).
    private func discardTiles() {
        for t in tiles.values { t.layer.removeFromSuperlayer() }
        tiles = [:]
        invalidated = [:]
        epoch += 1   // (tiles being drawn now are dropped when they arrive)
        queue.replace([])
        _ = queue.takeResults()
    }

    /// Pixels per point of level `level`.
    private func density(_ level: Int) -> Double {
        pow(2, Double(levelsOfDetailBias - level)) * (contentsScale > 0 ? contentsScale : 1)
    }

    /// A tile's rectangle in bounds coordinates (clipped to the bounds).
    private func tileRect(_ key: TileKey) -> Rect { fullTileRect(key).intersection(bounds) }

    /// A tile's whole rectangle (not clipped).
    private func fullTileRect(_ key: TileKey) -> Rect {
        let d = density(key.level)
        let w = tileSize.width / d, h = tileSize.height / d
        return Rect(x: bounds.minX + Double(key.column) * w, y: bounds.minY + Double(key.row) * h, width: w, height: h)
    }

    /// Waits (blocking the main thread, up to `timeout` seconds) until every tile wanted
    /// for what is visible now is drawn and on the layer; returns whether it got there.
    /// For tools and tests; an interactive program lets tiles arrive with the run loop.
    @discardableResult
    public func waitForPendingTiles(timeout: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            update()
            if queue.outstanding == 0 && wantedMissing == 0 { return true }
            guard queue.waitIdle(until: deadline) else { return false }
        }
    }
    private var wantedMissing = 0

    // MARK: Update (each commit)

    /// Works out the visible tiles and level, takes in the tiles drawn since, asks for the
    /// missing ones, and evicts past the budget.
    func update() {
        updates += 1
        applyResults()
        guard superlayer != nil, !isHidden, bounds.width > 0, bounds.height > 0, tileSize.width >= 1, tileSize.height >= 1,
              let visible = visibleBounds() else {
            visibleRect = nil
            wantedMissing = 0
            queue.replace([])
            return
        }
        visibleRect = visible
        // Tiles are cut from the bounds' origin at the scale: a new origin or scale, new tiles.
        // A new size: the tiles the old or the new bounds cut are drawn again (those now
        // outside go); the others stay.
        if let f = tiledFor {
            if f.bounds.origin != bounds.origin || f.scale != contentsScale {
                discardTiles()
            } else if f.bounds.size != bounds.size {
                generation += 1
                for key in Array(tiles.keys) {
                    let full = fullTileRect(key)
                    if tileRect(key).isEmpty { evict(key); continue }
                    if full.intersection(bounds) != full || full.intersection(f.bounds) != full { invalidated[key] = generation }
                }
            }
        }
        tiledFor = (bounds, contentsScale)
        syncContainer()
        // The level: the coarsest whose resolution is at least the on-screen scale.
        let scale = onScreenScale
        let levels = max(1, levelsOfDetail)
        var level = 0
        for i in 0..<levels where density(i) >= scale * 0.999 { level = i }
        currentLevel = level
        // Visible tiles of the level, nearest the centre first.
        let d = density(level)
        let w = tileSize.width / d, h = tileSize.height / d
        let c0 = Int(((visible.minX - bounds.minX) / w).rounded(.down)), c1 = Int(((visible.maxX - bounds.minX) / w).rounded(.up)) - 1
        let r0 = Int(((visible.minY - bounds.minY) / h).rounded(.down)), r1 = Int(((visible.maxY - bounds.minY) / h).rounded(.up)) - 1
        var wanted: [TileKey] = []
        if c1 >= c0, r1 >= r0, (c1 - c0 + 1) * (r1 - r0 + 1) <= 65_536 {
            for r in r0...r1 { for c in c0...c1 { wanted.append(TileKey(level: level, column: c, row: r)) } }
        }
        let centre = Point(x: visible.midX, y: visible.midY)
        var jobs: [TileQueue.Job] = []
        var wantedSet = Set<TileKey>()
        for key in wanted {
            wantedSet.insert(key)
            let needed = invalidated[key] ?? 0
            if let t = tiles[key] {
                tiles[key]!.lastUsed = updates
                if t.generation >= needed { continue }
            }
            let r = tileRect(key)
            guard !r.isEmpty else { continue }
            let pixels = PixelSize(width: max(1, Int((r.width * d).rounded(.up))), height: max(1, Int((r.height * d).rounded(.up))))
            let distance = hypot(r.midX - centre.x, r.midY - centre.y)
            jobs.append(TileQueue.Job(key: key, generation: needed, epoch: epoch, rect: r, density: d, pixels: pixels, priority: -distance))
        }
        wantedMissing = jobs.count
        queue.limit = maximumConcurrentTiles
        queue.replace(jobs)
        // Tiles of other levels, or invalidated and not visible, go; then the least recently
        // used past the budget.
        for (key, t) in tiles where !wantedSet.contains(key) && t.generation < (invalidated[key] ?? 0) { evict(key) }
        var bytes = residentTileBytes
        if bytes > memoryBudget {
            for (key, _) in tiles.filter({ !wantedSet.contains($0.key) }).sorted(by: { $0.value.lastUsed < $1.value.lastUsed }) {
                guard bytes > memoryBudget else { break }
                bytes -= tiles[key]?.bytes ?? 0
                evict(key)
            }
        }
        peakTileBytes = max(peakTileBytes, bytes)
    }

    private func evict(_ key: TileKey) {
        tiles.removeValue(forKey: key)?.layer.removeFromSuperlayer()
    }

    /// Puts the tiles drawn since the last update on the layer (a new one fades in).
    private func applyResults() {
        for result in queue.takeResults() {
            let key = result.job.key
            guard result.job.epoch == epoch, let image = result.image, result.job.generation >= (tiles[key]?.generation ?? -1) else { continue }
            tilesDrawn += 1
            let contents = ContentImage(image)
            if var t = tiles[key] {
                t.layer.frame = result.job.rect   // (an edge tile of new bounds)
                t.layer.contents = .image(contents)
                t.generation = result.job.generation
                t.lastUsed = updates
                t.bytes = image.width * image.height * 4
                tiles[key] = t
                continue
            }
            let tile = Layer()
            tile.frame = result.job.rect
            tile.contents = .image(contents)
            // (Clamped into PixelScale: a level zoomed out past 1/4096 px/pt stretches its
            // tiles to their frames all the same.)
            tile.contentsScale = min(max(result.job.density, PixelScale.range.lowerBound), PixelScale.range.upperBound)
            tile.actions = ["contents": nil, "position": nil, "bounds": nil, "opacity": nil]
            if fadeDuration > 0 {
                var fade = BasicAnimation(keyPath: "opacity")
                fade.fromValue = .number(0)
                fade.toValue = .number(1)
                fade.duration = fadeDuration
                tile.add(fade, forKey: "fadeIn")
            }
            levelContainer(key.level).addSublayer(tile)
            tiles[key] = Tile(layer: tile, bytes: image.width * image.height * 4, lastUsed: updates, generation: result.job.generation)
        }
    }

    private func levelContainer(_ level: Int) -> Layer {
        if let c = levelContainers[level] { return c }
        let c = Layer()
        c.name = "tiles level \(level)"
        c.zPosition = -Double(level)   // coarser levels below finer ones
        c.actions = ["bounds": nil, "position": nil]
        levelContainers[level] = c
        container.addSublayer(c)
        syncContainer()
        return c
    }

    /// The containers cover the bounds (tile frames are in bounds coordinates).
    private func syncContainer() {
        let center = Point(x: bounds.midX, y: bounds.midY)
        for c in [container] + Array(levelContainers.values) where c.bounds != bounds || c.position != center {
            transactionContext.withoutActions {
                c.bounds = bounds
                c.position = c === container ? center : Point(x: bounds.midX, y: bounds.midY)
            }
        }
    }

    /// The part of the bounds on screen (bounds coordinates), from the layer's transform to
    /// the screen (taken back through the plane's inverse).
    private func visibleBounds() -> Rect? {
        guard let (toScreen, screen) = screenPlacement(), let back = PlaneMath.planeInverse(toScreen) else { return bounds }
        // (The screen reaching past the layer's horizon: all of it may show.)
        guard let box = PlaneMath.screenBox(of: screen, back) else { return bounds }
        let r = box.intersection(bounds)
        return r.isEmpty ? nil : r
    }

    /// The layer's bounds → screen transform, and the screen rectangle (the root's frame
    /// cut by every clipping ancestor's box on screen).
    private func screenPlacement() -> (Transform3D, Rect)? {
        var chain: [Layer] = []
        var l: Layer? = self
        while let c = l { chain.append(c); l = c.superlayer }
        guard chain.count > 1 else { return nil }
        var m = Transform3D.identity
        var screen: Rect?
        // From the root down: each layer's bounds → screen.
        var toScreen: [Transform3D] = Array(repeating: .identity, count: chain.count)
        for i in stride(from: chain.count - 1, through: 0, by: -1) {
            let layer = chain[i]
            m = i == chain.count - 1 ? layer.transformToSuperlayer
                : layer.transformToSuperlayer.concatenating(chain[i + 1].transformForSublayers).concatenating(toScreen[i + 1])
            toScreen[i] = m
            if i == chain.count - 1 { screen = layer.frame }
            if i > 0, layer.masksToBounds, let s = screen, let box = PlaneMath.screenBox(of: layer.bounds, m) {
                screen = s.intersection(box)
            }
        }
        guard let s = screen, !s.isEmpty else { return nil }
        return (toScreen[0], s)
    }

    /// `contentsScale` times the mean scale of the layer's transforms to the screen.
    private var onScreenScale: Double {
        guard let (m, _) = screenPlacement() else { return contentsScale }
        return PlaneMath.linearScale(m) * (contentsScale > 0 ? contentsScale : 1)
    }

    // MARK: All tiled layers

    /// At each commit, before the display pass (its commit hook): the layer updates its tiles.
    package func commitWillDisplay() { update() }

    isolated deinit {
        queueStorage?.replace([])   // (tiles being drawn finish; their results are dropped)
    }
}

/// The work queue of a tiled layer's tiles: jobs by priority, drawn by up to `limit` worker
/// threads; results wait for the main thread. Thread-safe.
final class TileQueue: @unchecked Sendable {
    struct Job: Sendable {
        let key: TiledLayer.TileKey
        let generation: Int
        let epoch: Int
        let rect: Rect
        let density: Double
        let pixels: PixelSize
        let priority: Double
    }
    struct Result: Sendable {
        let job: Job
        let image: RGBAImage?
    }
    private let condition = ConditionLock()
    private var jobs: [Job] = []
    private var running: [TiledLayer.TileKey] = []
    private var results: [Result] = []
    private var notified = false
    var limit = 2
    private let drawTile: @Sendable (GraphicsContext) -> Void
    private let finished: @Sendable () -> Void

    init(draw: @escaping @Sendable (GraphicsContext) -> Void, finished: @escaping @Sendable () -> Void) {
        drawTile = draw
        self.finished = finished
    }

    /// Jobs waiting or running.
    var outstanding: Int { condition.lock(); defer { condition.unlock() }; return jobs.count + running.count }
    /// Tiles waiting, being drawn, or drawn and not yet taken.
    func pendingKeys() -> [TiledLayer.TileKey] {
        condition.lock(); defer { condition.unlock() }
        return jobs.map(\.key) + running + results.map(\.job.key)
    }

    /// The jobs wanted now (others waiting are dropped; running ones finish; those finished
    /// since the last `takeResults()` are not drawn again).
    func replace(_ wanted: [Job]) {
        condition.lock()
        let busy = Set(running)
        var done: [TiledLayer.TileKey: Int] = [:]
        for r in results where r.job.epoch == wanted.first?.epoch { done[r.job.key] = max(done[r.job.key] ?? Int.min, r.job.generation) }
        jobs = wanted.filter { !busy.contains($0.key) && (done[$0.key] ?? Int.min) < $0.generation }
            .sorted { $0.priority < $1.priority }   // best last
        let start = max(0, min(limit - running.count, jobs.count))
        var started: [Job] = []
        for _ in 0..<start { let j = jobs.removeLast(); running.append(j.key); started.append(j) }
        condition.unlock()
        for j in started { spawn(j) }
    }

    private func spawn(_ first: Job) {
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            var job: Job? = first
            while let j = job {
                let image = render(j)
                condition.lock()
                running.removeAll { $0 == j.key }
                results.append(Result(job: j, image: image))
                let notify = !notified
                notified = true
                job = jobs.popLast()
                if let next = job { running.append(next.key) }
                condition.broadcast()
                condition.unlock()
                if notify { finished() }
            }
        }
    }

    private func render(_ job: Job) -> RGBAImage? {
        guard let bitmap = try? Bitmap(pixelSize: job.pixels) else { return nil }
        let context = GraphicsContext(bitmap: bitmap, scale: job.density, origin: job.rect.origin, clip: job.rect)
        drawTile(context)
        context.invalidate()
        return bitmap.rgbaImage()
    }

    func takeResults() -> [Result] {
        condition.lock(); defer { condition.unlock() }
        notified = false
        defer { results = [] }
        return results
    }

    /// Waits until a result arrives or nothing is outstanding; false past the deadline.
    func waitIdle(until deadline: Date) -> Bool {
        condition.lock(); defer { condition.unlock() }
        while results.isEmpty && !(jobs.isEmpty && running.isEmpty) {
            if !condition.wait(until: deadline) { return false }
        }
        return true
    }
}

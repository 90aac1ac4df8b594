import LaminaValues
import Foundation
import LaminaGeometry
import LaminaGPU
import Synchronization

/// What one composite cost.
public struct FrameStatistics: Equatable, Sendable, CustomStringConvertible {
    /// Layers whose frame data was worked out (all of them after a structural change;
    /// only the changed ones, with their subtrees, otherwise).
    public var layersVisited = 0
    /// Layer states the commits since the last frame handed this renderer: the changed
    /// layers (and new subtrees whole) — not the tree.
    public var layersCommitted = 0
    /// Quads of the tree drawn (backgrounds, contents, borders).
    public var quadsDrawn = 0
    /// All draw calls, including clip shapes and group composites.
    public var drawCalls = 0
    /// Offscreen passes (group opacity).
    public var offscreenPasses = 0
    /// Gaussian blurs run (shadows blurred again, backdrops); a shadow whose inputs did
    /// not change is drawn from its cached blur.
    public var blurs = 0
    /// Bytes uploaded to textures during the frame.
    public var textureBytesUploaded = 0
    /// The target area re-composited, in points: the damage (the whole target for full
    /// frames; zero when nothing changed).
    public var damagedRect = Rect.zero
    /// Whether the frame was skipped because nothing changed.
    public var skipped = false
    /// Whether an unchanged tree was drawn again from the frame data kept (a host that
    /// composites every frame), without walking the tree.
    public var reusedRenderList = false
    /// Layers whose `layoutSublayers()` ran in the commit of this frame.
    public var layoutPasses = 0
    /// The draws of the commit of this frame: which layers, why, which rectangle.
    public var displays: [DisplayRecord] = []
    /// How many layers drew their content for this frame.
    public var layersDrawn: Int { displays.count }
    /// CPU time per phase (and the GPU's, when known).
    public var timings = FrameTimings()
    /// Whether this frame found the context lost and recovered first (everything was
    /// made, uploaded and drawn again).
    public var recoveredFromContextLoss = false

    public init() {}
    package init(skipped: Bool) { self.skipped = skipped }

    /// Equal when they count the same work: every counter, the damage and the draws
    /// (layers, reasons, rectangles, bytes). The timings, measurements that differ from
    /// run to run, are not compared.
    public static func == (a: FrameStatistics, b: FrameStatistics) -> Bool {
        a.layersVisited == b.layersVisited && a.layersCommitted == b.layersCommitted && a.quadsDrawn == b.quadsDrawn
            && a.drawCalls == b.drawCalls && a.offscreenPasses == b.offscreenPasses && a.blurs == b.blurs
            && a.textureBytesUploaded == b.textureBytesUploaded && a.damagedRect == b.damagedRect && a.skipped == b.skipped
            && a.reusedRenderList == b.reusedRenderList && a.layoutPasses == b.layoutPasses
            && a.recoveredFromContextLoss == b.recoveredFromContextLoss
            && a.displays.count == b.displays.count
            && zip(a.displays, b.displays).allSatisfy { x, y in
                x.layer == y.layer && x.layerID == y.layerID && x.reasons == y.reasons && x.rect == y.rect
                    && x.pixelRect == y.pixelRect && x.uploadedBytes == y.uploadedBytes
            }
    }

    public var description: String {
        var s = "layers \(layersVisited), quads \(quadsDrawn), draw calls \(drawCalls), offscreen passes \(offscreenPasses), blurs \(blurs), uploaded \(textureBytesUploaded) B, damaged \(damagedRect.width)×\(damagedRect.height) pt"
        if layoutPasses > 0 || !displays.isEmpty { s += ", layouts \(layoutPasses), layers drawn \(layersDrawn)" }
        if recoveredFromContextLoss { s += ", recovered from a lost context" }
        return s + (skipped ? " (skipped: no change)" : "")
    }
}

/// Composites a layer tree into render targets. It keeps its own copy of the tree (a
/// `RenderTree`, updated from each commit's `RenderUpdate`: the model never touches the
/// GPU) and every GPU resource: the textures of the contents shown (one per image or
/// backing store, shared by every layer showing it, freed the moment no layer shows it),
/// and the offscreen targets of group opacity.
///
/// A compositor is used from one thread at a time: the main actor (`render(_:to:…)`, the
/// default), or the render thread of a `RenderThread`, which owns it and its device.
public final class Compositor: @unchecked Sendable {
    public let device: GPUDevice
    public private(set) var lastFrame = FrameStatistics()

    /// The renderer's copy of the tree it composites (nil until the first render).
    public internal(set) var tree: RenderTree?
    /// Where each content shown is kept on the GPU.
    private var places: [ContentKey: ContentPlace] = [:]
    /// Small contents share the pages of one atlas (made when first needed).
    private var atlasStorage: TextureAtlas?

    /// Contents at most this many pixels on a side (images and backing stores) are kept in
    /// a shared texture atlas, so that layers showing different ones still draw in one
    /// batch; larger ones get a texture of their own. 0 turns the atlas off.
    /// Changing it once contents are shown places them again (the next render starts from
    /// a new snapshot and uploads every content again).
    public var atlasEntrySide = 256 {
        didSet { if atlasEntrySide != oldValue && !places.isEmpty { releaseResources() } }
    }
    /// The next frame redraws the whole target (a new snapshot, or asked to).
    private var forceFull = true
    private(set) weak var lastTarget: RenderTarget?
    private var lastBackground: Color??
    /// Bytes uploaded since the last frame (updates applied between frames).
    private var uploadedBetweenFrames = 0
    /// An error of applying an update (an upload that failed), thrown by the next render.
    var deferredError: Error?

    public init(device: GPUDevice) {
        self.device = device
        let caps = device.capabilities
        timesGPU = caps.timerQueries && !caps.isSoftwareRasterizer && device.ownership != .adopt
    }

    /// Contents the compositor holds on the GPU (images and backing stores, in a texture of
    /// their own or in the atlas).
    public var cachedTextureCount: Int { places.count }

    /// How the atlas is used (nil: not made yet).
    public var atlasStatistics: TextureAtlas.Statistics? { atlasStorage?.statistics }

    private func atlas() -> TextureAtlas {
        if let atlasStorage { return atlasStorage }
        let atlas = TextureAtlas(device: device, pageSize: 2048, maxEntrySide: atlasEntrySide)
        atlasStorage = atlas
        return atlas
    }

    /// A place for `size` pixels of contents stored in `byteOrder`: in the atlas if small.
    private func makePlace(_ size: PixelSize, byteOrder: PixelByteOrder) throws -> ContentPlace {
        if atlasEntrySide > 0, size.width <= atlasEntrySide, size.height <= atlasEntrySide,
           let entry = try atlas().allocate(size, byteOrder: byteOrder) {
            return .atlas(entry, uv: entry.uvRect, clamp: entry.clampRect)
        }
        return .texture(try device.makeTexture(pixelSize: size, byteOrder: byteOrder))
    }

    private func free(_ place: ContentPlace) {
        switch place {
        case .texture(let t): t.release()
        case .atlas(let e, _, _): atlasStorage?.free(e)
        }
    }

    /// Takes `tree` (a snapshot) as the tree it composites, with the pixels of its backing
    /// stores; the next frame redraws the whole target.
    package func adopt(_ tree: RenderTree, uploads: [ContentUpload]) {
        releaseContents()
        // The old tree's buffers are handed back after the new tree's are held (a buffer
        // in both stays read throughout).
        let old = Array(externalsHeld.values)
        externalsHeld.removeAll()
        self.tree = tree
        holdNewExternals()
        if !old.isEmpty { handBack(old) }
        for u in uploads { receive(u) }
        forceFull = true
    }

    /// Applies a commit's update to the tree and the textures (called by `Transaction`).
    package func apply(_ update: RenderUpdate) {
        guard let tree else { return }
        var clock = PhaseClock()
        captureTransitions(in: update)   // (before the update: the layers as they were)
        tree.apply(update)
        holdNewExternals()
        if !transitionsSeen.isEmpty { releaseEndedTransitions() }
        statesApplied += update.layers.count
        for upload in update.uploads where tree.contentUsers[.store(upload.store.id)] != nil {
            receive(upload)
            tree.notePixels(of: upload.store, in: upload.region)
        }
        freeUnusedContents()
        applyTime += clock.lap()
    }

    /// CPU time spent applying updates since the last frame.
    private var applyTime = 0.0
    /// Layer states received since the last frame.
    private var statesApplied = 0

    /// Puts a backing store's pixels into its texture (made on a whole upload).
    private func receive(_ upload: ContentUpload) {
        let key = ContentKey.store(upload.store.id)
        do {
            if places[key] == nil {
                guard upload.isFull else { return }   // not shown here yet: a whole one will come
                places[key] = try makePlace(upload.store.pixelSize, byteOrder: upload.store.isOpaque ? .bgrx : .bgra)
            }
            let before = device.uploadedBytes
            try upload.bytes.withUnsafeBytes { bytes in
                switch places[key]! {
                case .texture(let t): _ = try t.upload(bytes, bytesPerRow: upload.rowBytes, region: upload.region)
                case .atlas(let e, _, _): _ = try atlas().upload(e, bytes: bytes, bytesPerRow: upload.rowBytes, region: upload.region)
                }
            }
            uploadedBetweenFrames += device.uploadedBytes - before
        } catch {
            deferredError = deferredError ?? error
        }
    }

    private func freeUnusedContents() {
        guard let tree else { return }
        var released: [ExternalBuffer] = []
        for key in tree.takeUnusedContents() {
            if let place = places.removeValue(forKey: key) { free(place) }
            if case .external(let id) = key, let buffer = externalsHeld.removeValue(forKey: id) { released.append(buffer) }
        }
        if !released.isEmpty { handBack(released) }
    }

    // MARK: External buffers

    /// External buffers the tree shows (by id): each is read (`beginReading`) from the
    /// moment a layer shows it until none does — drawn or not.
    private var externalsHeld: [UInt64: ExternalBuffer] = [:]

    /// Starts reading the buffers the tree began to show.
    private func holdNewExternals() {
        guard let tree else { return }
        for b in tree.takeNewExternals() where externalsHeld.updateValue(b, forKey: b.id) == nil { b.beginReading() }
    }

    /// Hands `buffers` back to their producers once the GPU is done with the frames that may
    /// have sampled them: a fence after the work issued so far, waited for on a background
    /// thread (no further frame is needed), or here with `waiting`.
    private func handBack(_ buffers: [ExternalBuffer], waiting: Bool = false) {
        let fence = device.capabilities.fenceSync ? try? SyncFence.afterWork(on: device) : nil
        if fence == nil { try? device.finishWork() }
        if waiting || fence == nil {
            fence?.wait(timeout: 5)
            buffers.forEach { $0.endReading() }
            return
        }
        let pending = pendingHandBacks
        pending.count.add(buffers.count, ordering: .relaxed)
        let work = (fence, buffers)
        DispatchQueue.global().async {
            work.0?.wait(timeout: 5)
            work.1.forEach { $0.endReading() }
            pending.count.subtract(work.1.count, ordering: .relaxed)
        }
    }

    /// External buffers no layer shows any more, waiting for the GPU before they are
    /// handed back.
    public var externalBuffersAwaitingRelease: Int { pendingHandBacks.count.load(ordering: .relaxed) }
    private let pendingHandBacks = HandBackCounter()

    /// Composites the tree it holds (a snapshot kept up to date by updates) at the media
    /// clock's time: what `render(_:to:…)` does after taking the model's changes. Any
    /// thread that owns the compositor (a `RenderThread`'s).
    package func renderFrame(to target: RenderTarget, background: Color?, always: Bool,
                     overlays: [(rect: Rect, color: Color, transform: Transform3D)], clock: PhaseClock,
                     recovered: Bool) throws -> FrameStatistics {
        var clock = clock
        if let error = deferredError { deferredError = nil; throw error }
        guard let tree = self.tree else { return FrameStatistics(skipped: true) }
        var timings = FrameTimings()
        timings.commit = clock.lap() + applyTime
        applyTime = 0
        let committed = statesApplied
        statesApplied = 0
        let newTarget = lastTarget !== target || lastBackground != .some(background)
        if newTarget { damageHistory = [] }
        // Animations: what each animating layer shows at this frame's media time.
        if !tree.animated.isEmpty || hasRunningAnimations {
            let now = MediaClock.now()
            hasRunningAnimations = tree.advanceAnimations(to: now)
            lastFrameMediaTime = now
        }
        if !transitionsSeen.isEmpty { releaseEndedTransitions() }
        if !externalsHeld.isEmpty { device.sweepExternalImports() }   // imports of buffers their producers freed
        // What changed since the last frame (the whole target after a rebuild or for a new
        // target or background).
        var plan = tree.plan(size: target.size, full: forceFull || newTarget)
        forceFull = false
        let everything = Box(Rect(origin: .zero, size: target.size))
        // This frame's own change (what `showsDamage` paints; the ring remembers it once
        // the frame is drawn).
        let own = plan.isFull ? everything : Box(plan.damage)
        // A buffer `age` frames old misses the changes of the frames drawn since (and, with
        // `showsDamage`, still shows the flash of the frame it holds); of unknown age, or
        // covered by the host every frame, it is redrawn whole.
        // A swapchain presents only frames that change something: with nothing new, its
        // consumer already shows the latest frame, and no buffer is used.
        let unchanged = !plan.isFull && plan.damage.isEmpty && lastDamageFlash == nil && !always && overlays.isEmpty
        if !(unchanged && target.presentsChangesOnly) {
            do { try target.frameWillBegin() } catch {
                forceFull = true   // this frame's changes are drawn by the next one
                throw error
            }
        }
        let age = target.bufferAge
        let missed = showsDamage || lastDamageFlash != nil ? age : age - 1
        if unchanged && target.presentsChangesOnly {
            // Nothing to draw (skipped below).
        } else if always || background == nil || !overlays.isEmpty || age <= 0 || missed > damageHistory.count {
            plan = tree.fullPlan(plan, size: target.size)
        } else if !plan.isFull {
            var damage = Box(plan.damage)
            for old in damageHistory.prefix(missed) where !old.isEmpty { damage = damage.isEmpty ? old : damage.union(old) }
            if damage != Box(plan.damage) { plan = tree.replan(plan, damage: damage, size: target.size) }
        }
        lastTarget = target
        lastBackground = .some(background)
        timings.build = clock.lap()
        var stats: FrameStatistics
        if !plan.isFull && plan.damage.isEmpty {
            // Nothing drawn: no buffer used, nothing for the ring.
            stats = FrameStatistics(skipped: true)
            lastDamageFlash = nil
            try target.frameDidEnd(drawn: false, damage: nil, repainted: nil)
        } else {
            damageHistory.insert(own, at: 0)
            if damageHistory.count > 4 { damageHistory.removeLast() }
            do {
                stats = try device.withContext { try draw(plan, own: own, on: target, background: background, overlays: overlays) }
            } catch {
                // Nothing was presented: its damage leaves the ring, and the next frame
                // draws whole.
                damageHistory.removeFirst()
                forceFull = true
                target.frameFailed()
                throw error
            }
            try target.frameDidEnd(drawn: true, damage: own.isEmpty ? .zero : own.rect, repainted: stats.damagedRect)
            timings.execute = clock.lap()
            if timesGPU { timings.gpu = device.latestGPUDuration.map { Double($0) / 1e9 } }
            stats.reusedRenderList = always && !plan.rebuilt && plan.layersVisited == 0
        }
        stats.timings = timings
        stats.recoveredFromContextLoss = recovered
        stats.textureBytesUploaded += uploadedBetweenFrames
        uploadedBetweenFrames = 0
        stats.layersVisited = plan.layersVisited
        stats.layersCommitted = committed
        lastFrame = stats
        return stats
    }

    /// Whether the tree's animations will show something else at a later frame (the host
    /// keeps compositing, at the frame clock's rate, while this is true).
    public private(set) var hasRunningAnimations = false
    /// The media time the last frame's animations were evaluated at (nil: none yet).
    public private(set) var lastFrameMediaTime: Double?

    /// The pixel size of the target being drawn (group images are limited to it).
    var rootPixelSize: PixelSize?

    /// The damage of the last frames drawn (newest first), for targets whose buffers rotate.
    private var damageHistory: [Box] = []
    /// The last damage painted over for `showsDamage`, to be drawn again without it.
    private var lastDamageFlash: Box?

    /// Times each frame's pass on the GPU (timer queries, where the driver has them):
    /// `FrameStatistics.timings.gpu` is then the latest time that has come in (a frame or
    /// more old; the query never waits for the GPU). On by default where supported, except
    /// on a host's adopted context (reading the timer's disjoint flag clears it for the
    /// host too) and on software rasterizers (llvmpipe's timer queries miss most of its
    /// rasterizing, which runs on other threads, and cost some 20 µs a pass).
    public var timesGPU: Bool

    /// Debugging aid: paints each frame's damage in translucent green over the output
    /// (the next frame removes it). Defaults to `LAMINA_SHOW_DAMAGE=1`.
    public var showsDamage = ProcessInfo.processInfo.environment["LAMINA_SHOW_DAMAGE"] == "1"

    /// A damage flash is on the target: the next frame must remove it, changes or not.
    public var showsDamageFlash: Bool { lastDamageFlash != nil }

    /// Draws a frame plan: the damage cleared and the items there drawn, scissored.
    private func draw(_ plan: FramePlan, own: Box, on target: RenderTarget, background: Color?,
                      overlays: [(rect: Rect, color: Color, transform: Transform3D)]) throws -> FrameStatistics {
        guard let tree, let root = tree.surfaces[RenderTree.rootSurfaceID] else { return FrameStatistics() }
        var stats = FrameStatistics()
        let callsBefore = device.drawCalls, bytesBefore = device.uploadedBytes
        let scissor = plan.isFull ? nil : target.pixelRect(covering: plan.damage)
        rootPixelSize = target.pixelSize
        frameSerial += 1
        try renderDirtyGroups(scale: target.scale, limit: target.pixelSize, stats: &stats)
        let pass = try device.beginRenderPass(on: target, clear: background, scissor: scissor, timed: timesGPU)
        var drawer = SurfaceDrawer(compositor: self, tree: tree, pass: pass, offset: .identity, scale: target.scale, stats: stats)
        try drawer.draw(root, items: plan.items)
        try drawer.finish()
        stats = drawer.stats
        for o in overlays {
            try pass.fill(o.rect, color: o.color, transform: o.transform.concatenating(.flatten))
        }
        if showsDamage {
            // This frame's own damage only (not the last flash, redrawn to remove it).
            if own.isEmpty {
                lastDamageFlash = nil
            } else {
                try pass.fill(own.rect, color: Color(red: 0, green: 1, blue: 0, alpha: 0.25))
                lastDamageFlash = own
            }
        } else {
            lastDamageFlash = nil
        }
        pass.submit()
        releaseUnusedGroupTargets()
        stats.drawCalls = device.drawCalls - callsBefore
        stats.textureBytesUploaded = device.uploadedBytes - bytesBefore
        stats.damagedRect = plan.isFull ? Rect(origin: .zero, size: target.size) : plan.damage
        return stats
    }

    // MARK: Groups

    /// The offscreen image of each group (group opacity), kept while the group is
    /// unchanged, sized to its content's box.
    var groupImages: [LayerID: (target: OffscreenTarget, box: PixelRect)] = [:]
    /// Cross-fades (CrossFadeRendering.swift): each transition's old picture (by its id),
    /// the ids seen, and the offscreen mixes of transitions and of contents animations.
    var transitionPictures: [UInt64: OldPicture] = [:]
    var transitionsSeen: Set<UInt64> = []
    var transitionMixes: [LayerID: Mix] = [:]
    var contentMixes: [LayerID: Mix] = [:]
    /// Counts frames drawn (a contents mix is made once per frame at most).
    var frameSerial = 0
    /// Counts images rendered (`Surface.renders`).
    var renderSerial = 0
    /// Shadows, gradients and backdrops (EffectRendering.swift).
    lazy var effects = EffectCaches(device: device)

    /// A group's image, rendered again if something in it changed (or its box moved).
    /// Returns the texture and where it goes, in target points (nil: nothing to draw).
    func groupImage(_ id: LayerID, scale: Double, within limit: PixelSize, stats: inout FrameStatistics) throws -> (Texture, Rect)? {
        guard let tree, let surface = tree.surfaces[id], let b = surface.bounds else { return nil }
        // Clamped to the target in Double first: bounds may be huge (or not finite) — and to
        // a margin around it for images drawn elsewhere than where they are (a replicator's
        // instances) or read around their place (a shadow's source).
        let (mx, my) = imageMargin(id, tree: tree, scale: scale, limit: limit)
        func pixel(_ v: Double, _ rule: FloatingPointRoundingRule, _ low: Int, _ high: Int) -> Int? {
            let p = (v * scale).rounded(rule)
            return p.isNaN ? nil : Int(min(max(p, Double(low)), Double(high)))
        }
        guard let x0 = pixel(b.minX, .down, -mx, limit.width + mx), let y0 = pixel(b.minY, .down, -my, limit.height + my),
              let x1 = pixel(b.maxX, .up, -mx, limit.width + mx), let y1 = pixel(b.maxY, .up, -my, limit.height + my),
              x1 > x0, y1 > y0 else { return nil }
        let box = PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        var image = groupImages[id]
        if image == nil || image!.target.pixelSize != box.size || image!.target.scale != scale || image!.target.isReleased {
            image?.target.release()
            image = (try OffscreenTarget(device: device, pixelSize: box.size, scale: scale), box)
            surface.isDirty = true
        }
        // Moved whole by a whole number of pixels since it was rendered, nothing else changed
        // (`Surface.shift`): the image is the same, at its new place.
        let shift = surface.shift
        surface.shift = nil
        if image!.box != box || shift != nil {
            var reusable = false
            if let s = shift, !surface.isDirty, image!.box.size == box.size {
                reusable = abs(s.dx * scale - Double(box.x - image!.box.x)) < 1e-6 && abs(s.dy * scale - Double(box.y - image!.box.y)) < 1e-6
            }
            if !reusable { surface.isDirty = true }
            image!.box = box
        }
        groupImages[id] = image
        let origin = Point(x: Double(x0) / scale, y: Double(y0) / scale)
        if surface.isDirty {
            let pass = try device.beginRenderPass(on: image!.target, clear: .clear)
            var drawer = SurfaceDrawer(compositor: self, tree: tree, pass: pass,
                                       offset: Transform3D(translationX: -origin.x, y: -origin.y), scale: scale, stats: stats)
            try drawer.draw(surface, items: nil)
            try drawer.finish()
            stats = drawer.stats
            pass.submit()
            stats.offscreenPasses += 1
            surface.isDirty = false
            // (A serial of the compositor's, never reused: a surface made again by a rebuild
            // does not repeat an earlier one's numbers, which caches compare.)
            renderSerial += 1
            surface.renders = renderSerial
        }
        return (image!.target.texture!, Rect(x: origin.x, y: origin.y, width: Double(box.width) / scale, height: Double(box.height) / scale))
    }

    /// How far (pixels, each side) a surface's image may reach past the target: a
    /// replicator's sublayers one target size (instances move them on screen), a group
    /// casting a shadow of its alpha its shadow's reach; others none (drawn where they are).
    /// Never past the GPU's largest render target.
    func imageMargin(_ id: LayerID, tree: RenderTree, scale: Double, limit: PixelSize) -> (Int, Int) {
        let maximum = device.capabilities.maxRenderTargetSize
        func capped(_ m: Double, _ side: Int) -> Int {
            let room = max(0, (maximum - side) / 2)
            return m.isFinite ? Int(min(max(0, m), Double(room))) : room
        }
        // A replicator's sublayers, and groups among them (their images are drawn per instance).
        var s: LayerID? = id
        for _ in 0..<64 {
            guard let current = s, current != RenderTree.rootSurfaceID else { break }
            if tree.surfaces[current]?.replicaOwner != nil {
                return (capped(Double(limit.width), limit.width), capped(Double(limit.height), limit.height))
            }
            s = tree.nodes[current]?.surface
        }
        if let node = tree.nodes[id], node.isGroup, node.state.shadowKind == .layerAlpha {
            let (dx, dy, sigma) = RenderTree.shadowPlacement(node)
            return (capped((3 * sigma + abs(dx)) * scale + 2, limit.width), capped((3 * sigma + abs(dy)) * scale + 2, limit.height))
        }
        return (0, 0)
    }

    /// Renders the groups whose content changed, deepest first, before the target's pass:
    /// when a group's image is rendered, the groups nested in it are ready, so drawing
    /// never nests one group's rendering inside another's (no recursion per nesting level:
    /// thousands of nested groups render).
    func renderDirtyGroups(scale: Double, limit: PixelSize, stats: inout FrameStatistics) throws {
        guard let tree else { return }
        let dirty = tree.surfaces.values.filter { $0.id != RenderTree.rootSurfaceID && ($0.isDirty || $0.compositeIsStale) }.map(\.id)
        guard !dirty.isEmpty else { return }
        // Nesting depth of each group: its surface's depth + 1 (memoised, no recursion).
        var depth: [LayerID: Int] = [RenderTree.rootSurfaceID: 0]
        func depthOf(_ id: LayerID) -> Int {
            var chain: [LayerID] = []
            var current = id
            while depth[current] == nil, let node = tree.nodes[current], chain.count <= tree.nodes.count {
                chain.append(current)
                current = node.surface
            }
            var d = depth[current] ?? 0
            for g in chain.reversed() { d += 1; depth[g] = d }
            return depth[id] ?? 0
        }
        for id in dirty.map({ ($0, depthOf($0)) }).sorted(by: { $0.1 > $1.1 }).map(\.0) {
            _ = try compositeImage(id, scale: scale, within: limit, stats: &stats)
        }
    }

    private func releaseUnusedGroupTargets() {
        guard let tree else { return }
        effects.releaseUnused(in: tree)
        for (id, image) in groupImages where tree.surfaces[id] == nil || (tree.nodes[id]?.isGroup != true && tree.surfaces[id]?.owner == nil) {
            image.target.release()
            groupImages[id] = nil
        }
        for (id, mix) in transitionMixes where tree.nodes[id]?.state.properties.transition == nil {
            mix.target.release()
            transitionMixes[id] = nil
        }
        for (id, mix) in contentMixes where tree.nodes[id]?.state.properties.contentsFade == nil {
            mix.target.release()
            contentMixes[id] = nil
        }
    }

    /// The context generation the compositor's GPU objects were made in.
    private var contextGeneration: Int?
    /// Called when a render finds the context lost (a GPU reset the driver reported, or
    /// `GPUDevice.simulateContextLoss()`), once the device has a new context (and before
    /// the frame is drawn); the error says what the driver reported. Objects you made on
    /// the device (targets on your textures, textures shown as contents) are gone: make
    /// them again here (do not call `recover()`: it is done). On a host's context, which
    /// Lamina cannot re-create, it is called and the render throws.
    public var contextLossHandler: ((GPUError) -> Void)?

    /// At each frame boundary: when the context was lost, recovers — the device's context
    /// is made again (own contexts; a host's throws), the compositor forgets every GPU
    /// object (textures, atlas, group images), the target makes its storage again if it
    /// owns it, and the tree is taken again from the model whole (a new snapshot, every
    /// content uploaded again from its image or backing store), so this frame is correct.
    /// Returns whether it recovered.
    package func recoverIfContextLost(_ target: RenderTarget) throws -> Bool {
        var lost = false
        var report: GPUError?
        do { try device.checkContext() } catch let error as GPUError {
            guard case .contextLost = error else { throw error }
            report = error
            do { try device.recover() } catch {
                contextLossHandler?(error as? GPUError ?? report!)   // a host's context: told, not recovered
                throw error
            }
            lost = true
        }
        if contextGeneration != device.contextGeneration {
            // Lost here, or recovered by another user of the device since the last frame.
            lost = lost || contextGeneration != nil
            contextGeneration = device.contextGeneration
        }
        if lost {
            releaseResources()   // every object reads as released: no GL calls; a new snapshot follows
            damageHistory = []
            deferredError = nil   // uploads into the lost objects: everything is uploaded again
        }
        if target.isLost { try device.withContext { try target.restoreAfterContextLoss() }; lost = true }
        // Told once the device works again: what the handler makes is in the new context.
        if let report { contextLossHandler?(report) }
        return lost
    }

    /// Forgets the last frame, so the next `render` redraws the whole target.
    public func forgetLastFrame() { forceFull = true }

    /// Where a content shown by the tree is (an image is uploaded when first drawn).
    func place(for contents: ContentRef) throws -> ContentPlace? {
        switch contents {
        case .texture(let t):
            guard let texture = t.texture as? Texture else { return nil }   // (only LaminaGPU's textures are drawn)
            return texture.belongs(to: device) && !texture.isReleased ? .texture(texture) : nil
        case .store(let s):
            return places[.store(s.id)]
        case .external(let e):
            guard let buffer = e.buffer as? ExternalBuffer else { return nil }   // (only LaminaGPU's buffers are imported)
            return .texture(try device.texture(for: buffer, frame: buffer.generation))
        case .image(let image):
            let key = ContentKey.image(image.id)
            if let p = places[key] { return p }
            let place = try makePlace(image.pixelSize, byteOrder: .rgba)
            do {
                switch place {
                case .texture(let t): try t.upload(image.pixels)
                case .atlas(let e, _, _): try atlas().upload(e, image: image.pixels)
                }
            } catch {
                free(place)
                throw error
            }
            places[key] = place
            return place
        }
    }

    private func releaseContents() {
        for p in places.values { free(p) }
        places.removeAll()
        atlasStorage?.release()
        atlasStorage = nil
    }

    /// Frees every GPU object the compositor holds (content textures, offscreen targets)
    /// and stops following the tree (the next render starts from a new snapshot).
    public func release() {
        releaseResources()
    }

    /// `release()` without leaving the commits (on the thread that owns the compositor).
    func releaseResources() {
        let held = Array(externalsHeld.values)
        externalsHeld.removeAll()
        if !held.isEmpty { handBack(held, waiting: true) }
        releaseContents()
        device.sweepExternalImports()   // imports of buffers their producers freed
        for image in groupImages.values { image.target.release() }
        groupImages.removeAll()
        for mix in Array(transitionMixes.values) + Array(contentMixes.values) { mix.target.release() }
        transitionMixes.removeAll()
        contentMixes.removeAll()
        for picture in transitionPictures.values { picture.target.release() }
        transitionPictures.removeAll()
        transitionsSeen.removeAll()
        effects.releaseAll()
        tree = nil
        forgetLastFrame()
    }
}

/// Draws a surface's items into a pass: clips (stencil) opened and closed as the items'
/// clip chains change, group images composited (rendered again when dirty).
struct SurfaceDrawer {
    let compositor: Compositor
    let tree: RenderTree
    let pass: RenderPass
    /// Target points → this pass's points (a group image's origin).
    let offset: Transform3D
    /// `offset` is the identity (the target's own pass): world transforms are used as they are.
    private let atOrigin: Bool
    let scale: Double
    var stats: FrameStatistics
    /// The stencil levels pushed, outermost first, each with the shape it pushed.
    private var clips: [(link: ClipChain, shape: ClipShape)] = []
    /// A clip's stencil shape, with the half-planes it is cut to (in front of the eye).
    private typealias ClipShape = (rect: Rect, radius: Double, transform: Transform3D, cuts: [HalfPlane])
    /// Scratch for `setClips`.
    private var missing: [ClipChain] = []
    /// The pass has cut planes set (else they are empty: not set again per item).
    private var cutting = false
    /// Scratch for nine-slice quads.
    private var pieces: [Quad] = []

    init(compositor: Compositor, tree: RenderTree, pass: RenderPass, offset: Transform3D, scale: Double, stats: FrameStatistics) {
        self.compositor = compositor; self.tree = tree; self.pass = pass; self.offset = offset; self.scale = scale; self.stats = stats
        atOrigin = offset.isIdentity
    }

    mutating func draw(_ surface: Surface, items: [Int]?) throws {
        if let items {
            for i in items { try draw(surface, i) }
        } else {
            for i in surface.items.indices { try draw(surface, i) }
        }
    }

    /// Sets the stencil to an item's clip chain: pops the levels it does not share with
    /// what is pushed and pushes the missing ones — O(levels changed), whatever the depth.
    /// A level is a clip's shape, or the intersection of a run of axis-aligned rectangular
    /// clips (`ClipChain.stencilParent`).
    private mutating func setClips(_ wanted: ClipChain?) throws {
        let depth = wanted?.stencilDepth ?? 0
        while clips.count > depth { try popClip() }
        missing.removeAll(keepingCapacity: true)
        var w = wanted
        while let link = w, link.stencilDepth > clips.count { missing.append(link); w = link.stencilParent }
        while let top = clips.last, let link = w, top.link !== link {
            // The same rectangle over the same levels: the stencil already holds it.
            if let r = link.rect, top.link.rect != nil, top.shape.rect == r, top.link.stencilParent === link.stencilParent {
                clips[clips.count - 1].link = link
                break
            }
            try popClip()
            missing.append(link)
            w = link.stencilParent
        }
        for link in missing.reversed() {
            let shape: ClipShape
            if let r = link.rect {
                shape = (r, 0, offset, [])
            } else {
                let s = link.node.state
                shape = (s.bounds, s.cornerRadius, atOrigin ? link.node.world : link.node.world.concatenating(offset), link.node.cutPlanes)
            }
            pass.cutPlanes = shape.cuts
            cutting = !shape.cuts.isEmpty
            try pass.pushClip(shape.rect, cornerRadius: shape.radius, transform: shape.transform)
            clips.append((link, shape))
        }
    }

    private mutating func popClip() throws {
        let top = clips.removeLast()
        pass.cutPlanes = top.shape.cuts
        cutting = !top.shape.cuts.isEmpty
        try pass.popClip(top.shape.rect, cornerRadius: top.shape.radius, transform: top.shape.transform)
    }

    private mutating func draw(_ surface: Surface, _ index: Int) throws {
        let item = surface.items[index]
        guard item.bounds != nil else { return }     // nothing to draw
        let node = item.node, layer = node.state
        if item.slot == .group {
            try setClips(item.clip)
            pass.cutPlanes = []
            cutting = false
            guard var (texture, rect) = try compositor.compositeImage(layer.id, scale: scale, within: groupLimit, stats: &stats) else { return }
            // (A transition's mix holds the opacities of its old and new pictures.)
            let own = layer.properties.transition != nil ? 1 : layer.opacity
            let alpha = node.inheritedAlpha * own
            // What the composite's pixels are a version of: the image's renders, and during a
            // transition (whose mix changes every frame, in the same texture) the frame.
            let version = (tree.surfaces[layer.id]?.renders ?? 0) &+ (layer.properties.transition != nil ? compositor.frameSerial &* 1_000_003 : 0)
            var shadow: (Texture, Rect)?
            if layer.shadowKind == .layerAlpha {
                shadow = try compositor.effects.layerShadow(node, image: texture, rect: rect, renders: version, scale: scale, stats: &stats)
            }
            if layer.mask != nil {
                // The image (and its shadow) multiplied by the mask's image, as one image.
                let maskID = RenderTree.maskSurfaceID(of: layer.id)
                guard let (maskTexture, maskRect) = try compositor.compositeImage(maskID, scale: scale, within: groupLimit, stats: &stats),
                      let masked = try compositor.effects.masked(node, image: texture, rect: rect, shadow: shadow, mask: maskTexture,
                                                                 maskRect: maskRect,
                                                                 renders: [version, tree.surfaces[maskID]?.renders ?? 0],
                                                                 scale: scale, stats: &stats)
                else { return }
                (texture, rect) = masked
                shadow = nil
            }
            if let (shadowTexture, shadowRect) = shadow {
                if layer.masksToBounds {
                    // The layer's own clip cuts its shadow too (as Core Animation's does).
                    let world = atOrigin ? node.world : node.world.concatenating(offset)
                    pass.cutPlanes = node.cutPlanes
                    try pass.pushClip(layer.bounds, cornerRadius: layer.cornerRadius, transform: world)
                    pass.cutPlanes = []
                    try pass.draw(shadowTexture, in: shadowRect, alpha: alpha, transform: offset)
                    pass.cutPlanes = node.cutPlanes
                    try pass.popClip(layer.bounds, cornerRadius: layer.cornerRadius, transform: world)
                    pass.cutPlanes = []
                } else {
                    try pass.draw(shadowTexture, in: shadowRect, alpha: alpha, transform: offset)
                }
            }
            if let mode = layer.compositingFilter {
                try compositor.effects.drawBlended(texture, in: rect, mode: mode, alpha: alpha, pass: pass, offset: offset)
            } else {
                try pass.draw(texture, in: rect, alpha: alpha, minFilter: .nearest, magFilter: .nearest, transform: offset)
            }
            return
        }
        try setClips(item.clip)
        if cutting || !node.cutPlanes.isEmpty {
            pass.cutPlanes = node.cutPlanes
            cutting = !node.cutPlanes.isEmpty
        }
        let world = atOrigin ? node.world : node.world.concatenating(offset)
        let a = node.alpha
        switch item.slot {
        case .shadow:
            switch layer.shadowKind {
            case let .analytic(shape, radius, factor)?:
                let paint = layer.shadowPaint, o = layer.properties.shadowOffset
                try pass.add(Quad.shadow(of: Rect(x: shape.minX + o.width, y: shape.minY + o.height, width: shape.width, height: shape.height), cornerRadius: radius,
                                         sigma: BlurRadius.sigma(forRadius: layer.properties.shadowRadius),
                                         color: paint.withAlpha(paint.alpha * factor * a), transform: world))
            case .mask(let mask)?:
                guard let (texture, rect) = try compositor.effects.maskShadow(node, mask, stats: &stats) else { return }
                try pass.addTexture(texture, in: rect, transform: world, source: Rect(x: 0, y: 0, width: 1, height: 1), clamp: nil,
                                    alpha: a, channels: nil, minFilter: .linear, magFilter: .linear, isOpaque: false)
            default:
                return
            }
        case .backdrop:
            guard let box = item.bounds else { return }
            // (A group's backdrop is drawn in its parent's pass, at the group's opacity.)
            let alpha = node.isGroup ? node.inheritedAlpha * RenderTree.opacity(of: layer) : a
            try compositor.effects.drawBackdrop(node, box: box, world: world, alpha: alpha, pass: pass, offset: offset, stats: &stats)
            pass.cutPlanes = []
            cutting = false
        case .replicas:
            // The sublayers' image, once per instance (transformed, tinted).
            guard let style = layer.properties.replicator,
                  let (texture, rect) = try compositor.compositeImage(RenderTree.replicaSurfaceID(of: layer.id), scale: scale,
                                                                      within: groupLimit, stats: &stats) else { return }
            pass.cutPlanes = []
            cutting = false
            defer { pass.tint = .white }
            for (k, m) in RenderTree.instanceTransforms(node).enumerated() {
                pass.tint = style.color(of: k)
                let filter: TextureFilter = m.isIdentity ? .nearest : .linear
                try pass.draw(texture, in: rect, alpha: a, minFilter: filter, magFilter: filter, transform: m.isIdentity ? offset : m.concatenating(offset))
            }
        case .gradient:
            guard let texture = try compositor.effects.gradient(node, scale: scale) else { return }
            try pass.addTexture(texture, in: layer.bounds, transform: world, source: Rect(x: 0, y: 0, width: 1, height: 1), clamp: nil,
                                alpha: a, channels: nil, minFilter: .linear, magFilter: .linear, isOpaque: false)
        case .background, .border:
            let border = item.slot == .border ? layer.borderWidth : 0
            guard let base = item.slot == .border ? layer.borderColor : layer.backgroundColor else { return }
            let color = base.withAlpha(base.alpha * a)
            if layer.cornerRadius > 0 || border > 0 {
                try pass.add(Quad(layer.bounds, transform: world,
                                  paint: .roundedRect(color: color, cornerRadius: layer.cornerRadius, borderWidth: border)))
            } else {
                try pass.addSolid(color, in: layer.bounds, transform: world, isOpaque: color.alpha >= 1)
            }
        case .contents:
            if let fade = layer.properties.contentsFade {
                // A cross-fade: its two contents mixed offscreen, composited as one image.
                guard let bounds = item.bounds,
                      let (texture, rect) = try compositor.contentsMix(node, fade: fade, box: bounds, scale: scale, within: groupLimit,
                                                                             stats: &stats)
                else { return }
                pass.cutPlanes = []
                cutting = false
                try pass.draw(texture, in: rect, alpha: a, minFilter: .nearest, magFilter: .nearest, transform: offset)
                break
            }
            guard let contents = layer.contents else { return }
            let place: ContentPlace
            if let cached = item.place {
                place = cached
            } else {
                guard let found = try compositor.place(for: contents) else { return }
                place = found
                // Kept until the contents change (a borrowed texture, which may be released, is asked each time).
                switch contents {
                case .texture, .external: break   // an external buffer's acquire fence is waited for at each use
                default: surface.items[index].place = found
                }
            }
            // Opaque contents at full opacity replace what is below: drawn without blending.
            try SurfaceDrawer.addContents(place, of: layer, frame: item.frame, contentSize: item.contentSize, world: world, alpha: a,
                                          opaque: a >= 1 && contents.isOpaque, pass: pass, pieces: &pieces)
        case .group:
            return
        }
        stats.quadsDrawn += 1
    }

    /// Adds the quads of contents kept at `place`, drawn into `frame` of a layer in state
    /// `layer` (its contentsRect, contentsCenter, filters) — one quad, or nine slices.
    static func addContents(_ place: ContentPlace, of layer: LayerState, frame: Rect, contentSize: Size, world: Transform3D,
                            alpha a: Double, opaque: Bool, pass: RenderPass, pieces: inout [Quad]) throws {
        let texture: Texture, source: Rect, clamp: Rect?, channels: PixelByteOrder?
        switch place {
        case .texture(let own):
            (texture, source, clamp, channels) = (own, layer.contentsRect, nil, nil)
        case .atlas(let entry, let uv, let entryClamp):
            // Clamped to the whole entry (as CLAMP_TO_EDGE on a texture of its own).
            let r = layer.contentsRect
            let s = Rect(x: uv.origin.x + r.origin.x * uv.size.width, y: uv.origin.y + r.origin.y * uv.size.height,
                         width: r.size.width * uv.size.width, height: r.size.height * uv.size.height)
            (texture, source, clamp, channels) = (entry.page, s, entryClamp, entry.byteOrder)
        }
        if layer.contentsCenter == Rect(x: 0, y: 0, width: 1, height: 1) {
            try pass.addTexture(texture, in: frame, transform: world, source: source, clamp: clamp, alpha: a,
                                channels: channels, minFilter: layer.minificationFilter, magFilter: layer.magnificationFilter,
                                isOpaque: opaque)
        } else {
            Quad.appendNineSlice(to: &pieces, texture: texture, in: frame, source: source, center: layer.contentsCenter,
                                 contentSize: contentSize, clamp: clamp, alpha: a, channels: channels,
                                 minFilter: layer.minificationFilter, magFilter: layer.magnificationFilter,
                                 transform: world, isOpaque: opaque)
            defer { pieces.removeAll(keepingCapacity: true) }
            try pass.draw(pieces)
        }
    }

    /// Group images are limited to the root target's pixels.
    private var groupLimit: PixelSize { compositor.rootPixelSize ?? pass.target.pixelSize }

    mutating func finish() throws {
        try setClips(nil)
        pass.cutPlanes = []
        cutting = false
    }
}

extension RenderTarget {
    /// The target's pixels covering `rect` (points), rounded out, top-left origin.
    func pixelRect(covering rect: Rect) -> PixelRect {
        let x0 = max(0, Int((rect.minX * scale).rounded(.down))), y0 = max(0, Int((rect.minY * scale).rounded(.down)))
        let x1 = min(pixelSize.width, Int((rect.maxX * scale).rounded(.up))), y1 = min(pixelSize.height, Int((rect.maxY * scale).rounded(.up)))
        return PixelRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }
}

/// Where a content's pixels are kept on the GPU.
enum ContentPlace {
    /// A texture of its own (large contents, and textures shown as contents).
    case texture(Texture)
    /// A place in the compositor's atlas (small contents), with its page coordinates and
    /// clamp rectangle worked out once.
    case atlas(AtlasEntry, uv: Rect, clamp: Rect)
}

extension ContentRef {
    /// Every pixel is opaque (alpha 1).
    var isOpaque: Bool {
        switch self {
        case .image(let i): return i.isOpaque
        case .store(let s): return s.isOpaque
        case .texture: return false
        case .external(let e): return e.buffer.isOpaque
        }
    }
}

/// Counts hand-backs in flight (shared with the threads that wait for their fences).
final class HandBackCounter: Sendable {
    let count = Atomic<Int>(0)
}

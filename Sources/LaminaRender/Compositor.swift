import FoundationEssentials
import Glibc
import LaminaGeometry
import LaminaGPU
import LaminaValues

/// Composites a render tree into render targets. It keeps its own copy of the tree (a
/// `RenderTree`, brought up to date by each commit's `RenderUpdate`: it never sees a layer)
/// and every GPU resource: the textures of the contents shown (freed the moment no layer
/// shows them), the images of groups, masks and effects. Each frame is built as a value
/// (`Frame`: damage region, render tasks, draws) and run by an executor through a pass
/// encoder.
///
/// A compositor is used from one thread at a time: the main actor's, or a `RenderThread`'s,
/// which then owns it and its device.
public final class Compositor: @unchecked Sendable {
    public let device: GPUDevice
    public private(set) var lastFrame = FrameStatistics()

    /// The renderer's copy of the tree it composites (nil until it adopts one).
    public internal(set) var tree: RenderTree?
    /// Works out the frames of `tree`.
    private(set) var builder: FrameBuilder?
    let contents: ContentCache
    let encoder: GLPassEncoder
    /// The last frame built (tests read it: its tasks, draws and damage).
    package private(set) var lastBuiltFrame: Frame?

    /// Contents at most this many pixels on a side (images and backing stores) are kept in a
    /// shared texture atlas, so that layers showing different ones still draw in one batch;
    /// larger ones get a texture of their own. 0 turns the atlas off. Changing it once
    /// contents are shown places them again (the next render starts from a new snapshot).
    public var atlasEntrySide = 256 {
        didSet {
            contents.atlasEntrySide = atlasEntrySide
            if atlasEntrySide != oldValue && contents.count > 0 { releaseResources() }
        }
    }
    /// The next frame redraws the whole target.
    private var forceFull = true
    private(set) weak var lastTarget: RenderTarget?
    private var lastBackground: Color??
    /// An error of applying an update (an upload that failed), thrown by the next render.
    var deferredError: Error?
    /// CPU time spent applying updates since the last frame, and layer states received.
    private var applyTime = 0.0
    private var statesApplied = 0
    /// The damage of the last frames drawn, for targets whose buffers rotate.
    private var damageRing = DamageRing()
    /// The last damage painted over for `showsDamage`, to be drawn again without it.
    private var lastDamageFlash: DamageRegion?
    /// Transitions' old pictures (Transitions.swift): their place and opacity, by transition.
    var transitionPictures: [UInt64: (rect: Rect, opacity: Double)] = [:]
    var transitionsSeen: Set<UInt64> = []
    /// Replicators whose delayed instances' images the encoder holds, with their count.
    var delayedReplicators: [LayerID: Int] = [:]

    public init(device: GPUDevice) {
        self.device = device
        let caps = device.capabilities
        timesGPU = caps.timerQueries && !caps.isSoftwareRasterizer && device.ownership != .adopt
        contents = ContentCache(device: device, atlasEntrySide: 256)
        encoder = GLPassEncoder(device: device, contents: contents)
    }

    /// Contents the compositor holds on the GPU (images and backing stores, in a texture of
    /// their own or in the atlas).
    public var cachedTextureCount: Int { contents.count }
    /// How the atlas is used (nil: not made yet).
    public var atlasStatistics: TextureAtlas.Statistics? { contents.atlasStatistics }
    /// Images kept between frames (groups, masks, shadows, gradients, mixes) and scratch.
    public var liveImageCount: Int { encoder.liveTargets }
    /// External buffers no layer shows any more, waiting for the GPU before they are handed back.
    public var externalBuffersAwaitingRelease: Int { contents.awaitingRelease }

    // MARK: Updates

    /// Takes `tree` (a snapshot) as the tree it composites, with the pixels of its backing
    /// stores; the next frame redraws the whole target.
    package func adopt(_ tree: RenderTree, uploads: [ContentUpload]) {
        contents.releaseContents()
        encoder.releaseAll()
        // The old tree's buffers are handed back after the new tree's are held (a buffer in
        // both stays read throughout).
        let old = contents.externalsHeld
        self.tree = tree
        builder = FrameBuilder(tree: tree, maximumImageSide: device.capabilities.maxRenderTargetSize)
        contents.hold(tree.takeNewExternals())
        let gone = old.filter { contents.externalsHeld[$0.key] !== $0.value }
        if !gone.isEmpty { contents.handBack(Array(gone.values)) }
        for u in uploads { receive(u) }
        drawGL(tree.takeGLDraws(), always: false, at: MediaClock.now())
        transitionPictures = [:]
        transitionsSeen = []
        forceFull = true
    }

    /// Applies a commit's update to the tree and the textures.
    package func apply(_ update: RenderUpdate) {
        guard let tree else { return }
        var clock = PhaseClock()
        captureTransitions(in: update)   // (before the update: the layers as they were)
        tree.apply(update)
        contents.hold(tree.takeNewExternals())
        drawGL(tree.takeGLDraws(), always: false, at: MediaClock.now())
        if !transitionsSeen.isEmpty { releaseEndedTransitions() }
        statesApplied += update.layerCount
        for upload in update.uploads where tree.contentUsers[.store(upload.store.id)] != nil {
            receive(upload)
            tree.notePixels(of: upload.store, in: upload.region)
        }
        contents.free(tree.takeUnusedContents())
        applyTime += clock.lap()
    }

    /// Runs GL layers' drawing (GLContents.swift); an error is thrown by the next frame.
    private func drawGL(_ refs: [GLContentRef], always: Bool, at time: Double) {
        guard !refs.isEmpty else { return }
        do {
            try device.withContext {
                for g in refs { try contents.drawGL(g, mediaTime: time, always: always) }
            }
        } catch {
            deferredError = deferredError ?? error
        }
    }

    private func receive(_ upload: ContentUpload) {
        do { try contents.receive(upload) } catch { deferredError = deferredError ?? error }
    }

    // MARK: Frames

    /// Whether the tree's animations will show something else at a later frame (the host
    /// keeps compositing, at the frame clock's rate, while this is true).
    public internal(set) var hasRunningAnimations = false
    /// The media time the last frame's animations were evaluated at (nil: none yet).
    public private(set) var lastFrameMediaTime: Double?

    /// Times each frame's pass on the GPU (timer queries, where the driver has them):
    /// `FrameStatistics.timings.gpu` is then the latest time that has come in. On by default
    /// where supported, except on a host's adopted context and on software rasterizers.
    public var timesGPU: Bool

    /// Debugging aid: paints each frame's damage rectangles in translucent green over the
    /// output (the next frame removes them). Defaults to `LAMINA_SHOW_DAMAGE=1`.
    public var showsDamage = ProcessInfo.processInfo.environment["LAMINA_SHOW_DAMAGE"] == "1"
    /// A damage flash is on the target: the next frame must remove it, changes or not.
    public var showsDamageFlash: Bool { lastDamageFlash != nil }

    /// Composites the tree it holds at the media clock's time into `target`, cleared to
    /// `background` first (nil: over what the target holds, a host's frame). Only the damage
    /// — the boxes of what changed, before and after, as a few rectangles — is cleared and
    /// drawn, each rectangle scissored; the target keeps the rest (as far as its buffer age
    /// allows). Nothing changed: nothing is drawn (`skipped`) unless `always` (a host
    /// compositing every frame: the whole target from the items kept). `overlays` are drawn
    /// last over the whole target (debugging aids). Any thread that owns the compositor.
    package func renderFrame(to target: RenderTarget, background: Color?, always: Bool,
                             overlays: [(rect: Rect, color: Color, transform: Transform3D)], clock: PhaseClock,
                             recovered: Bool) throws -> FrameStatistics {
        var clock = clock
        if let error = deferredError { deferredError = nil; throw error }
        guard let tree, let builder else { return FrameStatistics(skipped: true) }
        var timings = FrameTimings()
        timings.commit = clock.lap() + applyTime
        applyTime = 0
        let committed = statesApplied
        statesApplied = 0
        let newTarget = lastTarget !== target || lastBackground != .some(background)
        if newTarget { damageRing.removeAll() }
        advance(tree)
        var update = builder.update(size: target.size)
        if renderDelayedInstances(tree, on: target) {
            // Replicators whose delayed instances were rendered (from this frame's placement):
            // their instances' boxes are worked out again.
            let again = builder.update(size: target.size)
            update.damage += again.damage
            update.layersVisited += again.layersVisited
        }
        var own = DamageRegion()
        for box in update.damage {
            if let px = box.pixelsCovering(scale: target.scale, limit: target.pixelSize) { own.add(px) }
        }
        var reason: FullFrameReason?
        if update.rebuildReason != nil { reason = .rebuilt } else if newTarget { reason = .newTarget } else if forceFull { reason = .requested }
        forceFull = false
        // What this frame itself changed (the ring remembers it): all of it, or its damage.
        let ownIsEverything = reason != nil
        // A swapchain presents only frames that change something: with nothing new, its
        // consumer already shows the latest frame, and no buffer is used.
        let unchanged = reason == nil && own.isEmpty && lastDamageFlash == nil && !always && overlays.isEmpty
        if !(unchanged && target.presentsChangesOnly) {
            do { try target.frameWillBegin() } catch {
                forceFull = true   // this frame's changes are drawn by the next one
                throw error
            }
        }
        var damage: DamageRegion?
        if reason == nil, !(unchanged && target.presentsChangesOnly), let has = target.ownStencilAttached, has != builder.targetUsesStencil {
            // Lamina's own target keeps its depth/stencil buffer exactly while its items
            // clip; when that changes, all of it is drawn under the new rasterization.
            reason = .stencilChanged
        }
        (damage, reason) = damageToDraw(own: own, reason: reason, unchanged: unchanged, target: target,
                                        drawsWhole: always || background == nil || !overlays.isEmpty)
        lastTarget = target
        lastBackground = .some(background)
        timings.build = clock.lap()
        var stats: FrameStatistics
        if let d = damage, d.isEmpty {
            // Nothing drawn: no buffer used, nothing for the ring.
            stats = FrameStatistics(skipped: true)
            lastDamageFlash = nil
            _ = d
            try target.frameDidEnd(drawn: false, damage: nil, repainted: nil)
        } else {
            let request = FrameBuilder.FrameRequest(size: target.size, scale: target.scale, pixelSize: target.pixelSize,
                                                    damage: damage, fullFrameReason: reason, background: background)
            // The last frame's draw list (kept for tests until now) lends its storage to this one's.
            if var last = lastBuiltFrame {
                lastBuiltFrame = nil
                builder.recycle(&last)
            }
            stats = try draw(builder.makeFrame(request, update: update), on: target, own: own, ownIsEverything: ownIsEverything,
                             overlays: overlays)
            timings.execute = clock.lap()
            if timesGPU { timings.gpu = device.latestGPUDuration.map { Double($0) / 1e9 } }
            stats.reusedRenderList = always && update.rebuildReason == nil && update.layersVisited == 0
            stats.fullFrameReason = reason
            stats.rebuildReason = update.rebuildReason
        }
        stats.timings = timings
        stats.recoveredFromContextLoss = recovered
        stats.textureBytesUploaded += contents.uploadedBytes
        contents.uploadedBytes = 0
        stats.layersVisited = update.layersVisited
        stats.layersCommitted = committed
        lastFrame = stats
        return stats
    }

    /// What the tree shows at this frame: each animating layer at the media clock's time;
    /// transitions that ended let go; imports of buffers their producers freed.
    private func advance(_ tree: RenderTree) {
        if !tree.animated.isEmpty || hasRunningAnimations || !tree.glAsynchronous.isEmpty || !tree.animatingShaders.isEmpty {
            let now = MediaClock.now()
            hasRunningAnimations = tree.advanceAnimations(to: now)
            lastFrameMediaTime = now
        }
        if !tree.animatingShaders.isEmpty {
            // Shader layers that read `lamina_time`: drawn at every frame.
            hasRunningAnimations = tree.advanceAnimatingShaders() || hasRunningAnimations
        }
        if !tree.glAsynchronous.isEmpty {
            // GL layers drawn at every frame (`isAsynchronous`): the host keeps compositing.
            let now = lastFrameMediaTime ?? MediaClock.now()
            drawGL(tree.redrawAsynchronousGL(), always: true, at: now)
            hasRunningAnimations = hasRunningAnimations || !tree.glAsynchronous.isEmpty
        }
        if !transitionsSeen.isEmpty { releaseEndedTransitions() }
        if !contents.externalsHeld.isEmpty { device.sweepExternalImports() }
    }

    /// Draws a built frame on the target and ends the target's frame; `own` is what this
    /// frame itself changed (all of the target where `ownIsEverything`), for the damage
    /// ring, the damage flash and the target's record.
    private func draw(_ frame: Frame, on target: RenderTarget, own: DamageRegion, ownIsEverything: Bool,
                      overlays: [(rect: Rect, color: Color, transform: Transform3D)]) throws -> FrameStatistics {
        lastBuiltFrame = frame
        damageRing.push(ownIsEverything ? DamageRegion([target.pixelSize.asTargetPixels]) : own)
        let flash = showsDamage ? own : nil
        let stats: FrameStatistics
        do {
            encoder.mediaTime = lastFrameMediaTime ?? MediaClock.now()
            stats = try device.withContext {
                do { return try execute(frame, on: target, overlays: overlays, flash: flash) } catch {
                    encoder.abandonOpenPass()
                    throw error
                }
            }
        } catch {
            // Nothing was presented: its damage leaves the ring, the next frame draws whole,
            // and every image is made again.
            damageRing.dropNewest()
            forceFull = true
            builder?.forgetKeptImages()
            target.frameFailed()
            throw error
        }
        lastDamageFlash = flash.flatMap { $0.isEmpty ? nil : $0 }
        let ownBox = own.bounds.map { $0.targetBox(scale: target.scale).targetRect } ?? .zero
        try target.frameDidEnd(drawn: true, damage: ownIsEverything ? Rect(origin: .zero, size: target.size) : ownBox,
                               repainted: stats.damagedRect)
        return stats
    }

    /// The pixels a frame draws (nil: all of them, for the reason returned): this frame's
    /// own damage, grown by what the target's buffer missed. A buffer `age` frames old misses
    /// the changes of the frames drawn since (and, with `showsDamage`, still shows the flash
    /// of the frame it holds); of unknown age, or covered by the host every frame
    /// (`drawsWhole`), it is redrawn whole.
    private func damageToDraw(own: DamageRegion, reason: FullFrameReason?, unchanged: Bool, target: RenderTarget,
                              drawsWhole: Bool) -> (DamageRegion?, FullFrameReason?) {
        guard reason == nil else { return (nil, reason) }
        var damage: DamageRegion? = own, reason: FullFrameReason?
        let age = target.bufferAge
        let missed = showsDamage || lastDamageFlash != nil ? age : age - 1
        if drawsWhole {
            if !(unchanged && target.presentsChangesOnly) { damage = nil; reason = .drawsEveryFrame }
        } else if !unchanged || !target.presentsChangesOnly {
            if age > 0, let history = damageRing.accumulated(missed) {
                damage = own.union(history)
            } else {
                damage = nil
                reason = .bufferAge
            }
        }
        if let d = damage, Double(d.area) > 0.5 * Double(target.pixelSize.asTargetPixels.area) { return (nil, .damageCoversMost) }
        return (damage, reason)
    }

    /// Runs a frame on the target (the device's context current) and counts its work.
    private func execute(_ frame: Frame, on target: RenderTarget, overlays: [(rect: Rect, color: Color, transform: Transform3D)],
                         flash: DamageRegion?) throws -> FrameStatistics {
        var stats = FrameStatistics()
        let callsBefore = device.drawCalls, bytesBefore = device.uploadedBytes
        let uploadedBefore = contents.uploadedBytes
        encoder.target = target
        encoder.timesGPU = timesGPU
        encoder.resetCounters()
        var extra: [DrawItem] = []
        for o in overlays {
            extra.append(DrawItem(clip: nil, cuts: [], op: .solid(o.rect, transform: o.transform.concatenating(.flatten), color: o.color,
                                                                 opaque: false)))
        }
        for r in flash?.rects ?? [] {
            extra.append(DrawItem(clip: nil, cuts: [], op: .solid(r.targetBox(scale: target.scale).targetRect, transform: .identity,
                                                                 color: Color(red: 0, green: 1, blue: 0, alpha: 0.25), opaque: false)))
        }
        try target.setOwnStencil(frame.target.usesStencil)
        var executor = FrameExecutor(encoder: encoder)
        try executor.run(frame, overlays: extra)
        encoder.trim()
        stats.quadsDrawn = executor.quads
        stats.offscreenPasses = encoder.offscreenPasses
        stats.blurs = encoder.blurs
        stats.renderTasks = encoder.tasks
        stats.drawCalls = device.drawCalls - callsBefore
        stats.textureBytesUploaded = device.uploadedBytes - bytesBefore - (contents.uploadedBytes - uploadedBefore)
        if frame.isFull {
            stats.damagedRect = Rect(origin: .zero, size: target.size)
            stats.damageRects = [stats.damagedRect]
        } else {
            stats.damageRects = frame.damage.rects.map { $0.targetBox(scale: target.scale).targetRect }
            stats.damagedRect = frame.damage.bounds.map { $0.targetBox(scale: target.scale).targetRect } ?? .zero
        }
        return stats
    }

    /// Forgets the last frame, so the next render redraws the whole target.
    public func forgetLastFrame() { forceFull = true }

    // MARK: Context loss and release

    /// The context generation the compositor's GPU objects were made in.
    private var contextGeneration: Int?
    /// Called when a render finds the context lost (a GPU reset the driver reported, or
    /// `GPUDevice.simulateContextLoss()`), once the device has a new context (and before the
    /// frame is drawn); the error says what the driver reported. Objects you made on the
    /// device are gone: make them again here. On a host's context, which Lamina cannot
    /// re-create, it is called and the render throws.
    public var contextLossHandler: ((GPUError) -> Void)?

    /// Runs one frame's work (`body`, told whether the context was just recovered) in one GL
    /// scope with the check for a lost context, so a frame makes the context current once
    /// (each eglMakeCurrent and its release cost about 2 000 instructions on Mesa). When the
    /// context was lost, or the target or compositor must catch up with a new context, the
    /// scope is left first: recovery (`recoverIfContextLost`) re-creates the context, which
    /// cannot happen inside a scope; then `body` runs as before.
    package func inFrameScope<T>(on target: RenderTarget, _ body: (_ recovered: Bool) throws -> T) throws -> T {
        var result: T?
        try device.withContext {
            do { try device.checkContext() } catch let error as GPUError {
                guard case .contextLost = error else { throw error }
                return
            }
            guard contextGeneration == device.contextGeneration, !target.isLost else { return }
            result = try body(false)
        }
        if let result { return result }
        return try body(try recoverIfContextLost(target))
    }

    /// At each frame boundary: when the context was lost, recovers — the device's context is
    /// made again (own contexts; a host's throws), the compositor forgets every GPU object,
    /// the target makes its storage again if it owns it, and the tree is dropped (the caller
    /// hands it a new snapshot, every content uploaded again). Returns whether it recovered.
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
            damageRing.removeAll()
            deferredError = nil   // uploads into the lost objects: everything is uploaded again
        }
        if target.isLost { try device.withContext { try target.restoreAfterContextLoss() }; lost = true }
        // Told once the device works again: what the handler makes is in the new context.
        if let report { contextLossHandler?(report) }
        return lost
    }

    /// Frees every GPU object the compositor holds (content textures, images) and drops the
    /// tree (the next render starts from a new snapshot).
    public func release() {
        releaseResources()
    }

    /// `release()`, on the thread that owns the compositor.
    package func releaseResources() {
        contents.handBackAll(waiting: true)
        contents.releaseContents()
        device.sweepExternalImports()   // imports of buffers their producers freed
        encoder.releaseAll()
        transitionPictures.removeAll()
        transitionsSeen.removeAll()
        tree = nil
        builder = nil
        forgetLastFrame()
    }
}

import LaminaGeometry
import LaminaGPU
import LaminaValues

/// What building one frame collects (reset for each frame).
struct FrameState {
    var size = Size.zero
    var scale = 1.0
    var pixelSize = PixelSize(width: 0, height: 0)
    var tasks: [RenderTask] = []
    /// Images drawn or made this frame.
    var used: Set<ImageKey> = []
    /// Surfaces' images worked out this frame (nil inside: nothing to draw).
    var surfaceImages: [SurfaceID: (key: ImageKey, rect: Rect)?] = [:]
    var clips: [ClipEntry] = []
    var clipIndex: [ObjectIdentifier: Int] = [:]
    /// Clip chains made for one draw (kept alive for the frame: their identity indexes `clipIndex`).
    var madeClips: [ClipChain] = []
    var everything: TargetBox { TargetBox(minX: 0, minY: 0, maxX: size.width, maxY: size.height) }
}

/// Resolves items into draws: what an item kind's `draw` adds to, with the render tasks it
/// needs (surfaces' images, mixes, blurs, gradients).
struct DrawBuilder {
    unowned let builder: FrameBuilder
    var draws: [DrawItem] = []

    /// A builder for about `capacity` draws (reserved: a frame's draw list is not grown
    /// by copying it over and over) — the target pass's in the storage of an earlier
    /// frame's (`FrameBuilder.recycle(_:)`).
    init(builder: FrameBuilder, capacity: Int = 0, forTarget: Bool = false) {
        self.builder = builder
        if forTarget { draws = builder.takeSpareDraws() }
        draws.reserveCapacity(capacity)
    }

    var everything: TargetBox { builder.current.everything }
    var scale: Double { builder.current.scale }
    var frameSerial: Int { builder.frameSerial }
    var maximumImageSide: Int { builder.maximumImageSide }

    /// Adds a draw of `item` (its clip; its layer's depth cuts unless `cuts` says otherwise).
    mutating func add(_ op: DrawOp, for item: Item, cuts: [HalfPlane]? = nil, isLayerQuad: Bool = true) {
        add(op, clip: item.clip, cuts: cuts ?? item.node.cutPlanes, isLayerQuad: isLayerQuad)
    }

    mutating func add(_ op: DrawOp, clip: ClipChain?, cuts: [HalfPlane], isLayerQuad: Bool = true) {
        draws.append(DrawItem(clip: clip.map { builder.clipIndex(for: $0) }, cuts: cuts, op: op, isLayerQuad: isLayerQuad))
    }

    func surfaceImage(_ id: SurfaceID) -> (key: ImageKey, rect: Rect)? { builder.surfaceImage(id) }
    func needsImage(_ key: ImageKey, pixels: TargetPixels, stamp: [Double]) -> Bool {
        builder.needsImage(key, pixels: pixels, scale: scale, stamp: stamp)
    }
    func version(of key: ImageKey) -> Int { builder.version(of: key) }
    func addTask(_ output: ImageKey, _ kind: RenderTask.Kind) { builder.addTask(output, kind) }
    func gradientImage(of node: RenderNode) -> ImageKey? { builder.gradientImage(of: node) }
    func pathShadow(of node: RenderNode, _ mask: ShadowMask) -> (ImageKey, Rect)? { builder.pathShadow(of: node, mask) }
    /// The target's pixels covering `box`, clamped to the target.
    func imagePixels(covering box: TargetBox) -> TargetPixels? {
        box.pixelsCovering(scale: scale, limit: builder.current.pixelSize)
    }
}

extension BoundsContext {
    /// Whether any of `rect` (the node's bounds space) is in front of the eye at every level.
    func inFront(_ node: RenderNode, _ rect: Rect) -> Bool {
        node.depthCuts.isEmpty || !node.depthCuts.contains { $0.excludes(rect) }
    }

    /// The box of a node's bounds (nil: behind the eye).
    func layerBox(_ node: RenderNode) -> TargetBox? {
        let b = node.state.bounds
        guard inFront(node, b) else { return nil }
        return TargetBox.of(layerRect: b, through: node.world, everything: everything)
    }
}

// Resolving a frame: the surfaces' images (deepest first), then the target's items meeting
// each damage rectangle, in paint order, into draws.
extension FrameBuilder {
    /// What a frame is built for.
    struct FrameRequest {
        var size: Size
        var scale: Double
        var pixelSize: PixelSize
        /// The target's pixels to draw (nil: all of them).
        var damage: DamageRegion?
        var fullFrameReason: FullFrameReason?
        var background: Color?
    }

    /// Some item of the target's is drawn inside a stencil clip (`TargetPass.usesStencil`).
    var targetUsesStencil: Bool { (target?.stencilItems ?? 0) > 0 }

    /// Resolves the frame: tasks, the target's draws for the damage, the images released.
    func makeFrame(_ request: FrameRequest, update: Update) -> Frame {
        frameSerial += 1
        current = FrameState(size: request.size, scale: request.scale, pixelSize: request.pixelSize)
        var runs: [DrawRun] = []
        var damage = request.damage ?? DamageRegion([TargetPixels(x: 0, y: 0, width: request.pixelSize.width, height: request.pixelSize.height)])
        if !damage.isEmpty || request.damage == nil {
            renderDirtySurfaces()
        }
        if let target {
            if request.damage == nil {
                var draws = DrawBuilder(builder: self, capacity: target.items.count, forTarget: true)
                target.items.forEach { item in if item.bounds != nil { item.kind.draw(item, into: &draws) } }
                runs = [DrawRun(scissor: nil, draws: draws.draws)]
            } else if !damage.isEmpty {
                damage = grownForBackdrops(damage, target)
                runs = damage.rects.map { rect in DrawRun(scissor: rect, draws: draws(of: target, meeting: rect)) }
            }
        }
        var frame = Frame(targetSize: request.size, scale: request.scale, pixelSize: request.pixelSize,
                          isFull: request.damage == nil, fullFrameReason: request.fullFrameReason, rebuildReason: update.rebuildReason,
                          damage: damage, layersVisited: update.layersVisited, target: TargetPass(background: request.background, runs: runs))
        frame.target.usesStencil = targetUsesStencil
        frame.tasks = current.tasks
        frame.clips = current.clips
        frame.releasedImages = releasedImages()
        current.madeClips = []
        return frame
    }

    /// Takes the frame's largest draw list back once it ran, emptied, for the next frame's
    /// target pass: its storage (a few hundred bytes a draw: 0.3 MB for 1000 layers) is
    /// not allocated and faulted in again every frame.
    func recycle(_ frame: inout Frame) {
        guard let i = frame.target.runs.indices.max(by: { frame.target.runs[$0].draws.capacity < frame.target.runs[$1].draws.capacity })
        else { return }
        var list: [DrawItem] = []
        swap(&list, &frame.target.runs[i].draws)
        guard list.capacity > spareDraws.capacity else { return }
        list.removeAll(keepingCapacity: true)
        spareDraws = list
    }

    /// The spare draw list (empty, with the capacity of an earlier frame's), or a new one.
    func takeSpareDraws() -> [DrawItem] {
        var list: [DrawItem] = []
        swap(&list, &spareDraws)
        return list
    }

    /// The draws of the target's items meeting `rect`, in paint order (from the grid).
    private func draws(of target: Surface, meeting rect: TargetPixels) -> [DrawItem] {
        if target.grid == nil {
            var grid = Grid(size: current.size)
            target.items.forEach { grid.insert($0) }
            target.grid = grid
        }
        let box = rect.targetBox(scale: current.scale)
        // Only items whose boxes meet the damage, kept before the sort: the cells a small
        // damage touches hold many items it misses.
        var found: [Item] = []
        target.grid!.query(box, into: &found) { $0.bounds?.intersects(box) == true }
        found.sort { $0.key < $1.key }
        var draws = DrawBuilder(builder: self, capacity: found.count, forTarget: true)
        var last: Item?
        for item in found where item !== last {
            last = item
            item.kind.draw(item, into: &draws)
        }
        return draws.draws
    }

    /// Damage grown for backdrop blurs: a backdrop whose blur reaches into the damage shows
    /// something new, and drawing it needs what lies under it within the blur's reach drawn
    /// again too — so the damage takes in the layer's box grown by that reach (and again,
    /// for backdrops the grown damage now reaches).
    private func grownForBackdrops(_ damage: DamageRegion, _ target: Surface) -> DamageRegion {
        guard !target.backdrops.isEmpty else { return damage }
        var d = damage
        var pending = Array(target.backdrops.values)
        var grew = true
        while grew {
            grew = false
            pending.removeAll { item in
                guard let b = item.bounds else { return true }
                let reach = BackdropItem.reach(of: item)
                guard let px = b.grown(by: reach).pixelsCovering(scale: current.scale, limit: current.pixelSize) else { return true }
                guard d.intersects(px) else { return false }
                d.add(px)
                grew = true
                return true
            }
        }
        return d
    }

    /// The index of a clip chain's stencil level in the frame's clip table (added with the
    /// levels under it when first used). A run of axis-aligned rectangles is one level; two
    /// links standing for the same rectangle over the same levels are the same entry.
    func clipIndex(for chain: ClipChain) -> Int {
        if let i = current.clipIndex[ObjectIdentifier(chain)] { return i }
        let parent = chain.stencilParent.map { clipIndex(for: $0) }
        let entry: ClipEntry
        if let r = chain.rect {
            if let same = current.clips.lastIndex(where: { $0.isTargetRect && $0.rect == r && $0.parent == parent }) {
                current.clipIndex[ObjectIdentifier(chain)] = same
                current.madeClips.append(chain)
                return same
            }
            entry = ClipEntry(parent: parent, depth: chain.stencilDepth, rect: r, corners: .square, transform: .identity, cuts: [],
                              isTargetRect: true)
        } else {
            let n = chain.node
            entry = ClipEntry(parent: parent, depth: chain.stencilDepth, rect: n.state.bounds, corners: n.state.cornerShape,
                              transform: n.world, cuts: n.cutPlanes, isTargetRect: false)
        }
        current.clips.append(entry)
        current.clipIndex[ObjectIdentifier(chain)] = current.clips.count - 1
        current.madeClips.append(chain)
        return current.clips.count - 1
    }
}

import LaminaGeometry
import LaminaGPU

/// What one composite cost.
public struct FrameStatistics: Equatable, Sendable, CustomStringConvertible {
    /// Layers looked at while building the render list.
    public var layersVisited = 0
    /// Quads of the tree drawn (backgrounds, contents, borders).
    public var quadsDrawn = 0
    /// All draw calls, including clip shapes and group composites.
    public var drawCalls = 0
    /// Offscreen passes (group opacity).
    public var offscreenPasses = 0
    /// Bytes uploaded to textures during the frame.
    public var textureBytesUploaded = 0
    /// The target area re-composited, in points (the whole target for now: damage-limited
    /// recomposition is a later step; zero when nothing changed).
    public var damagedRect = Rect.zero
    /// Whether the frame was skipped because nothing changed.
    public var skipped = false
    /// Whether an unchanged tree was drawn again from the last frame's render list
    /// (a host that composites every frame), without walking the tree.
    public var reusedRenderList = false
    /// Layers whose `layoutSublayers()` ran in the commit of this frame.
    public var layoutPasses = 0
    /// The draws of the commit of this frame: which layers, why, which rectangle.
    public var displays: [DisplayRecord] = []
    /// How many layers drew their content for this frame.
    public var layersDrawn: Int { displays.count }

    public static func == (a: FrameStatistics, b: FrameStatistics) -> Bool { a.description == b.description }

    public var description: String {
        var s = "layers \(layersVisited), quads \(quadsDrawn), draw calls \(drawCalls), offscreen passes \(offscreenPasses), uploaded \(textureBytesUploaded) B, damaged \(damagedRect.width)×\(damagedRect.height) pt"
        if layoutPasses > 0 || !displays.isEmpty { s += ", layouts \(layoutPasses), layers drawn \(layersDrawn)" }
        return s + (skipped ? " (skipped: no change)" : "")
    }
}

/// Composites a layer tree into render targets. It keeps its own copy of the tree (a
/// `RenderTree`, updated from each commit's `RenderUpdate`: the model never touches the
/// GPU) and every GPU resource: the textures of the contents shown (one per image or
/// backing store, shared by every layer showing it, freed the moment no layer shows it),
/// and the offscreen targets of group opacity.
@MainActor
public final class Compositor {
    public let device: GPUDevice
    public private(set) var lastFrame = FrameStatistics()

    /// The renderer's copy of the tree it composites (nil until the first render).
    public private(set) var tree: RenderTree?
    private var textures: [ContentKey: Texture] = [:]
    private var groupTargets: [OffscreenTarget] = []
    private var treeChanged = true
    private weak var lastTarget: RenderTarget?
    private var lastBackground: Color??
    /// The last frame's render list, drawn again when an unchanged tree must be drawn.
    private var lastList: RenderList?
    /// Bytes uploaded since the last frame (updates applied between frames).
    private var uploadedBetweenFrames = 0
    /// An error of applying an update (an upload that failed), thrown by the next render.
    private var deferredError: Error?

    public init(device: GPUDevice) { self.device = device }

    /// Textures the compositor holds for contents (images and backing stores).
    public var cachedTextureCount: Int { textures.count }

    /// Starts compositing `root`: a full snapshot of its tree (and the pixels of every
    /// backing store in it); later commits keep it up to date.
    private func attach(_ root: Layer) {
        releaseContents()
        tree = RenderTree(snapshotOf: root)
        Transaction.register(self)
        var stack = [root]
        while let l = stack.popLast() {
            if case .backingStore(let store)? = l.contents { receive(store.upload()) }
            stack += l.sublayers
        }
        treeChanged = true
        lastList = nil
    }

    /// Applies a commit's update to the tree and the textures (called by `Transaction`).
    func apply(_ update: RenderUpdate) {
        guard let tree else { return }
        if !tree.apply(update).isEmpty { treeChanged = true }
        for upload in update.uploads where tree.contentUsers[.store(upload.store.id)] != nil {
            receive(upload)
            treeChanged = true
        }
        freeUnusedContents()
    }

    /// Puts a backing store's pixels into its texture (made on a whole upload).
    private func receive(_ upload: ContentUpload) {
        let key = ContentKey.store(upload.store.id)
        do {
            if textures[key] == nil {
                guard upload.isFull else { return }   // not shown here yet: a whole one will come
                textures[key] = try device.makeTexture(pixelSize: upload.store.pixelSize, byteOrder: upload.store.isOpaque ? .bgrx : .bgra)
            }
            let before = device.uploadedBytes
            try upload.bytes.withUnsafeBytes { bytes in
                _ = try textures[key]!.upload(bytes, bytesPerRow: upload.rowBytes, region: upload.region)
            }
            uploadedBetweenFrames += device.uploadedBytes - before
        } catch {
            deferredError = deferredError ?? error
        }
    }

    private func freeUnusedContents() {
        guard let tree else { return }
        for key in tree.takeUnusedContents() {
            textures.removeValue(forKey: key)?.release()
        }
    }

    /// Composites `root` (placed in target points) into `target`, cleared to `background`
    /// first — or, with `background` nil, over what the target already holds (a host's
    /// frame). Changes made to the tree since the last commit are taken first (without
    /// layout or display: `Transaction.flush()` runs those). When neither the tree nor the
    /// target nor the background changed since the last call, nothing is drawn (the
    /// statistics say `skipped`, zero draw calls) unless `always` is set: then the last
    /// frame's render list is drawn again, without walking the tree (a host that redraws
    /// its framebuffer every frame). `overlays` are drawn last (debugging aids).
    @discardableResult
    public func render(_ root: Layer, to target: RenderTarget, background: Color? = .clear, always: Bool = false,
                       overlays: [(rect: Rect, color: Color, transform: Transform3D)] = []) throws -> FrameStatistics {
        Transaction.deliverChanges()
        if tree?.rootID != root.id { attach(root) }
        if let error = deferredError { deferredError = nil; throw error }
        let unchanged = !treeChanged && lastTarget === target && lastBackground == .some(background) && overlays.isEmpty
        if unchanged {
            guard always, let list = lastList else {
                lastFrame = FrameStatistics(skipped: true)
                return lastFrame
            }
            var stats = try execute(list, on: target, background: background)
            stats.reusedRenderList = true
            lastFrame = stats
            return stats
        }
        var list = tree!.buildList()
        for o in overlays { list.appendOverlay(rect: o.rect, color: o.color, transform: o.transform) }
        return try render(list, to: target, background: background, remember: overlays.isEmpty)
    }

    /// Draws a render list, always (e.g. one built with overlays).
    @discardableResult
    public func render(_ list: RenderList, to target: RenderTarget, background: Color? = .clear) throws -> FrameStatistics {
        try render(list, to: target, background: background, remember: false)
    }

    private func render(_ list: RenderList, to target: RenderTarget, background: Color?, remember: Bool) throws -> FrameStatistics {
        lastList = nil
        var stats = try execute(list, on: target, background: background)
        stats.layersVisited = list.layersVisited
        treeChanged = !remember
        lastTarget = target
        lastBackground = .some(background)
        if remember { lastList = list }
        lastFrame = stats
        return stats
    }

    /// Forgets the last frame, so the next `render` draws even if nothing changed.
    public func forgetLastFrame() { treeChanged = true; lastList = nil }

    /// Draws a render list into `target` (cleared to `background` first; nil: loaded).
    /// The whole frame runs in one scope of the device's context: on an adopted context,
    /// one capture and one restore of the host's GL state.
    public func execute(_ list: RenderList, on target: RenderTarget, background: Color? = .clear) throws -> FrameStatistics {
        let uploaded = uploadedBetweenFrames
        uploadedBetweenFrames = 0
        var stats = try device.withContext { try executeInContext(list, on: target, background: background) }
        stats.textureBytesUploaded += uploaded
        return stats
    }

    private func executeInContext(_ list: RenderList, on target: RenderTarget, background: Color?) throws -> FrameStatistics {
        var stats = FrameStatistics()
        let callsBefore = device.drawCalls, bytesBefore = device.uploadedBytes
        var passes = [try device.beginRenderPass(on: target, clear: background)]
        var groupsInUse: [OffscreenTarget] = []
        defer {
            // On an error part-way, give the group targets back to the pool (the open passes
            // are dropped; the next pass restores its own GL state).
            for t in groupsInUse { groupTargets.append(t) }
        }
        for command in list.commands {
            let pass = passes[passes.count - 1]
            switch command {
            case let .fill(rect, color, radius, border, transform, _):
                if radius > 0 || border > 0 {
                    try pass.fillRoundedRect(rect, cornerRadius: radius, borderWidth: border, color: color, transform: transform)
                } else {
                    try pass.fill(rect, color: color, transform: transform)
                }
                stats.quadsDrawn += 1
            case let .contents(contents, rect, sourceRect, center, contentSize, alpha, minFilter, magFilter, transform, _):
                guard let texture = try self.texture(for: contents) else { continue }
                if center == Layer.unitRect {
                    try pass.draw(texture, in: rect, sourceRect: sourceRect, alpha: alpha,
                                  minFilter: minFilter, magFilter: magFilter, transform: transform)
                } else {
                    try pass.drawNineSlice(texture, in: rect, sourceRect: sourceRect, center: center, contentSize: contentSize,
                                           alpha: alpha, minFilter: minFilter, magFilter: magFilter, transform: transform)
                }
                stats.quadsDrawn += 1
            case let .pushClip(rect, radius, transform):
                try pass.pushClip(rect, cornerRadius: radius, transform: transform)
            case let .popClip(rect, radius, transform):
                try pass.popClip(rect, cornerRadius: radius, transform: transform)
            case .beginGroup:
                let groupTarget = try takeGroupTarget(like: target)
                groupsInUse.append(groupTarget)
                passes.append(try device.beginRenderPass(on: groupTarget, clear: .clear))
                stats.offscreenPasses += 1
            case let .endGroup(opacity):
                pass.submit()
                passes.removeLast()
                let groupTarget = groupsInUse.removeLast()
                try passes[passes.count - 1].draw(groupTarget.texture!, in: Rect(origin: .zero, size: target.size),
                                                  alpha: opacity, minFilter: .nearest, magFilter: .nearest)
                groupTargets.append(groupTarget)
            }
        }
        precondition(passes.count == 1, "render list with unbalanced groups")
        passes[0].submit()
        stats.drawCalls = device.drawCalls - callsBefore
        stats.textureBytesUploaded = device.uploadedBytes - bytesBefore
        stats.damagedRect = Rect(origin: .zero, size: target.size)
        return stats
    }

    /// The texture of a content shown by the tree (an image is uploaded when first drawn).
    private func texture(for contents: ContentRef) throws -> Texture? {
        switch contents {
        case .texture(let t):
            return t.texture.belongs(to: device) && !t.texture.isReleased ? t.texture : nil
        case .store(let s):
            return textures[.store(s.id)]
        case .image(let image):
            let key = ContentKey.image(image.id)
            if let t = textures[key] { return t }
            let t = try device.makeTexture(pixelSize: image.pixelSize, pixels: image.pixels)
            textures[key] = t
            return t
        }
    }

    private func takeGroupTarget(like target: RenderTarget) throws -> OffscreenTarget {
        if let i = groupTargets.firstIndex(where: { $0.pixelSize == target.pixelSize && $0.scale == target.scale }) {
            return groupTargets.remove(at: i)
        }
        // Keep the pool small: targets of other sizes are not coming back.
        for t in groupTargets { t.release() }
        groupTargets.removeAll()
        return try OffscreenTarget(device: device, pixelSize: target.pixelSize, scale: target.scale)
    }

    private func releaseContents() {
        for t in textures.values { t.release() }
        textures.removeAll()
    }

    /// Frees every GPU object the compositor holds (content textures, offscreen targets)
    /// and stops following the tree (the next render starts from a new snapshot).
    public func release() {
        releaseContents()
        for t in groupTargets { t.release() }
        groupTargets.removeAll()
        tree = nil
        Transaction.unregister(self)
        forgetLastFrame()
    }
}

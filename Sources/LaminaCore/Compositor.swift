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

/// Composites layer trees into render targets: layer tree → render list → GPU passes.
/// Owns the textures of image contents (one per image, shared by every layer showing
/// it, released when no layer in the tree shows it any more) and the offscreen targets
/// of group opacity.
@MainActor
public final class Compositor {
    public let device: GPUDevice
    public private(set) var lastFrame = FrameStatistics()

    private struct CachedTexture { weak var image: ContentImage?; let texture: Texture }
    private var imageTextures: [ObjectIdentifier: CachedTexture] = [:]
    private var groupTargets: [OffscreenTarget] = []
    private var lastRoot: ObjectIdentifier?
    private var lastStamp = -1
    private weak var lastTarget: RenderTarget?
    private var lastBackground: Color??
    /// The last frame's render list, drawn again when an unchanged tree must be drawn.
    private var lastList: RenderList?

    public init(device: GPUDevice) { self.device = device }

    /// Textures the compositor holds for image contents.
    public var cachedTextureCount: Int { imageTextures.count }

    /// Composites `root` (placed in target points) into `target`, cleared to `background`
    /// first — or, with `background` nil, over what the target already holds (a host's
    /// frame). When neither the tree nor the target nor the background changed since the
    /// last call, nothing is drawn (the statistics say `skipped`, zero draw calls) unless
    /// `always` is set: then the last frame's render list is drawn again, without walking
    /// the tree (a host that redraws its framebuffer every frame).
    @discardableResult
    public func render(_ root: Layer, to target: RenderTarget, background: Color? = .clear, always: Bool = false) throws -> FrameStatistics {
        if lastRoot == ObjectIdentifier(root), lastStamp == root.changeStamp,
           lastTarget === target, lastBackground == .some(background) {
            guard always, let list = lastList else {
                lastFrame = FrameStatistics(skipped: true)
                return lastFrame
            }
            var stats = try execute(list, on: target, background: background)
            stats.reusedRenderList = true
            lastFrame = stats
            return stats
        }
        return try render(RenderList.build(root), root: root, to: target, background: background)
    }

    /// Draws a render list built from `root` (perhaps with overlays added), always.
    @discardableResult
    public func render(_ list: RenderList, root: Layer, to target: RenderTarget, background: Color? = .clear) throws -> FrameStatistics {
        let stamp = root.changeStamp
        lastList = nil
        var stats = try execute(list, on: target, background: background)
        stats.layersVisited = list.layersVisited
        lastStamp = stamp
        lastRoot = ObjectIdentifier(root)
        lastTarget = target
        lastBackground = .some(background)
        lastList = list
        lastFrame = stats
        return stats
    }

    /// Forgets the last frame, so the next `render` draws even if nothing changed.
    public func forgetLastFrame() { lastRoot = nil; lastList = nil }

    /// Draws a render list into `target` (cleared to `background` first; nil: loaded).
    /// The whole frame runs in one scope of the device's context: on an adopted context,
    /// one capture and one restore of the host's GL state.
    public func execute(_ list: RenderList, on target: RenderTarget, background: Color? = .clear) throws -> FrameStatistics {
        try device.withContext { try executeInContext(list, on: target, background: background) }
    }

    private func executeInContext(_ list: RenderList, on target: RenderTarget, background: Color?) throws -> FrameStatistics {
        var stats = FrameStatistics()
        let callsBefore = device.drawCalls, bytesBefore = device.uploadedBytes
        var used = list.referencedImages
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
                let texture = try self.texture(for: contents, used: &used)
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
        evictTextures(keeping: used)
        stats.drawCalls = device.drawCalls - callsBefore
        stats.textureBytesUploaded = device.uploadedBytes - bytesBefore
        stats.damagedRect = Rect(origin: .zero, size: target.size)
        return stats
    }

    private func texture(for contents: LayerContents, used: inout Set<ObjectIdentifier>) throws -> Texture {
        switch contents {
        case .texture(let t):
            return t
        case .backingStore(let store):
            return try store.texture(on: device)
        case .image(let image):
            let key = ObjectIdentifier(image)
            used.insert(key)
            if let cached = imageTextures[key] {
                if cached.image === image { return cached.texture }
                cached.texture.release()   // a freed image's identity, reused
            }
            let t = try device.makeTexture(pixelSize: image.pixelSize, pixels: image.pixels)
            imageTextures[key] = CachedTexture(image: image, texture: t)
            return t
        }
    }

    /// Releases the textures of images no layer of the tree holds any more.
    private func evictTextures(keeping used: Set<ObjectIdentifier>) {
        for (key, cached) in imageTextures where !used.contains(key) || cached.image == nil {
            cached.texture.release()
            imageTextures[key] = nil
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

    /// Frees every GPU object the compositor holds (image textures, offscreen targets).
    public func release() {
        for cached in imageTextures.values { cached.texture.release() }
        imageTextures.removeAll()
        for t in groupTargets { t.release() }
        groupTargets.removeAll()
        forgetLastFrame()
    }
}

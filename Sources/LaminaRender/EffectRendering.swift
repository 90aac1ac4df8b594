import LaminaValues
import LaminaGeometry
import LaminaGPU

/// The compositor's GPU work for layer effects, and what it keeps between frames: blurred
/// shadows (kept until their inputs change), gradient images (kept until the gradient or
/// its size changes), and the blur's scratch targets. Owned by one compositor, used on its
/// thread.
final class EffectCaches {
    let device: GPUDevice
    let blur: GaussianBlur
    /// A blurred shadow and what it was made from.
    struct Shadow {
        let image: BlurredImage
        let stamp: [Double]
    }
    private var shadows: [LayerID: Shadow] = [:]
    private var gradients: [LayerID: (style: GradientStyle, size: PixelSize, bounds: Size, target: OffscreenTarget)] = [:]
    /// Masked composites: a layer's image (and its shadow) times its mask's image.
    private var masked: [LayerID: (stamp: [Double], box: PixelRect, target: OffscreenTarget)] = [:]

    init(device: GPUDevice) {
        self.device = device
        blur = GaussianBlur(device: device)
    }

    /// Cached shadow blurs.
    var liveShadows: Int { shadows.count }
    /// Live GPU targets held (cached shadows and gradients, pooled scratch).
    var liveTargets: Int { shadows.count + gradients.count + masked.count + blur.pooledTargets }

    // MARK: Shadows

    /// The shadow of a group's image (a layer-alpha shadow): blurred in target pixels,
    /// again only when the image was rendered again or the shadow's inputs changed.
    /// Returns the tinted blur and where it goes (target points).
    func layerShadow(_ node: RenderTree.Node, image: Texture, rect: Rect, renders: Int, scale: Double,
                     stats: inout FrameStatistics) throws -> (Texture, Rect)? {
        let layer = node.state, id = layer.id
        let (dx, dy, sigma) = RenderTree.shadowPlacement(node)
        let paint = layer.shadowPaint
        // (Relative to the image: an image moved whole keeps its blur.)
        let stamp = [Double(renders), rect.width, rect.height, sigma * scale, paint.red, paint.green, paint.blue, paint.alpha,
                     Double(image.glName)]
        let blurred: BlurredImage
        if let cached = shadows[id], cached.stamp == stamp, !cached.image.target.isReleased {
            blurred = cached.image
        } else {
            if let old = shadows.removeValue(forKey: id) { blur.recycle(old.image.target) }
            blurred = try blur.blur(image, region: PixelRect(size: image.pixelSize), sigma: sigma * scale, tint: paint)
            shadows[id] = Shadow(image: blurred, stamp: stamp)
            stats.blurs += 1
        }
        let r = blurred.sourceRect
        return (blurred.texture, Rect(x: rect.minX + Double(r.x) / scale + dx, y: rect.minY + Double(r.y) / scale + dy,
                                      width: Double(r.width) / scale, height: Double(r.height) / scale))
    }

    /// The shadow of a rasterised `shadowPath`: its mask blurred (in the mask's pixels),
    /// once per change. Returns the tinted blur and where it goes (the layer's space).
    func maskShadow(_ node: RenderTree.Node, _ mask: ShadowMask, stats: inout FrameStatistics) throws -> (Texture, Rect)? {
        let layer = node.state, id = layer.id
        let px = mask.image.pixelSize
        guard mask.frame.width > 0, px.width > 0 else { return nil }
        let perPoint = Double(px.width) / mask.frame.width
        let sigma = BlurRadius.sigma(forRadius: layer.properties.shadowRadius) * perPoint
        let paint = layer.shadowPaint
        let stamp = [Double(mask.image.id), sigma, paint.red, paint.green, paint.blue, paint.alpha]
        let blurred: BlurredImage
        if let cached = shadows[id], cached.stamp == stamp, !cached.image.target.isReleased {
            blurred = cached.image
        } else {
            if let old = shadows.removeValue(forKey: id) { blur.recycle(old.image.target) }
            let source = try device.makeTexture(pixelSize: px, pixels: mask.image.pixels)
            defer { source.release() }
            blurred = try blur.blur(source, region: PixelRect(size: px), sigma: sigma, tint: paint)
            shadows[id] = Shadow(image: blurred, stamp: stamp)
            stats.blurs += 1
        }
        let r = blurred.sourceRect, o = layer.properties.shadowOffset
        return (blurred.texture, Rect(x: mask.frame.minX + Double(r.x) / perPoint + o.width, y: mask.frame.minY + Double(r.y) / perPoint + o.height,
                                      width: Double(r.width) / perPoint, height: Double(r.height) / perPoint))
    }

    // MARK: Blend modes and backdrops

    /// Draws a group's image (`rect`, target points) blended by `mode` with what the pass's
    /// target holds under it.
    func drawBlended(_ image: Texture, in rect: Rect, mode: BlendMode, alpha: Double, pass: RenderPass, offset: Transform3D) throws {
        let s = pass.target.scale
        let region = PixelRect(x: Int(((rect.minX + offset.m41) * s).rounded()), y: Int(((rect.minY + offset.m42) * s).rounded()),
                               width: image.pixelSize.width, height: image.pixelSize.height)
        let backdrop = try blur.target(image.pixelSize)
        defer { blur.recycle(backdrop) }
        try pass.copyPixels(region, into: backdrop)
        try pass.drawBlended(image, backdrop: backdrop.texture!, in: rect, mode: mode, alpha: alpha, transform: offset)
    }

    /// Draws the blurred backdrop of a layer: what the pass's target holds under its box
    /// (`box`, target points) and the blur's reach around it, blurred, inside the layer's
    /// (rounded) bounds under `world` (this pass's points).
    func drawBackdrop(_ node: RenderTree.Node, box: Box, world: Transform3D, alpha: Double, pass: RenderPass, offset: Transform3D,
                      stats: inout FrameStatistics) throws {
        let layer = node.state
        let sigma = BlurRadius.sigma(forRadius: layer.backdropBlurRadius) * PlaneMath.linearScale(node.world)
        let reach = 3 * sigma + 1
        let s = pass.target.scale
        let grown = Rect(x: box.minX + offset.m41 - reach, y: box.minY + offset.m42 - reach,
                         width: box.maxX - box.minX + 2 * reach, height: box.maxY - box.minY + 2 * reach)
        let region = pass.target.pixelRect(covering: grown)
        guard region.width > 0, region.height > 0 else { return }
        let copy = try blur.target(region.size)
        defer { blur.recycle(copy) }
        try pass.copyPixels(region, into: copy)
        let blurred = try blur.blur(copy.texture!, region: PixelRect(size: region.size), sigma: sigma * s, clampEdges: true)
        defer { blur.recycle(blurred.target) }
        stats.blurs += 1
        let r = blurred.sourceRect
        let rect = Rect(x: Double(region.x + r.x) / s, y: Double(region.y + r.y) / s, width: Double(r.width) / s, height: Double(r.height) / s)
        if !(layer.cornerRadius > 0), node.cutPlanes.isEmpty, world.m12 == 0, world.m21 == 0, world.m14 == 0, world.m24 == 0, world.m44 == 1 {
            // An axis-aligned rectangle: the blurred image's part under it, no stencil.
            let b = layer.bounds
            let x0 = b.minX * world.m11 + world.m41, x1 = b.maxX * world.m11 + world.m41
            let y0 = b.minY * world.m22 + world.m42, y1 = b.maxY * world.m22 + world.m42
            let box = Rect(x: min(x0, x1), y: min(y0, y1), width: abs(x1 - x0), height: abs(y1 - y0)).intersection(rect)
            if !box.isEmpty {
                let source = Rect(x: (box.minX - rect.minX) / rect.width, y: (box.minY - rect.minY) / rect.height,
                                  width: box.width / rect.width, height: box.height / rect.height)
                try pass.draw(blurred.texture, in: box, sourceRect: source, alpha: alpha)
            }
        } else {
            pass.cutPlanes = node.cutPlanes
            try pass.pushClip(layer.bounds, cornerRadius: layer.cornerRadius, transform: world)
            pass.cutPlanes = []
            try pass.draw(blurred.texture, in: rect, alpha: alpha)
            pass.cutPlanes = node.cutPlanes
            try pass.popClip(layer.bounds, cornerRadius: layer.cornerRadius, transform: world)
        }
        pass.flush()   // (before the scratch targets are used again)
    }

    // MARK: Masks

    /// A masked layer's composite: its image (and its layer-alpha shadow) drawn into one
    /// image covering their box within the mask's, multiplied by the mask's alpha. Made
    /// again only when the image, the mask's image or the shadow changed.
    func masked(_ node: RenderTree.Node, image: Texture, rect: Rect, shadow: (Texture, Rect)?, mask: Texture, maskRect: Rect,
                renders: [Int], scale: Double, stats: inout FrameStatistics) throws -> (Texture, Rect)? {
        let id = node.state.id
        var box = Box(rect)
        if let s = shadow { box = box.union(Box(s.1)) }
        box = box.intersection(Box(maskRect))
        let limit = PixelSize(width: device.capabilities.maxRenderTargetSize, height: device.capabilities.maxRenderTargetSize)
        guard !box.isEmpty, let px = Compositor.pixelBox(Box(minX: max(0, box.minX), minY: max(0, box.minY), maxX: box.maxX, maxY: box.maxY),
                                                            scale: scale, limit: limit) else { return nil }
        let origin = Point(x: Double(px.x) / scale, y: Double(px.y) / scale)
        let out = Rect(x: origin.x, y: origin.y, width: Double(px.width) / scale, height: Double(px.height) / scale)
        var stamp = renders.map(Double.init) + [rect.minX, rect.minY, rect.width, rect.height, maskRect.minX, maskRect.minY,
                                                maskRect.width, maskRect.height, Double(image.glName), Double(mask.glName)]
        if let s = shadow { stamp += [Double(s.0.glName), s.1.minX, s.1.minY, s.1.width, s.1.height] }
        if let m = masked[id], m.stamp == stamp, m.box == px, !m.target.isReleased { return (m.target.texture!, out) }
        let target: OffscreenTarget
        if let m = masked.removeValue(forKey: id), m.box.size == px.size, !m.target.isReleased { target = m.target } else {
            masked[id]?.target.release()
            target = try OffscreenTarget(device: device, pixelSize: px.size, scale: scale)
        }
        let pass = try device.beginRenderPass(on: target, clear: .clear)
        let offset = Transform3D(translationX: -origin.x, y: -origin.y)
        if let (t, r) = shadow { try pass.draw(t, in: r, transform: offset) }
        try pass.draw(image, in: rect, minFilter: .nearest, magFilter: .nearest, transform: offset)
        // The mask over the whole image: texture coordinates of the mask at its corners.
        let source = Rect(x: (out.minX - maskRect.minX) / maskRect.width, y: (out.minY - maskRect.minY) / maskRect.height,
                          width: out.width / maskRect.width, height: out.height / maskRect.height)
        try pass.multiplyByAlpha(of: mask, in: out, maskSource: source, transform: offset)
        pass.submit()
        stats.offscreenPasses += 1
        masked[id] = (stamp, px, target)
        return (target.texture!, out)
    }

    // MARK: Gradients

    /// A gradient layer's image, rendered on the GPU at the layer's on-screen resolution
    /// (again when the gradient or that size changes).
    func gradient(_ node: RenderTree.Node, scale: Double) throws -> Texture? {
        let layer = node.state
        guard let style = layer.properties.gradient, !style.colors.isEmpty else { return nil }
        let size = layer.bounds.size
        let k = scale * PlaneMath.linearScale(node.world)
        let limit = min(4096, device.capabilities.maxRenderTargetSize)
        func side(_ v: Double) -> Int { max(1, min(limit, Int((abs(v) * k).rounded(.up)))) }
        let px = PixelSize(width: side(size.width), height: side(size.height))
        if let g = gradients[layer.id], g.style == style, g.size == px, g.bounds == size, !g.target.isReleased { return g.target.texture }
        let target: OffscreenTarget
        if let g = gradients.removeValue(forKey: layer.id), g.size == px, !g.target.isReleased { target = g.target } else {
            gradients[layer.id]?.target.release()
            target = try OffscreenTarget(device: device, pixelSize: px)
        }
        do {
            try device.renderGradient(style.type, colors: style.colors, locations: style.locations, start: style.startPoint,
                                      end: style.endPoint, size: size, dither: style.dithers, into: target)
        } catch {
            target.release()
            throw error
        }
        gradients[layer.id] = (style, px, size, target)
        return target.texture
    }

    // MARK: Lifetime

    /// Frees what layers no longer need (once a frame), and scratch unused since the last frame.
    func releaseUnused(in tree: RenderTree) {
        for (id, s) in shadows {
            let kind = tree.nodes[id]?.state.shadowKind
            let keep: Bool
            switch kind {
            case .layerAlpha?: keep = tree.nodes[id]?.isGroup == true
            case .mask?: keep = true
            default: keep = false
            }
            if !keep { s.image.target.release(); shadows[id] = nil }
        }
        for (id, m) in masked where tree.nodes[id]?.state.mask == nil {
            m.target.release()
            masked[id] = nil
        }
        for (id, g) in gradients where tree.nodes[id]?.state.properties.gradient == nil {
            g.target.release()
            gradients[id] = nil
        }
        blur.trim()
    }

    func releaseAll() {
        for s in shadows.values { s.image.target.release() }
        shadows.removeAll()
        for g in gradients.values { g.target.release() }
        gradients.removeAll()
        for m in masked.values { m.target.release() }
        masked.removeAll()
        blur.releaseAll()
    }
}

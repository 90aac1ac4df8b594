import LaminaGeometry
import LaminaGPU
import LaminaValues

/// What frame building knows of an image the executor keeps: its place on the target's
/// pixel grid, what it was made from, and the version of its pixels (the serial of the task
/// that made it: never reused).
struct KeptImage {
    var pixels: TargetPixels
    var scale: Double
    var stamp: [Double]
    var version: Int
}

// The images of a frame: surfaces' images rendered again when dirty (deepest first, so that
// no image is rendered while another one is being drawn), derived images (mixes, masked
// composites, blurred shadows, gradients) made again when what they are made from changed.
extension FrameBuilder {
    /// Whether `key` must be made (again) at `pixels` from what `stamp` describes; when it
    /// must, it is recorded as made (the caller adds the task that makes it).
    func needsImage(_ key: ImageKey, pixels: TargetPixels, scale: Double, stamp: [Double]) -> Bool {
        current.used.insert(key)
        if let k = kept[key], k.stamp == stamp, k.pixels.size == pixels.size, k.scale == scale {
            kept[key]!.pixels = pixels
            return false
        }
        renderSerial += 1
        kept[key] = KeptImage(pixels: pixels, scale: scale, stamp: stamp, version: renderSerial)
        return true
    }

    /// The version of an image's pixels (0: not made).
    func version(of key: ImageKey) -> Int { kept[key]?.version ?? 0 }

    /// A surface's image, rendered again when something in it changed (or its box moved by
    /// other than whole pixels): its key and where it goes in target points (nil: nothing
    /// to draw).
    func surfaceImage(_ id: SurfaceID) -> (key: ImageKey, rect: Rect)? {
        let key = ImageKey.surface(id)
        if let done = current.surfaceImages[id] { return done }
        guard let surface = surfaces[id], let b = surface.bounds else { current.surfaceImages[id] = .some(nil); return nil }
        let scale = current.scale, limit = current.pixelSize
        // Clamped to the target in Double first (bounds may be huge, or not finite) — with a
        // margin for images drawn elsewhere than where they are (a replicator's instances) or
        // read around their place (a shadow's source).
        let (mx, my) = imageMargin(id, scale: scale, limit: limit)
        func pixel(_ v: Double, _ rule: FloatingPointRoundingRule, _ low: Int, _ high: Int) -> Int? {
            let p = (v * scale).rounded(rule)
            return p.isNaN ? nil : Int(min(max(p, Double(low)), Double(high)))
        }
        guard let x0 = pixel(b.minX, .down, -mx, limit.width + mx), let y0 = pixel(b.minY, .down, -my, limit.height + my),
              let x1 = pixel(b.maxX, .up, -mx, limit.width + mx), let y1 = pixel(b.maxY, .up, -my, limit.height + my),
              x1 > x0, y1 > y0 else { current.surfaceImages[id] = .some(nil); return nil }
        let pixels = TargetPixels(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        current.used.insert(key)
        var dirty = surface.isDirty
        if let k = kept[key] {
            if k.pixels.size != pixels.size || k.scale != scale { dirty = true }
            // Moved whole by a whole number of pixels since it was rendered, nothing else
            // changed (`Surface.shift`): the image is the same, at its new place.
            if !dirty, k.pixels != pixels || surface.shift != nil {
                if let s = surface.shift {
                    dirty = !(abs(s.dx * scale - Double(pixels.x - k.pixels.x)) < 1e-6 && abs(s.dy * scale - Double(pixels.y - k.pixels.y)) < 1e-6)
                } else {
                    dirty = true
                }
            }
        } else {
            dirty = true
        }
        surface.shift = nil
        if dirty {
            var draws = DrawBuilder(builder: self, capacity: surface.items.count)
            surface.items.forEach { item in if item.bounds != nil { item.kind.draw(item, into: &draws) } }
            renderSerial += 1
            kept[key] = KeptImage(pixels: pixels, scale: scale, stamp: [], version: renderSerial)
            surface.isDirty = false
            addTask(key, .picture(PictureTask(pixels: pixels, scale: scale, additive: false, draws: draws.draws)))
        } else {
            kept[key]!.pixels = pixels
        }
        let result = (key, pixels.targetBox(scale: scale).targetRect)
        current.surfaceImages[id] = .some(result)
        return result
    }

    /// How far (pixels, each side) a surface's image may reach past the target: a
    /// replicator's sublayers (and groups among them) one target size — instances move them
    /// on screen — a group casting a shadow of its alpha its shadow's reach; others none.
    /// Never past the GPU's largest image.
    private func imageMargin(_ id: SurfaceID, scale: Double, limit: PixelSize) -> (Int, Int) {
        func capped(_ m: Double, _ side: Int) -> Int {
            let room = max(0, (maximumImageSide - side) / 2)
            return m.isFinite ? Int(min(max(0, m), Double(room))) : room
        }
        var s: SurfaceID = id
        for _ in 0..<64 {
            if case .replicas = s { return (capped(Double(limit.width), limit.width), capped(Double(limit.height), limit.height)) }
            guard let owner = s.owner, let next = tree.nodes[owner]?.surface else { break }
            s = next
        }
        if case .group(let owner) = id, let node = tree.nodes[owner], AlphaShadow.makesGroup(node) {
            let (dx, dy, sigma) = AlphaShadow.placement(node)
            return (capped((3 * sigma + abs(dx)) * scale + 2, limit.width), capped((3 * sigma + abs(dy)) * scale + 2, limit.height))
        }
        return (0, 0)
    }

    /// Renders the surfaces whose content changed, deepest first, before anything draws
    /// their images: when a surface's image is rendered, those nested in it are ready, so no
    /// rendering happens inside another's (no recursion per nesting level).
    func renderDirtySurfaces() {
        let dirty = surfaces.values.filter { $0.id != .target && $0.isDirty }.map(\.id)
        guard !dirty.isEmpty else { return }
        // Deepest first (an image drawn into another is made before it); the same frame
        // always lists its tasks in the same order (by owner, then kind, at one depth).
        func rank(_ id: SurfaceID) -> Int {
            switch id { case .target: return 0; case .group: return 1; case .mask: return 2; case .replicas: return 3 }
        }
        let ordered = dirty.map { ($0, depth(of: $0)) }.sorted { a, b in
            if a.1 != b.1 { return a.1 > b.1 }
            if a.0.owner != b.0.owner { return (a.0.owner ?? LayerID(rawValue: 0)) < (b.0.owner ?? LayerID(rawValue: 0)) }
            return rank(a.0) < rank(b.0)
        }
        for (id, _) in ordered { _ = surfaceImage(id) }
    }

    /// A gradient layer's gradient image, rendered at the layer's on-screen resolution
    /// (again when the gradient or that size changes).
    func gradientImage(of node: RenderNode) -> ImageKey? {
        let s = node.state
        guard let style = s.properties.gradient, !style.colors.isEmpty else { return nil }
        let size = s.bounds.size
        let k = current.scale * PlaneMath.linearScale(node.world)
        let limit = min(4096, maximumImageSide)
        func side(_ v: Double) -> Int {
            let p = (abs(v) * k).rounded(.up)
            return p.isFinite ? max(1, min(limit, Int(p))) : 1
        }
        let px = PixelSize(width: side(size.width), height: side(size.height))
        let key = ImageKey.gradient(node.id)
        var stamp = [Double(style.type.rawValue), style.startPoint.x, style.startPoint.y, style.endPoint.x, style.endPoint.y,
                     style.dithers ? 1 : 0, size.width, size.height] + style.locations
        for c in style.colors { stamp += [c.red, c.green, c.blue, c.alpha] }
        if needsImage(key, pixels: TargetPixels(x: 0, y: 0, width: px.width, height: px.height), scale: 1, stamp: stamp) {
            addTask(key, .gradient(GradientTask(style: style, size: size, pixelSize: px)))
        }
        return key
    }

    /// The blurred mask of a rasterised `shadowPath` (blurred in the mask's pixels, once per
    /// change): its key and where it goes in the layer's space.
    func pathShadow(of node: RenderNode, _ mask: ShadowMask) -> (ImageKey, Rect)? {
        let s = node.state
        let px = mask.image.pixelSize
        guard mask.frame.width > 0, px.width > 0 else { return nil }
        let perPoint = Double(px.width) / mask.frame.width
        let sigma = BlurRadius.sigma(forRadius: s.properties.shadowRadius) * perPoint
        let paint = s.shadowPaint
        let key = ImageKey.shadow(node.id)
        let covered = GaussianBlur.sourceRect(ofBlurOf: PixelRect(size: px), sigma: sigma)
        let stamp = [Double(mask.image.id), sigma, paint.red, paint.green, paint.blue, paint.alpha]
        if needsImage(key, pixels: TargetPixels(x: 0, y: 0, width: covered.width, height: covered.height), scale: 1, stamp: stamp) {
            addTask(key, .blur(BlurTask(source: .content(mask.image), region: PixelRect(size: px), sigma: sigma, tint: paint)))
        }
        let o = s.properties.shadowOffset
        return (key, Rect(x: mask.frame.minX + Double(covered.x) / perPoint + o.width, y: mask.frame.minY + Double(covered.y) / perPoint + o.height,
                          width: Double(covered.width) / perPoint, height: Double(covered.height) / perPoint))
    }

    /// Adds a task making `output`.
    func addTask(_ output: ImageKey, _ kind: RenderTask.Kind) {
        current.tasks.append(RenderTask(id: RenderTaskID(index: current.tasks.count), output: output, kind: kind))
    }

    /// Forgets every image kept (the executor lost them: a frame that failed, a lost
    /// context): the next frame makes each one it draws again.
    func forgetKeptImages() {
        kept = [:]
        for s in surfaces.values { s.isDirty = true; s.shift = nil }
    }

    /// Images kept that no layer needs any more: forgotten here, freed by the executor.
    func releasedImages() -> [ImageKey] {
        var gone: [ImageKey] = []
        for key in kept.keys where !isNeeded(key) {
            gone.append(key)
        }
        for key in gone { kept[key] = nil }
        return gone
    }

    private func isNeeded(_ key: ImageKey) -> Bool {
        if current.used.contains(key) { return true }
        switch key {
        case .surface(let s): return surfaces[s] != nil
        case .transitionMix(let id): return tree.nodes[id]?.state.properties.transition != nil && tree.nodes[id]?.isGroup == true
        case .masked(let id): return tree.nodes[id]?.state.mask != nil && tree.nodes[id]?.isGroup == true
        case .shadow(let id):
            guard let n = tree.nodes[id] else { return false }
            switch n.shadowKind {
            case .layerAlpha?: return n.isGroup
            case .mask?: return true
            default: return false
            }
        case .gradient(let id): return tree.nodes[id]?.state.properties.gradient != nil
        case .contentsMix(let id): return tree.nodes[id]?.state.properties.contentsFade != nil
        case .oldPicture: return true   // (the compositor frees old pictures when their transitions end)
        case .delayedInstance: return true   // (and delayed instances when their replicators need them no more)
        }
    }
}

import LaminaGeometry
import LaminaGPU
import LaminaValues

/// The pass encoder that draws: LaminaGPU's `RenderPass` on the render target or on the
/// offscreen images it keeps (`ImageKey` → `OffscreenTarget`), contents from the content
/// cache, blurs through a pooled `GaussianBlur`. Draws in target points are moved by the
/// open image's origin.
final class GLPassEncoder: PassEncoder {
    let device: GPUDevice
    let contents: ContentCache
    let blurrer: GaussianBlur
    /// The images kept between frames.
    private(set) var images: [ImageKey: OffscreenTarget] = [:]
    /// The target of the frame being run.
    var target: RenderTarget?
    /// Time the target's pass on the GPU.
    var timesGPU = false
    /// The frame's media time (`lamina_time` of shader layers).
    var mediaTime = 0.0
    /// Shader layers' programs.
    let shaderPrograms = ShaderPrograms()

    // Counters of the frame being run (`resetCounters()`).
    private(set) var offscreenPasses = 0
    private(set) var blurs = 0
    private(set) var tasks = 0

    private var pass: RenderPass?
    private var destination: PassDestination?
    private var scissor: TargetPixels?
    /// Target points → the open pass's points (an image's origin).
    private var offset = Transform3D.identity
    private var atOrigin = true
    /// The pass has cut planes set (else they are empty: not set again per draw).
    private var cutting = false
    private var pieces: [Quad] = []
    /// A backdrop between `copyBackdrop` and `drawBackdrop`: its copy, then its blur.
    private var backdropCopy: (target: OffscreenTarget, region: PixelRect, scale: Double)?
    private var backdropBlur: (image: BlurredImage, region: PixelRect)?

    init(device: GPUDevice, contents: ContentCache) {
        self.device = device
        self.contents = contents
        blurrer = GaussianBlur(device: device)
    }

    func resetCounters() { offscreenPasses = 0; blurs = 0; tasks = 0 }

    /// Live GPU targets held (kept images and pooled scratch).
    var liveTargets: Int { images.count + blurrer.pooledTargets }

    // MARK: Passes

    func beginPass(_ destination: PassDestination, clear: Color?, scissor: TargetPixels?, additive: Bool, prepares: [ContentRef]) throws {
        precondition(pass == nil, "Lamina: a pass began while another was open")
        for c in prepares { _ = try contents.place(for: c) }
        let renderTarget: RenderTarget
        switch destination {
        case .target:
            guard let t = target else { throw GPUError.unusableTarget(reason: "no render target for the frame") }
            renderTarget = t
            offset = .identity
        case let .image(key, pixels, scale):
            renderTarget = try image(key, size: pixels.size, scale: scale)
            offset = Transform3D(translationX: -Double(pixels.x) / scale, y: -Double(pixels.y) / scale)
            offscreenPasses += 1
            tasks += 1
        }
        atOrigin = offset.isIdentity
        self.destination = destination
        self.scissor = scissor
        let p = try device.beginRenderPass(on: renderTarget, clear: clear, scissor: scissor?.pixelRect, timed: destination == .target && timesGPU)
        p.blendsAdditively = additive
        pass = p
        cutting = false
    }

    func setScissor(_ scissor: TargetPixels?, clear: Color?) throws {
        guard let pass else { return }
        self.scissor = scissor
        try pass.setScissor(scissor?.pixelRect)
        if let clear { pass.clear(clear) }
    }

    func endPass() throws {
        pass?.submit()
        pass = nil
        cutting = false
    }

    /// Ends whatever pass a failed frame left open (an error thrown while drawing: a shader
    /// that does not compile, a clip too deep), so that the next frame begins cleanly.
    func abandonOpenPass() {
        pass?.submit()
        pass = nil
        cutting = false
        backdropCopy = nil
        backdropBlur = nil
    }

    func resumePass() throws {
        guard let destination else { return }
        let renderTarget: RenderTarget
        switch destination {
        case .target: renderTarget = target!
        case .image(let key, _, _): renderTarget = images[key]!
        }
        pass = try device.beginRenderPass(on: renderTarget, clear: nil, scissor: scissor?.pixelRect)
        cutting = false
    }

    /// The kept image `key` at `size` (made again when its size or scale changed).
    private func image(_ key: ImageKey, size: PixelSize, scale: Double) throws -> OffscreenTarget {
        if let t = images[key], t.pixelSize == size, t.scale == scale, !t.isReleased { return t }
        images[key]?.release()
        let t = try OffscreenTarget(device: device, pixelSize: size, scale: scale)
        images[key] = t
        return t
    }

    func takeImages(_ key: ImageKey) -> OffscreenTarget? { images.removeValue(forKey: key) }

    func keepImage(_ image: OffscreenTarget, as key: ImageKey) {
        images[key]?.release()
        images[key] = image
    }

    func release(_ image: ImageKey) {
        images.removeValue(forKey: image)?.release()
    }

    func releaseAll() {
        for t in images.values { t.release() }
        images.removeAll()
        blurrer.releaseAll()
        shaderPrograms.releaseAll()
    }

    /// Frees pooled scratch unused since the last frame.
    func trim() { blurrer.trim() }

    // MARK: Clips

    // An outermost clip that is an axis-aligned rectangle (`ClipEntry.isScissor`) is the
    // scissor's; the others are stencil levels.
    func pushClip(_ clip: ClipEntry) throws {
        guard let pass else { return }
        pass.cutPlanes = clip.cuts
        cutting = !clip.cuts.isEmpty
        if clip.isScissor { return try pass.pushScissorClip(clip.rect, transform: moved(.identity)) }
        try pass.pushClip(clip.rect, corners: clip.corners, transform: moved(clip.transform, targetRect: clip.isTargetRect))
    }

    func popClip(_ clip: ClipEntry) throws {
        guard let pass else { return }
        pass.cutPlanes = clip.cuts
        cutting = !clip.cuts.isEmpty
        if clip.isScissor { return try pass.popScissorClip() }
        try pass.popClip(clip.rect, corners: clip.corners, transform: moved(clip.transform, targetRect: clip.isTargetRect))
    }

    private func moved(_ t: Transform3D, targetRect: Bool = false) -> Transform3D {
        atOrigin ? t : t.concatenating(offset)
    }

    // MARK: Draws

    func draw(_ draws: ArraySlice<DrawItem>) throws {
        guard let pass else { return }
        // Each op is switched on in place (passed on, a draw would be copied whole first).
        for i in draws.indices {
            if cutting || !draws[i].cuts.isEmpty {
                pass.cutPlanes = draws[i].cuts
                cutting = !draws[i].cuts.isEmpty
            }
            switch draws[i].op {
            case let .solid(rect, transform, color, opaque):
                try pass.addSolid(color, in: rect, transform: moved(transform), isOpaque: opaque)
            case let .roundedRect(rect, transform, color, corners, border):
                try pass.add(Quad(rect, transform: moved(transform), paint: .roundedRect(color: color, corners: corners, borderWidth: border)))
            case let .shadow(rect, transform, color, radius, sigma):
                try pass.add(Quad.shadow(of: rect, cornerRadius: radius, sigma: sigma, color: color, transform: moved(transform)))
            case .contents(let c):
                guard let place = try contents.place(for: c.content, of: c.layer) else { continue }
                try addContents(place, c, pass: pass)
            case .image(let i):
                guard let texture = images[i.image]?.texture else { continue }
                if i.tint != .white { pass.tint = i.tint }
                defer { if i.tint != .white { pass.tint = .white } }
                try pass.draw(texture, in: i.rect, sourceRect: i.source, alpha: i.alpha, minFilter: i.filter, magFilter: i.filter,
                              transform: moved(i.transform))
            case let .blended(i, mode):
                guard let texture = images[i.image]?.texture else { continue }
                try drawBlended(i, mode: mode, texture: texture, pass: pass)
            case let .multiplyByMask(key, rect, source):
                guard let mask = images[key]?.texture else { continue }
                try pass.multiplyByAlpha(of: mask, in: rect, maskSource: source, transform: offset)
            case .backdrop:
                continue   // (the executor's copyBackdrop/blurBackdrop/drawBackdrop)
            case .shader(let d):
                try drawShader(d, pass: pass)
            case .effect(let e):
                try drawEffect(e, pass: pass)
            }
        }
    }

    /// An image blended with a copy of what lies under it.
    private func drawBlended(_ i: ImageDraw, mode: BlendMode, texture: Texture, pass: RenderPass) throws {
        let s = pass.target.scale
        let region = PixelRect(x: Int(((i.rect.minX + offset.m41) * s).rounded()), y: Int(((i.rect.minY + offset.m42) * s).rounded()),
                               width: texture.pixelSize.width, height: texture.pixelSize.height)
        let backdrop = try blurrer.target(texture.pixelSize)
        defer { blurrer.recycle(backdrop) }
        try pass.copyPixels(region, into: backdrop)
        try pass.drawBlended(texture, backdrop: backdrop.texture!, in: i.rect, mode: mode, alpha: i.alpha, transform: offset)
    }

    /// A shader layer's program over its bounds (one draw call), its output multiplied by
    /// the layer's opacity.
    private func drawShader(_ d: ShaderDraw, pass: RenderPass) throws {
        let program: ShaderProgram
        do {
            program = try shaderPrograms.program(for: d.style.fragmentSource, device: device)
        } catch {
            throw ShaderLayerError(layer: d.style.label, layerID: d.layer, underlying: error)
        }
        var failure: Error?
        pass.draw(with: program.program, in: d.rect, transform: moved(d.transform)) { _ in
            do {
                try program.applyUniforms([("lamina_size", .vec2(d.pixelSize.width, d.pixelSize.height)),
                                           ("lamina_time", .float(mediaTime)), ("lamina_alpha", .float(d.alpha))])
                try program.applyUniforms(d.style.uniforms.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
            } catch {
                failure = error
            }
        }
        if let failure { throw ShaderLayerError(layer: d.style.label, layerID: d.layer, underlying: failure) }
    }

    /// A group's image through its shader effect: the image's rectangle grown by the
    /// margin, `lamina_uv` 0…1 over the image (beyond it in the margin), the image bound to
    /// `lamina_layer` on unit 1.
    private func drawEffect(_ e: ShaderEffectDraw, pass: RenderPass) throws {
        guard let texture = images[e.image.image]?.texture else { return }
        let program: ShaderProgram
        do {
            program = try shaderPrograms.program(for: e.effect.fragmentShader, device: device, effect: true)
        } catch {
            throw ShaderLayerError(layer: e.effect.label, layerID: e.layer, underlying: error, isEffect: true)
        }
        // The quad: the image and the layer's box, grown by the margin; lamina_uv spans the
        // layer's box; lamina_sample maps it into the image.
        let i = e.image.rect, l = e.layerRect, m = e.effect.margin
        guard i.size.width > 0, i.size.height > 0, l.size.width > 0, l.size.height > 0 else { return }
        let x0 = min(i.minX, l.minX) - m.width, y0 = min(i.minY, l.minY) - m.height
        let x1 = max(i.maxX, l.maxX) + m.width, y1 = max(i.maxY, l.maxY) + m.height
        let grown = Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        let uv = ((x0 - l.minX) / l.size.width, (y0 - l.minY) / l.size.height, grown.size.width / l.size.width, grown.size.height / l.size.height)
        let map = ((l.minX - i.minX) / i.size.width, (l.minY - i.minY) / i.size.height, l.size.width / i.size.width, l.size.height / i.size.height)
        let r = l
        let scale = pass.target.scale
        var failure: Error?
        do {
            try program.set("lamina_layer", texture: texture, filter: .linear)
        } catch {
            throw ShaderLayerError(layer: e.effect.label, layerID: e.layer, underlying: error, isEffect: true)
        }
        pass.draw(with: program.program, in: grown, transform: offset) { _ in
            do {
                try program.applyUniforms([("u_texRect", .vec4(uv.0, uv.1, uv.2, uv.3)),
                                           ("lamina_image_map", .vec4(map.0, map.1, map.2, map.3)),
                                           ("lamina_size", .vec2(r.size.width * scale, r.size.height * scale)),
                                           ("lamina_time", .float(mediaTime)), ("lamina_alpha", .float(e.image.alpha))])
                try program.applyUniforms(e.effect.uniforms.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
            } catch {
                failure = error
            }
        }
        if let failure { throw ShaderLayerError(layer: e.effect.label, layerID: e.layer, underlying: failure, isEffect: true) }
    }

    /// Adds the quads of contents kept at `place` — one quad, or nine slices.
    private func addContents(_ place: ContentPlace, _ c: ContentsDraw, pass: RenderPass) throws {
        let texture: Texture, source: Rect, clamp: Rect?, channels: PixelByteOrder?
        switch place {
        case .texture(let own):
            (texture, source, clamp, channels) = (own, c.contentsRect, nil, nil)
        case .drawable(let own):
            // Row 0 is the bottom of a GL layer's picture: sampled upside down.
            let r = c.contentsRect
            let flipped = Rect(x: r.origin.x, y: 1 - r.origin.y, width: r.size.width, height: -r.size.height)
            (texture, source, clamp, channels) = (own, flipped, nil, nil)
        case .atlas(let entry, let uv, let entryClamp):
            // Clamped to the whole entry (as CLAMP_TO_EDGE on a texture of its own).
            let r = c.contentsRect
            let s = Rect(x: uv.origin.x + r.origin.x * uv.size.width, y: uv.origin.y + r.origin.y * uv.size.height,
                         width: r.size.width * uv.size.width, height: r.size.height * uv.size.height)
            (texture, source, clamp, channels) = (entry.page, s, entryClamp, entry.byteOrder)
        }
        let world = moved(c.transform)
        if c.contentsCenter == Rect(x: 0, y: 0, width: 1, height: 1) {
            try pass.addTexture(texture, in: c.frame, transform: world, source: source, clamp: clamp, alpha: c.alpha,
                                channels: channels, minFilter: c.minFilter, magFilter: c.magFilter, isOpaque: c.isOpaque)
        } else {
            Quad.appendNineSlice(to: &pieces, texture: texture, in: c.frame, source: source, center: c.contentsCenter,
                                 contentSize: c.contentSize, clamp: clamp, alpha: c.alpha, channels: channels,
                                 minFilter: c.minFilter, magFilter: c.magFilter, transform: world, isOpaque: c.isOpaque)
            defer { pieces.removeAll(keepingCapacity: true) }
            try pass.draw(pieces)
        }
    }

    // MARK: Backdrops

    func copyBackdrop(_ b: BackdropDraw) throws {
        guard let pass else { return }
        let reach = 3 * b.sigma + 1
        let grown = Rect(x: b.box.minX + offset.m41 - reach, y: b.box.minY + offset.m42 - reach,
                         width: b.box.maxX - b.box.minX + 2 * reach, height: b.box.maxY - b.box.minY + 2 * reach)
        let region = pass.target.pixelRect(covering: grown)
        guard region.width > 0, region.height > 0 else { backdropCopy = nil; return }
        let copy = try blurrer.target(region.size)
        try pass.copyPixels(region, into: copy)
        backdropCopy = (copy, region, pass.target.scale)
    }

    func blurBackdrop(_ b: BackdropDraw) throws {
        guard let (copy, region, scale) = backdropCopy else { backdropBlur = nil; return }
        backdropCopy = nil
        defer { blurrer.recycle(copy) }
        let blurred = try blurrer.blur(copy.texture!, region: PixelRect(size: region.size), sigma: b.sigma * scale, clampEdges: true)
        blurs += 1
        backdropBlur = (blurred, region)
    }

    func drawBackdrop(_ b: BackdropDraw) throws {
        guard let pass, let (blurred, region) = backdropBlur else { return }
        backdropBlur = nil
        defer { blurrer.recycle(blurred.target) }
        let s = pass.target.scale
        let r = blurred.sourceRect
        let rect = Rect(x: Double(region.x + r.x) / s, y: Double(region.y + r.y) / s, width: Double(r.width) / s, height: Double(r.height) / s)
        let world = moved(b.transform)
        if !b.corners.isRounded, b.cuts.isEmpty, world.m12 == 0, world.m21 == 0, world.m14 == 0, world.m24 == 0, world.m44 == 1 {
            // An axis-aligned rectangle: the blurred image's part under it, no stencil.
            let bounds = b.bounds
            let x0 = bounds.minX * world.m11 + world.m41, x1 = bounds.maxX * world.m11 + world.m41
            let y0 = bounds.minY * world.m22 + world.m42, y1 = bounds.maxY * world.m22 + world.m42
            let box = Rect(x: min(x0, x1), y: min(y0, y1), width: abs(x1 - x0), height: abs(y1 - y0)).intersection(rect)
            if !box.isEmpty {
                let source = Rect(x: (box.minX - rect.minX) / rect.width, y: (box.minY - rect.minY) / rect.height,
                                  width: box.width / rect.width, height: box.height / rect.height)
                try pass.draw(blurred.texture, in: box, sourceRect: source, alpha: b.alpha)
            }
        } else {
            pass.cutPlanes = b.cuts
            try pass.pushClip(b.bounds, corners: b.corners, transform: world)
            pass.cutPlanes = []
            try pass.draw(blurred.texture, in: rect, alpha: b.alpha)
            pass.cutPlanes = b.cuts
            try pass.popClip(b.bounds, corners: b.corners, transform: world)
            pass.cutPlanes = []
        }
        cutting = false
        pass.flush()   // (before the scratch targets are used again)
    }

    // MARK: Tasks between passes

    func blur(_ task: BlurTask, into output: ImageKey, pixels: TargetPixels) throws {
        let blurred: BlurredImage
        switch task.source {
        case .image(let key):
            guard let source = images[key]?.texture else { release(output); return }
            blurred = try blurrer.blur(source, region: task.region, sigma: task.sigma, tint: task.tint)
        case .content(let image):
            let source = try device.makeTexture(pixelSize: image.pixelSize, pixels: image.pixels)
            defer { source.release() }
            blurred = try blurrer.blur(source, region: task.region, sigma: task.sigma, tint: task.tint)
        }
        // The blur's target becomes the kept image (its scratch is not handed back).
        images.removeValue(forKey: output).map { blurrer.recycle($0) }
        images[output] = blurred.target
        blurs += 1
        tasks += 1
    }

    func gradient(_ task: GradientTask, into output: ImageKey) throws {
        let t = try image(output, size: task.pixelSize, scale: 1)
        let style = task.style
        try device.renderGradient(style.type, colors: style.colors, locations: style.locations, start: style.startPoint,
                                  end: style.endPoint, size: task.size, dither: style.dithers, into: t)
        tasks += 1
    }
}

extension RenderTarget {
    /// Target points → target pixels: the pixels covering `rect`, rounded out, clamped (in
    /// floating point first: any rectangle — 1e308 wide, infinite, NaN — is safe).
    func pixelRect(covering rect: Rect) -> PixelRect {
        func pixel(_ v: Double, _ limit: Int) -> Int { v.isNaN ? 0 : Int(min(max(v, 0), Double(limit))) }
        let x0 = pixel((rect.minX * scale).rounded(.down), pixelSize.width), y0 = pixel((rect.minY * scale).rounded(.down), pixelSize.height)
        let x1 = pixel((rect.maxX * scale).rounded(.up), pixelSize.width), y1 = pixel((rect.maxY * scale).rounded(.up), pixelSize.height)
        return PixelRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }
}

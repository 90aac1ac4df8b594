import LaminaValues
import CGLES
import LaminaGeometry

/// Misuse of a render pass that the caller can correct.
public enum RenderPassError: Error, Equatable, CustomStringConvertible {
    /// A call on a pass after its `submit()`.
    case usedAfterSubmit(operation: String)
    /// `popClip` with no clip pushed.
    case popClipWithoutPush
    /// `setScissor` while a clip is pushed.
    case clipOpenAtScissorChange
    /// `pushScissorClip` inside another clip (it must be the outermost).
    case scissorClipNotOutermost
    /// More nested clips than the stencil holds.
    case clipsTooDeep(limit: Int)
    /// A texture released before the quad drawing it was added.
    case releasedTexture
    /// A texture read in a byte order its data cannot have.
    case unreadableChannels(stored: PixelByteOrder, requested: PixelByteOrder)

    public var description: String {
        switch self {
        case .usedAfterSubmit(let op):
            return "RenderPass.\(op) after submit(): a submitted pass draws nothing more; begin a new pass with device.beginRenderPass(on:)"
        case .popClipWithoutPush:
            return "RenderPass.popClip() without a matching pushClip(): each popClip ends one pushClip, with the same shape"
        case .clipOpenAtScissorChange:
            return "RenderPass.setScissor() with a clip pushed: pop every clip first (each scissored rectangle pushes its clips anew)"
        case .scissorClipNotOutermost:
            return "RenderPass.pushScissorClip() inside another clip: a scissor clip is the outermost one; push rectangles inside it with pushClip(_:), or pop the clips open first"
        case .clipsTooDeep(let limit):
            return "RenderPass.pushClip(): more than \(limit) nested clips (the stencil buffer holds \(limit) levels); nest fewer masksToBounds layers that are not axis-aligned rectangles (axis-aligned rectangular clips share one level)"
        case .releasedTexture:
            return "a released texture drawn in a render pass: draw it before release(), or upload a new one"
        case let .unreadableChannels(stored, requested):
            return "a texture of byte order \(stored) read as \(requested): a .bgrx texture keeps no alpha; pass channels: nil or the texture's own order"
        }
    }
}

/// One pass of drawing into a target: begin, add quads (and clips), submit. The only
/// code that issues draw calls. Coordinates are the target's points; `transform` (if
/// any) maps a quad's rectangle, once placed, to the target's points.
///
/// Quads are batched: `draw(_:)` and `add(_:)` (and the one-quad conveniences `fill`,
/// `fillRoundedRect`, `draw(_:in:…)`, `drawNineSlice`) only record vertices on the CPU;
/// consecutive quads that share a program, texture, filters, blending and clip state
/// become one draw call, issued in order when the pass must draw — at `flush()`, `clear`,
/// `draw(with:)`, a scissor clip's push or pop, `submit()`, and before any other GL work on
/// the device (an upload, a release, a readback, another pass), so everything happens in
/// the order of the calls. Clips are part of the stream: a clip's stencil shape is drawn
/// in its place (an axis-aligned rectangle may be the scissor's instead: `pushScissorClip`).
///
/// Passes may interleave (a compositor renders a group into a second target while the
/// first pass is open): each pass restores its own GL state before it draws again.
///
/// A pass holds the device's context from `beginRenderPass` to `submit()` (or until it is
/// dropped): the caller's context, and on an adopted context the host's GL state, come
/// back when it ends. Issue no GL of your own while a pass is open.
public final class RenderPass {
    public let target: RenderTarget
    /// Draw calls issued so far (quads still pending are counted when drawn: see `flush()`).
    public private(set) var drawCalls = 0
    // `@exclusivity(unchecked)` on the fields read for every quad (see RenderNode's fields).
    @exclusivity(unchecked) public private(set) var isSubmitted = false
    /// How many clips are pushed (the stencil value inside the innermost clip).
    @exclusivity(unchecked) public internal(set) var clipDepth = 0
    /// Whether the pass is being timed on the GPU (`beginRenderPass(on:clear:timed:)`).
    public var isTimed: Bool { timerQuery != nil }
    let device: GPUDevice
    private let batch: QuadBatch
    /// The target's points → clip space.
    let toClip: Transform3D
    var stencilCleared = false
    private var timerQuery: TimerQuery?
    /// Scratch for nine-slice pieces (emptied after each use).
    private var pieces: [Quad] = []
    /// Scratch for quads cut by `cutPlanes`.
    private var polygon: [(Double, Double)] = [], polygonScratch: [(Double, Double)] = []

    /// Half-planes of the local points of the quads and clip shapes added from now on:
    /// only their part where all of them hold is drawn (a quad crossing one is cut into a
    /// convex polygon, drawn as a fan of quads). Empty (the default): quads are drawn whole.
    @exclusivity(unchecked) public var cutPlanes: [HalfPlane] = []

    /// Quads added from now on are added to what the target holds (source + destination)
    /// instead of blended over it: into a cleared target, a picture drawn at 1 − f and
    /// another added at f give their exact cross-fade. Off by default.
    @exclusivity(unchecked) public var blendsAdditively = false

    /// Texture quads added from now on are multiplied by this colour (straight alpha; a
    /// replicator's instance colour). White (the default) changes nothing.
    @exclusivity(unchecked) public var tint = Color.white

    /// Opens the pass: enters the device's context (held until `submit()`).
    /// The part of the target the pass may change, in GL window coordinates (nil: all of
    /// it): clears and draws outside it leave the target's pixels as they were.
    private var scissor: GLViewport
    /// `scissor` limited to the outermost clip when it is a scissor clip
    /// (`pushScissorClip`); nil: none is pushed.
    var clipScissor: GLViewport?
    /// The part of the target the pass may change (GL window coordinates).
    var scissorArea: GLViewport { scissor }
    /// The scissor GL holds while the pass draws.
    var effectiveScissor: GLViewport { clipScissor ?? scissor }

    init(target: RenderTarget, clear color: Color?, scissor region: PixelRect? = nil, timed: Bool = false) throws {
        self.target = target
        self.device = target.device
        self.batch = device.quadBatch
        self.toClip = target.pointsToClip
        scissor = target.glScissor(for: region)
        try device.gl.enter()
        do {
            try target.validateForPass()
        } catch {
            isSubmitted = true
            device.gl.exit()
            throw error
        }
        device.gl.collectGarbage()
        restoreState()
        hostDrawBuffers = target.claimDrawBuffer()
        if timed { timerQuery = device.timer.begin(device.gl, supported: device.capabilities.timerQueries) }
        if let color { clear(color) }
        device.checkGLError("begin render pass")
    }

    deinit {
        // Quads never drawn are dropped with the pass.
        if batch.owner == ObjectIdentifier(self) { batch.reset() }
        // (The context's references to a pass are unowned: none may outlive it.)
        if device.gl.activePass === self { device.gl.activePass = nil }
        if device.gl.pendingPass === self { device.gl.pendingPass = nil }
        // Dropped without submit() (an error part-way): give the host its draw buffers and
        // the caller its context back.
        if !isSubmitted {
            if device.gl.ensureCurrent() {
                if let q = timerQuery { device.timer.end(q) }
                target.releaseDrawBuffer(hostDrawBuffers)
            }
            device.gl.exit()
        }
    }

    /// A host framebuffer's draw buffers, when the pass had to point them at the one
    /// Lamina draws to; put back at the end.
    private var hostDrawBuffers: [GLenum]?

    /// Sets everything this pass depends on (if another pass or a transfer ran meanwhile,
    /// or the pass just began): never assumes what the context held.
    func restoreState() {
        guard device.gl.activePass !== self else { return }
        device.gl.activePass = self
        device.gl.currentProgram = 0
        let vertexArray = batch.bindVertexArray(device.gl)
        LaminaGLState.applyForDrawing(framebuffer: target.framebufferName, viewport: target.viewport,
                                      vertexArray: vertexArray, indexed: device.gl.indexedDrawBuffers, desktop: device.gl.desktopGL)
        let s = effectiveScissor
        if s != target.viewport { glScissor(s.x, s.y, s.width, s.height) }
        applyStencilTest()
    }

    /// Before GL calls of this pass: the context current (another device's pass may have
    /// made its own current meanwhile), another pass's pending quads drawn, this pass's
    /// state set.
    func prepare() {
        // Callers check `isSubmitted` first (throwing, or doing nothing).
        guard device.gl.ensureCurrent() else {
            fatalError("Lamina: the device's context can no longer be made current during a render pass")
        }
        if let other = device.gl.pendingPass, other !== self { other.flush() }
        restoreState()
    }

    // MARK: Quads

    /// Draws `quads` in order (batched: see the type's notes).
    public func draw(_ quads: some Collection<Quad>) throws {
        try claimBatch("draw(_:)")
        for quad in quads { try append(quad) }
    }

    /// Adds one quad after those added before (batched: see the type's notes).
    public func add(_ quad: Quad) throws {
        try claimBatch("add(_:)")
        try append(quad)
    }

    /// Draws the quads added so far now: one draw call per run of quads of the same state,
    /// from one upload of their vertices. Called by the pass itself whenever drawing must
    /// happen; call it only to count or time draw calls.
    public func flush() {
        guard batch.owner == ObjectIdentifier(self), !isSubmitted else { return }
        batch.owner = nil
        if device.gl.pendingPass === self { device.gl.pendingPass = nil }
        guard batch.quadCount > 0 else { batch.reset(); return }
        prepare()
        issueBatch()
        batch.reset()
    }

    /// Blends a solid rectangle of `color` over the target.
    public func fill(_ rect: Rect, color: Color, transform: Transform3D = .identity) throws {
        try add(Quad(rect, transform: transform, paint: .solid(color)))
    }

    /// Blends a rounded rectangle with antialiased edges: filled when `borderWidth` is 0,
    /// else a ring of that width inside the rectangle's edge.
    public func fillRoundedRect(_ rect: Rect, cornerRadius: Double, borderWidth: Double = 0, color: Color,
                                transform: Transform3D = .identity) throws {
        try add(Quad(rect, transform: transform, paint: .roundedRect(color: color, cornerRadius: cornerRadius, borderWidth: borderWidth)))
    }

    /// Blends `texture` (premultiplied) over the target into `rect`. `sourceRect` is the
    /// part of the texture to show, in unit coordinates (0…1, y down).
    public func draw(_ texture: Texture, in rect: Rect, sourceRect: Rect = Rect(x: 0, y: 0, width: 1, height: 1),
                     alpha: Double = 1, minFilter: TextureFilter = .linear, magFilter: TextureFilter = .linear,
                     transform: Transform3D = .identity) throws {
        try add(Quad(rect, transform: transform,
                     paint: .texture(texture, source: sourceRect, alpha: alpha, minFilter: minFilter, magFilter: magFilter)))
    }

    /// Nine-slice stretching (`contentsCenter`): draws `sourceRect` of `texture` into `rect`
    /// so that the parts outside `center` (a unit rectangle of the source sub-image) keep
    /// their size — `contentSize` is the sub-image's size in points — while the edges
    /// stretch along one axis and the centre along both. Caps shrink proportionally when
    /// they do not fit. Up to nine quads (`Quad.appendNineSlice`), batched like any others.
    public func drawNineSlice(_ texture: Texture, in rect: Rect, sourceRect: Rect = Rect(x: 0, y: 0, width: 1, height: 1),
                              center: Rect, contentSize: Size, alpha: Double = 1,
                              minFilter: TextureFilter = .linear, magFilter: TextureFilter = .linear,
                              transform: Transform3D = .identity) throws {
        guard !isSubmitted else { throw RenderPassError.usedAfterSubmit(operation: "drawNineSlice") }
        guard texture.belongs(to: device) else { throw GPUError.wrongDevice(what: "a texture drawn in a render pass") }
        Quad.appendNineSlice(to: &pieces, texture: texture, in: rect, source: sourceRect, center: center,
                             contentSize: contentSize, alpha: alpha, minFilter: minFilter, magFilter: magFilter,
                             transform: transform)
        defer { pieces.removeAll(keepingCapacity: true) }
        try draw(pieces)
    }

    /// Draws with a caller's program (built with `GPUDevice.makeProgram` or
    /// `GPUDevice.program`, on `quad.vert`): the unit quad placed at `rect`, `u_transform`
    /// and `u_texRect` (0, 0, 1, 1) set; `setUniforms` sets the rest (and may set `u_texRect`). One draw call, after the quads
    /// pending before it. Does nothing on a submitted pass.
    public func draw(with program: Program, in rect: Rect, transform: Transform3D = .identity,
                     setUniforms: (Program) -> Void = { _ in }) {
        guard !isSubmitted else { return }
        flush()
        prepare()
        glBindVertexArray(device.unitQuad().vertexArray.name)
        bind(program)
        glUniform4f(program.quadUniforms.texRect, 0, 0, 1, 1)   // (setUniforms may choose another)
        setUniforms(program)
        let placement = Transform3D(scaleX: rect.size.width, y: rect.size.height)
            .concatenating(Transform3D(translationX: rect.origin.x, y: rect.origin.y))
        let m = placement.concatenating(transform).concatenating(toClip)
        withUnsafeTemporaryAllocation(of: GLfloat.self, capacity: 16) { values in
            for (i, v) in [m.m11, m.m12, m.m13, m.m14, m.m21, m.m22, m.m23, m.m24,
                           m.m31, m.m32, m.m33, m.m34, m.m41, m.m42, m.m43, m.m44].enumerated() {
                values[i] = GLfloat(v)
            }
            glUniformMatrix4fv(program.quadUniforms.transform, 1, GLboolean(GL_FALSE), values.baseAddress)
        }
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
        drawCalls += 1
        device.gl.drawCalls += 1
        device.checkGLError("glDrawArrays (\(program.label))")
    }

    /// Limits the clears and draws that follow to `region` (pixels of the target, top-left
    /// origin; nil: the whole target) — a damage region drawn one rectangle at a time.
    /// Quads pending are drawn first. No clip may be open: each rectangle pushes its clips
    /// anew (the stencil is cleared again, inside the new rectangle, at the first one).
    public func setScissor(_ region: PixelRect?) throws {
        guard !isSubmitted else { throw RenderPassError.usedAfterSubmit(operation: "setScissor") }
        guard clipDepth == 0, clipScissor == nil else { throw RenderPassError.clipOpenAtScissorChange }
        flush()
        prepare()
        scissor = target.glScissor(for: region)
        glScissor(scissor.x, scissor.y, scissor.width, scissor.height)
        stencilCleared = false
    }

    /// Fills the whole target with `color` (replacing, not blending), ignoring clips,
    /// after the quads added before. Does nothing on a submitted pass.
    public func clear(_ color: Color) {
        guard !isSubmitted else { return }
        flush()
        prepare()
        let p = color.premultiplied
        if clipScissor != nil { glScissor(scissor.x, scissor.y, scissor.width, scissor.height) }
        glClearColor(GLfloat(p.r), GLfloat(p.g), GLfloat(p.b), GLfloat(p.a))
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        if let c = clipScissor { glScissor(c.x, c.y, c.width, c.height) }
    }

    /// Finishes the pass. The target's contents are complete for readback or export.
    /// How the pass ends depends on who owns the context: Lamina's own context is flushed
    /// (`glFlush`); a context shared with the host waits for the GPU (`glFinish`), so that
    /// the host's context sees complete pixels; an adopted context is left to the host,
    /// whose later commands (or buffer swap) follow Lamina's in the same stream. The
    /// caller's context and state come back.
    public func submit() {
        guard !isSubmitted else { return }
        flush()
        clipDepth = 0
        clipScissor = nil
        isSubmitted = true
        if device.gl.activePass === self { device.gl.activePass = nil }
        device.gl.ensureCurrent()
        if let q = timerQuery { device.timer.end(q) }
        target.releaseDrawBuffer(hostDrawBuffers)
        switch device.ownership {
        case .own: glFlush()
        case .share: glFinish()
        case .adopt: break
        }
        device.checkGLError("submit render pass")
        device.gl.exit()
    }

    // MARK: Batching

    /// Makes the device's quad batch this pass's: another pass's pending quads are drawn
    /// first (the order of the calls is the order of drawing).
    @inline(__always)
    func claimBatch(_ operation: @autoclosure () -> String) throws {
        guard !isSubmitted else { throw RenderPassError.usedAfterSubmit(operation: operation()) }
        if batch.owner != ObjectIdentifier(self) { claimBatchFromOther() }
    }

    /// `claimBatch` inside the pass's own work (already checked).
    @inline(__always)
    private func reclaimBatch() {
        if batch.owner != ObjectIdentifier(self) { claimBatchFromOther() }
    }

    private func claimBatchFromOther() {
        if let other = device.gl.pendingPass, other !== self { other.flush() }
        batch.owner = ObjectIdentifier(self)
        device.gl.pendingPass = self
    }

    /// `add(Quad(rect, transform:, paint: .texture(…), isOpaque:))` without the `Quad`: for
    /// renderers adding many (the compositor).
    public func addTexture(_ texture: Texture, in rect: Rect, transform: Transform3D, source: Rect, clamp: Rect?, alpha: Double,
                           channels: PixelByteOrder?, minFilter: TextureFilter, magFilter: TextureFilter, isOpaque: Bool) throws {
        try claimBatch("addTexture")
        try appendTexture(texture, rect, transform, source, clamp, alpha, channels, minFilter, magFilter, isOpaque)
    }

    /// `add(Quad(rect, transform:, paint: .solid(color), isOpaque:))` without the `Quad`.
    public func addSolid(_ color: Color, in rect: Rect, transform: Transform3D, isOpaque: Bool) throws {
        try claimBatch("addSolid")
        let state = BatchState(program: .solid, texture: 0, filters: 0, blend: !isOpaque, clipDepth: Int32(clipDepth), clipWrite: .none)
        try appendQuad(rect, transform, state, nil, coords: (0, 0, 1, 1), color: premultiplied(color), params: (0, 0, 0, 0), zw: (0, 0))
    }

    @inline(__always)
    private func appendTexture(_ texture: Texture, _ rect: Rect, _ transform: Transform3D, _ source: Rect, _ clamp: Rect?,
                               _ alpha: Double, _ channels: PixelByteOrder?, _ minFilter: TextureFilter, _ magFilter: TextureFilter,
                               _ isOpaque: Bool) throws {
        guard texture.gl === device.gl else { throw GPUError.wrongDevice(what: "a texture drawn in a render pass") }
        guard !texture.isReleased else { throw RenderPassError.releasedTexture }
        let tinted = tint != .white
        let state = BatchState(program: texture.isExternal ? .external : tinted ? .tintedTexture : .texture, texture: texture.name,
                               filters: GPUDevice.samplerKey(min: minFilter, mag: magFilter),
                               blend: !isOpaque, clipDepth: Int32(clipDepth), clipWrite: .none)
        let a = Float(alpha * tint.alpha)
        let color = tinted ? (a * Float(tint.red), a * Float(tint.green), a * Float(tint.blue), a) : (a, a, a, a)
        // (Unbounded: far beyond any texture coordinate, yet finite after the interpolation's
        // arithmetic at any w — the greatest float is not.)
        let c = clamp.map { (Float($0.minX), Float($0.minY), Float($0.maxX), Float($0.maxY)) } ?? (-1e9, -1e9, 1e9, 1e9)
        let flags = texture.isExternal ? 0 : try RenderPass.channelFlags(texture.byteOrder, channels)
        try appendQuad(rect, transform, state, texture,
                       coords: (source.origin.x, source.origin.y, source.origin.x + source.size.width, source.origin.y + source.size.height),
                       color: color, params: (c.0, c.1, a, flags), zw: (c.2, c.3))
    }

    /// Records one quad (the batch is this pass's).
    private func append(_ quad: Quad) throws {
        let depth = Int32(clipDepth)
        switch quad.paint {
        case let .solid(color):
            let state = BatchState(program: .solid, texture: 0, filters: 0, blend: !quad.isOpaque, clipDepth: depth, clipWrite: .none)
            try appendQuad(quad.rect, quad.transform, state, nil, coords: (0, 0, 1, 1), color: premultiplied(color),
                           params: (0, 0, 0, 0), zw: (0, 0))
        case let .roundedRect(color, corners, borderWidth):
            let state = BatchState(program: .roundedRect, texture: 0, filters: 0, blend: !quad.isOpaque, clipDepth: depth, clipWrite: .none)
            try appendQuad(quad.rect, quad.transform, state, nil, coords: (0, 0, 1, 1), color: premultiplied(color),
                           params: (Float(abs(quad.rect.size.width)), Float(abs(quad.rect.size.height)),
                                    Float(max(0, corners.radius)), Float(max(0, borderWidth))),
                           zw: (0, Self.cornerBits(corners, of: quad.rect)))
        case let .shadow(color, cornerRadius, sigma):
            let state = BatchState(program: .shadow, texture: 0, filters: 0, blend: true, clipDepth: depth, clipWrite: .none)
            try appendQuad(quad.rect, quad.transform, state, nil, coords: (0, 0, 1, 1), color: premultiplied(color),
                           params: (Float(abs(quad.rect.size.width)), Float(abs(quad.rect.size.height)),
                                    Float(max(0, cornerRadius)), Float(max(0, sigma))),
                           zw: (0, 0))
        case let .texture(texture, source, clamp, alpha, channels, minFilter, magFilter):
            try appendTexture(texture, quad.rect, quad.transform, source, clamp, alpha, channels, minFilter, magFilter, quad.isOpaque)
        }
    }

    private func premultiplied(_ color: Color) -> (Float, Float, Float, Float) {
        let p = color.premultiplied
        return (Float(p.r), Float(p.g), Float(p.b), Float(p.a))
    }

    /// The shader's reordering of a texel, from what the texture's own swizzle yields to
    /// what data of byte order `channels` means, as batch-texture.frag's flags: 1 swaps red
    /// and blue, 2 makes alpha read as 1.
    static func channelFlags(_ stored: PixelByteOrder, _ channels: PixelByteOrder?) throws -> Float {
        guard let wanted = channels, wanted != stored else { return 0 }
        switch (stored, wanted) {
        case (.rgba, .bgra), (.bgra, .rgba): return 1
        case (.rgba, .bgrx): return 3
        case (.bgra, .bgrx): return 2
        default:
            throw RenderPassError.unreadableChannels(stored: stored, requested: wanted)
        }
    }

    /// Appends the four vertices of one quad; `coords` are the coordinate at the rectangle's
    /// origin corner and at the opposite one, `zw` the rest of `a_coord` (the same at every
    /// vertex).
    @inline(__always)
    func appendQuad(_ rect: Rect, _ transform: Transform3D, _ state: BatchState, _ texture: Texture?,
                            coords: (Double, Double, Double, Double), color: (Float, Float, Float, Float),
                            params: (Float, Float, Float, Float), zw: (Float, Float)) throws {
        let m = ClipMapping(transform, toClip)
        let x0 = rect.origin.x, y0 = rect.origin.y
        let x1 = x0 + rect.size.width, y1 = y0 + rect.size.height
        func vertex(_ p: (Float, Float, Float), _ s: Float, _ t: Float) -> BatchVertex {
            BatchVertex(x: p.0, y: p.1, w: p.2, s: s, t: t, f0: zw.0, f1: zw.1, r: color.0, g: color.1, b: color.2, a: color.3,
                        p0: params.0, p1: params.1, p2: params.2, p3: params.3)
        }
        if !cutPlanes.isEmpty {
            var whole = true
            for p in cutPlanes where !(p.value(x0, y0) >= 0 && p.value(x1, y0) >= 0 && p.value(x0, y1) >= 0 && p.value(x1, y1) >= 0) {
                whole = false
                break
            }
            if !whole {
                // The part left, as a fan of quads (two triangles each; the last may be one).
                guard rect.size.width != 0, rect.size.height != 0 else { return }
                cut(x0: x0, y0: y0, x1: x1, y1: y1, by: cutPlanes, into: &polygon, scratch: &polygonScratch)
                let n = polygon.count
                guard n >= 3 else { return }
                func at(_ i: Int) -> BatchVertex {
                    let (x, y) = polygon[i]
                    let u = (x - x0) / rect.size.width, v = (y - y0) / rect.size.height
                    return vertex(m.apply(x, y), Float(coords.0 + u * (coords.2 - coords.0)), Float(coords.1 + v * (coords.3 - coords.1)))
                }
                var i = 1
                while i < n - 1 {
                    try reserveQuad(state, texture)
                    batch.vertices.append(at(i))
                    batch.vertices.append(at(0))
                    batch.vertices.append(at(i + 1))
                    batch.vertices.append(at(i + 2 < n ? i + 2 : i + 1))
                    i += 2
                }
                return
            }
        }
        try reserveQuad(state, texture)
        let s0 = Float(coords.0), t0 = Float(coords.1), s1 = Float(coords.2), t1 = Float(coords.3)
        batch.vertices.append(vertex(m.apply(x0, y0), s0, t0))
        batch.vertices.append(vertex(m.apply(x1, y0), s1, t0))
        batch.vertices.append(vertex(m.apply(x0, y1), s0, t1))
        batch.vertices.append(vertex(m.apply(x1, y1), s1, t1))
    }

    /// Makes room for one more quad of `state` in the batch (drawing a full batch first).
    @inline(__always)
    private func reserveQuad(_ state: BatchState, _ texture: Texture?) throws {
        var state = state
        if blendsAdditively && state.clipWrite == .none { state.additive = true; state.blend = true }
        if batch.quadCount == QuadBatch.maxQuads {
            flush()
            reclaimBatch()
        }
        if batch.runs.isEmpty || batch.runs[batch.runs.count - 1].state != state {
            try startRun(state, texture)
        }
        batch.runs[batch.runs.count - 1].quadCount += 1
        batch.quadCount += 1
    }

    /// Starts a run of quads of a new state; its program is made on first use.
    private func startRun(_ state: BatchState, _ texture: Texture?) throws {
        if batch.programs[state.program.rawValue] == nil {
            let program = try device.program(vertex: "batch.vert", fragment: state.program.fragment)
            batch.programs[state.program.rawValue] = program
            reclaimBatch()   // compiling opened a scope, which drew the quads pending
        }
        batch.runs.append(BatchRun(state: state, texture: texture, firstQuad: batch.quadCount, quadCount: 0))
    }

    /// Uploads the pending vertices once and draws each run (inside the pass's state).
    private func issueBatch() {
        let gl = device.gl
        _ = batch.bindVertexArray(gl)
        batch.upload()
        let indexed = gl.indexedDrawBuffers
        var boundTexture: GLuint = 0, boundFilters = -1
        var blending = true, colorWrites = true, additive = false
        var stencil: (depth: Int32, write: ClipWrite)?
        for run in batch.runs {
            let s = run.state
            bind(batch.programs[s.program.rawValue]!)
            if s.texture != 0 && (s.texture != boundTexture || s.filters != boundFilters) {
                glBindTexture(GLenum(s.program == .external ? GL_TEXTURE_EXTERNAL_OES : GL_TEXTURE_2D), s.texture)
                glBindSampler(0, device.sampler(key: s.filters).name)
                boundTexture = s.texture
                boundFilters = s.filters
            }
            if s.blend != blending {
                LaminaGLState.setBlending(s.blend, indexed: indexed)
                blending = s.blend
            }
            if s.additive != additive {
                LaminaGLState.setAdditive(s.additive, indexed: indexed)
                additive = s.additive
            }
            if stencil == nil || stencil! != (s.clipDepth, s.clipWrite) {
                if s.clipDepth == 0 && s.clipWrite == .none {
                    glDisable(GLenum(GL_STENCIL_TEST))
                } else {
                    glEnable(GLenum(GL_STENCIL_TEST))
                    glStencilFunc(GLenum(GL_EQUAL), GLint(s.clipDepth), 0xff)
                    let pass = s.clipWrite == .increment ? GL_INCR : s.clipWrite == .decrement ? GL_DECR : GL_KEEP
                    glStencilOp(GLenum(GL_KEEP), GLenum(GL_KEEP), GLenum(pass))
                }
                let writes = s.clipWrite == .none
                if writes != colorWrites {
                    LaminaGLState.setColorWrites(writes, indexed: indexed)
                    colorWrites = writes
                }
                stencil = (s.clipDepth, s.clipWrite)
            }
            glDrawRangeElements(GLenum(GL_TRIANGLES), GLuint(run.firstQuad * 4), GLuint((run.firstQuad + run.quadCount) * 4 - 1),
                                GLsizei(run.quadCount * 6), GLenum(GL_UNSIGNED_SHORT),
                                UnsafeRawPointer(bitPattern: run.firstQuad * 6 * MemoryLayout<UInt16>.stride))
        }
        drawCalls += batch.runs.count
        gl.drawCalls += batch.runs.count
        // Back to the pass's state between draws.
        if !blending { LaminaGLState.setBlending(true, indexed: indexed) }
        if additive { LaminaGLState.setAdditive(false, indexed: indexed) }
        if !colorWrites { LaminaGLState.setColorWrites(true, indexed: indexed) }
        applyStencilTest()
        device.checkGLError("glDrawElements (\(batch.runs.count) quad batches)")
    }

    private func bind(_ program: Program) {
        if device.gl.currentProgram != program.name {
            glUseProgram(program.name)
            device.gl.currentProgram = program.name
        }
    }
}

extension RenderTarget {
    /// Draws `texture` (premultiplied) over what the target holds, into `rect` (points;
    /// nil: the whole target), in one pass of one quad: e.g. a retained output texture
    /// into a host's framebuffer.
    public func composite(_ texture: Texture, in rect: Rect? = nil, alpha: Double = 1,
                          filter: TextureFilter = .nearest) throws {
        let pass = try device.beginRenderPass(on: self, clear: nil)
        try pass.draw(texture, in: rect ?? Rect(origin: .zero, size: size), alpha: alpha, minFilter: filter, magFilter: filter)
        pass.submit()
    }
}

extension GPUDevice {
    /// Begins a render pass on `target`, cleared to `clear` if given. With `scissor` (pixels
    /// of the target, top-left origin), only that rectangle is cleared and drawn: the rest of
    /// the target keeps its pixels (damage-limited recomposition). A `timed` pass is timed on
    /// the GPU from here to `submit()` (GL_EXT_disjoint_timer_query), without waiting: the
    /// result comes in a frame or more later (`latestGPUDuration`, `pollGPUTimings()`).
    /// Passes opened while a timed one is open (a group's) are part of its time and cannot
    /// be timed themselves.
    public func beginRenderPass(on target: RenderTarget, clear: Color? = nil, scissor: PixelRect? = nil,
                                timed: Bool = false) throws -> RenderPass {
        guard !isClosed else { throw GPUError.deviceClosed(operation: "beginRenderPass") }
        guard target.device === self else { throw GPUError.wrongDevice(what: "a render target of another device, given to beginRenderPass") }
        guard !target.isReleased else {
            throw GPUError.unusableTarget(reason: "a render pass on a released target: make a new target (a window moved away from a target must not be composited into it after release())")
        }
        return try RenderPass(target: target, clear: clear, scissor: scissor, timed: timed)
    }
}

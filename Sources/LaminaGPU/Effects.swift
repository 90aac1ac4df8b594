import LaminaValues
import FoundationEssentials
import Glibc
import CGLES
import LaminaGeometry

/// What a blur produced: its target, and the source texels it covers (its pixel (i, j)
/// covers `downsampling`² texels from `sourceRect`'s origin + (i, j)·`downsampling`).
public struct BlurredImage {
    public let target: OffscreenTarget
    /// In texels of the source (may reach past the source: the padding, where the blur spreads).
    public let sourceRect: PixelRect
    public let downsampling: Int
    public var texture: Texture { target.texture! }
}

/// Separable Gaussian blur on the GPU, with the scratch targets it reuses. Large blurs
/// are done on a downsampled copy (halved while σ exceeds 4 texels: each halving is an
/// exact 2×2 mean, whose variance is taken out of the blur that follows), so a blur costs
/// at most 2 × 25 taps per output pixel, whatever its radius; the result is drawn back
/// with linear filtering (a signal blurred by ≥ 3 texels has nothing a bilinear
/// reconstruction loses).
public final class GaussianBlur {
    public let device: GPUDevice
    /// Scratch targets by size, kept between frames (`trim()` frees those unused since).
    private var scratch: [PixelSize: [OffscreenTarget]] = [:]
    private var used: Set<PixelSize> = []
    /// The largest σ blurred at full resolution (texels).
    public static let maximumDirectSigma = 4.0
    /// Blur passes drawn (downsampling and the two directions), for tests and statistics.
    public private(set) var passes = 0

    public init(device: GPUDevice) { self.device = device }

    /// A target of `size` pixels from the scratch pool (or a new one).
    public func target(_ size: PixelSize) throws -> OffscreenTarget {
        used.insert(size)
        if var list = scratch[size], let t = list.popLast() {
            scratch[size] = list
            if !t.isReleased { return t }
        }
        return try OffscreenTarget(device: device, pixelSize: size, withStencil: false)
    }

    /// Gives a target back to the pool.
    public func recycle(_ t: OffscreenTarget) {
        guard !t.isReleased else { return }
        scratch[t.pixelSize, default: []].append(t)
    }

    /// Frees pooled targets of sizes not asked for since the last trim (call once a frame).
    public func trim() {
        for (size, list) in scratch where !used.contains(size) {
            for t in list { t.release() }
            scratch[size] = nil
        }
        used.removeAll(keepingCapacity: true)
    }

    /// Frees every pooled target.
    public func releaseAll() {
        for list in scratch.values { for t in list { t.release() } }
        scratch.removeAll()
        used.removeAll()
    }

    /// Pooled targets (live GPU objects the blur holds).
    public var pooledTargets: Int { scratch.values.reduce(0) { $0 + $1.count } }

    /// The normalised weights w₀…w_R of a Gaussian of `sigma` texels (R = ⌈3σ⌉, at most 32).
    public static func weights(sigma: Double) -> [Float] {
        guard sigma > 0.05 else { return [1] }
        let radius = min(32, Int((3 * sigma).rounded(.up)))
        var w = (0...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = w[0] + 2 * w.dropFirst().reduce(0, +)
        w = w.map { $0 / total }
        return w.map(Float.init)
    }

    /// The largest σ blurred (texels): past it a blur is already flat over any texture a GPU
    /// holds, and its 3σ margins would not fit in one (a σ of 1e308, say, from a C caller).
    public static let maximumSigma = 1024.0

    /// σ as blurred: NaN, ∞ and negatives as 0, at most `maximumSigma`.
    static func effectiveSigma(_ sigma: Double) -> Double { sigma.isFinite ? min(max(0, sigma), maximumSigma) : 0 }

    /// How many times a blur of σ = `sigma` texels halves its input first.
    static func downsampling(sigma s: Double) -> Int {
        var d = 1
        while s / Double(d) > GaussianBlur.maximumDirectSigma && d < 64 { d *= 2 }
        return d
    }

    /// The source texels a blur of `region` by σ = `sigma` covers (`BlurredImage.sourceRect`),
    /// worked out without a GPU: the region grown by 3σ, rounded up to the downsampling.
    public static func sourceRect(ofBlurOf region: PixelRect, sigma: Double) -> PixelRect {
        let s = effectiveSigma(sigma)
        let d = downsampling(sigma: s)
        let pad = Int((3 * s).rounded(.up))
        var w = region.width + 2 * pad, h = region.height + 2 * pad
        var level = 1
        while level < d { w = (w + 1) / 2; h = (h + 1) / 2; level *= 2 }
        return PixelRect(x: region.x - pad, y: region.y - pad, width: w * d, height: h * d)
    }

    /// Blurs `region` (texels) of `source` by a Gaussian of `sigma` texels; texels outside
    /// the region count as transparent. The result covers the region grown by 3σ on every
    /// side (rounded up to the downsampling). With `tint`, the result is the tint (straight
    /// alpha) times the blurred alpha: a shadow. With `clampEdges`, texels outside the region
    /// repeat its nearest edge texel instead (a backdrop). The caller owns the result's
    /// target (`recycle` it, or release it).
    public func blur(_ source: Texture, region: PixelRect, sigma: Double, tint: Color? = nil, clampEdges: Bool = false) throws -> BlurredImage {
        let program = try device.program(vertex: "quad.vert", fragment: "blur.frag")
        let s = GaussianBlur.effectiveSigma(sigma)
        let d = GaussianBlur.downsampling(sigma: s)
        let pad = Int((3 * s).rounded(.up))
        // Level 0: the region and its padding, in source texels.
        let originX = region.x - pad, originY = region.y - pad
        var w = region.width + 2 * pad, h = region.height + 2 * pad
        let valid = (region.x, region.y, region.x + region.width, region.y + region.height)
        var current: (texture: Texture, target: OffscreenTarget?) = (source, nil)
        var origin = (originX, originY), bounds = valid
        var level = 1
        while level < d {
            w = (w + 1) / 2; h = (h + 1) / 2
            let next = try target(PixelSize(width: w, height: h))
            try draw(program, into: next, from: current.texture, mode: 0, origin: origin, valid: bounds, clampEdges: clampEdges && level == 1)
            if let t = current.target { recycle(t) }
            current = (next.texture!, next)
            origin = (0, 0); bounds = (0, 0, w, h)
            level *= 2
        }
        // What remains of σ at this level (the 2×2 means' variance taken out).
        let dd = Double(d)
        let variance = s * s / (dd * dd) - (dd * dd - 1) / (12 * dd * dd)
        let weights = GaussianBlur.weights(sigma: variance > 0 ? variance.squareRoot() : 0)
        let size = PixelSize(width: w, height: h)
        let horizontal = try target(size)
        try draw(program, into: horizontal, from: current.texture, mode: 1, origin: origin, valid: bounds, direction: (1, 0),
                 weights: weights, clampEdges: clampEdges && d == 1)
        if let t = current.target { recycle(t) }
        let vertical = try target(size)
        try draw(program, into: vertical, from: horizontal.texture!, mode: 1, origin: (0, 0), valid: (0, 0, size.width, size.height),
                 direction: (0, 1), weights: weights, tint: tint)
        recycle(horizontal)
        return BlurredImage(target: vertical, sourceRect: PixelRect(x: originX, y: originY, width: size.width * d, height: size.height * d),
                            downsampling: d)
    }

    private func draw(_ program: Program, into target: OffscreenTarget, from texture: Texture, mode: Int32,
                      origin: (Int, Int), valid: (Int, Int, Int, Int), direction: (Int32, Int32) = (0, 0),
                      weights: [Float] = [1], tint: Color? = nil, clampEdges: Bool = false) throws {
        let pass = try device.beginRenderPass(on: target, clear: nil)
        // Every output pixel is written, replacing what a pooled target held (no blending).
        let indexed = device.gl.indexedDrawBuffers
        pass.draw(with: program, in: Rect(x: 0, y: 0, width: Double(target.pixelSize.width), height: Double(target.pixelSize.height))) { p in
            LaminaGLState.setBlending(false, indexed: indexed)
            glActiveTexture(GLenum(GL_TEXTURE0))
            glBindTexture(GLenum(GL_TEXTURE_2D), texture.name)
            glBindSampler(0, device.sampler(min: .nearest, mag: .nearest).name)
            glUniform1i(p.uniformLocation("u_texture"), 0)
            glUniform1i(p.uniformLocation("u_mode"), mode)
            glUniform2i(p.uniformLocation("u_origin"), GLint(origin.0), GLint(origin.1))
            glUniform4i(p.uniformLocation("u_valid"), GLint(valid.0), GLint(valid.1), GLint(valid.2), GLint(valid.3))
            glUniform2i(p.uniformLocation("u_direction"), direction.0, direction.1)
            glUniform1i(p.uniformLocation("u_radius"), GLint(weights.count - 1))
            glUniform1i(p.uniformLocation("u_clampEdges"), clampEdges ? 1 : 0)
            weights.withUnsafeBufferPointer { glUniform1fv(p.uniformLocation("u_weights[0]"), GLsizei($0.count), $0.baseAddress) }
            if let tint {
                let c = tint.premultiplied
                glUniform4f(p.uniformLocation("u_tint"), GLfloat(c.r), GLfloat(c.g), GLfloat(c.b), GLfloat(c.a))
            } else {
                glUniform4f(p.uniformLocation("u_tint"), 0, 0, 0, -1)
            }
        }
        LaminaGLState.setBlending(true, indexed: indexed)
        pass.submit()
        passes += 1
    }
}

extension RenderPass {
    /// Copies `region` (pixels of the target, top-left origin; clamped to it) of what the
    /// pass's target holds now into `destination` at (0, 0), top row first: the backdrop a
    /// blend mode or a backdrop blur reads. Quads pending are drawn first.
    public func copyPixels(_ region: PixelRect, into destination: OffscreenTarget) throws {
        guard !isSubmitted else { throw RenderPassError.usedAfterSubmit(operation: "copyPixels") }
        let x0 = max(0, region.x), y0 = max(0, region.y)
        let x1 = min(target.pixelSize.width, region.x + region.width), y1 = min(target.pixelSize.height, region.y + region.height)
        guard x1 > x0, y1 > y0 else { return }
        flush()
        prepare()
        // A caller's framebuffer may read from another buffer (its own state): Lamina's
        // colour buffer is read, then the caller's choice put back.
        glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), target.framebufferName)
        var readBuffer: GLint = 0
        let external = target.texture == nil
        if external { glGetIntegerv(GLenum(GL_READ_BUFFER), &readBuffer) }
        let redirect = external && GLenum(readBuffer) != target.laminaColorBuffer
        if redirect { glReadBuffer(target.laminaColorBuffer) }
        defer {
            if redirect {
                glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), target.framebufferName)
                glReadBuffer(GLenum(readBuffer))
            }
        }
        // A multisampled framebuffer (a host's) can only be blitted whole, to the same place
        // and format: resolved into a single-sample renderbuffer of its format first.
        var samples: GLint = 0
        glGetIntegerv(GLenum(GL_SAMPLE_BUFFERS), &samples)
        var resolveFramebuffer: GLuint = 0, resolveBuffer: GLuint = 0
        defer {
            if resolveFramebuffer != 0 { glDeleteFramebuffers(1, &resolveFramebuffer) }
            if resolveBuffer != 0 { glDeleteRenderbuffers(1, &resolveBuffer) }
        }
        glDisable(GLenum(GL_SCISSOR_TEST))
        if samples > 0 {
            let whole = target.framebufferSize
            let attachment = GLenum(target.framebufferName == 0 ? GL_BACK : GL_COLOR_ATTACHMENT0)
            func bits(_ name: Int32) -> GLint {
                var v: GLint = 0
                glGetFramebufferAttachmentParameteriv(GLenum(GL_READ_FRAMEBUFFER), attachment, GLenum(name), &v)
                return v
            }
            let format: Int32
            switch (bits(GL_FRAMEBUFFER_ATTACHMENT_RED_SIZE), bits(GL_FRAMEBUFFER_ATTACHMENT_GREEN_SIZE),
                    bits(GL_FRAMEBUFFER_ATTACHMENT_BLUE_SIZE), bits(GL_FRAMEBUFFER_ATTACHMENT_ALPHA_SIZE)) {
            case (8, 8, 8, 8): format = GL_RGBA8
            case (8, 8, 8, 0): format = GL_RGB8
            case (5, 6, 5, 0): format = GL_RGB565
            case (10, 10, 10, 2): format = GL_RGB10_A2
            case (5, 5, 5, 1): format = GL_RGB5_A1
            case (4, 4, 4, 4): format = GL_RGBA4
            case let other:
                throw GPUError.unusableTarget(reason: "a blend mode or backdrop blur reads the target's pixels, and its multisampled framebuffer has a colour format (\(other.0)/\(other.1)/\(other.2)/\(other.3) bits) that cannot be resolved: use an 8-bit RGB(A), 565 or 10-bit framebuffer, a single-sample one, or render into an OffscreenTarget")
            }
            glGenRenderbuffers(1, &resolveBuffer)
            glBindRenderbuffer(GLenum(GL_RENDERBUFFER), resolveBuffer)
            glRenderbufferStorage(GLenum(GL_RENDERBUFFER), GLenum(format), GLsizei(whole.width), GLsizei(whole.height))
            glBindRenderbuffer(GLenum(GL_RENDERBUFFER), 0)
            glGenFramebuffers(1, &resolveFramebuffer)
            glBindFramebuffer(GLenum(GL_DRAW_FRAMEBUFFER), resolveFramebuffer)
            glFramebufferRenderbuffer(GLenum(GL_DRAW_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_RENDERBUFFER), resolveBuffer)
            glBlitFramebuffer(0, 0, GLint(whole.width), GLint(whole.height), 0, 0, GLint(whole.width), GLint(whole.height),
                              GLbitfield(GL_COLOR_BUFFER_BIT), GLenum(GL_NEAREST))
            glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), resolveFramebuffer)
        }
        let src = target.glScissor(for: PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0))
        let dx0 = GLint(x0 - region.x), dy0 = GLint(y0 - region.y)
        let dx1 = dx0 + src.width, dy1 = dy0 + src.height
        glBindFramebuffer(GLenum(GL_DRAW_FRAMEBUFFER), destination.framebufferName)
        if target.bottomRowFirst {
            glBlitFramebuffer(src.x, src.y, src.x + src.width, src.y + src.height, dx0, dy1, dx1, dy0,
                              GLbitfield(GL_COLOR_BUFFER_BIT), GLenum(GL_NEAREST))
        } else {
            glBlitFramebuffer(src.x, src.y, src.x + src.width, src.y + src.height, dx0, dy0, dx1, dy1,
                              GLbitfield(GL_COLOR_BUFFER_BIT), GLenum(GL_NEAREST))
        }
        device.gl.activePass = nil   // the pass sets its state again before it draws
        device.checkGLError("glBlitFramebuffer (a backdrop copy of \(region))")
    }

    /// Draws `image` into `rect` (points, under `transform`) blended with what the target
    /// holds there by `mode` (exact on premultiplied colour; `blend.frag`), faded by
    /// `alpha`. `backdrop` must hold a copy of the target's pixels under `rect`
    /// (`copyPixels`), addressed by the same unit coordinates as `image`.
    public func drawBlended(_ image: Texture, backdrop: Texture, in rect: Rect, mode: BlendMode, alpha: Double,
                            transform: Transform3D = .identity) throws {
        guard !isSubmitted else { throw RenderPassError.usedAfterSubmit(operation: "drawBlended") }
        let program = try device.program(vertex: "quad.vert", fragment: "blend.frag")
        let indexed = device.gl.indexedDrawBuffers
        // Unit 1 holds the backdrop: what it held (a host's binding) is put back after.
        var savedTexture: GLint = 0, savedSampler: GLint = 0
        draw(with: program, in: rect, transform: transform) { p in
            LaminaGLState.setBlending(false, indexed: indexed)
            glActiveTexture(GLenum(GL_TEXTURE1))
            glGetIntegerv(GLenum(GL_TEXTURE_BINDING_2D), &savedTexture)
            glGetIntegerv(GLenum(GL_SAMPLER_BINDING), &savedSampler)
            glBindTexture(GLenum(GL_TEXTURE_2D), backdrop.name)
            glBindSampler(1, device.sampler(min: .nearest, mag: .nearest).name)
            glActiveTexture(GLenum(GL_TEXTURE0))
            glBindTexture(GLenum(GL_TEXTURE_2D), image.name)
            glBindSampler(0, device.sampler(min: .nearest, mag: .nearest).name)
            glUniform1i(p.uniformLocation("u_texture"), 0)
            glUniform1i(p.uniformLocation("u_backdrop"), 1)
            glUniform1f(p.uniformLocation("u_alpha"), GLfloat(alpha))
            glUniform1i(p.uniformLocation("u_mode"), mode.rawValue)
        }
        LaminaGLState.setBlending(true, indexed: indexed)
        glActiveTexture(GLenum(GL_TEXTURE1))
        glBindTexture(GLenum(GL_TEXTURE_2D), GLuint(savedTexture))
        glBindSampler(1, GLuint(savedSampler))
        glActiveTexture(GLenum(GL_TEXTURE0))
    }
}

extension RenderPass {
    /// Multiplies what the target holds inside `rect` (points, under `transform`) by the
    /// alpha of `mask` drawn there ("destination in": a mask layer), every channel. The
    /// quad may reach past the mask's image: `maskSource` is the unit rectangle of the mask
    /// the quad shows (outside 0…1 the alpha is 0).
    public func multiplyByAlpha(of mask: Texture, in rect: Rect, maskSource: Rect = Rect(x: 0, y: 0, width: 1, height: 1),
                                transform: Transform3D = .identity) throws {
        guard !isSubmitted else { throw RenderPassError.usedAfterSubmit(operation: "multiplyByAlpha") }
        let program = try device.program(vertex: "quad.vert", fragment: "mask.frag")
        let indexed = device.gl.indexedDrawBuffers
        let zero = GLenum(GL_ZERO), alpha = GLenum(GL_SRC_ALPHA)
        draw(with: program, in: rect, transform: transform) { p in
            if let i = indexed { i.blendFunc(0, zero, alpha, zero, alpha) } else { glBlendFuncSeparate(zero, alpha, zero, alpha) }
            glActiveTexture(GLenum(GL_TEXTURE0))
            glBindTexture(GLenum(GL_TEXTURE_2D), mask.name)
            glBindSampler(0, device.sampler(min: .linear, mag: .linear).name)
            glUniform1i(p.uniformLocation("u_texture"), 0)
            glUniform4f(p.quadUniforms.texRect, GLfloat(maskSource.minX), GLfloat(maskSource.minY),
                        GLfloat(maskSource.width), GLfloat(maskSource.height))
        }
        LaminaGLState.setAdditive(false, indexed: indexed)   // back to premultiplied source-over
    }
}

extension GPUDevice {
    /// Renders a gradient into `target` (the whole target is the layer's bounds, `size`
    /// points): colours (straight alpha) at increasing `locations` (0…1), interpolated in
    /// premultiplied colour, dithered by half an 8-bit step when `dither` is set.
    /// At most 16 stops (more are resampled to 16).
    public func renderGradient(_ type: GradientType, colors: [Color], locations: [Double], start: Point, end: Point,
                               size: Size, dither: Bool = true, into target: OffscreenTarget) throws {
        guard !colors.isEmpty else { return }
        var stops = Array(zip(locations, colors))
        if stops.count > 16 {
            stops = (0..<16).map { i in stops[i * (stops.count - 1) / 15] }
        }
        let program = try self.program(vertex: "quad.vert", fragment: "gradient.frag")
        let pass = try beginRenderPass(on: target, clear: .clear)
        var colorValues: [GLfloat] = [], locationValues: [GLfloat] = []
        for (l, c) in stops {
            let p = c.premultiplied
            colorValues += [GLfloat(p.r), GLfloat(p.g), GLfloat(p.b), GLfloat(p.a)]
            locationValues.append(GLfloat(l))
        }
        pass.draw(with: program, in: Rect(origin: .zero, size: target.size)) { p in
            glUniform1i(p.uniformLocation("u_type"), type.rawValue)
            glUniform2f(p.uniformLocation("u_size"), GLfloat(size.width), GLfloat(size.height))
            glUniform2f(p.uniformLocation("u_start"), GLfloat(start.x), GLfloat(start.y))
            glUniform2f(p.uniformLocation("u_end"), GLfloat(end.x), GLfloat(end.y))
            glUniform1i(p.uniformLocation("u_count"), GLint(stops.count))
            glUniform4fv(p.uniformLocation("u_colors[0]"), GLsizei(stops.count), colorValues)
            glUniform1fv(p.uniformLocation("u_locations[0]"), GLsizei(stops.count), locationValues)
            glUniform1f(p.uniformLocation("u_dither"), dither ? 1 : 0)
        }
        pass.submit()
    }
}

import LaminaValues
import CEGL
import CGLES
import Glibc
import LaminaGeometry
import Synchronization

/// The YUV-to-RGB matrix of a YUV buffer.
public enum YUVColorSpace: String, Sendable, CaseIterable {
    case bt601, bt709, bt2020
    var egl: EGLAttrib {
        switch self {
        case .bt601: return EGLAttrib(EGL_ITU_REC601_EXT)
        case .bt709: return EGLAttrib(EGL_ITU_REC709_EXT)
        case .bt2020: return EGLAttrib(EGL_ITU_REC2020_EXT)
        }
    }
}

/// The range of a YUV buffer's samples: `limited` (Y 16–235, U/V 16–240: video) or
/// `full` (0–255: JPEG, most cameras' stills).
public enum YUVRange: String, Sendable, CaseIterable {
    case limited, full
    var egl: EGLAttrib { EGLAttrib(self == .limited ? EGL_YUV_NARROW_RANGE_EXT : EGL_YUV_FULL_RANGE_EXT) }
}

/// A buffer another component produced — a video decoder's or camera's frame, a Wayland
/// client's dma-buf, another GPU context's render — shown as layer contents
/// (`LayerContents.external`) without a CPU copy: each device that composites it imports
/// it once (an EGL image, cached while the buffer object lives) and samples it in place.
///
/// Lending: the producer may write the buffer again only after Lamina released it. Once a
/// layer shows it (its contents set to it), Lamina reads it until no layer of any
/// compositor shows it (drawn or not) and the GPU finished the frames that did; then
/// `releaseHandler` is called — on a Lamina thread that waits for the GPU, without
/// needing another frame — as `wl_buffer.release` is. A producer that writes before
/// the GPU is done sets an `acquireFence` (`setAcquireFence`) before lending it: Lamina
/// waits for it before sampling.
public final class ExternalBuffer: @unchecked Sendable, Identifiable {
    /// Never reused in a process (the import caches are keyed by it).
    public let id: UInt64
    /// The planes (fds owned by the buffer: closed when it is freed).
    public let dmaBuf: DMABuf
    public let colorSpace: YUVColorSpace
    public let range: YUVRange
    /// Who converts YUV to RGB (ignored for RGB formats).
    public let conversion: YUVConversion
    /// How many pixels, and whether every one is opaque (formats without alpha, YUV).
    public var pixelSize: PixelSize { PixelSize(width: dmaBuf.width, height: dmaBuf.height) }
    public var isOpaque: Bool { dmaBuf.format.isYUV || !dmaBuf.format.hasAlpha }
    private let state = Locked<(fence: SyncFence?, fenceSerial: UInt64, release: (@Sendable (ExternalBuffer) -> Void)?, readers: Int,
                                generation: UInt64)>((nil, 0, nil, 0, 0))
    private static let counter = Atomic<UInt64>(0)

    /// A buffer of `dmaBuf`'s planes (which it now owns). `colorSpace` and `range` say how
    /// its YUV samples map to RGB and `conversion` who does it (ignored for RGB formats).
    public init(_ dmaBuf: DMABuf, colorSpace: YUVColorSpace = .bt709, range: YUVRange = .limited, conversion: YUVConversion = .lamina,
                releaseHandler: (@Sendable (ExternalBuffer) -> Void)? = nil) {
        self.dmaBuf = dmaBuf; self.colorSpace = colorSpace; self.range = range; self.conversion = conversion
        id = ExternalBuffer.counter.add(1, ordering: .relaxed).newValue
        state.withLock { $0.release = releaseHandler }
    }

    /// Called when Lamina no longer reads the buffer (see the type's description).
    public var releaseHandler: (@Sendable (ExternalBuffer) -> Void)? {
        get { state.withLock { $0.release } }
        set { state.withLock { $0.release = newValue } }
    }

    /// The fence frames that sample the buffer wait for first (the producer's writes
    /// complete): each device waits once for each fence set; a YUV buffer is converted
    /// again after it.
    public func setAcquireFence(_ fence: SyncFence?) { state.withLock { $0.fence = fence; $0.fenceSerial += 1 } }

    /// The acquire fence and which one it is (a serial, 0: none ever set).
    func acquireFence() -> (fence: SyncFence?, serial: UInt64) { state.withLock { ($0.fence, $0.fenceSerial) } }

    /// Which frame the buffer holds: bumped each time a layer's contents are set to it
    /// (the producer wrote a new frame), so that every device converts a YUV frame once.
    public var generation: UInt64 { state.withLock { $0.generation } }

    /// Notes that the buffer holds a new frame; returns its generation.
    @discardableResult
    public func newFrame() -> UInt64 { state.withLock { $0.generation += 1; return $0.generation } }

    /// A renderer starts reading the buffer (a compositor showing it).
    package func beginReading() { state.withLock { $0.readers += 1 } }

    /// A renderer no longer reads it (its GPU work done): the last one calls the release
    /// handler.
    package func endReading() {
        let handler = state.withLock { s -> (@Sendable (ExternalBuffer) -> Void)? in
            s.readers = max(0, s.readers - 1)
            return s.readers == 0 ? s.release : nil
        }
        handler?(self)
    }
}

extension GPUDevice {
    /// Imports a dma-buf as a texture (`EGL_LINUX_DMA_BUF_EXT`): every plane, with its
    /// modifier, and for YUV the colour space and range. RGB formats become `GL_TEXTURE_2D`
    /// (unless the driver imports the format only as external); YUV formats a
    /// `GL_TEXTURE_EXTERNAL_OES` texture the driver converts to RGB as it samples
    /// (`Texture.isExternal`). The texture shares the buffer's memory; the fds may be
    /// closed afterwards.
    public func importDMABuf(_ buf: DMABuf, colorSpace: YUVColorSpace = .bt709, range: YUVRange = .limited) throws -> Texture {
        guard !isClosed else { throw GPUError.deviceClosed(operation: "importDMABuf") }
        guard capabilities.dmaBufImport else {
            throw GPUError.loggedEGLFailure(call: "importDMABuf", error: "no EGL_EXT_image_dma_buf_import", hint: "this driver cannot import dma-bufs")
        }
        guard let target = eglImageTargetTexture else {
            throw GPUError.loggedEGLFailure(call: "eglGetProcAddress(glEGLImageTargetTexture2DOES)", error: "not found", hint: "this driver lacks GL_OES_EGL_image")
        }
        let layout = buf.format.planeLayout
        guard buf.planes.count == layout.count else {
            throw GPUError.invalidArgument(operation: "importDMABuf", reason: "\(buf.format) has \(layout.count) plane(s), the dma-buf describes \(buf.planes.count)")
        }
        for (i, p) in buf.planes.enumerated() {
            let rowBytes = (buf.width + layout[i].subsampleX - 1) / layout[i].subsampleX * layout[i].bytesPerSample
            guard p.fd >= 0, p.offset >= 0, p.stride >= rowBytes else {
                throw GPUError.invalidArgument(operation: "importDMABuf", reason: "plane \(i) of a \(buf.width)×\(buf.height) \(buf.format) buffer needs an fd and a stride of at least \(rowBytes) bytes (got fd \(p.fd), offset \(p.offset), stride \(p.stride))")
            }
        }
        try validate(PixelSize(width: buf.width, height: buf.height), what: "dma-buf texture", maximum: capabilities.maxTextureSize)
        let external = importsExternalOnly(buf.format, modifier: buf.modifier)
        if external && !capabilities.glExtensions.contains("GL_OES_EGL_image_external_essl3") {
            throw GPUError.loggedEGLFailure(call: "importDMABuf(\(buf.format))", error: "no GL_OES_EGL_image_external_essl3",
                                            hint: "the driver cannot sample \(buf.format) buffers: convert them to RGB before handing them over")
        }
        return try gl.withCurrentThrowing {
            try importDMABufInScope(buf, colorSpace: colorSpace, range: range, external: external, target: target)
        }
    }

    private func importDMABufInScope(_ buf: DMABuf, colorSpace: YUVColorSpace, range: YUVRange, external: Bool,
                                     target: PFNGLEGLIMAGETARGETTEXTURE2DOESPROC) throws -> Texture {
        let planeKeys: [(fd: Int32, offset: Int32, pitch: Int32, lo: Int32, hi: Int32)] = [
            (EGL_DMA_BUF_PLANE0_FD_EXT, EGL_DMA_BUF_PLANE0_OFFSET_EXT, EGL_DMA_BUF_PLANE0_PITCH_EXT, EGL_DMA_BUF_PLANE0_MODIFIER_LO_EXT, EGL_DMA_BUF_PLANE0_MODIFIER_HI_EXT),
            (EGL_DMA_BUF_PLANE1_FD_EXT, EGL_DMA_BUF_PLANE1_OFFSET_EXT, EGL_DMA_BUF_PLANE1_PITCH_EXT, EGL_DMA_BUF_PLANE1_MODIFIER_LO_EXT, EGL_DMA_BUF_PLANE1_MODIFIER_HI_EXT),
            (EGL_DMA_BUF_PLANE2_FD_EXT, EGL_DMA_BUF_PLANE2_OFFSET_EXT, EGL_DMA_BUF_PLANE2_PITCH_EXT, EGL_DMA_BUF_PLANE2_MODIFIER_LO_EXT, EGL_DMA_BUF_PLANE2_MODIFIER_HI_EXT),
        ]
        var attrs: [EGLAttrib] = [EGLAttrib(EGL_WIDTH), buf.width, EGLAttrib(EGL_HEIGHT), buf.height,
                                  EGLAttrib(EGL_LINUX_DRM_FOURCC_EXT), EGLAttrib(buf.fourcc)]
        let withModifier = buf.modifier != .invalid && capabilities.dmaBufImportModifiers
        for (i, p) in buf.planes.enumerated() {
            let k = planeKeys[i]
            attrs += [EGLAttrib(k.fd), EGLAttrib(p.fd), EGLAttrib(k.offset), p.offset, EGLAttrib(k.pitch), p.stride]
            if withModifier {
                attrs += [EGLAttrib(k.lo), EGLAttrib(buf.modifier.rawValue & 0xffff_ffff), EGLAttrib(k.hi), EGLAttrib(buf.modifier.rawValue >> 32)]
            }
        }
        if buf.format.isYUV {
            attrs += [EGLAttrib(EGL_YUV_COLOR_SPACE_HINT_EXT), colorSpace.egl, EGLAttrib(EGL_SAMPLE_RANGE_HINT_EXT), range.egl]
        }
        attrs.append(EGLAttrib(EGL_NONE))
        guard let image = eglCreateImage(display, nil, EGLenum(EGL_LINUX_DMA_BUF_EXT), nil, attrs) else {
            let planes = buf.planes.map { "offset \($0.offset) stride \($0.stride)" }.joined(separator: "; ")
            throw GPUError.loggedEGLFailure(call: "eglCreateImage(EGL_LINUX_DMA_BUF_EXT, \(buf.format) \(buf.width)×\(buf.height), modifier \(buf.modifier), \(planes))",
                                            error: lastEGLError(), hint: "the driver refused this buffer layout (GPUDevice.dmaBufFormats() lists what it imports)")
        }
        var t: GLuint = 0
        glGenTextures(1, &t)
        gl.ledger.imageCreated(image)
        let texture = Texture(gl: gl, name: t, pixelSize: PixelSize(width: buf.width, height: buf.height), byteOrder: .rgba)
        texture.eglImage = image
        texture.isExternal = external
        let glTarget = texture.glTarget
        if external {
            glBindTexture(glTarget, t)
        } else {
            LaminaGLState.bindForTransfer(texture: t)
        }
        _ = glGetError()
        target(glTarget, image)
        let e = glGetError()
        guard e == GLenum(GL_NO_ERROR) else {
            texture.release()
            throw GPUError.loggedEGLFailure(call: "glEGLImageTargetTexture2DOES(\(external ? "GL_TEXTURE_EXTERNAL_OES" : "GL_TEXTURE_2D"))",
                                            error: glErrorName(e), hint: "the driver cannot texture from this \(buf.format) dma-buf")
        }
        if external {
            glTexParameteri(glTarget, GLenum(GL_TEXTURE_MIN_FILTER), GL_LINEAR)
            glTexParameteri(glTarget, GLenum(GL_TEXTURE_MAG_FILTER), GL_LINEAR)
            glTexParameteri(glTarget, GLenum(GL_TEXTURE_WRAP_S), GL_CLAMP_TO_EDGE)
            glTexParameteri(glTarget, GLenum(GL_TEXTURE_WRAP_T), GL_CLAMP_TO_EDGE)
            glBindTexture(glTarget, 0)
        } else {
            configure(texture)
        }
        return texture
    }

    /// The texture of an external buffer on this device, to sample as premultiplied RGBA:
    /// imported on first use and kept while the buffer object lives (its EGL images re-used
    /// frame after frame). A YUV buffer converted by Lamina (`YUVConversion.lamina`) is
    /// converted on the GPU into a texture of its own, again for each new `frame` (nil:
    /// at every call). The buffer's acquire fence, if set, is waited for first (on the GPU
    /// where the driver can; user-signalled fences on the CPU, at most `fenceTimeout`
    /// seconds: past that it is drawn anyway, and the wait is logged).
    public func texture(for buffer: ExternalBuffer, frame: UInt64? = nil, fenceTimeout: Double = 1) throws -> Texture {
        guard !isClosed else { throw GPUError.deviceClosed(operation: "texture(for:)") }
        var entry: ExternalImport
        if let cached = externalImports[buffer.id], cached.buffer === buffer, !cached.isLost {
            entry = cached
        } else {
            sweepExternalImports()
            entry = try importExternal(buffer)
            externalImports[buffer.id] = entry
            externalImportCount += 1
        }
        let (fence, serial) = buffer.acquireFence()
        if let fence, serial != entry.waitedFence {
            let done = try gl.withCurrentThrowing {
                gl.pendingPass?.flush()
                return fence.serverWait(on: self, timeout: fenceTimeout)
            }
            if !done { LaminaLog.logger.warning("external buffer \(buffer.id): its acquire fence did not signal within \(fenceTimeout) s; drawn anyway") }
            entry.waitedFence = serial
            entry.convertedFrame = nil
        }
        guard let converted = entry.converted else {
            externalImports[buffer.id] = entry
            return entry.planes[0]
        }
        if frame == nil || entry.convertedFrame != frame {
            try convertYUV(buffer, planes: entry.planes, into: converted)
            entry.convertedFrame = frame
            yuvConversionCount += 1
        }
        externalImports[buffer.id] = entry
        return converted.texture!
    }

    /// The import of a buffer: one texture (RGB, or YUV the driver converts), or, for
    /// YUV Lamina converts, a texture per plane and the RGBA target they are converted into.
    private func importExternal(_ buffer: ExternalBuffer) throws -> ExternalImport {
        let buf = buffer.dmaBuf
        guard buf.format.isYUV, buffer.conversion == .lamina, !buf.format.isPackedYUV else {
            return ExternalImport(buffer: buffer, planes: [try importDMABuf(buf, colorSpace: buffer.colorSpace, range: buffer.range)], converted: nil)
        }
        let layout = buf.format.planeLayout
        guard buf.planes.count == layout.count else {
            throw GPUError.invalidArgument(operation: "texture(for:)", reason: "\(buf.format) has \(layout.count) plane(s), the dma-buf describes \(buf.planes.count)")
        }
        var planes: [Texture] = []
        do {
            for (i, plane) in buf.planes.enumerated() {
                let l = layout[i]
                let planeFormat: DRMFormat
                switch l.bytesPerSample {
                case 1: planeFormat = DRMFormat("R8  ")
                case 2: planeFormat = buf.format == .p010 ? DRMFormat("R16 ") : DRMFormat("GR88")
                default: planeFormat = DRMFormat("GR32")   // P010's interleaved 16-bit U, V
                }
                let single = DMABuf(width: (buf.width + l.subsampleX - 1) / l.subsampleX, height: (buf.height + l.subsampleY - 1) / l.subsampleY,
                                    format: planeFormat, modifier: buf.modifier, planes: [plane])
                defer { single.forget() }   // the fds stay the buffer's
                let t = try importDMABuf(single)
                planes.append(t)
            }
            let target = try OffscreenTarget(device: self, pixelSize: buffer.pixelSize, withStencil: false)   // (drawn whole by the conversion)
            return ExternalImport(buffer: buffer, planes: planes, converted: target)
        } catch {
            planes.forEach { $0.release() }
            throw error
        }
    }

    /// Converts the planes into `target` (one pass of yuv.frag).
    private func convertYUV(_ buffer: ExternalBuffer, planes: [Texture], into target: OffscreenTarget) throws {
        let program = try self.program(vertex: "quad.vert", fragment: "yuv.frag")
        let format = buffer.dmaBuf.format
        let tenBit = format == .p010
        let (matrix, offset) = buffer.colorSpace.rgbMatrix(range: buffer.range, tenBit: tenBit)
        let pass = try beginRenderPass(on: target, clear: nil)
        try gl.withCurrentThrowing {
            // Planes 1 and 2 on units 1 and 2 (unit 0 is Lamina's), put back afterwards.
            var saved: [(texture: GLint, sampler: GLint)] = []
            let linear = sampler(key: GPUDevice.samplerKey(min: .linear, mag: .linear)).name
            for unit in 0..<planes.count {
                glActiveTexture(GLenum(GL_TEXTURE0 + Int32(unit)))
                var t: GLint = 0, s: GLint = 0
                glGetIntegerv(GLenum(GL_TEXTURE_BINDING_2D), &t)
                glGetIntegerv(GLenum(GL_SAMPLER_BINDING), &s)
                saved.append((t, s))
                glBindTexture(GLenum(GL_TEXTURE_2D), planes[unit].name)
                glBindSampler(GLuint(unit), linear)
            }
            glActiveTexture(GLenum(GL_TEXTURE0))
            pass.draw(with: program, in: Rect(origin: .zero, size: target.size)) { p in
                glUniform1i(p.uniformLocation("u_plane0"), 0)
                glUniform1i(p.uniformLocation("u_plane1"), 1)
                glUniform1i(p.uniformLocation("u_plane2"), planes.count > 2 ? 2 : 1)
                glUniform1i(p.uniformLocation("u_planar"), planes.count > 2 ? 1 : 0)
                glUniform1i(p.uniformLocation("u_swapUV"), format == .nv21 || format == .yvu420 ? 1 : 0)
                glUniform1f(p.uniformLocation("u_codeScale"), tenBit ? 65535.0 / 64 : 255)
                glUniform3f(p.uniformLocation("u_offset"), offset.0, offset.1, offset.2)
                glUniformMatrix3fv(p.uniformLocation("u_matrix"), 1, GLboolean(GL_FALSE), matrix)
            }
            pass.submit()
            for unit in (0..<planes.count).reversed() {
                glActiveTexture(GLenum(GL_TEXTURE0 + Int32(unit)))
                glBindTexture(GLenum(GL_TEXTURE_2D), GLuint(saved[unit].texture))
                glBindSampler(GLuint(unit), GLuint(saved[unit].sampler))
            }
            glActiveTexture(GLenum(GL_TEXTURE0))
            gl.activePass = nil
            checkGLError("YUV conversion (\(format))")
        }
    }

    /// YUV conversions Lamina ran (one per new frame of a YUV buffer, per device).
    public var yuvConversions: Int { yuvConversionCount }
    /// Acquire fences waited for on the GPU (`eglWaitSync`), not on the CPU.
    public var serverFenceWaits: Int { serverWaitCount }

    /// Frees the imports of external buffers that were freed (the cache keeps an import
    /// only while its buffer object lives), or of every buffer with `all`.
    public func sweepExternalImports(all: Bool = false) {
        for (id, entry) in externalImports where all || entry.buffer == nil || entry.isLost {
            entry.release()
            externalImports[id] = nil
        }
    }

    /// How many external buffers this device has imported (EGL images made), since it opened.
    public var externalBufferImports: Int { externalImportCount }
    /// External buffers with an import cached now.
    public var cachedExternalImports: Int { externalImports.count }

    private func pendingPassFlush() { gl.pendingPass?.flush() }
}

/// One cached import: the buffer (weak: the cache never keeps a producer's buffer alive),
/// its texture or its planes' textures, and the target YUV is converted into (with the
/// frame it holds).
struct ExternalImport {
    weak var buffer: ExternalBuffer?
    let planes: [Texture]
    let converted: OffscreenTarget?
    var convertedFrame: UInt64?
    /// The serial of the acquire fence this device waited for last.
    var waitedFence: UInt64 = 0

    init(buffer: ExternalBuffer, planes: [Texture], converted: OffscreenTarget?) {
        self.buffer = buffer; self.planes = planes; self.converted = converted
    }
    /// Gone with a lost context.
    var isLost: Bool { planes.contains { $0.isReleased } || (converted?.isReleased ?? false) }
    func release() {
        planes.forEach { $0.release() }
        converted?.release()
    }
}

/// Who turns a YUV buffer's samples into RGB.
public enum YUVConversion: String, Sendable {
    /// Lamina: each plane is imported on its own (R8, GR88; R16, GR1616 for P010) and a
    /// shader converts them, with the buffer's colour space and range, into an RGBA
    /// texture — once per new frame, on the GPU. Exact on every driver (the default).
    /// Packed YUYV and UYVY always go to the driver.
    case lamina
    /// The driver: one EGL image sampled as `GL_TEXTURE_EXTERNAL_OES` through a
    /// `samplerExternalOES` shader, converted as the driver sees fit. Mesa 22.3's llvmpipe
    /// samples planar YUV (NV12, YU12, P010) that way as garbage without an error, and
    /// converts packed YUYV/UYVY as BT.601 limited whatever the hints (docs/gbm.md).
    case driver
}

extension YUVColorSpace {
    /// The column-major 3×3 matrix from YUV codes (offsets taken off) to RGB (0…1), and
    /// the offsets, for `range` at 8 bits (or 10).
    func rgbMatrix(range: YUVRange, tenBit: Bool) -> ([Float], (Float, Float, Float)) {
        let (kr, kb) = lumaWeights
        let kg = 1 - kr - kb
        let max: Double = tenBit ? 1023 : 255
        let ys, cs, yo, co: Double
        switch range {
        case .limited: (ys, cs, yo, co) = tenBit ? (876, 896, 64, 512) : (219, 224, 16, 128)
        case .full: (ys, cs, yo, co) = (max, max, 0, tenBit ? 512 : 128)
        }
        // R = Y' + 2(1-Kr) Pr;  G = Y' - 2Kb(1-Kb)/Kg Pb - 2Kr(1-Kr)/Kg Pr;  B = Y' + 2(1-Kb) Pb
        let y = 1 / ys, c = 1 / cs
        let columns: [Double] = [
            y, y, y,                                                    // Y column
            0, -2 * kb * (1 - kb) / kg * c, 2 * (1 - kb) * c,           // U (Pb) column
            2 * (1 - kr) * c, -2 * kr * (1 - kr) / kg * c, 0,           // V (Pr) column
        ]
        return (columns.map { Float($0) }, (Float(yo), Float(co), Float(co)))
    }
}

extension YUVColorSpace {
    /// The luma weights of red and blue (Kr, Kb).
    public var lumaWeights: (red: Double, blue: Double) {
        switch self {
        case .bt601: return (0.299, 0.114)
        case .bt709: return (0.2126, 0.0722)
        case .bt2020: return (0.2627, 0.0593)
        }
    }

    /// Y, U, V (8-bit codes) of an RGB colour (0…1, non-linear as stored), in `range`.
    public func encode(red r: Double, green g: Double, blue b: Double, range: YUVRange) -> (y: UInt8, u: UInt8, v: UInt8) {
        let c = encode(red: r, green: g, blue: b, range: range, bits: 8)
        return (UInt8(c.y), UInt8(c.u), UInt8(c.v))
    }

    /// Y, U, V codes of `bits` bits (8 or 10): limited range is 16–235/16–240 scaled by
    /// 2^(bits−8), full range 0…2^bits−1 with chroma centred on 2^(bits−1).
    public func encode(red r: Double, green g: Double, blue b: Double, range: YUVRange, bits: Int) -> (y: UInt16, u: UInt16, v: UInt16) {
        let (kr, kb) = lumaWeights
        let luma = kr * r + (1 - kr - kb) * g + kb * b
        let pb = (b - luma) / (2 * (1 - kb)), pr = (r - luma) / (2 * (1 - kr))
        let top = Double((1 << bits) - 1), scale = Double(1 << (bits - 8)), mid = Double(1 << (bits - 1))
        func code(_ v: Double) -> UInt16 { UInt16(min(top, max(0, v.rounded()))) }
        switch range {
        case .limited: return (code((16 + 219 * luma) * scale), code(mid + 224 * scale * pb), code(mid + 224 * scale * pr))
        case .full: return (code(top * luma), code(mid + top * pb), code(mid + top * pr))
        }
    }
}

extension GPUDevice {
    /// A YUV frame in a plain GBM buffer (as a software decoder or a camera would hand
    /// one over): software GBM cannot allocate YUV formats, so the planes are laid out by
    /// offset and stride in one ARGB8888 buffer large enough, written through its CPU
    /// mapping. `rgb(x, y)` gives each pixel's colour (0…1); chroma is the average of each
    /// 2×2 block (of each pair for packed 4:2:2). NV12, NV21, YUV420, YVU420, P010 (10-bit
    /// codes in the top of 16-bit words), YUYV and UYVY; GBM backend only.
    public func makeYUVFrame(pixelSize: PixelSize, format: DRMFormat, colorSpace: YUVColorSpace = .bt709, range: YUVRange = .limited,
                             releaseHandler: (@Sendable (ExternalBuffer) -> Void)? = nil,
                             rgb: (Int, Int) -> (Double, Double, Double)) throws -> (buffer: GBMBuffer, frame: ExternalBuffer) {
        guard [.nv12, .nv21, .yuv420, .yvu420, .p010, .yuyv, .uyvy].contains(format) else {
            throw GPUError.invalidArgument(operation: "makeYUVFrame", reason: "\(format): NV12, NV21, YU12, YV12, P010, YUYV or UYVY")
        }
        let (w, h) = (pixelSize.width, pixelSize.height)
        guard w >= 2, h >= 2, w % 2 == 0, h % 2 == 0 else {
            throw GPUError.invalidArgument(operation: "makeYUVFrame", reason: "a 4:2:0 frame needs an even width and height, not \(pixelSize)")
        }
        // Rows of `stride` bytes: Y (h rows), then chroma (h/2 rows of interleaved UV, or
        // h/2 rows each of U and V at half the stride).
        if format.isPackedYUV {
            return try makePackedYUVFrame(pixelSize: pixelSize, format: format, colorSpace: colorSpace, range: range,
                                          releaseHandler: releaseHandler, rgb: rgb)
        }
        if format == .p010 {
            return try makeP010Frame(pixelSize: pixelSize, colorSpace: colorSpace, range: range, releaseHandler: releaseHandler, rgb: rgb)
        }
        let planar = format == .yuv420 || format == .yvu420
        let carrier = try makeGBMBuffer(pixelSize: PixelSize(width: (w + 3) / 4, height: planar ? 2 * h : h + h / 2),
                                        format: .argb8888, modifiers: [.linear], usage: [.rendering, .linear])
        let stride = carrier.planes[0].stride
        let chromaStride = planar ? stride / 2 : stride
        guard chromaStride >= (planar ? w / 2 : w) else {
            throw GPUError.invalidArgument(operation: "makeYUVFrame", reason: "the driver gave the carrier buffer a stride of \(stride) bytes, too small for \(w)-pixel rows: use an even width of at least 8")
        }
        try carrier.withMappedBytes(write: true) { base, mappedStride in
            let p = base.assumingMemoryBound(to: UInt8.self)
            precondition(mappedStride == stride, "the mapping's stride is the buffer's (linear)")
            for y in 0..<h {
                for x in 0..<w {
                    let c = rgb(x, y)
                    p[y * stride + x] = colorSpace.encode(red: c.0, green: c.1, blue: c.2, range: range).y
                }
            }
            for cy in 0..<h / 2 {
                for cx in 0..<w / 2 {
                    var sum = (0.0, 0.0, 0.0)
                    for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        let c = rgb(2 * cx + dx, 2 * cy + dy)
                        sum = (sum.0 + c.0 / 4, sum.1 + c.1 / 4, sum.2 + c.2 / 4)
                    }
                    let e = colorSpace.encode(red: sum.0, green: sum.1, blue: sum.2, range: range)
                    let (first, second) = format == .nv21 || format == .yvu420 ? (e.v, e.u) : (e.u, e.v)
                    if planar {
                        p[h * stride + cy * chromaStride + cx] = first
                        p[h * stride + (h / 2) * chromaStride + cy * chromaStride + cx] = second
                    } else {
                        p[(h + cy) * stride + 2 * cx] = first
                        p[(h + cy) * stride + 2 * cx + 1] = second
                    }
                }
            }
        }
        let carrierBuf = try carrier.exportDMABuf()
        let fd = carrierBuf.fd
        var planes = [DMABuf.Plane(fd: fd, offset: 0, stride: stride)]
        if planar {
            planes.append(DMABuf.Plane(fd: fd, offset: h * stride, stride: chromaStride))
            planes.append(DMABuf.Plane(fd: fd, offset: h * stride + (h / 2) * chromaStride, stride: chromaStride))
        } else {
            planes.append(DMABuf.Plane(fd: fd, offset: h * stride, stride: stride))
        }
        // The frame owns the fd now (the carrier's descriptor lets go of it).
        carrierBuf.forget()
        let buf = DMABuf(width: w, height: h, format: format, modifier: .linear, planes: planes)
        return (carrier, ExternalBuffer(buf, colorSpace: colorSpace, range: range, releaseHandler: releaseHandler))
    }
}

extension GPUDevice {
    /// `makeYUVFrame` for packed 4:2:2 (YUYV, UYVY): one plane, chroma averaged per pair.
    private func makePackedYUVFrame(pixelSize: PixelSize, format: DRMFormat, colorSpace: YUVColorSpace, range: YUVRange,
                                    releaseHandler: (@Sendable (ExternalBuffer) -> Void)?,
                                    rgb: (Int, Int) -> (Double, Double, Double)) throws -> (buffer: GBMBuffer, frame: ExternalBuffer) {
        let (w, h) = (pixelSize.width, pixelSize.height)
        let carrier = try makeGBMBuffer(pixelSize: PixelSize(width: (2 * w + 3) / 4, height: h), format: .argb8888,
                                        modifiers: [.linear], usage: [.rendering, .linear])
        let stride = carrier.planes[0].stride
        try carrier.withMappedBytes(write: true) { base, _ in
            let p = base.assumingMemoryBound(to: UInt8.self)
            for y in 0..<h {
                for pair in 0..<w / 2 {
                    let a = rgb(2 * pair, y), b = rgb(2 * pair + 1, y)
                    let ya = colorSpace.encode(red: a.0, green: a.1, blue: a.2, range: range).y
                    let yb = colorSpace.encode(red: b.0, green: b.1, blue: b.2, range: range).y
                    let c = colorSpace.encode(red: (a.0 + b.0) / 2, green: (a.1 + b.1) / 2, blue: (a.2 + b.2) / 2, range: range)
                    let bytes = format == .yuyv ? [ya, c.u, yb, c.v] : [c.u, ya, c.v, yb]
                    for (i, v) in bytes.enumerated() { p[y * stride + pair * 4 + i] = v }
                }
            }
        }
        let carrierBuf = try carrier.exportDMABuf()
        let buf = DMABuf(width: w, height: h, format: format, modifier: .linear, planes: [DMABuf.Plane(fd: carrierBuf.fd, offset: 0, stride: stride)])
        carrierBuf.forget()
        return (carrier, ExternalBuffer(buf, colorSpace: colorSpace, range: range, conversion: .driver, releaseHandler: releaseHandler))
    }
}

extension GPUDevice {
    /// `makeYUVFrame` for P010: a plane of 16-bit Y words and one of interleaved 16-bit U, V
    /// words, each holding a 10-bit code in its top bits.
    private func makeP010Frame(pixelSize: PixelSize, colorSpace: YUVColorSpace, range: YUVRange,
                               releaseHandler: (@Sendable (ExternalBuffer) -> Void)?,
                               rgb: (Int, Int) -> (Double, Double, Double)) throws -> (buffer: GBMBuffer, frame: ExternalBuffer) {
        let (w, h) = (pixelSize.width, pixelSize.height)
        let carrier = try makeGBMBuffer(pixelSize: PixelSize(width: (2 * w + 3) / 4, height: h + h / 2), format: .argb8888,
                                        modifiers: [.linear], usage: [.rendering, .linear])
        let stride = carrier.planes[0].stride
        try carrier.withMappedBytes(write: true) { base, _ in
            func put(_ offset: Int, _ code: UInt16) {
                let word = code << 6
                base.storeBytes(of: UInt8(word & 0xff), toByteOffset: offset, as: UInt8.self)
                base.storeBytes(of: UInt8(word >> 8), toByteOffset: offset + 1, as: UInt8.self)
            }
            for y in 0..<h {
                for x in 0..<w {
                    let c = rgb(x, y)
                    put(y * stride + 2 * x, colorSpace.encode(red: c.0, green: c.1, blue: c.2, range: range, bits: 10).y)
                }
            }
            for cy in 0..<h / 2 {
                for cx in 0..<w / 2 {
                    var sum = (0.0, 0.0, 0.0)
                    for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        let c = rgb(2 * cx + dx, 2 * cy + dy)
                        sum = (sum.0 + c.0 / 4, sum.1 + c.1 / 4, sum.2 + c.2 / 4)
                    }
                    let e = colorSpace.encode(red: sum.0, green: sum.1, blue: sum.2, range: range, bits: 10)
                    put((h + cy) * stride + 4 * cx, e.u)
                    put((h + cy) * stride + 4 * cx + 2, e.v)
                }
            }
        }
        let carrierBuf = try carrier.exportDMABuf()
        let fd = carrierBuf.fd
        let buf = DMABuf(width: w, height: h, format: .p010, modifier: .linear,
                         planes: [DMABuf.Plane(fd: fd, offset: 0, stride: stride), DMABuf.Plane(fd: fd, offset: h * stride, stride: stride)])
        carrierBuf.forget()
        return (carrier, ExternalBuffer(buf, colorSpace: colorSpace, range: range, releaseHandler: releaseHandler))
    }
}

/// An external buffer can be a layer's contents (`LayerContents.external`).
extension ExternalBuffer: ContentBuffer {}

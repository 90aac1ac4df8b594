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
/// Lending: the producer may write the buffer again only after Lamina released it. Each
/// time a layer starts showing it (its contents set to it), Lamina reads it until no layer
/// shows it and the GPU finished the frames that did; then `releaseHandler` is called
/// (on the compositing thread), as `wl_buffer.release` is. A producer that writes before
/// the GPU is done sets an `acquireFence` (`setAcquireFence`) before lending it: Lamina
/// waits for it before sampling.
public final class ExternalBuffer: @unchecked Sendable, Identifiable {
    /// Never reused in a process (the import caches are keyed by it).
    public let id: UInt64
    /// The planes (fds owned by the buffer: closed when it is freed).
    public let dmaBuf: DMABuf
    public let colorSpace: YUVColorSpace
    public let range: YUVRange
    /// How many pixels, and whether every one is opaque (formats without alpha, YUV).
    public var pixelSize: PixelSize { PixelSize(width: dmaBuf.width, height: dmaBuf.height) }
    public var isOpaque: Bool { dmaBuf.format.isYUV || !dmaBuf.format.hasAlpha }
    private let state = Locked<(fence: SyncFence?, release: (@Sendable (ExternalBuffer) -> Void)?)>((nil, nil))
    private static let counter = Atomic<UInt64>(0)

    /// A buffer of `dmaBuf`'s planes (which it now owns). `colorSpace` and `range` say how
    /// its YUV samples map to RGB (ignored for RGB formats).
    public init(_ dmaBuf: DMABuf, colorSpace: YUVColorSpace = .bt709, range: YUVRange = .limited,
                releaseHandler: (@Sendable (ExternalBuffer) -> Void)? = nil) {
        self.dmaBuf = dmaBuf; self.colorSpace = colorSpace; self.range = range
        id = ExternalBuffer.counter.add(1, ordering: .relaxed).newValue
        state.withLock { $0.release = releaseHandler }
    }

    /// Called when Lamina no longer reads the buffer (see the type's description).
    public var releaseHandler: (@Sendable (ExternalBuffer) -> Void)? {
        get { state.withLock { $0.release } }
        set { state.withLock { $0.release = newValue } }
    }

    /// The fence the next frame that samples the buffer waits for first (the producer's
    /// writes complete). Taken by that frame.
    public func setAcquireFence(_ fence: SyncFence?) { state.withLock { $0.fence = fence } }

    func takeAcquireFence() -> SyncFence? { state.withLock { s in defer { s.fence = nil }; return s.fence } }
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

    /// The texture of an external buffer on this device: imported on first use and kept
    /// while the buffer object lives (its EGL image re-used frame after frame), and waited
    /// for (its acquire fence) when `waitForFence` — at most `fenceTimeout` seconds; past
    /// that it is drawn anyway, and the wait is logged.
    public func texture(for buffer: ExternalBuffer, waitForFence: Bool = true, fenceTimeout: Double = 1) throws -> Texture {
        guard !isClosed else { throw GPUError.deviceClosed(operation: "texture(for:)") }
        let texture: Texture
        if let cached = externalImports[buffer.id], cached.buffer === buffer, !cached.texture.isReleased {
            texture = cached.texture
        } else {
            sweepExternalImports()
            texture = try importDMABuf(buffer.dmaBuf, colorSpace: buffer.colorSpace, range: buffer.range)
            externalImports[buffer.id] = ExternalImport(buffer: buffer, texture: texture)
            externalImportCount += 1
        }
        if waitForFence, let fence = buffer.takeAcquireFence() {
            let done = try gl.withCurrentThrowing {
                pendingPassFlush()
                return fence.serverWait(on: self, timeout: fenceTimeout)
            }
            if !done { LaminaLog.logger.warning("external buffer \(buffer.id): its acquire fence did not signal within \(fenceTimeout) s; drawn anyway") }
        }
        return texture
    }

    /// Frees the imports of external buffers that were freed (the cache keeps an import
    /// only while its buffer object lives), or of every buffer with `all`.
    public func sweepExternalImports(all: Bool = false) {
        for (id, entry) in externalImports where all || entry.buffer == nil || entry.texture.isReleased {
            entry.texture.release()
            externalImports[id] = nil
        }
    }

    /// How many external buffers this device has imported (EGL images made), since it opened.
    public var externalBufferImports: Int { externalImportCount }
    /// External buffers with an import cached now.
    public var cachedExternalImports: Int { externalImports.count }

    private func pendingPassFlush() { gl.pendingPass?.flush() }
}

/// One cached import: the buffer (weak: the cache never keeps a producer's buffer alive)
/// and its texture.
struct ExternalImport {
    weak var buffer: ExternalBuffer?
    let texture: Texture
}

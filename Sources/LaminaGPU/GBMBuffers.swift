import LaminaValues
import CEGL
import CGBM
import CGLES
import Glibc
import LaminaGeometry
import Synchronization

/// A DRM pixel format (a fourcc code from `drm_fourcc.h`): what the bytes of a GBM buffer
/// or a dma-buf mean.
public struct DRMFormat: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The format of a four-character code, e.g. `DRMFormat("AR24")`.
    public init(_ code: StaticString) {
        precondition(code.utf8CodeUnitCount == 4, "a fourcc has four characters")
        let p = code.utf8Start
        rawValue = UInt32(p[0]) | UInt32(p[1]) << 8 | UInt32(p[2]) << 16 | UInt32(p[3]) << 24
    }

    /// 32-bit, bytes B, G, R, A in memory (little-endian ARGB).
    public static let argb8888 = DRMFormat("AR24")
    /// 32-bit, bytes B, G, R, unused: opaque.
    public static let xrgb8888 = DRMFormat("XR24")
    /// 32-bit, bytes R, G, B, A in memory.
    public static let abgr8888 = DRMFormat("AB24")
    /// 32-bit, bytes R, G, B, unused: opaque.
    public static let xbgr8888 = DRMFormat("XB24")
    /// 16-bit 5:6:5, opaque.
    public static let rgb565 = DRMFormat("RG16")
    /// 10 bits a colour channel, 2 of alpha (or unused).
    public static let argb2101010 = DRMFormat("AR30")
    public static let xrgb2101010 = DRMFormat("XR30")
    public static let abgr2101010 = DRMFormat("AB30")
    public static let xbgr2101010 = DRMFormat("XB30")
    /// YUV 4:2:0, two planes: Y, then interleaved U, V (Cb, Cr) at half resolution.
    public static let nv12 = DRMFormat("NV12")
    /// As NV12 with V before U.
    public static let nv21 = DRMFormat("NV21")
    /// YUV 4:2:0, three planes: Y, U, V (`YU12`, I420).
    public static let yuv420 = DRMFormat("YU12")
    /// YUV 4:2:0, three planes: Y, V, U.
    public static let yvu420 = DRMFormat("YV12")
    /// YUV 4:2:0 with 10 bits in 16-bit words, two planes (as NV12).
    public static let p010 = DRMFormat("P010")
    /// Packed YUV 4:2:2, one plane: Y0, U, Y1, V (a webcam's usual format).
    public static let yuyv = DRMFormat("YUYV")
    /// Packed YUV 4:2:2, one plane: U, Y0, V, Y1.
    public static let uyvy = DRMFormat("UYVY")

    /// The formats Lamina renders into (GBM targets and swapchains), where the driver allows.
    public static let renderable: [DRMFormat] = [.argb8888, .xrgb8888, .abgr8888, .xbgr8888, .rgb565,
                                                 .argb2101010, .xrgb2101010, .abgr2101010, .xbgr2101010]
    /// The YUV layouts Lamina imports as contents, where the driver allows.
    public static let yuv: [DRMFormat] = [.nv12, .nv21, .yuv420, .yvu420, .p010, .yuyv, .uyvy]
    /// Packed YUV (one plane): always converted by the driver (`YUVConversion.driver`).
    public var isPackedYUV: Bool { self == .yuyv || self == .uyvy }

    /// The four characters, e.g. "AR24".
    public var description: String {
        String(decoding: (0..<4).map { UInt8((rawValue >> ($0 * 8)) & 0xff) }, as: UTF8.self)
    }

    /// The format has an alpha channel (opaque formats render without one: alpha reads 1).
    public var hasAlpha: Bool { [.argb8888, .abgr8888, .argb2101010, .abgr2101010].contains(self) }
    /// The format is one of the YUV layouts above.
    public var isYUV: Bool { DRMFormat.yuv.contains(self) }
    /// Bytes per pixel of single-plane RGB formats (nil for YUV and unknown formats).
    public var bytesPerPixel: Int? {
        if self == .rgb565 { return 2 }
        return DRMFormat.renderable.contains(self) ? 4 : nil
    }
    /// How many planes a buffer of this format has, and each plane's subsampling
    /// (horizontal, vertical) and bytes per sample.
    public var planeLayout: [(subsampleX: Int, subsampleY: Int, bytesPerSample: Int)] {
        switch self {
        case .nv12, .nv21: return [(1, 1, 1), (2, 2, 2)]
        case .p010: return [(1, 1, 2), (2, 2, 4)]
        case .yuv420, .yvu420: return [(1, 1, 1), (2, 2, 1), (2, 2, 1)]
        case .yuyv, .uyvy: return [(1, 1, 2)]
        case DRMFormat("R8  "): return [(1, 1, 1)]
        case DRMFormat("GR88"), DRMFormat("R16 "): return [(1, 1, 2)]
        case DRMFormat("GR32"): return [(1, 1, 4)]
        default: return [(1, 1, bytesPerPixel ?? 4)]
        }
    }
}

/// A DRM format modifier: the buffer's memory layout (tiling, compression).
public struct DRMModifier: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    /// Rows one after another (every device can read it; scan-out and CPU mapping need it
    /// on many).
    public static let linear = DRMModifier(rawValue: 0)
    /// No modifier given: the layout is the driver's implicit choice.
    public static let invalid = DRMModifier(rawValue: 0x00ff_ffff_ffff_ffff)
    public var description: String {
        switch self {
        case .linear: return "linear"
        case .invalid: return "implicit"
        default: return "0x" + String(rawValue, radix: 16)
        }
    }
}

/// What a GBM buffer is for (`GBM_BO_USE_*`).
public struct GBMUsage: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// GL renders into it (always set for Lamina's targets).
    public static let rendering = GBMUsage(rawValue: GBM_BO_USE_RENDERING.rawValue)
    /// A display controller can show it (KMS planes).
    public static let scanout = GBMUsage(rawValue: GBM_BO_USE_SCANOUT.rawValue)
    /// Linear layout (for CPU access and devices that cannot read tiled memory).
    public static let linear = GBMUsage(rawValue: GBM_BO_USE_LINEAR.rawValue)
    public var description: String {
        [(GBMUsage.rendering, "rendering"), (.scanout, "scanout"), (.linear, "linear")]
            .filter { contains($0.0) }.map(\.1).joined(separator: "+")
    }
}

/// One format the device can import or render, with the modifiers it takes.
public struct DMABufFormatSupport: Sendable, CustomStringConvertible {
    public var format: DRMFormat
    /// Modifiers from `eglQueryDmaBufModifiersEXT`, and whether each can only be sampled as
    /// `GL_TEXTURE_EXTERNAL_OES` (never rendered to).
    public var modifiers: [(modifier: DRMModifier, externalOnly: Bool)]
    /// GBM allocates buffers of this format for rendering (`gbm_device_is_format_supported`).
    public var gbmRendering: Bool
    /// …and for scan-out.
    public var gbmScanout: Bool
    public var description: String {
        let mods = modifiers.map { "\($0.modifier)\($0.externalOnly ? " (external only)" : "")" }.joined(separator: ", ")
        var s = "\(format): import [\(mods.isEmpty ? "implicit" : mods)]"
        if gbmRendering { s += ", GBM rendering" }
        if gbmScanout { s += ", GBM scan-out" }
        return s
    }
}

extension GPUDevice {
    /// The dma-buf formats the device imports (`eglQueryDmaBufFormatsEXT`) with their
    /// modifiers, and, on the GBM backend, which of the renderable formats GBM allocates.
    /// Empty without `EGL_EXT_image_dma_buf_import_modifiers`.
    public func dmaBufFormats() -> [DMABufFormatSupport] {
        guard !isClosed, capabilities.dmaBufImportModifiers,
              let queryFormats = eglProcedure("eglQueryDmaBufFormatsEXT", as: PFNEGLQUERYDMABUFFORMATSEXTPROC.self),
              let queryModifiers = eglProcedure("eglQueryDmaBufModifiersEXT", as: PFNEGLQUERYDMABUFMODIFIERSEXTPROC.self)
        else { return [] }
        var n: EGLint = 0
        guard queryFormats(display, 0, nil, &n) == EGL_TRUE, n > 0 else { return [] }
        var codes = [EGLint](repeating: 0, count: Int(n))
        guard queryFormats(display, n, &codes, &n) == EGL_TRUE else { return [] }
        return codes.prefix(Int(n)).map { code in
            let format = DRMFormat(rawValue: UInt32(bitPattern: code))
            var m: EGLint = 0
            var mods: [(DRMModifier, Bool)] = []
            if queryModifiers(display, code, 0, nil, nil, &m) == EGL_TRUE, m > 0 {
                var values = [EGLuint64KHR](repeating: 0, count: Int(m))
                var external = [EGLBoolean](repeating: 0, count: Int(m))
                if queryModifiers(display, code, m, &values, &external, &m) == EGL_TRUE {
                    mods = (0..<Int(m)).map { (DRMModifier(rawValue: values[$0]), external[$0] == EGL_TRUE) }
                }
            }
            let rendering = gbm.map { gbm_device_is_format_supported($0.device, format.rawValue, GBMUsage.rendering.rawValue) != 0 } ?? false
            let scanout = gbm.map { gbm_device_is_format_supported($0.device, format.rawValue, GBMUsage([.rendering, .scanout]).rawValue) != 0 } ?? false
            return DMABufFormatSupport(format: format, modifiers: mods, gbmRendering: rendering, gbmScanout: scanout)
        }
    }

    /// Whether the device imports `format` (with `modifier`, when given) only as an
    /// external texture.
    func importsExternalOnly(_ format: DRMFormat, modifier: DRMModifier) -> Bool {
        if format.isYUV { return true }
        if dmaBufFormatCache == nil { dmaBufFormatCache = dmaBufFormats() }
        guard let entry = dmaBufFormatCache?.first(where: { $0.format == format }) else { return false }
        let m = modifier == .invalid ? entry.modifiers.first : entry.modifiers.first { $0.modifier == modifier }
        return m?.externalOnly ?? false
    }
}

/// A buffer object of the device's GBM device: memory the kernel owns that GL renders into
/// (through an EGL image) and that leaves as a dma-buf (KMS scan-out, a Wayland
/// compositor, a video encoder). Freed when released or dropped; it keeps the GBM device
/// open. `gbmBufferObject` is the `struct gbm_bo *` for a KMS program
/// (`gbm_bo_get_handle`, `drmModeAddFB2`).
public final class GBMBuffer: @unchecked Sendable, Identifiable {
    private let gbm: GBMDevice
    private let lock = Locked<OpaquePointer?>(nil)
    /// Never reused in a process.
    public let id: UInt64
    public let pixelSize: PixelSize
    public let format: DRMFormat
    public let modifier: DRMModifier
    public let usage: GBMUsage
    /// Each plane's offset and stride in bytes.
    public let planes: [(offset: Int, stride: Int)]
    /// The GEM handle of plane 0 on the GBM device's DRM fd (for `drmModeAddFB2`).
    public let handle: UInt32
    static let counter = Atomic<UInt64>(0)

    /// Allocates a buffer. `modifiers` (nil: the driver's implicit choice) go to
    /// `gbm_bo_create_with_modifiers2`; the buffer's actual modifier is `modifier`.
    init(gbm: GBMDevice, pixelSize: PixelSize, format: DRMFormat, modifiers: [DRMModifier]?, usage: GBMUsage) throws {
        let w = UInt32(pixelSize.width), h = UInt32(pixelSize.height)
        var bo: OpaquePointer?
        let what: String
        var usage = usage
        var linearByFlag = false
        if let modifiers, !modifiers.isEmpty {
            what = "gbm_bo_create_with_modifiers2(\(pixelSize), \(format), [\(modifiers.map(\.description).joined(separator: ", "))], \(usage))"
            bo = modifiers.map(\.rawValue).withUnsafeBufferPointer {
                gbm_bo_create_with_modifiers2(gbm.device, w, h, format.rawValue, $0.baseAddress, UInt32($0.count), usage.rawValue)
            }
            // Drivers without modifier support (software GBM: ENOSYS, or EINVAL with the
            // LINEAR flag) still allocate linear buffers through the LINEAR usage flag.
            if bo == nil && modifiers.contains(.linear) {
                usage.insert(.linear)
                bo = gbm_bo_create(gbm.device, w, h, format.rawValue, usage.rawValue)
                linearByFlag = bo != nil
            }
        } else {
            what = "gbm_bo_create(\(pixelSize), \(format), \(usage))"
            bo = gbm_bo_create(gbm.device, w, h, format.rawValue, usage.rawValue)
        }
        guard let bo else {
            let reason = String(cString: strerror(errno))
            let supported = gbm_device_is_format_supported(gbm.device, format.rawValue, usage.rawValue) != 0
            throw GPUError.gbmFailure(call: what, reason: "\(reason)\(supported ? "" : " — the driver does not allocate \(format) for \(usage) (GPUDevice.dmaBufFormats() lists what it does)")")
        }
        self.gbm = gbm
        lock.withLock { $0 = bo }
        id = GBMBuffer.counter.add(1, ordering: .relaxed).newValue
        self.pixelSize = pixelSize; self.format = format; self.usage = usage
        let reported = DRMModifier(rawValue: gbm_bo_get_modifier(bo))
        // A buffer allocated LINEAR is linear even where the driver reports no modifier.
        modifier = reported == .invalid && (linearByFlag || usage.contains(.linear)) ? .linear : reported
        planes = (0..<max(1, Int(gbm_bo_get_plane_count(bo)))).map {
            (Int(gbm_bo_get_offset(bo, Int32($0))), Int(gbm_bo_get_stride_for_plane(bo, Int32($0))))
        }
        handle = gbm_bo_get_handle(bo).u32
        gbm.liveBuffers.add(1, ordering: .relaxed)
    }

    /// The `struct gbm_bo *` (nil once released). Do not destroy it: `release()` does.
    public var gbmBufferObject: OpaquePointer? { lock.withLock { $0 } }

    public var isReleased: Bool { gbmBufferObject == nil }

    /// A dma-buf of the buffer: a new fd per plane, which the returned object owns.
    public func exportDMABuf() throws -> DMABuf {
        guard let bo = gbmBufferObject else { throw GPUError.released(what: "the GBM buffer", operation: "exportDMABuf") }
        var fds: [Int32] = []
        for i in planes.indices {
            let fd = gbm_bo_get_fd_for_plane(bo, Int32(i))
            guard fd >= 0 else {
                fds.forEach { _ = Glibc.close($0) }
                throw GPUError.gbmFailure(call: "gbm_bo_get_fd_for_plane(\(i))", reason: String(cString: strerror(errno)))
            }
            fds.append(fd)
        }
        return DMABuf(width: pixelSize.width, height: pixelSize.height, format: format, modifier: modifier,
                      planes: planes.indices.map { DMABuf.Plane(fd: fds[$0], offset: planes[$0].offset, stride: planes[$0].stride) })
    }

    /// Maps the buffer for the CPU (`gbm_bo_map`) and runs `body` with its bytes and stride.
    public func withMappedBytes<T>(write: Bool = false, _ body: (UnsafeMutableRawPointer, Int) throws -> T) throws -> T {
        guard let bo = gbmBufferObject else { throw GPUError.released(what: "the GBM buffer", operation: "gbm_bo_map") }
        var stride: UInt32 = 0
        var mapData: UnsafeMutableRawPointer?
        let flags = write ? GBM_BO_TRANSFER_READ_WRITE.rawValue : GBM_BO_TRANSFER_READ.rawValue
        guard let p = gbm_bo_map(bo, 0, 0, UInt32(pixelSize.width), UInt32(pixelSize.height), flags, &stride, &mapData) else {
            throw GPUError.gbmFailure(call: "gbm_bo_map(\(write ? "READ_WRITE" : "READ"))", reason: String(cString: strerror(errno)))
        }
        defer { gbm_bo_unmap(bo, mapData) }
        return try body(p, Int(stride))
    }

    /// The pixels as the CPU mapping shows them (what another process importing the
    /// dma-buf sees), converted to premultiplied RGBA8, top row first. RGB formats only.
    public func readMappedPixels() throws -> RGBAImage {
        guard let bo = gbmBufferObject else { throw GPUError.released(what: "the GBM buffer", operation: "readMappedPixels") }
        return try GBMBuffer.readMappedPixels(of: bo)
    }

    /// `readMappedPixels()` of any buffer object (one a `gbm_surface` locked, say).
    public static func readMappedPixels(of bo: OpaquePointer) throws -> RGBAImage {
        let format = DRMFormat(rawValue: gbm_bo_get_format(bo))
        guard let bpp = format.bytesPerPixel else {
            throw GPUError.invalidArgument(operation: "GBMBuffer.readMappedPixels", reason: "\(format) is not a single-plane RGB format")
        }
        let (w, h) = (Int(gbm_bo_get_width(bo)), Int(gbm_bo_get_height(bo)))
        var stride: UInt32 = 0
        var mapData: UnsafeMutableRawPointer?
        guard let base = gbm_bo_map(bo, 0, 0, UInt32(w), UInt32(h), GBM_BO_TRANSFER_READ.rawValue, &stride, &mapData) else {
            throw GPUError.gbmFailure(call: "gbm_bo_map(READ)", reason: String(cString: strerror(errno)))
        }
        defer { gbm_bo_unmap(bo, mapData) }
        return try { (base: UnsafeMutableRawPointer, stride: Int) throws -> RGBAImage in
            var out = [UInt8](repeating: 0, count: w * h * 4)
            for y in 0..<h {
                let row = (base + y * stride).assumingMemoryBound(to: UInt8.self)
                for x in 0..<w {
                    let px = DRMFormat.decode(row + x * bpp, format)
                    let i = (y * w + x) * 4
                    out[i] = px.0; out[i + 1] = px.1; out[i + 2] = px.2; out[i + 3] = px.3
                }
            }
            return RGBAImage(width: w, height: h, bytes: out)
        }(base, Int(stride))
    }

    /// Frees the buffer object now (its dma-bufs handed out stay valid: the kernel keeps
    /// the memory while an fd refers to it). Safe to call twice.
    public func release() {
        guard let bo = lock.withLock({ p -> OpaquePointer? in defer { p = nil }; return p }) else { return }
        gbm_bo_destroy(bo)
        gbm.liveBuffers.subtract(1, ordering: .relaxed)
    }

    deinit { release() }
}

extension DRMFormat {
    /// One pixel of a single-plane RGB format, as 8-bit R, G, B, A (alpha 255 for opaque formats).
    static func decode(_ p: UnsafeMutablePointer<UInt8>, _ format: DRMFormat) -> (UInt8, UInt8, UInt8, UInt8) {
        func word32() -> UInt32 { UInt32(p[0]) | UInt32(p[1]) << 8 | UInt32(p[2]) << 16 | UInt32(p[3]) << 24 }
        func ten(_ v: UInt32) -> UInt8 { UInt8((Double(v & 0x3ff) * 255 / 1023).rounded()) }
        func two(_ v: UInt32) -> UInt8 { UInt8((v & 3) * 85) }
        switch format {
        case .argb8888: return (p[2], p[1], p[0], p[3])
        case .xrgb8888: return (p[2], p[1], p[0], 255)
        case .abgr8888: return (p[0], p[1], p[2], p[3])
        case .xbgr8888: return (p[0], p[1], p[2], 255)
        case .rgb565:
            let v = UInt16(p[0]) | UInt16(p[1]) << 8
            func scale(_ x: UInt16, _ bits: UInt16) -> UInt8 { UInt8((Double(x) * 255 / Double((1 << bits) - 1)).rounded()) }
            return (scale(v >> 11, 5), scale((v >> 5) & 0x3f, 6), scale(v & 0x1f, 5), 255)
        case .argb2101010, .xrgb2101010:
            let v = word32()
            return (ten(v >> 20), ten(v >> 10), ten(v), format == .argb2101010 ? two(v >> 30) : 255)
        case .abgr2101010, .xbgr2101010:
            let v = word32()
            return (ten(v), ten(v >> 10), ten(v >> 20), format == .abgr2101010 ? two(v >> 30) : 255)
        default: return (0, 0, 0, 0)
        }
    }
}

extension GPUDevice {
    /// Allocates a GBM buffer on this device's GBM device (GBM backend only). `usage`
    /// always includes `.rendering` when Lamina renders into it.
    public func makeGBMBuffer(pixelSize: PixelSize, format: DRMFormat = .argb8888, modifiers: [DRMModifier]? = nil,
                              usage: GBMUsage = .rendering) throws -> GBMBuffer {
        guard !isClosed else { throw GPUError.deviceClosed(operation: "makeGBMBuffer") }
        guard backend == .gbm, let gbm else {
            throw GPUError.wrongBackend(operation: "a GBM buffer", required: .gbm, actual: backend)
        }
        try validate(pixelSize, what: "GBM buffer", maximum: capabilities.maxTextureSize)
        return try GBMBuffer(gbm: gbm, pixelSize: pixelSize, format: format, modifiers: modifiers, usage: usage)
    }

    /// GBM buffers alive on this device's GBM device (0 on other backends).
    public var liveGBMBufferCount: Int { gbm?.liveBuffers.load(ordering: .relaxed) ?? 0 }

    /// EGL images alive on this device (imported dma-bufs, GBM targets' buffers).
    public var liveEGLImageCount: Int { gl.ledger.imageCount }
}

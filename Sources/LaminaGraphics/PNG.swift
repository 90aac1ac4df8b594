import LaminaValues
import CCairo
import FoundationEssentials
import Glibc
import LaminaGeometry

/// Errors from image files.
public enum GraphicsError: Error, Equatable, CustomStringConvertible, LocalizedError {
    case imageNotFound(path: String)
    case imageUnreadable(path: String, reason: String)
    case imageUnwritable(path: String, reason: String)
    case invalidBitmapSize(PixelSize, maximum: Int)
    case outOfMemory(what: String)

    public var description: String {
        switch self {
        case let .imageNotFound(path): return "image file '\(path)' does not exist; check the path (relative paths are resolved against the current directory or the scene file)"
        case let .imageUnreadable(path, reason): return "cannot read '\(path)' as a PNG image: \(reason)"
        case let .imageUnwritable(path, reason): return "cannot write PNG '\(path)': \(reason)"
        case let .invalidBitmapSize(size, maximum):
            return "a bitmap of \(size) cannot be allocated: each side must be 1…\(maximum) pixels; draw a smaller layer or split it into tiles"
        case let .outOfMemory(what): return "out of memory allocating \(what)"
        }
    }
    public var errorDescription: String? { description }
}

private func cairoMessage(_ status: cairo_status_t) -> String {
    String(cString: cairo_status_to_string(status))
}

/// The structure of a PNG file, checked before libpng decodes it (libpng reports most
/// problems to Cairo as "out of memory"): the signature, every chunk's length and CRC,
/// the header's size, and an IEND at the end.
enum PNGStructure {
    /// Largest width or height accepted, in pixels (the GPU's texture limit on llvmpipe;
    /// a bigger image could not be shown whole anyway).
    static let maximumSide = 16384
    /// Largest PNG file read, in bytes (256 MiB).
    static let maximumFileSize = 256 << 20

    private static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    private static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB88320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFFFFFF
        for b in bytes { c = crcTable[Int((c ^ UInt32(b)) & 0xff)] ^ (c >> 8) }
        return c ^ 0xFFFFFFFF
    }

    private static func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }

    private static func name(_ b: [UInt8], _ at: Int) -> String {
        let bytes = b[at..<at + 4]
        return bytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
            ? String(decoding: bytes, as: UTF8.self) : bytes.map { cFormat("%02X", $0) }.joined(separator: " ")
    }

    /// Nil when the file is a well-formed PNG within the limits, else what is wrong.
    static func problem(in b: [UInt8]) -> String? {
        if b.isEmpty { return "the file is empty" }
        guard b.count >= 8, Array(b[0..<8]) == signature else {
            if b.count < 8, Array(signature.prefix(b.count)) == b { return "truncated: the file ends inside the PNG signature (\(b.count) bytes)" }
            return "not a PNG file: it does not start with the PNG signature (89 50 4E 47 0D 0A 1A 0A)"
        }
        var at = 8
        var sawData = false
        var first = true
        while true {
            guard at + 8 <= b.count else {
                return "truncated: the file ends after \(b.count) bytes without an IEND chunk"
            }
            let length = Int(u32(b, at))
            let type = name(b, at + 4)
            guard length <= 0x7FFF_FFFF else { return "chunk '\(type)' at byte \(at) declares an impossible length (\(length)): the file is corrupt" }
            guard at + 12 + length <= b.count else {
                return "truncated: chunk '\(type)' at byte \(at) needs \(length + 12) bytes, the file ends after \(b.count)"
            }
            let stored = u32(b, at + 8 + length)
            let computed = crc(b[(at + 4)..<(at + 8 + length)])
            guard stored == computed else {
                return "bad CRC in chunk '\(type)' at byte \(at) (stored \(cFormat("%08X", stored)), computed \(cFormat("%08X", computed))): the file is corrupt"
            }
            if first {
                guard type == "IHDR", length == 13 else { return "the first chunk is '\(type)' (\(length) bytes), not a 13-byte IHDR header: the file is corrupt" }
                let w = Int(u32(b, at + 8)), h = Int(u32(b, at + 12))
                guard w > 0, h > 0 else { return "the header says \(w)×\(h) pixels: an image needs at least one pixel" }
                guard w <= maximumSide, h <= maximumSide else {
                    return "the header says \(w)×\(h) pixels: too large, the limit is \(maximumSide) pixels a side"
                }
                first = false
            }
            if type == "IDAT" { sawData = true }
            at += 12 + length
            if type == "IEND" { break }
        }
        return sawData ? nil : "no image data (no IDAT chunk)"
    }
}

extension RGBAImage {
    /// Decodes a PNG file (through Cairo and libpng) into premultiplied RGBA8. The file's
    /// structure is checked first (`PNGStructure`): errors say what is wrong with it — not
    /// a PNG, truncated, a bad CRC, an empty or too large (beyond 16384 px a side) image.
    public init(contentsOfPNG path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw GraphicsError.imageNotFound(path: path) }
        // Only regular files of a bounded size: a device (/dev/zero) or a FIFO never ends.
        let file = regularFileSize(atPath: path)
        guard let file, file.isRegular else {
            throw GraphicsError.imageUnreadable(path: path, reason: "not a regular file (a directory, device or pipe)")
        }
        let size = file.size
        guard size <= PNGStructure.maximumFileSize else {
            throw GraphicsError.imageUnreadable(path: path, reason: "the file is \(size) bytes, beyond the limit of \(PNGStructure.maximumFileSize) bytes for a PNG")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw GraphicsError.imageUnreadable(path: path, reason: "the file cannot be read (no permission?)")
        }
        if let problem = PNGStructure.problem(in: [UInt8](data)) {
            throw GraphicsError.imageUnreadable(path: path, reason: problem)
        }
        guard let loaded = cairo_image_surface_create_from_png(path) else {
            throw GraphicsError.imageUnreadable(path: path, reason: "Cairo could not create an image")
        }
        defer { cairo_surface_destroy(loaded) }
        let status = cairo_surface_status(loaded)
        guard status == CAIRO_STATUS_SUCCESS else {
            // The structure is sound, so libpng failed on the contents (which Cairo reports
            // as "out of memory" or a read error).
            throw GraphicsError.imageUnreadable(path: path, reason: "libpng could not decode the image data (Cairo: \(cairoMessage(status))): its compressed data is corrupt or its format unsupported")
        }
        var surface = loaded
        var converted: OpaquePointer?
        let format = cairo_image_surface_get_format(loaded)
        if format != CAIRO_FORMAT_ARGB32 && format != CAIRO_FORMAT_RGB24 {
            // Grey or 1-bit images: paint them into ARGB32 first.
            let w = cairo_image_surface_get_width(loaded), h = cairo_image_surface_get_height(loaded)
            let s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h)
            let cr = cairo_create(s)
            cairo_set_source_surface(cr, loaded, 0, 0)
            cairo_paint(cr)
            cairo_destroy(cr)
            converted = s
            surface = s!
        }
        defer { if let converted { cairo_surface_destroy(converted) } }
        self = RGBAImage(cairoSurface: surface, opaque: cairo_image_surface_get_format(surface) == CAIRO_FORMAT_RGB24)
    }

    /// Copies a Cairo image surface (ARGB32 or RGB24: native-endian 0xAARRGGBB words).
    init(cairoSurface surface: OpaquePointer, opaque: Bool) {
        cairo_surface_flush(surface)
        let w = Int(cairo_image_surface_get_width(surface)), h = Int(cairo_image_surface_get_height(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        var bytes = [UInt8](repeating: 0, count: w * h * 4)
        if let data = cairo_image_surface_get_data(surface) {
            for y in 0..<h {
                let row = UnsafeRawPointer(data + y * stride)
                for x in 0..<w {
                    let v = row.load(fromByteOffset: x * 4, as: UInt32.self)
                    let i = (y * w + x) * 4
                    bytes[i] = UInt8((v >> 16) & 0xff)
                    bytes[i + 1] = UInt8((v >> 8) & 0xff)
                    bytes[i + 2] = UInt8(v & 0xff)
                    bytes[i + 3] = opaque ? 255 : UInt8(v >> 24)
                }
            }
        }
        self.init(width: w, height: h, bytes: bytes)
    }

    /// Encodes the image as a PNG file (through Cairo and libpng). Alpha is
    /// un-premultiplied on the way, as PNG stores straight alpha.
    public func writePNG(to path: String) throws {
        guard width > 0, height > 0 else { throw GraphicsError.imageUnwritable(path: path, reason: "the image is empty (\(width)×\(height))") }
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)) else {
            throw GraphicsError.imageUnwritable(path: path, reason: "out of memory")
        }
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let data = cairo_image_surface_get_data(surface) else {
            throw GraphicsError.imageUnwritable(path: path, reason: cairoMessage(cairo_surface_status(surface)))
        }
        let stride = Int(cairo_image_surface_get_stride(surface))
        bytes.withUnsafeBufferPointer { src in
            for y in 0..<height {
                let row = UnsafeMutableRawPointer(data + y * stride)
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    // Cairo needs valid premultiplied data: clamp colour to alpha.
                    let a = src[i + 3]
                    let v = UInt32(a) << 24 | UInt32(min(src[i], a)) << 16 | UInt32(min(src[i + 1], a)) << 8 | UInt32(min(src[i + 2], a))
                    row.storeBytes(of: v, toByteOffset: x * 4, as: UInt32.self)
                }
            }
        }
        cairo_surface_mark_dirty(surface)
        let status = cairo_surface_write_to_png(surface, path)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw GraphicsError.imageUnwritable(path: path, reason: cairoMessage(status))
        }
    }
}

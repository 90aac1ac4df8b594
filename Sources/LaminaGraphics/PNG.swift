import CCairo
import Foundation
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

extension RGBAImage {
    /// Decodes a PNG file (through Cairo and libpng) into premultiplied RGBA8.
    public init(contentsOfPNG path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw GraphicsError.imageNotFound(path: path) }
        guard let loaded = cairo_image_surface_create_from_png(path) else {
            throw GraphicsError.imageUnreadable(path: path, reason: "out of memory")
        }
        defer { cairo_surface_destroy(loaded) }
        let status = cairo_surface_status(loaded)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw GraphicsError.imageUnreadable(path: path, reason: cairoMessage(status))
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

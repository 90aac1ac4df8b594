import CCairo
import LaminaGeometry

/// A CPU bitmap that a `GraphicsContext` draws into: a Cairo image surface, premultiplied,
/// in Cairo's native byte order (B, G, R, A on little-endian), rows `bytesPerRow` apart.
/// Opaque bitmaps have no alpha channel (Cairo RGB24: the fourth byte is unused).
/// A layer's backing store; uploaded to the GPU as is (a texture swizzle, no conversion).
public final class Bitmap {
    public let pixelSize: PixelSize
    public let isOpaque: Bool
    let surface: OpaquePointer

    /// Largest side Cairo can allocate.
    public static let maximumSide = 32767

    public init(pixelSize: PixelSize, isOpaque: Bool = false) throws {
        guard pixelSize.width >= 1, pixelSize.height >= 1 else { throw GraphicsError.invalidBitmapSize(pixelSize, maximum: Bitmap.maximumSide) }
        guard pixelSize.width <= Bitmap.maximumSide, pixelSize.height <= Bitmap.maximumSide else {
            throw GraphicsError.invalidBitmapSize(pixelSize, maximum: Bitmap.maximumSide)
        }
        guard let s = cairo_image_surface_create(isOpaque ? CAIRO_FORMAT_RGB24 : CAIRO_FORMAT_ARGB32,
                                                 Int32(pixelSize.width), Int32(pixelSize.height)),
              cairo_surface_status(s) == CAIRO_STATUS_SUCCESS else {
            throw GraphicsError.outOfMemory(what: "a \(pixelSize) bitmap")
        }
        self.surface = s
        self.pixelSize = pixelSize
        self.isOpaque = isOpaque
    }

    deinit { cairo_surface_destroy(surface) }

    public var bytesPerRow: Int { Int(cairo_image_surface_get_stride(surface)) }

    /// Read-only access to the pixel memory (after drawing is flushed).
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        cairo_surface_flush(surface)
        let data = cairo_image_surface_get_data(surface)
        return try body(UnsafeRawBufferPointer(start: data, count: bytesPerRow * pixelSize.height))
    }

    /// The bitmap as premultiplied RGBA (a copy, for tests and PNG files).
    public func rgbaImage() -> RGBAImage { RGBAImage(cairoSurface: surface, opaque: isOpaque) }

    /// Writes the bitmap as a PNG file.
    public func writePNG(to path: String) throws { try rgbaImage().writePNG(to: path) }
}

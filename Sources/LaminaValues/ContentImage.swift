import LaminaGeometry
import Synchronization

/// An immutable image used as layer contents (like `CGImage`): premultiplied RGBA8
/// pixels. A reference type, so that the compositor uploads each image once and shares
/// the texture between every layer showing it.
public final class ContentImage: Sendable {
    public let pixels: RGBAImage
    /// Identity for renderers (never reused).
    public let id: UInt64
    /// Every pixel has alpha 1 (renderers draw it without blending).
    public let isOpaque: Bool
    private static let counter = Atomic<UInt64>(0)
    public init(_ pixels: RGBAImage) {
        self.pixels = pixels
        id = ContentImage.counter.add(1, ordering: .relaxed).newValue
        isOpaque = pixels.bytes.withUnsafeBufferPointer { b in
            var i = 3, all: UInt8 = 255
            while i < b.count { all &= b[i]; i += 4 }
            return all == 255
        }
    }

    public var pixelSize: PixelSize { pixels.pixelSize }
}


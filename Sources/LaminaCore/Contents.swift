import LaminaGeometry
import LaminaGPU
import LaminaGraphics
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

    /// Loads a PNG file.
    public convenience init(contentsOfPNG path: String) throws {
        self.init(try RGBAImage(contentsOfPNG: path))
    }

    public var pixelSize: PixelSize { pixels.pixelSize }
}

/// What a layer shows inside its bounds.
public enum LayerContents {
    /// A CPU image, uploaded to a texture by the compositor when first shown.
    case image(ContentImage)
    /// A texture that already holds premultiplied pixels. Borrowed: the compositor never
    /// releases it.
    case texture(Texture)
    /// What the layer drew (`display()`): a bitmap and its texture.
    case backingStore(BackingStore)
    /// A buffer another component produced (a dma-buf: a video frame, a camera's, another
    /// context's render), sampled in place — imported by each device that composites it,
    /// once per buffer — and released to its producer when no longer read
    /// (`ExternalBuffer`). Setting it again (even the same buffer) tells Lamina that the
    /// buffer holds a new frame: the layer is recomposited.
    case external(ExternalBuffer)

    @MainActor var pixelSize: PixelSize {
        switch self {
        case .image(let i): return i.pixelSize
        case .texture(let t): return t.pixelSize
        case .backingStore(let s): return s.pixelSize
        case .external(let b): return b.pixelSize
        }
    }

    /// The contents as the renderers see them.
    @MainActor var reference: ContentRef {
        switch self {
        case .image(let i): return .image(i)
        case .texture(let t): return .texture(TextureRef(texture: t))
        case .backingStore(let b): return .store(b.reference)
        case .external(let b): return .external(ExternalRef(buffer: b, lend: 0))
        }
    }

    func isSame(as other: LayerContents?) -> Bool {
        switch (self, other) {
        case let (.image(a), .image(b)?): return a === b
        case let (.texture(a), .texture(b)?): return a === b
        case let (.backingStore(a), .backingStore(b)?): return a === b
        // Setting an external buffer again is a new frame in it: never the same.
        default: return false
        }
    }
}

/// How contents are placed in the bounds when their sizes differ (`CALayer.contentsGravity`).
/// Positional gravities use UIKit's y-down sense: `.top` pins to the visual top edge
/// (Core Animation on iOS, whose layers are y-up, swaps top and bottom).
public enum ContentsGravity: String, CaseIterable, Sendable {
    case center, top, bottom, left, right, topLeft, topRight, bottomLeft, bottomRight
    case resize, resizeAspect, resizeAspectFill

    /// The rectangle (in the same space as `bounds`) where contents of `contentSize`
    /// points are drawn. It may extend past the bounds (clipped only by `masksToBounds`).
    public func contentRect(contentSize c: Size, in bounds: Rect) -> Rect {
        let b = bounds.standardized
        switch self {
        case .resize:
            return b
        case .resizeAspect, .resizeAspectFill:
            guard c.width > 0, c.height > 0 else { return b }
            let sx = b.width / c.width, sy = b.height / c.height
            let s = self == .resizeAspect ? min(sx, sy) : max(sx, sy)
            let w = c.width * s, h = c.height * s
            return Rect(x: b.minX + (b.width - w) / 2, y: b.minY + (b.height - h) / 2, width: w, height: h)
        default:
            let x: Double, y: Double
            switch self {
            case .left, .topLeft, .bottomLeft: x = b.minX
            case .right, .topRight, .bottomRight: x = b.maxX - c.width
            default: x = b.minX + (b.width - c.width) / 2
            }
            switch self {
            case .top, .topLeft, .topRight: y = b.minY
            case .bottom, .bottomLeft, .bottomRight: y = b.maxY - c.height
            default: y = b.minY + (b.height - c.height) / 2
            }
            return Rect(x: x, y: y, width: c.width, height: c.height)
        }
    }
}

/// How contents are sized, shared by the model and the renderer's snapshot.
enum ContentsGeometry {
    /// The contents' size in points: the pixels of `contentsRect` over `contentsScale`.
    static func size(pixelSize px: PixelSize, contentsRect: Rect, contentsScale: Double) -> Size {
        let s = contentsScale > 0 ? contentsScale : 1
        return Size(width: Double(px.width) * contentsRect.width / s, height: Double(px.height) * contentsRect.height / s)
    }

    /// Where contents `c` are drawn in the bounds of a layer in state `layer` (per its
    /// gravity), and their size in points.
    static func frame(of c: ContentRef, in layer: LayerState) -> (frame: Rect, size: Size) {
        let size = self.size(pixelSize: c.pixelSize, contentsRect: layer.contentsRect, contentsScale: layer.contentsScale)
        if let placed = layer.properties.contentsPlacement { return (placed, size) }
        return (layer.contentsGravity.contentRect(contentSize: size, in: layer.bounds), size)
    }
}

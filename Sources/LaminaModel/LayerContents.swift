import LaminaGeometry
import LaminaValues
import LaminaGraphics
import Synchronization

/// What a layer shows inside its bounds.
public enum LayerContents {
    /// A CPU image, uploaded to a texture by the compositor when first shown.
    case image(ContentImage)
    /// A texture that already holds premultiplied pixels. Borrowed: the compositor never
    /// releases it.
    case texture(any ContentTexture)
    /// What the layer drew (`display()`): a bitmap and its texture.
    case backingStore(BackingStore)
    /// A buffer another component produced (a dma-buf: a video frame, a camera's, another
    /// context's render), sampled in place — imported by each device that composites it,
    /// once per buffer — and released to its producer when no longer read
    /// (`ExternalBuffer`). Setting it again (even the same buffer) tells Lamina that the
    /// buffer holds a new frame: the layer is recomposited.
    case external(any ContentBuffer)

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

extension ContentImage {
    /// Loads a PNG file.
    public convenience init(contentsOfPNG path: String) throws {
        self.init(try RGBAImage(contentsOfPNG: path))
    }
}

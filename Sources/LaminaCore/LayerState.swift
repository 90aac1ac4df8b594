import LaminaGeometry
import LaminaGPU
import Synchronization

/// A layer's identity for the renderer: unique for the life of the process (an
/// `ObjectIdentifier` is reused once a layer is freed).
public struct LayerID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64
    private static let counter = Atomic<UInt64>(0)
    static func next() -> LayerID { LayerID(rawValue: counter.add(1, ordering: .relaxed).newValue) }
    public static func < (a: LayerID, b: LayerID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "#\(rawValue)" }
}

/// What a layer shows, as the renderer sees it: no model object, only what can cross to
/// another thread (an immutable image, a backing store's identity, a texture handle).
public enum ContentRef: Sendable, Equatable {
    /// An immutable image, uploaded by the renderer when first shown.
    case image(ContentImage)
    /// A backing store's pixels (`ContentUpload`s carry them), by identity.
    case store(StoreRef)
    /// A texture the caller made or lent; the renderer draws it as is.
    case texture(TextureRef)

    public var pixelSize: PixelSize {
        switch self {
        case .image(let i): return i.pixelSize
        case .store(let s): return s.pixelSize
        case .texture(let t): return t.texture.pixelSize
        }
    }

    public static func == (a: ContentRef, b: ContentRef) -> Bool {
        switch (a, b) {
        case let (.image(x), .image(y)): return x === y
        case let (.store(x), .store(y)): return x == y
        case let (.texture(x), .texture(y)): return x.texture === y.texture
        default: return false
        }
    }
}

/// A backing store by identity: its pixels reach the renderer as `ContentUpload`s.
public struct StoreRef: Hashable, Sendable {
    public let id: UInt64
    public let pixelSize: PixelSize
    /// Drawn without alpha (`bgrx`), else premultiplied BGRA (Cairo's ARGB32).
    public let isOpaque: Bool
}

/// A texture used as contents. GL objects live on their device's thread; the renderer
/// that draws it is on that thread.
public struct TextureRef: @unchecked Sendable {
    public let texture: Texture
}

/// Pixels of a backing store for the renderer: a rectangle of it (the whole store, when
/// `isFull`), copied at the commit, rows `rowBytes` apart, in the store's byte order.
public struct ContentUpload: Sendable {
    public let store: StoreRef
    public let region: PixelRect
    public let isFull: Bool
    public let bytes: [UInt8]
    public var rowBytes: Int { region.width * 4 }
}

/// Everything the renderer needs of one layer: its properties and the identities of its
/// sublayers, in order. Sendable: built on the main actor at a commit, used by the renderer.
public struct LayerState: Sendable {
    public var id: LayerID
    public var preservesDepth = false
    public var bounds = Rect.zero
    public var position = Point.zero
    public var anchorPoint = Point(x: 0.5, y: 0.5)
    public var anchorPointZ = 0.0
    public var zPosition = 0.0
    public var transform = Transform3D.identity
    public var sublayerTransform = Transform3D.identity
    public var isDoubleSided = true
    public var backgroundColor: Color?
    public var opacity = 1.0
    public var allowsGroupOpacity = true
    public var isHidden = false
    public var borderWidth = 0.0
    public var borderColor = Color.black
    public var cornerRadius = 0.0
    public var masksToBounds = false
    public var isOpaque = false
    public var contents: ContentRef?
    public var contentsRect = Rect(x: 0, y: 0, width: 1, height: 1)
    public var contentsCenter = Rect(x: 0, y: 0, width: 1, height: 1)
    public var contentsGravity = ContentsGravity.resize
    public var contentsScale = 1.0
    public var minificationFilter = TextureFilter.linear
    public var magnificationFilter = TextureFilter.linear
    public var sublayers: [LayerID] = []

    public init(id: LayerID) { self.id = id }
}

/// What a commit hands each renderer: the state of every layer that changed (a layer
/// whose sublayers changed lists them again; a subtree added to a tree is described
/// whole), the pixels drawn since the last commit, and the layers freed.
public struct RenderUpdate: Sendable {
    public var layers: [LayerState] = []
    public var uploads: [ContentUpload] = []
    public init() {}
    public var isEmpty: Bool { layers.isEmpty && uploads.isEmpty }
}

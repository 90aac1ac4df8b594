import LaminaGeometry
import LaminaValues

/// A layer's contents — an image, a backing store, a texture, an external buffer — placed
/// by its gravity, `contentsRect` and nine-slice `contentsCenter`; clipped by the layer's own
/// `masksToBounds`.
enum ContentsItem: ItemKind {
    static let name = "contents"
    static let phase = ItemPhase.beforeSublayers
    static var clippedByOwnClip: Bool { true }

    static func occurs(in node: RenderNode) -> Bool {
        node.state.contents != nil && node.state.properties.contentsFade == nil
    }

    static func bounds(of item: Item, _ context: BoundsContext) -> TargetBox? {
        let n = item.node
        guard let pixelSize = n.state.contentsPixelSize else { return nil }
        let (frame, size) = ContentsGeometry.frame(pixelSize: pixelSize, in: n.state)
        guard !frame.isEmpty else { return nil }
        item.frame = frame
        item.contentSize = size
        guard context.inFront(n, frame) else { return nil }
        return TargetBox.of(layerRect: frame, through: n.world, everything: context.everything)
    }

    static func draw(_ item: Item, into builder: inout DrawBuilder) {
        let n = item.node, s = n.state
        guard let contents = s.contents else { return }
        // (Read before the contents move into the draw: no second reference to release.)
        let isOpaque = n.alpha >= 1 && contents.isOpaque
        builder.add(.contents(ContentsDraw(content: consume contents, layer: n.id, frame: item.frame, contentSize: item.contentSize,
                                           contentsRect: s.contentsRect, contentsCenter: s.contentsCenter, minFilter: s.minificationFilter,
                                           magFilter: s.magnificationFilter, alpha: n.alpha, isOpaque: isOpaque, transform: n.world)), for: item)
    }
}

extension ContentRef {
    /// Every pixel is opaque (alpha 1).
    var isOpaque: Bool {
        switch self {
        case .image(let i): return i.isOpaque
        case .store(let s): return s.isOpaque
        case .texture, .gl: return false
        case .external(let e): return e.buffer.isOpaque
        }
    }
}

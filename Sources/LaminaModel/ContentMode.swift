import LaminaValues
import LaminaGeometry

/// How a view's snapshot is fitted to its bounds (`UIView.ContentMode`), mapped onto the
/// layer's `contentsGravity`. Every mode but `.redraw` reuses the snapshot when the bounds
/// change; `.redraw` draws again (`needsDisplayOnBoundsChange`).
public enum ContentMode: String, CaseIterable, Sendable {
    case scaleToFill, scaleAspectFit, scaleAspectFill, redraw
    case center, top, bottom, left, right, topLeft, topRight, bottomLeft, bottomRight

    /// The layer gravity that places the snapshot.
    public var contentsGravity: ContentsGravity {
        switch self {
        case .scaleToFill, .redraw: return .resize
        case .scaleAspectFit: return .resizeAspect
        case .scaleAspectFill: return .resizeAspectFill
        case .center: return .center
        case .top: return .top
        case .bottom: return .bottom
        case .left: return .left
        case .right: return .right
        case .topLeft: return .topLeft
        case .topRight: return .topRight
        case .bottomLeft: return .bottomLeft
        case .bottomRight: return .bottomRight
        }
    }

    /// Whether a bounds change redraws the content.
    public var redrawsOnBoundsChange: Bool { self == .redraw }

    /// Whether `contentStretch` applies: only the modes that scale the content (seed 003).
    /// Modes that pin the content to an edge or corner ignore it.
    public var honorsContentStretch: Bool { self == .scaleToFill || self == .scaleAspectFit || self == .scaleAspectFill }
}

extension Layer {
    /// Configures the layer as a view with `mode` and `contentStretch` (a unit rectangle of
    /// the view's bounds, hence of its snapshot) would: gravity, redraw on resize, and the
    /// stretchable centre — the unit rectangle for modes that ignore stretching.
    public func apply(contentMode mode: ContentMode, contentStretch: Rect = Rect(x: 0, y: 0, width: 1, height: 1)) {
        contentsGravity = mode.contentsGravity
        needsDisplayOnBoundsChange = mode.redrawsOnBoundsChange
        contentsCenter = mode.honorsContentStretch ? contentStretch : Layer.unitRect
    }
}

import LaminaGeometry

/// Why a layer's content was drawn.
public enum DisplayReason: Equatable, Sendable, CustomStringConvertible {
    case setNeedsDisplay
    case setNeedsDisplayInRect(Rect)
    /// The bounds changed size with `needsDisplayOnBoundsChange`.
    case boundsChanged
    /// `displayNow()`.
    case displayNow

    public var description: String {
        switch self {
        case .setNeedsDisplay: return "setNeedsDisplay()"
        case .setNeedsDisplayInRect(let r): return "setNeedsDisplay(\(r))"
        case .boundsChanged: return "bounds changed (needsDisplayOnBoundsChange)"
        case .displayNow: return "displayNow()"
        }
    }
}

/// One draw of one layer.
public struct DisplayRecord: Sendable, CustomStringConvertible {
    /// The layer's name, or its type.
    public var layer: String
    public var layerID: LayerID
    /// Every invalidation that led to this draw.
    public var reasons: [DisplayReason]
    /// The rectangle handed to `draw` (bounds coordinates, points).
    public var rect: Rect
    /// The backing-store pixels redrawn and uploaded.
    public var pixelRect: PixelRect
    /// Bytes of it the renderers upload (the redrawn pixels).
    public var uploadedBytes: Int

    public init(layer: String, layerID: LayerID, reasons: [DisplayReason], rect: Rect, pixelRect: PixelRect, uploadedBytes: Int) {
        self.layer = layer; self.layerID = layerID; self.reasons = reasons; self.rect = rect; self.pixelRect = pixelRect
        self.uploadedBytes = uploadedBytes
    }

    public var description: String {
        "\(layer): drew \(rect) (\(pixelRect)), uploaded \(uploadedBytes) B, because \(reasons.map(\.description).joined(separator: ", "))"
    }
}


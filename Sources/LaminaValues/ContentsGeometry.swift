import LaminaGeometry
import Synchronization

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
package enum ContentsGeometry {
    /// The contents' size in points: the pixels of `contentsRect` over `contentsScale`.
    package static func size(pixelSize px: PixelSize, contentsRect: Rect, contentsScale: Double) -> Size {
        let s = contentsScale > 0 ? contentsScale : 1
        return Size(width: Double(px.width) * contentsRect.width / s, height: Double(px.height) * contentsRect.height / s)
    }

    /// Where contents `c` are drawn in the bounds of a layer in state `layer` (per its
    /// gravity), and their size in points.
    package static func frame(of c: ContentRef, in layer: LayerState) -> (frame: Rect, size: Size) {
        frame(pixelSize: c.pixelSize, in: layer)
    }

    /// The frame of contents `pixelSize` big in `layer`, and their size in points.
    package static func frame(pixelSize: PixelSize, in layer: LayerState) -> (frame: Rect, size: Size) {
        let size = self.size(pixelSize: pixelSize, contentsRect: layer.contentsRect, contentsScale: layer.contentsScale)
        if let placed = layer.properties.contentsPlacement { return (placed, size) }
        return (layer.contentsGravity.contentRect(contentSize: size, in: layer.bounds), size)
    }
}


import FoundationEssentials
import Glibc
import LaminaGeometry
import LaminaValues

extension Layer: @MainActor LayerGeometry {}
extension Layer {

    /// Maps this layer's bounds coordinates to the space its root layer is placed in
    /// (the render target's points when the root is composited).
    public var transformToRoot: Transform3D {
        var t = transformToSuperlayer
        var child = self
        while let parent = child.superlayer {
            t = t.concatenating(parent.transformForSublayers).concatenating(parent.transformToSuperlayer)
            child = parent
        }
        return t.concatenating(.flatten)
    }

    /// The layer's rectangle in its superlayer's coordinates: the bounding box of its
    /// bounds under `transformToSuperlayer` (perspective included). Setting it sets
    /// `bounds.size` so that the box has the new size and moves `position` so that the box
    /// has the new origin, so `frame` reads back what was set — when the size can be
    /// solved: identity, scales, quarter turns and other 2D transforms whose box is
    /// invertible. Under 3D transforms or a 45° turn the size is kept and only the
    /// position moves (Apple: frame is undefined under such transforms; set the frame
    /// before the transform, or set bounds and position). A frame that is not finite is
    /// refused (`Layer.invalidValueHandler`).
    public var frame: Rect {
        get { boundingBox(of: bounds, size: bounds.size) }
        set {
            guard accepts(newValue.isFinite, "frame", newValue) else { return }
            let target = newValue.standardized
            var size = bounds.size
            if transform.isIdentity {
                size = target.size
            } else if transform.isAffine2D {
                // Box width = |m11|·w + |m21|·h, height = |m12|·w + |m22|·h: solve for w, h.
                let a = abs(transform.m11), c = abs(transform.m21), b = abs(transform.m12), d = abs(transform.m22)
                let det = a * d - b * c
                if abs(det) > 1e-9 {
                    let w = (target.width * d - c * target.height) / det
                    let h = (a * target.height - b * target.width) / det
                    if w >= -1e-9 && h >= -1e-9 { size = Size(width: max(0, w), height: max(0, h)) }
                }
            }
            bounds.size = size
            let box = boundingBox(of: bounds, size: size)
            position = Point(x: position.x + target.minX - box.minX, y: position.y + target.minY - box.minY)
        }
    }

    private func boundingBox(of rect: Rect, size: Size) -> Rect {
        let t = transformToSuperlayer.planeHomography
        let corners = [Point(x: rect.minX, y: rect.minY), Point(x: rect.maxX, y: rect.minY),
                       Point(x: rect.minX, y: rect.maxY), Point(x: rect.maxX, y: rect.maxY)].compactMap(t.apply)
        guard let first = corners.first else { return .zero }
        var x0 = first.x, y0 = first.y, x1 = first.x, y1 = first.y
        for p in corners { x0 = min(x0, p.x); y0 = min(y0, p.y); x1 = max(x1, p.x); y1 = max(y1, p.y) }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Converts a point from `layer`'s coordinates (nil: the root's placement space,
    /// i.e. target points) to this layer's. Through perspective, the point is projected
    /// onto this layer's plane. Nil when the point has no image (behind the eye, or a
    /// layer seen edge-on).
    public func convert(_ point: Point, from layer: Layer?) -> Point? {
        if let layer, layer === superlayer, let local = mapFromSuperlayer {
            return local.inverse?.apply(point)   // O(1): no walk to the root
        }
        let world = layer.map { $0.transformToRoot.planeHomography.apply(point) } ?? point
        guard let world, let inverse = transformToRoot.planeHomography.inverse else { return nil }
        return inverse.apply(world)
    }

    /// This layer's plane to its superlayer's, when both are related by a 2D map (the
    /// layer's transform and the superlayer's sublayer transform 2D, the superlayer
    /// flattening): the same as going through the root, without the walk. Nil otherwise.
    private var mapFromSuperlayer: Homography? {
        guard let parent = superlayer, !parent.preservesDepth, transform.isAffine2D, parent.sublayerTransform.isAffine2D else { return nil }
        return transformToSuperlayer.concatenating(parent.transformForSublayers).planeHomography
    }

    /// The farthest descendant of this layer (itself included) that contains `point`, in
    /// the superlayer's coordinates (`CALayer.hitTest(_:)`): sublayers are tried top-most
    /// first; hidden layers are skipped with their sublayers; with `masksToBounds`, a point
    /// outside the bounds hits no sublayer. A loop, not a call per level.
    public func hitTest(_ point: Point) -> Layer? {
        let start: Point?
        if let parent = superlayer { start = convert(point, from: parent) } else {
            start = transformToSuperlayer.concatenating(.flatten).planeHomography.inverse?.apply(point)
        }
        guard let p = start, !isHidden else { return nil }
        // Each frame: a layer, the point in its coordinates, the next sublayer to try.
        var stack: [(layer: Layer, point: Point, next: Int)] = [(self, p, sublayers.count - 1)]
        while let top = stack.popLast() {
            guard top.next >= 0 else {
                if top.layer.bounds.contains(top.point) { return top.layer }
                continue
            }
            stack.append((top.layer, top.point, top.next - 1))
            if top.next == top.layer.sublayers.count - 1, top.layer.masksToBounds, !top.layer.bounds.contains(top.point) {
                stack.removeLast()   // clipped: no sublayer, and not itself
                continue
            }
            let sub = top.layer.sublayers[top.next]
            guard !sub.isHidden, let q = sub.convert(top.point, from: top.layer) else { continue }
            stack.append((sub, q, sub.sublayers.count - 1))
        }
        return nil
    }

    /// Converts a point from this layer's coordinates to `layer`'s (nil: target points).
    public func convert(_ point: Point, to layer: Layer?) -> Point? {
        if let layer, layer === superlayer, let local = mapFromSuperlayer { return local.apply(point) }
        guard let world = transformToRoot.planeHomography.apply(point) else { return nil }
        guard let layer else { return world }
        return layer.convert(world, from: nil)
    }

    /// Converts a rectangle to `layer`'s coordinates: the bounding box of its corners.
    public func convert(_ rect: Rect, to layer: Layer?) -> Rect? {
        boxOfCorners(rect) { self.convert($0, to: layer) }
    }

    /// Converts a rectangle from `layer`'s coordinates: the bounding box of its corners.
    public func convert(_ rect: Rect, from layer: Layer?) -> Rect? {
        boxOfCorners(rect) { self.convert($0, from: layer) }
    }

    private func boxOfCorners(_ rect: Rect, _ map: (Point) -> Point?) -> Rect? {
        let r = rect.standardized
        var ps: [Point] = []
        for c in [Point(x: r.minX, y: r.minY), Point(x: r.maxX, y: r.minY), Point(x: r.minX, y: r.maxY), Point(x: r.maxX, y: r.maxY)] {
            guard let p = map(c) else { return nil }
            ps.append(p)
        }
        let xs = ps.map(\.x), ys = ps.map(\.y)
        return Rect(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()!, height: ys.max()! - ys.min()!)
    }
}

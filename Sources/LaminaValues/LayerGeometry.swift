import LaminaGeometry


extension Transform3D {
    /// Drops z (a plain layer flattens its sublayers into its own plane); w is kept, so
    /// perspective applied before survives.
    @usableFromInline package static let flatten: Transform3D = {
        var t = Transform3D.identity
        t.m33 = 0
        return t
    }()

    /// Whether the transform is a 2D affine one (no z, no perspective).
    package var isAffine2D: Bool {
        m13 == 0 && m23 == 0 && m31 == 0 && m32 == 0 && m14 == 0 && m24 == 0 && m34 == 0 && m43 == 0 && m44 == 1 && m33 == 1
    }

    /// The map of the z = 0 plane to 2D (z dropped) as a 3×3 homography acting on row
    /// vectors (x, y, 1).
    package var planeHomography: Homography {
        Homography(m: [m11, m12, m14, m21, m22, m24, m41, m42, m44])
    }
}

/// A projective map of the plane, row-vector convention: (x, y, 1) · H.
package struct Homography {
    package var m: [Double]   // row-major 3×3

    package func apply(_ p: Point) -> Point? {
        let x = p.x * m[0] + p.y * m[3] + m[6]
        let y = p.x * m[1] + p.y * m[4] + m[7]
        let w = p.x * m[2] + p.y * m[5] + m[8]
        guard abs(w) > 1e-12 else { return nil }
        return Point(x: x / w, y: y / w)
    }

    package var inverse: Homography? {
        let a = m
        let c00 = a[4] * a[8] - a[5] * a[7], c01 = a[5] * a[6] - a[3] * a[8], c02 = a[3] * a[7] - a[4] * a[6]
        let det = a[0] * c00 + a[1] * c01 + a[2] * c02
        guard abs(det) > 1e-12 else { return nil }
        let inv = [
            c00, a[2] * a[7] - a[1] * a[8], a[1] * a[5] - a[2] * a[4],
            c01, a[0] * a[8] - a[2] * a[6], a[2] * a[3] - a[0] * a[5],
            c02, a[1] * a[6] - a[0] * a[7], a[0] * a[4] - a[1] * a[3],
        ]
        return Homography(m: inv.map { $0 / det })
    }
}

/// The geometry of a layer's properties, shared by the model (`Layer`) and the renderer's
/// snapshot (`LayerState`): one definition of how a layer is placed.
public protocol LayerGeometry {
    var bounds: Rect { get }
    var position: Point { get }
    var anchorPoint: Point { get }
    var anchorPointZ: Double { get }
    var zPosition: Double { get }
    var transform: Transform3D { get }
    var sublayerTransform: Transform3D { get }
    var preservesDepth: Bool { get }
}

extension LayerGeometry {
    /// The anchor point in bounds coordinates.
    @inlinable var anchorInBounds: Point {
        Point(x: bounds.origin.x + anchorPoint.x * bounds.size.width, y: bounds.origin.y + anchorPoint.y * bounds.size.height)
    }

    /// Maps this layer's bounds coordinates (3D) to its superlayer's bounds coordinates,
    /// before the superlayer's `sublayerTransform`: the anchor point goes to `position`
    /// (at `zPosition`), with `transform` applied about it.
    @inlinable public var transformToSuperlayer: Transform3D {
        let a = anchorInBounds
        return transform.translated(before: (-a.x, -a.y, -anchorPointZ), after: (position.x, position.y, zPosition))
    }

    /// `sublayerTransform` applied about the anchor point (no flattening).
    @inlinable public var sublayerTransformAboutAnchor: Transform3D {
        guard !sublayerTransform.isIdentity else { return .identity }
        let a = anchorInBounds
        return sublayerTransform.translated(before: (-a.x, -a.y, -anchorPointZ), after: (a.x, a.y, anchorPointZ))
    }

    /// `sublayerTransform`, applied about the anchor point, followed by flattening into
    /// this layer's plane unless the layer preserves depth.
    @inlinable public var transformForSublayers: Transform3D {
        // (Most layers have no sublayerTransform: no product to work out.)
        guard !sublayerTransform.isIdentity else { return preservesDepth ? .identity : .flatten }
        return preservesDepth ? sublayerTransformAboutAnchor : sublayerTransformAboutAnchor.concatenating(.flatten)
    }
}

extension LayerState: LayerGeometry {}

/// Plane maps the model (tiled and shape layers) and the renderer both use.
package enum PlaneMath {
    /// The box of `rect` (z = 0) under `m`, perspective divided (nil: a corner at or behind
    /// the eye).
    package static func screenBox(of rect: Rect, _ m: Transform3D) -> Rect? {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for (x, y) in [(rect.minX, rect.minY), (rect.maxX, rect.minY), (rect.minX, rect.maxY), (rect.maxX, rect.maxY)] {
            let w = x * m.m14 + y * m.m24 + m.m44
            guard w > 1e-9 else { return nil }
            let px = (x * m.m11 + y * m.m21 + m.m41) / w, py = (x * m.m12 + y * m.m22 + m.m42) / w
            minX = min(minX, px); minY = min(minY, py); maxX = max(maxX, px); maxY = max(maxY, py)
        }
        return Rect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }

    /// The inverse of a transform restricted to the plane z = 0: a 4×4 taking (X, Y, 0, W)
    /// — points the transform gave — back to (x, y, 0, w) of the plane (nil: the plane is
    /// seen edge-on, or not finite).
    package static func planeInverse(_ g: Transform3D) -> Transform3D? {
        let h = [[g.m11, g.m12, g.m14], [g.m21, g.m22, g.m24], [g.m41, g.m42, g.m44]]
        let det = h[0][0] * (h[1][1] * h[2][2] - h[1][2] * h[2][1]) - h[0][1] * (h[1][0] * h[2][2] - h[1][2] * h[2][0])
            + h[0][2] * (h[1][0] * h[2][1] - h[1][1] * h[2][0])
        guard det.isFinite, abs(det) > 1e-12 else { return nil }
        func cof(_ r: Int, _ c: Int) -> Double {
            let rs = [0, 1, 2].filter { $0 != r }, cs = [0, 1, 2].filter { $0 != c }
            let m = h[rs[0]][cs[0]] * h[rs[1]][cs[1]] - h[rs[0]][cs[1]] * h[rs[1]][cs[0]]
            return (r + c) % 2 == 0 ? m : -m
        }
        let inv = (0..<3).map { i in (0..<3).map { j in cof(j, i) / det } }   // adjugate / det
        var back = Transform3D.identity
        back.m11 = inv[0][0]; back.m12 = inv[0][1]; back.m13 = 0; back.m14 = inv[0][2]
        back.m21 = inv[1][0]; back.m22 = inv[1][1]; back.m23 = 0; back.m24 = inv[1][2]
        back.m31 = 0; back.m32 = 0; back.m33 = 0; back.m34 = 0
        back.m41 = inv[2][0]; back.m42 = inv[2][1]; back.m43 = 0; back.m44 = inv[2][2]
        return back
    }

    /// The mean scale of a transform's 2-D linear part (√|det|; 1 when degenerate or not finite).
    package static func linearScale(_ w: Transform3D) -> Double {
        let det = abs(w.m11 * w.m22 - w.m12 * w.m21)
        let s = det.squareRoot()
        return s.isFinite && s > 0 ? s : 1
    }

}

import LaminaGeometry
import LaminaGPU
import LaminaValues

/// A linear function of a point (x, y, z, 1): the w its transform to some space gives it.
struct DepthCut: Equatable {
    var x, y, z, w: Double

    /// The cuts of a layer whose points reach its parent's space by `t` · `s` (its
    /// `transformToSuperlayer`, the parent's `transformForSublayers`), from its parent's.
    /// Without perspective on the way, none (and no matrix product).
    static func through(_ t: Transform3D, _ s: Transform3D, from parent: [DepthCut], isLeaf: Bool = false) -> [DepthCut] {
        // A layer without sublayers needs only the cuts of the levels above it: its own
        // (the w of its world, with no cuts above) is the GPU's and Box.of's business.
        if isLeaf && parent.isEmpty { return [] }
        let own = DepthCut(x: t.m11 * s.m14 + t.m12 * s.m24 + t.m13 * s.m34 + t.m14 * s.m44,
                           y: t.m21 * s.m14 + t.m22 * s.m24 + t.m23 * s.m34 + t.m24 * s.m44,
                           z: t.m31 * s.m14 + t.m32 * s.m24 + t.m33 * s.m34 + t.m34 * s.m44,
                           w: t.m41 * s.m14 + t.m42 * s.m24 + t.m43 * s.m34 + t.m44 * s.m44)
        if parent.isEmpty && own.isConstantPositive { return [] }
        return through(t.concatenating(s), from: parent)
    }

    /// The cuts of a layer whose points reach its parent's space by `m`, from its parent's.
    static func through(_ m: Transform3D, from parent: [DepthCut]) -> [DepthCut] {
        var out: [DepthCut] = []
        let own = DepthCut(x: m.m14, y: m.m24, z: m.m34, w: m.m44)
        if parent.isEmpty && own.isConstantPositive { return out }
        out.reserveCapacity(parent.count + 1)
        for c in parent {
            let t = DepthCut(x: m.m11 * c.x + m.m12 * c.y + m.m13 * c.z + m.m14 * c.w,
                             y: m.m21 * c.x + m.m22 * c.y + m.m23 * c.z + m.m24 * c.w,
                             z: m.m31 * c.x + m.m32 * c.y + m.m33 * c.z + m.m34 * c.w,
                             w: m.m41 * c.x + m.m42 * c.y + m.m43 * c.z + m.m44 * c.w)
            if !t.isConstantPositive && !out.contains(t) { out.append(t) }
        }
        if !own.isConstantPositive && !out.contains(own) { out.append(own) }
        return out
    }

    var isConstantPositive: Bool { x == 0 && y == 0 && z == 0 && w > 0 }

    /// Negative (or NaN) at every corner of `r` (z = 0): nothing of it is in front.
    func excludes(_ r: Rect) -> Bool {
        let x0 = r.minX * x, x1 = r.maxX * x, y0 = r.minY * y + w, y1 = r.maxY * y + w
        return !(x0 + y0 > 0 || x1 + y0 > 0 || x0 + y1 > 0 || x1 + y1 > 0)
    }
}


/// Facing and depth of a layer's plane.
enum Facing {
    /// True when the layer's front faces away from the viewer under `world`, or when none
    /// of it is in front of the eye (w > 0 nowhere on its bounds) — or its geometry is not
    /// finite: a single-sided layer is then not drawn.
    ///
    /// Facing is the orientation of the visible part: where w > 0, the Jacobian of the
    /// plane's homography H, (x, y, 1)·H = (X, Y, W) ↦ (X/W, Y/W), has determinant
    /// det H / W³, so its sign — the same at every visible point — is det H's. (Three
    /// projected corners say nothing once one of them is behind the eye: its projection
    /// is mirrored through the centre.)
    static func facesAway(_ bounds: Rect, _ world: Transform3D) -> Bool {
        let h = world.planeHomography.m
        let det = h[0] * (h[4] * h[8] - h[5] * h[7]) - h[1] * (h[3] * h[8] - h[5] * h[6]) + h[2] * (h[3] * h[7] - h[4] * h[6])
        guard det.isFinite, det > 0 else { return true }
        // w is linear over the bounds: it is positive somewhere iff at a corner.
        for x in [bounds.minX, bounds.maxX] {
            for y in [bounds.minY, bounds.maxY] where x * world.m14 + y * world.m24 + world.m44 > 0 { return false }
        }
        return true
    }
}

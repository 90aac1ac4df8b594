import Foundation

// PLACEHOLDER (replaced by the anim-math branch): naive versions of the API.
public struct DecomposedTransform: Hashable, Sendable {}
extension Transform3D {
    public static func interpolate(from: Transform3D, to: Transform3D, fraction f: Double) -> Transform3D {
        let a = from.values, b = to.values
        return Transform3D((0..<16).map { a[$0] + (b[$0] - a[$0]) * f })
    }
    public func value(forKeyPath keyPath: String) -> Double? {
        switch keyPath {
        case "rotation", "rotation.z": return atan2(m12, m11)
        case "scale", "scale.x": return (m11 * m11 + m12 * m12).squareRoot()
        case "scale.y": return (m21 * m21 + m22 * m22).squareRoot()
        case "translation.x": return m41
        case "translation.y": return m42
        default: return nil
        }
    }
    public func setting(_ v: Double, forKeyPath keyPath: String) -> Transform3D? {
        switch keyPath {
        case "rotation", "rotation.z": return Transform3D(rotationAngle: v, x: 0, y: 0, z: 1)
        case "scale": return Transform3D(scaleX: v, y: v, z: v)
        case "translation.x": var t = self; t.m41 = v; return t
        case "translation.y": var t = self; t.m42 = v; return t
        default: return nil
        }
    }
}

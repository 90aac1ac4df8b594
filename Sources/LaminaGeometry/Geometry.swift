import FoundationEssentials
import Glibc

/// Points, sizes and rectangles in UIKit's coordinate space: points, origin top-left, y down.

public struct Point: Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }
    public static let zero = Point(x: 0, y: 0)
    /// Both coordinates are finite (not infinite, not a number).
    public var isFinite: Bool { x.isFinite && y.isFinite }
    public var description: String { "(\(x), \(y))" }
}

public struct Size: Hashable, Sendable, CustomStringConvertible {
    public var width: Double
    public var height: Double
    public init(width: Double, height: Double) { self.width = width; self.height = height }
    public static let zero = Size(width: 0, height: 0)
    /// Both sides are finite (not infinite, not a number).
    public var isFinite: Bool { width.isFinite && height.isFinite }
    public var description: String { "\(width)×\(height)" }
}

public struct Rect: Hashable, Sendable, CustomStringConvertible {
    public var origin: Point
    public var size: Size

    public init(origin: Point, size: Size) { self.origin = origin; self.size = size }
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(origin: Point(x: x, y: y), size: Size(width: width, height: height))
    }
    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)
    /// Origin and size are finite (not infinite, not a number).
    public var isFinite: Bool { origin.isFinite && size.isFinite }

    public var minX: Double { min(origin.x, origin.x + size.width) }
    public var minY: Double { min(origin.y, origin.y + size.height) }
    public var maxX: Double { max(origin.x, origin.x + size.width) }
    public var maxY: Double { max(origin.y, origin.y + size.height) }
    public var midX: Double { origin.x + size.width / 2 }
    public var midY: Double { origin.y + size.height / 2 }
    public var width: Double { abs(size.width) }
    public var height: Double { abs(size.height) }
    public var isEmpty: Bool { size.width == 0 || size.height == 0 }

    /// The same rectangle with a non-negative width and height.
    public var standardized: Rect { Rect(x: minX, y: minY, width: width, height: height) }

    public func contains(_ p: Point) -> Bool { p.x >= minX && p.x < maxX && p.y >= minY && p.y < maxY }

    public func intersection(_ other: Rect) -> Rect {
        let x0 = max(minX, other.minX), y0 = max(minY, other.minY)
        let x1 = min(maxX, other.maxX), y1 = min(maxY, other.maxY)
        guard x1 > x0, y1 > y0 else { return .zero }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    public func union(_ other: Rect) -> Rect {
        if isEmpty { return other.standardized }
        if other.isEmpty { return standardized }
        let x0 = min(minX, other.minX), y0 = min(minY, other.minY)
        return Rect(x: x0, y: y0, width: max(maxX, other.maxX) - x0, height: max(maxY, other.maxY) - y0)
    }

    public func insetBy(dx: Double, dy: Double) -> Rect {
        Rect(x: minX + dx, y: minY + dy, width: width - 2 * dx, height: height - 2 * dy)
    }

    public var description: String { "(\(origin.x), \(origin.y), \(size.width), \(size.height))" }
}

/// A size in whole device pixels (a texture's or a render target's).
public struct PixelSize: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public var description: String { "\(width)×\(height) px" }

    /// The pixel size that covers `size` points at `scale` pixels per point
    /// (rounded up, so that no point is left without a pixel). Never traps: a side that is
    /// not a number is 0, a side beyond `Int32.max` pixels (or infinite) saturates at
    /// ±`Int32.max` — larger than any texture or bitmap, so the caller's size check
    /// refuses it. Use `PixelSize.checked(covering:scale:)` to tell such sizes apart.
    public init(covering size: Size, scale: Double) {
        self.init(width: PixelSize.pixels(size.width, scale) ?? PixelSize.saturated(size.width * scale),
                  height: PixelSize.pixels(size.height, scale) ?? PixelSize.saturated(size.height * scale))
    }

    /// The pixel size that covers `size` points at `scale`, or nil when a side is not a
    /// number, infinite, or beyond `Int32.max` pixels (no bitmap or texture can have it).
    public static func checked(covering size: Size, scale: Double) -> PixelSize? {
        guard let w = pixels(size.width, scale), let h = pixels(size.height, scale) else { return nil }
        return PixelSize(width: w, height: h)
    }

    /// `v` points at `scale` in whole pixels, rounded up (float noise rounded away first:
    /// 100.0000001 × 2 stays 200 px, not 201); nil when not representable.
    private static func pixels(_ v: Double, _ scale: Double) -> Int? {
        let p = v * scale
        guard p.isFinite, abs(p) <= Double(Int32.max) else { return nil }
        let r = p.rounded()
        return abs(p - r) < 1e-6 ? Int(r) : Int(p.rounded(.up))
    }

    private static func saturated(_ p: Double) -> Int {
        p.isNaN ? 0 : (p < 0 ? -Int(Int32.max) : Int(Int32.max))
    }
}

/// A rectangle of whole pixels in an image or texture, origin at its top-left pixel.
public struct PixelRect: Hashable, Sendable, CustomStringConvertible {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) { self.x = x; self.y = y; self.width = width; self.height = height }
    public init(size: PixelSize) { self.init(x: 0, y: 0, width: size.width, height: size.height) }
    public var size: PixelSize { PixelSize(width: width, height: height) }
    public var area: Int { width * height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public func contains(x px: Int, y py: Int) -> Bool { px >= x && px < x + width && py >= y && py < y + height }
    public func contains(_ r: PixelRect) -> Bool {
        r.x >= x && r.y >= y && r.x + r.width <= x + width && r.y + r.height <= y + height
    }
    public var description: String { "(\(x), \(y), \(width)×\(height) px)" }
}

/// A 2D affine transform laid out like `CGTransform2D`: row vectors,
/// `x' = a·x + c·y + tx`, `y' = b·x + d·y + ty`.
public struct Transform2D: Hashable, Sendable {
    public var a, b, c, d, tx, ty: Double

    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        self.a = a; self.b = b; self.c = c; self.d = d; self.tx = tx; self.ty = ty
    }

    public static let identity = Transform2D(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    public init(translationX tx: Double, y ty: Double) { self.init(a: 1, b: 0, c: 0, d: 1, tx: tx, ty: ty) }
    public init(scaleX sx: Double, y sy: Double) { self.init(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0) }
    /// Positive angles turn +x towards +y (clockwise on a y-down screen).
    public init(rotationAngle angle: Double) {
        let c = cos(angle), s = sin(angle)
        self.init(a: c, b: s, c: -s, d: c, tx: 0, ty: 0)
    }

    /// `self` first, then `t`.
    public func concatenating(_ t: Transform2D) -> Transform2D {
        Transform2D(a: a * t.a + b * t.c, b: a * t.b + b * t.d,
                        c: c * t.a + d * t.c, d: c * t.b + d * t.d,
                        tx: tx * t.a + ty * t.c + t.tx, ty: tx * t.b + ty * t.d + t.ty)
    }

    public func apply(to p: Point) -> Point { Point(x: a * p.x + c * p.y + tx, y: b * p.x + d * p.y + ty) }

    /// The same transform as a 4×4 (z untouched).
    public var transform3D: Transform3D {
        var t = Transform3D.identity
        t.m11 = a; t.m12 = b; t.m21 = c; t.m22 = d; t.m41 = tx; t.m42 = ty
        return t
    }
}

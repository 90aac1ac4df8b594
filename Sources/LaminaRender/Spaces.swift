import LaminaGeometry
import LaminaValues

// The spaces the renderer works in, and the conversions between them (WebRender's
// `units.rs`). A layer's rectangles (`Rect`) are in its bounds space (points); its world
// transform takes them to **target points** (`TargetBox`); the target's scale takes those to
// **target pixels** (`TargetPixels`, top-left origin), what scissors and images cover. GL's
// framebuffer pixels (bottom row first for a window) are LaminaGPU's business
// (`RenderTarget.glScissor`, `pointsToClip`): the one y flip stays there. Each conversion is
// named after both of its ends.

/// An axis-aligned box in target points (top-left origin, y down).
public struct TargetBox: Equatable, Sendable, CustomStringConvertible {
    public var minX, minY, maxX, maxY: Double

    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX; self.minY = minY; self.maxX = maxX; self.maxY = maxY
    }
    /// The box of a rectangle already in target points.
    public init(targetRect r: Rect) { self.init(minX: r.minX, minY: r.minY, maxX: r.maxX, maxY: r.maxY) }

    public var isEmpty: Bool { !(maxX > minX && maxY > minY) }
    public var area: Double { isEmpty ? 0 : (maxX - minX) * (maxY - minY) }
    /// As a rectangle of target points.
    public var targetRect: Rect { Rect(x: minX, y: minY, width: max(0, maxX - minX), height: max(0, maxY - minY)) }
    public var description: String { "[\(minX), \(minY)–\(maxX), \(maxY)]" }

    public func union(_ b: TargetBox) -> TargetBox {
        TargetBox(minX: min(minX, b.minX), minY: min(minY, b.minY), maxX: max(maxX, b.maxX), maxY: max(maxY, b.maxY))
    }
    public func intersection(_ b: TargetBox) -> TargetBox {
        TargetBox(minX: max(minX, b.minX), minY: max(minY, b.minY), maxX: min(maxX, b.maxX), maxY: min(maxY, b.maxY))
    }
    public func intersects(_ b: TargetBox) -> Bool { minX < b.maxX && b.minX < maxX && minY < b.maxY && b.minY < maxY }
    /// The box grown by `d` on every side.
    func grown(by d: Double) -> TargetBox { TargetBox(minX: minX - d, minY: minY - d, maxX: maxX + d, maxY: maxY + d) }
    func grown(byX dx: Double, y dy: Double) -> TargetBox { TargetBox(minX: minX - dx, minY: minY - dy, maxX: maxX + dx, maxY: maxY + dy) }
    /// The box moved by (`dx`, `dy`).
    func offset(by dx: Double, _ dy: Double) -> TargetBox { TargetBox(minX: minX + dx, minY: minY + dy, maxX: maxX + dx, maxY: maxY + dy) }

    /// No box: nothing drawn (an empty box, which `intersection` keeps empty).
    public static let none = TargetBox(minX: 0, minY: 0, maxX: 0, maxY: 0)

    /// Target coordinates beyond this (points) are not drawn: past it, single-precision
    /// clip-space coordinates lose all meaning (and reach infinity near 3.4e38).
    static let maxMagnitude = 1e15

    /// Layer bounds space → target points: the box of `rect` under `world`. With any corner
    /// at or behind the eye (w ≤ 0) the projection is unbounded: `everything` (none when
    /// every corner is behind it). Non-finite geometry or corners beyond `maxMagnitude`
    /// points are not drawn: `.none`. Grown by a point for antialiased edges.
    static func of(layerRect rect: Rect, through world: Transform3D, everything: TargetBox) -> TargetBox {
        let xs = (rect.minX, rect.maxX), ys = (rect.minY, rect.maxY)
        var b = TargetBox(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
        var behind = 0
        for i in 0..<4 {
            let x = i & 1 == 0 ? xs.0 : xs.1, y = i & 2 == 0 ? ys.0 : ys.1
            let w = x * world.m14 + y * world.m24 + world.m44
            let px = x * world.m11 + y * world.m21 + world.m41
            let py = x * world.m12 + y * world.m22 + world.m42
            guard w.isFinite, px.isFinite, py.isFinite else { return .none }
            guard w > 1e-6 else { behind += 1; continue }
            let sx = px / w, sy = py / w
            guard abs(sx) <= maxMagnitude, abs(sy) <= maxMagnitude else { return .none }
            b.minX = min(b.minX, sx); b.minY = min(b.minY, sy); b.maxX = max(b.maxX, sx); b.maxY = max(b.maxY, sy)
        }
        if behind == 4 { return .none }
        if behind > 0 { return everything }
        // Antialiased edges reach half a pixel out; a point of slack covers any scale ≥ 0.5.
        return b.grown(by: 1)
    }

    /// Target points → target pixels: the pixels covering the box at `scale`, rounded out
    /// and clamped to `limit` (nil: none — empty, or not a number).
    func pixelsCovering(scale: Double, limit: PixelSize) -> TargetPixels? {
        // (`rounded(.down)` and `.up` spelled as such: a rounding rule passed as a value
        // costs a call into the standard library's generic rounding, twice a layer a frame.)
        func pixel(_ p: Double, _ maximum: Int) -> Int? {
            p.isNaN ? nil : Int(min(max(p, 0), Double(maximum)))
        }
        guard let x0 = pixel((minX * scale).rounded(.down), limit.width), let y0 = pixel((minY * scale).rounded(.down), limit.height),
              let x1 = pixel((maxX * scale).rounded(.up), limit.width), let y1 = pixel((maxY * scale).rounded(.up), limit.height),
              x1 > x0, y1 > y0 else { return nil }
        return TargetPixels(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}

/// A rectangle of a render target's pixels (top-left origin): a scissor, an image's place.
public struct TargetPixels: Hashable, Sendable, CustomStringConvertible {
    public var x, y, width, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) { self.x = x; self.y = y; self.width = width; self.height = height }

    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public var area: Int { isEmpty ? 0 : width * height }
    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var size: PixelSize { PixelSize(width: width, height: height) }
    public var description: String { "(\(x), \(y), \(width)×\(height) px)" }

    /// For LaminaGPU's calls (scissors, copies, readback): the same pixels.
    public var pixelRect: PixelRect { PixelRect(x: x, y: y, width: width, height: height) }

    /// Target pixels → target points at `scale`.
    public func targetBox(scale: Double) -> TargetBox {
        TargetBox(minX: Double(x) / scale, minY: Double(y) / scale, maxX: Double(maxX) / scale, maxY: Double(maxY) / scale)
    }

    func intersects(_ o: TargetPixels) -> Bool { x < o.maxX && o.x < maxX && y < o.maxY && o.y < maxY }
    /// Whether every pixel of `o` is in it.
    func contains(_ o: TargetPixels) -> Bool { x <= o.x && y <= o.y && o.maxX <= maxX && o.maxY <= maxY }
    func union(_ o: TargetPixels) -> TargetPixels {
        let x0 = min(x, o.x), y0 = min(y, o.y)
        return TargetPixels(x: x0, y: y0, width: max(maxX, o.maxX) - x0, height: max(maxY, o.maxY) - y0)
    }
}

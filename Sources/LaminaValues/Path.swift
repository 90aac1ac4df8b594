import FoundationEssentials
import Glibc
import LaminaGeometry

/// A path as a value (`CGPath`): made once, drawn by any context (`GraphicsContext.addPath`),
/// handed to layers (`ShapeLayer.path`, `Layer.shadowPath`) and across threads.
/// Coordinates are in the user space of whoever draws it (a layer's bounds space).
public struct Path: Sendable, Hashable {
    public enum Element: Sendable, Hashable {
        case move(Point)
        case line(Point)
        case quadCurve(to: Point, control: Point)
        case curve(to: Point, control1: Point, control2: Point)
        /// An arc (radians; 0 = +x, increasing towards +y), joined to the current point by a line.
        case arc(center: Point, radius: Double, startAngle: Double, endAngle: Double, clockwise: Bool)
        /// An ellipse inscribed in a rectangle, as a closed sub-path of its own.
        case ellipse(Rect)
        /// A rounded rectangle, as a closed sub-path of its own.
        case roundedRect(Rect, cornerRadius: Double)
        case close
    }

    public private(set) var elements: [Element] = []

    public init() {}
    public init(_ elements: [Element]) { self.elements = elements }

    /// A rectangle.
    public init(rect: Rect) { self.init([.roundedRect(rect, cornerRadius: 0)]) }
    /// A rectangle with circular corners of `cornerRadius` (clamped to half the shorter side).
    public init(roundedRect rect: Rect, cornerRadius: Double) { self.init([.roundedRect(rect, cornerRadius: cornerRadius)]) }
    /// An ellipse inscribed in `rect`.
    public init(ellipseIn rect: Rect) { self.init([.ellipse(rect)]) }

    public var isEmpty: Bool { elements.isEmpty }

    public mutating func move(to p: Point) { elements.append(.move(p)) }
    public mutating func addLine(to p: Point) { elements.append(.line(p)) }
    public mutating func addQuadCurve(to p: Point, control: Point) { elements.append(.quadCurve(to: p, control: control)) }
    public mutating func addCurve(to p: Point, control1: Point, control2: Point) {
        elements.append(.curve(to: p, control1: control1, control2: control2))
    }
    public mutating func addArc(center: Point, radius: Double, startAngle: Double, endAngle: Double, clockwise: Bool = true) {
        elements.append(.arc(center: center, radius: radius, startAngle: startAngle, endAngle: endAngle, clockwise: clockwise))
    }
    public mutating func addRect(_ r: Rect) { elements.append(.roundedRect(r, cornerRadius: 0)) }
    public mutating func addRoundedRect(_ r: Rect, cornerRadius: Double) { elements.append(.roundedRect(r, cornerRadius: cornerRadius)) }
    public mutating func addEllipse(in r: Rect) { elements.append(.ellipse(r)) }
    public mutating func closeSubpath() { elements.append(.close) }

    /// The path is exactly one (rounded) rectangle: its rectangle and corner radius
    /// (clamped). Shadows of such paths are drawn analytically, without an offscreen pass.
    public var roundedRectShape: (rect: Rect, cornerRadius: Double)? {
        guard elements.count == 1, case let .roundedRect(r, radius) = elements[0], r.isFinite, radius.isFinite else { return nil }
        let s = r.standardized
        return (s, min(max(0, radius), s.width / 2, s.height / 2))
    }

    /// Every element's coordinates are finite.
    public var isFinite: Bool {
        func ok(_ p: Point) -> Bool { p.x.isFinite && p.y.isFinite }
        for e in elements {
            switch e {
            case .move(let p), .line(let p): if !ok(p) { return false }
            case let .quadCurve(p, c): if !ok(p) || !ok(c) { return false }
            case let .curve(p, c1, c2): if !ok(p) || !ok(c1) || !ok(c2) { return false }
            case let .arc(c, r, a0, a1, _): if !ok(c) || !r.isFinite || !a0.isFinite || !a1.isFinite { return false }
            case let .ellipse(r): if !r.isFinite { return false }
            case let .roundedRect(r, radius): if !r.isFinite || !radius.isFinite { return false }
            case .close: break
            }
        }
        return true
    }

    /// The smallest rectangle holding every point of the path and its control points
    /// (nil: the path is empty).
    public var boundingBox: Rect? {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        func add(_ p: Point) { minX = min(minX, p.x); minY = min(minY, p.y); maxX = max(maxX, p.x); maxY = max(maxY, p.y) }
        func add(_ r: Rect) { add(Point(x: r.minX, y: r.minY)); add(Point(x: r.maxX, y: r.maxY)) }
        for e in elements {
            switch e {
            case .move(let p), .line(let p): add(p)
            case let .quadCurve(p, c): add(p); add(c)
            case let .curve(p, c1, c2): add(p); add(c1); add(c2)
            case let .arc(c, r, _, _, _): add(Rect(x: c.x - abs(r), y: c.y - abs(r), width: 2 * abs(r), height: 2 * abs(r)))
            case let .ellipse(r): add(r.standardized)
            case let .roundedRect(r, _): add(r.standardized)
            case .close: break
            }
        }
        guard minX <= maxX, minY <= maxY else { return nil }
        return Rect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }
}

// MARK: Morphing

extension Path {
    /// The kinds of the path's elements, in order (an arc's direction included): two paths
    /// morph into each other (`ShapeLayer.path` animating) when these are equal.
    public var structure: [UInt8] {
        elements.map { e in
            switch e {
            case .move: return 0
            case .line: return 1
            case .quadCurve: return 2
            case .curve: return 3
            case .arc(_, _, _, _, let clockwise): return clockwise ? 4 : 5
            case .ellipse: return 6
            case .roundedRect: return 7
            case .close: return 8
            }
        }
    }

    /// Every number of the path, element by element (points as x, y; an arc's centre,
    /// radius and angles; a rectangle's x, y, width, height and corner radius): what a
    /// path animation interpolates.
    public var morphComponents: [Double] {
        var out: [Double] = []
        out.reserveCapacity(elements.count * 4)
        for e in elements {
            switch e {
            case .move(let p), .line(let p): out += [p.x, p.y]
            case let .quadCurve(p, c): out += [c.x, c.y, p.x, p.y]
            case let .curve(p, c1, c2): out += [c1.x, c1.y, c2.x, c2.y, p.x, p.y]
            case let .arc(c, r, a0, a1, _): out += [c.x, c.y, r, a0, a1]
            case let .ellipse(r): out += [r.origin.x, r.origin.y, r.size.width, r.size.height]
            case let .roundedRect(r, radius): out += [r.origin.x, r.origin.y, r.size.width, r.size.height, radius]
            case .close: break
            }
        }
        return out
    }

    /// The same elements with the numbers of `v` (as `morphComponents` lists them); nil
    /// when `v` has another count.
    public func withMorphComponents(_ v: [Double]) -> Path? {
        guard v.count == morphComponents.count else { return nil }
        var i = 0
        func next() -> Double { defer { i += 1 }; return v[i] }
        func point() -> Point { let x = next(); return Point(x: x, y: next()) }
        func rect() -> Rect { let x = next(), y = next(), w = next(); return Rect(x: x, y: y, width: w, height: next()) }
        return Path(elements.map { e in
            switch e {
            case .move: return .move(point())
            case .line: return .line(point())
            case .quadCurve: let c = point(); return .quadCurve(to: point(), control: c)
            case .curve: let c1 = point(), c2 = point(); return .curve(to: point(), control1: c1, control2: c2)
            case .arc(_, _, _, _, let clockwise):
                let c = point(), r = next(), a0 = next()
                return .arc(center: c, radius: r, startAngle: a0, endAngle: next(), clockwise: clockwise)
            case .ellipse: return .ellipse(rect())
            case .roundedRect: let r = rect(); return .roundedRect(r, cornerRadius: next())
            case .close: return .close
            }
        })
    }
}

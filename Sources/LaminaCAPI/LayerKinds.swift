import CLamina
import Glibc
import LaminaCore
import LaminaGeometry
import LaminaGraphics
import LaminaModel
import LaminaValues

// Layer kinds from C: corner shapes, and shape, gradient, text and replicator layers (docs/c-api.md). Each
// kind's setters refuse a layer of another kind, and non-finite numbers, with a message.

@MainActor private func kind<T: Layer>(_ l: Layer, _ type: T.Type, _ function: String, made creator: String) throws -> T {
    guard let k = l as? T else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "\(function): the layer was not made by \(creator)") }
    return k
}

/// An optional colour given by pointer (NULL: none).
private func optionalColor(_ c: UnsafePointer<lamina_color>?) throws -> Color? { try c.map { try color($0.pointee) } }

// MARK: Corner shapes (every layer)

@_cdecl("lamina_layer_set_masked_corners") public func c_set_masked_corners(_ l: OpaquePointer?, _ v: UInt32) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_masked_corners", l) {
        guard v <= 15 else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "corners are an OR of LAMINA_CORNER_* (1, 2, 4, 8; at most 15), got \(v)")
        }
        $0.maskedCorners = CornerMask(rawValue: UInt8(v))
    }
}
@_cdecl("lamina_layer_get_masked_corners") public func c_get_masked_corners(_ l: OpaquePointer?, _ out: UnsafeMutablePointer<UInt32>?) -> lamina_status {
    nonisolated(unsafe) let l = l, out = out
    return set("lamina_layer_get_masked_corners", l) { try required(out).pointee = UInt32($0.maskedCorners.rawValue) }
}
@_cdecl("lamina_layer_set_corner_curve") public func c_set_corner_curve(_ l: OpaquePointer?, _ curve: lamina_corner_curve) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set("lamina_layer_set_corner_curve", l) {
        switch curve {
        case LAMINA_CORNER_CURVE_CIRCULAR: $0.cornerCurve = .circular
        case LAMINA_CORNER_CURVE_CONTINUOUS: $0.cornerCurve = .continuous
        default: throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "unknown corner curve \(curve.rawValue): LAMINA_CORNER_CURVE_CIRCULAR or _CONTINUOUS")
        }
    }
}
@_cdecl("lamina_layer_get_corner_curve") public func c_get_corner_curve(_ l: OpaquePointer?, _ out: UnsafeMutablePointer<lamina_corner_curve>?) -> lamina_status {
    nonisolated(unsafe) let l = l, out = out
    return set("lamina_layer_get_corner_curve", l) {
        try required(out).pointee = $0.cornerCurve == .continuous ? LAMINA_CORNER_CURVE_CONTINUOUS : LAMINA_CORNER_CURVE_CIRCULAR
    }
}

// MARK: Shape layers

@_cdecl("lamina_shape_layer_create")
public func c_shape_layer_create(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let out = out
    return call("lamina_shape_layer_create") { try give(.layer(ShapeLayer()), to: out) }
}

/// Runs `body` on the shape layer `l` (refused when it is another kind).
private func shape(_ name: String, _ l: OpaquePointer?, _ body: @MainActor (ShapeLayer) throws -> Void) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set(name, l) { try body(try kind($0, ShapeLayer.self, name, made: "lamina_shape_layer_create")) }
}

/// The path of `ops`, each taking its points from `points` in order.
func path(ops: UnsafePointer<lamina_path_op>?, count: Int, points: UnsafePointer<lamina_point>?, pointCount: Int) throws -> Path? {
    guard count >= 0, pointCount >= 0 else {
        throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a path holds at most 100000 operations and 300000 points (got \(UInt(bitPattern: count)), \(UInt(bitPattern: pointCount)))")
    }
    guard count > 0 else { return nil }
    guard let ops else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the path's operations are NULL with a count of \(count)") }
    guard count <= 100_000, pointCount <= 300_000 else {
        throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a path holds at most 100000 operations and 300000 points (got \(count), \(pointCount))")
    }
    guard pointCount == 0 || points != nil else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the path's points are NULL with a count of \(pointCount)") }
    var path = Path()
    var next = 0
    func take(_ n: Int, _ op: String, _ i: Int) throws -> [Point] {
        guard next + n <= pointCount, let points else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "path operation \(i) (\(op)) needs \(n) point(s); only \(pointCount - next) remain of \(pointCount)")
        }
        let out = (next..<next + n).map { Point(x: points[$0].x, y: points[$0].y) }
        guard out.allSatisfy(\.isFinite) else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "path operation \(i) (\(op)): points must be finite") }
        next += n
        return out
    }
    for i in 0..<count {
        switch ops[i] {
        case LAMINA_PATH_MOVE: path.move(to: try take(1, "MOVE", i)[0])
        case LAMINA_PATH_LINE: path.addLine(to: try take(1, "LINE", i)[0])
        case LAMINA_PATH_QUAD: let p = try take(2, "QUAD", i); path.addQuadCurve(to: p[1], control: p[0])
        case LAMINA_PATH_CUBIC: let p = try take(3, "CUBIC", i); path.addCurve(to: p[2], control1: p[0], control2: p[1])
        case LAMINA_PATH_CLOSE: path.closeSubpath()
        default:
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "path operation \(i): unknown operation \(ops[i].rawValue) (LAMINA_PATH_MOVE, _LINE, _QUAD, _CUBIC, _CLOSE)")
        }
    }
    guard next == pointCount else {
        throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the path's operations use \(next) of its \(pointCount) points: the counts disagree")
    }
    return path
}

@_cdecl("lamina_shape_layer_set_path")
public func c_shape_set_path(_ l: OpaquePointer?, _ ops: UnsafePointer<lamina_path_op>?, _ count: Int,
                             _ points: UnsafePointer<lamina_point>?, _ pointCount: Int) -> lamina_status {
    nonisolated(unsafe) let ops = ops, points = points
    return shape("lamina_shape_layer_set_path", l) { $0.path = try path(ops: ops, count: count, points: points, pointCount: pointCount) }
}

@_cdecl("lamina_shape_layer_set_fill_color")
public func c_shape_set_fill(_ l: OpaquePointer?, _ c: UnsafePointer<lamina_color>?) -> lamina_status {
    nonisolated(unsafe) let c = c
    return shape("lamina_shape_layer_set_fill_color", l) { $0.fillColor = try optionalColor(c) }
}

@_cdecl("lamina_shape_layer_set_stroke_color")
public func c_shape_set_stroke(_ l: OpaquePointer?, _ c: UnsafePointer<lamina_color>?) -> lamina_status {
    nonisolated(unsafe) let c = c
    return shape("lamina_shape_layer_set_stroke_color", l) { $0.strokeColor = try optionalColor(c) }
}

@_cdecl("lamina_shape_layer_set_line_width")
public func c_shape_set_line_width(_ l: OpaquePointer?, _ w: Double) -> lamina_status {
    shape("lamina_shape_layer_set_line_width", l) {
        try finite(w, what: "the line width")
        guard w >= 0 else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the line width must be ≥ 0 (got \(w))") }
        $0.lineWidth = w
    }
}

@_cdecl("lamina_shape_layer_set_line_style")
public func c_shape_set_line_style(_ l: OpaquePointer?, _ cap: lamina_line_cap, _ join: lamina_line_join, _ miter: Double) -> lamina_status {
    shape("lamina_shape_layer_set_line_style", l) {
        let caps: [LineCap] = [.butt, .round, .square], joins: [LineJoin] = [.miter, .round, .bevel]
        guard Int(cap.rawValue) < caps.count else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "unknown line cap \(cap.rawValue)") }
        guard Int(join.rawValue) < joins.count else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "unknown line join \(join.rawValue)") }
        try finite(miter, what: "the miter limit")
        guard miter >= 1 else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the miter limit must be ≥ 1 (got \(miter))") }
        $0.lineCap = caps[Int(cap.rawValue)]
        $0.lineJoin = joins[Int(join.rawValue)]
        $0.miterLimit = miter
    }
}

@_cdecl("lamina_shape_layer_set_line_dash")
public func c_shape_set_dash(_ l: OpaquePointer?, _ pattern: UnsafePointer<Double>?, _ count: Int, _ phase: Double) -> lamina_status {
    nonisolated(unsafe) let pattern = pattern
    return shape("lamina_shape_layer_set_line_dash", l) {
        try finite(phase, what: "the dash phase")
        guard count >= 0 else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a dash pattern is 1 to 1024 lengths (got \(UInt(bitPattern: count)))") }
        guard count > 0 else { $0.lineDashPattern = nil; $0.lineDashPhase = phase; return }
        guard let pattern, count <= 1024 else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a dash pattern is 1 to 1024 lengths, not NULL (got \(count))")
        }
        let lengths = (0..<count).map { pattern[$0] }
        guard lengths.allSatisfy({ $0.isFinite && $0 >= 0 }), lengths.contains(where: { $0 > 0 }) else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "dash lengths must be finite, ≥ 0 and not all 0 (got \(lengths))")
        }
        $0.lineDashPattern = lengths
        $0.lineDashPhase = phase
    }
}

@_cdecl("lamina_shape_layer_set_even_odd")
public func c_shape_set_even_odd(_ l: OpaquePointer?, _ on: Int32) -> lamina_status {
    shape("lamina_shape_layer_set_even_odd", l) { $0.fillRule = on != 0 ? .evenOdd : .nonZero }
}

@_cdecl("lamina_shape_layer_set_stroke_range")
public func c_shape_set_stroke_range(_ l: OpaquePointer?, _ start: Double, _ end: Double) -> lamina_status {
    shape("lamina_shape_layer_set_stroke_range", l) {
        try finite(start, end, what: "strokeStart and strokeEnd")
        guard (0...1).contains(start), (0...1).contains(end) else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "strokeStart and strokeEnd are fractions of the path's length, 0…1 (got \(start), \(end))")
        }
        $0.strokeStart = start
        $0.strokeEnd = end
    }
}

@_cdecl("lamina_shape_layer_get_stroke_range")
public func c_shape_get_stroke_range(_ l: OpaquePointer?, _ start: UnsafeMutablePointer<Double>?, _ end: UnsafeMutablePointer<Double>?) -> lamina_status {
    nonisolated(unsafe) let start = start, end = end
    return shape("lamina_shape_layer_get_stroke_range", l) {
        let (s, e) = (try required(start), try required(end))
        s.pointee = $0.strokeStart
        e.pointee = $0.strokeEnd
    }
}

// MARK: Gradient layers

@_cdecl("lamina_gradient_layer_create")
public func c_gradient_layer_create(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let out = out
    return call("lamina_gradient_layer_create") { try give(.layer(GradientLayer()), to: out) }
}

private func gradient(_ name: String, _ l: OpaquePointer?, _ body: @MainActor (GradientLayer) throws -> Void) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set(name, l) { try body(try kind($0, GradientLayer.self, name, made: "lamina_gradient_layer_create")) }
}

@_cdecl("lamina_gradient_layer_set_colors")
public func c_gradient_set_colors(_ l: OpaquePointer?, _ colors: UnsafePointer<lamina_color>?, _ locations: UnsafePointer<Double>?,
                                  _ count: Int) -> lamina_status {
    nonisolated(unsafe) let colors = colors, locations = locations
    return gradient("lamina_gradient_layer_set_colors", l) {
        guard count >= 0, count <= 16 else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a gradient has 0 to 16 colours (got \(count))") }
        guard count == 0 || colors != nil else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the colours are NULL with a count of \(count)") }
        let list = try (0..<count).map { try color(colors![$0]) }
        var stops: [Double]?
        if let locations, count > 0 {
            let l = (0..<count).map { locations[$0] }
            guard l.allSatisfy({ $0.isFinite && (0...1).contains($0) }), zip(l, l.dropFirst()).allSatisfy({ $0 <= $1 }) else {
                throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "locations are one per colour, in 0…1, not decreasing (got \(l))")
            }
            stops = l
        }
        $0.colors = list
        $0.locations = stops
    }
}

@_cdecl("lamina_gradient_layer_set_points")
public func c_gradient_set_points(_ l: OpaquePointer?, _ start: lamina_point, _ end: lamina_point) -> lamina_status {
    gradient("lamina_gradient_layer_set_points", l) {
        try finite(start.x, start.y, end.x, end.y, what: "the gradient's points")
        $0.startPoint = Point(x: start.x, y: start.y)
        $0.endPoint = Point(x: end.x, y: end.y)
    }
}

@_cdecl("lamina_gradient_layer_set_type")
public func c_gradient_set_type(_ l: OpaquePointer?, _ type: lamina_gradient_type) -> lamina_status {
    gradient("lamina_gradient_layer_set_type", l) {
        guard let raw = Int32(exactly: type.rawValue), let t = GradientType(rawValue: raw) else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "unknown gradient type \(type.rawValue) (LAMINA_GRADIENT_AXIAL, _RADIAL, _CONIC)")
        }
        $0.type = t
    }
}

// MARK: Text layers

@_cdecl("lamina_text_layer_create")
public func c_text_layer_create(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let out = out
    return call("lamina_text_layer_create") { try give(.layer(TextLayer()), to: out) }
}

private func text(_ name: String, _ l: OpaquePointer?, _ body: @MainActor (TextLayer) throws -> Void) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set(name, l) { try body(try kind($0, TextLayer.self, name, made: "lamina_text_layer_create")) }
}

@_cdecl("lamina_text_layer_set_string")
public func c_text_set_string(_ l: OpaquePointer?, _ s: UnsafePointer<CChar>?) -> lamina_status {
    nonisolated(unsafe) let s = s
    return text("lamina_text_layer_set_string", l) { layer in
        guard let s else { layer.string = nil; return }
        let length = strnlen(s, 1_000_001)
        guard length <= 1_000_000 else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a text layer's string is at most 10⁶ bytes") }
        layer.string = String(decoding: UnsafeRawBufferPointer(start: s, count: length), as: UTF8.self)
    }
}

@_cdecl("lamina_text_layer_set_font")
public func c_text_set_font(_ l: OpaquePointer?, _ family: UnsafePointer<CChar>?, _ size: Double) -> lamina_status {
    nonisolated(unsafe) let family = family
    return text("lamina_text_layer_set_font", l) {
        let name = try cString(family, "the font family")
        try finite(size, what: "the font size")
        guard size > 0, size <= 10_000 else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the font size must be in (0, 10000] points (got \(size))") }
        $0.font = Font(family: name.isEmpty ? "DejaVu Sans" : name, size: size)
        $0.fontSize = size
    }
}

@_cdecl("lamina_text_layer_set_foreground_color")
public func c_text_set_color(_ l: OpaquePointer?, _ c: lamina_color) -> lamina_status {
    text("lamina_text_layer_set_foreground_color", l) { $0.foregroundColor = try color(c) }
}

@_cdecl("lamina_text_layer_set_alignment")
public func c_text_set_alignment(_ l: OpaquePointer?, _ a: lamina_text_alignment) -> lamina_status {
    text("lamina_text_layer_set_alignment", l) {
        let modes: [TextLayer.AlignmentMode] = [.natural, .left, .right, .center, .justified]
        guard Int(a.rawValue) < modes.count else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "unknown text alignment \(a.rawValue)") }
        $0.alignmentMode = modes[Int(a.rawValue)]
    }
}

@_cdecl("lamina_text_layer_set_wrapped")
public func c_text_set_wrapped(_ l: OpaquePointer?, _ on: Int32) -> lamina_status {
    text("lamina_text_layer_set_wrapped", l) { $0.isWrapped = on != 0 }
}

@_cdecl("lamina_text_layer_set_truncation")
public func c_text_set_truncation(_ l: OpaquePointer?, _ t: lamina_truncation) -> lamina_status {
    text("lamina_text_layer_set_truncation", l) {
        let modes: [TextTruncation] = [.none, .start, .middle, .end]
        guard Int(t.rawValue) < modes.count else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "unknown truncation mode \(t.rawValue)") }
        $0.truncationMode = modes[Int(t.rawValue)]
    }
}

// MARK: Replicator layers

@_cdecl("lamina_replicator_layer_create")
public func c_replicator_layer_create(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> lamina_status {
    nonisolated(unsafe) let out = out
    return call("lamina_replicator_layer_create") { try give(.layer(ReplicatorLayer()), to: out) }
}

private func replicator(_ name: String, _ l: OpaquePointer?, _ body: @MainActor (ReplicatorLayer) throws -> Void) -> lamina_status {
    nonisolated(unsafe) let l = l
    return set(name, l) { try body(try kind($0, ReplicatorLayer.self, name, made: "lamina_replicator_layer_create")) }
}

@_cdecl("lamina_replicator_layer_set_instance_count")
public func c_replicator_set_count(_ l: OpaquePointer?, _ n: Int) -> lamina_status {
    replicator("lamina_replicator_layer_set_instance_count", l) {
        guard (0...10_000).contains(n) else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "instanceCount must be 0 to 10000 (got \(n))") }
        $0.instanceCount = n
    }
}

@_cdecl("lamina_replicator_layer_set_instance_transform")
public func c_replicator_set_transform(_ l: OpaquePointer?, _ t: UnsafePointer<lamina_transform>?) -> lamina_status {
    nonisolated(unsafe) let t = t
    return replicator("lamina_replicator_layer_set_instance_transform", l) { $0.instanceTransform = try transform(t) }
}

@_cdecl("lamina_replicator_layer_set_instance_color")
public func c_replicator_set_color(_ l: OpaquePointer?, _ c: lamina_color, _ red: Double, _ green: Double, _ blue: Double,
                                   _ alpha: Double) -> lamina_status {
    replicator("lamina_replicator_layer_set_instance_color", l) {
        let first = try color(c)
        try finite(red, green, blue, alpha, what: "the colour offsets")
        $0.instanceColor = first
        $0.instanceRedOffset = red
        $0.instanceGreenOffset = green
        $0.instanceBlueOffset = blue
        $0.instanceAlphaOffset = alpha
    }
}

@_cdecl("lamina_replicator_layer_set_instance_delay")
public func c_replicator_set_delay(_ l: OpaquePointer?, _ seconds: Double) -> lamina_status {
    replicator("lamina_replicator_layer_set_instance_delay", l) {
        try finite(seconds, what: "the instance delay")
        $0.instanceDelay = seconds
    }
}

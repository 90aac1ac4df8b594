import LaminaValues
import CCairo
import CPango
import FoundationEssentials
import Glibc
import LaminaGeometry

public enum FillRule: String, Sendable, CaseIterable { case nonZero, evenOdd }
public enum LineCap: String, Sendable, CaseIterable { case butt, round, square }
public enum LineJoin: String, Sendable, CaseIterable { case miter, round, bevel }
/// How images are resampled when drawn (`CGInterpolationQuality`).
public enum InterpolationQuality: String, Sendable, CaseIterable { case none, low, high }
public enum TextAlignment: String, Sendable, CaseIterable { case left, center, right, justified }

/// Where a line too long for its width is cut, with an ellipsis (`CATextLayer.truncationMode`).
public enum TextTruncation: String, Sendable, CaseIterable { case none, start, middle, end }

/// Colour stops for gradients: locations 0…1 along the gradient.
public struct Gradient: Sendable {
    public var stops: [(location: Double, color: Color)]
    public init(stops: [(location: Double, color: Color)]) { self.stops = stops }
    public init(colors: [Color]) {
        let n = max(colors.count - 1, 1)
        stops = colors.enumerated().map { (Double($0.offset) / Double(n), $0.element) }
    }
}

public enum FontWeight: Int, Sendable, CaseIterable {
    case thin = 100, light = 300, regular = 400, medium = 500, semibold = 600, bold = 700, heavy = 800, black = 900
}

/// A font by family name (fontconfig resolves it: "DejaVu Sans", "Serif", "Monospace"…),
/// size in points, weight and slant.
public struct Font: Hashable, Sendable {
    public var family: String
    public var size: Double
    public var weight: FontWeight
    public var italic: Bool
    public init(family: String = "DejaVu Sans", size: Double = 14, weight: FontWeight = .regular, italic: Bool = false) {
        self.family = family; self.size = size; self.weight = weight; self.italic = italic
    }
}

/// The 2D context handed to `draw` callbacks, backed by a Cairo image surface.
/// Coordinates are points, origin top-left, y down; the context is already scaled by the
/// content scale, translated so that the origin is the bounds origin, and clipped to the
/// rectangle being drawn — exactly as UIKit sets up `draw(_:)`. Do not keep it after the
/// call: it is invalidated when the call returns, and every later call on it does nothing
/// (queries return empty values; `isValid` is false).
///
/// Bounded and safe on any input: non-finite coordinates, sizes and radii are ignored
/// (nothing is added to the path), as are arcs and ellipses whose radius in pixels is
/// beyond `maximumDeviceRadius` or below a billionth of a pixel (Cairo would take
/// forever to flatten them, or fall into an error state); transforms that would make the
/// current transform non-finite or not invertible are ignored; text is limited to
/// `maximumTextLength` characters, wrap widths to `maximumTextWidth` and font sizes to
/// `minimumFontSize`…`maximumFontSize` points (beyond: truncated, clamped); huge arc
/// angles are reduced modulo 2π.
public final class GraphicsContext {
    /// Most characters (Unicode scalars) drawn or measured from one string: the rest is
    /// dropped. Wrapping is quadratic in a word's length in Pango; words longer than
    /// `longWordLength` wrap at characters, which stays linear.
    public static let maximumTextLength = 10_000
    /// A run of this many characters without a space makes the text wrap at characters.
    public static let longWordLength = 1_000
    /// Widest wrap width, in points (Pango keeps widths in 32-bit units of 1/1024 pt).
    public static let maximumTextWidth = 1e6
    /// Largest and smallest font sizes, in points (FreeType fails below the smallest).
    public static let maximumFontSize = 1000.0
    public static let minimumFontSize = 0.1
    /// Largest arc or ellipse radius in pixels (beyond Cairo's 24.8 fixed-point range).
    public static let maximumDeviceRadius = Double(1 << 24)

    public let bitmap: Bitmap
    private var cr: OpaquePointer?
    private let clip: Rect?
    private var fill = Color.black
    private var stroke = Color.black
    private var stateStack: [(fill: Color, stroke: Color)] = []
    /// Painting operations so far (fills, strokes, gradients, images, text; not `clear`).
    public private(set) var paintCount = 0

    /// A context on `bitmap` showing points at `scale` pixels per point, with `origin`
    /// (a bounds origin) at the bitmap's top-left, clipped to `clip` (points) if given.
    public init(bitmap: Bitmap, scale: Double = 1, origin: Point = .zero, clip: Rect? = nil) {
        self.bitmap = bitmap
        self.clip = clip
        cr = cairo_create(bitmap.surface)
        // Pixels per point: 1 when not finite or not positive, else within 10⁻⁶…10⁶.
        let scale = scale.isFinite && scale > 0 ? min(max(scale, 1e-6), 1e6) : 1
        cairo_scale(cr, scale, scale)
        if GraphicsContext.finite(origin.x, origin.y) { cairo_translate(cr, -origin.x, -origin.y) }
        if let clip, GraphicsContext.finite(clip.minX, clip.minY, clip.width, clip.height) {
            cairo_rectangle(cr, clip.minX, clip.minY, clip.width, clip.height)
            cairo_clip(cr)
        }
        cairo_set_line_width(cr, 1)
    }

    deinit { if let cr { cairo_destroy(cr) } }

    /// Ends the context's life: later calls are programmer errors. Drawing is flushed.
    public func invalidate() {
        guard let cr else { return }
        cairo_destroy(cr)
        self.cr = nil
        cairo_surface_flush(bitmap.surface)
    }

    public var isValid: Bool { cr != nil }

    /// The Cairo context (`cairo_t *`) behind this one, for drawing code of your own — a C
    /// library's, or the C API's draw callbacks. Nil once the context is invalidated. Taking
    /// it counts as painting (what is drawn through it cannot be seen from here).
    public var cairoContext: OpaquePointer? {
        if cr != nil { paintCount += 1 }
        return cr
    }

    /// The rectangle drawing is clipped to (points), when one was given.
    public var clipRect: Rect? { clip }

    /// Cairo's inert context (its calls do nothing) once this one is invalidated: use after
    /// the draw returned is a documented no-op rather than a trap, since drawing code may
    /// keep the context by mistake (in a closure) and a draw that does nothing is harmless.
    private nonisolated(unsafe) static let inert: OpaquePointer = cairo_create(nil)

    private var c: OpaquePointer { cr ?? GraphicsContext.inert }

    private static func finite(_ values: Double...) -> Bool { values.allSatisfy(\.isFinite) }

    /// The largest factor by which the current transform stretches lengths (an upper bound).
    private var ctmScale: Double {
        var m = cairo_matrix_t()
        cairo_get_matrix(c, &m)
        return (m.xx * m.xx + m.yx * m.yx + m.xy * m.xy + m.yy * m.yy).squareRoot()
    }

    /// Whether an arc of `radius` points is safe to hand to Cairo under the current transform.
    private func arcIsSafe(radius: Double) -> Bool {
        let device = radius * ctmScale
        return device.isFinite && device <= GraphicsContext.maximumDeviceRadius && device >= 1e-9
    }

    /// Applies `m` after checking that the result stays finite and invertible.
    private func transform(by m: cairo_matrix_t) {
        guard cr != nil, GraphicsContext.finite(m.xx, m.yx, m.xy, m.yy, m.x0, m.y0) else { return }
        var current = cairo_matrix_t()
        cairo_get_matrix(c, &current)
        var mm = m
        var result = cairo_matrix_t()
        cairo_matrix_multiply(&result, &mm, &current)
        let det = result.xx * result.yy - result.yx * result.xy
        guard GraphicsContext.finite(result.xx, result.yx, result.xy, result.yy, result.x0, result.y0, det), det != 0,
              abs(det) >= 1e-12, abs(det) <= 1e24 else { return }
        cairo_transform(c, &mm)
    }

    // MARK: State

    public func save() { guard isValid else { return }; cairo_save(c); stateStack.append((fill, stroke)) }
    /// Restores the state of the matching `save()`; an unbalanced call does nothing.
    public func restore() {
        guard let s = stateStack.popLast() else { return }
        cairo_restore(c)
        (fill, stroke) = (s.fill, s.stroke)
    }

    /// Runs `body` (text drawing, which moves and clips) without disturbing the path being built.
    private func preservingPath(_ body: () -> Void) {
        let saved = cairo_copy_path(c)
        body()
        cairo_new_path(c)
        if let saved {
            cairo_append_path(c, saved)
            cairo_path_destroy(saved)
        }
    }

    /// The current transform from user points to bitmap pixels.
    public var ctm: Transform2D {
        var m = cairo_matrix_t()
        cairo_get_matrix(c, &m)
        return Transform2D(a: m.xx, b: m.yx, c: m.xy, d: m.yy, tx: m.x0, ty: m.y0)
    }
    /// (A transform that would make the current one non-finite or not invertible is ignored.)
    public func translateBy(x: Double, y: Double) { transform(by: cairo_matrix_t(xx: 1, yx: 0, xy: 0, yy: 1, x0: x, y0: y)) }
    public func scaleBy(x: Double, y: Double) { transform(by: cairo_matrix_t(xx: x, yx: 0, xy: 0, yy: y, x0: 0, y0: 0)) }
    /// Positive angles turn +x towards +y (clockwise on screen).
    public func rotate(by angle: Double) {
        guard angle.isFinite else { return }
        transform(by: cairo_matrix_t(xx: cos(angle), yx: sin(angle), xy: -sin(angle), yy: cos(angle), x0: 0, y0: 0))
    }
    /// Applies `t` before the current transform.
    public func concatenate(_ t: Transform2D) {
        transform(by: cairo_matrix_t(xx: t.a, yx: t.b, xy: t.c, yy: t.d, x0: t.tx, y0: t.ty))
    }

    // MARK: Paths

    public func beginPath() { cairo_new_path(c) }
    public func move(to p: Point) { guard GraphicsContext.finite(p.x, p.y) else { return }; cairo_move_to(c, p.x, p.y) }
    public func addLine(to p: Point) { guard GraphicsContext.finite(p.x, p.y) else { return }; cairo_line_to(c, p.x, p.y) }
    public func addCurve(to p: Point, control1: Point, control2: Point) {
        guard GraphicsContext.finite(p.x, p.y, control1.x, control1.y, control2.x, control2.y) else { return }
        cairo_curve_to(c, control1.x, control1.y, control2.x, control2.y, p.x, p.y)
    }
    /// A quadratic Bézier, as the equivalent cubic.
    public func addQuadCurve(to p: Point, control q: Point) {
        var x0 = 0.0, y0 = 0.0
        if cairo_has_current_point(c) != 0 { cairo_get_current_point(c, &x0, &y0) } else { x0 = q.x; y0 = q.y }
        let c1 = Point(x: x0 + 2 / 3 * (q.x - x0), y: y0 + 2 / 3 * (q.y - y0))
        let c2 = Point(x: p.x + 2 / 3 * (q.x - p.x), y: p.y + 2 / 3 * (q.y - p.y))
        addCurve(to: p, control1: c1, control2: c2)
    }
    /// An arc from `startAngle` to `endAngle` (radians; 0 = +x, increasing towards +y).
    /// (Huge angles are reduced modulo 2π keeping the arc's direction and up to two turns:
    /// Cairo asserts on angles whose difference it cannot represent.)
    public func addArc(center: Point, radius: Double, startAngle: Double, endAngle: Double, clockwise: Bool = true) {
        guard GraphicsContext.finite(center.x, center.y, startAngle, endAngle, endAngle - startAngle), arcIsSafe(radius: radius) else { return }
        var startAngle = startAngle, endAngle = endAngle
        let turn = 2 * Double.pi
        if abs(startAngle) > 1e4 || abs(endAngle) > 1e4 || abs(endAngle - startAngle) > 2 * turn {
            var span = endAngle - startAngle
            if abs(span) > 2 * turn { span = (span < 0 ? -1 : 1) * (turn + fmod(abs(span), turn)) }
            startAngle = fmod(startAngle, turn)
            endAngle = startAngle + span
        }
        if clockwise { cairo_arc(c, center.x, center.y, radius, startAngle, endAngle) }
        else { cairo_arc_negative(c, center.x, center.y, radius, startAngle, endAngle) }
    }
    public func closePath() { cairo_close_path(c) }
    public func addRect(_ r: Rect) {
        guard GraphicsContext.finite(r.minX, r.minY, r.width, r.height) else { return }
        cairo_rectangle(c, r.minX, r.minY, r.width, r.height)
    }
    public func addEllipse(in r: Rect) {
        guard r.width > 0, r.height > 0, GraphicsContext.finite(r.minX, r.minY, r.width, r.height),
              arcIsSafe(radius: max(r.width, r.height) / 2), arcIsSafe(radius: min(r.width, r.height) / 2) else { return }
        cairo_save(c)
        cairo_translate(c, r.midX, r.midY)
        cairo_scale(c, r.width / 2, r.height / 2)
        cairo_new_sub_path(c)
        cairo_arc(c, 0, 0, 1, 0, 2 * .pi)
        cairo_close_path(c)
        cairo_restore(c)
    }
    public func addRoundedRect(_ r: Rect, cornerRadius: Double) {
        guard GraphicsContext.finite(r.minX, r.minY, r.width, r.height) else { return }
        let radius = cornerRadius.isFinite ? min(max(0, cornerRadius), r.width / 2, r.height / 2) : 0
        guard radius > 0, arcIsSafe(radius: radius) else { addRect(r); return }
        cairo_new_sub_path(c)
        cairo_arc(c, r.maxX - radius, r.minY + radius, radius, -.pi / 2, 0)
        cairo_arc(c, r.maxX - radius, r.maxY - radius, radius, 0, .pi / 2)
        cairo_arc(c, r.minX + radius, r.maxY - radius, radius, .pi / 2, .pi)
        cairo_arc(c, r.minX + radius, r.minY + radius, radius, .pi, 3 * .pi / 2)
        cairo_close_path(c)
    }

    // MARK: Painting

    public func setFillColor(_ color: Color) { fill = color }
    public func setStrokeColor(_ color: Color) { stroke = color }
    /// Negative or non-finite widths are ignored.
    public func setLineWidth(_ w: Double) { guard w.isFinite, w >= 0 else { return }; cairo_set_line_width(c, w) }
    public func setLineCap(_ cap: LineCap) {
        cairo_set_line_cap(c, cap == .butt ? CAIRO_LINE_CAP_BUTT : cap == .round ? CAIRO_LINE_CAP_ROUND : CAIRO_LINE_CAP_SQUARE)
    }
    public func setLineJoin(_ join: LineJoin) {
        cairo_set_line_join(c, join == .miter ? CAIRO_LINE_JOIN_MITER : join == .round ? CAIRO_LINE_JOIN_ROUND : CAIRO_LINE_JOIN_BEVEL)
    }
    public func setMiterLimit(_ limit: Double) { guard limit.isFinite else { return }; cairo_set_miter_limit(c, limit) }
    /// Dashes of alternating on/off `lengths`, starting `phase` into the pattern; empty: solid.
    /// Negative lengths, or lengths that are all zero, are invalid: the line is solid.
    public func setLineDash(phase: Double, lengths: [Double]) {
        let valid = lengths.count <= 1024 && lengths.allSatisfy { $0 >= 0 && $0.isFinite } && lengths.contains { $0 > 0 }
        cairo_set_dash(c, valid ? lengths : [], valid ? Int32(lengths.count) : 0, phase.isFinite ? phase : 0)
    }

    private func source(_ color: Color) { cairo_set_source_rgba(c, color.red, color.green, color.blue, color.alpha) }
    private func rule(_ r: FillRule) { cairo_set_fill_rule(c, r == .nonZero ? CAIRO_FILL_RULE_WINDING : CAIRO_FILL_RULE_EVEN_ODD) }

    /// Fills the current path with the fill colour and clears the path.
    public func fillPath(using r: FillRule = .nonZero) { guard isValid else { return }; rule(r); source(fill); cairo_fill(c); paintCount += 1 }
    /// Strokes the current path with the stroke colour and line settings, and clears it.
    /// A dash pattern that would cut the path into more dashes than this is drawn solid
    /// (each dash costs a stroke of its own: tiny dashes on a long path never finish).
    public static let maximumDashes = 1_000_000

    public func strokePath() {
        guard isValid else { return }
        source(stroke)
        let count = Int(cairo_get_dash_count(c))
        if count > 0 {
            var lengths = [Double](repeating: 0, count: count)
            var offset = 0.0
            cairo_get_dash(c, &lengths, &offset)
            let period = lengths.reduce(0, +) * (count % 2 == 1 ? 2 : 1)
            let dashes = pathLength() / period
            if !(dashes.isFinite && dashes <= Double(GraphicsContext.maximumDashes)) {
                cairo_save(c)
                cairo_set_dash(c, nil, 0, 0)
                cairo_stroke(c)
                cairo_restore(c)
                cairo_new_path(c)
                paintCount += 1
                return
            }
        }
        cairo_stroke(c)
        paintCount += 1
    }

    /// The box the current path covers when stroked with the current line settings
    /// (Cairo's stroke extents: caps and joins as drawn, a miter only where a corner makes
    /// one), in user points; nil for an empty path. The path is kept.
    public func strokeExtents() -> Rect? {
        guard isValid else { return nil }
        var x0 = 0.0, y0 = 0.0, x1 = 0.0, y1 = 0.0
        cairo_stroke_extents(c, &x0, &y0, &x1, &y1)
        guard x1 > x0 || y1 > y0, [x0, y0, x1, y1].allSatisfy(\.isFinite) else { return nil }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// An upper bound of the current path's length in user points (curves count their
    /// control polygon).
    /// Replaces the current path by its part from `start` to `end`, fractions (0…1) of its
    /// length measured along all its sub-paths in order (`CAShapeLayer.strokeStart` and
    /// `strokeEnd`). The part is made of line segments (the path flattened to Cairo's
    /// tolerance, a tenth of a device pixel); the whole path (0…1) is left as it is.
    public func trimPath(from start: Double, to end: Double) {
        guard isValid else { return }
        let s = start.isFinite ? min(max(start, 0), 1) : 0, e = end.isFinite ? min(max(end, 0), 1) : 1
        if s <= 0 && e >= 1 { return }
        guard let path = cairo_copy_path_flat(c) else { return }
        defer { cairo_path_destroy(path) }
        guard path.pointee.status == CAIRO_STATUS_SUCCESS, let data = path.pointee.data else { return }
        // The flattened sub-paths as polylines (a closed one ends at its start).
        var polylines: [[(Double, Double)]] = []
        var i = 0
        while i < Int(path.pointee.num_data) {
            let header = data[i].header
            switch header.type {
            case CAIRO_PATH_MOVE_TO: polylines.append([(data[i + 1].point.x, data[i + 1].point.y)])
            case CAIRO_PATH_LINE_TO:
                if polylines.isEmpty { polylines.append([]) }
                polylines[polylines.count - 1].append((data[i + 1].point.x, data[i + 1].point.y))
            case CAIRO_PATH_CLOSE_PATH:
                if let first = polylines.last?.first { polylines[polylines.count - 1].append(first) }
            default: break
            }
            i += Int(header.length)
        }
        var total = 0.0
        for line in polylines where line.count > 1 {
            for k in 1..<line.count { total += hypot(line[k].0 - line[k - 1].0, line[k].1 - line[k - 1].1) }
        }
        cairo_new_path(c)
        guard total > 0, e > s else { return }
        let a = s * total, b = e * total
        var walked = 0.0
        for line in polylines where line.count > 1 {
            var drawing = false
            for k in 1..<line.count {
                let p = line[k - 1], q = line[k]
                let len = hypot(q.0 - p.0, q.1 - p.1)
                let from = walked, to = walked + len
                walked = to
                guard to > a, from < b, len > 0 else { continue }
                func at(_ d: Double) -> (Double, Double) { let t = (d - from) / len; return (p.0 + t * (q.0 - p.0), p.1 + t * (q.1 - p.1)) }
                let u = at(max(a, from)), v = at(min(b, to))
                if !drawing { cairo_move_to(c, u.0, u.1); drawing = true }
                cairo_line_to(c, v.0, v.1)
            }
        }
    }

    private func pathLength() -> Double {
        guard let path = cairo_copy_path(c) else { return .infinity }
        defer { cairo_path_destroy(path) }
        guard path.pointee.status == CAIRO_STATUS_SUCCESS, let data = path.pointee.data else { return .infinity }
        var length = 0.0
        var current = (x: 0.0, y: 0.0), start = (x: 0.0, y: 0.0)
        func add(_ p: cairo_path_data_t) {
            length += ((p.point.x - current.x) * (p.point.x - current.x) + (p.point.y - current.y) * (p.point.y - current.y)).squareRoot()
            current = (p.point.x, p.point.y)
        }
        var i = 0
        while i < Int(path.pointee.num_data) {
            let header = data[i].header
            switch header.type {
            case CAIRO_PATH_MOVE_TO: current = (data[i + 1].point.x, data[i + 1].point.y); start = current
            case CAIRO_PATH_LINE_TO: add(data[i + 1])
            case CAIRO_PATH_CURVE_TO: add(data[i + 1]); add(data[i + 2]); add(data[i + 3])
            default:
                length += ((start.x - current.x) * (start.x - current.x) + (start.y - current.y) * (start.y - current.y)).squareRoot()
                current = start
            }
            i += Int(header.length)
        }
        return length
    }
    public func fill(_ r: Rect) { beginPath(); addRect(r); fillPath() }
    public func stroke(_ r: Rect) { beginPath(); addRect(r); strokePath() }
    public func fillEllipse(in r: Rect) { beginPath(); addEllipse(in: r); fillPath() }
    public func strokeEllipse(in r: Rect) { beginPath(); addEllipse(in: r); strokePath() }
    /// Makes `r` fully transparent (replacing, not blending).
    public func clear(_ r: Rect) {
        guard isValid, GraphicsContext.finite(r.minX, r.minY, r.width, r.height) else { return }
        cairo_save(c)
        cairo_set_operator(c, CAIRO_OPERATOR_CLEAR)
        cairo_rectangle(c, r.minX, r.minY, r.width, r.height)
        cairo_fill(c)
        cairo_restore(c)
    }

    /// Intersects the clip with the current path (and clears the path).
    public func clip(using r: FillRule = .nonZero) { rule(r); cairo_clip(c) }
    /// A non-finite rectangle clips everything away.
    public func clip(to r: Rect) { beginPath(); addRect(r); cairo_clip(c) }
    /// The clip's bounding box in user points.
    public var clipBoundingBox: Rect {
        var x0 = 0.0, y0 = 0.0, x1 = 0.0, y1 = 0.0
        cairo_clip_extents(c, &x0, &y0, &x1, &y1)
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    private func paint(_ pattern: OpaquePointer?, _ gradient: Gradient) {
        guard isValid else { cairo_pattern_destroy(pattern); return }
        for stop in gradient.stops where GraphicsContext.finite(stop.location, stop.color.red, stop.color.green, stop.color.blue, stop.color.alpha) {
            cairo_pattern_add_color_stop_rgba(pattern, stop.location, stop.color.red, stop.color.green, stop.color.blue, stop.color.alpha)
        }
        cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)
        cairo_set_source(c, pattern)
        cairo_paint(c)
        cairo_pattern_destroy(pattern)
        paintCount += 1
    }

    /// Paints the clip region with a linear gradient from `start` to `end`.
    public func drawLinearGradient(_ gradient: Gradient, start: Point, end: Point) {
        guard GraphicsContext.finite(start.x, start.y, end.x, end.y) else { return }
        paint(cairo_pattern_create_linear(start.x, start.y, end.x, end.y), gradient)
    }

    /// Paints the clip region with a radial gradient between two circles.
    public func drawRadialGradient(_ gradient: Gradient, startCenter: Point, startRadius: Double, endCenter: Point, endRadius: Double) {
        guard GraphicsContext.finite(startCenter.x, startCenter.y, startRadius, endCenter.x, endCenter.y, endRadius),
              startRadius >= 0, endRadius >= 0 else { return }
        paint(cairo_pattern_create_radial(startCenter.x, startCenter.y, startRadius, endCenter.x, endCenter.y, endRadius), gradient)
    }

    // MARK: Images

    /// Draws `image` (premultiplied RGBA) stretched into `rect`.
    public func draw(_ image: RGBAImage, in rect: Rect, interpolation: InterpolationQuality = .high) {
        guard isValid, image.width > 0, image.height > 0, image.width <= Bitmap.maximumSide, image.height <= Bitmap.maximumSide,
              rect.width > 0, rect.height > 0, GraphicsContext.finite(rect.minX, rect.minY, rect.width, rect.height),
              let s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(image.width), Int32(image.height)),
              let data = cairo_image_surface_get_data(s) else { return }
        defer { cairo_surface_destroy(s) }
        let stride = Int(cairo_image_surface_get_stride(s))
        image.bytes.withUnsafeBufferPointer { src in
            for y in 0..<image.height {
                let row = UnsafeMutableRawPointer(data + y * stride)
                for x in 0..<image.width {
                    let i = (y * image.width + x) * 4
                    let a = src[i + 3]
                    let v = UInt32(a) << 24 | UInt32(min(src[i], a)) << 16 | UInt32(min(src[i + 1], a)) << 8 | UInt32(min(src[i + 2], a))
                    row.storeBytes(of: v, toByteOffset: x * 4, as: UInt32.self)
                }
            }
        }
        cairo_surface_mark_dirty(s)
        cairo_save(c)
        cairo_rectangle(c, rect.minX, rect.minY, rect.width, rect.height)
        cairo_clip(c)
        cairo_translate(c, rect.minX, rect.minY)
        cairo_scale(c, rect.width / Double(image.width), rect.height / Double(image.height))
        cairo_set_source_surface(c, s, 0, 0)
        let pattern = cairo_get_source(c)
        cairo_pattern_set_filter(pattern, interpolation == .none ? CAIRO_FILTER_NEAREST : interpolation == .low ? CAIRO_FILTER_BILINEAR : CAIRO_FILTER_GOOD)
        cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)
        cairo_paint(c)
        cairo_restore(c)
        paintCount += 1
    }

    // MARK: Text

    /// Draws `text` with its layout box's top-left at `point`; returns the box's size.
    @discardableResult
    public func draw(_ text: String, at point: Point, font: Font, color: Color) -> Size {
        guard isValid, GraphicsContext.finite(point.x, point.y), glyphsAreDrawable(font, at: point) else { return .zero }
        return show(TextLayout(context: c, text: text, font: font, width: nil, alignment: .left), at: point, clip: nil, color: color)
    }

    /// Draws `text` wrapped (at word, else character boundaries) to the width of `rect`,
    /// aligned, and clipped to `rect`; returns the size the text needed.
    @discardableResult
    public func draw(_ text: String, in rect: Rect, font: Font, color: Color, alignment: TextAlignment = .left) -> Size {
        guard isValid, GraphicsContext.finite(rect.minX, rect.minY, rect.width, rect.height), rect.width >= 0, rect.height >= 0,
              glyphsAreDrawable(font, at: rect.origin) else { return .zero }
        return show(TextLayout(context: c, text: text, font: font, width: rect.width, alignment: alignment),
             at: rect.origin, clip: rect, color: color)
    }

    /// Draws `text` on one line per paragraph (no wrapping) in `rect`, aligned to its width
    /// and cut with an ellipsis where `truncation` says (`.none`: clipped at the rect), and
    /// clipped to `rect`; returns the size the text needed. `CATextLayer` with `isWrapped`
    /// false.
    @discardableResult
    public func drawLine(_ text: String, in rect: Rect, font: Font, color: Color, alignment: TextAlignment = .left,
                         truncation: TextTruncation = .none) -> Size {
        guard isValid, GraphicsContext.finite(rect.minX, rect.minY, rect.width, rect.height), rect.width >= 0, rect.height >= 0,
              glyphsAreDrawable(font, at: rect.origin) else { return .zero }
        let layout = TextLayout(context: c, text: text, font: font, width: truncation == .none ? nil : rect.width,
                                alignment: alignment, ellipsize: truncation)
        var origin = rect.origin
        if truncation == .none, alignment == .center || alignment == .right {
            // (No width is set, so that nothing wraps: the line is placed by hand.)
            let w = layout.size.width
            origin.x += alignment == .center ? (rect.width - w) / 2 : rect.width - w
        }
        return show(layout, at: origin, clip: rect, color: color)
    }

    /// Paints a laid-out text at `origin`, clipped to `clip`, without disturbing the path.
    /// Glyphs beyond this many pixels (or squashed below 1/1000 px) are not rasterized:
    /// FreeType fails on them, and no bitmap is that large.
    static let maximumGlyphPixels = 2000.0

    /// Whether glyphs of `font` at `origin` can be rasterized under the current transform: their
    /// largest extent in pixels (σmax ≤ the Frobenius norm) at most `maximumGlyphPixels`, their
    /// smallest (σmin ≥ |det| / that norm) at least 1/1000 px. Checked before Pango loads
    /// the font at that transform: a font FreeType fails on goes into Cairo's shared error
    /// state, and every later text in the process would draw nothing.
    private func glyphsAreDrawable(_ font: Font, at origin: Point) -> Bool {
        var m = cairo_matrix_t()
        cairo_get_matrix(c, &m)
        // Far outside any bitmap (Cairo's 24.8 fixed-point range), Pango's font for the
        // transform fails too: nothing there could be seen.
        let far = Double(1 << 23)
        let x = m.xx * origin.x + m.xy * origin.y + m.x0, y = m.yx * origin.x + m.yy * origin.y + m.y0
        guard abs(m.x0) <= far, abs(m.y0) <= far, abs(x) <= far, abs(y) <= far else { return false }
        let norm = ctmScale, det = abs(m.xx * m.yy - m.yx * m.xy)
        let size = TextLayout.clampedSize(font)
        let largest = size * norm, smallest = norm > 0 ? size * det / norm : 0
        return largest <= GraphicsContext.maximumGlyphPixels && smallest >= 1e-3
    }

    private func show(_ layout: TextLayout, at origin: Point, clip: Rect?, color: Color) -> Size {
        defer { layout.release() }
        preservingPath {
            cairo_save(c)
            if let clip {
                cairo_new_path(c)
                cairo_rectangle(c, clip.minX, clip.minY, clip.width, clip.height)
                cairo_clip(c)
            }
            source(color)
            cairo_move_to(c, origin.x, origin.y)
            pango_cairo_show_layout(c, layout.layout)
            cairo_restore(c)
        }
        paintCount += 1
        return layout.size
    }

    /// The size `text` takes in `font` (wrapped to `width` if given), in points.
    public static func measure(_ text: String, font: Font, width: Double? = nil) -> Size {
        guard let s = cairo_image_surface_create(CAIRO_FORMAT_A8, 1, 1) else { return .zero }
        defer { cairo_surface_destroy(s) }
        let cr = cairo_create(s)
        defer { cairo_destroy(cr) }
        let layout = TextLayout(context: cr!, text: text, font: font, width: width, alignment: .left)
        defer { layout.release() }
        return layout.size
    }
}

/// A Pango layout for one piece of text on a Cairo context.
struct TextLayout {
    let layout: OpaquePointer
    /// The font size used, in points (after clamping).
    let fontSize: Double
    private static let scale = Double(LAMINA_PANGO_SCALE)

    init(context: OpaquePointer, text: String, font: Font, width: Double?, alignment: TextAlignment, ellipsize: TextTruncation = .none) {
        layout = pango_cairo_create_layout(context)
        // Scale-independent layout: the same text measures the same at every contentsScale.
        let pangoContext = pango_layout_get_context(layout)
        let options = cairo_font_options_create()
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
        pango_cairo_context_set_font_options(pangoContext, options)
        cairo_font_options_destroy(options)
        pango_context_set_round_glyph_positions(pangoContext, 0)
        pango_layout_context_changed(layout)
        let desc = pango_font_description_new()
        pango_font_description_set_family(desc, String(font.family.prefix(256)))
        let size = TextLayout.clampedSize(font)
        fontSize = size
        pango_font_description_set_absolute_size(desc, size * TextLayout.scale)
        pango_font_description_set_weight(desc, Int32(font.weight.rawValue))
        pango_font_description_set_style(desc, Int32(font.italic ? LAMINA_PANGO_STYLE_ITALIC : LAMINA_PANGO_STYLE_NORMAL))
        pango_layout_set_font_description(layout, desc)
        pango_font_description_free(desc)
        // At most maximumTextLength characters (Pango's work grows with the text).
        var scalars = text.unicodeScalars[...]
        if scalars.count > GraphicsContext.maximumTextLength { scalars = scalars.prefix(GraphicsContext.maximumTextLength) }
        let shown = String(String.UnicodeScalarView(scalars))
        if let width {
            // Pango widths are Int32 in 1/1024 pt: clamp (a NaN width does not wrap).
            let w = width.isNaN ? GraphicsContext.maximumTextWidth : min(max(width, 0), GraphicsContext.maximumTextWidth)
            pango_layout_set_width(layout, Int32(w * TextLayout.scale))
            // Word wrapping is quadratic in the length of a word too long for a line;
            // such a word is broken at characters anyway, so wrap at characters.
            let wrapChar: Int32 = 1   // PANGO_WRAP_CHAR
            pango_layout_set_wrap(layout, TextLayout.longestWord(shown) > GraphicsContext.longWordLength ? wrapChar : Int32(LAMINA_PANGO_WRAP_WORD_CHAR))
            if ellipsize != .none {
                // Each paragraph on one line, cut with an ellipsis (PangoEllipsizeMode).
                pango_layout_set_ellipsize(layout, ellipsize == .start ? 1 : ellipsize == .middle ? 2 : 3)
            }
        }
        switch alignment {
        case .left: pango_layout_set_alignment(layout, Int32(LAMINA_PANGO_ALIGN_LEFT))
        case .center: pango_layout_set_alignment(layout, Int32(LAMINA_PANGO_ALIGN_CENTER))
        case .right: pango_layout_set_alignment(layout, Int32(LAMINA_PANGO_ALIGN_RIGHT))
        case .justified: pango_layout_set_justify(layout, 1)
        }
        pango_layout_set_text(layout, shown, -1)
    }

    /// The longest run of characters without white space.
    static func longestWord(_ text: String) -> Int {
        var longest = 0, run = 0
        for s in text.unicodeScalars {
            if s.properties.isWhitespace { run = 0 } else { run += 1; longest = max(longest, run) }
        }
        return longest
    }

    /// The font's size within `minimumFontSize`…`maximumFontSize` (the default when not finite or not positive).
    static func clampedSize(_ font: Font) -> Double {
        font.size.isFinite && font.size > 0 ? min(max(font.size, GraphicsContext.minimumFontSize), GraphicsContext.maximumFontSize) : Font().size
    }

    var size: Size {
        var w: Int32 = 0, h: Int32 = 0
        pango_layout_get_size(layout, &w, &h)
        return Size(width: Double(w) / TextLayout.scale, height: Double(h) / TextLayout.scale)
    }

    func release() { g_object_unref(UnsafeMutableRawPointer(layout)) }
}

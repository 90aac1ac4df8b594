import FoundationEssentials
import Glibc
import LaminaCore
import LaminaGeometry
import LaminaGraphics

/// A layer whose content is drawn from a scene file's `drawing` list (vector shapes,
/// gradients, images, text) through the same `draw(in:)` path as code-drawn layers.
@MainActor
public final class DrawingLayer: Layer {
    let operations: [(GraphicsContext) -> Void]
    /// Draw at the render target's scale (true unless the file gives `contentsScale`).
    var followsTargetScale = true
    /// Not yet asked to draw: `Scene.render` asks (after its checks). A program hosting a
    /// scene's layers itself calls `setNeedsDisplay()` on them.
    var needsFirstDisplay = true

    init(operations: [(GraphicsContext) -> Void]) {
        self.operations = operations
        super.init()
    }

    public required init() {
        operations = []
        super.init()
    }

    public override func draw(in context: GraphicsContext) {
        for op in operations {
            context.save()
            op(context)
            context.restore()
        }
    }
}

extension LayerBuilder {
    static let drawingKeys = [
        "rect", "ellipse", "roundedRect", "radius", "path", "fillRule",
        "fill", "stroke", "lineWidth", "lineCap", "lineJoin", "dash",
        "linearGradient", "radialGradient",
        "text", "at", "in", "font", "color", "align",
        "image", "interpolation",
    ]

    /// Parses `drawing`: a list of operations, each drawing one shape, text or image.
    /// At most `SceneLimits.maximumDrawingSteps` steps and `maximumPathCommands` path
    /// commands; every coordinate and size keeps `SceneLimits`.
    func drawing(_ node: JSONNode) throws -> [(GraphicsContext) -> Void] {
        let steps = try node.array()
        guard steps.count <= SceneLimits.maximumDrawingSteps else {
            throw node.error("\(steps.count) drawing steps are beyond the limit (\(SceneLimits.maximumDrawingSteps) a layer): split the drawing over several layers")
        }
        var pathCommands = 0
        return try steps.map { try drawOperation($0, pathCommands: &pathCommands) }
    }

    private func drawOperation(_ node: JSONNode, pathCommands: inout Int) throws -> (GraphicsContext) -> Void {
        let f = try node.object(allowed: LayerBuilder.drawingKeys)
        if let t = f["text"] { return try text(t, f, node) }
        if let i = f["image"] { return try image(i, f, node) }

        // A shape, then how to paint it.
        let shapes = ["rect", "ellipse", "roundedRect", "path"].filter { f[$0] != nil }
        guard shapes.count == 1, let shapeKey = shapes.first, let shapeNode = f[shapeKey] else {
            throw node.error("a drawing step has exactly one of rect, ellipse, roundedRect, path (or is text or image)")
        }
        let addShape: (GraphicsContext) -> Void
        switch shapeKey {
        case "rect": let r = try shapeNode.rect(); addShape = { $0.addRect(r) }
        case "ellipse": let r = try shapeNode.rect(); addShape = { $0.addEllipse(in: r) }
        case "roundedRect":
            let r = try shapeNode.rect()
            guard let radiusNode = f["radius"] else { throw node.error("roundedRect needs 'radius'") }
            let radius = try radiusNode.nonNegative(atMost: SceneLimits.maximumSize, "sizes")
            addShape = { $0.addRoundedRect(r, cornerRadius: radius) }
        default: let p = try path(shapeNode, commandsSoFar: &pathCommands); addShape = { $0.addPath(p) }
        }
        if shapeKey != "roundedRect", let r = f["radius"] { throw r.error("'radius' goes with roundedRect only") }
        let rule = try f["fillRule"]?.oneOf(FillRule.self) ?? .nonZero
        let paints = ["fill", "stroke", "linearGradient", "radialGradient"].filter { f[$0] != nil }
        guard !paints.isEmpty else { throw node.error("a shape needs fill, stroke, linearGradient or radialGradient") }

        var steps: [(GraphicsContext) -> Void] = []
        if let v = f["fill"] {
            let color = try v.color()
            steps.append { c in c.beginPath(); addShape(c); c.setFillColor(color); c.fillPath(using: rule) }
        }
        if let v = f["linearGradient"] {
            let g = try v.object(allowed: ["start", "end", "colors"])
            guard let s = g["start"], let e = g["end"], let cs = g["colors"] else { throw v.error("linearGradient needs start, end and colors") }
            let start = try s.point(), end = try e.point(), gradient = try self.gradient(cs)
            steps.append { c in
                c.save()
                c.beginPath(); addShape(c); c.clip(using: rule)
                c.drawLinearGradient(gradient, start: start, end: end)
                c.restore()
            }
        }
        if let v = f["radialGradient"] {
            let g = try v.object(allowed: ["center", "radius", "colors"])
            guard let ce = g["center"], let r = g["radius"], let cs = g["colors"] else { throw v.error("radialGradient needs center, radius and colors") }
            let center = try ce.point(), radius = try r.nonNegative(atMost: SceneLimits.maximumSize, "sizes"), gradient = try self.gradient(cs)
            steps.append { c in
                c.save()
                c.beginPath(); addShape(c); c.clip(using: rule)
                c.drawRadialGradient(gradient, startCenter: center, startRadius: 0, endCenter: center, endRadius: radius)
                c.restore()
            }
        }
        if let v = f["stroke"] {
            let color = try v.color()
            let width = try f["lineWidth"]?.nonNegative(atMost: SceneLimits.maximumSize, "sizes") ?? 1
            let cap = try f["lineCap"]?.oneOf(LineCap.self) ?? .butt
            let join = try f["lineJoin"]?.oneOf(LineJoin.self) ?? .miter
            let dash = try f["dash"]?.array().map { try $0.nonNegative(atMost: SceneLimits.maximumSize, "sizes") } ?? []
            if let d = f["dash"], !dash.isEmpty {
                guard dash.count <= SceneLimits.maximumDashCount else {
                    throw d.error("\(dash.count) dash lengths are beyond the limit (\(SceneLimits.maximumDashCount))")
                }
                // Each dash costs about a cap of the line's width: a pattern shorter than half
                // the width multiplies the work without changing what is seen.
                let minimum = max(SceneLimits.minimumDashPeriod, width / 2)
                guard dash.reduce(0, +) >= minimum else {
                    throw d.error("a dash pattern must be at least \(minimum) pt long in total (half the line width, and at least \(SceneLimits.minimumDashPeriod) pt); got \(dash.reduce(0, +))")
                }
            }
            steps.append { c in
                c.beginPath(); addShape(c)
                c.setStrokeColor(color); c.setLineWidth(width); c.setLineCap(cap); c.setLineJoin(join)
                c.setLineDash(phase: 0, lengths: dash)
                c.strokePath()
            }
        } else {
            for key in ["lineWidth", "lineCap", "lineJoin", "dash"] where f[key] != nil {
                throw f[key]!.error("'\(key)' goes with 'stroke'")
            }
        }
        return { c in for s in steps { s(c) } }
    }

    private func gradient(_ node: JSONNode) throws -> Gradient {
        let colors = try node.array().map { try $0.color() }
        guard colors.count >= 2 else { throw node.error("a gradient needs at least two colours") }
        return Gradient(colors: colors)
    }

    /// SVG-like path data: M x y, L x y, Q cx cy x y, C c1x c1y c2x c2y x y, Z (absolute).
    /// A path's text: M, L, Q, C, Z commands with absolute coordinates.
    func path(_ node: JSONNode, commandsSoFar: inout Int) throws -> Path {
        let text = try node.string()
        var tokens = text.replacing(",", with: " ").split(whereSeparator: \.isWhitespace).map(String.init)[...]
        var path = Path()
        func numbers(_ n: Int, for command: String) throws -> [Double] {
            var out: [Double] = []
            for _ in 0..<n {
                guard let t = tokens.popFirst(), let v = Double(t) else {
                    throw node.error("path command '\(command)' needs \(n) numbers")
                }
                guard v.isFinite, abs(v) <= SceneLimits.maximumCoordinate else {
                    throw node.error("path command '\(command)': \(t.prefix(40)) is beyond the limit for coordinates (±\(SceneLimits.format(SceneLimits.maximumCoordinate)))")
                }
                out.append(v)
            }
            return out
        }
        while let command = tokens.popFirst() {
            commandsSoFar += 1
            guard commandsSoFar <= SceneLimits.maximumPathCommands else {
                throw node.error("more than \(SceneLimits.maximumPathCommands) path commands in this layer's drawing (the limit): simplify the path or split it over several layers")
            }
            switch command {
            case "M": let v = try numbers(2, for: command); path.move(to: Point(x: v[0], y: v[1]))
            case "L": let v = try numbers(2, for: command); path.addLine(to: Point(x: v[0], y: v[1]))
            case "Q": let v = try numbers(4, for: command)
                path.addQuadCurve(to: Point(x: v[2], y: v[3]), control: Point(x: v[0], y: v[1]))
            case "C": let v = try numbers(6, for: command)
                path.addCurve(to: Point(x: v[4], y: v[5]), control1: Point(x: v[0], y: v[1]), control2: Point(x: v[2], y: v[3]))
            case "Z", "z": path.closeSubpath()
            default: throw node.error("unknown path command '\(command.prefix(40))': use M, L, Q, C, Z with absolute coordinates")
            }
        }
        guard !path.isEmpty else { throw node.error("empty path") }
        return path
    }

    /// A font: {"family", "size", "weight", "italic"} (drawing steps and text layers).
    func font(_ fn: JSONNode) throws -> Font {
        var font = Font()
        let o = try fn.object(allowed: ["family", "size", "weight", "italic"])
        if let v = o["family"] {
            font.family = try v.string()
            guard font.family.utf8.count <= 256, !font.family.utf8.contains(0) else { throw v.error("a font family is a name of at most 256 bytes") }
        }
        if let v = o["size"] { font.size = try v.positive(atMost: SceneLimits.maximumFontSize, "font sizes") }
        if let v = o["weight"] {
            let name = try v.string()
            guard let w = FontWeight.allCases.first(where: { "\($0)" == name }) else {
                throw v.error("unknown weight '\(name)'; expected one of: \(FontWeight.allCases.map { "\($0)" }.joined(separator: ", "))")
            }
            font.weight = w
        }
        if let v = o["italic"] { font.italic = try v.bool() }
        return font
    }

    private func text(_ t: JSONNode, _ f: [String: JSONNode], _ node: JSONNode) throws -> (GraphicsContext) -> Void {
        let string = try t.string()
        let length = string.unicodeScalars.count
        guard length <= SceneLimits.maximumTextLength else {
            throw t.error("a text of \(length) characters is beyond the limit (\(SceneLimits.maximumTextLength) a step): split it over several text steps")
        }
        let color = try f["color"]?.color() ?? .black
        let font = try f["font"].map(self.font) ?? Font()
        let align = try f["align"]?.oneOf(TextAlignment.self) ?? .left
        if let box = f["in"] {
            let r = try box.rect()
            return { c in c.draw(string, in: r, font: font, color: color, alignment: align) }
        }
        if f["align"] != nil { throw f["align"]!.error("'align' needs a box: give 'in' instead of 'at'") }
        guard let at = f["at"] else { throw node.error("text needs 'at' [x, y] or 'in' [x, y, w, h]") }
        let p = try at.point()
        return { c in c.draw(string, at: p, font: font, color: color) }
    }

    private func image(_ i: JSONNode, _ f: [String: JSONNode], _ node: JSONNode) throws -> (GraphicsContext) -> Void {
        let content = try imageFile(try i.string(), node: i)
        guard let box = f["in"] else { throw node.error("image needs 'in' [x, y, w, h]") }
        let r = try box.rect()
        let quality = try f["interpolation"]?.oneOf(InterpolationQuality.self) ?? .high
        let pixels = content.pixels
        return { c in c.draw(pixels, in: r, interpolation: quality) }
    }
}

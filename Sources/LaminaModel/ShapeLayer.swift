import LaminaValues
import FoundationEssentials
import Glibc
import LaminaGeometry
import LaminaGraphics

/// Like `CAShapeLayer`: a path filled and stroked, rasterised on the CPU (the same 2D
/// drawing as `draw(in:)`, by Cairo) when the path or its style changes, at the layer's
/// on-screen scale — never on a move or a transform, which the GPU does with the image it
/// has. When the on-screen scale grows (a scale transform set on it or an ancestor), the
/// next commit rasterises it again at the new scale, so it is never drawn blurred.
/// The picture covers the path (and its stroke), not the bounds: a path may lie outside
/// them (a zero-sized shape layer placed by `position`, as is usual with Core Animation).
@MainActor
public final class ShapeLayer: Layer, CommitHookLayer {
    /// The shape (bounds coordinates); nil: nothing drawn. Animatable: between two paths
    /// of the same elements (`Path.structure`: the same kinds in the same order, as Core
    /// Animation requires the same number of control points) the shape morphs point by
    /// point; between others it switches half-way. Implicit too, in a rendered tree.
    public var path: Path? {
        get { if case .path(let p)? = value(forKey: "path") { return p } else { return nil } }
        set { setValue(.path(newValue), forKey: "path") }
    }
    /// nil: not filled. Opaque black by default, as Core Animation's. Animatable.
    public var fillColor: Color? {
        get { if case .color(let c)? = value(forKey: "fillColor") { return c } else { return nil } }
        set { setValue(.color(newValue), forKey: "fillColor") }
    }
    public var fillRule: FillRule = .nonZero { didSet { if fillRule != oldValue { setNeedsDisplay() } } }
    /// nil (default): not stroked. Animatable.
    public var strokeColor: Color? {
        get { if case .color(let c)? = value(forKey: "strokeColor") { return c } else { return nil } }
        set { setValue(.color(newValue), forKey: "strokeColor") }
    }
    /// Animatable.
    public var lineWidth: Double {
        get { number("lineWidth", 1) }
        set { setValue(.number(newValue), forKey: "lineWidth") }
    }
    public var lineCap: LineCap = .butt { didSet { if lineCap != oldValue { setNeedsDisplay() } } }
    public var lineJoin: LineJoin = .miter { didSet { if lineJoin != oldValue { setNeedsDisplay() } } }
    public var miterLimit = 10.0 { didSet { if miterLimit != oldValue { setNeedsDisplay() } } }
    public var lineDashPattern: [Double]? { didSet { if lineDashPattern != oldValue { setNeedsDisplay() } } }
    /// Animatable (a marching-ants border).
    public var lineDashPhase: Double {
        get { number("lineDashPhase", 0) }
        set { setValue(.number(newValue), forKey: "lineDashPhase") }
    }
    /// The part of the path stroked, fractions of its length (0…1; the fill is whole).
    /// Animatable: a progress ring animates `strokeEnd`.
    public var strokeStart: Double {
        get { number("strokeStart", 0) }
        set { setValue(.number(newValue), forKey: "strokeStart") }
    }
    public var strokeEnd: Double {
        get { number("strokeEnd", 1) }
        set { setValue(.number(newValue), forKey: "strokeEnd") }
    }

    /// The keys of a shape layer that animate (implicitly too, in a rendered tree): each
    /// frame of their animations rasterises the shape again with the values shown.
    public static let animatableKeys: Set<String> = ["path", "fillColor", "strokeColor", "lineWidth", "lineDashPhase", "strokeStart",
                                                     "strokeEnd"]

    public override class func needsDisplay(forKey key: String) -> Bool {
        animatableKeys.contains(key) || super.needsDisplay(forKey: key)
    }

    public override class func defaultAction(forKey key: String) -> (any LayerAction)? {
        animatableKeys.contains(key) ? BasicAnimation(keyPath: key) : super.defaultAction(forKey: key)
    }

    private func number(_ key: String, _ fallback: Double) -> Double {
        if case .number(let v)? = value(forKey: key) { return v }
        return fallback
    }

    /// Pixels per point of the last rasterisation (0: none yet).
    public private(set) var rasterizedScale = 0.0
    /// The largest side of the rasterised picture, in pixels (a larger one is drawn at a
    /// lower scale).
    public static let maximumSide = 8192

    public required init() {
        super.init()
        properties.custom = ["path": .path(nil), "fillColor": .color(.black), "strokeColor": .color(nil), "lineWidth": .number(1),
                             "lineDashPhase": .number(0), "strokeStart": .number(0), "strokeEnd": .number(1)]
        transactionContext.addCommitHook(self)
    }

    /// The layer's scale on screen: `contentsScale` times the scale of its transform and
    /// its ancestors' (transforms and sublayer transforms; the mean scale of their 2-D parts).
    public var onScreenScale: Double {
        var s = PlaneMath.linearScale(transform)
        var child: Layer = self
        var l = renderParent
        while let p = l {
            // (A mask is in its layer's space without the sublayerTransform.)
            let sublayer = p.mask === child ? 1 : PlaneMath.linearScale(p.sublayerTransform)
            s *= PlaneMath.linearScale(p.transform) * sublayer
            child = p
            l = p.renderParent
        }
        return s * contentsScale
    }

    /// How far the stroke reaches past the path (points).
    private var strokeOutset: Double {
        guard let c = strokeColor, c.alpha > 0, lineWidth > 0, lineWidth.isFinite else { return 0 }
        let join = lineJoin == .miter ? max(1, miterLimit.isFinite ? miterLimit : 1) : 1
        return lineWidth / 2 * max(join, lineCap == .square ? 2.0.squareRoot() : 1)
    }

    public override func display() throws {
        let scaleWanted = max(onScreenScale, 1e-3)
        guard let path, path.isFinite, let box = path.boundingBox,
              (fillColor?.alpha ?? 0) > 0 || strokeOutset > 0 else {
            rasterizedScale = scaleWanted
            withoutContentsAction { contents = nil }
            properties.contentsPlacement = nil
            return
        }
        // The picture covers the fill and the stroke as drawn (Cairo's stroke extents: a miter
        // only where a corner makes one — a circle's stroke reaches half the line width past
        // it, not the miter limit's length), plus a point for antialiasing. The whole path's
        // stroke, not the trimmed part: the picture keeps its size while strokeEnd animates.
        var covered = box
        if strokeOutset > 0, let stroked = strokeBounds(of: path) { covered = covered.union(stroked) }
        let area = Rect(x: covered.minX - 1, y: covered.minY - 1, width: covered.width + 2, height: covered.height + 2)
        let scale = min(scaleWanted, Double(ShapeLayer.maximumSide) / max(area.width, area.height))
        guard area.width.isFinite, area.height.isFinite, scale > 0, scale.isFinite else {
            throw DisplayError.shapeExtentNotRepresentable(layer: name ?? "ShapeLayer", pathBox: box)
        }
        let x0 = (area.minX * scale).rounded(.down), y0 = (area.minY * scale).rounded(.down)
        let x1 = (area.maxX * scale).rounded(.up), y1 = (area.maxY * scale).rounded(.up)
        let size = PixelSize(width: max(1, Int(x1 - x0)), height: max(1, Int(y1 - y0)))
        let frame = Rect(x: x0 / scale, y: y0 / scale, width: Double(size.width) / scale, height: Double(size.height) / scale)
        let bitmap = try Bitmap(pixelSize: size)
        let context = GraphicsContext(bitmap: bitmap, scale: scale, origin: frame.origin, clip: frame)
        if let fill = fillColor, fill.alpha > 0 {
            context.setFillColor(fill)
            context.addPath(path)
            context.fillPath(using: fillRule)
        }
        if let stroke = strokeColor, stroke.alpha > 0, lineWidth > 0 {
            context.setStrokeColor(stroke)
            context.setLineWidth(lineWidth)
            context.setLineCap(lineCap)
            context.setLineJoin(lineJoin)
            context.setMiterLimit(miterLimit)
            if let dashes = lineDashPattern, !dashes.isEmpty { context.setLineDash(phase: lineDashPhase, lengths: dashes) }
            context.addPath(path)
            context.trimPath(from: strokeStart, to: strokeEnd)
            context.strokePath()
        }
        context.invalidate()
        rasterizedScale = scaleWanted
        properties.contentsPlacement = frame
        let image = ContentImage(bitmap.rgbaImage())
        // The picture's pixels per point are its scale: `contentsScale` says so to the contents' size.
        withoutContentsAction { contents = .image(image) }
        displayCount += 1
        let record = DisplayRecord(layer: name ?? "ShapeLayer", layerID: id, reasons: pendingDisplayReasons, rect: frame,
                                   pixelRect: PixelRect(size: size), uploadedBytes: size.width * size.height * 4)
        lastDisplay = record
        transactionContext.noteDisplay(record)
    }

    /// The path's stroke box with the layer's line settings (nil: Cairo could not say;
    /// then the bound of `strokeOutset` is used).
    private func strokeBounds(of path: Path) -> Rect? {
        guard let scratch = try? Bitmap(pixelSize: PixelSize(width: 1, height: 1)) else { return nil }
        let context = GraphicsContext(bitmap: scratch)
        defer { context.invalidate() }
        context.setLineWidth(lineWidth)
        context.setLineCap(lineCap)
        context.setLineJoin(lineJoin)
        context.setMiterLimit(miterLimit)
        context.addPath(path)
        guard let r = context.strokeExtents(), let box = path.boundingBox else {
            let o = strokeOutset
            return path.boundingBox.map { Rect(x: $0.minX - o, y: $0.minY - o, width: $0.width + 2 * o, height: $0.height + 2 * o) }
        }
        // (Never past the conservative bound.)
        let o = strokeOutset
        let clipped = r.intersection(Rect(x: box.minX - o, y: box.minY - o, width: box.width + 2 * o, height: box.height + 2 * o))
        return clipped.isEmpty ? r : clipped
    }

    // MARK: Scale tracking

    /// Before a commit's display pass (its commit hook): a shape layer in a tree whose
    /// on-screen scale grew past the scale it was rasterised at is drawn again. O(depth).
    package func commitWillDisplay() {
        guard rasterizedScale > 0, !needsDisplay, renderParent != nil else { return }
        if onScreenScale > rasterizedScale * 1.01 { setNeedsDisplay() }
    }
}

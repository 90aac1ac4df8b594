import LaminaValues
import LaminaGeometry

/// One quad for a render pass (`RenderPass.draw(_:)`): a rectangle of local points,
/// placed by `transform` (local → target points, row vectors as in `CATransform3D`: a
/// corner `p` lands at `p · transform · target.pointsToClip`), filled with `paint`.
///
/// A render pass draws quads in order; consecutive quads that need the same program,
/// texture, filters and blending share one draw call.
public struct Quad {
    /// The rectangle in local points (a negative size mirrors it).
    public var rect: Rect
    /// Local points → target points.
    public var transform: Transform3D
    public var paint: QuadPaint
    /// The caller's promise that every pixel the quad covers comes out opaque (alpha 1):
    /// it is drawn without blending (replacing what is below: the same pixels, less work).
    /// Opaque and translucent quads go in separate batches.
    public var isOpaque: Bool

    public init(_ rect: Rect, transform: Transform3D = .identity, paint: QuadPaint, isOpaque: Bool = false) {
        self.rect = rect
        self.transform = transform
        self.paint = paint
        self.isOpaque = isOpaque
    }
}

/// What fills a quad.
public enum QuadPaint {
    /// A solid colour (straight alpha; premultiplied when drawn).
    case solid(Color)
    /// A rounded rectangle of `color` with antialiased edges, the size of the quad's
    /// rectangle: filled when `borderWidth` is 0, else a ring of that width inside its edge.
    /// `corners` says which corners are rounded and how (named in the quad's rectangle:
    /// `layerMinXMinYCorner` is at its origin).
    case roundedRect(color: Color, corners: CornerShape, borderWidth: Double = 0)
    /// A premultiplied texture faded by `alpha`.
    /// - `source`: the part of the texture shown, unit coordinates (y down).
    /// - `clamp`: a unit rectangle sampling is clamped to (an atlas entry's rectangle inset
    ///   by half a texel: sampling then behaves like `CLAMP_TO_EDGE` on the entry alone);
    ///   nil: none (the sampler clamps at the texture's edges).
    /// - `channels`: the byte order of the texels as stored; nil: the texture's own
    ///   (`Texture.byteOrder`, which the texture's swizzle already reads correctly). Given
    ///   for a texture holding data of another order — an `.rgba` atlas page holding a
    ///   `.bgra` entry — the shader reorders the channels, so such quads still batch.
    case texture(Texture, source: Rect = Rect(x: 0, y: 0, width: 1, height: 1), clamp: Rect? = nil, alpha: Double = 1,
                 channels: PixelByteOrder? = nil, minFilter: TextureFilter = .linear, magFilter: TextureFilter = .linear)
    /// The shadow of a (rounded) rectangle, computed analytically (`batch-shadow.frag`): the
    /// shape's coverage convolved with a Gaussian of standard deviation `sigma` (points), in
    /// `color`. The quad's rectangle is the shape grown by 3σ on every side (use
    /// `Quad.shadow(of:cornerRadius:sigma:color:transform:)`).
    case shadow(color: Color, cornerRadius: Double, sigma: Double)
}

extension QuadPaint {
    /// A rounded rectangle with four circular corners of `cornerRadius`.
    public static func roundedRect(color: Color, cornerRadius: Double, borderWidth: Double = 0) -> QuadPaint {
        .roundedRect(color: color, corners: CornerShape(radius: cornerRadius), borderWidth: borderWidth)
    }
}

extension Quad {
    /// The quad drawing the analytic shadow of `shape` (a rectangle with `cornerRadius`)
    /// blurred by a Gaussian of standard deviation `sigma` points: the shape grown by 3σ.
    public static func shadow(of shape: Rect, cornerRadius: Double, sigma: Double, color: Color,
                              transform: Transform3D = .identity) -> Quad {
        let s = max(0, sigma), r = shape.standardized
        return Quad(Rect(x: r.minX - 3 * s, y: r.minY - 3 * s, width: r.width + 6 * s, height: r.height + 6 * s),
                    transform: transform, paint: .shadow(color: color, cornerRadius: cornerRadius, sigma: s))
    }
}

// MARK: Nine-slice geometry

extension Quad {
    /// Nine-slice stretching (`CALayer.contentsCenter`) as geometry: up to nine texture
    /// quads drawing `source` of `texture` into `rect`, so that the parts outside `center`
    /// (a unit rectangle of the source sub-image) keep their size — `contentSize` is the
    /// sub-image's size in points — while the edges stretch along one axis and the centre
    /// along both. Caps shrink proportionally when they do not fit; a zero-width (or
    /// zero-height) centre replicates the single column (row) of texels at its position.
    /// Pieces of zero size are left out.
    ///
    /// The pixels equal a per-pixel piecewise mapping of the whole rectangle (what
    /// `nineslice.frag` used to compute): texture coordinates are continuous across the
    /// seams, and sampling is clamped only to `clamp` (the whole entry's), never at a seam,
    /// so linear filtering across a seam is the single quad's.
    public static func appendNineSlice(to quads: inout [Quad], texture: Texture, in rect: Rect,
                                       source: Rect = Rect(x: 0, y: 0, width: 1, height: 1), center: Rect, contentSize: Size,
                                       clamp: Rect? = nil, alpha: Double = 1, channels: PixelByteOrder? = nil,
                                       minFilter: TextureFilter = .linear, magFilter: TextureFilter = .linear,
                                       transform: Transform3D = .identity, isOpaque: Bool = false) {
        let c = center.standardized
        let texels = (abs(source.size.width) * Double(texture.pixelSize.width), abs(source.size.height) * Double(texture.pixelSize.height))
        let xs = NineSliceAxis(size: abs(rect.size.width), capStart: c.minX * contentSize.width,
                               capEnd: (1 - c.maxX) * contentSize.width, centerStart: c.minX, centerSize: c.width, texels: texels.0)
        let ys = NineSliceAxis(size: abs(rect.size.height), capStart: c.minY * contentSize.height,
                               capEnd: (1 - c.maxY) * contentSize.height, centerStart: c.minY, centerSize: c.height, texels: texels.1)
        guard xs.count > 0, ys.count > 0 else { return }
        // Boundaries in the rectangle's own direction (a negative size mirrors it).
        func position(_ origin: Double, _ extent: Double, _ p: Double, _ size: Double) -> Double {
            p == 0 ? origin : p == size ? origin + extent : origin + p / size * extent
        }
        for j in 0..<ys.count {
            let y = ys[j]
            let y0 = position(rect.origin.y, rect.size.height, y.start, ys.size)
            let y1 = position(rect.origin.y, rect.size.height, y.end, ys.size)
            let v0 = source.origin.y + y.sourceStart * source.size.height
            let v1 = source.origin.y + y.sourceEnd * source.size.height
            for i in 0..<xs.count {
                let x = xs[i]
                let x0 = position(rect.origin.x, rect.size.width, x.start, xs.size)
                let x1 = position(rect.origin.x, rect.size.width, x.end, xs.size)
                let u0 = source.origin.x + x.sourceStart * source.size.width
                let u1 = source.origin.x + x.sourceEnd * source.size.width
                quads.append(Quad(Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0), transform: transform,
                                  paint: .texture(texture, source: Rect(x: u0, y: v0, width: u1 - u0, height: v1 - v0),
                                                  clamp: clamp, alpha: alpha, channels: channels,
                                                  minFilter: minFilter, magFilter: magFilter),
                                  isOpaque: isOpaque))
            }
        }
    }

    /// The nine-slice quads of `appendNineSlice(to:…)` as a new array.
    public static func nineSlice(texture: Texture, in rect: Rect, source: Rect = Rect(x: 0, y: 0, width: 1, height: 1),
                                 center: Rect, contentSize: Size, clamp: Rect? = nil, alpha: Double = 1,
                                 channels: PixelByteOrder? = nil, minFilter: TextureFilter = .linear,
                                 magFilter: TextureFilter = .linear, transform: Transform3D = .identity,
                                 isOpaque: Bool = false) -> [Quad] {
        var quads: [Quad] = []
        quads.reserveCapacity(9)
        appendNineSlice(to: &quads, texture: texture, in: rect, source: source, center: center, contentSize: contentSize,
                        clamp: clamp, alpha: alpha, channels: channels, minFilter: minFilter, magFilter: magFilter,
                        transform: transform, isOpaque: isOpaque)
        return quads
    }
}

/// One axis of a nine-slice: up to three pieces, each a range of the destination (points,
/// 0…size along the rectangle) mapped linearly to a range of the source sub-image (unit).
struct NineSliceAxis {
    struct Piece: Equatable {
        var start: Double, end: Double              // destination points, start < end
        var sourceStart: Double, sourceEnd: Double  // unit coordinates of the sub-image
    }
    let size: Double
    private(set) var pieces: (Piece, Piece, Piece) = (Piece(start: 0, end: 0, sourceStart: 0, sourceEnd: 0),
                                                      Piece(start: 0, end: 0, sourceStart: 0, sourceEnd: 0),
                                                      Piece(start: 0, end: 0, sourceStart: 0, sourceEnd: 0))
    private(set) var count = 0

    /// The piecewise map p → unit source coordinate (a destination point p in 0…size):
    /// p < a: the start cap, p·c0/a; p > size − b: the end cap; else the centre, stretched —
    /// or, for a zero-size centre, the middle of the texel column at c0. `capStart` and
    /// `capEnd` are the caps in points before shrinking; `texels` the sub-image's texels
    /// along the axis.
    init(size: Double, capStart: Double, capEnd: Double, centerStart c0: Double, centerSize cw: Double, texels: Double) {
        self.size = size
        guard size > 0 else { return }
        var (a, b) = (capStart, capEnd)
        let total = a + b
        if total > size && total > 0 { a = a * size / total; b = b * size / total }   // shrink proportionally
        // The ranges each rule owns (the start cap wins over the end cap, both over the centre).
        let startEnd = min(max(a, 0), size)
        let endStart = max(size - b, startEnd)
        if a > 0 && startEnd > 0 {
            append(Piece(start: 0, end: startEnd, sourceStart: 0, sourceEnd: startEnd / a * c0))
        }
        if endStart > startEnd {
            let middle = size - a - b
            if cw <= 0 {
                let column = max(0, min((c0 * texels).rounded(.down), texels - 1))
                let s = (column + 0.5) / max(texels, 1)
                append(Piece(start: startEnd, end: endStart, sourceStart: s, sourceEnd: s))
            } else if middle > 0 {
                func map(_ p: Double) -> Double { c0 + (p - a) / middle * cw }
                append(Piece(start: startEnd, end: endStart, sourceStart: map(startEnd), sourceEnd: map(endStart)))
            }
        }
        if b > 0 && size > endStart {
            func map(_ p: Double) -> Double { (c0 + cw) + (p - (size - b)) / b * (1 - c0 - cw) }
            append(Piece(start: endStart, end: size, sourceStart: map(endStart), sourceEnd: 1))
        }
    }

    private mutating func append(_ piece: Piece) {
        switch count {
        case 0: pieces.0 = piece
        case 1: pieces.1 = piece
        default: pieces.2 = piece
        }
        count += 1
    }

    subscript(i: Int) -> Piece { i == 0 ? pieces.0 : i == 1 ? pieces.1 : pieces.2 }
}

/// A half-plane of a quad's local points, a·x + b·y + c ≥ 0: with `RenderPass.cutPlanes`,
/// quads (and clip shapes) are drawn only where every such half-plane holds. The
/// compositor uses it for the part of a layer in front of the eye at each flattening level
/// (w > 0 there), which the GPU's own clipping (of the product of the levels' w) cannot see.
public struct HalfPlane: Equatable, Sendable {
    public var a: Double, b: Double, c: Double
    public init(a: Double, b: Double, c: Double) { self.a = a; self.b = b; self.c = c }

    @inline(__always)
    func value(_ x: Double, _ y: Double) -> Double { a * x + b * y + c }
}

/// Cuts a rectangle by half-planes (Sutherland–Hodgman): the convex polygon left, in order,
/// into `polygon` (empty: nothing left). `scratch` is reused storage.
func cut(x0: Double, y0: Double, x1: Double, y1: Double, by planes: [HalfPlane],
         into polygon: inout [(Double, Double)], scratch: inout [(Double, Double)]) {
    polygon.removeAll(keepingCapacity: true)
    polygon.append((x0, y0)); polygon.append((x1, y0)); polygon.append((x1, y1)); polygon.append((x0, y1))
    for plane in planes {
        guard !polygon.isEmpty else { return }
        scratch.removeAll(keepingCapacity: true)
        var previous = polygon[polygon.count - 1]
        var pv = plane.value(previous.0, previous.1)
        for current in polygon {
            let cv = plane.value(current.0, current.1)
            if (cv >= 0) != (pv >= 0) {
                // The edge crosses the line: its crossing point.
                let t = pv / (pv - cv)
                scratch.append((previous.0 + t * (current.0 - previous.0), previous.1 + t * (current.1 - previous.1)))
            }
            if cv >= 0 { scratch.append(current) }
            previous = current
            pv = cv
        }
        swap(&polygon, &scratch)
    }
    if polygon.count < 3 { polygon.removeAll(keepingCapacity: true) }
}

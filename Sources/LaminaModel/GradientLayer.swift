import LaminaGeometry
import LaminaValues

/// Like `CAGradientLayer`: a gradient over its bounds, evaluated on the GPU (in
/// premultiplied colour, dithered for 8-bit targets) and kept as an image until the
/// gradient or the layer's on-screen size changes. Drawn above the background, below
/// contents and sublayers; clipped like contents (`masksToBounds`, `cornerRadius`).
@MainActor
public final class GradientLayer: Layer {
    /// `.axial` (along startPoint → endPoint), `.radial` (Core Animation's ellipse about
    /// startPoint whose radii, in unit coordinates, are |endPoint − startPoint| on each axis), `.conic`
    /// (the angle about startPoint, from the direction of endPoint, clockwise on screen).
    public var type: GradientType = .axial { didSet { if type != oldValue { update() } } }
    /// The colours, in order (at most 16 are used).
    public var colors: [Color] = [] { didSet { if colors != oldValue { update() } } }
    /// Where each colour sits, 0…1, increasing; nil (default) spreads them evenly. A list
    /// of another length than `colors` is ignored (spread evenly), as Core Animation does.
    public var locations: [Double]? { didSet { if locations != oldValue { update() } } }
    /// Unit coordinates of the bounds (y down): (0.5, 0) → (0.5, 1) by default (top to bottom).
    public var startPoint = Point(x: 0.5, y: 0) { didSet { if startPoint != oldValue { update() } } }
    public var endPoint = Point(x: 0.5, y: 1) { didSet { if endPoint != oldValue { update() } } }
    /// Ordered dithering of half an 8-bit step (on by default): no bands on 8-bit targets.
    public var dithers = true { didSet { if dithers != oldValue { update() } } }

    public required init() { super.init() }

    private func update() {
        let stops: [Double]
        if let l = locations, l.count == colors.count, l.allSatisfy(\.isFinite) {
            var last = -Double.infinity
            stops = l.map { v in last = max(last, min(1, max(0, v))); return last }
        } else {
            stops = colors.count < 2 ? [0] : (0..<colors.count).map { Double($0) / Double(colors.count - 1) }
        }
        let finite = startPoint.isFinite && endPoint.isFinite && colors.allSatisfy(\.isFinite)
        properties.gradient = colors.isEmpty || !finite ? nil
            : GradientStyle(type: type, colors: colors, locations: Array(stops.prefix(colors.count)), startPoint: startPoint,
                            endPoint: endPoint, dithers: dithers)
        changed(.effects)
    }
}

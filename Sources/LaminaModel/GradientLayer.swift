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
    /// Both animate (key paths `startPoint`, `endPoint`; implicitly in a rendered tree), on
    /// the GPU: each frame evaluates the gradient again, nothing is drawn on the CPU.
    /// (A presentation copy, `presentation()`, gives the points shown.)
    public var startPoint: Point {
        get { isPresentationCopy ? properties.gradient?.startPoint ?? modelStartPoint : modelStartPoint }
        set { if newValue != modelStartPoint { actionWillChange("startPoint", from: .point(modelStartPoint)); modelStartPoint = newValue; update() } }
    }
    public var endPoint: Point {
        get { isPresentationCopy ? properties.gradient?.endPoint ?? modelEndPoint : modelEndPoint }
        set { if newValue != modelEndPoint { actionWillChange("endPoint", from: .point(modelEndPoint)); modelEndPoint = newValue; update() } }
    }
    private var modelStartPoint = Point(x: 0.5, y: 0)
    private var modelEndPoint = Point(x: 0.5, y: 1)
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
        let finite = modelStartPoint.isFinite && modelEndPoint.isFinite && colors.allSatisfy(\.isFinite)
        properties.gradient = colors.isEmpty || !finite ? nil
            : GradientStyle(type: type, colors: colors, locations: Array(stops.prefix(colors.count)), startPoint: modelStartPoint,
                            endPoint: modelEndPoint, dithers: dithers)
        changed(.effects)
    }
}

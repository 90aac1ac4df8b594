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
    /// The colours, in order (at most 16 are used). Animatable (key path `colors`, implicit
    /// too): colour by colour, premultiplied, when the counts agree — on the GPU, as the points.
    public var colors: [Color] {
        get { isPresentationCopy ? properties.gradient?.colors ?? modelColors : modelColors }
        set { if newValue != modelColors { actionWillChange("colors", from: .colors(modelColors)); modelColors = newValue; update() } }
    }
    /// Where each colour sits, 0…1, increasing; nil (default) spreads them evenly. A list
    /// of another length than `colors` is ignored (spread evenly), as Core Animation does.
    /// Animatable (key path `locations`, implicit too; from nil: from the even spread). A
    /// presentation copy gives the stops shown.
    public var locations: [Double]? {
        get { isPresentationCopy ? properties.gradient?.locations ?? modelLocations : modelLocations }
        set {
            guard newValue != modelLocations else { return }
            actionWillChange("locations", from: .numbers(GradientStyle.stops(modelLocations, count: modelColors.count)))
            modelLocations = newValue
            update()
        }
    }
    private var modelColors: [Color] = []
    private var modelLocations: [Double]?
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
        let stops = GradientStyle.stops(modelLocations, count: modelColors.count)
        let finite = modelStartPoint.isFinite && modelEndPoint.isFinite && modelColors.allSatisfy(\.isFinite)
        properties.gradient = modelColors.isEmpty || !finite ? nil
            : GradientStyle(type: type, colors: modelColors, locations: Array(stops.prefix(modelColors.count)), startPoint: modelStartPoint,
                            endPoint: modelEndPoint, dithers: dithers)
        changed(.effects)
    }
}

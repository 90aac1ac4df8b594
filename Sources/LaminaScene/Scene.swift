import FoundationEssentials
import Glibc
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import LaminaValues

/// The limits a scene file's values must keep (documented in docs/scene-format.md):
/// values beyond them, and non-finite values, are errors naming the file, the JSON path
/// and the layer. They keep every size and conversion the renderer makes far from
/// overflow, and the work a scene can ask for bounded.
public enum SceneLimits {
    /// Largest magnitude of a coordinate (positions, origins, translations, z), in points.
    public static let maximumCoordinate = 1e6
    /// Largest width or height (bounds, frames, the canvas, boxes, radii, widths), in points.
    public static let maximumSize = 1e6
    /// Largest `scale` and `contentsScale` (pixels per point); both must be above 0.
    public static let maximumScale = 16.0
    /// Largest magnitude of an anchor point's and of a unit rectangle's (`contentsRect`) values.
    public static let maximumUnitValue = 1e3
    /// Largest magnitude of a transform's scale factor and matrix entry, and of the entries
    /// of a layer's combined transform.
    public static let maximumTransformEntry = 1e6
    /// Largest rotation angle magnitude, in degrees.
    public static let maximumAngle = 1e6
    /// Smallest perspective distance, in points (`m34 = -1/d`).
    public static let minimumPerspective = 1e-3
    /// Largest `contents.pixels` image side, in pixels.
    public static let maximumPixelsSide = 4096
    /// Most drawing steps in one layer's `drawing`.
    public static let maximumDrawingSteps = 10_000
    /// Most path commands in one layer's `drawing` (all its paths together).
    public static let maximumPathCommands = 100_000
    /// Most characters (Unicode scalars) in one text step.
    public static let maximumTextLength = GraphicsContext.maximumTextLength
    /// Largest font size, in points.
    public static let maximumFontSize = 1000.0
    /// Most entries in a dash pattern; the pattern's total length must be at least
    /// `minimumDashPeriod` points and half the line width (shorter patterns make millions
    /// of dashes, each costing about a line cap).
    public static let maximumDashCount = 64
    public static let minimumDashPeriod = 0.1
    /// Most layers in one scene.
    public static let maximumLayers = 1_000_000
    /// Largest scene file read, in bytes (64 MiB).
    public static let maximumFileSize = 64 << 20
    /// Deepest layer tree `Scene.render` renders (the root is level 0): a bound on the work
    /// of one file (the renderer itself has no depth limit: it does not recurse per level).
    /// Below what the JSON nesting limit lets a chain reach (about 50 000).
    public static let maximumRenderDepth = 40_000
    /// Deepest JSON nesting (arrays and objects): a chain of N sublayers nests 2N + 2
    /// levels, so this allows chains of about 50 000 layers.
    public static let maximumNesting = JSONDocument.maximumDepth
    /// The most backing-store pixels all drawn layers of a scene may need together when
    /// rendered (2²⁸ px = 1 GiB); each side is also limited by the GPU's texture size.
    public static let maximumBackingStorePixels = 1 << 28
    /// Most animations in one scene, group members (at every level) included.
    public static let maximumAnimations = 10_000
    /// Most values in one keyframe animation (`values`; `keyTimes` and the other per-value
    /// lists have as many), and in all of a scene's keyframe animations together.
    public static let maximumKeyframes = 10_000
    public static let maximumSceneKeyframes = 1_000_000
    /// Deepest nesting of animation groups (a group in a group in a layer's `animations`: 2).
    public static let maximumGroupDepth = 16
    /// Largest magnitude of a time (`beginTime`, `timeOffset`, `duration`, `repeatDuration`),
    /// in seconds, and of a `repeatCount`.
    public static let maximumTime = 1e9
    /// Largest magnitude of a `speed` (an animation's or a layer's).
    public static let maximumSpeed = 1e6
    /// Largest spring `mass`, `stiffness`, `damping` and `initialVelocity` magnitude; the
    /// smallest `mass` and `stiffness`.
    public static let maximumSpringParameter = 1e6
    public static let minimumSpringParameter = 1e-6
    /// Most repetitions of a cumulative animation of a whole transform (`transform`,
    /// `sublayerTransform`): each finished repetition costs the renderer a matrix product
    /// per frame, so such an animation repeats a bounded number of times (no "infinity").
    public static let maximumCumulativeTransformRepeats = 1000.0

    static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : "\(v)"
    }
}

/// A scene file (JSON, `docs/scene-format.md`): a canvas size, a scale, a background
/// and a layer tree.
@MainActor
public struct Scene {
    public static let currentVersion = 1

    /// The file it was read from (for messages).
    public var file: String
    public var size: Size
    public var scale: Double
    public var background: Color
    public var root: Layer
    /// The media time (`MediaClock.now()`) at which the scene's time is 0: when it was read.
    /// A scene with animations shifts its root layer's `beginTime` by it, so that every
    /// layer's time counts from the scene's start. `lamina render` fixes the clock at 0
    /// while reading, so this is 0 there.
    public var startTime = 0.0
    /// Where each layer was described (for render-time messages).
    var origins: [ObjectIdentifier: LayerOrigin] = [:]

    struct LayerOrigin {
        let node: JSONNode
        let name: String?
    }

    /// Reads and builds a scene. Image paths are relative to the scene file's folder.
    public static func load(contentsOf path: String) throws -> Scene {
        guard FileManager.default.fileExists(atPath: path) else { throw SceneError(file: path, path: "$", problem: "no such file") }
        // Only regular files of a bounded size: a device (/dev/zero) or a FIFO never ends.
        let file = regularFileSize(atPath: path)
        guard let file, file.isRegular else {
            throw SceneError(file: path, path: "$", problem: "not a regular file (a directory, device or pipe)")
        }
        let size = file.size
        guard size <= SceneLimits.maximumFileSize else {
            throw SceneError(file: path, path: "$", problem: "the file is \(size) bytes, beyond the limit of \(SceneLimits.maximumFileSize) bytes for a scene")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SceneError(file: path, path: "$", problem: "cannot read the file")
        }
        let base = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return try parse(data, file: path, baseDirectory: base)
    }

    /// Reads a scene from JSON text. Every value is checked (types and `SceneLimits`)
    /// before any layer is made: a scene that fails creates no layer.
    public static func parse(_ data: Data, file: String, baseDirectory: String) throws -> Scene {
        let top = try JSONNode.parse(data, file: file)
        let fields = try top.object(allowed: ["version", "size", "scale", "background", "root", "description"])
        guard let versionNode = fields["version"] else { throw top.error("missing 'version' (this reader understands version \(currentVersion))") }
        let version = try versionNode.number()
        guard version == Double(currentVersion) else {
            throw versionNode.error("unsupported scene version \(version); this reader understands version \(currentVersion)")
        }
        guard let sizeNode = fields["size"] else { throw top.error("missing 'size' ([width, height] in points)") }
        let size = try sizeNode.size()
        guard size.width > 0, size.height > 0 else { throw sizeNode.error("the canvas must not be empty") }
        guard let rootNode = fields["root"] else { throw top.error("missing 'root' (the root layer)") }
        _ = try fields["description"]?.string()
        let scale = try fields["scale"]?.scale(atMost: SceneLimits.maximumScale, "scale") ?? 1
        let background = try fields["background"]?.color() ?? .clear
        let builder = LayerBuilder(baseDirectory: baseDirectory)
        let specs = try builder.layers(rootNode)
        let (root, origins) = builder.instantiate(specs)
        var scene = Scene(file: file, size: size, scale: scale, background: background, root: root)
        scene.origins = origins
        scene.startTime = MediaClock.now()
        if specs.contains(where: \.animates), scene.startTime != 0 {
            root.beginTime += scene.startTime
        }
        return scene
    }
}

/// Builds layers from scene JSON, in two phases: `layers` reads and checks every value
/// (iteratively, any depth), `instantiate` makes the layers (it cannot fail).
@MainActor
struct LayerBuilder {
    let baseDirectory: String
    /// Images loaded so far, so that layers sharing a file share one ContentImage.
    private final class Cache { var images: [String: ContentImage] = [:] }
    private let cache = Cache()

    init(baseDirectory: String) { self.baseDirectory = baseDirectory }

    static let layerKeys = [
        "type", "name", "frame", "bounds", "position", "anchorPoint", "anchorPointZ", "zPosition",
        "transform", "sublayerTransform", "doubleSided", "backgroundColor", "opacity", "allowsGroupOpacity",
        "hidden", "borderWidth", "borderColor", "cornerRadius", "maskedCorners", "cornerCurve", "masksToBounds", "opaque",
        "contents", "contentsRect", "contentsCenter", "contentsGravity", "contentsScale", "minificationFilter", "magnificationFilter",
        "sublayers", "drawing", "needsDisplayOnBoundsChange", "contentMode", "contentStretch",
        "animations", "beginTime", "speed", "timeOffset",
    ] + effectKeys + LayerBuilder.typeKeys.values.flatMap { $0 }

    /// The corners of `maskedCorners`, by `CACornerMask`'s names less "layer…Corner".
    enum CornerName: String, CaseIterable {
        case minXMinY, maxXMinY, minXMaxY, maxXMaxY
        var mask: CornerMask {
            switch self {
            case .minXMinY: return .layerMinXMinYCorner
            case .maxXMinY: return .layerMaxXMinYCorner
            case .minXMaxY: return .layerMinXMaxYCorner
            case .maxXMaxY: return .layerMaxXMaxYCorner
            }
        }
    }

    enum LayerType: String, CaseIterable { case layer, transformLayer, shapeLayer, gradientLayer, replicatorLayer, shaderLayer, textLayer }

    /// One layer read from the file: how to make it, the settings to apply in order, and
    /// its superlayer (an earlier spec; -1 for the root).
    struct LayerSpec {
        var node: JSONNode
        var name: String?
        var parent: Int
        var make: @MainActor () -> Layer
        /// The superlayer's `mask`, not a sublayer.
        var isMask = false
        var settings: [@MainActor (Layer) -> Void] = []
        /// It has animations.
        var animates = false
    }

    /// Reads the layer tree under `root` depth-first without recursion; specs are in
    /// document order (a superlayer before its sublayers, siblings in order).
    func layers(_ root: JSONNode) throws -> [LayerSpec] {
        var specs: [LayerSpec] = []
        var pending: [(node: JSONNode, parent: Int)] = [(root, -1)]
        var budget = AnimationBudget()
        while let (node, parent) = pending.popLast() {
            guard specs.count < SceneLimits.maximumLayers else {
                throw node.error("more than \(SceneLimits.maximumLayers) layers (the scene limit)")
            }
            var (spec, children) = try layer(node, parent: parent < -1 ? -2 - parent : parent, budget: &budget)
            spec.isMask = parent < -1
            specs.append(spec)
            let index = specs.count - 1
            for child in children.reversed() { pending.append((child, index)) }
            if let m = try node.object(allowed: LayerBuilder.layerKeys)["mask"] { pending.append((m, -2 - index)) }   // (a mask: parent -2 - index)
        }
        return specs
    }

    /// Makes the layers of `specs` and links them; returns the root and where each came from.
    func instantiate(_ specs: [LayerSpec]) -> (Layer, [ObjectIdentifier: Scene.LayerOrigin]) {
        var made: [Layer] = []
        made.reserveCapacity(specs.count)
        var origins: [ObjectIdentifier: Scene.LayerOrigin] = [:]
        var depth: [Int] = []
        depth.reserveCapacity(specs.count)
        for spec in specs {
            let l = spec.make()
            for set in spec.settings { set(l) }
            origins[ObjectIdentifier(l)] = Scene.LayerOrigin(node: spec.node, name: spec.name)
            made.append(l)
            depth.append(spec.parent >= 0 ? depth[spec.parent] + 1 : 0)
        }
        // Linking a layer costs its new superlayer's depth (the cycle check walks up) plus
        // its own subtree (described to the renderers): top-down or bottom-up, a chain of N
        // costs N²/2. Linking in rounds instead — round k links the layers whose depth has
        // k trailing zero bits, joining pieces at most 2^k deep — costs N log N. Siblings
        // share a depth, so they are linked in one round, in order.
        var round = 0
        var remaining = specs.count - 1
        while remaining > 0 {
            for i in 1..<specs.count where depth[i].trailingZeroBitCount == round {
                if specs[i].isMask { made[specs[i].parent].mask = made[i] } else { made[specs[i].parent].addSublayer(made[i]) }
                remaining -= 1
            }
            round += 1
        }
        return (made[0], origins)
    }

    /// One layer's spec and its sublayer nodes; errors name the layer.
    private func layer(_ node: JSONNode, parent: Int, budget: inout AnimationBudget) throws -> (LayerSpec, [JSONNode]) {
        let f = try node.object(allowed: LayerBuilder.layerKeys)
        let name = try f["name"]?.string()
        do {
            return try layer(node, f, name: name, parent: parent, budget: &budget)
        } catch var e as SceneError {
            if e.layer == nil { e.layer = name }
            throw e
        }
    }

    private func layer(_ node: JSONNode, _ f: [String: JSONNode], name: String?, parent: Int,
                       budget: inout AnimationBudget) throws -> (LayerSpec, [JSONNode]) {
        let type = try f["type"]?.oneOf(LayerType.self) ?? .layer
        var spec: LayerSpec
        if let d = f["drawing"] {
            guard type == .layer else { throw d.error("a transform layer draws nothing: put 'drawing' on a sublayer") }
            if f["contents"] != nil { throw d.error("'drawing' and 'contents' exclude each other (drawn content replaces contents)") }
            let operations = try drawing(d)
            let follows = f["contentsScale"] == nil
            spec = LayerSpec(node: node, name: name, parent: parent, make: {
                let drawn = DrawingLayer(operations: operations)
                drawn.followsTargetScale = follows
                return drawn
            })
        } else {
            spec = LayerSpec(node: node, name: name, parent: parent, make: {
                switch type {
                case .layer: return Layer()
                case .transformLayer: return TransformLayer()
                case .shapeLayer: return ShapeLayer()
                case .gradientLayer: return GradientLayer()
                case .replicatorLayer: return ReplicatorLayer()
                case .shaderLayer: return ShaderLayer()
                case .textLayer: return TextLayer()
                }
            })
        }
        func set(_ body: @escaping @MainActor (Layer) -> Void) { spec.settings.append(body) }
        try effects(f, type: type, set: set)
        if let name { set { $0.name = name } }

        if let frame = f["frame"] {
            for conflicting in ["bounds", "position"] where f[conflicting] != nil {
                throw frame.error("'frame' cannot be combined with '\(conflicting)': give either frame, or bounds and position")
            }
        }
        if let v = f["bounds"] { let r = try v.rect(); set { $0.bounds = r } }
        if let v = f["anchorPoint"] {
            let a = try v.numbers(count: 2...2, magnitude: SceneLimits.maximumUnitValue, "anchor points")
            set { $0.anchorPoint = Point(x: a[0], y: a[1]) }
        }
        if let v = f["anchorPointZ"] { let z = try v.number(magnitude: SceneLimits.maximumCoordinate, "coordinates"); set { $0.anchorPointZ = z } }
        if let v = f["position"] { let p = try v.point(); set { $0.position = p } }
        // The frame is the untransformed one, set before the transform (as code does:
        // `layer.frame = …; layer.transform = …`), so the transform turns it about its anchor.
        if let v = f["frame"] { let r = try v.rect(); set { $0.frame = r } }
        if let v = f["zPosition"] { let z = try v.number(magnitude: SceneLimits.maximumCoordinate, "coordinates"); set { $0.zPosition = z } }
        if let v = f["transform"] { let t = try transform(v); set { $0.transform = t } }
        if let v = f["sublayerTransform"] { let t = try transform(v); set { $0.sublayerTransform = t } }
        if let v = f["doubleSided"] { let b = try v.bool(); set { $0.isDoubleSided = b } }
        if let v = f["backgroundColor"] { let c = try v.color(); set { $0.backgroundColor = c } }
        if let v = f["opacity"] { let o = try v.number(in: 0...1); set { $0.opacity = o } }
        if let v = f["allowsGroupOpacity"] { let b = try v.bool(); set { $0.allowsGroupOpacity = b } }
        if let v = f["hidden"] { let b = try v.bool(); set { $0.isHidden = b } }
        if let v = f["borderWidth"] { let w = try v.nonNegative(atMost: SceneLimits.maximumSize, "sizes"); set { $0.borderWidth = w } }
        if let v = f["borderColor"] { let c = try v.color(); set { $0.borderColor = c } }
        if let v = f["cornerRadius"] { let r = try v.nonNegative(atMost: SceneLimits.maximumSize, "sizes"); set { $0.cornerRadius = r } }
        if let v = f["maskedCorners"] {
            var mask: CornerMask = []
            for name in try v.array() { mask.insert(try name.oneOf(CornerName.self).mask) }
            set { $0.maskedCorners = mask }
        }
        if let v = f["cornerCurve"] { let c = try v.oneOf(CornerCurve.self); set { $0.cornerCurve = c } }
        if let v = f["masksToBounds"] { let b = try v.bool(); set { $0.masksToBounds = b } }
        if let v = f["opaque"] { let b = try v.bool(); set { $0.isOpaque = b } }
        if let v = f["needsDisplayOnBoundsChange"] { let b = try v.bool(); set { $0.needsDisplayOnBoundsChange = b } }
        if let v = f["contents"] { let c = try contents(v); set { $0.contents = c } }
        if let v = f["contentsRect"] {
            let r = try v.numbers(count: 4...4, magnitude: SceneLimits.maximumUnitValue, "unit rectangles")
            guard r[2] >= 0, r[3] >= 0 else { throw v.error("negative size \(r[2])×\(r[3]): width and height must not be negative") }
            set { $0.contentsRect = Rect(x: r[0], y: r[1], width: r[2], height: r[3]) }
        }
        if let v = f["contentsCenter"] {
            let r = try v.numbers(count: 4...4, magnitude: SceneLimits.maximumUnitValue, "unit rectangles")
            guard r[2] >= 0, r[3] >= 0, r[0] >= 0, r[1] >= 0, r[0] + r[2] <= 1 + 1e-9, r[1] + r[3] <= 1 + 1e-9 else {
                throw v.error("contentsCenter is a unit rectangle [x, y, w, h] inside [0, 0, 1, 1] (got \(r))")
            }
            set { $0.contentsCenter = Rect(x: r[0], y: r[1], width: r[2], height: r[3]) }
        }
        if let v = f["contentsGravity"] { let g = try v.oneOf(ContentsGravity.self); set { $0.contentsGravity = g } }
        // The view-level pair (UIView.contentMode/contentStretch), applied as a view applies it.
        if let v = f["contentStretch"], f["contentMode"] == nil {
            throw v.error("'contentStretch' goes with 'contentMode' (it applies to scaling modes only)")
        }
        if let v = f["contentMode"] {
            for key in ["contentsGravity", "contentsCenter", "needsDisplayOnBoundsChange"] where f[key] != nil {
                throw v.error("'contentMode' sets '\(key)' itself: give one or the other")
            }
            var stretch = Rect(x: 0, y: 0, width: 1, height: 1)
            if let sv = f["contentStretch"] {
                let r = try sv.numbers(count: 4...4, magnitude: SceneLimits.maximumUnitValue, "unit rectangles")
                guard r.allSatisfy({ $0 >= 0 }), r[0] + r[2] <= 1 + 1e-9, r[1] + r[3] <= 1 + 1e-9 else {
                    throw sv.error("contentStretch is a unit rectangle [x, y, w, h] inside [0, 0, 1, 1] (got \(r))")
                }
                stretch = Rect(x: r[0], y: r[1], width: r[2], height: r[3])
            }
            let mode = try v.oneOf(ContentMode.self)
            set { $0.apply(contentMode: mode, contentStretch: stretch) }
        }
        if let v = f["contentsScale"] {
            let s = try v.scale(atMost: SceneLimits.maximumScale, "contentsScale")
            set { $0.contentsScale = s }
        }
        if let v = f["minificationFilter"] { let m = try v.oneOf(TextureFilter.self); set { $0.minificationFilter = m } }
        if let v = f["magnificationFilter"] { let m = try v.oneOf(TextureFilter.self); set { $0.magnificationFilter = m } }
        // Layer timing, then the animations (docs/scene-format.md#animations).
        let timing = try layerTiming(f)
        if let b = timing.beginTime { set { $0.beginTime = b } }
        if let s = timing.speed { set { $0.speed = s } }
        if let o = timing.timeOffset { set { $0.timeOffset = o } }
        if let v = f["animations"] {
            let list = try animations(v, ownKeys: type == .shapeLayer ? ShapeLayer.animatableKeys : [], budget: &budget).map { entry in
                // Begin times are the layer's local times, 0 being the scene's start (the
                // root's time is shifted to it: Scene.parse), never "when committed":
                // a layer's own timing applies to its animations whenever the scene is
                // committed (a paused layer shows its animations at its timeOffset). A
                // beginTime of exactly 0 would mean "at the commit", so 0 is the time just
                // before it (which evaluates as 0).
                var a = entry.animation
                if a.beginTime == 0 { a.beginTime = -Double.leastNonzeroMagnitude }
                return (entry.key, a)
            }
            if !list.isEmpty {
                spec.animates = true
                set { l in for (key, a) in list { l.add(a, forKey: key) } }
            }
        }
        let children = try f["sublayers"]?.array() ?? []
        return (spec, children)
    }

    /// A list of operations applied in order (the first applies first to the layer), or
    /// 16 numbers m11…m44. Every value and the combined matrix keep `SceneLimits`.
    func transform(_ node: JSONNode) throws -> Transform3D {
        let items = try node.array()
        let entry = SceneLimits.maximumTransformEntry
        if items.count == 16, items.allSatisfy(\.isNumber) {
            return Transform3D(try node.numbers(count: 16...16, magnitude: entry, "transform entries"))
        }
        var t = Transform3D.identity
        for item in items {
            let op = try item.object(allowed: ["translate", "scale", "rotate", "rotateX", "rotateY", "axis", "perspective", "matrix"])
            let kinds = op.keys.filter { $0 != "axis" }
            guard kinds.count == 1, let kind = kinds.first, let v = op[kind] else {
                throw item.error("each transform step has exactly one of translate, scale, rotate, rotateX, rotateY, perspective, matrix")
            }
            if let axis = op["axis"], kind != "rotate" { throw axis.error("'axis' goes with 'rotate' only") }
            func angle() throws -> Double { try v.number(magnitude: SceneLimits.maximumAngle, "angles (degrees)") * .pi / 180 }
            let step: Transform3D
            switch kind {
            case "translate":
                let n = try v.numbers(count: 2...3)
                step = Transform3D(translationX: n[0], y: n[1], z: n.count == 3 ? n[2] : 0)
            case "scale":
                if v.isArray {
                    let n = try v.numbers(count: 2...3, magnitude: entry, "scale factors")
                    step = Transform3D(scaleX: n[0], y: n[1], z: n.count == 3 ? n[2] : 1)
                } else {
                    let s = try v.number(magnitude: entry, "scale factors")
                    step = Transform3D(scaleX: s, y: s)
                }
            case "rotate":
                var axis = [0.0, 0, 1]
                if let a = op["axis"] {
                    axis = try a.numbers(count: 3...3, magnitude: entry, "axis components")
                    guard axis.contains(where: { abs($0) >= 1e-6 }) else { throw a.error("the rotation axis must not be zero (got \(axis))") }
                }
                step = Transform3D(rotationAngle: try angle(), x: axis[0], y: axis[1], z: axis[2])
            case "rotateX":
                step = Transform3D(rotationAngle: try angle(), x: 1, y: 0, z: 0)
            case "rotateY":
                step = Transform3D(rotationAngle: try angle(), x: 0, y: 1, z: 0)
            case "perspective":
                let d = try v.positive(atMost: SceneLimits.maximumSize, "perspective distances")
                guard d >= SceneLimits.minimumPerspective else {
                    throw v.error("a perspective distance of \(d) pt is below the limit (\(SceneLimits.minimumPerspective) pt)")
                }
                var p = Transform3D.identity
                p.m34 = -1 / d
                step = p
            default: // matrix
                step = Transform3D(try v.numbers(count: 16...16, magnitude: entry, "transform entries"))
            }
            t = t.concatenating(step)
            guard t.values.allSatisfy({ $0.isFinite && abs($0) <= entry * entry }) else {
                throw item.error("the combined transform has entries beyond the limit (±\(SceneLimits.format(entry * entry))): use fewer or smaller steps")
            }
        }
        return t
    }

    /// "file.png", {"image": "file.png"}, or {"pixels": [["#rrggbb", …], …]} (rows top-first).
    func contents(_ node: JSONNode) throws -> LayerContents {
        if let path = node.stringValue { return .image(try image(path, node: node)) }
        let f = try node.object(allowed: ["image", "pixels"])
        guard f.count == 1 else { throw node.error("contents take exactly one of 'image' or 'pixels'") }
        if let v = f["image"] { return .image(try image(try v.string(), node: v)) }
        let pixelsNode = f["pixels"]!
        let rows = try pixelsNode.array()
        guard let first = rows.first else { throw pixelsNode.error("an image needs at least one row") }
        let width = try first.array().count
        guard width > 0 else { throw first.error("an image needs at least one pixel a row") }
        let side = SceneLimits.maximumPixelsSide
        guard width <= side, rows.count <= side else {
            throw pixelsNode.error("a \(width)×\(rows.count) pixel image is beyond the limit (\(side) pixels a side): use a PNG file")
        }
        var image = RGBAImage(width: width, height: rows.count)
        for (y, row) in rows.enumerated() {
            let cells = try row.array()
            guard cells.count == width else { throw row.error("row has \(cells.count) pixels; the first row has \(width)") }
            for (x, cell) in cells.enumerated() { image[x, y] = try cell.color().premultipliedPixel }
        }
        return .image(ContentImage(image))
    }

    func imageFile(_ path: String, node: JSONNode) throws -> ContentImage { try image(path, node: node) }

    private func image(_ path: String, node: JSONNode) throws -> ContentImage {
        guard !path.isEmpty, !path.utf8.contains(0) else { throw node.error("an image path must be a non-empty file name") }
        let full = path.hasPrefix("/") ? path : URL(fileURLWithPath: baseDirectory).appendingPathComponent(path).path
        if let cached = cache.images[full] { return cached }
        do {
            let image = try ContentImage(contentsOfPNG: full)
            cache.images[full] = image
            return image
        } catch GraphicsError.imageNotFound {
            throw node.error("missing image '\(path)' (looked for \(full))")
        } catch {
            throw node.error("cannot use image '\(path)': \(error)")
        }
    }
}

extension Scene {
    /// Renders the scene offscreen: `size`/`scale` override the file's. One commit runs:
    /// layout, display (drawn layers draw at the target's scale), composite. Returns the pixels.
    /// The frame is the one at `time` seconds after the scene's start (`startTime`): the
    /// media clock is fixed at `startTime + time` while rendering (and put back after), so
    /// the animations show what they show then. (Every animation of a scene file has a
    /// begin time of its own — none waits for a commit — so committing once at that time
    /// gives the frame that committing at the start and rendering at `time` would.)
    /// Before anything is drawn, the target and every drawn layer's backing store are
    /// checked against the device's limits and `maximumBackingStorePixels`; errors name
    /// the scene file, and the layer (its JSON path and name) when one is at fault.
    public func render(device: GPUDevice, size: Size? = nil, scale: Double? = nil, time: Double = 0,
                       maximumBackingStorePixels: Int = SceneLimits.maximumBackingStorePixels) throws -> (image: RGBAImage, stats: FrameStatistics) {
        guard time.isFinite, (startTime + time).isFinite else {
            throw SceneError(file: file, path: "$", problem: "cannot render at time \(time): the time must be a finite number of seconds")
        }
        let scale = scale ?? self.scale
        let size = size ?? self.size
        let maximumTarget = device.capabilities.maxRenderTargetSize
        guard PixelScale.isValid(scale), scale <= SceneLimits.maximumScale else {
            throw SceneError(file: file, path: "$.scale", problem: "cannot render at scale \(scale): the scale must be at least 1/4096 and at most \(SceneLimits.format(SceneLimits.maximumScale))")
        }
        guard size.width.isFinite, size.height.isFinite, size.width > 0, size.height > 0,
              size.width * scale <= Double(maximumTarget), size.height * scale <= Double(maximumTarget) else {
            throw SceneError(file: file, path: "$.size",
                             problem: "cannot render \(size.width)×\(size.height) pt at scale \(scale) (\(size.width * scale)×\(size.height * scale) px): the GPU's render targets are at most \(maximumTarget) px a side; render smaller (--size) or at a lower scale (--scale)")
        }
        try checkBackingStores(scale: scale, maximumSide: min(device.capabilities.maxTextureSize, Bitmap.maximumSide),
                               maximumPixels: maximumBackingStorePixels)
        setContentsScale(scale)
        let savedClock: Double? = MediaClock.isFixed ? MediaClock.now() : nil
        MediaClock.set(startTime + time)
        defer { MediaClock.set(savedClock) }
        do {
            let target = try OffscreenTarget(device: device, size: size, scale: scale)
            defer { target.release() }
            let host = LayerTreeHost(rootLayer: root, target: target, background: background)
            defer { host.detach() }
            try Transaction.flush()
            return (try target.readPixels(), host.lastFrame)
        } catch let e as SceneError {
            throw e
        } catch {
            throw SceneError(file: file, path: "$", problem: "rendering failed: \(error)")
        }
    }

    /// The error for `layer` (its JSON path and name when it came from the file).
    private func error(_ problem: String, at layer: Layer) -> SceneError {
        if let o = origins[ObjectIdentifier(layer)] {
            return SceneError(file: file, path: o.node.path, problem: problem, layer: o.name)
        }
        return SceneError(file: file, path: "$", problem: problem, layer: layer.name)
    }

    /// The tree is at most `maximumRenderDepth` deep; every drawn layer's backing store
    /// fits the GPU, and all of them `maximumPixels`.
    private func checkBackingStores(scale: Double, maximumSide: Int, maximumPixels: Int) throws {
        var total = 0.0
        var stack: [(layer: Layer, depth: Int)] = [(root, 0)]
        while let (l, depth) = stack.popLast() {
            guard depth <= SceneLimits.maximumRenderDepth else {
                throw error("the layer tree is more than \(SceneLimits.maximumRenderDepth) levels deep here, the most the renderer takes (SceneLimits.maximumRenderDepth): flatten the tree", at: l)
            }
            stack += l.sublayers.map { ($0, depth + 1) }
            guard let d = l as? DrawingLayer else { continue }
            let s = d.followsTargetScale ? scale : d.contentsScale
            let w = (l.bounds.width * s).rounded(.up), h = (l.bounds.height * s).rounded(.up)
            guard w.isFinite, h.isFinite else {
                throw error("the layer's backing store size is not finite (bounds \(l.bounds.size.width)×\(l.bounds.size.height) pt at scale \(s))", at: l)
            }
            guard w <= Double(maximumSide), h <= Double(maximumSide) else {
                throw error("the layer's backing store would be \(SceneLimits.format(w))×\(SceneLimits.format(h)) px (bounds \(l.bounds.size.width)×\(l.bounds.size.height) pt at scale \(s)); the limit is \(maximumSide) px a side: make the layer smaller or lower its contentsScale", at: l)
            }
            total += w * h
            guard total <= Double(maximumPixels) else {
                throw error("the drawn layers need more than \(maximumPixels) backing-store pixels together (the limit is reached at this layer): make them smaller or render at a lower scale", at: l)
            }
        }
    }

    /// Drawn layers draw at the target's scale (as UIKit gives views the screen's scale).
    /// They ask to draw here, after the checks, not when the scene is read: a scene that
    /// fails its checks leaves nothing queued for the next commit.
    private func setContentsScale(_ scale: Double) {
        var stack: [Layer] = [root]
        while let layer = stack.popLast() {
            if let d = layer as? DrawingLayer {
                if d.followsTargetScale, d.contentsScale != scale {
                    layer.contentsScale = scale
                    layer.setNeedsDisplay()
                } else if d.needsFirstDisplay {
                    layer.setNeedsDisplay()
                }
                d.needsFirstDisplay = false
            } else if layer is ShapeLayer || layer is TextLayer,
                      (try? origins[ObjectIdentifier(layer)]?.node.object(allowed: LayerBuilder.layerKeys))?["contentsScale"] == nil {
                layer.contentsScale = scale   // (rasterised at the target's scale)
                if layer is TextLayer { layer.setNeedsDisplay() }
            }
            stack += layer.sublayers
            if let m = layer.mask { stack.append(m) }
        }
    }
}

import FoundationEssentials
import Glibc
import LaminaCore
import LaminaGeometry
import LaminaGraphics

/// A layer's `animations` (docs/scene-format.md#animations): read and checked like every
/// other value before any layer is made; `instantiate` adds them with `Layer.add(_:forKey:)`.
extension LayerBuilder {
    static let animationKeys = [
        "key", "kind", "keyPath", "from", "to", "by", "values", "animations",
        "beginTime", "duration", "speed", "timeOffset", "repeatCount", "repeatDuration", "autoreverses", "fillMode",
        "removedOnCompletion", "timingFunction", "keyTimes", "timingFunctions", "calculationMode",
        "tensionValues", "continuityValues", "biasValues", "mass", "stiffness", "damping", "initialVelocity",
        "additive", "cumulative",
    ]

    enum AnimationKind: String, CaseIterable { case basic, keyframe, spring, group }

    /// The keys each kind takes besides the timing keys every animation has.
    static let keysByKind: [AnimationKind: Set<String>] = [
        .basic: ["keyPath", "from", "to", "by", "timingFunction", "additive", "cumulative"],
        .spring: ["keyPath", "from", "to", "by", "mass", "stiffness", "damping", "initialVelocity", "additive"],
        .keyframe: ["keyPath", "values", "keyTimes", "timingFunctions", "calculationMode", "tensionValues",
                    "continuityValues", "biasValues", "timingFunction", "additive", "cumulative"],
        .group: ["animations", "timingFunction"],
    ]
    static let timingKeys: Set<String> = [
        "kind", "beginTime", "duration", "speed", "timeOffset", "repeatCount", "repeatDuration", "autoreverses", "fillMode",
    ]

    /// What the scene's animations use so far (the limits are per scene).
    struct AnimationBudget {
        var animations = 0
        var keyframes = 0
    }

    /// How a property's values are written in the file.
    enum ValueKind {
        case number
        /// A rotation component (`transform.rotation.z`, …): degrees, as everywhere in a scene file.
        case angle
        case point, unitPoint, size, rect, unitRect, color, transform
        /// Contents: an image file, or {"pixels": …} (cross-faded, or a flip-book).
        case contents
        /// A shader layer's uniform (`uniforms.NAME`).
        case uniform
        /// A shape layer's path (as its `path` key: a path string or a shape object).
        case path
        /// A gradient layer's colours (an array of colours) and locations (an array of numbers).
        case colors, numbers

        init(keyPath: String) {
            if keyPath.hasPrefix("uniforms.") || keyPath.hasPrefix("shaderEffect.uniforms.") { self = .uniform; return }
            switch keyPath {
            case "contents": self = .contents
            case "path": self = .path
            case "colors": self = .colors
            case "locations": self = .numbers
            case "position", "bounds.origin": self = .point
            case "anchorPoint", "startPoint", "endPoint": self = .unitPoint
            case "bounds.size": self = .size
            case "bounds": self = .rect
            case "contentsRect", "contentsCenter": self = .unitRect
            case "backgroundColor", "borderColor", "fillColor", "strokeColor": self = .color
            case "transform", "sublayerTransform": self = .transform
            default:
                self = keyPath.hasPrefix("transform.rotation") || keyPath.hasPrefix("sublayerTransform.rotation") ? .angle : .number
            }
        }

        var name: String {
            switch self {
            case .number: return "a number"
            case .angle: return "an angle in degrees"
            case .point, .unitPoint: return "a point [x, y]"
            case .size: return "a size [w, h]"
            case .rect, .unitRect: return "a rectangle [x, y, w, h]"
            case .color: return "a colour"
            case .transform: return "a transform"
            case .contents: return "contents (an image file name, {\"image\": …} or {\"pixels\": …})"
            case .uniform: return "a number, 2 to 4 numbers, a 3×3 or 4×4 matrix (9 or 16 numbers) or a colour"
            case .path: return "a path (\"M x y L x y … Z\", or a shape object)"
            case .colors: return "an array of 1 to \(LayerBuilder.maximumGradientStops) colours"
            case .numbers: return "an array of numbers in 0…1, not decreasing"
            }
        }
    }

    /// A layer's `animations`: each with its key (nil: none). Keys are unique on a layer.
    /// `ownKeys`: the keys of the layer's kind that animate besides every layer's (a shape
    /// layer's `strokeEnd`, …).
    func animations(_ node: JSONNode, ownKeys: Set<String> = [], budget: inout AnimationBudget) throws -> [(key: String?, animation: any Animation)] {
        var out: [(key: String?, animation: any Animation)] = []
        var keys = Set<String>()
        for item in try node.array() {
            let (key, a) = try animation(item, depth: 1, ownKeys: ownKeys, budget: &budget)
            if let key {
                guard keys.insert(key).inserted else {
                    throw item.error("another animation of this layer has the key '\(key)' (an animation added under a key replaces the one there: give each its own key)")
                }
            }
            out.append((key, a))
        }
        return out
    }

    /// One animation (`depth` 1: in a layer's list; deeper: a group's member).
    private func animation(_ node: JSONNode, depth: Int, ownKeys: Set<String>, budget: inout AnimationBudget) throws -> (String?, any Animation) {
        let f = try node.object(allowed: LayerBuilder.animationKeys)
        budget.animations += 1
        guard budget.animations <= SceneLimits.maximumAnimations else {
            throw node.error("more than \(SceneLimits.maximumAnimations) animations in the scene (the limit, group members included)")
        }
        let kind = try f["kind"]?.oneOf(AnimationKind.self) ?? .basic
        let allowed = LayerBuilder.timingKeys.union(LayerBuilder.keysByKind[kind]!).union(depth == 1 ? ["key", "removedOnCompletion"] : [])
        for (k, v) in f.sorted(by: { $0.value.index < $1.value.index }) where !allowed.contains(k) {
            if depth > 1, k == "key" || k == "removedOnCompletion" {
                throw v.error("'\(k)' belongs to an animation added to a layer, not to a group's member (members are never removed: their fillMode alone decides what they show outside their time)")
            }
            if kind == .spring, k == "timingFunction" || k == "cumulative" {
                throw v.error("a spring takes no '\(k)' (its pace is the spring's, and it does not accumulate)")
            }
            let kinds = AnimationKind.allCases.filter { LayerBuilder.keysByKind[$0]!.contains(k) }.map { "'\($0.rawValue)'" }
            throw v.error("'\(k)' does not go with kind '\(kind.rawValue)'\(kinds.isEmpty ? "" : " (it goes with kind \(kinds.joined(separator: " or ")))")")
        }
        if let d = f["duration"], d.stringValue == "settling", kind != .spring {
            throw d.error("\"settling\" is a spring's duration (until it comes to rest); give this \(kind.rawValue) animation a number of seconds")
        }
        let key = try f["key"]?.string()
        var common = AnimationCommon()
        common.timing = try timing(f)
        // A member is never removed from its group (Lamina evaluates a member's
        // removedOnCompletion like a layer's animation's: false lets its fillMode show).
        common.isRemovedOnCompletion = depth > 1 ? false : try f["removedOnCompletion"]?.bool() ?? true
        common.timingFunction = try f["timingFunction"].map(timingFunction)

        if kind == .group {
            guard let membersNode = f["animations"] else { throw node.error("a group needs 'animations' (its members)") }
            let members = try membersNode.array()
            guard depth < SceneLimits.maximumGroupDepth else {
                throw membersNode.error("groups nested more than \(SceneLimits.maximumGroupDepth) deep (the limit)")
            }
            var group = AnimationGroup()
            group.common = common
            group.animations = try members.map { try animation($0, depth: depth + 1, ownKeys: ownKeys, budget: &budget).1 }
            return (key, group)
        }

        guard let keyPathNode = f["keyPath"] else { throw node.error("missing 'keyPath' (the property animated, e.g. \"position\")") }
        let keyPath = try keyPathNode.string()
        guard AnimatableProperty(keyPath: keyPath, customKeys: ownKeys.contains) != nil else {
            let shown = keyPath.count > 60 ? String(keyPath.prefix(60)) + "…" : keyPath
            throw keyPathNode.error("'\(shown)' is not an animatable key path; animatable: position(.x/.y), zPosition, bounds(.origin/.size/.size.width/.size.height), anchorPoint, anchorPointZ, transform, sublayerTransform (and their .rotation(.x/.y/.z), .scale(.x/.y/.z), .translation.x/y/z), opacity, backgroundColor, borderColor, borderWidth, cornerRadius, contentsRect, contentsCenter, contents, uniforms.NAME (a shader layer's uniform), shaderEffect.uniforms.NAME; a shape layer's path, fillColor, strokeColor, lineWidth, lineDashPhase, strokeStart, strokeEnd; a gradient layer's colors, locations, startPoint, endPoint")
        }
        let valueKind = ValueKind(keyPath: keyPath)
        let additive = try f["additive"]?.bool() ?? false
        let cumulative = try f["cumulative"]?.bool() ?? false
        if cumulative, valueKind == .transform {
            let t = common.timing
            let iteration = t.effectiveDuration * (t.autoreverses ? 2 : 1)
            let limit = SceneLimits.maximumCumulativeTransformRepeats
            guard t.repeatCount <= limit, t.repeatDuration <= limit * iteration else {
                throw (f["repeatCount"] ?? f["repeatDuration"] ?? node).error("a cumulative animation of a whole transform repeats at most \(SceneLimits.format(limit)) times (each repetition costs a matrix product every frame): animate a component such as \(keyPath).rotation.z instead")
            }
        }

        if kind != .keyframe {
            let given = ["from", "to", "by"].filter { f[$0] != nil }
            guard !given.isEmpty else { throw node.error("a \(kind.rawValue) animation needs 'from', 'to' or 'by'") }
            guard given.count <= 2 else { throw f["by"]!.error("give at most two of 'from', 'to' and 'by'") }
            let from = try f["from"].map { try value($0, valueKind, of: keyPath, difference: additive) }
            let to = try f["to"].map { try value($0, valueKind, of: keyPath, difference: additive) }
            let by = try f["by"].map { try value($0, valueKind, of: keyPath, difference: true) }
            if kind == .basic {
                var a = BasicAnimation(keyPath: keyPath)
                a.common = common
                a.fromValue = from; a.toValue = to; a.byValue = by
                a.isAdditive = additive; a.isCumulative = cumulative
                return (key, a)
            }
            var s = SpringAnimation(keyPath: keyPath)
            s.common = common
            s.fromValue = from; s.toValue = to; s.byValue = by
            s.isAdditive = additive
            let p = SceneLimits.maximumSpringParameter, minimum = SceneLimits.minimumSpringParameter
            func parameter(_ name: String, minimum: Double?) throws -> Double? {
                guard let v = f[name] else { return nil }
                let x = try minimum == nil ? v.number(magnitude: p, "spring parameters") : v.positive(atMost: p, "spring parameters")
                if let minimum, x < minimum {
                    throw v.error("\(x) is below the limit for spring \(name) (\(minimum))")
                }
                if name == "damping", x < 0 { throw v.error("must not be negative (got \(x))") }
                return x
            }
            if let m = try parameter("mass", minimum: minimum) { s.mass = m }
            if let k = try parameter("stiffness", minimum: minimum) { s.stiffness = k }
            if let c = try parameter("damping", minimum: nil) { s.damping = c }
            if let v = try parameter("initialVelocity", minimum: nil) { s.initialVelocity = v }
            // "settling": the spring runs to rest (`settlingDuration`); without a duration it
            // takes the default 0.25 s and is cut there, as in Core Animation.
            if f["duration"]?.stringValue == "settling" { s.duration = min(s.settlingDuration, SceneLimits.maximumTime) }
            return (key, s)
        }
        // A keyframe animation.
        guard let valuesNode = f["values"] else { throw node.error("a keyframe animation needs 'values'") }
        let items = try valuesNode.array()
        guard !items.isEmpty else { throw valuesNode.error("a keyframe animation needs at least one value") }
        guard items.count <= SceneLimits.maximumKeyframes else {
            throw valuesNode.error("\(items.count) keyframes are beyond the limit (\(SceneLimits.maximumKeyframes) an animation)")
        }
        budget.keyframes += items.count
        guard budget.keyframes <= SceneLimits.maximumSceneKeyframes else {
            throw valuesNode.error("more than \(SceneLimits.maximumSceneKeyframes) keyframe values in the scene (the limit)")
        }
        var a = KeyframeAnimation(keyPath: keyPath)
        a.common = common
        a.isAdditive = additive; a.isCumulative = cumulative
        a.values = try items.map { try value($0, valueKind, of: keyPath, difference: additive) }
        let n = items.count
        let mode = try f["calculationMode"]?.oneOf(CalculationMode.self) ?? .linear
        a.calculationMode = mode
        if let v = f["keyTimes"] {
            guard mode != .paced && mode != .cubicPaced else {
                throw v.error("'keyTimes' are not used by calculationMode '\(mode.rawValue)' (it times the values by their distances)")
            }
            let counts = mode == .discrete ? [n, n + 1] : [n]
            let times = try v.array()
            guard counts.contains(times.count) else {
                throw v.error("expected \(counts.map(String.init).joined(separator: " or ")) key times (one per value\(mode == .discrete ? ", or one more for discrete" : "")), found \(times.count)")
            }
            var k: [Double] = []
            for (i, t) in times.enumerated() {
                let x = try t.number(in: 0...1)
                if let last = k.last, x < last { throw t.error("key times must not decrease (\(x) after \(last))") }
                if i == 0, x != 0 { throw t.error("the first key time must be 0 (got \(x))") }
                if i == times.count - 1, x != 1 { throw t.error("the last key time must be 1 (got \(x))") }
                k.append(x)
            }
            a.keyTimes = k
        }
        if let v = f["timingFunctions"] {
            guard mode == .linear || mode == .cubic else {
                throw v.error("'timingFunctions' pace the segments of linear and cubic keyframes only (not '\(mode.rawValue)')")
            }
            let fs = try v.array()
            guard fs.count == n - 1 else {
                throw v.error("expected \(n - 1) timing functions (one per segment between the \(n) values), found \(fs.count)")
            }
            a.timingFunctions = try fs.map(timingFunction)
        }
        for (name, path) in [("tensionValues", \KeyframeAnimation.tensionValues), ("continuityValues", \.continuityValues),
                             ("biasValues", \.biasValues)] {
            guard let v = f[name] else { continue }
            guard mode == .cubic || mode == .cubicPaced else {
                throw v.error("'\(name)' shape the cubic calculation modes only (cubic, cubicPaced; not '\(mode.rawValue)')")
            }
            a[keyPath: path] = try v.numbers(count: n...n, magnitude: SceneLimits.maximumUnitValue, "spline parameters")
        }
        return (key, a)
    }

    /// The media timing keys of an animation.
    private func timing(_ f: [String: JSONNode]) throws -> MediaTiming {
        var t = MediaTiming()
        let limit = SceneLimits.maximumTime
        if let v = f["beginTime"] { t.beginTime = try v.number(magnitude: limit, "times (seconds)") }
        if let v = f["duration"], v.stringValue != "settling" { t.duration = try v.nonNegative(atMost: limit, "durations (seconds)") }
        if let v = f["speed"] { t.speed = try v.number(magnitude: SceneLimits.maximumSpeed, "speeds") }
        if let v = f["timeOffset"] { t.timeOffset = try v.number(magnitude: limit, "times (seconds)") }
        if let v = f["repeatCount"] {
            if let s = v.stringValue {
                guard s == "infinity" else { throw v.error("expected a number ≥ 0 or \"infinity\", found '\(s.prefix(40))'") }
                t.repeatCount = .infinity
            } else {
                t.repeatCount = try v.nonNegative(atMost: limit, "repeat counts")
            }
        }
        if let v = f["repeatDuration"] { t.repeatDuration = try v.nonNegative(atMost: limit, "durations (seconds)") }
        if let rc = f["repeatCount"], f["repeatDuration"] != nil {
            throw rc.error("give 'repeatCount' or 'repeatDuration', not both")
        }
        if let v = f["autoreverses"] { t.autoreverses = try v.bool() }
        if let v = f["fillMode"] { t.fillMode = try v.oneOf(FillMode.self) }
        return t
    }

    static let namedTimingFunctions: [String: TimingFunction] = [
        "linear": .linear, "easeIn": .easeIn, "easeOut": .easeOut, "easeInEaseOut": .easeInEaseOut, "default": .default,
    ]

    /// A name, or the control points [c1x, c1y, c2x, c2y] (x in 0…1).
    func timingFunction(_ node: JSONNode) throws -> TimingFunction {
        if let s = node.stringValue {
            guard let tf = LayerBuilder.namedTimingFunctions[s] else {
                throw node.error("unknown timing function '\(s.prefix(40))'; expected one of: linear, easeIn, easeOut, easeInEaseOut, default, or [c1x, c1y, c2x, c2y]")
            }
            return tf
        }
        guard node.isArray else {
            throw node.error("expected a timing function (a name or [c1x, c1y, c2x, c2y]), found \(node.typeName)")
        }
        let c = try node.numbers(count: 4...4, magnitude: SceneLimits.maximumUnitValue, "control points")
        for i in [0, 2] where !(0...1).contains(c[i]) {
            throw node.error("a control point's x must be 0…1 (got \(c[i]), the \(i == 0 ? "first" : "second") point's)")
        }
        return TimingFunction(controlPoints: c[0], c[1], c[2], c[3])
    }

    /// One value of a property of `kind`, in the scene format's syntax for that kind. A
    /// `difference` (`by`, or an additive animation's values) may be negative where an
    /// absolute value may not (sizes).
    func value(_ node: JSONNode, _ kind: ValueKind, of keyPath: String, difference: Bool) throws -> AnimationValue {
        do {
            return try value(node, kind, difference: difference)
        } catch var e as SceneError {
            e.problem += " ('\(keyPath)' takes \(kind.name))"
            throw e
        }
    }

    private func value(_ node: JSONNode, _ kind: ValueKind, difference: Bool) throws -> AnimationValue {
        switch kind {
        case .number:
            return .number(try node.number(magnitude: SceneLimits.maximumCoordinate, "animated numbers"))
        case .angle:
            return .number(try node.number(magnitude: SceneLimits.maximumAngle, "angles (degrees)") * .pi / 180)
        case .point:
            return .point(try node.point())
        case .unitPoint:
            let a = try node.numbers(count: 2...2, magnitude: SceneLimits.maximumUnitValue, "anchor points")
            return .point(Point(x: a[0], y: a[1]))
        case .size:
            if difference {
                let a = try node.numbers(count: 2...2, magnitude: SceneLimits.maximumSize, "sizes")
                return .size(Size(width: a[0], height: a[1]))
            }
            return .size(try node.size())
        case .rect:
            if difference {
                let a = try node.numbers(count: 4...4, magnitude: SceneLimits.maximumSize, "coordinates and sizes")
                return .rect(Rect(x: a[0], y: a[1], width: a[2], height: a[3]))
            }
            return .rect(try node.rect())
        case .unitRect:
            let r = try node.numbers(count: 4...4, magnitude: SceneLimits.maximumUnitValue, "unit rectangles")
            if !difference, r[2] < 0 || r[3] < 0 {
                throw node.error("negative size \(r[2])×\(r[3]): width and height must not be negative")
            }
            return .rect(Rect(x: r[0], y: r[1], width: r[2], height: r[3]))
        case .color:
            return .color(try node.color())
        case .transform:
            return .transform(try transform(node))
        case .uniform:
            let u = try uniformValue(node)
            if case .float(let x) = u { return .number(x) }
            if !difference, case .vec4 = u, (try? node.string()) != nil, let c = try? node.color() { return .color(c) }
            return .shader(u)
        case .path:
            guard !difference else { throw node.error("paths cannot be added ('by' and additive animations take amounts)") }
            return .path(try shape(node))
        case .colors:
            let colors = try node.array().map { try $0.color() }
            guard (1...LayerBuilder.maximumGradientStops).contains(colors.count) else {
                throw node.error("a gradient has 1 to \(LayerBuilder.maximumGradientStops) colours (got \(colors.count))")
            }
            return .colors(colors)
        case .numbers:
            let l = try node.array().map { try $0.number(in: difference ? -1...1 : 0...1) }
            guard difference || zip(l, l.dropFirst()).allSatisfy({ $0 <= $1 }) else { throw node.error("locations increase") }
            return .numbers(l)
        case .contents:
            guard !difference else { throw node.error("contents cannot be added ('by' and additive animations take amounts)") }
            guard case .image(let image) = try contents(node) else { throw node.error("expected an image") }
            return .image(image)
        }
    }

    /// The layer timing keys (`CAMediaTiming` on a layer).
    func layerTiming(_ f: [String: JSONNode]) throws -> (beginTime: Double?, speed: Double?, timeOffset: Double?) {
        let limit = SceneLimits.maximumTime
        return (try f["beginTime"]?.number(magnitude: limit, "times (seconds)"),
                try f["speed"]?.number(magnitude: SceneLimits.maximumSpeed, "speeds"),
                try f["timeOffset"]?.number(magnitude: limit, "times (seconds)"))
    }
}

import FoundationEssentials
import Glibc
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaGraphics

/// Scene-file keys of layer effects and of the layer kinds that draw themselves
/// (docs/scene-format.md#effects).
extension LayerBuilder {
    static let effectKeys = [
        "shadowColor", "shadowOpacity", "shadowOffset", "shadowRadius", "shadowPath", "mask", "compositingFilter", "backgroundFilters",
        "shaderEffect",
    ]
    /// Keys that belong to one layer type.
    static let typeKeys: [LayerBuilder.LayerType: [String]] = [
        .shapeLayer: ["path", "fillColor", "fillRule", "strokeColor", "lineWidth", "lineCap", "lineJoin", "miterLimit",
                      "lineDashPattern", "lineDashPhase", "strokeStart", "strokeEnd"],
        .gradientLayer: ["gradientType", "colors", "locations", "startPoint", "endPoint", "dithers"],
        .replicatorLayer: ["instanceCount", "instanceTransform", "instanceColor", "instanceRedOffset", "instanceGreenOffset",
                           "instanceBlueOffset", "instanceAlphaOffset", "instanceDelay"],
        .shaderLayer: ["fragmentShader", "uniforms", "animating"],
        .textLayer: ["string", "font", "fontSize", "foregroundColor", "alignmentMode", "truncationMode", "wrapped"],
    ]

    /// Most instances of a replicator, and most gradient stops.
    static let maximumInstances = 10_000
    nonisolated static let maximumGradientStops = 16

    /// Reads the effect keys and the keys of the layer's type.
    func effects(_ f: [String: JSONNode], type: LayerBuilder.LayerType, set: (@escaping @MainActor (Layer) -> Void) -> Void) throws {
        for (owner, keys) in LayerBuilder.typeKeys where owner != type {
            for key in keys where f[key] != nil {
                throw f[key]!.error("'\(key)' belongs to a layer of type \(owner.rawValue) (this one is \(type.rawValue))")
            }
        }
        if f["mask"] != nil, type == .transformLayer { throw f["mask"]!.error("a transform layer draws nothing, so it has no mask") }
        if let v = f["shadowColor"] { let c = try v.color(); set { $0.shadowColor = c } }
        if let v = f["shadowOpacity"] { let o = try v.number(in: 0...1); set { $0.shadowOpacity = o } }
        if let v = f["shadowOffset"] {
            let o = try v.numbers(count: 2...2, magnitude: SceneLimits.maximumCoordinate, "coordinates")
            set { $0.shadowOffset = Size(width: o[0], height: o[1]) }
        }
        if let v = f["shadowRadius"] { let r = try v.nonNegative(atMost: 1000, "blur radii"); set { $0.shadowRadius = r } }
        if let v = f["shadowPath"] { let p = try shape(v); set { $0.shadowPath = p } }
        if let v = f["compositingFilter"] { let m = try named(v, BlendMode.allCases); set { $0.compositingFilter = m } }
        if let v = f["backgroundFilters"] {
            let filters: [LayerFilter] = try v.array().map { item in
                let o = try item.object(allowed: ["type", "radius"])
                guard let t = o["type"], try t.string() == "gaussianBlur" else {
                    throw item.error("a background filter is {\"type\": \"gaussianBlur\", \"radius\": r} (the one filter there is)")
                }
                let r = try o["radius"]?.nonNegative(atMost: 1000, "blur radii") ?? 10
                return .gaussianBlur(radius: r)
            }
            set { $0.backgroundFilters = filters }
        }
        if let v = f["shaderEffect"] {
            guard type != .transformLayer else { throw v.error("a transform layer draws nothing, so it has no shader effect") }
            let o = try v.object(allowed: ["fragmentShader", "uniforms", "maxSampleOffset", "animating"])
            guard let source = o["fragmentShader"] else { throw v.error("a shader effect needs 'fragmentShader'") }
            var effect = ShaderEffect(fragmentShader: try shaderSource(source))
            if let u = o["uniforms"] {
                for (name, node) in try u.members() {
                    guard !name.isEmpty, name.count <= 256 else { throw node.error("a uniform's name is 1 to 256 characters") }
                    effect.uniforms[name] = try uniformValue(node)
                }
            }
            if let m = o["maxSampleOffset"] {
                let a = try m.numbers(count: 2...2, magnitude: 4096, "sample offsets")
                guard a[0] >= 0, a[1] >= 0 else { throw m.error("maxSampleOffset is [dx, dy], each 0 or more") }
                effect.maxSampleOffset = Size(width: a[0], height: a[1])
            }
            if let a = o["animating"] { effect.isAnimating = try a.bool() }
            let e = effect
            set { $0.shaderEffect = e }
        }
        switch type {
        case .shapeLayer: try shapeLayer(f, set: set)
        case .gradientLayer: try gradientLayer(f, set: set)
        case .replicatorLayer: try replicatorLayer(f, set: set)
        case .shaderLayer: try shaderLayer(f, set: set)
        case .textLayer: try textLayer(f, set: set)
        case .layer, .transformLayer: break
        }
    }

    /// A value of a named enumeration (its description).
    private func named<T: CustomStringConvertible>(_ v: JSONNode, _ cases: [T]) throws -> T {
        let s = try v.string()
        guard let m = cases.first(where: { $0.description == s }) else {
            throw v.error("unknown value '\(s.prefix(40))'; expected one of: \(cases.map(\.description).joined(separator: ", "))")
        }
        return m
    }

    /// A shape: path text ("M x y L … Z"), or {"rect": r}, {"ellipse": r}, {"roundedRect": r, "radius": n}.
    func shape(_ v: JSONNode) throws -> Path {
        if v.stringValue != nil {
            var commands = 0
            return try path(v, commandsSoFar: &commands)
        }
        let o = try v.object(allowed: ["rect", "ellipse", "roundedRect", "radius"])
        if let r = o["rect"] { return Path(rect: try r.rect()) }
        if let r = o["ellipse"] { return Path(ellipseIn: try r.rect()) }
        if let r = o["roundedRect"] {
            let radius = try o["radius"]?.nonNegative(atMost: SceneLimits.maximumSize, "sizes") ?? 0
            return Path(roundedRect: try r.rect(), cornerRadius: radius)
        }
        throw v.error("a shape is path text (\"M x y L x y … Z\") or an object with rect, ellipse or roundedRect (+ radius)")
    }

    private func shapeLayer(_ f: [String: JSONNode], set: (@escaping @MainActor (Layer) -> Void) -> Void) throws {
        func shape(_ body: @escaping @MainActor (ShapeLayer) -> Void) { set { body($0 as! ShapeLayer) } }
        if let v = f["path"] { let p = try self.shape(v); shape { $0.path = p } }
        if let v = f["fillColor"] {
            if case .null = v.value { shape { $0.fillColor = nil } } else { let c = try v.color(); shape { $0.fillColor = c } }
        }
        if let v = f["fillRule"] { let r = try v.oneOf(FillRule.self); shape { $0.fillRule = r } }
        if let v = f["strokeColor"] { let c = try v.color(); shape { $0.strokeColor = c } }
        if let v = f["lineWidth"] { let w = try v.nonNegative(atMost: SceneLimits.maximumSize, "sizes"); shape { $0.lineWidth = w } }
        if let v = f["lineCap"] { let c = try v.oneOf(LineCap.self); shape { $0.lineCap = c } }
        if let v = f["lineJoin"] { let j = try v.oneOf(LineJoin.self); shape { $0.lineJoin = j } }
        if let v = f["miterLimit"] { let m = try v.nonNegative(atMost: 1000, "miter limits"); shape { $0.miterLimit = m } }
        if let v = f["lineDashPattern"] {
            let dashes = try v.array().map { try $0.nonNegative(atMost: SceneLimits.maximumSize, "sizes") }
            guard dashes.count <= SceneLimits.maximumDashCount else { throw v.error("\(dashes.count) dash lengths are beyond the limit (\(SceneLimits.maximumDashCount))") }
            guard dashes.isEmpty || dashes.reduce(0, +) >= SceneLimits.minimumDashPeriod else {
                throw v.error("a dash pattern's lengths add up to at least \(SceneLimits.minimumDashPeriod) points")
            }
            shape { $0.lineDashPattern = dashes }
        }
        if let v = f["lineDashPhase"] { let p = try v.number(magnitude: SceneLimits.maximumCoordinate, "coordinates"); shape { $0.lineDashPhase = p } }
        if let v = f["strokeStart"] { let s = try v.number(in: 0...1); shape { $0.strokeStart = s } }
        if let v = f["strokeEnd"] { let e = try v.number(in: 0...1); shape { $0.strokeEnd = e } }
    }

    private func shaderLayer(_ f: [String: JSONNode], set: (@escaping @MainActor (Layer) -> Void) -> Void) throws {
        func shader(_ body: @escaping @MainActor (ShaderLayer) -> Void) { set { body($0 as! ShaderLayer) } }
        if let v = f["fragmentShader"] {
            let source = try shaderSource(v)
            shader { $0.fragmentShader = source }
        }
        if let v = f["uniforms"] {
            for (name, node) in try v.members() {
                guard !name.isEmpty, name.count <= 256 else { throw node.error("a uniform's name is 1 to 256 characters") }
                let value = try uniformValue(node)
                shader { $0.setUniform(name, value) }
            }
        }
        if let v = f["animating"] { let b = try v.bool(); shader { $0.isAnimating = b } }
    }

    private func textLayer(_ f: [String: JSONNode], set: (@escaping @MainActor (Layer) -> Void) -> Void) throws {
        func text(_ body: @escaping @MainActor (TextLayer) -> Void) { set { body($0 as! TextLayer) } }
        if let v = f["string"] {
            let s = try v.string()
            guard s.unicodeScalars.count <= SceneLimits.maximumTextLength else {
                throw v.error("a text of \(s.unicodeScalars.count) characters is beyond the limit (\(SceneLimits.maximumTextLength))")
            }
            text { $0.string = s }
        }
        if let v = f["font"] { let font = try self.font(v); text { $0.font = font } }
        if let v = f["fontSize"] { let size = try v.positive(atMost: SceneLimits.maximumFontSize, "font sizes"); text { $0.fontSize = size } }
        if let v = f["foregroundColor"] { let c = try v.color(); text { $0.foregroundColor = c } }
        if let v = f["alignmentMode"] { let a = try v.oneOf(TextLayer.AlignmentMode.self); text { $0.alignmentMode = a } }
        if let v = f["truncationMode"] { let t = try v.oneOf(TextTruncation.self); text { $0.truncationMode = t } }
        if let v = f["wrapped"] { let w = try v.bool(); text { $0.isWrapped = w } }
    }

    /// A fragment shader: GLSL ES source text, or a .frag/.glsl/.fs file relative to the scene.
    func shaderSource(_ v: JSONNode) throws -> String {
        let text = try v.string()
        let source: String
        if !text.contains("\n"), [".frag", ".glsl", ".fs"].contains(where: { text.hasSuffix($0) }) {
            let path = text.hasPrefix("/") ? text : baseDirectory + "/" + text
            guard let data = FileManager.default.contents(atPath: path), let s = String(data: data, encoding: .utf8) else {
                throw v.error("shader file '\(text)' could not be read (looked at \(path)): give GLSL ES source text, or a .frag/.glsl/.fs file relative to the scene file")
            }
            source = s
        } else {
            source = text
        }
        guard !source.isEmpty, source.count <= 1 << 20 else { throw v.error("a fragment shader of 1 byte to 1 MiB") }
        return source
    }

    /// A uniform's value: a number (float), 2–4 numbers (vec2–vec4), 9 or 16 (mat3, mat4,
    /// column-major), or a colour (vec4, straight).
    func uniformValue(_ v: JSONNode) throws -> ShaderValue {
        if let n = try? v.number(magnitude: SceneLimits.maximumCoordinate, "uniform values") { return .float(n) }
        if (try? v.string()) != nil { return .color(try v.color()) }
        let a = try v.numbers(count: 2...16, magnitude: SceneLimits.maximumCoordinate, "uniform values")
        switch a.count {
        case 2: return .vec2(a[0], a[1])
        case 3: return .vec3(a[0], a[1], a[2])
        case 4: return .vec4(a[0], a[1], a[2], a[3])
        case 9: return .mat3(a)
        case 16: return .mat4(a)
        default: throw v.error("a uniform is a number, 2 to 4 numbers, 9 or 16 numbers (a matrix) or a colour (got \(a.count) numbers)")
        }
    }

    private func gradientLayer(_ f: [String: JSONNode], set: (@escaping @MainActor (Layer) -> Void) -> Void) throws {
        func gradient(_ body: @escaping @MainActor (GradientLayer) -> Void) { set { body($0 as! GradientLayer) } }
        if let v = f["gradientType"] {
            let t = try named(v, [("axial", GradientType.axial), ("radial", .radial), ("conic", .conic)].map { NamedType(name: $0.0, type: $0.1) })
            gradient { $0.type = t.type }
        }
        var count: Int?
        if let v = f["colors"] {
            let colors = try v.array().map { try $0.color() }
            guard (1...LayerBuilder.maximumGradientStops).contains(colors.count) else {
                throw v.error("a gradient has 1 to \(LayerBuilder.maximumGradientStops) colours (got \(colors.count))")
            }
            count = colors.count
            gradient { $0.colors = colors }
        }
        if let v = f["locations"] {
            let l = try v.array().map { try $0.number(in: 0...1) }
            guard l.count == count else { throw v.error("'locations' has one entry per colour (\(count ?? 0) colours, \(l.count) locations)") }
            guard zip(l, l.dropFirst()).allSatisfy({ $0 <= $1 }) else { throw v.error("locations increase") }
            gradient { $0.locations = l }
        }
        if let v = f["startPoint"] { let p = try v.numbers(count: 2...2, magnitude: SceneLimits.maximumUnitValue, "unit coordinates"); gradient { $0.startPoint = Point(x: p[0], y: p[1]) } }
        if let v = f["endPoint"] { let p = try v.numbers(count: 2...2, magnitude: SceneLimits.maximumUnitValue, "unit coordinates"); gradient { $0.endPoint = Point(x: p[0], y: p[1]) } }
        if let v = f["dithers"] { let d = try v.bool(); gradient { $0.dithers = d } }
    }

    private func replicatorLayer(_ f: [String: JSONNode], set: (@escaping @MainActor (Layer) -> Void) -> Void) throws {
        func replicator(_ body: @escaping @MainActor (ReplicatorLayer) -> Void) { set { body($0 as! ReplicatorLayer) } }
        if let v = f["instanceCount"] {
            let n = try v.number(in: 0...Double(LayerBuilder.maximumInstances))
            guard n == n.rounded() else { throw v.error("instanceCount is a whole number") }
            replicator { $0.instanceCount = Int(n) }
        }
        if let v = f["instanceTransform"] { let t = try transform(v); replicator { $0.instanceTransform = t } }
        if let v = f["instanceColor"] { let c = try v.color(); replicator { $0.instanceColor = c } }
        for (key, path) in [("instanceRedOffset", \ReplicatorLayer.instanceRedOffset), ("instanceGreenOffset", \.instanceGreenOffset),
                            ("instanceBlueOffset", \.instanceBlueOffset), ("instanceAlphaOffset", \.instanceAlphaOffset)] {
            if let v = f[key] { let o = try v.number(in: -1...1); replicator { $0[keyPath: path] = o } }
        }
        if let v = f["instanceDelay"] { let d = try v.number(magnitude: SceneLimits.maximumTime, "times"); replicator { $0.instanceDelay = d } }
    }
}

/// A gradient type by name (scene files).
private struct NamedType: CustomStringConvertible {
    let name: String
    let type: GradientType
    var description: String { name }
}

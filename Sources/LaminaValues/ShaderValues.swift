import LaminaGeometry

/// A value of a shader's uniform (`ShaderLayer.uniforms`, `ShaderProgram.set`): GLSL ES's
/// float, vec2–vec4, int and mat3/mat4 (matrices column-major, as GL takes them).
public enum ShaderValue: Sendable, Hashable, CustomStringConvertible {
    case float(Double)
    case vec2(Double, Double)
    case vec3(Double, Double, Double)
    case vec4(Double, Double, Double, Double)
    case int(Int)
    /// Nine values, column-major.
    case mat3([Double])
    /// Sixteen values, column-major.
    case mat4([Double])

    /// A colour as a vec4 (straight, not premultiplied: r, g, b, a).
    public static func color(_ c: Color) -> ShaderValue { .vec4(c.red, c.green, c.blue, c.alpha) }

    /// The values, in GL's order.
    public var components: [Double] {
        switch self {
        case .float(let x): return [x]
        case .vec2(let x, let y): return [x, y]
        case .vec3(let x, let y, let z): return [x, y, z]
        case .vec4(let x, let y, let z, let w): return [x, y, z, w]
        case .int(let i): return [Double(i)]
        case .mat3(let m), .mat4(let m): return m
        }
    }

    /// A value of the same type as `self` from `values` (nil: the wrong count, or an
    /// integer that is not finite).
    public func with(_ values: [Double]) -> ShaderValue? {
        guard values.count == components.count, values.allSatisfy(\.isFinite) else { return nil }
        switch self {
        case .float: return .float(values[0])
        case .vec2: return .vec2(values[0], values[1])
        case .vec3: return .vec3(values[0], values[1], values[2])
        case .vec4: return .vec4(values[0], values[1], values[2], values[3])
        case .int: return .int(Int(values[0].rounded()))
        case .mat3: return .mat3(values)
        case .mat4: return .mat4(values)
        }
    }

    /// The GLSL type name.
    public var typeName: String {
        switch self {
        case .float: return "float"
        case .vec2: return "vec2"
        case .vec3: return "vec3"
        case .vec4: return "vec4"
        case .int: return "int"
        case .mat3: return "mat3"
        case .mat4: return "mat4"
        }
    }

    /// Every value finite, matrices of the right size.
    public var isValid: Bool {
        switch self {
        case .mat3(let m): return m.count == 9 && m.allSatisfy(\.isFinite)
        case .mat4(let m): return m.count == 16 && m.allSatisfy(\.isFinite)
        default: return components.allSatisfy(\.isFinite)
        }
    }

    public var description: String { "\(typeName)(\(components.map { "\($0)" }.joined(separator: ", ")))" }
}

/// A shader layer's program and inputs as the renderers see them (`ShaderLayer`).
public struct ShaderStyle: Sendable, Hashable {
    /// GLSL ES 3.00 fragment shader source.
    public var fragmentSource: String
    /// The user's uniforms by name.
    public var uniforms: [String: ShaderValue]
    /// Drawn again at every frame, with `lamina_time` the frame's media time.
    public var isAnimating: Bool
    /// The layer's name or type, for messages.
    public var label: String

    public init(fragmentSource: String, uniforms: [String: ShaderValue] = [:], isAnimating: Bool = false, label: String = "ShaderLayer") {
        self.fragmentSource = fragmentSource; self.uniforms = uniforms; self.isAnimating = isAnimating; self.label = label
    }
}

/// A fragment shader applied to a layer's rendered image — the layer and its sublayers as
/// one, as composited (SwiftUI's `layerEffect`, Skia's runtime image filters). Set it as
/// `Layer.shaderEffect`; docs/gpu-content.md#shader-effects lists the inputs.
public struct ShaderEffect: Sendable, Hashable {
    /// GLSL ES 3.00 fragment shader source.
    public var fragmentShader: String
    /// The user's uniforms by name (animatable: `shaderEffect.uniforms.NAME`).
    public var uniforms: [String: ShaderValue]
    /// How far, in target points, the shader may sample from where it draws: the image is
    /// drawn that much larger on each side (the margin reads transparent), and damage grows
    /// by as much.
    public var maxSampleOffset: Size
    /// Drawn again at every frame, for a shader reading `lamina_time`.
    public var isAnimating: Bool
    /// The layer's name or type, for messages (set by the layer).
    public var label: String

    public init(fragmentShader: String, uniforms: [String: ShaderValue] = [:], maxSampleOffset: Size = .zero, isAnimating: Bool = false) {
        self.fragmentShader = fragmentShader; self.uniforms = uniforms; self.maxSampleOffset = maxSampleOffset
        self.isAnimating = isAnimating; self.label = "a layer"
    }

    /// The margin on each side, finite and at least 0.
    public var margin: Size {
        func m(_ v: Double) -> Double { v.isFinite ? min(max(v, 0), 4096) : 0 }
        return Size(width: m(maxSampleOffset.width), height: m(maxSampleOffset.height))
    }
}

/// An error that belongs to one layer (a shader that does not compile): a commit's
/// `CommitError.Failure` names that layer rather than the host's root.
public protocol LayerAttributedError: Error {
    /// The layer's name, or its type.
    var layerName: String { get }
    var layerID: LayerID { get }
}

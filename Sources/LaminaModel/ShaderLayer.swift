import LaminaGeometry
import LaminaValues

/// A layer whose content is a fragment shader run over its bounds (Shadertoy, Flutter's
/// `FragmentProgram`, a `layerEffect` without a layer under it). The shader is GLSL ES
/// 3.00 and writes one `out vec4`, premultiplied; Lamina multiplies it by the layer's
/// opacity. It may declare these inputs, filled by Lamina:
///
/// - `in vec2 lamina_uv` — the position in the layer's bounds, 0…1, origin top-left;
/// - `uniform vec2 lamina_size` — the bounds in pixels (bounds × `contentsScale`);
/// - `uniform float lamina_time` — the media time of the frame, in seconds.
///
/// Its own uniforms are set by name (`setUniform(_:_:)`) and animate through the key path
/// `uniforms.NAME` (implicitly, as any animatable property, or explicitly). It is drawn
/// directly on the target, clipped and masked like contents, again only when something of
/// it changed — or at every frame while `isAnimating` (for a shader that reads
/// `lamina_time`). A shader that does not compile fails the commit that shows it: the
/// error names the layer and carries the driver's log with the offending lines.
@MainActor
open class ShaderLayer: Layer {
    public required init() { super.init() }

    /// Makes a layer running `fragmentShader`.
    public convenience init(fragmentShader: String, uniforms: [String: ShaderValue] = [:]) {
        self.init()
        self.fragmentShader = fragmentShader
        for (name, value) in uniforms { setUniform(name, value) }
    }

    /// The GLSL ES 3.00 fragment shader source (empty: the layer draws nothing of its own).
    public var fragmentShader: String {
        get { properties.shader?.fragmentSource ?? "" }
        set {
            guard newValue != fragmentShader else { return }
            update { $0.fragmentSource = newValue }
        }
    }

    /// The uniforms set so far, by name.
    public var uniforms: [String: ShaderValue] { properties.shader?.uniforms ?? storedUniforms }
    private var storedUniforms: [String: ShaderValue] = [:]

    /// Sets the uniform `name` (runs the layer's action for `uniforms.NAME`: an implicit
    /// animation from the old value when it has the same type). A value that is not
    /// finite is refused (reported to `Layer.invalidValueHandler`).
    public func setUniform(_ name: String, _ value: ShaderValue) {
        guard accepts(value.isValid, "uniforms.\(name)", value) else { return }
        let old = uniforms[name]
        guard old != value else { return }
        if let old, old.typeName == value.typeName { actionWillChange("uniforms.\(name)", from: .shader(old)) }
        update { $0.uniforms[name] = value }
    }

    /// Removes a uniform (the shader sees 0 for it again).
    public func removeUniform(_ name: String) {
        guard uniforms[name] != nil else { return }
        update { $0.uniforms[name] = nil }
    }

    /// Draw at every frame (the host keeps compositing while the layer is shown), for a
    /// shader that reads `lamina_time`.
    public var isAnimating: Bool {
        get { properties.shader?.isAnimating ?? storedAnimating }
        set {
            guard newValue != isAnimating else { return }
            update { $0.isAnimating = newValue }
        }
    }
    private var storedAnimating = false

    override func willDescribe() {
        super.willDescribe()
        guard var style = properties.shader else { return }
        let label = name.map { "'\($0)'" } ?? "a ShaderLayer"
        if style.label != label {
            style.label = label
            properties.shader = style
        }
    }

    private func update(_ change: (inout ShaderStyle) -> Void) {
        var style = properties.shader ?? ShaderStyle(fragmentSource: "", uniforms: storedUniforms, isAnimating: storedAnimating)
        change(&style)
        style.label = name.map { "'\($0)'" } ?? "a ShaderLayer"
        storedUniforms = style.uniforms
        storedAnimating = style.isAnimating
        properties.shader = style.fragmentSource.isEmpty ? nil : style
        changed(.contents)
    }
}

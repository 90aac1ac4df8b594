import LaminaGeometry
import LaminaGPU
import LaminaValues

/// A shader layer's shader (`ShaderLayer`): the user's fragment stage over the layer's
/// bounds, drawn on the target with its uniforms, clipped like contents. Programs are
/// compiled once per compositor and source (`ShaderPrograms`).
enum ShaderItem: ItemKind {
    static let name = "shader"
    static let phase = ItemPhase.beforeSublayers
    static var clippedByOwnClip: Bool { true }

    static func occurs(in node: RenderNode) -> Bool { node.state.properties.shader != nil }

    static func bounds(of item: Item, _ context: BoundsContext) -> TargetBox? { context.layerBox(item.node) }

    static func draw(_ item: Item, into builder: inout DrawBuilder) {
        let n = item.node
        guard let style = n.state.properties.shader else { return }
        let s = n.state.contentsScale
        let size = Size(width: n.state.bounds.size.width * s, height: n.state.bounds.size.height * s)
        builder.add(.shader(ShaderDraw(style: style, layer: n.id, rect: n.state.bounds, pixelSize: size, alpha: n.alpha,
                                       transform: n.world)), for: item)
    }
}

/// A shader layer's draw: its style, where (the bounds under `transform`), `lamina_size`.
public struct ShaderDraw {
    public var style: ShaderStyle
    public var layer: LayerID
    public var rect: Rect
    /// `lamina_size`: the bounds in pixels at the layer's `contentsScale`.
    public var pixelSize: Size
    public var alpha: Double
    public var transform: Transform3D
}

/// A shader layer's fragment shader did not compile or link: the layer, and the driver's
/// log with the offending source lines.
public struct ShaderLayerError: LayerAttributedError, CustomStringConvertible {
    public let layer: String
    public let layerID: LayerID
    public let underlying: Error
    /// A shader effect's shader (`Layer.shaderEffect`), not a shader layer's.
    public var isEffect = false
    public var layerName: String { layer.hasPrefix("'") && layer.hasSuffix("'") && layer.count >= 2 ? String(layer.dropFirst().dropLast()) : layer }
    public var description: String {
        (isEffect ? "shader effect of layer \(layer) (\(layerID))" : "shader layer \(layer) (\(layerID))")
            + ": its fragment shader was refused. \(underlying)\nThe shader must be GLSL ES 3.00 (`#version 300 es`, a precision, one `out vec4`); it may declare `in vec2 lamina_uv`, `uniform vec2 lamina_size`, `uniform float lamina_time`"
            + (isEffect ? " and call `lamina_sample(uv)` (docs/gpu-content.md#shader-effects)." : ".")
    }
}

/// The programs of shader layers, compiled once per source (per compositor).
final class ShaderPrograms {
    private var programs: [String: ShaderProgram] = [:]
    private var failures: [String: Error] = [:]

    /// The program for `source` with `lamina_alpha` applied to its output, or the error
    /// it failed with (remembered: a failing source is compiled once).
    func program(for source: String, device: GPUDevice, effect: Bool = false) throws -> ShaderProgram {
        let key = (effect ? "effect\u{0}" : "") + source
        if let p = programs[key], !p.program.isReleased { return p }
        if let e = failures[key] { throw e }
        do {
            var text = ShaderPrograms.withAlpha(source)
            if effect { text = ShaderPrograms.withEffectPrelude(text) }
            let p = try ShaderProgram(device: device, fragmentSource: text, label: effect ? "shader effect" : "shader layer")
            programs[key] = p
            return p
        } catch {
            failures[key] = error
            throw error
        }
    }

    /// The source with its `main` renamed and a `main` that multiplies the output by the
    /// layer's opacity (`lamina_alpha`) appended; line numbers are unchanged.
    static func withAlpha(_ source: String) -> String {
        guard let output = outputName(in: source), let range = source.firstRange(of: "void main(") else { return source }
        var s = source
        s.replaceSubrange(range, with: "void lamina_user_main(")
        return s + "\nuniform float lamina_alpha;\nvoid main() { lamina_user_main(); \(output) *= lamina_alpha; }\n"
    }

    /// The name of the shader's `out vec4`.
    static func outputName(in source: String) -> String? {
        for line in source.split(separator: "\n") {
            let words = line.replacing(";", with: " ; ").split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let out = words.firstIndex(of: "out"), out + 1 < words.count else { continue }
            var i = out + 1
            if ["highp", "mediump", "lowp"].contains(words[i]) { i += 1 }
            guard i + 1 < words.count, words[i] == "vec4" else { continue }
            return String(words[i + 1])
        }
        return nil
    }

    func releaseAll() {
        for p in programs.values { p.release() }
        programs = [:]
        failures = [:]
    }
}

extension RenderTree {
    /// Follows whether `node` is a shader layer drawn at every frame.
    func noteShader(of node: RenderNode) {
        if node.state.properties.shader?.isAnimating == true || node.state.properties.shaderEffect?.isAnimating == true {
            animatingShaders[node.id] = node
        } else if animatingShaders[node.id] != nil {
            animatingShaders[node.id] = nil
        }
    }

    /// Marks the shader layers drawn at every frame as changed (their pixels depend on the
    /// time); forgets those that left the tree or stopped. Whether any is left.
    func advanceAnimatingShaders() -> Bool {
        for (id, node) in animatingShaders {
            let p = node.state.properties
            guard node.isInTree, nodes[id] === node, p.shader?.isAnimating == true || p.shaderEffect?.isAnimating == true else {
                animatingShaders[id] = nil
                continue
            }
            node.changes.insert(p.shader?.isAnimating == true ? .contents : .effects)
            pendingNodes.append(node)
        }
        return !animatingShaders.isEmpty
    }
}

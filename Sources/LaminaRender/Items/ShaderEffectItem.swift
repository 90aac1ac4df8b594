import LaminaGeometry
import LaminaGPU
import LaminaValues

/// A shader effect (`Layer.shaderEffect`): the layer is drawn as a group, and its image is
/// composited through the user's fragment shader instead of a plain quad — over the
/// image's box grown by `maxSampleOffset` on each side (the damage grows with it).
enum ShaderEffectComposite: CompositeEffect {
    static let name = "shader effect"

    static func makesGroup(_ node: RenderNode) -> Bool { node.state.properties.shaderEffect != nil }

    static func bounds(_ box: TargetBox?, of node: RenderNode, image: TargetBox?) -> TargetBox? {
        guard let box, let m = node.state.properties.shaderEffect?.margin else { return box }
        // The quad covers the layer's box too (lamina_uv spans it), and the margin.
        let layer = layerRect(of: node).map { TargetBox(targetRect: $0).grown(by: 1) } ?? box
        return box.union(layer).grown(byX: m.width, y: m.height)
    }

    /// The exact box of the layer's bounds on the target (its corners through its world
    /// transform; nil when one is behind the eye or not finite).
    static func layerRect(of node: RenderNode) -> Rect? {
        let r = node.state.bounds, w = node.world
        var x0 = Double.infinity, y0 = Double.infinity, x1 = -Double.infinity, y1 = -Double.infinity
        for (x, y) in [(r.minX, r.minY), (r.maxX, r.minY), (r.minX, r.maxY), (r.maxX, r.maxY)] {
            let h = x * w.m14 + y * w.m24 + w.m44
            guard h > 1e-6 else { return nil }
            let px = (x * w.m11 + y * w.m21 + w.m41) / h, py = (x * w.m12 + y * w.m22 + w.m42) / h
            guard px.isFinite, py.isFinite else { return nil }
            x0 = min(x0, px); y0 = min(y0, py); x1 = max(x1, px); y1 = max(y1, py)
        }
        return x1 > x0 && y1 > y0 ? Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : nil
    }

    static func apply(_ composite: inout Composite, of node: RenderNode, into builder: inout DrawBuilder) {
        guard let effect = node.state.properties.shaderEffect else { return }
        composite.shaderEffect = effect
        composite.blend = nil   // (the shader decides how the image looks; a blend mode is not applied with it)
    }
}

/// A group image drawn through a shader effect.
public struct ShaderEffectDraw {
    public var image: ImageDraw
    public var effect: ShaderEffect
    public var layer: LayerID
    /// The layer's bounds on the target (the box of its bounds under its transform), in
    /// target points: what `lamina_uv` spans.
    public var layerRect: Rect
}

extension ShaderPrograms {
    /// Declarations a shader effect's source gets after its `#version` line, with `#line`
    /// putting its own line numbers back.
    static let effectPrelude = """
        uniform highp sampler2D lamina_layer;
        uniform highp vec4 lamina_image_map;
        highp vec4 lamina_sample(highp vec2 uv) {
            highp vec2 t = lamina_image_map.xy + uv * lamina_image_map.zw;
            return (t.x < 0.0 || t.y < 0.0 || t.x > 1.0 || t.y > 1.0) ? vec4(0.0) : texture(lamina_layer, t);
        }
        """

    /// `source` with the effect prelude after its first line (`#version …`).
    static func withEffectPrelude(_ source: String) -> String {
        guard let newline = source.firstIndex(of: "\n"), source.hasPrefix("#version") || source.drop(while: { $0 == " " || $0 == "\n" }).hasPrefix("#version") else {
            return source
        }
        let first = source[..<newline]
        let rest = source[source.index(after: newline)...]
        return first + "\n" + effectPrelude + "\n#line 2\n" + rest
    }
}

import LaminaGeometry
import LaminaGPU
import LaminaValues

/// A group's composite: its subtree's image (rendered offscreen, kept until something in it
/// changes), through the composite effects it has, drawn in the surface around it at its
/// opacity.
enum GroupCompositeItem: ItemKind {
    static let name = "composite"
    static let phase = ItemPhase.beforeSublayers
    static var clipsItself: Bool { true }
    // (Its shadow, cut by its own masksToBounds: a stencil level unless that is an
    // axis-aligned rectangle.)
    static func drawsOwnClip(_ node: RenderNode) -> Bool { node.state.masksToBounds && ClipChain.targetRect(of: node) == nil }

    static func occurs(in node: RenderNode) -> Bool { node.isGroup }

    static func bounds(of item: Item, _ context: BoundsContext) -> TargetBox? {
        let n = item.node
        let image = context.surfaces[.group(n.id)]?.bounds
        var box = n.visible ? image : nil
        for effect in CompositeEffects.all { box = effect.bounds(box, of: n, image: image) }
        return box
    }

    static func draw(_ item: Item, into builder: inout DrawBuilder) {
        let n = item.node, s = n.state
        let image = builder.surfaceImage(.group(n.id))
        var composite = Composite(image: image, version: image.map { builder.version(of: $0.key) } ?? 0)
        for effect in CompositeEffects.all { effect.apply(&composite, of: n, into: &builder) }
        // (A transition's mix holds the opacities of its old and new pictures.)
        let alpha = n.inheritedAlpha * (s.properties.transition != nil ? 1 : s.opacity)
        if let (key, rect) = composite.shadow {
            let shadow = DrawOp.image(ImageDraw(image: key, rect: rect, alpha: alpha, filter: .linear))
            if s.masksToBounds {
                // The layer's own clip cuts its shadow too (as Core Animation's does).
                let own = ClipChain(node: n, parent: item.clip)
                own.refresh(everything: builder.everything)
                builder.add(shadow, clip: own, cuts: [], isLayerQuad: false)
            } else {
                builder.add(shadow, for: item, cuts: [], isLayerQuad: false)
            }
        }
        guard let (key, rect) = composite.image else { return }
        let draw = ImageDraw(image: key, rect: rect, alpha: alpha, filter: .nearest)
        if let effect = composite.shaderEffect {
            let box = ShaderEffectComposite.layerRect(of: n)
            builder.add(.effect(ShaderEffectDraw(image: draw, effect: effect, layer: n.id, layerRect: box ?? rect)),
                        for: item, cuts: [], isLayerQuad: false)
        } else if let mode = composite.blend {
            builder.add(.blended(draw, mode: mode), for: item, cuts: [], isLayerQuad: false)
        } else {
            builder.add(.image(draw), for: item, cuts: [], isLayerQuad: false)
        }
    }
}

/// A group's composite on its way to the surface: its image (nil: nothing to draw), a
/// shadow drawn under it, how it is blended; `version` changes whenever the image's pixels do.
struct Composite {
    var image: (key: ImageKey, rect: Rect)?
    var shadow: (key: ImageKey, rect: Rect)?
    var blend: BlendMode?
    /// A shader over the image (`ShaderEffectComposite`), which draws it instead of a plain quad.
    var shaderEffect: ShaderEffect?
    var version: Int

    init(image: (key: ImageKey, rect: Rect)?, version: Int) {
        self.image = image
        self.version = version
    }
}

/// An effect applied to a group's composite — a transition's cross-fade, a shadow of its
/// alpha, a mask, a blend mode — each in a file of its own (`CompositeEffects.all` lists
/// them in the order they apply). A layer with any of them is drawn as a group.
protocol CompositeEffect: Sendable {
    static var name: String { get }
    /// Whether the layer is composited as one image for this effect.
    static func makesGroup(_ node: RenderNode) -> Bool
    /// The composite's box (nil: nothing so far), grown by what the effect adds around the
    /// group's image (`image`: that image's box).
    static func bounds(_ box: TargetBox?, of node: RenderNode, image: TargetBox?) -> TargetBox?
    /// Applies the effect to the composite, with the render tasks it needs.
    static func apply(_ composite: inout Composite, of node: RenderNode, into builder: inout DrawBuilder)
}

extension CompositeEffect {
    static func bounds(_ box: TargetBox?, of node: RenderNode, image: TargetBox?) -> TargetBox? { box }
}

enum CompositeEffects {
    static let all: [any CompositeEffect.Type] = [TransitionCrossFade.self, AlphaShadow.self, MaskEffect.self, BlendEffect.self,
                                                  ShaderEffectComposite.self]
}

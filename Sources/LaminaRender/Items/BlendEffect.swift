import LaminaGeometry
import LaminaGPU
import LaminaValues

/// A blend mode (`compositingFilter`): the group's image is blended with what lies under
/// it (a copy of the surface's pixels under the image is read within the pass).
enum BlendEffect: CompositeEffect {
    static let name = "blend"

    static func makesGroup(_ node: RenderNode) -> Bool { node.state.compositingFilter != nil }

    static func apply(_ composite: inout Composite, of node: RenderNode, into builder: inout DrawBuilder) {
        composite.blend = node.state.compositingFilter
    }
}

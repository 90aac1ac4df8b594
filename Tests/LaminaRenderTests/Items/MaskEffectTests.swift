import LaminaGeometry
import LaminaModel
@testable import LaminaRender
import LaminaTestSupport
import LaminaValues
import Testing

/// MaskEffect (Sources/LaminaRender/Items/MaskEffect.swift): a masked layer's composite is
/// its image multiplied by its mask's image.
@MainActor
@Suite("Composite effects: mask", .isolatedTransactions, .withoutImplicitAnimations)
struct MaskEffectTests {
    @Test("the masked composite multiplies the group's image by the mask's image; a change in the mask renders the mask and the composite again, not the layer's image")
    func maskedComposite() throws {
        let m = Layer()
        let (rig, _) = try FrameRig.single {
            $0.backgroundColor = .white
            m.frame = Rect(x: 0, y: 0, width: 20, height: 30)
            m.backgroundColor = .black
            $0.mask = m
        }
        rig.builder.tree.needsRebuild = true
        var f = try rig.frame()
        #expect(rig.tasks(f) == ["picture image of group L", "picture image of mask of L", "picture masked composite of L"])
        guard case let .picture(p)? = f.frame.tasks.last?.kind else { Issue.record("\(f.frame.tasks)"); return }
        #expect(p.draws.map { rig.describe($0) } == ["image of group L", "mask image of mask of L"])
        m.backgroundColor = Color(red: 0, green: 0, blue: 0, alpha: 0.5)
        f = try rig.frame()
        #expect(rig.tasks(f) == ["picture image of mask of L", "picture masked composite of L"])
        #expect(f.damage == ["19,19,42,32"])
    }
}

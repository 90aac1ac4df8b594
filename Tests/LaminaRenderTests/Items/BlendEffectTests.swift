import LaminaGeometry
import LaminaModel
@testable import LaminaRender
import LaminaTestSupport
import LaminaValues
import Testing

/// BlendEffect (Sources/LaminaRender/Items/BlendEffect.swift): a compositingFilter makes the
/// layer a group whose composite is blended with what lies under it.
@MainActor
@Suite("Composite effects: blend mode", .isolatedTransactions, .withoutImplicitAnimations)
struct BlendEffectTests {
    @Test("a compositingFilter makes a group; its image is drawn blended by the mode")
    func blended() throws {
        let (rig, l) = try FrameRig.single { $0.backgroundColor = .white }
        l.compositingFilter = .multiply
        let f = try rig.frame()
        #expect(rig.tasks(f) == ["picture image of group L"])
        #expect(rig.draws(f) == [["blended image of group L"]])
        guard case let .blended(_, mode)? = f.frame.target.runs.first?.draws.first?.op else { Issue.record("\(rig.draws(f))"); return }
        #expect(mode == .multiply)
    }
}

import LaminaGeometry
import LaminaModel
@testable import LaminaRender
import LaminaTestSupport
import LaminaValues
import Testing

/// AlphaShadow (Sources/LaminaRender/Items/AlphaShadow.swift): the shadow of a layer's
/// subtree is its group image's alpha, blurred.
@MainActor
@Suite("Composite effects: shadow of the subtree's alpha", .isolatedTransactions, .withoutImplicitAnimations)
struct AlphaShadowTests {
    @Test("a layer with sublayers and a shadow is a group: its image, then its blur; a new shadow colour blurs again without rendering the image; a move renders neither")
    func blurredOnce() throws {
        let s = Layer()
        let (rig, l) = try FrameRig.single {
            $0.shadowOpacity = 1
            $0.shadowRadius = 2
            s.frame = Rect(x: 5, y: 5, width: 10, height: 10)
            s.backgroundColor = .white
            $0.addSublayer(s)
        }
        rig.builder.tree.needsRebuild = true
        var f = try rig.frame()
        #expect(rig.tasks(f) == ["picture image of group L", "blur shadow of L"])
        #expect(rig.draws(f) == [["shadow of L", "image of group L"]])
        l.shadowColor = Color(red: 0, green: 0, blue: 1)
        f = try rig.frame()
        #expect(rig.tasks(f) == ["blur shadow of L"])
        l.position.x += 4
        f = try rig.frame()
        #expect(rig.tasks(f) == [])
    }
}

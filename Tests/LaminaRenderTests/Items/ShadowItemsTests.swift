import LaminaGeometry
import LaminaModel
@testable import LaminaRender
import LaminaTestSupport
import LaminaValues
import Testing

/// AnalyticShadowItem and PathShadowItem (Sources/LaminaRender/Items/ShadowItems.swift):
/// the shadow of a (rounded) rectangle is analytic; of any other shadowPath, a blurred mask.
@MainActor
@Suite("Item kinds: analytic and path shadows", .isolatedTransactions, .withoutImplicitAnimations)
struct ShadowItemsTests {
    @Test("a rounded-rect shadowPath is analytic (a shadow draw, no task); an ellipse is rasterised and blurred once (a blur task), then drawn as an image until it changes")
    func analyticAndPath() throws {
        let (rig, l) = try FrameRig.single {
            $0.backgroundColor = .white
            $0.shadowOpacity = 1
            $0.shadowRadius = 3
            $0.shadowPath = Path(roundedRect: Rect(x: 0, y: 0, width: 40, height: 30), cornerRadius: 5)
        }
        rig.builder.tree.needsRebuild = true
        var f = try rig.frame()
        #expect(rig.tasks(f) == [] && rig.draws(f) == [["L shadow", "L solid"]])
        guard case let .shadow(_, _, _, radius, sigma)? = f.frame.target.runs.first?.draws.first?.op else { Issue.record("\(rig.draws(f))"); return }
        #expect(radius == 5 && sigma > 0)
        l.shadowPath = Path(ellipseIn: Rect(x: 0, y: 0, width: 40, height: 30))
        f = try rig.frame()
        #expect(rig.tasks(f) == ["blur shadow of L"])
        #expect(rig.draws(f) == [["shadow of L", "L solid"]])
        l.position.y += 3
        f = try rig.frame()
        #expect(rig.tasks(f) == [], "moved: the blurred mask is kept")
    }
}

import LaminaGeometry
import LaminaModel
@testable import LaminaRender
import LaminaTestSupport
import LaminaValues
import Testing

/// GroupCompositeItem (Sources/LaminaRender/Items/GroupCompositeItem.swift): a group's
/// image composited at its opacity.
@MainActor
@Suite("Item kinds: group composite", .isolatedTransactions, .withoutImplicitAnimations)
struct GroupCompositeItemTests {
    @Test("group opacity: a layer drawing two items at opacity 0.5 is a group (its image at alpha 0.5); one item alone is drawn at 0.5 without an image; allowsGroupOpacity false draws each item at 0.5")
    func groupOpacity() throws {
        let s = Layer()
        let (rig, l) = try FrameRig.single {
            $0.backgroundColor = .white
            $0.opacity = 0.5
        }
        rig.builder.tree.needsRebuild = true
        var f = try rig.frame()
        #expect(rig.tasks(f) == [] && rig.draws(f) == [["L solid"]])
        s.frame = Rect(x: 5, y: 5, width: 10, height: 10)
        s.backgroundColor = .black
        l.addSublayer(s)
        rig.name(s, "S")
        f = try rig.frame()
        #expect(rig.tasks(f) == ["picture image of group L"] && rig.draws(f) == [["image of group L"]])
        guard case let .image(i)? = f.frame.target.runs.first?.draws.first?.op else { Issue.record("\(rig.draws(f))"); return }
        #expect(i.alpha == 0.5)
        l.allowsGroupOpacity = false
        f = try rig.frame()
        #expect(rig.tasks(f) == [] && rig.draws(f) == [["L solid", "S solid"]])
        #expect(Set(f.frame.releasedImages.map(rig.describe)) == ["image of group L"])
    }
}

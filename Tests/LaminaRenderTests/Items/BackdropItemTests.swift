import LaminaGeometry
import LaminaModel
@testable import LaminaRender
import LaminaTestSupport
import LaminaValues
import Testing

/// BackdropItem (Sources/LaminaRender/Items/BackdropItem.swift): what lies behind a layer,
/// blurred; it reads the pass, so the pass ends around the blur.
@MainActor
@Suite("Item kinds: backdrop blur", .isolatedTransactions, .withoutImplicitAnimations)
struct BackdropItemTests {
    @Test("a backdrop blur ends the pass, blurs what it drew, and goes on in a new pass (no pass open during the blur); a change under it grows the damage by the blur's reach")
    func passEndsAroundTheBlur() throws {
        let under = Layer()
        let (rig, _) = try FrameRig.single {
            $0.backgroundFilters = [.gaussianBlur(radius: 4)]
        }
        under.frame = Rect(x: 30, y: 30, width: 4, height: 4)
        under.backgroundColor = .black
        rig.root.insertSublayer(under, at: 0)
        rig.name(under, "U")
        rig.builder.tree.needsRebuild = true
        var f = try rig.frame()
        #expect(rig.draws(f) == [["U solid", "backdrop"]])
        #expect(f.calls == ["begin target clear", "draw solid", "copy backdrop", "end", "blur backdrop", "resume target", "draw backdrop", "end"])
        under.backgroundColor = .white
        f = try rig.frame()
        let damage = try #require(f.frame.damage.bounds)
        #expect(damage.width > 6 && damage.x < 29, "grown past U's box (29, 29, 6×6) by the blur's reach: \(f.damage)")
    }
}

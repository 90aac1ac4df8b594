import LaminaGeometry
import LaminaModel
@testable import LaminaRender
import LaminaTestSupport
import LaminaValues
import Testing

/// SolidItem (Sources/LaminaRender/Items/SolidItem.swift): a background without corners.
@MainActor
@Suite("Item kinds: solid", .isolatedTransactions, .withoutImplicitAnimations)
struct SolidItemTests {
    @Test("an opaque background is one opaque solid quad over the bounds; translucent (colour or opacity) it blends; alpha 0 draws nothing")
    func solid() throws {
        let (rig, l) = try FrameRig.single { $0.backgroundColor = Color(red: 1, green: 0, blue: 0) }
        func only() throws -> (Rect, Color, Bool)? {
            let f = try rig.frame()
            guard let d = f.frame.target.runs.flatMap(\.draws).first, case let .solid(r, t, c, opaque) = d.op else { return nil }
            return (r.offsetBy(dx: t.m41, dy: t.m42), c, opaque)
        }
        rig.builder.tree.needsRebuild = true
        var d = try #require(try only())
        #expect(d.0 == Rect(x: 20, y: 20, width: 40, height: 30) && d.1.alpha == 1 && d.2)
        l.opacity = 0.5
        d = try #require(try only())
        #expect(d.1.alpha == 0.5 && !d.2)
        l.opacity = 1
        l.backgroundColor = Color(red: 1, green: 0, blue: 0, alpha: 0.25)
        d = try #require(try only())
        #expect(d.1.alpha == 0.25 && !d.2)
        l.backgroundColor = Color(red: 1, green: 0, blue: 0, alpha: 0)
        let f = try rig.frame()
        #expect(f.frame.target.runs.flatMap(\.draws).isEmpty, "nothing drawn: \(rig.draws(f))")
        #expect(f.damage == ["19,19,42,32"], "the old box is damaged")
    }
}

extension Rect {
    func offsetBy(dx: Double, dy: Double) -> Rect { Rect(x: minX + dx, y: minY + dy, width: width, height: height) }
}

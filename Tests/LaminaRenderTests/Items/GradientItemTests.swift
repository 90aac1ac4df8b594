import LaminaGeometry
import LaminaModel
@testable import LaminaRender
import LaminaTestSupport
import LaminaValues
import Testing

/// GradientItem (Sources/LaminaRender/Items/GradientItem.swift): a gradient rendered into an
/// image once per change, drawn over the layer's bounds.
@MainActor
@Suite("Item kinds: gradient", .isolatedTransactions, .withoutImplicitAnimations)
struct GradientItemTests {
    @Test("a gradient layer's image is a gradient task, made again when its colours change and kept while nothing changes it (a move)")
    func renderedOncePerChange() throws {
        let (rig, l) = try FrameRig.single(GradientLayer()) { $0.colors = [.black, .white] }
        l.colors = [.black, Color(red: 1, green: 0, blue: 0)]
        var f = try rig.frame()
        #expect(rig.tasks(f) == ["gradient gradient of L"])
        #expect(rig.draws(f) == [["gradient of L"]])
        guard case let .gradient(g)? = f.frame.tasks.first.map(\.kind) else { Issue.record("\(f.frame.tasks)"); return }
        #expect(g.pixelSize == PixelSize(width: 40, height: 30))
        l.position.x += 5
        f = try rig.frame()
        #expect(rig.tasks(f) == [] && rig.draws(f) == [["gradient of L"]])
    }
}

import LaminaGeometry
import LaminaModel
@testable import LaminaRender
import LaminaTestSupport
import LaminaValues
import Testing

/// ContentsItem (Sources/LaminaRender/Items/ContentsItem.swift): contents placed by gravity
/// and contentsRect, clipped by the layer's own masksToBounds.
@MainActor
@Suite("Item kinds: contents", .isolatedTransactions, .withoutImplicitAnimations)
struct ContentsItemTests {
    @Test("contents are placed by their gravity (centre: a 10×10 image in the middle of 40×30); with masksToBounds the contents are clipped by the layer's own clip, its background is not")
    func placedAndClipped() throws {
        let image = ContentImage(RGBAImage(width: 10, height: 10, fill: RGBAPixel(r: 0, g: 255, b: 0, a: 255)))
        let (rig, l) = try FrameRig.single {
            $0.contents = .image(image)
            $0.contentsGravity = .center
            $0.backgroundColor = .white
        }
        rig.builder.tree.needsRebuild = true
        var f = try rig.frame()
        guard case let .contents(c)? = f.frame.target.runs.first?.draws.last?.op else { Issue.record("\(rig.draws(f))"); return }
        #expect(c.frame == Rect(x: 15, y: 10, width: 10, height: 10) && c.isOpaque && c.alpha == 1)
        l.masksToBounds = true
        l.cornerRadius = 4
        f = try rig.frame()
        let draws = f.frame.target.runs.flatMap(\.draws)
        #expect(rig.draws(f).flatMap { $0 } == ["L rounded rect", "L contents"])
        #expect(draws[0].clip == nil, "the background is not clipped by the layer's own clip")
        let clip = try #require(draws[1].clip.map { f.frame.clips[$0] })
        #expect(clip.corners == CornerShape(radius: 4) && clip.depth == 1)
    }
}

import LaminaGeometry
import LaminaModel
@testable import LaminaRender
import LaminaTestSupport
import LaminaValues
import Testing

/// ContentsCrossFadeItem (Sources/LaminaRender/Items/CrossFade.swift): a contents
/// animation mixes the two contents offscreen, once per frame.
@MainActor
@Suite("Item kinds: contents cross-fade", .isolatedTransactions, .withoutImplicitAnimations)
struct ContentsCrossFadeTests {
    @Test("while contents animate, the layer's contents are a mix made each frame (an additive picture of both contents), drawn as one image; after the animation, the contents again")
    func mixedEachFrame() throws {
        MediaClock.set(100)
        defer { MediaClock.set(nil) }
        let a = ContentImage(RGBAImage(width: 4, height: 4, fill: RGBAPixel(r: 255, g: 0, b: 0, a: 255)))
        let b = ContentImage(RGBAImage(width: 4, height: 4, fill: RGBAPixel(r: 0, g: 0, b: 255, a: 255)))
        let (rig, l) = try FrameRig.single { $0.contents = .image(a) }
        var fade = BasicAnimation(keyPath: "contents")
        fade.fromValue = .image(a)
        fade.toValue = .image(b)
        fade.duration = 1
        l.add(fade, forKey: "fade")
        try Transaction.flush()   // (it begins now: at 100)
        MediaClock.set(100.5)
        var f = try rig.frame()
        #expect(rig.tasks(f) == ["picture contents mix of L"])
        #expect(rig.draws(f) == [["contents mix of L"]])
        guard case let .picture(p)? = f.frame.tasks.first?.kind else { Issue.record("\(f.frame.tasks)"); return }
        #expect(p.additive && p.draws.count == 2)
        MediaClock.set(100.75)
        f = try rig.frame()
        #expect(rig.tasks(f) == ["picture contents mix of L"], "made again at the new fraction")
        MediaClock.set(102)
        f = try rig.frame()
        #expect(rig.tasks(f) == [] && rig.draws(f) == [["L contents"]])
    }
}

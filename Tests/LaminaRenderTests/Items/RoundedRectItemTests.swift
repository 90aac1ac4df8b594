import LaminaGeometry
import LaminaModel
@testable import LaminaRender
import LaminaTestSupport
import LaminaValues
import Testing

/// RoundedRectItem and BorderItem (Sources/LaminaRender/Items/RoundedRectItem.swift,
/// BorderItem.swift): rounded backgrounds and borders.
@MainActor
@Suite("Item kinds: rounded rectangle and border", .isolatedTransactions, .withoutImplicitAnimations)
struct RoundedRectItemTests {
    @Test("corners make the background a rounded rect (not a solid); a border is a ring with the same corners, drawn after the sublayers")
    func roundedAndBorder() throws {
        let (rig, l) = try FrameRig.single {
            $0.backgroundColor = Color(red: 0, green: 0, blue: 1)
            $0.cornerRadius = 6
            $0.borderWidth = 2
            $0.borderColor = .black
        }
        let s = Layer()
        s.frame = Rect(x: 4, y: 4, width: 10, height: 10)
        s.backgroundColor = .white
        l.addSublayer(s)
        rig.name(s, "S")
        let f = try rig.frame()
        #expect(rig.draws(f) == [["L rounded rect", "S solid", "L border"]])
        let ops = f.frame.target.runs.flatMap(\.draws).map(\.op)
        guard case let .roundedRect(_, _, _, r0, b0) = ops[0], case let .roundedRect(_, _, _, r2, b2) = ops[2] else {
            Issue.record("\(ops)"); return
        }
        #expect(r0 == CornerShape(radius: 6) && b0 == 0 && r2 == CornerShape(radius: 6) && b2 == 2)
        l.borderColor = Color(red: 0, green: 0, blue: 0, alpha: 0)
        #expect(rig.draws(try rig.frame()) == [["L rounded rect", "S solid"]])
    }

    @Test("maskedCorners and cornerCurve reach the background, the border and the clip; masked corners leave the analytic shadow")
    func cornerOptions() throws {
        let (rig, l) = try FrameRig.single {
            $0.backgroundColor = Color(red: 0, green: 0, blue: 1)
            $0.cornerRadius = 6
            $0.maskedCorners = [.layerMinXMinYCorner, .layerMaxXMaxYCorner]
            $0.cornerCurve = .continuous
            $0.borderWidth = 2
            $0.borderColor = .black
            $0.masksToBounds = true
        }
        let s = Layer()
        s.frame = Rect(x: 4, y: 4, width: 10, height: 10)
        s.backgroundColor = .white
        l.addSublayer(s)
        rig.name(s, "S")
        let f = try rig.frame()
        let expected = CornerShape(radius: 6, corners: [.layerMinXMinYCorner, .layerMaxXMaxYCorner], curve: .continuous)
        let draws = f.frame.target.runs.flatMap(\.draws)
        let corners = draws.compactMap { d -> CornerShape? in
            if case let .roundedRect(_, _, _, c, _) = d.op { return c } else { return nil }
        }
        #expect(corners == [expected, expected], "background and border")
        let clips = draws.compactMap { $0.clip.map { f.frame.clips[$0] } }
        #expect(!clips.isEmpty && clips.allSatisfy { $0.corners == expected }, "\(clips.map(\.corners))")
        // A shadow of the masked shape is drawn from the layer's alpha (an offscreen image),
        // not as the analytic rounded rectangle.
        s.removeFromSuperlayer()
        l.shadowOpacity = 1
        let shadowed = try rig.frame()
        #expect(!shadowed.frame.tasks.isEmpty, "the layer's alpha is rendered and blurred offscreen")
        #expect(!shadowed.frame.target.runs.flatMap(\.draws).contains { if case .shadow = $0.op { true } else { false } })
        l.maskedCorners = .all
        l.cornerCurve = .circular
        let analytic = try rig.frame()
        #expect(analytic.frame.tasks.isEmpty)
        #expect(analytic.frame.target.runs.flatMap(\.draws).contains { if case .shadow = $0.op { true } else { false } })
    }
}

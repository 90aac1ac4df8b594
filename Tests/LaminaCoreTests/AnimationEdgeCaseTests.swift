import Foundation
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import Testing
@testable import LaminaCore
@testable import LaminaModel
@testable import LaminaRender
@testable import LaminaValues
import LaminaTestSupport


@MainActor
private final class CallLog { var v: [String] = [] }

@MainActor
@Suite("Animations: negative speed, freed layers, paced groups, times that are not finite or never come", .isolatedTransactions)
struct AnimationEdgeCaseTests {
    @Test("negative speed plays backwards from timeOffset: with none, it ends at once (didStop(true)) and needs no frames")
    func negativeSpeed() throws {
        let s = try AnimationStage(); defer { s.close() }
        let l = solid(Rect(x: 0, y: 0, width: 50, height: 50), .red)
        s.root.addSublayer(l)
        try s.frame(at: 0)
        let calls = CallLog()
        var a = BasicAnimation(keyPath: "opacity")
        a.fromValue = .number(0); a.toValue = .number(1); a.duration = 1; a.speed = -1
        a.didStop = { f in calls.v.append("stop \(f)") }
        l.add(a, forKey: "a")
        try s.frame(at: 0)
        try s.frame(at: 1000)
        #expect(calls.v == ["stop true"], "didStop: \(calls.v)")
        #expect(!TransactionContext.current.animationsInFlight, "frame clock still running after 1000 s")
        #expect(!s.host.compositor.hasRunningAnimations, "compositor still animating")
        l.removeAllAnimations(); try s.frame(at: 1001)
        // With timeOffset = duration it plays from the end back to the start.
        var b = BasicAnimation(keyPath: "opacity")
        b.fromValue = .number(0); b.toValue = .number(1); b.duration = 1; b.speed = -1; b.timeOffset = 1
        b.beginTime = s.t0 + 1001
        l.add(b, forKey: "b")
        MediaClock.set(s.t0 + 1001.25)
        #expect(abs(l.presentation().opacity - 0.75) < 1e-9, "\(l.presentation().opacity)")
        try s.frame(at: 1001.25)
        #expect(TransactionContext.current.animationsInFlight)
        try s.frame(at: 1002.5)
        #expect(!TransactionContext.current.animationsInFlight && l.animationKeys().isEmpty)
    }

    @Test("a layer freed mid-animation: its animations stop unfinished, and the transaction's completion block runs")
    func freedLayer() throws {
        let s = try AnimationStage(); defer { s.close() }
        let calls = CallLog()
        do {
            let l = solid(Rect(x: 0, y: 0, width: 50, height: 50), .red)
            s.root.addSublayer(l)
            try s.frame(at: 0)
            Transaction.begin()
            Transaction.setCompletionBlock { calls.v.append("completion") }
            var a = BasicAnimation(keyPath: "opacity")
            a.fromValue = .number(0); a.toValue = .number(1); a.duration = 1
            a.didStop = { f in calls.v.append("stop \(f)") }
            l.add(a, forKey: "a")
            try Transaction.commit()
            try s.frame(at: 0.5)
            l.removeFromSuperlayer()
        }
        try s.frame(at: 0.6)
        try s.frame(at: 5)
        try s.frame(at: 6)
        #expect(calls.v.contains("completion"), "callbacks: \(calls.v)")
        #expect(calls.v.contains("stop false"), "callbacks: \(calls.v)")
    }

    @Test("a group's timing function paces its members' time, as Core Animation does")
    func groupTimingFunction() throws {
        let s = try AnimationStage(); defer { s.close() }
        let l = solid(Rect(x: 0, y: 0, width: 50, height: 50), .red)
        s.root.addSublayer(l)
        try s.frame(at: 0)
        var m = BasicAnimation(keyPath: "opacity")
        m.fromValue = .number(0); m.toValue = .number(1)
        var g = AnimationGroup([m])
        g.duration = 2
        g.timingFunction = .easeIn
        l.add(g, forKey: "g")
        try s.frame(at: 0)
        MediaClock.set(s.t0 + 1)
        let shown = l.presentation().opacity
        #expect(abs(shown - TimingFunction.easeIn.value(at: 0.5)) < 1e-6, "shown \(shown), easeIn(0.5) = \(TimingFunction.easeIn.value(at: 0.5))")
    }

    @Test("an animation with a time that is not finite is refused with a warning; nothing non-finite reaches the renderer")
    func nanTimeOffset() throws {
        let s = try AnimationStage(); defer { s.close() }
        let l = solid(Rect(x: 0, y: 0, width: 50, height: 50), .red)
        s.root.addSublayer(l)
        try s.frame(at: 0)
        var a = BasicAnimation(keyPath: "position")
        a.fromValue = .point(Point(x: 0, y: 0)); a.toValue = .point(Point(x: 100, y: 100)); a.duration = 1
        a.timeOffset = .nan
        var warnings: [TransactionWarning] = []
        let saved = Transaction.warningHandler
        Transaction.warningHandler = { warnings.append($0) }
        defer { Transaction.warningHandler = saved }
        l.add(a, forKey: "a")
        #expect(warnings.count == 1 && l.animationKeys().isEmpty, "\(warnings)")
        try s.frame(at: 0.5)
        MediaClock.set(s.t0 + 0.5)
        let p = l.presentation().position
        #expect(p.x.isFinite, "presented position \(p)")
        try s.frame(at: 0.6)
    }

    @Test("an animation that could never begin (beginTime +∞) is refused; the frame clock does not run for it")
    func infiniteBegin() throws {
        let s = try AnimationStage(); defer { s.close() }
        let l = solid(Rect(x: 0, y: 0, width: 50, height: 50), .red)
        s.root.addSublayer(l)
        try s.frame(at: 0)
        var a = BasicAnimation(keyPath: "opacity")
        a.fromValue = .number(0); a.toValue = .number(1); a.beginTime = .infinity
        let saved = Transaction.warningHandler
        Transaction.warningHandler = { _ in }
        defer { Transaction.warningHandler = saved }
        l.add(a, forKey: "a")
        #expect(l.animationKeys().isEmpty)
        try s.frame(at: 0); try s.frame(at: 100)
        #expect(!TransactionContext.current.animationsInFlight)
        l.removeAllAnimations(); try s.frame(at: 101)
    }
}

@MainActor
@Suite("Damage flashes end on the next frame, on the main thread and on a render thread", .isolatedTransactions)
struct DamageFlashTests {
    @Test("showsDamage: the next frame removes the flash, on the main thread and on a render thread", arguments: [false, true])
    func damageFlashStays(onThread: Bool) throws {
        MediaClock.set(nil)
        let device = try GPUDevice()
        let target = try OffscreenTarget(device: device, size: Size(width: 64, height: 64))
        let root = rootLayer(width: 64, height: 64)
        let l = solid(Rect(x: 0, y: 0, width: 20, height: 20), .red)
        root.addSublayer(l)
        let host = LayerTreeHost(rootLayer: root, target: target, background: .white, rendersOnThread: onThread)
        defer { host.detach() }
        host.compositor.showsDamage = true
        try Transaction.flush()
        Transaction.begin(); Transaction.setDisableActions(true)
        l.backgroundColor = .blue
        try Transaction.commit()
        for _ in 0..<3 { try Transaction.commitIfNeeded(); usleep(50_000) }
        let image = onThread ? try host.renderThread!.perform { try target.readPixels() } : try target.readPixels()
        #expect(image[10, 10] == blue, "onThread \(onThread): pixel \(image[10, 10]) (the green damage flash still on screen)")
    }
}

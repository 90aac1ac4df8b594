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
@Suite("Animations", .isolatedTransactions)
struct AnimationTests {
    @Test("an explicit opacity animation is evaluated by the renderer at the frame's media time; the model keeps its value")
    func opacityPixels() throws {
        let s = try AnimationStage()
        defer { s.close() }
        let l = solid(Rect(x: 50, y: 50, width: 100, height: 100), .red)
        s.root.addSublayer(l)
        try s.frame(at: 0)
        var a = BasicAnimation(keyPath: "opacity")
        a.fromValue = .number(0)
        a.toValue = .number(1)
        a.duration = 2
        l.add(a, forKey: "fade")
        // Committed at t0 + 0.5: it begins then.
        try s.frame(at: 0.5)
        #expect(l.animation(forKey: "fade")?.beginTime == s.t0 + 0.5)
        for (dt, alpha) in [(0.5, 0.0), (1.0, 0.25), (1.5, 0.5), (2.0, 0.75)] {
            let image = try s.frame(at: dt)
            let expected = UInt8((255 * (1 - alpha)).rounded())
            let p = image[100, 100]
            #expect(p.r == 255 && abs(Int(p.g) - Int(expected)) <= 1 && abs(Int(p.b) - Int(expected)) <= 1,
                    "at +\(dt) s: \(p), expected g = b = \(expected)")
            #expect(image[10, 10] == white)
            #expect(l.opacity == 1, "the model is untouched")
            #expect(abs(l.presentation().opacity - alpha) < 1e-9)
        }
        // After the end (+2.5): removed on completion, the model value shows.
        let end = try s.frame(at: 2.6)
        #expect(end[100, 100] == red)
        #expect(l.animationKeys().isEmpty)
    }

    @Test("a frame at a fixed time equals the static scene with the interpolated values (position, bounds, transform, colour)")
    func staticEquivalence() throws {
        let s = try AnimationStage()
        defer { s.close() }
        let l = solid(Rect(x: 20, y: 20, width: 40, height: 40), .blue)
        s.root.addSublayer(l)
        try s.frame(at: 0)
        var group = AnimationGroup()
        var move = BasicAnimation(keyPath: "position")
        move.toValue = .point(Point(x: 140, y: 120))
        var grow = BasicAnimation(keyPath: "bounds.size")
        grow.fromValue = .size(Size(width: 40, height: 40))
        grow.toValue = .size(Size(width: 80, height: 20))
        var tint = BasicAnimation(keyPath: "backgroundColor")
        tint.toValue = .color(Color(red: 0, green: 1, blue: 0, alpha: 0.5))
        var turn = BasicAnimation(keyPath: "transform.rotation.z")
        turn.fromValue = .number(0)
        turn.toValue = .number(Double.pi / 2)
        group.animations = [move, grow, tint, turn]
        group.duration = 1
        l.add(group, forKey: "g")
        try s.frame(at: 0)
        let animated = try s.frame(at: 0.25)

        // The same frame, built statically with the values at a quarter of the way.
        let root = rootLayer()
        let still = Layer()
        still.bounds = Rect(x: 0, y: 0, width: 50, height: 35)
        still.position = Point(x: 40 + 100 * 0.25, y: 40 + 80 * 0.25)
        // Premultiplied interpolation from blue (0,0,1,1) to (0,0.5·1,0,0.5): a quarter of the way.
        let pre = (r: 0.0, g: 0.125, b: 0.75, a: 0.875)
        still.backgroundColor = Color(red: pre.r / pre.a, green: pre.g / pre.a, blue: pre.b / pre.a, alpha: pre.a)
        still.transform = Transform3D(rotationAngle: Double.pi / 8, x: 0, y: 0, z: 1)
        root.addSublayer(still)
        let (expected, _) = try render(root, background: .white)
        var worst = 0
        for y in 0..<200 {
            for x in 0..<200 {
                worst = max(worst, animated[x, y].maxChannelDifference(expected[x, y]))
            }
        }
        #expect(worst <= 2, "largest channel difference \(worst)")
    }

    @Test("during an animation of a drawn layer: no draw, no upload; after it ends: no frames, and the frame clock stops")
    func countsAndClock() throws {
        final class Painter: LayerDelegate {
            var draws = 0
            func draw(_ layer: Layer, in context: GraphicsContext) {
                draws += 1
                context.setFillColor(.green)
                context.fill(Rect(x: 0, y: 0, width: 64, height: 64))
            }
        }
        let s = try AnimationStage()
        defer { s.close() }
        let painter = Painter()
        let l = Layer()
        l.frame = Rect(x: 0, y: 0, width: 64, height: 64)
        l.delegate = painter
        l.setNeedsDisplay()
        s.root.addSublayer(l)
        try s.frame(at: 0)
        #expect(painter.draws == 1)
        var a = BasicAnimation(keyPath: "position")
        a.fromValue = .point(Point(x: 32, y: 32))
        a.toValue = .point(Point(x: 150, y: 150))
        a.duration = 1
        l.add(a, forKey: "move")
        try s.frame(at: 0)
        #expect(TransactionContext.current.animationsInFlight)
        var frames = 0
        for i in 1...9 {
            let before = s.host.frameCount
            try s.frame(at: Double(i) / 10)
            #expect(s.host.frameCount == before + 1, "frame \(i) composited")
            #expect(s.host.lastFrame.layersDrawn == 0 && s.host.lastFrame.textureBytesUploaded == 0, "\(s.host.lastFrame)")
            #expect(s.host.lastFrame.damagedRect.width < 200, "only what moves is recomposited: \(s.host.lastFrame.damagedRect)")
            frames += 1
        }
        #expect(painter.draws == 1)
        try s.frame(at: 1.2)       // ends: the model's position shows again
        #expect(!TransactionContext.current.animationsInFlight, "the frame clock stopped")
        let after = s.host.frameCount
        MediaClock.set(s.t0 + 1.5)
        try Transaction.commitIfNeeded()
        try Transaction.commitIfNeeded()
        #expect(s.host.frameCount == after, "no idle frames")
    }

    @Test("implicit animations: a standalone layer in a rendered tree animates with the transaction's duration; disableActions and new layers do not")
    func implicitAnimations() throws {
        let s = try AnimationStage()
        defer { s.close() }
        let l = solid(Rect(x: 0, y: 0, width: 20, height: 20), .red)
        l.position = Point(x: 50, y: 50)                 // not rendered yet: no action
        #expect(l.animationKeys().isEmpty)
        s.root.addSublayer(l)
        try s.frame(at: 0)
        l.position = Point(x: 150, y: 50)
        let a = try #require(l.animation(forKey: "position") as? BasicAnimation)
        #expect(a.fromValue == .point(Point(x: 50, y: 50)) && a.toValue == nil)
        #expect(a.duration == 0.25 && a.timingFunction == .default)
        try s.frame(at: 0)
        let mid = TimingFunction.default.value(at: 0.5)
        try s.frame(at: 0.125)
        #expect(abs(l.presentation().position.x - (50 + 100 * mid)) < 1e-6)
        #expect(l.position.x == 150)

        Transaction.begin()
        Transaction.setAnimationDuration(2)
        Transaction.setAnimationTimingFunction(.linear)
        l.opacity = 0.5
        try Transaction.commit()
        let b = try #require(l.animation(forKey: "opacity") as? BasicAnimation)
        #expect(b.duration == 2 && b.timingFunction == .linear)

        Transaction.begin()
        Transaction.setDisableActions(true)
        l.cornerRadius = 4
        try Transaction.commit()
        #expect(l.animation(forKey: "cornerRadius") == nil)

        // An explicit nil in `actions` turns one property's action off.
        l.actions = ["borderWidth": nil]
        l.borderWidth = 2
        #expect(l.animation(forKey: "borderWidth") == nil)
        l.zPosition = 1
        #expect(l.animation(forKey: "zPosition") != nil)
    }

    @Test("timing: repeatCount, autoreverses, fill modes, speed, timeOffset and beginTime, read through presentation()")
    func timing() throws {
        let s = try AnimationStage()
        defer { s.close() }
        let l = solid(Rect(x: 0, y: 0, width: 10, height: 10), .red)
        s.root.addSublayer(l)
        try s.frame(at: 0)
        func x(at dt: Double) -> Double { MediaClock.set(s.t0 + dt); return l.presentation().position.x }
        func animation(_ configure: (inout BasicAnimation) -> Void) throws {
            l.removeAllAnimations()
            var a = BasicAnimation(keyPath: "position.x")
            a.fromValue = .number(0)
            a.toValue = .number(100)
            a.duration = 1
            a.beginTime = s.t0          // the layer's time is media time here
            configure(&a)
            l.add(a, forKey: "x")
        }
        // Model x is 5.
        try animation { $0.repeatCount = 2.5 }
        #expect(abs(x(at: 0.25) - 25) < 1e-9 && abs(x(at: 1.25) - 25) < 1e-9 && abs(x(at: 2.25) - 25) < 1e-9)
        #expect(x(at: 2.6) == 5, "ended mid-iteration, removed")
        try animation { $0.autoreverses = true; $0.repeatCount = 1 }
        #expect(abs(x(at: 0.5) - 50) < 1e-9 && abs(x(at: 1.5) - 50) < 1e-9 && abs(x(at: 1.75) - 25) < 1e-9)
        try animation { $0.beginTime = s.t0 + 1; $0.fillMode = .backwards }
        #expect(x(at: 0.5) == 0, "backwards fill shows the first value before the start")
        try animation { $0.beginTime = s.t0 + 1 }
        #expect(x(at: 0.5) == 5, "no fill: the model value before the start")
        try animation { $0.fillMode = .forwards; $0.isRemovedOnCompletion = false }
        #expect(x(at: 3) == 100, "forwards fill holds the end")
        try animation { $0.speed = 2 }
        #expect(abs(x(at: 0.25) - 50) < 1e-9)
        try animation { $0.timeOffset = 0.5 }
        #expect(abs(x(at: 0.25) - 75) < 1e-9 && abs(x(at: 0.75) - 25) < 1e-9, "timeOffset wraps around")
        try animation { $0.repeatDuration = 1.5 }
        #expect(abs(x(at: 1.25) - 25) < 1e-9 && x(at: 1.6) == 5)
    }

    @Test("pausing a subtree through the layer's speed and timeOffset, and resuming it, as on Apple's platforms")
    func pauseAndResume() throws {
        let s = try AnimationStage()
        defer { s.close() }
        let parent = Layer()
        parent.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        let l = solid(Rect(x: 0, y: 0, width: 10, height: 10), .red)
        parent.addSublayer(l)
        s.root.addSublayer(parent)
        try s.frame(at: 0)
        var a = BasicAnimation(keyPath: "position.x")
        a.fromValue = .number(0)
        a.toValue = .number(100)
        a.duration = 1
        l.add(a, forKey: "x")
        try s.frame(at: 0)
        MediaClock.set(s.t0 + 0.3)
        // Pause.
        let paused = parent.convertTime(MediaClock.now(), from: nil)
        parent.speed = 0
        parent.timeOffset = paused
        try s.frame(at: 0.3)
        #expect(!TransactionContext.current.animationsInFlight, "a paused animation needs no frames")
        MediaClock.set(s.t0 + 5)
        #expect(abs(l.presentation().position.x - 30) < 1e-9)
        // Resume.
        parent.speed = 1
        parent.timeOffset = 0
        parent.beginTime = 0
        parent.beginTime = parent.convertTime(MediaClock.now(), from: nil) - paused
        #expect(abs(l.presentation().position.x - 30) < 1e-9)
        MediaClock.set(s.t0 + 5.2)
        #expect(abs(l.presentation().position.x - 50) < 1e-9)
    }

    @Test("callbacks: didStart and didStop(finished) on the main actor; removing stops unfinished; completion blocks")
    func callbacks() throws {
        let s = try AnimationStage()
        defer { s.close() }
        let l = solid(Rect(x: 0, y: 0, width: 10, height: 10), .red)
        s.root.addSublayer(l)
        try s.frame(at: 0)
        final class Log { var events: [String] = [] }
        let log = Log()
        var a = BasicAnimation(keyPath: "opacity")
        a.toValue = .number(0)
        a.duration = 1
        a.didStart = { log.events.append("start") }
        a.didStop = { log.events.append("stop \($0)") }
        Transaction.begin()
        Transaction.setCompletionBlock { log.events.append("completion") }
        l.add(a, forKey: "a")
        var b = a
        b.didStart = nil
        b.didStop = { log.events.append("b stop \($0)") }
        l.add(b, forKey: "b")
        try Transaction.commit()
        #expect(log.events == ["start"])
        try s.frame(at: 0.5)
        l.removeAnimation(forKey: "b")
        try s.frame(at: 0.6)
        #expect(log.events == ["start", "b stop false"])
        try s.frame(at: 1.1)
        #expect(log.events == ["start", "b stop false", "stop true", "completion"])
        #expect(l.animationKeys().isEmpty)
    }

    @Test("key paths: transform.rotation.z by 350° goes the long way; keyframes (linear, discrete) and springs")
    func keyPathsKeyframesSprings() throws {
        let s = try AnimationStage()
        defer { s.close() }
        let l = solid(Rect(x: 0, y: 0, width: 10, height: 10), .red)
        s.root.addSublayer(l)
        try s.frame(at: 0)
        var r = BasicAnimation(keyPath: "transform.rotation.z")
        r.fromValue = .number(0)
        r.toValue = .number(350 * Double.pi / 180)
        r.duration = 1
        r.beginTime = s.t0
        l.add(r, forKey: "r")
        MediaClock.set(s.t0 + 0.5)
        let angle = atan2(l.presentation().transform.m12, l.presentation().transform.m11) * 180 / Double.pi
        #expect(abs(angle - 175) < 1e-6, "175° half way: \(angle)")
        l.removeAllAnimations()
        // The matrix form goes the short way (−5° half way), as on Apple's platforms.
        var m = BasicAnimation(keyPath: "transform")
        m.fromValue = .transform(.identity)
        m.toValue = .transform(Transform3D(rotationAngle: 350 * Double.pi / 180, x: 0, y: 0, z: 1))
        m.duration = 1
        m.beginTime = s.t0
        l.add(m, forKey: "m")
        let shown = l.presentation().transform
        #expect(abs(atan2(shown.m12, shown.m11) * 180 / Double.pi + 5) < 1e-6)
        // Keyframes of transforms interpolate their decompositions: a quarter turn, then a
        // half, read a third of a turn two thirds of the way through the first segment.
        var kt = KeyframeAnimation(keyPath: "transform")
        kt.values = [.transform(.identity), .transform(Transform3D(rotationAngle: Double.pi / 2, x: 0, y: 0, z: 1)),
                     .transform(Transform3D(rotationAngle: Double.pi, x: 0, y: 0, z: 1))]
        kt.duration = 1
        kt.beginTime = s.t0
        l.add(kt, forKey: "m")
        MediaClock.set(s.t0 + 1.0 / 3)
        let k3 = l.presentation().transform
        #expect(abs(atan2(k3.m12, k3.m11) - Double.pi / 3) < 1e-6 && abs(k3.m11 * k3.m11 + k3.m12 * k3.m12 - 1) < 1e-9,
                "a rotation, not a shrunken matrix: \(k3)")
        l.removeAllAnimations()

        var k = KeyframeAnimation(keyPath: "position")
        k.values = [.point(Point(x: 0, y: 0)), .point(Point(x: 100, y: 0)), .point(Point(x: 100, y: 50))]
        k.keyTimes = [0, 0.8, 1]
        k.duration = 1
        k.beginTime = s.t0
        l.add(k, forKey: "k")
        MediaClock.set(s.t0 + 0.4)
        #expect(abs(l.presentation().position.x - 50) < 1e-9 && l.presentation().position.y == 0)
        MediaClock.set(s.t0 + 0.9)
        #expect(abs(l.presentation().position.y - 25) < 1e-9)
        k.calculationMode = .discrete
        l.add(k, forKey: "k")
        MediaClock.set(s.t0 + 0.4)
        #expect(l.presentation().position == Point(x: 0, y: 0))
        l.removeAllAnimations()

        var spring = SpringAnimation(keyPath: "position.x")
        spring.fromValue = .number(0)
        spring.toValue = .number(100)
        spring.beginTime = s.t0
        spring.duration = spring.settlingDuration   // (run to rest; without a duration it is cut at 0.25 s)
        l.add(spring, forKey: "s")
        let solver = SpringSolver(mass: 1, stiffness: 100, damping: 10, initialVelocity: 0)
        for t in [0.1, 0.3, 0.6, 1.0] {
            MediaClock.set(s.t0 + t)
            #expect(abs(l.presentation().position.x - 100 * solver.value(at: t)) < 1e-6)
        }
        #expect(l.animation(forKey: "s")?.duration == spring.settlingDuration, "the animation as added")
        // Without a duration: the transaction's (0.25 s), as CALayer.add gives it.
        var cut = spring
        cut.duration = 0
        l.add(cut, forKey: "s")
        #expect(l.animation(forKey: "s")?.duration == 0.25)
    }

    @Test("a cumulative transform in its millionth repetition is cheap; a group's member holds its end by its fill mode; layers outside rendered trees neither start nor keep the frame clock running")
    func reviewCases() throws {
        let s = try AnimationStage()
        defer { s.close() }
        let l = solid(Rect(x: 0, y: 0, width: 10, height: 10), .red)
        s.root.addSublayer(l)
        try s.frame(at: 0)
        var spin = BasicAnimation(keyPath: "transform")
        spin.byValue = .transform(Transform3D(rotationAngle: Double.pi / 2, x: 0, y: 0, z: 1))
        spin.isCumulative = true
        spin.duration = 1e-6
        spin.repeatCount = .infinity
        spin.beginTime = s.t0
        l.add(spin, forKey: "spin")
        MediaClock.set(s.t0 + 1.000_000_25)   // 1 000 000 whole repetitions (a multiple of 4 quarter turns) + a quarter
        let started = ContinuousClock.now
        let shown = l.presentation().transform
        #expect(ContinuousClock.now - started < .milliseconds(50))
        #expect(abs(atan2(shown.m12, shown.m11) - Double.pi / 8) < 1e-3, "\(shown)")
        l.removeAllAnimations()

        var member = BasicAnimation(keyPath: "position.x")
        member.fromValue = .number(0)
        member.toValue = .number(100)
        member.duration = 0.5
        member.fillMode = .forwards          // its isRemovedOnCompletion stays true: the group decides
        var group = AnimationGroup([member])
        group.duration = 1
        group.beginTime = s.t0
        l.add(group, forKey: "g")
        MediaClock.set(s.t0 + 0.75)
        #expect(l.presentation().position.x == 100)
        l.removeAllAnimations()

        // Outside every rendered tree: no start, and no frame clock for it.
        let loose = Layer()
        var a = BasicAnimation(keyPath: "opacity")
        a.toValue = .number(0)
        a.duration = 10
        final class Flag { var started = false }
        let flag = Flag()
        a.didStart = { flag.started = true }
        loose.add(a, forKey: "o")
        try s.frame(at: 1)
        #expect(!flag.started && !TransactionContext.current.animationsInFlight)
        s.root.addSublayer(loose)
        try s.frame(at: 1.1)
        #expect(flag.started && TransactionContext.current.animationsInFlight)
        loose.removeFromSuperlayer()
        try s.frame(at: 1.2)
        #expect(!TransactionContext.current.animationsInFlight)
    }

    @Test("an animation of a key path that cannot animate is refused with a warning")
    func unknownKeyPath() throws {
        let l = Layer()
        var warnings: [TransactionWarning] = []
        let saved = Transaction.warningHandler
        Transaction.warningHandler = { warnings.append($0) }
        defer { Transaction.warningHandler = saved }
        l.add(BasicAnimation(keyPath: "frame.wobble"), forKey: "w")
        #expect(l.animationKeys().isEmpty)
        #expect(warnings.count == 1 && "\(warnings[0])".contains("frame.wobble"))
    }
}

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


/// The largest channel difference between `image` and a static tree built by `build`
/// (in a 200×200 root, over white), rendered without animations.
@MainActor
private func differenceFromStatic(_ image: RGBAImage, _ build: (Layer) -> Void) throws -> Int {
    let root = rootLayer()
    build(root)
    let (expected, _) = try render(root, background: .white)
    return image.difference(from: expected, tolerance: 0).maxDifference
}

/// An animation of `keyPath` from `from` to `to`, linear, `duration` seconds, beginning at
/// `begin` (the layer's time).
private func basic(_ keyPath: String, _ from: AnimationValue?, _ to: AnimationValue?, duration: Double = 1,
                   begin: Double) -> BasicAnimation {
    var a = BasicAnimation(keyPath: keyPath)
    a.fromValue = from
    a.toValue = to
    a.duration = duration
    a.beginTime = begin
    return a
}

/// Catmull-Rom through evenly spaced `p` (the end values their own missing neighbours), at
/// progress `x` — worked out from the textbook form, independently of KeyframeMath.
private func catmullRom(_ p: [Double], _ x: Double) -> Double {
    let segments = Double(p.count - 1)
    let i = min(Int(x * segments), p.count - 2)
    let s = x * segments - Double(i)
    let p0 = p[max(i - 1, 0)], p1 = p[i], p2 = p[i + 1], p3 = p[min(i + 2, p.count - 1)]
    return 0.5 * (2 * p1 + (p2 - p0) * s + (2 * p0 - 5 * p1 + 4 * p2 - p3) * s * s + (3 * p1 - p0 - 3 * p2 + p3) * s * s * s)
}

@MainActor
@Suite("Animation timing", .isolatedTransactions)
struct AnimationTimingTests {
    @Test("additive animations add to the model and to each other in the order added; a non-additive one replaces what is below it")
    func additive() throws {
        let s = try AnimationStage()
        defer { s.close() }
        let l = solid(Rect(x: 40, y: 40, width: 20, height: 20), .red)   // position (50, 50)
        s.root.addSublayer(l)
        try s.frame(at: 0)
        var a = basic("position", .point(Point(x: 0, y: 0)), .point(Point(x: 100, y: 0)), begin: s.t0)
        a.isAdditive = true
        var b = basic("position", .point(Point(x: 0, y: 0)), .point(Point(x: 0, y: 40)), duration: 2, begin: s.t0)
        b.isAdditive = true
        l.add(a, forKey: "a")
        l.add(b, forKey: "b")
        for dt in [0.25, 0.5, 0.9] {
            let p = s.presented(l, at: dt).position
            #expect(abs(p.x - (50 + 100 * dt)) < 1e-9 && abs(p.y - (50 + 20 * dt)) < 1e-9, "at \(dt): \(p)")
        }
        // The renderer sums them too: the frame equals a static layer at (100, 60).
        let image = try s.frame(at: 0.5)
        #expect(try differenceFromStatic(image) { $0.addSublayer(solid(Rect(x: 90, y: 50, width: 20, height: 20), .red)) } == 0)
        // `a` ended: `b` alone over the model.
        try s.frame(at: 1.5)
        #expect(abs(s.presented(l, at: 1.5).position.y - 80) < 1e-9 && s.presented(l, at: 1.5).position.x == 50)
        l.removeAllAnimations()

        // Order: an additive x offset over a non-additive x animation adds to it; the other
        // way round the non-additive one wins.
        let absolute = basic("position.x", .number(0), .number(100), begin: s.t0 + 2)
        var offset = basic("position.x", .number(0), .number(10), begin: s.t0 + 2)
        offset.isAdditive = true
        l.add(absolute, forKey: "absolute")
        l.add(offset, forKey: "offset")
        #expect(abs(s.presented(l, at: 2.5).position.x - 55) < 1e-9)
        l.removeAllAnimations()
        l.add(offset, forKey: "offset")
        l.add(absolute, forKey: "absolute")
        #expect(abs(s.presented(l, at: 2.5).position.x - 50) < 1e-9)
        l.removeAllAnimations()

        // Additive rotations: the model's angle plus both animations'. (The model's change
        // itself not animated: a standalone layer's change would run an implicit animation.)
        Transaction.begin()
        Transaction.setDisableActions(true)
        l.transform = Transform3D(rotationAngle: 0.1, x: 0, y: 0, z: 1)
        try Transaction.commit()
        #expect(l.animationKeys().isEmpty)
        var r1 = basic("transform.rotation.z", .number(0), .number(Double.pi / 4), begin: s.t0 + 3)
        r1.isAdditive = true
        var r2 = basic("transform.rotation.z", .number(0), .number(Double.pi / 8), begin: s.t0 + 3)
        r2.isAdditive = true
        l.add(r1, forKey: "r1")
        l.add(r2, forKey: "r2")
        let t = s.presented(l, at: 3.5).transform
        #expect(abs(atan2(t.m12, t.m11) - (0.1 + 0.5 * (Double.pi / 4 + Double.pi / 8))) < 1e-9)
    }

    @Test("cumulative: each repetition continues from where the previous one ended (basic and keyframe); not without isCumulative")
    func cumulative() throws {
        let s = try AnimationStage()
        defer { s.close() }
        let l = solid(Rect(x: 0, y: 0, width: 10, height: 10), .red)   // model x 5
        s.root.addSublayer(l)
        try s.frame(at: 0)
        var a = basic("position.x", .number(0), .number(10), begin: s.t0)
        a.repeatCount = 3
        a.isCumulative = true
        a.fillMode = .forwards
        a.isRemovedOnCompletion = false
        l.add(a, forKey: "x")
        for (dt, x) in [(0.5, 5.0), (1.5, 15.0), (2.25, 22.5), (2.5, 25.0), (3.5, 30.0), (10, 30.0)] {
            #expect(abs(s.presented(l, at: dt).position.x - x) < 1e-9, "at \(dt)")
        }
        a.isCumulative = false
        l.add(a, forKey: "x")
        #expect(abs(s.presented(l, at: 1.5).position.x - 5) < 1e-9 && abs(s.presented(l, at: 3.5).position.x - 10) < 1e-9)

        // Keyframes 0 → 20 → 10: each repetition adds 10 (last − first).
        var k = KeyframeAnimation(keyPath: "position.x")
        k.values = [.number(0), .number(20), .number(10)]
        k.duration = 1
        k.beginTime = s.t0
        k.repeatCount = 3
        k.isCumulative = true
        l.add(k, forKey: "x")
        for (dt, x) in [(0.25, 10.0), (1.25, 20.0), (1.75, 25.0), (2.75, 35.0)] {
            #expect(abs(s.presented(l, at: dt).position.x - x) < 1e-9, "at \(dt)")
        }
        // The renderer agrees: at 1.25 the square's left edge is at 15.
        let image = try s.frame(at: 1.25)
        #expect(try differenceFromStatic(image) { $0.addSublayer(solid(Rect(x: 15, y: 0, width: 10, height: 10), .red)) } == 0)
    }

    @Test("nested timing: an animation in a group with its own beginTime, speed and timeOffset, on a layer with speed 2, in a superlayer with a beginTime — values worked out by hand from t_local = (t_parent − beginTime)·speed + timeOffset")
    func nestedTimingHierarchy() throws {
        let s = try AnimationStage()
        defer { s.close() }
        // The superlayer's time: T − 990. The layer's: 2·(T − 990).
        let superlayer = Layer()
        superlayer.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        superlayer.beginTime = 990
        let l = solid(Rect(x: 145, y: 95, width: 10, height: 10), .red)   // model position (150, 100)
        l.speed = 2
        superlayer.addSublayer(l)
        s.root.addSublayer(superlayer)
        try s.frame(at: 0)
        #expect(abs(l.convertTime(1000, from: nil) - 20) < 1e-9)
        #expect(abs(l.convertTime(21, to: nil) - 1000.5) < 1e-9)
        #expect(abs(superlayer.convertTime(21, from: l) - 10.5) < 1e-9)

        // The group: begins at the layer's time 21 (media 1000.5), runs at half speed for 4 s
        // of its own time (8 s of the layer's, 4 s of media time), starting 2 s in and
        // wrapping round: group time g = wrap((t_L − 21)·0.5 + 2, 4).
        let x = basic("position.x", .number(0), .number(100), duration: 2, begin: 0.5)
        var fade = basic("opacity", .number(0.2), .number(1), duration: 2, begin: 0.5)
        fade.fillMode = .backwards
        var group = AnimationGroup([x, fade])
        group.beginTime = 21
        group.speed = 0.5
        group.timeOffset = 2
        group.duration = 4
        l.add(group, forKey: "g")

        // Worked out by hand (media time T − 1000 → t_L → g → member time m = g − 0.5):
        let table: [(dt: Double, x: Double, opacity: Double)] = [
            (0.25, 150, 1),      // t_L 20.5: the group has not begun (no fill): the model
            (0.5, 75, 0.8),      // t_L 21, g = 2: m = 1.5
            (0.75, 87.5, 0.9),   // t_L 21.5, g = 2.25: m = 1.75
            (1.0, 150, 1),       // g = 2.5: m = 2, the members have ended (removed)
            (2.0, 150, 1),       // g = 3.5
            (2.75, 150, 0.2),    // t_L 25.5, g = 4.25 → 0.25 (wrapped): m = −0.25, before: the fade fills backwards
            (3.0, 0, 0.2),       // g = 0.5: m = 0
            (3.5, 25, 0.4),      // g = 1: m = 0.5
            (4.0, 50, 0.6),      // g = 1.5: m = 1
            (4.4, 70, 0.76),     // t_L 28.8, g = 1.9: m = 1.4
            (4.5, 150, 1),       // t_L 29: the group's 4 s are over (8 s of the layer's time)
        ]
        for row in table {
            let p = s.presented(l, at: row.dt)
            #expect(abs(p.position.x - row.x) < 1e-9 && abs(p.opacity - row.opacity) < 1e-9,
                    "at +\(row.dt): x \(p.position.x), opacity \(p.opacity); expected \(row.x), \(row.opacity)")
        }
        // The renderer works out the same times: frames equal the static layer at those values.
        for row in table where [0.75, 2.75, 4.0, 4.5].contains(row.dt) {
            let image = try s.frame(at: row.dt)
            let d = try differenceFromStatic(image) { root in
                let still = solid(Rect(x: row.x - 5, y: 95, width: 10, height: 10), .red)
                still.opacity = row.opacity
                root.addSublayer(still)
            }
            #expect(d <= 1, "frame at +\(row.dt): differs by \(d)")
        }
    }

    @Test("fill modes in a group: members fill inside the group (their isRemovedOnCompletion is ignored, as Core Animation's), the group's fill mode holds them before and after")
    func fillModesInGroups() throws {
        let s = try AnimationStage()
        defer { s.close() }
        let l = solid(Rect(x: 145, y: 145, width: 10, height: 10), .red)   // model position (150, 150), border 0
        s.root.addSublayer(l)
        try s.frame(at: 0)
        let removed = basic("position.x", .number(0), .number(100), begin: 0)
        var forwards = basic("position.y", .number(0), .number(100), begin: 0)
        forwards.fillMode = .forwards
        var backwards = basic("borderWidth", .number(2), .number(10), begin: 0.5)
        backwards.fillMode = .backwards
        var group = AnimationGroup([removed, forwards, backwards])
        group.duration = 2
        group.beginTime = s.t0 + 1
        group.fillMode = .both
        group.isRemovedOnCompletion = false
        l.add(group, forKey: "g")
        let table: [(dt: Double, x: Double, y: Double, border: Double)] = [
            (0.5, 0, 0, 2),        // before the group: its backwards fill shows its time 0
            (1.5, 50, 50, 2),      // group time 0.5
            (2.25, 150, 100, 8),   // 1.25: the first member has ended; the second holds its end
            (3.5, 150, 100, 0),    // after the group: its forwards fill holds its time 2
        ]
        for row in table {
            let p = s.presented(l, at: row.dt)
            #expect(abs(p.position.x - row.x) < 1e-9 && abs(p.position.y - row.y) < 1e-9 && abs(p.borderWidth - row.border) < 1e-9,
                    "at +\(row.dt): (\(p.position.x), \(p.position.y)) border \(p.borderWidth)")
        }
        try s.frame(at: 3.5)
        #expect(l.animationKeys() == ["g"], "not removed on completion")
        // Without a fill mode of its own the group shows nothing outside its time.
        group.fillMode = .removed
        l.add(group, forKey: "g")
        #expect(s.presented(l, at: 0.5).position == Point(x: 150, y: 150))
        #expect(s.presented(l, at: 3.5).position == Point(x: 150, y: 150))
        #expect(s.presented(l, at: 2.25).position == Point(x: 150, y: 100))
    }

    @Test("keyframe calculation modes through a layer: paced moves at constant speed (key times ignored), cubic is Catmull-Rom through the values")
    func keyframeModes() throws {
        let s = try AnimationStage()
        defer { s.close() }
        let l = solid(Rect(x: 0, y: 0, width: 10, height: 10), .red)
        s.root.addSublayer(l)
        try s.frame(at: 0)
        // Paced: 30 pt right, then 40 pt down (70 in all) in 1 s.
        var k = KeyframeAnimation(keyPath: "position")
        k.values = [.point(Point(x: 20, y: 20)), .point(Point(x: 50, y: 20)), .point(Point(x: 50, y: 60))]
        k.keyTimes = [0, 0.9, 1]
        k.calculationMode = .paced
        k.duration = 1
        k.beginTime = s.t0
        l.add(k, forKey: "k")
        for (dt, p) in [(0.2, Point(x: 34, y: 20)), (3.0 / 7, Point(x: 50, y: 20)), (0.5, Point(x: 50, y: 25)), (0.9, Point(x: 50, y: 53))] {
            let shown = s.presented(l, at: dt).position
            #expect(abs(shown.x - p.x) < 1e-9 && abs(shown.y - p.y) < 1e-9, "paced at \(dt): \(shown)")
        }
        let image = try s.frame(at: 0.5)
        #expect(try differenceFromStatic(image) { $0.addSublayer(solid(Rect(x: 45, y: 20, width: 10, height: 10), .red)) } == 0)
        // Linear with the same key times: 90 % of the time for the first segment.
        k.calculationMode = .linear
        l.add(k, forKey: "k")
        #expect(abs(s.presented(l, at: 0.45).position.x - 35) < 1e-9)

        // Cubic: through every value at its key time, curving between them.
        let xs = [0.0, 100, 40, 80]
        var c = KeyframeAnimation(keyPath: "position.x")
        c.values = xs.map { .number($0) }
        c.calculationMode = .cubic
        c.duration = 3
        c.beginTime = s.t0 + 2
        l.add(c, forKey: "k")
        for x in (0..<12).map({ Double($0) / 12 }) {
            let shown = s.presented(l, at: 2 + 3 * x).position.x
            #expect(abs(shown - catmullRom(xs, x)) < 1e-9, "cubic at \(x): \(shown) vs \(catmullRom(xs, x))")
        }
        #expect(abs(catmullRom(xs, 0.5) - 73.75) < 1e-12, "the hand-worked middle of the second segment")
        #expect(abs(s.presented(l, at: 3).position.x - 100) < 1e-9 && abs(s.presented(l, at: 4).position.x - 40) < 1e-9)
        let cubicFrame = try s.frame(at: 3.5)
        #expect(try differenceFromStatic(cubicFrame) { $0.addSublayer(solid(Rect(x: 73.75 - 5, y: 0, width: 10, height: 10), .red)) } <= 1)
    }

    @Test("springs follow the analytic damped oscillator (under-, critically and over-damped, with an initial velocity) and end when settled")
    func springsAgainstAnalyticSolution() throws {
        let s = try AnimationStage()
        defer { s.close() }
        let l = solid(Rect(x: 0, y: 0, width: 10, height: 10), .red)
        s.root.addSublayer(l)
        try s.frame(at: 0)
        let cases: [(m: Double, k: Double, c: Double, v0: Double)] = [(2, 300, 12, 3), (1, 100, 20, -2), (1, 100, 50, 0)]
        var start = 1.0
        for (m, k, c, v0) in cases {
            var spring = SpringAnimation(keyPath: "position.x")
            spring.fromValue = .number(20)
            spring.toValue = .number(120)
            spring.mass = m
            spring.stiffness = k
            spring.damping = c
            spring.initialVelocity = v0
            spring.duration = spring.settlingDuration   // (to rest: without a duration it would be cut at 0.25 s)
            l.add(spring, forKey: "s")     // begins at the commit
            try s.frame(at: start)
            // x(t) = 1 − e^{−αt}(cos ωt + (α − v₀)/ω · sin ωt), α = c/2m, ω = √(k/m − α²);
            // the limits ω → 0 (critical) and ω imaginary (cosh, sinh) for the others.
            let alpha = c / (2 * m), w0sq = k / m
            func fraction(_ t: Double) -> Double {
                let e = exp(-alpha * t)
                if alpha * alpha < w0sq {
                    let w = (w0sq - alpha * alpha).squareRoot()
                    return 1 - e * (cos(w * t) + (alpha - v0) / w * sin(w * t))
                } else if alpha * alpha == w0sq {
                    return 1 - e * (1 + (alpha - v0) * t)
                } else {
                    let g = (alpha * alpha - w0sq).squareRoot()
                    return 1 - e * (cosh(g * t) + (alpha - v0) / g * sinh(g * t))
                }
            }
            let settle = spring.settlingDuration
            for i in 1..<40 {
                let t = settle * Double(i) / 40
                let shown = s.presented(l, at: start + t).position.x
                #expect(abs(shown - (20 + 100 * fraction(t))) < 1e-6, "m \(m) k \(k) c \(c) v₀ \(v0) at \(t): \(shown)")
            }
            #expect(abs(fraction(settle) - 1) < 0.0011, "settled within 0.1 % of the distance")
            try s.frame(at: start + settle + 0.001)
            #expect(l.animationKeys().isEmpty, "ended after its settling duration")
            start += settle + 1
        }
        // Under-damped overshoots; the others do not.
        #expect(SpringSolver(mass: 2, stiffness: 300, damping: 12, initialVelocity: 0).value(at: 0.25) > 1)
    }

    @Test("removing an animation mid-flight shows the model again at the next frame")
    func removalAloneShowsTheModel() throws {
        let s = try AnimationStage()
        defer { s.close() }
        let l = solid(Rect(x: 10, y: 10, width: 30, height: 30), .red)
        s.root.addSublayer(l)
        try s.frame(at: 0)
        var move = BasicAnimation(keyPath: "position")
        move.toValue = .point(Point(x: 100, y: 70))
        move.duration = 1
        l.add(move, forKey: "move")
        try s.frame(at: 0)
        let mid = try s.frame(at: 0.5)
        #expect(mid[25, 25] == white && mid[62, 47] == red, "half way")
        l.removeAnimation(forKey: "move")
        let after = try s.frame(at: 0.5)
        #expect(l.presentation().position == Point(x: 25, y: 25), "the model knows")
        #expect(after[25, 25] == red, "the model position shows again")
        #expect(after[62, 47] == white, "nothing left at the presented position: \(s.host.lastFrame)")
    }

    @Test("1000 frames of random animations (explicit, implicit, groups, keyframes, springs, contents cross-fades, transitions, paused layers): the damage-limited target equals a full recomposite, every changed pixel is inside the damage, and frames that only advance time draw and upload nothing")
    func randomAnimationFrames() throws {
        MediaClock.set(5000)
        defer { MediaClock.set(nil) }
        // (Transitions show the old picture the renderer captured when they were added.)
        let rig = try DamageRig(reference: .rebuilt)
        defer { rig.close() }
        let root = rig.root
        // Another sequence: LAMINA_ANIMATION_FUZZ_SEED=<non-zero integer>.
        let seed = ProcessInfo.processInfo.environment["LAMINA_ANIMATION_FUZZ_SEED"].flatMap { UInt64($0) }.flatMap { $0 == 0 ? nil : $0 }
        var random = TestRandom(state: seed ?? 0x2545_F491_4F6C_DD1D)
        var image = RGBAImage(width: 6, height: 6)
        for y in 0..<6 { for x in 0..<6 { image[x, y] = (x + y) % 2 == 0 ? RGBAPixel(r: 200, g: 60, b: 40, a: 255) : RGBAPixel(r: 20, g: 20, b: 90, a: 255) } }
        let content = ContentImage(image)
        let content2 = ContentImage(RGBAImage(width: 5, height: 7, fill: RGBAPixel(r: 0, g: 90, b: 160, a: 160)))
        final class Drawn: Layer {
            override func draw(in ctx: GraphicsContext) {
                ctx.setFillColor(Color(red: 0.2, green: 0.6, blue: 0.3))
                ctx.fillEllipse(in: bounds)
            }
        }
        func randomColor() -> Color {
            Color(red: random.double(0, 1), green: random.double(0, 1), blue: random.double(0, 1), alpha: random.chance(0.3) ? 0.6 : 1)
        }
        func randomPoint(in parent: Layer) -> Point {
            Point(x: random.double(-0.1, 1.1) * parent.bounds.width, y: random.double(-0.1, 1.1) * parent.bounds.height)
        }
        var layers: [Layer] = []
        for i in 0..<16 {
            let parent = i < 6 || random.chance(0.4) ? root : layers[random.int(layers.count)]
            let l: Layer = random.chance(0.15) ? Drawn() : Layer()
            let p = parent.bounds.size
            l.frame = Rect(x: random.double(0, 0.7) * p.width, y: random.double(0, 0.7) * p.height,
                           width: random.double(0.2, 0.5) * p.width + 4, height: random.double(0.2, 0.5) * p.height + 4)
            if random.chance(0.8) { l.backgroundColor = randomColor() }
            if random.chance(0.25) { l.contents = .image(content) }
            if random.chance(0.3) { l.borderWidth = random.double(1, 3); l.borderColor = randomColor() }
            if random.chance(0.3) { l.cornerRadius = random.double(0, 8) }
            if random.chance(0.15) { l.masksToBounds = true }
            if random.chance(0.15) { l.opacity = 0.7 }     // a group (drawn offscreen) when it has sublayers
            l.setNeedsDisplay()
            parent.addSublayer(l)
            layers.append(l)
        }
        var now = 5000.0
        try Transaction.flush()

        func timed<A: Animation>(_ a: A, on l: Layer) -> A {
            var a = a
            a.duration = random.double(0.1, 1.2)
            if random.chance(0.3) { a.repeatCount = random.double(1, 3) }
            if random.chance(0.2) { a.autoreverses = true }
            if random.chance(0.5) { a.timingFunction = [TimingFunction.linear, .easeIn, .easeOut, .easeInEaseOut, .default][random.int(5)] }
            if random.chance(0.2) {
                a.beginTime = l.convertTime(now, from: nil) + random.double(0, 0.5)
                a.fillMode = [.backwards, .both][random.int(2)]
            }
            if random.chance(0.15) { a.fillMode = .forwards; a.isRemovedOnCompletion = false }
            if random.chance(0.1) { a.speed = random.double(0.5, 2) }
            if random.chance(0.1) { a.timeOffset = random.double(0, 0.5) }
            return a
        }
        func randomMember(for l: Layer) -> any Animation {
            let parent = l.superlayer ?? root
            switch random.int(11) {
            case 0:
                var a = BasicAnimation(keyPath: "position")
                if random.chance(0.5) { a.fromValue = .point(randomPoint(in: parent)) }
                a.toValue = .point(randomPoint(in: parent))
                return timed(a, on: l)
            case 1:
                var a = BasicAnimation(keyPath: random.chance(0.5) ? "position.x" : "position.y")
                a.byValue = .number(random.double(-30, 30))
                a.isAdditive = random.chance(0.5)
                a.isCumulative = random.chance(0.3)
                return timed(a, on: l)
            case 2:
                var a = BasicAnimation(keyPath: "opacity")
                a.fromValue = .number(random.double(0, 1))
                a.toValue = .number(random.double(0, 1))
                return timed(a, on: l)
            case 3:
                var a = BasicAnimation(keyPath: random.chance(0.5) ? "backgroundColor" : "borderColor")
                a.toValue = .color(random.chance(0.1) ? nil : randomColor())
                return timed(a, on: l)
            case 4:
                let paths = ["transform.rotation.z", "transform.scale", "transform.rotation.y", "transform.translation.x", "sublayerTransform.rotation.z"]
                var a = BasicAnimation(keyPath: paths[random.int(paths.count)])
                a.fromValue = .number(random.double(-1, 1))
                a.toValue = .number(random.double(-1.5, 1.5))
                a.isAdditive = random.chance(0.3)
                return timed(a, on: l)
            case 5:
                let paths = ["bounds.size", "cornerRadius", "borderWidth", "zPosition", "contentsRect", "anchorPoint"]
                let path = paths[random.int(paths.count)]
                var a = BasicAnimation(keyPath: path)
                switch path {
                case "bounds.size": a.toValue = .size(Size(width: random.double(2, 60), height: random.double(2, 50)))
                case "contentsRect": a.toValue = .rect(Rect(x: random.double(0, 0.5), y: random.double(0, 0.5), width: 0.5, height: 0.5))
                case "anchorPoint": a.toValue = .point(Point(x: random.double(0, 1), y: random.double(0, 1)))
                case "zPosition": a.toValue = .number(Double(random.int(3)))
                default: a.toValue = .number(random.double(0, 8))
                }
                return timed(a, on: l)
            case 6:
                var k = KeyframeAnimation(keyPath: "position")
                k.values = (0..<(2 + random.int(4))).map { _ in .point(randomPoint(in: parent)) }
                k.calculationMode = CalculationMode.allCases[random.int(CalculationMode.allCases.count)]
                k.isCumulative = random.chance(0.2)
                return timed(k, on: l)
            case 7:
                var k = KeyframeAnimation(keyPath: "transform")
                k.values = (0..<3).map { _ in .transform(Transform3D(rotationAngle: random.double(-2, 2), x: 0, y: 0, z: 1)
                                                            .concatenating(Transform3D(scaleX: random.double(0.5, 1.5), y: random.double(0.5, 1.5)))) }
                k.calculationMode = [.linear, .discrete, .cubic][random.int(3)]
                return timed(k, on: l)
            case 9:
                // A contents cross-fade (from, to: an image, none, or the model's).
                var a = BasicAnimation(keyPath: "contents")
                let images: [AnimationValue?] = [.image(content), .image(content2), .contents(nil), nil]
                a.fromValue = images[random.int(4)]
                a.toValue = images[random.int(4)]
                return timed(a, on: l)
            case 10:
                // A transition with a change of the layer in the same transaction.
                let t = timed(TransitionAnimation(), on: l)
                Transaction.setDisableActions(true)
                if random.chance(0.5) { l.backgroundColor = randomColor() } else { l.contents = random.chance(0.5) ? .image(content2) : nil }
                return t
            default:
                var sp = SpringAnimation(keyPath: random.chance(0.5) ? "position.x" : "transform.scale")
                sp.byValue = .number(random.double(-20, 20) / (sp.keyPath == "position.x" ? 1 : 40))
                sp.damping = random.double(2, 20)
                sp.stiffness = random.double(50, 400)
                sp.initialVelocity = random.double(-2, 2)
                if random.chance(0.5) { sp.duration = random.double(0.2, 1.5) }
                if random.chance(0.2) { sp.beginTime = l.convertTime(now, from: nil) + random.double(0, 0.3); sp.fillMode = .backwards }
                return sp
            }
        }

        try rig.settle()
        var timeOnly = 0, added = 0, implicit = 0
        var timeOnlyWork = 0
        for frame in 0..<1000 {
            now += random.chance(0.1) ? random.double(0.1, 0.4) : 1.0 / 60
            MediaClock.set(now)
            var changedModel = false
            if random.chance(0.45) {
                let l = layers[random.int(layers.count)]
                let action = random.int(12)
                switch action {
                case 0...4:
                    var a: any Animation = randomMember(for: l)
                    if random.chance(0.15) {
                        var g = AnimationGroup((0..<(1 + random.int(3))).map { _ in randomMember(for: l) })
                        g.duration = random.double(0.3, 1.5)
                        if random.chance(0.3) { g.fillMode = .both; g.isRemovedOnCompletion = false }
                        if random.chance(0.2) { g.speed = random.double(0.5, 2) }
                        a = g
                    }
                    l.add(a, forKey: ["a", "b", "c", nil][random.int(4)])
                    added += 1
                case 5, 6:
                    // Implicit animations: a standalone layer of a rendered tree (the settings
                    // of this frame's implicit transaction: no commit before the flush).
                    Transaction.setAnimationDuration(random.double(0.1, 0.8))
                    switch random.int(6) {
                    case 5: l.contents = .image(random.chance(0.5) ? content : content2)
                    case 0: l.position = randomPoint(in: l.superlayer ?? root)
                    case 1: l.opacity = random.double(0.2, 1)
                    case 2: l.backgroundColor = randomColor()
                    case 3: l.transform = Transform3D(rotationAngle: random.double(-1, 1), x: 0, y: 0, z: 1)
                    default: l.bounds.size = Size(width: random.double(4, 50), height: random.double(4, 40))
                    }
                    implicit += 1
                case 7, 11:
                    // A removal — alone, or with a change of the layer's model in the same frame.
                    if action == 7, let key = l.animationKeys().randomElement(using: &random) { l.removeAnimation(forKey: key) } else { l.removeAllAnimations() }
                    if random.chance(0.5) {
                        Transaction.setDisableActions(true)
                        l.position = randomPoint(in: l.superlayer ?? root)
                    }
                case 8:
                    // Pause the layer's time, or resume it.
                    if l.speed == 0 {
                        let paused = l.timeOffset
                        l.speed = 1
                        l.timeOffset = 0
                        l.beginTime = 0
                        l.beginTime = l.convertTime(now, from: nil) - paused
                    } else {
                        let t = l.convertTime(now, from: nil)
                        l.speed = 0
                        l.timeOffset = t
                    }
                case 9:
                    l.speed = random.chance(0.5) ? 1 : random.double(0.5, 2)
                case 10:
                    Transaction.setDisableActions(true)
                    l.position = randomPoint(in: l.superlayer ?? root)
                default:
                    break
                }
                changedModel = true
            }
            // The reference compositor works out the animations at this frame's time too.
            let stats = try rig.commitAndCheck("frame \(frame) at \(now)")
            if !changedModel {
                timeOnly += 1
                if stats.layersDrawn != 0 || stats.textureBytesUploaded != 0 { timeOnlyWork += 1 }
            }
        }
        let (partial, skipped) = (rig.partial, rig.skipped)
        #expect(timeOnlyWork == 0, "\(timeOnlyWork) of \(timeOnly) frames that only advanced the clock drew or uploaded")
        #expect(partial > 300, "\(partial) frames were damage-limited, \(skipped) skipped")
        #expect(added > 100 && implicit > 50)
        print("animation damage fuzz: \(added) animations added, \(implicit) implicit; \(partial) damage-limited frames, \(skipped) skipped, \(1000 - partial - skipped) full")
        for l in layers { l.removeAllAnimations() }
        try Transaction.flush()
        let c = rig.host.compositor
        let mixes = c.encoder.images.keys.filter { key in
            switch key {
            case .transitionMix, .contentsMix, .oldPicture: return true
            default: return false
            }
        }
        #expect(c.transitionPictures.isEmpty && c.transitionsSeen.isEmpty && mixes.isEmpty,
                "cross-fade images freed once no layer animates: \(c.transitionPictures.count) pictures, \(mixes) kept")
    }
}

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

/// Cross-fades: `contents` animations (explicit, implicit, keyframes) and transitions.
/// Mid-fade frames must equal the exact per-pixel mix (1 − f)·old + f·new of the two
/// static frames (compositing is affine in what is below, so mixing whole frames is the
/// same as mixing the layer) — two translucent draws would dip where both are opaque.
@MainActor
@Suite("Cross-fades", .isolatedTransactions, .withoutImplicitAnimations)
struct CrossFadeTests {
    /// An image of one colour (premultiplied RGBA).
    static func image(_ w: Int, _ h: Int, _ p: RGBAPixel) -> ContentImage {
        ContentImage(RGBAImage(width: w, height: h, fill: p))
    }

    /// Live textures and framebuffers (samplers are cached per filter: not counted).
    static func targets(_ counts: GPUObjectCounts) -> [Int] { [counts.counts[.texture] ?? 0, counts.counts[.framebuffer] ?? 0] }
    static func targets(_ device: GPUDevice) -> [Int] { targets(device.liveObjectCounts) }

    /// A frame made pixel by pixel.
    static func frame(_ width: Int, _ height: Int, _ pixel: (Int, Int) -> RGBAPixel) -> RGBAImage {
        var image = RGBAImage(width: width, height: height)
        for y in 0..<height { for x in 0..<width { image[x, y] = pixel(x, y) } }
        return image
    }

    /// The per-pixel mix of two frames.
    static func mix(_ a: RGBAImage, _ b: RGBAImage, _ f: Double) -> (Int, Int) -> RGBAPixel? {
        { x, y in
            let p = a[x, y], q = b[x, y]
            func m(_ u: UInt8, _ v: UInt8) -> UInt8 { UInt8((Double(u) * (1 - f) + Double(v) * f).rounded()) }
            return RGBAPixel(r: m(p.r, q.r), g: m(p.g, q.g), b: m(p.b, q.b), a: m(p.a, q.a))
        }
    }

    @Test("a contents animation cross-fades exactly: mid-fade frames are the per-pixel mix of the two static frames (translucent and opaque contents, different sizes)")
    func explicitContents() throws {
        let s = try AnimationStage()
        defer { s.close() }
        let red = Self.image(40, 40, px(255, 0, 0))
        let blue = Self.image(100, 60, px(0, 0, 128, 128))       // half-transparent blue, larger
        let l = Layer()
        l.frame = Rect(x: 40, y: 40, width: 120, height: 120)
        l.contentsGravity = .center
        l.backgroundColor = Color(red: 0, green: 1, blue: 0, alpha: 0.25)
        s.root.addSublayer(l)
        l.contents = .image(red)
        let old = try s.frame(at: 0)
        l.contents = .image(blue)
        let new = try s.frame(at: 0)
        #expect(old[100, 100] != new[100, 100] && old[60, 100] != new[60, 100])

        var a = BasicAnimation(keyPath: "contents")
        a.fromValue = .image(red)
        a.duration = 1
        l.add(a, forKey: "fade")
        try s.frame(at: 1)       // begins at t0 + 1
        for f in [0.0, 0.25, 0.5, 0.8] {
            let frame = try s.frame(at: 1 + f)
            let wrong = frame.mismatches(tolerance: 2, Self.mix(old, new, f))
            #expect(wrong.isEmpty, "f = \(f): \(wrong)")
            #expect(s.host.lastFrame.textureBytesUploaded == 0)
            if f > 0 { #expect(s.host.lastFrame.offscreenPasses == 1, "one mix") }
        }
        // The naive way (old at 1 − f over new at f) would be 0.25 darker where both are opaque:
        // the exact mix of opaque red and the half-blue-over-green-over-white is checked above.
        try s.frame(at: 2.1)
        #expect(l.animationKeys().isEmpty)
        #expect(try s.frame(at: 2.2).mismatches { new[$0, $1] }.isEmpty, "the model's contents again")
    }

    @Test("setting a standalone layer's contents cross-fades implicitly (0.25 s, default timing); the old image stays on the GPU only while it fades, mixes are freed at the end")
    func implicitContents() throws {
        let s = try AnimationStage()
        defer { s.close() }
        let a = Self.image(50, 50, px(255, 0, 0)), b = Self.image(50, 50, px(0, 0, 255))
        let l = Layer()
        l.frame = Rect(x: 10, y: 10, width: 50, height: 50)
        l.contents = .image(a)
        s.root.addSublayer(l)
        let old = try s.frame(at: 0)
        let textures = s.host.compositor.cachedTextureCount
        let live = s.device.liveObjectCounts
        withImplicitAnimations {
            l.contents = .image(b)
        }
        let fade = try #require(l.animation(forKey: "contents") as? BasicAnimation)
        #expect(fade.fromValue == .image(a) && fade.duration == 0.25 && fade.timingFunction == .default)
        try s.frame(at: 0)
        let f = TimingFunction.default.value(at: 0.5)
        let mid = try s.frame(at: 0.125)
        #expect(s.host.compositor.cachedTextureCount == textures + 1, "both images are on the GPU while fading")
        let expected = Self.frame(200, 200) { x, y in (10..<60).contains(x) && (10..<60).contains(y) ? blue : old[x, y] }
        #expect(mid.mismatches(tolerance: 2, Self.mix(old, expected, f)).isEmpty)
        try s.frame(at: 0.3)
        #expect(l.animationKeys().isEmpty)
        #expect(try s.frame(at: 0.35).mismatches { expected[$0, $1] }.isEmpty)
        #expect(s.host.compositor.cachedTextureCount == textures, "the old image's texture is freed")
        #expect(Self.targets(s.device) == Self.targets(live), "mix targets are freed: \(s.device.liveObjectCounts) vs \(live)")
    }

    @Test("a standalone layer redrawn in a rendered tree cross-fades from its old drawing (drawn whole into a new store, as Core Animation sets new contents); a view's layer redraws in place")
    func redrawCrossFades() throws {
        final class Painter: LayerDelegate {
            var color = Color.red
            func draw(_ layer: Layer, in context: GraphicsContext) {
                context.setFillColor(color)
                context.fill(Rect(x: 0, y: 0, width: 40, height: 40))
            }
        }
        let s = try AnimationStage()
        defer { s.close() }
        let painter = Painter()
        let l = Layer()
        l.frame = Rect(x: 20, y: 20, width: 40, height: 40)
        l.delegate = painter
        l.setNeedsDisplay()
        s.root.addSublayer(l)
        let old = try s.frame(at: 0)
        let firstStore = try #require(l.backingStore)
        painter.color = .blue
        try withImplicitAnimations {
            l.setNeedsDisplay(Rect(x: 0, y: 0, width: 10, height: 10))
            try s.frame(at: 0)
        }
        #expect(l.backingStore !== firstStore, "a new store")
        #expect(l.lastDisplay?.rect == l.bounds, "drawn whole")
        #expect(l.animation(forKey: "contents") != nil)
        let expected = Self.frame(200, 200) { x, y in (20..<60).contains(x) && (20..<60).contains(y) ? blue : old[x, y] }
        let mid = try s.frame(at: 0.125)
        let wrong = mid.mismatches(tolerance: 2, Self.mix(old, expected, TimingFunction.default.value(at: 0.5)))
        #expect(wrong.isEmpty, "\(wrong)")
        #expect(try s.frame(at: 0.3).mismatches { expected[$0, $1] }.isEmpty)
        // With actions off (a view's layer outside an animation block), the store is redrawn in place.
        let store = l.backingStore
        painter.color = .green
        l.setNeedsDisplay(Rect(x: 0, y: 0, width: 10, height: 10))
        try s.frame(at: 0.4)
        #expect(l.backingStore === store && l.lastDisplay?.rect == Rect(x: 0, y: 0, width: 10, height: 10))
        #expect(l.animation(forKey: "contents") == nil)
        // displayNow() shows the new drawing when it returns, actions or not: no cross-fade.
        painter.color = .red
        try withImplicitAnimations {
            try l.displayNow()
            try s.frame(at: 0.5)
        }
        #expect(l.animation(forKey: "contents") == nil && l.backingStore === store)
        #expect(try s.frame(at: 0.5)[30, 30] == red)
    }

    @Test("a discrete keyframe animation of contents is a flip-book; a linear one cross-fades between neighbours")
    func keyframeContents() throws {
        let s = try AnimationStage()
        defer { s.close() }
        let images = [px(255, 0, 0), px(0, 255, 0), px(0, 0, 255)].map { Self.image(20, 20, $0) }
        let l = Layer()
        l.frame = Rect(x: 0, y: 0, width: 20, height: 20)
        s.root.addSublayer(l)
        try s.frame(at: 0)
        var k = KeyframeAnimation(keyPath: "contents")
        k.values = images.map { .image($0) }
        k.calculationMode = .discrete
        k.duration = 3
        l.add(k, forKey: "flip")
        try s.frame(at: 0)
        #expect(try s.frame(at: 0.5)[10, 10] == red)
        #expect(try s.frame(at: 1.5)[10, 10] == green)
        #expect(try s.frame(at: 2.5)[10, 10] == blue)
        k.calculationMode = .linear
        k.duration = 2
        l.add(k, forKey: "flip")
        try s.frame(at: 3)
        let p = try s.frame(at: 3.5)[10, 10]          // halfway from red to green
        #expect(p.maxChannelDifference(px(128, 128, 0)) <= 2, "\(p)")
        let q = try s.frame(at: 4.75)[10, 10]         // three quarters from green to blue
        #expect(q.maxChannelDifference(px(0, 64, 191)) <= 2, "\(q)")
    }

    @Test("a fade transition shows the layer's old subtree cross-fading into its new one, exactly; no draw or upload while it runs; its pictures are freed after")
    func fadeTransition() throws {
        final class Painter: LayerDelegate {
            var draws = 0
            func draw(_ layer: Layer, in context: GraphicsContext) {
                draws += 1
                context.setFillColor(Color(red: 1, green: 0.5, blue: 0, alpha: 1))
                context.fill(Rect(x: 0, y: 0, width: 30, height: 30))
            }
        }
        let s = try AnimationStage()
        defer { s.close() }
        let container = Layer()
        container.frame = Rect(x: 20, y: 20, width: 160, height: 160)
        container.opacity = 0.9
        let painter = Painter()
        let drawn = Layer()
        drawn.frame = Rect(x: 100, y: 100, width: 30, height: 30)
        drawn.delegate = painter
        drawn.setNeedsDisplay()
        let a = solid(Rect(x: 0, y: 0, width: 80, height: 80), .red)
        let b = solid(Rect(x: 40, y: 40, width: 80, height: 80), Color(red: 0, green: 0, blue: 1, alpha: 0.5))
        container.addSublayer(a)
        container.addSublayer(drawn)
        s.root.addSublayer(container)
        let old = try s.frame(at: 0)
        let live = s.device.liveObjectCounts
        // The new state, for reference (then back).
        a.removeFromSuperlayer()
        container.addSublayer(b)
        let new = try s.frame(at: 0)
        b.removeFromSuperlayer()
        container.insertSublayer(a, at: 0)
        #expect(try s.frame(at: 0).mismatches { old[$0, $1] }.isEmpty)

        var t = TransitionAnimation(type: .fade)
        t.duration = 1
        container.add(t, forKey: nil)
        a.removeFromSuperlayer()
        container.addSublayer(b)
        #expect(container.animationKeys() == ["transition"])
        try s.frame(at: 1)
        for f in [0.0, 0.3, 0.5, 0.9] {
            let frame = try s.frame(at: 1 + f)
            let wrong = frame.mismatches(tolerance: 2, Self.mix(old, new, f))
            #expect(wrong.isEmpty, "f = \(f): \(wrong)")
            #expect(s.host.lastFrame.layersDrawn == 0 && s.host.lastFrame.textureBytesUploaded == 0)
            if f > 0 { #expect(s.host.lastFrame.offscreenPasses == 1, "the mix only: the new picture is kept") }
        }
        #expect(painter.draws == 1)
        try s.frame(at: 2.1)
        #expect(container.animationKeys().isEmpty)
        #expect(try s.frame(at: 2.2).mismatches { new[$0, $1] }.isEmpty)
        #expect(Self.targets(s.device) == Self.targets(live), "old picture and mixes freed: \(s.device.liveObjectCounts) vs \(live)")
    }

    /// The moving transitions (`push`, `moveIn`, `reveal`) from each side, at fixed
    /// progress: the frame equals the old and new frames' pictures of the layer, each moved
    /// by its share of the layer's width or height and laid over the rest in the kind's
    /// order — worked out here pixel by pixel from the two still frames. The host draws
    /// damage-limited frames, so a moved picture's old place must be redrawn too.
    nonisolated static let movingCases: [(TransitionAnimation.Kind, TransitionAnimation.Subtype)] =
        [TransitionAnimation.Kind.push, .moveIn, .reveal].flatMap { k in TransitionAnimation.Subtype.allCases.map { (k, $0) } }

    @Test("push, moveIn and reveal from each side: frames at fixed progress equal the still pictures moved by the layer's width or height, in the kind's order; nothing is drawn or uploaded",
          arguments: movingCases)
    func movingTransition(kind: TransitionAnimation.Kind, subtype: TransitionAnimation.Subtype) throws {
        let s = try AnimationStage()
        defer { s.close() }
        let container = Layer()
        let r = (x: 60, y: 70, w: 40, h: 40)
        container.frame = Rect(x: Double(r.x), y: Double(r.y), width: Double(r.w), height: Double(r.h))
        container.backgroundColor = .red
        let a = solid(Rect(x: 5, y: 5, width: 10, height: 10), .green)
        let b = solid(Rect(x: 20, y: 12, width: 15, height: 22), Color(red: 1, green: 1, blue: 0))
        container.addSublayer(a)
        s.root.addSublayer(container)
        let old = try s.frame(at: 0)
        func newState() { container.backgroundColor = .blue; a.removeFromSuperlayer(); container.addSublayer(b) }
        newState()
        let new = try s.frame(at: 0)
        container.backgroundColor = .red; b.removeFromSuperlayer(); container.addSublayer(a)
        #expect(try s.frame(at: 0).mismatches { old[$0, $1] }.isEmpty)

        var t = TransitionAnimation(type: kind, subtype: subtype)
        t.duration = 1
        t.timingFunction = .linear
        container.add(t, forKey: nil)
        newState()
        try s.frame(at: 1)
        let (dx, dy): (Int, Int) = switch subtype {
        case .fromLeft: (1, 0)
        case .fromRight: (-1, 0)
        case .fromTop: (0, 1)
        case .fromBottom: (0, -1)
        }
        let background = old[0, 0]
        for f in [0.25, 0.5, 0.75] {
            let frame = try s.frame(at: 1 + f)
            func shift(_ k: Double) -> (Int, Int) { (Int(Double(dx * r.w) * k), Int(Double(dy * r.h) * k)) }
            let (oldShift, newShift): ((Int, Int), (Int, Int)) = switch kind {
            case .push: (shift(f), shift(f - 1))
            case .moveIn: ((0, 0), shift(f - 1))
            case .reveal: (shift(f), (0, 0))
            case .fade: ((0, 0), (0, 0))
            }
            // A picture's pixel at (x, y) once moved by `d`, if its layer covers it.
            func picture(_ image: RGBAImage, _ d: (Int, Int), _ x: Int, _ y: Int) -> RGBAPixel? {
                let (u, v) = (x - d.0, y - d.1)
                return (r.x..<r.x + r.w).contains(u) && (r.y..<r.y + r.h).contains(v) ? image[u, v] : nil
            }
            let wrong = frame.mismatches { x, y in
                let o = picture(old, oldShift, x, y), n = picture(new, newShift, x, y)
                return kind == .reveal ? (o ?? n ?? background) : (n ?? o ?? background)
            }
            #expect(wrong.isEmpty, "\(kind) \(subtype) at \(f): \(wrong)")
            #expect(s.host.lastFrame.layersDrawn == 0 && s.host.lastFrame.textureBytesUploaded == 0)
        }
        try s.frame(at: 2.1)
        #expect(container.animationKeys().isEmpty)
        #expect(try s.frame(at: 2.2).mismatches { new[$0, $1] }.isEmpty)
    }

    @Test("a moving transition moves the pictures through the layer's transform: a push from the left on a layer scaled 2× moves them twice as far")
    func movingTransitionThroughTransform() throws {
        let s = try AnimationStage()
        defer { s.close() }
        let container = Layer()
        container.frame = Rect(x: 40, y: 40, width: 30, height: 30)
        container.transform = Transform3D(scaleX: 2, y: 2, z: 1)    // on screen: 25…85 a side
        container.backgroundColor = .red
        s.root.addSublayer(container)
        try s.frame(at: 0)
        var t = TransitionAnimation(type: .push, subtype: .fromLeft)
        t.duration = 1
        t.timingFunction = .linear
        container.add(t, forKey: nil)
        container.backgroundColor = .blue
        try s.frame(at: 1)
        let mid = try s.frame(at: 1.5)
        // Half of 30 pt, scaled 2×: 30 px. The old (red) covers 55…115, the new (blue) −5…55.
        #expect(mid[20, 50] == px(0, 0, 255) && mid[54, 50] == px(0, 0, 255))
        #expect(mid[56, 50] == px(255, 0, 0) && mid[114, 50] == px(255, 0, 0))
        #expect(mid[116, 50] == px(255, 255, 255))
    }

    @Test("a transition on the root layer cross-fades the whole target; on a render thread too")
    func rootTransition() throws {
        for thread in [false, true] {
            try Transaction.flush()
            MediaClock.set(1000)
            let device = try GPUDevice()
            let target = try OffscreenTarget(device: device, size: Size(width: 100, height: 100))
            let root = rootLayer(width: 100, height: 100)
            let a = solid(Rect(x: 0, y: 0, width: 60, height: 60), .red)
            let b = solid(Rect(x: 40, y: 40, width: 60, height: 60), .blue)
            root.addSublayer(a)
            let host = LayerTreeHost(rootLayer: root, target: target, background: .white, rendersOnThread: thread)
            defer { host.detach(); MediaClock.set(nil) }
            func frame(_ t: Double) throws -> RGBAImage {
                MediaClock.set(1000 + t)
                try Transaction.flush()
                if let thread = host.renderThread { return try thread.perform { try target.readPixels() } }
                return try target.readPixels()
            }
            let old = try frame(0)
            var t = TransitionAnimation()
            t.duration = 1
            root.add(t, forKey: nil)
            a.removeFromSuperlayer()
            root.addSublayer(b)
            _ = try frame(0)
            let mid = try frame(0.25)
            let end = try frame(1.5)
            #expect(end[80, 80] == blue && end[10, 10] == white)
            let wrong = mid.mismatches(tolerance: 2, Self.mix(old, end, 0.25))
            #expect(wrong.isEmpty, "render thread \(thread): \(wrong)")
        }
    }

    @Test("under a transition, hiding the layer fades it out, and its opacity before and after are mixed; a layer without group opacity keeps its look")
    func transitionOpacities() throws {
        let s = try AnimationStage()
        defer { s.close() }
        let l = solid(Rect(x: 20, y: 20, width: 80, height: 80), .red)
        let child = solid(Rect(x: 40, y: 40, width: 80, height: 80), .blue)
        l.addSublayer(child)
        s.root.addSublayer(l)
        let shown = try s.frame(at: 0)
        var t = TransitionAnimation()
        t.duration = 1
        l.add(t, forKey: nil)
        l.isHidden = true
        try s.frame(at: 0)
        let hidden = RGBAImage(width: 200, height: 200, fill: white)
        let mid = try s.frame(at: 0.25)
        #expect(mid.mismatches(tolerance: 2, Self.mix(shown, hidden, 0.25)).isEmpty, "fades out")
        try s.frame(at: 1.1)
        #expect(try s.frame(at: 1.2).mismatches { hidden[$0, $1] }.isEmpty)

        // Opacity 1 → 0.5 under a transition: (1 − f)·old + f·(new at 0.5).
        l.isHidden = false
        try s.frame(at: 1.2)
        let opaque = try s.frame(at: 1.2)
        l.opacity = 0.5
        let half = try s.frame(at: 1.2)
        l.opacity = 1
        try s.frame(at: 1.2)
        l.add(t, forKey: nil)
        l.opacity = 0.5
        try s.frame(at: 1.2)
        let m = try s.frame(at: 1.7)
        #expect(m.mismatches(tolerance: 2, Self.mix(opaque, half, 0.5)).isEmpty)
        try s.frame(at: 2.3)

        // Without group opacity the sublayers show through each other at 0.5, during the
        // transition as before and after it.
        l.allowsGroupOpacity = false
        let ungrouped = try s.frame(at: 2.3)
        #expect(ungrouped[70, 70] != half[70, 70], "(not a group: the red shows under the blue)")
        l.add(t, forKey: nil)
        l.backgroundColor = .green
        try s.frame(at: 2.3)
        let during = try s.frame(at: 2.3)
        #expect(during.mismatches(tolerance: 2) { ungrouped[$0, $1] }.isEmpty, "f = 0 shows the layer exactly as it was")
    }

    @Test("a transition replacing a running one starts from what is on screen; View-style changes inside it run no implicit action")
    func transitionReplacesRunning() throws {
        let s = try AnimationStage()
        defer { s.close() }
        let l = solid(Rect(x: 20, y: 20, width: 100, height: 100), .red)
        s.root.addSublayer(l)
        let a = try s.frame(at: 0)
        var t = TransitionAnimation()
        t.duration = 1
        l.add(t, forKey: nil)
        l.backgroundColor = .blue
        try s.frame(at: 0)
        let mid = try s.frame(at: 0.4)        // 0.6 red + 0.4 blue
        l.add(t, forKey: nil)                 // replaces it: from what is shown
        l.backgroundColor = .green
        try s.frame(at: 0.4)
        let start = try s.frame(at: 0.4)
        #expect(start.mismatches(tolerance: 2) { mid[$0, $1] }.isEmpty, "no jump when the second transition starts")
        #expect(mid[70, 70] != a[70, 70])
        // Changes made with Transaction.withoutActions run no action (View.transition's block).
        let img = ContentImage(RGBAImage(width: 4, height: 4, fill: px(0, 0, 0)))
        withImplicitAnimations {
            Transaction.withoutActions { l.contents = .image(img) }
            #expect(l.animation(forKey: "contents") == nil)
            l.contents = nil
            #expect(l.animation(forKey: "contents") != nil, "outside it, actions run")
        }
    }

    @Test("a transition on a layer new to the tree fades it in; a transition's key replaces a running one")
    func transitionOnNewLayer() throws {
        let s = try AnimationStage()
        defer { s.close() }
        try s.frame(at: 0)
        let l = solid(Rect(x: 50, y: 50, width: 50, height: 50), .red)
        var t = TransitionAnimation()
        t.duration = 1
        l.add(t, forKey: nil)
        s.root.addSublayer(l)
        try s.frame(at: 0)
        let p = try s.frame(at: 0.5)[75, 75]
        #expect(p.maxChannelDifference(px(255, 128, 128)) <= 2, "\(p)")
        var u = TransitionAnimation()
        u.duration = 2
        var stopped: Bool?
        t.didStop = { stopped = $0 }
        l.add(t, forKey: nil)
        try s.frame(at: 0.6)
        l.add(u, forKey: nil)
        try s.frame(at: 0.7)
        #expect(stopped == false && l.animationKeys() == ["transition"])
    }
}

/// Runs `body` with implicit actions on (test suites turn them off by default).
@MainActor
func withImplicitAnimations(_ body: () throws -> Void) rethrows {
    try Transaction.$taskDisablesActions.withValue(false) { try body() }
}

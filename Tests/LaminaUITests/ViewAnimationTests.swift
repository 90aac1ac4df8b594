import Foundation
@testable import LaminaCore
@testable import LaminaModel
@testable import LaminaRender
@testable import LaminaValues
import LaminaGeometry
import LaminaGPU
import Testing
@testable import LaminaUI
import LaminaTestSupport

/// A window on a 200×200 offscreen target with the media clock fixed at `t0`: commits at
/// fixed times drive the animations, their callbacks and completion blocks.
@MainActor
private final class AnimatedWindow {
    let t0 = 1000.0
    let window: Window

    init() throws {
        MediaClock.set(t0)
        try Transaction.flush()   // nothing left over from other tests
        let device = try GPUDevice()
        let target = try OffscreenTarget(device: device, size: Size(width: 200, height: 200))
        window = Window(target: target)
    }

    /// A view with a background colour, in the window and committed (so its layer has been
    /// delivered to the renderer, as a view on screen has).
    func view(_ frame: Rect, _ color: Color = .red) throws -> View {
        let v = View(frame: frame)
        v.backgroundColor = color
        window.addSubview(v)
        try Transaction.flush()
        return v
    }

    /// Fixes the clock at `t0 + dt` and commits (animations added since begin then; ended
    /// ones report their stop and the completion blocks due run).
    func commit(at dt: Double) throws {
        MediaClock.set(t0 + dt)
        try Transaction.flush()
    }

    /// What `view`'s layer shows at `t0 + dt`.
    func presented(_ view: View, at dt: Double) -> Layer {
        MediaClock.set(t0 + dt)
        return view.layer.presentation()
    }

    func pixels() throws -> RGBAImage { try window.host.target.readPixels() }

    func close() {
        window.host.detach()
        MediaClock.set(nil)
    }
}

/// Collects completion calls.
@MainActor
private final class Calls {
    var values: [Bool] = []
    func record(_ finished: Bool) { values.append(finished) }
}

private func lerp(_ a: Double, _ b: Double, _ f: Double) -> Double { a + (b - a) * f }

/// The angle of a rotation about z, from a transform's first row.
private func angle(_ t: Transform3D) -> Double { atan2(t.m12, t.m11) }

@MainActor
@Suite("Views: animation blocks", .isolatedTransactions)
struct ViewAnimationTests {
    @Test("View.animate(withDuration: 0) changes at once, as UIKit does (no animation)")
    func zeroDuration() throws {
        let s = try AnimatedWindow()
        defer { s.close() }
        let v = try s.view(Rect(x: 10, y: 20, width: 40, height: 40), .red)
        View.animate(withDuration: 0) { v.alpha = 0 }
        try s.commit(at: 0)
        let shown = s.presented(v, at: 0.1).opacity
        #expect(shown == 0, "presented opacity 0.1 s after a zero-duration block: \(shown), keys \(v.layer.animationKeys())")
    }

    @Test("View.animate changes the model at once; presentation() moves from the old to the new values on the ease-in-ease-out curve (frame, center, alpha, backgroundColor, transform)")
    func modelAtOncePresentationOnTheCurve() throws {
        let s = try AnimatedWindow()
        defer { s.close() }
        let v = try s.view(Rect(x: 10, y: 20, width: 40, height: 40), .red)
        View.animate(withDuration: 1) {
            v.frame = Rect(x: 100, y: 60, width: 80, height: 40)
            v.alpha = 0.5
            v.backgroundColor = .blue
            v.transform = Transform2D(rotationAngle: .pi / 2)
        }
        // The model: at once (hit testing and layout see it).
        #expect(v.center == Point(x: 140, y: 80) && v.bounds.size == Size(width: 80, height: 40))
        #expect(v.alpha == 0.5 && v.backgroundColor == .blue && v.transform == Transform2D(rotationAngle: .pi / 2))
        #expect(Set(v.layer.animationKeys()) == ["position", "bounds", "opacity", "backgroundColor", "transform"])
        // Before the commit the animations have not begun: what is shown is the old value.
        let before = s.presented(v, at: 0)
        #expect(before.position == Point(x: 30, y: 40) && before.opacity == 1)
        try s.commit(at: 0)
        for dt in [0.1, 0.25, 0.5, 0.8, 0.95] {
            let f = TimingFunction.easeInEaseOut.value(at: dt)
            let p = s.presented(v, at: dt)
            #expect(abs(p.position.x - lerp(30, 140, f)) < 1e-9 && abs(p.position.y - lerp(40, 80, f)) < 1e-9, "at \(dt): \(p.position)")
            #expect(abs(p.bounds.width - lerp(40, 80, f)) < 1e-9 && p.bounds.height == 40)
            #expect(abs(p.opacity - lerp(1, 0.5, f)) < 1e-9)
            let c = try #require(p.backgroundColor)
            #expect(abs(c.red - (1 - f)) < 1e-9 && abs(c.blue - f) < 1e-9 && c.green == 0 && abs(c.alpha - 1) < 1e-9)
            #expect(abs(angle(p.transform) - f * .pi / 2) < 1e-9, "at \(dt): \(angle(p.transform))")
            // The model layer itself never changes.
            #expect(v.layer.position == Point(x: 140, y: 80) && v.layer.opacity == 0.5)
        }
        // Past the end: the model shows, the animations are gone.
        try s.commit(at: 1.01)
        let end = s.presented(v, at: 1.01)
        #expect(end.position == Point(x: 140, y: 80) && end.opacity == 0.5 && end.backgroundColor == .blue)
        #expect(v.layer.animationKeys().isEmpty)
    }

    @Test("the curve options pace the animation (.curveEaseIn, .curveEaseOut, .curveLinear, and ease-in-ease-out by default)")
    func curves() throws {
        let s = try AnimatedWindow()
        defer { s.close() }
        let v = try s.view(Rect(x: 0, y: 0, width: 20, height: 20))
        let cases: [(AnimationOptions, TimingFunction)] = [([], .easeInEaseOut), (.curveEaseInOut, .easeInEaseOut),
                                                          (.curveEaseIn, .easeIn), (.curveEaseOut, .easeOut), (.curveLinear, .linear)]
        var start = 0.0
        for (options, curve) in cases {
            try s.commit(at: start)
            View.animate(withDuration: 2, delay: 0, options: options, animations: { v.alpha = v.alpha == 1 ? 0 : 1 })
            let from = 1 - v.alpha
            try s.commit(at: start)
            for x in [0.1, 0.3, 0.5, 0.9] {
                let shown = s.presented(v, at: start + 2 * x).opacity
                #expect(abs(shown - lerp(from, v.alpha, curve.value(at: x))) < 1e-9, "\(options): at \(x) \(shown)")
            }
            start += 3
        }
    }

    @Test("a frame at a fixed time equals a static window with the interpolated values")
    func pixelsEqualStaticWindow() throws {
        let s = try AnimatedWindow()
        defer { s.close() }
        let v = try s.view(Rect(x: 20, y: 30, width: 40, height: 30), .red)
        View.animate(withDuration: 1) {
            v.frame = Rect(x: 90, y: 100, width: 80, height: 50)
            v.alpha = 0.6
            v.backgroundColor = Color(red: 0, green: 0.5, blue: 1)
            v.transform = Transform2D(rotationAngle: .pi / 4)
        }
        try s.commit(at: 0)
        try s.commit(at: 0.3)
        let animated = try s.pixels()
        #expect(s.window.lastFrame.layersDrawn == 0 && s.window.lastFrame.textureBytesUploaded == 0, "\(s.window.lastFrame)")

        // The same picture built without animations, from the values worked out by hand.
        let f = TimingFunction.easeInEaseOut.value(at: 0.3)
        let device = try GPUDevice()
        let target = try OffscreenTarget(device: device, size: Size(width: 200, height: 200))
        let still = Window(target: target)
        defer { still.host.detach() }
        let w = View()
        w.bounds = Rect(x: 0, y: 0, width: lerp(40, 80, f), height: lerp(30, 50, f))
        w.center = Point(x: lerp(40, 130, f), y: lerp(45, 125, f))
        w.alpha = lerp(1, 0.6, f)
        w.backgroundColor = Color(red: 1 - f, green: 0.5 * f, blue: f)   // both opaque: premultiplied is straight
        w.transform = Transform2D(rotationAngle: f * .pi / 4)
        still.addSubview(w)
        try Transaction.flush()
        let expected = try target.readPixels()
        let d = animated.difference(from: expected, tolerance: 1)
        #expect(d.differing == 0, "\(d.differing) pixels differ by more than 1 (max \(d.maxDifference))")
        // The view is where the interpolated values put it.
        let centre = (x: Int(lerp(40, 130, f)), y: Int(lerp(45, 125, f)))
        #expect(animated[centre.x, centre.y] != RGBAPixel(r: 255, g: 255, b: 255, a: 255))
    }

    @Test("no animation outside an animation block, nor inside View.performWithoutAnimation")
    func noAnimationOutsideBlocks() throws {
        let s = try AnimatedWindow()
        defer { s.close() }
        let v = try s.view(Rect(x: 0, y: 0, width: 20, height: 20))
        v.center = Point(x: 100, y: 100)
        v.alpha = 0.5
        v.backgroundColor = .green
        v.bounds = Rect(x: 0, y: 0, width: 30, height: 30)
        v.transform = Transform2D(scaleX: 2, y: 2)
        #expect(v.layer.animationKeys().isEmpty)
        try s.commit(at: 0)
        #expect(s.presented(v, at: 0.1).position == Point(x: 100, y: 100))

        View.animate(withDuration: 1) {
            v.alpha = 1
            View.performWithoutAnimation {
                v.center = Point(x: 50, y: 50)
                v.backgroundColor = .blue
            }
            v.transform = .identity   // animates again after performWithoutAnimation
        }
        #expect(Set(v.layer.animationKeys()) == ["opacity", "transform"])
        try s.commit(at: 0.1)
        let p = s.presented(v, at: 0.2)
        #expect(p.position == Point(x: 50, y: 50) && p.backgroundColor == .blue)
        #expect(p.opacity > 0.5 && p.opacity < 1)
        // A standalone layer inside a view's layer keeps Core Animation's implicit
        // animations; the view's own layer does not.
        let badge = Layer()
        badge.frame = Rect(x: 0, y: 0, width: 5, height: 5)
        v.layer.addSublayer(badge)
        try s.commit(at: 0.2)
        badge.position = Point(x: 10, y: 10)
        #expect(badge.animationKeys() == ["position"])
        v.layer.removeAllAnimations()
        badge.removeAllAnimations()
    }

    @Test("completion(true) after the end, run by the commit that finds the animations ended; nested blocks complete separately")
    func completionFinished() throws {
        let s = try AnimatedWindow()
        defer { s.close() }
        let v = try s.view(Rect(x: 0, y: 0, width: 20, height: 20))
        let outer = Calls(), inner = Calls()
        View.animate(withDuration: 1, animations: {
            v.alpha = 0.2
            View.animate(withDuration: 2, animations: { v.center = Point(x: 150, y: 150) }, completion: inner.record)
        }, completion: outer.record)
        #expect(outer.values.isEmpty && inner.values.isEmpty)
        try s.commit(at: 0)
        try s.commit(at: 0.5)
        #expect(outer.values.isEmpty)
        try s.commit(at: 1.0)            // the end of the 1-second animation
        #expect(outer.values == [true] && inner.values.isEmpty)
        // The inner block's own duration: 2 s.
        let p = s.presented(v, at: 1.5)
        #expect(p.position.x > 100 && p.position.x < 150)
        try s.commit(at: 2.0)
        #expect(inner.values == [true] && outer.values == [true])
        try s.commit(at: 3.0)
        #expect(inner.values == [true] && outer.values == [true], "each runs once")
    }

    @Test("completion(false) when an animation is removed or replaced; once, after every animation of the block stopped")
    func completionUnfinished() throws {
        let s = try AnimatedWindow()
        defer { s.close() }
        let v = try s.view(Rect(x: 0, y: 0, width: 20, height: 20))
        // Removed.
        let removed = Calls()
        View.animate(withDuration: 1, animations: { v.alpha = 0 }, completion: removed.record)
        try s.commit(at: 0)
        v.layer.removeAllAnimations()
        #expect(removed.values.isEmpty, "callbacks run after a commit")
        try s.commit(at: 0.1)
        #expect(removed.values == [false])

        // Replaced by another block animating the same property.
        let first = Calls(), second = Calls()
        View.animate(withDuration: 1, animations: { v.alpha = 1 }, completion: first.record)
        try s.commit(at: 1)
        try s.commit(at: 1.5)
        View.animate(withDuration: 1, animations: { v.alpha = 0.5 }, completion: second.record)
        try s.commit(at: 1.5)
        #expect(first.values == [false] && second.values.isEmpty)
        try s.commit(at: 2.5)
        #expect(first.values == [false] && second.values == [true])

        // Two animations, one removed: the completion waits for the other, then says false.
        let both = Calls()
        View.animate(withDuration: 1, animations: { v.alpha = 1; v.center = Point(x: 100, y: 100) }, completion: both.record)
        try s.commit(at: 3)
        v.layer.removeAnimation(forKey: "opacity")
        try s.commit(at: 3.5)
        #expect(both.values.isEmpty, "the position animation still runs")
        try s.commit(at: 4)
        #expect(both.values == [false])
    }

    @Test("a block that animates nothing completes (true) after the next commit, not before")
    func completionOfEmptyBlock() throws {
        let s = try AnimatedWindow()
        defer { s.close() }
        let v = try s.view(Rect(x: 0, y: 0, width: 20, height: 20))
        let empty = Calls(), same = Calls()
        View.animate(withDuration: 1, animations: {}, completion: empty.record)
        View.animate(withDuration: 1, animations: { v.alpha = 1 }, completion: same.record)   // unchanged: no animation
        #expect(v.layer.animationKeys().isEmpty)
        #expect(empty.values.isEmpty && same.values.isEmpty)
        try s.commit(at: 0)
        #expect(empty.values == [true] && same.values == [true])
    }

    @Test(".repeat runs forever, .autoreverse runs back after each run forwards")
    func repeatAndAutoreverse() throws {
        let s = try AnimatedWindow()
        defer { s.close() }
        let v = try s.view(Rect(x: 0, y: 0, width: 20, height: 20))
        let done = Calls()
        View.animate(withDuration: 1, delay: 0, options: [.repeat, .autoreverse, .curveLinear],
                     animations: { v.alpha = 0 }, completion: done.record)
        try s.commit(at: 0)
        for (dt, alpha) in [(0.25, 0.75), (0.75, 0.25), (1.25, 0.25), (1.75, 0.75), (2.25, 0.75), (100.5, 0.5), (101.25, 0.25)] {
            #expect(abs(s.presented(v, at: dt).opacity - alpha) < 1e-9, "at \(dt)")
        }
        try s.commit(at: 101)
        #expect(done.values.isEmpty && v.layer.animationKeys() == ["opacity"] && TransactionContext.current.animationsInFlight)
        v.layer.removeAllAnimations()

        // .repeat alone starts again from the old value.
        View.animate(withDuration: 1, delay: 0, options: [.repeat, .curveLinear], animations: { v.alpha = 1 })
        try s.commit(at: 200)
        for (dt, alpha) in [(200.25, 0.25), (201.25, 0.25), (202.75, 0.75)] {
            #expect(abs(s.presented(v, at: dt).opacity - alpha) < 1e-9, "at \(dt)")
        }
        // .autoreverse alone: forwards, back, then the model value (as UIKit).
        v.layer.removeAllAnimations()
        View.animate(withDuration: 1, delay: 0, options: [.autoreverse, .curveLinear], animations: { v.alpha = 0 })
        try s.commit(at: 300)
        #expect(abs(s.presented(v, at: 300.5).opacity - 0.5) < 1e-9 && abs(s.presented(v, at: 301.75).opacity - 0.75) < 1e-9)
        try s.commit(at: 302.1)
        #expect(s.presented(v, at: 302.1).opacity == 0 && v.layer.animationKeys().isEmpty)
        #expect(done.values == [false], "the repeating block stopped unfinished when removed")
    }

    @Test(".beginFromCurrentState starts from the presented value; without it, from the old model value")
    func beginFromCurrentState() throws {
        let s = try AnimatedWindow()
        defer { s.close() }
        for current in [true, false] {
            let v = try s.view(Rect(x: 0, y: 0, width: 20, height: 20))   // center (10, 10)
            let base = current ? 0.0 : 10.0
            try s.commit(at: base)
            View.animate(withDuration: 1, delay: 0, options: .curveLinear, animations: { v.center = Point(x: 110, y: 10) })
            try s.commit(at: base)
            #expect(abs(s.presented(v, at: base + 0.5).position.x - 60) < 1e-9)
            // Half way, to 210: from 60 (shown) or from 110 (the old model value).
            View.animate(withDuration: 1, delay: 0, options: current ? [.curveLinear, .beginFromCurrentState] : .curveLinear,
                         animations: { v.center = Point(x: 210, y: 10) })
            try s.commit(at: base + 0.5)
            let start = current ? 60.0 : 110.0
            for x in [0.0, 0.25, 0.5] {
                #expect(abs(s.presented(v, at: base + 0.5 + x).position.x - lerp(start, 210, x)) < 1e-9, "current \(current) at \(x)")
            }
            v.removeFromSuperview()
        }
    }

    @Test("delay: the old value shows until the animation starts (backwards fill); the completion comes after delay + duration")
    func delay() throws {
        let s = try AnimatedWindow()
        defer { s.close() }
        let v = try s.view(Rect(x: 0, y: 0, width: 20, height: 20))
        let done = Calls()
        View.animate(withDuration: 1, delay: 0.5, options: .curveLinear, animations: { v.alpha = 0 }, completion: done.record)
        #expect(v.alpha == 0, "the model at once")
        try s.commit(at: 0)
        #expect(s.presented(v, at: 0.25).opacity == 1)
        #expect(abs(s.presented(v, at: 1.0).opacity - 0.5) < 1e-9)
        #expect(abs(s.presented(v, at: 1.25).opacity - 0.25) < 1e-9)
        try s.commit(at: 1.2)
        #expect(done.values.isEmpty)
        try s.commit(at: 1.5)
        #expect(done.values == [true] && s.presented(v, at: 1.5).opacity == 0)
    }

    @Test("hit testing uses the model frame, and skips an animating view unless .allowUserInteraction")
    func hitTesting() throws {
        let s = try AnimatedWindow()
        defer { s.close() }
        let v = try s.view(Rect(x: 10, y: 10, width: 40, height: 40))
        View.animate(withDuration: 1, delay: 0, options: [.allowUserInteraction, .curveLinear],
                     animations: { v.frame = Rect(x: 130, y: 130, width: 40, height: 40) })
        try s.commit(at: 0)
        let shown = s.presented(v, at: 0.5).position
        #expect(abs(shown.x - 90) < 1e-9, "half way on screen: \(shown)")
        #expect(s.window.hitTest(Point(x: 150, y: 150), with: nil) === v, "the model frame is hit")
        #expect(s.window.hitTest(Point(x: 30, y: 30), with: nil) === s.window)
        #expect(s.window.hitTest(Point(x: 90, y: 90), with: nil) === s.window, "not where it is shown")
        try s.commit(at: 2)

        // Without the option: not hit while it animates, hit again once it has ended.
        View.animate(withDuration: 1, animations: { v.frame = Rect(x: 10, y: 130, width: 40, height: 40) })
        try s.commit(at: 2)
        #expect(s.window.hitTest(Point(x: 30, y: 150), with: nil) === s.window)
        #expect(s.window.hitTest(Point(x: 150, y: 150), with: nil) === s.window)
        try s.commit(at: 2.5)
        #expect(s.window.hitTest(Point(x: 30, y: 150), with: nil) === s.window)
        try s.commit(at: 3.1)
        #expect(s.window.hitTest(Point(x: 30, y: 150), with: nil) === v)
        // A removed animation gives the view back to hit testing too.
        View.animate(withDuration: 1, animations: { v.alpha = 0.5 })
        #expect(s.window.hitTest(Point(x: 30, y: 150), with: nil) === s.window)
        v.layer.removeAllAnimations()
        try s.commit(at: 3.2)
        #expect(s.window.hitTest(Point(x: 30, y: 150), with: nil) === v)
        // Touches follow hit testing: a touch on the animating view goes to the window.
        final class Tappable: View {
            var touched = 0
            override func touchesBegan(_ touches: Set<Touch>, with event: Event) { touched += 1 }
        }
        let t = Tappable(frame: Rect(x: 100, y: 10, width: 40, height: 40))
        s.window.addSubview(t)
        try s.commit(at: 4)
        View.animate(withDuration: 1, animations: { t.alpha = 0.5 })
        try s.commit(at: 4)
        s.window.send([TouchInput(phase: .began, location: Point(x: 120, y: 30))])
        s.window.send([TouchInput(phase: .ended, location: Point(x: 120, y: 30))])
        #expect(t.touched == 0)
        try s.commit(at: 5.1)
        s.window.send([TouchInput(phase: .began, location: Point(x: 120, y: 30))])
        s.window.send([TouchInput(phase: .ended, location: Point(x: 120, y: 30))])
        #expect(t.touched == 1)
    }

    @Test("the spring variant follows the damped oscillator of its duration and damping ratio: it overshoots below 1, not at 1")
    func spring() throws {
        let s = try AnimatedWindow()
        defer { s.close() }
        let v = try s.view(Rect(x: 0, y: 0, width: 20, height: 20))   // center.x 10
        for ratio in [0.3, 0.6, 1.0] {
            let done = Calls()
            let start = ratio * 100
            try s.commit(at: start)
            let from = v.center.x, to = from + 100
            View.animate(withDuration: 0.5, delay: 0, usingSpringWithDamping: ratio, initialSpringVelocity: 0,
                         animations: { v.center = Point(x: to, y: 10) }, completion: done.record)
            try s.commit(at: start)
            // UIKit's parameters: ω₀ = 2π / duration, ζ = the ratio; x(t) of the closed form.
            let w0 = 2 * Double.pi / 0.5
            func expected(_ t: Double) -> Double {
                let e = exp(-ratio * w0 * t)
                let fraction: Double
                if ratio < 1 {
                    let wd = w0 * (1 - ratio * ratio).squareRoot()
                    fraction = 1 - e * (cos(wd * t) + ratio * w0 / wd * sin(wd * t))
                } else {
                    fraction = 1 - e * (1 + w0 * t)
                }
                return from + 100 * fraction
            }
            // It runs until it has settled (at least the duration given), then completes.
            let a = try #require(v.layer.animation(forKey: "position"))
            #expect(a.duration >= 0.5)
            var highest = -Double.infinity, previous = -Double.infinity, monotone = true
            for i in 1..<100 {
                let t = Double(i) / 100 * a.duration
                let x = s.presented(v, at: start + t).position.x
                #expect(abs(x - expected(t)) < 1e-6, "ratio \(ratio) at \(t): \(x) vs \(expected(t)) from \(from)")
                highest = max(highest, x)
                if x < previous - 1e-9 { monotone = false }
                previous = x
            }
            if ratio < 1 {
                #expect(highest > to + 1, "ratio \(ratio) overshoots: \(highest)")
                #expect(!monotone)
            } else {
                #expect(highest <= to + 1e-9 && monotone, "critically damped: no overshoot (\(highest))")
            }
            #expect(abs(expected(a.duration) - to) < 0.1, "settled within 0.1 % of the distance")
            try s.commit(at: start + a.duration + 0.01)
            #expect(done.values == [true] && v.layer.animationKeys().isEmpty)
        }
    }

    @Test("View.transition(with:options: .transitionCrossDissolve) cross-dissolves the view's old picture (subviews, colours) into the new one, exactly; the changes are not animated one by one; completion runs at the end")
    func crossDissolve() throws {
        let s = try AnimatedWindow()
        defer { s.close() }
        let container = try s.view(Rect(x: 20, y: 20, width: 120, height: 120), .white)
        let a = View(frame: Rect(x: 0, y: 0, width: 60, height: 60))
        a.backgroundColor = .red
        container.addSubview(a)
        try s.commit(at: 0)
        let old = try s.pixels()
        let done = Calls()
        let b = View(frame: Rect(x: 50, y: 50, width: 60, height: 60))
        b.backgroundColor = .blue
        View.transition(with: container, duration: 1, options: [.transitionCrossDissolve, .curveLinear], animations: {
            a.removeFromSuperview()
            container.addSubview(b)
            container.backgroundColor = .green
        }, completion: done.record)
        #expect(container.layer.animationKeys() == ["transition"])
        #expect(container.layer.animation(forKey: "backgroundColor") == nil, "changes are not animated one by one")
        try s.commit(at: 0)
        let mid = try s.pixels()
        try s.commit(at: 0.5)
        let half = try s.pixels()
        try s.commit(at: 1.1)
        let new = try s.pixels()
        #expect(done.values == [true])
        #expect(mid.bytes == old.bytes, "f = 0: the old picture")
        var wrong = 0
        for y in 0..<200 { for x in 0..<200 {
            let p = old[x, y], q = new[x, y], h = half[x, y]
            func m(_ u: UInt8, _ v: UInt8) -> Int { Int((Double(u) + Double(v)) / 2) }
            if abs(Int(h.r) - m(p.r, q.r)) > 2 || abs(Int(h.g) - m(p.g, q.g)) > 2 || abs(Int(h.b) - m(p.b, q.b)) > 2 { wrong += 1 }
        } }
        #expect(wrong == 0, "\(wrong) pixels are not the half-way mix")
        #expect(new[30, 30] == RGBAPixel(r: 0, g: 255, b: 0, a: 255) && new[100, 100] == RGBAPixel(r: 0, g: 0, b: 255, a: 255))
    }
    @Test("View.transition with .transitionPush, .transitionMoveIn or .transitionReveal and a .transitionFrom… side adds that TransitionAnimation; a push from the top slides the new picture down over half the view at half time")
    func movingViewTransitions() throws {
        let cases: [(AnimationOptions, TransitionAnimation.Kind, TransitionAnimation.Subtype)] = [
            ([.transitionPush], .push, .fromLeft), ([.transitionPush, .transitionFromRight], .push, .fromRight),
            ([.transitionMoveIn, .transitionFromTop], .moveIn, .fromTop), ([.transitionReveal, .transitionFromBottom], .reveal, .fromBottom),
        ]
        for (options, kind, subtype) in cases {
            let t = try #require(options.transition)
            #expect(t.type == kind && t.subtype == subtype)
        }
        #expect(AnimationOptions.transitionCrossDissolve.transition?.type == .fade)
        #expect(AnimationOptions.curveLinear.transition == nil)

        let s = try AnimatedWindow()
        defer { s.close() }
        let container = try s.view(Rect(x: 20, y: 20, width: 100, height: 100), .red)
        try s.commit(at: 0)
        View.transition(with: container, duration: 1, options: [.transitionPush, .transitionFromTop, .curveLinear], animations: {
            container.backgroundColor = .blue
        })
        let added = try #require(container.layer.animation(forKey: "transition") as? TransitionAnimation)
        #expect(added.type == .push && added.subtype == .fromTop && added.duration == 1)
        try s.commit(at: 0)
        try s.commit(at: 0.5)
        let half = try s.pixels()
        // The new (blue) picture covers the top half, the old (red) was pushed 50 pt down.
        #expect(half[70, 25] == RGBAPixel(r: 0, g: 0, b: 255, a: 255) && half[70, 69] == RGBAPixel(r: 0, g: 0, b: 255, a: 255))
        #expect(half[70, 71] == RGBAPixel(r: 255, g: 0, b: 0, a: 255) && half[70, 169] == RGBAPixel(r: 255, g: 0, b: 0, a: 255))
        // Unclipped, as in Core Animation: the new picture's upper half is above the view.
        #expect(half[70, 15] == RGBAPixel(r: 0, g: 0, b: 255, a: 255) && half[70, 171] != RGBAPixel(r: 255, g: 0, b: 0, a: 255))
    }
}

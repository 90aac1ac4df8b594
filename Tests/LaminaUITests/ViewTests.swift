import CGLES
import Foundation
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import LaminaTestSupport
@_spi(LaminaInternal) import LaminaValues
import Testing
@testable import LaminaUI

private func px(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8 = 255) -> RGBAPixel { RGBAPixel(r: r, g: g, b: b, a: a) }

/// A window on a fresh offscreen target.
@MainActor
private func makeWindow(width: Double = 200, height: Double = 200, scale: Double = 1) throws -> Window {
    try Transaction.flush()   // nothing left over from other tests
    let device = try GPUDevice()
    let target = try OffscreenTarget(device: device, size: Size(width: width, height: height), scale: scale)
    return Window(target: target)
}

@MainActor
private func pixels(_ w: Window) throws -> RGBAImage { try w.host.target.readPixels() }

/// A view that fills itself with `color`, logging its draws.
@MainActor
private final class Swatch: View {
    var color = Color.red
    var log: ((String) -> Void)?
    var draws = 0
    override func draw(_ rect: Rect) {
        draws += 1
        log?("draw \(tag)")
        let c = currentGraphicsContext()!
        c.setFillColor(color)
        c.fill(bounds)
    }
}

@MainActor
@Suite("Views: the interaction sequence")
struct InteractionTests {
    @Test("a tap on a nested button runs seed 004's sequence in one turn: event → hit test → handler → autoresizing → layoutSubviews → draw → composite")
    func sequence() throws {
        let window = try makeWindow()
        var log: [String] = []
        final class Container: View {
            var log: ((String) -> Void)?
            override func layoutSubviews() { log?("layoutSubviews (child width \(Int(subviews[0].frame.width)))") }
        }
        final class Button: View {
            var log: ((String) -> Void)?
            var onTap: (() -> Void)?
            override func touchesBegan(_ touches: Set<Touch>, with event: Event) { log?("touchesBegan") }
            override func touchesEnded(_ touches: Set<Touch>, with event: Event) { log?("handler"); onTap?() }
            override func hitTest(_ point: Point, with event: Event?) -> View? {
                let hit = super.hitTest(point, with: event)
                if hit === self { log?("hit test → button") }
                return hit
            }
        }
        let container = Container(frame: Rect(x: 10, y: 10, width: 100, height: 100))
        let stretchy = Swatch(frame: Rect(x: 0, y: 60, width: 100, height: 40))
        stretchy.autoresizingMask = [.flexibleWidth]
        stretchy.tag = 1
        let button = Button(frame: Rect(x: 10, y: 10, width: 40, height: 30))
        button.backgroundColor = .blue
        container.addSubview(stretchy)
        container.addSubview(button)
        window.addSubview(container)
        try window.compositeNow()
        container.log = { log.append($0) }
        button.log = { log.append($0) }
        stretchy.log = { log.append($0) }
        window.host.didComposite = { _ in log.append("composite") }
        button.onTap = {
            container.frame = Rect(x: 10, y: 10, width: 150, height: 100)   // grows: autoresizes `stretchy`
            stretchy.color = .green
            stretchy.setNeedsDisplay()
            log.append("handler done")
        }
        let loop = try MainLoop()
        loop.perform {
            window.send([TouchInput(phase: .began, location: Point(x: 30, y: 30))])
            window.send([TouchInput(phase: .ended, location: Point(x: 30, y: 30))])
        }
        try loop.runOnce()
        #expect(log == ["hit test → button", "touchesBegan", "handler", "handler done",
                        "layoutSubviews (child width 150)", "draw 1", "composite"], "\(log)")
        let image = try pixels(window)
        #expect(image[150, 90] == px(0, 255, 0), "all changes visible at once")
    }

    @Test("a handler that changes a frame and calls setNeedsDisplay twice: one draw, the new pixels in that turn")
    func oneDraw() throws {
        let window = try makeWindow()
        let swatch = Swatch(frame: Rect(x: 0, y: 0, width: 50, height: 50))
        window.addSubview(swatch)
        try window.compositeNow()
        #expect(swatch.draws == 1)
        let loop = try MainLoop()
        loop.perform {
            swatch.frame = Rect(x: 100, y: 100, width: 50, height: 50)
            swatch.color = .blue
            swatch.setNeedsDisplay()
            swatch.setNeedsDisplay()
        }
        try loop.runOnce()
        #expect(swatch.draws == 2)
        let image = try pixels(window)
        #expect(image[120, 120] == px(0, 0, 255) && image[20, 20] == px(255, 255, 255))
    }

    @Test("displayNow() from inside an event handler returns with the new pixels on the target")
    func displayNowInHandler() throws {
        let window = try makeWindow()
        final class Tappable: View {
            var onTap: (() throws -> Void)?
            override func touchesBegan(_ touches: Set<Touch>, with event: Event) { try? onTap?() }
        }
        let swatch = Swatch(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        let tappable = Tappable(frame: Rect(x: 100, y: 100, width: 50, height: 50))
        window.addSubview(swatch)
        window.addSubview(tappable)
        try window.compositeNow()
        var seen: RGBAPixel?
        tappable.onTap = {
            swatch.color = .green
            try swatch.displayNow()
            seen = try pixels(window)[50, 50]   // before the handler returns
        }
        window.send([TouchInput(phase: .began, location: Point(x: 120, y: 120))])
        #expect(seen == px(0, 255, 0))
        #expect(swatch.draws == 2)
    }

    @Test("touches stay with the view they began in, even after moving outside it")
    func touchOwnership() throws {
        let window = try makeWindow()
        final class Recorder: View {
            var events: [String] = []
            override func touchesBegan(_ touches: Set<Touch>, with event: Event) { events.append("began") }
            override func touchesMoved(_ touches: Set<Touch>, with event: Event) {
                events.append("moved \(Int(touches.first!.location(in: self).x))")
            }
            override func touchesEnded(_ touches: Set<Touch>, with event: Event) { events.append("ended") }
        }
        let a = Recorder(frame: Rect(x: 0, y: 0, width: 50, height: 50))
        let b = Recorder(frame: Rect(x: 100, y: 0, width: 50, height: 50))
        window.addSubview(a); window.addSubview(b)
        window.send([TouchInput(identifier: 7, phase: .began, location: Point(x: 10, y: 10))])
        window.send([TouchInput(identifier: 7, phase: .moved, location: Point(x: 120, y: 10))])    // over b
        window.send([TouchInput(identifier: 7, phase: .ended, location: Point(x: 130, y: 10))])
        #expect(a.events == ["began", "moved 120", "ended"])
        #expect(b.events.isEmpty)
        #expect(window.touchesInProgress == 0)
        // Two fingers at once, in different views.
        window.send([TouchInput(identifier: 1, phase: .began, location: Point(x: 5, y: 5)),
                     TouchInput(identifier: 2, phase: .began, location: Point(x: 105, y: 5))])
        #expect(a.events.last == "began" && b.events == ["began"])
        #expect(window.touchesInProgress == 2)
    }

    @Test("unhandled touches go up the responder chain to the superview")
    func responderChain() throws {
        let window = try makeWindow()
        final class Handler: View {
            var handled = 0
            override func touchesBegan(_ touches: Set<Touch>, with event: Event) { handled += 1 }
        }
        let parent = Handler(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        let child = View(frame: Rect(x: 10, y: 10, width: 20, height: 20))   // does not handle touches
        parent.addSubview(child)
        window.addSubview(parent)
        window.send([TouchInput(phase: .began, location: Point(x: 15, y: 15))])
        #expect(parent.handled == 1)
        #expect(child.next === parent && parent.next === window && window.next == nil)
    }
}

@MainActor
@Suite("Views: hit testing")
struct HitTestTests {
    @Test("through a rotated parent, past hidden, transparent and disabled views, and not outside a parent's bounds")
    func hitTesting() throws {
        let window = try makeWindow()
        let parent = View(frame: Rect(x: 50, y: 50, width: 100, height: 100))
        parent.transform = Transform2D(rotationAngle: .pi / 2)   // a quarter turn about its centre (100, 100)
        let child = View(frame: Rect(x: 0, y: 0, width: 40, height: 20))   // parent's top-left corner
        parent.addSubview(child)
        window.addSubview(parent)
        // The top-left corner turns to the top-right: child covers x 130…150, y 50…90.
        #expect(window.hitTest(Point(x: 140, y: 60), with: nil) === child)
        #expect(window.hitTest(Point(x: 60, y: 60), with: nil) === parent)
        child.isHidden = true
        #expect(window.hitTest(Point(x: 140, y: 60), with: nil) === parent)
        child.isHidden = false
        child.alpha = 0.005
        #expect(window.hitTest(Point(x: 140, y: 60), with: nil) === parent)
        child.alpha = 1
        child.isUserInteractionEnabled = false
        #expect(window.hitTest(Point(x: 140, y: 60), with: nil) === parent)
        // A subview sticking out of its parent is not hit outside the parent (as if clipped).
        let clip = View(frame: Rect(x: 0, y: 160, width: 30, height: 30))
        clip.clipsToBounds = true
        let outside = View(frame: Rect(x: 20, y: 0, width: 40, height: 30))
        clip.addSubview(outside)
        window.addSubview(clip)
        #expect(window.hitTest(Point(x: 25, y: 170), with: nil) === outside)
        #expect(window.hitTest(Point(x: 45, y: 170), with: nil) === window)
        #expect(window.hitTest(Point(x: 500, y: 5), with: nil) == nil)
    }
}

@MainActor
@Suite("Views: hierarchy, geometry, layout")
struct HierarchyTests {
    @Test("subview order follows layer order; insert/bring/send/remove; window and move hooks")
    func hierarchy() throws {
        let window = try makeWindow()
        final class Hooked: View {
            var log: [String] = []
            override func didMoveToSuperview() { log.append("superview \(superview == nil ? "nil" : "set")") }
            override func didMoveToWindow() { log.append("window \(window == nil ? "nil" : "set")") }
        }
        let a = Hooked(), b = View(), c = View()
        let root = View(frame: Rect(x: 0, y: 0, width: 10, height: 10))
        root.addSubview(a); root.addSubview(b)
        root.insertSubview(c, belowSubview: b)
        #expect(root.subviews.map { ObjectIdentifier($0) } == [a, c, b].map { ObjectIdentifier($0) })
        #expect(root.layer.sublayers.map { ObjectIdentifier($0) } == [a, c, b].map { ObjectIdentifier($0.layer) })
        root.bringSubviewToFront(a)
        root.sendSubviewToBack(b)
        #expect(root.subviews.map { ObjectIdentifier($0) } == [b, c, a].map { ObjectIdentifier($0) })
        #expect(root.layer.sublayers.map { ObjectIdentifier($0) } == [b, c, a].map { ObjectIdentifier($0.layer) })
        #expect(a.window == nil)
        window.addSubview(root)
        #expect(a.window === window)
        a.removeFromSuperview()
        #expect(a.window == nil && a.superview == nil && !root.layer.sublayers.contains { $0 === a.layer })
        // UIKit's order: removing calls didMoveToWindow before didMoveToSuperview.
        #expect(a.log == ["superview set", "window set", "window nil", "superview nil"])
        root.insertSubview(root, at: 0)   // a cycle: refused
        #expect(root.superview === window)
    }

    @Test("frame, bounds, centre, transform and alpha map onto the layer; convert between views")
    func geometry() throws {
        let window = try makeWindow()
        let v = View(frame: Rect(x: 20, y: 30, width: 40, height: 60))
        #expect(v.center == Point(x: 40, y: 60) && v.bounds == Rect(x: 0, y: 0, width: 40, height: 60))
        v.alpha = 0.5
        #expect(v.layer.opacity == 0.5)
        v.clipsToBounds = true
        #expect(v.layer.masksToBounds)
        let inner = View(frame: Rect(x: 5, y: 5, width: 10, height: 10))
        v.addSubview(inner)
        window.addSubview(v)
        #expect(inner.convert(Point(x: 1, y: 2), to: nil) == Point(x: 26, y: 37))
        #expect(window.convert(Point(x: 26, y: 37), to: inner) == Point(x: 1, y: 2))
        #expect(inner.convert(Rect(x: 0, y: 0, width: 10, height: 10), to: window) == Rect(x: 25, y: 35, width: 10, height: 10))
        v.transform = Transform2D(scaleX: 2, y: 2)
        #expect(v.layer.transform == Transform3D(scaleX: 2, y: 2))
        #expect(inner.convert(Point(x: 0, y: 0), to: nil) == Point(x: 40 - 40 + 10, y: 60 - 60 + 10))
    }

    @Test("autoresizing: each mask bit against hand-computed frames (superview 100×100 → 200×150)", arguments: [
        (AutoresizingMask(), Rect(x: 10, y: 20, width: 30, height: 40)),
        (.flexibleLeftMargin, Rect(x: 110, y: 20, width: 30, height: 40)),
        (.flexibleWidth, Rect(x: 10, y: 20, width: 130, height: 40)),
        (.flexibleRightMargin, Rect(x: 10, y: 20, width: 30, height: 40)),
        (.flexibleTopMargin, Rect(x: 10, y: 70, width: 30, height: 40)),
        (.flexibleHeight, Rect(x: 10, y: 20, width: 30, height: 90)),
        (.flexibleBottomMargin, Rect(x: 10, y: 20, width: 30, height: 40)),
        // Shared in proportion to the current lengths: left 10 / width 30 / right 60 share +100.
        ([.flexibleLeftMargin, .flexibleWidth, .flexibleRightMargin] as AutoresizingMask, Rect(x: 20, y: 20, width: 60, height: 40)),
        ([.flexibleLeftMargin, .flexibleRightMargin] as AutoresizingMask, Rect(x: 24.285714285714285, y: 20, width: 30, height: 40)),
        ([.flexibleTopMargin, .flexibleHeight] as AutoresizingMask, Rect(x: 10, y: 36.666666666666664, width: 30, height: 73.33333333333333)),
    ])
    func autoresizing(mask: AutoresizingMask, expected: Rect) throws {
        let parent = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        let child = View(frame: Rect(x: 10, y: 20, width: 30, height: 40))
        child.autoresizingMask = mask
        parent.addSubview(child)
        parent.layoutIfNeeded()
        parent.frame = Rect(x: 0, y: 0, width: 200, height: 150)
        #expect(child.frame == Rect(x: 10, y: 20, width: 30, height: 40), "autoresizing waits for the layout pass")
        parent.layoutIfNeeded()
        let f = child.frame
        #expect(abs(f.minX - expected.minX) < 1e-9 && abs(f.minY - expected.minY) < 1e-9
                && abs(f.width - expected.width) < 1e-9 && abs(f.height - expected.height) < 1e-9, "\(mask): \(f)")
    }

    @Test("autoresizing starts from the size each subview's frame was set for")
    func autoresizeBase() {
        // A parent made with .zero, then given a frame, then a child: no spurious growth.
        let parent = View()
        parent.frame = Rect(x: 0, y: 0, width: 100, height: 100)
        let child = View(frame: Rect(x: 0, y: 0, width: 100, height: 10))
        child.autoresizingMask = [.flexibleWidth]
        parent.addSubview(child)
        parent.layoutIfNeeded()
        #expect(child.frame.width == 100)
        // A frame set after the parent's resize but before layout is not resized again.
        parent.frame = Rect(x: 0, y: 0, width: 200, height: 100)
        child.frame = Rect(x: 0, y: 0, width: 200, height: 10)
        parent.layoutIfNeeded()
        #expect(child.frame.width == 200)
        // A child added after a resize, before layout, keeps its frame.
        parent.frame = Rect(x: 0, y: 0, width: 300, height: 100)
        let late = View(frame: Rect(x: 0, y: 20, width: 300, height: 10))
        late.autoresizingMask = [.flexibleWidth]
        parent.addSubview(late)
        parent.layoutIfNeeded()
        #expect(late.frame.width == 300 && child.frame.width == 300)
    }

    @Test("autoresizesSubviews = false leaves subviews alone; sizeToFit uses sizeThatFits")
    func autoresizeOffAndSizeToFit() {
        let parent = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        parent.autoresizesSubviews = false
        let child = View(frame: Rect(x: 10, y: 10, width: 10, height: 10))
        child.autoresizingMask = [.flexibleWidth]
        parent.addSubview(child)
        parent.frame = Rect(x: 0, y: 0, width: 300, height: 100)
        parent.layoutIfNeeded()
        #expect(child.frame.width == 10)
        final class Label: View {
            override func sizeThatFits(_ size: Size) -> Size {
                GraphicsContext.measure("Hello", font: Font(size: 20))
            }
        }
        let label = Label(frame: Rect(x: 5, y: 6, width: 1, height: 1))
        label.sizeToFit()
        let m = GraphicsContext.measure("Hello", font: Font(size: 20))
        #expect(label.frame == Rect(x: 5, y: 6, width: m.width, height: m.height) && m.width > 30)
    }

    @Test("views that do not override draw(_:) keep no backing store; contentMode and contentStretch reach the layer")
    func drawingSetup() throws {
        let window = try makeWindow()
        final class Panel: View {}   // a subclass that does not override draw(_:)
        let plain = Panel(frame: Rect(x: 0, y: 0, width: 50, height: 50))
        plain.backgroundColor = .red
        try window.compositeNow()
        window.addSubview(plain)
        try window.compositeNow()
        #expect(plain.layer.displayCount == 1, "the view finds out on its first display")
        #expect(plain.layer.backingStore == nil && plain.layer.contents == nil, "…and keeps no bitmap")
        let other = Panel(frame: Rect(x: 50, y: 0, width: 50, height: 50))
        window.addSubview(other)
        try window.compositeNow()
        #expect(other.layer.displayCount == 1, "each view finds out for itself: one view's draw decides nothing for others")
        #expect(other.layer.backingStore == nil && other.layer.contents == nil, "…and keeps no bitmap either")
        let swatch = Swatch(frame: Rect(x: 0, y: 60, width: 30, height: 30))
        swatch.contentMode = .scaleAspectFit
        swatch.contentStretch = Rect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)
        #expect(swatch.layer.contentsGravity == .resizeAspect && swatch.layer.contentsCenter == swatch.contentStretch)
        swatch.contentMode = .topLeft
        #expect(swatch.layer.contentsCenter == Rect(x: 0, y: 0, width: 1, height: 1), "pinned modes ignore the stretch")
        window.addSubview(swatch)
        try window.compositeNow()
        #expect(swatch.layer.backingStore != nil && swatch.draws == 1)
        #expect(try pixels(window)[10, 70] == px(255, 0, 0))
    }
}

@MainActor
@Suite("Views: super.draw overrides, non-drawing opaque views, empty tiled scroll views, degenerate touches")
struct ViewEdgeCaseTests {
    @Test("an override that calls super.draw and paints keeps drawing, for every instance")
    func superDraw() throws {
        let window = try makeWindow()
        final class Striped: View {
            override func draw(_ rect: Rect) {
                super.draw(rect)
                currentGraphicsContext()?.setFillColor(.blue)
                currentGraphicsContext()?.fill(bounds)
            }
        }
        let a = Striped(frame: Rect(x: 0, y: 0, width: 20, height: 20))
        let b = Striped(frame: Rect(x: 30, y: 0, width: 20, height: 20))
        window.addSubview(a); window.addSubview(b)
        try window.compositeNow()
        let image = try pixels(window)
        #expect(image[10, 10] == px(0, 0, 255) && image[40, 10] == px(0, 0, 255))
    }

    @Test("a non-drawing class found out on an opaque view keeps the view's contents and background")
    func opaqueProbe() throws {
        let window = try makeWindow()
        final class Plain: View {}
        let v = Plain(frame: Rect(x: 0, y: 0, width: 20, height: 20))
        v.isOpaque = true
        v.backgroundColor = .red
        window.addSubview(v)
        try window.compositeNow()
        #expect(try pixels(window)[10, 10] == px(255, 0, 0))
    }

    @Test("tiled scroll views survive empty bounds, and follow contentSize changes")
    func tiledEdgeCases() throws {
        let window = try makeWindow(width: 100, height: 100)
        let tiles = TiledScrollView(frame: .zero, contentSize: Size(width: 100, height: 50), tileSize: Size(width: 50, height: 25)) { _, _, rect, c in
            c.setFillColor(.green); c.fill(rect)
        }
        window.addSubview(tiles)
        try window.compositeNow()       // empty bounds: nothing, no crash
        #expect(tiles.tileDraws == 0)
        tiles.frame = Rect(x: 0, y: 0, width: 100, height: 100)
        try window.compositeNow()
        #expect(tiles.tiles.filter { !$0.isHidden }.count == 4)
        tiles.contentSize = Size(width: 100, height: 1000)
        try window.compositeNow()
        #expect(tiles.tiles.filter { !$0.isHidden }.count == 8)
        #expect(try pixels(window)[50, 80] == px(0, 255, 0))
        tiles.contentOffset = Point(x: 0, y: 900)
        tiles.contentSize = Size(width: 100, height: 100)
        try window.compositeNow()
        #expect(tiles.contentOffset == .zero)
        #expect(tiles.tiles.filter { !$0.isHidden }.count == 8 && tiles.tiles.filter { !$0.isHidden }.allSatisfy { $0.row < 4 })
        // Bounds above and left of the content (set directly, past the clamping): no tile, no crash.
        tiles.bounds = Rect(x: -300, y: -200, width: 100, height: 100)
        tiles.setNeedsLayout()
        try window.compositeNow()
        #expect(tiles.tiles.allSatisfy { $0.isHidden })
    }

    @Test("a view scaled to nothing is not hit; stationary touches are not delivered; a repeated began cancels the old touch")
    func inputEdgeCases() throws {
        let window = try makeWindow()
        final class Recorder: View {
            var events: [String] = []
            override func touchesBegan(_ touches: Set<Touch>, with event: Event) { events.append("began") }
            override func touchesMoved(_ touches: Set<Touch>, with event: Event) { events.append("moved") }
            override func touchesCancelled(_ touches: Set<Touch>, with event: Event) { events.append("cancelled") }
        }
        let flat = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        flat.transform = Transform2D(scaleX: 0, y: 0)
        window.addSubview(flat)
        #expect(window.hitTest(Point(x: 10, y: 10), with: nil) === window)
        let r = Recorder(frame: Rect(x: 100, y: 100, width: 50, height: 50))
        window.addSubview(r)
        window.send([TouchInput(identifier: 3, phase: .began, location: Point(x: 110, y: 110))])
        window.send([TouchInput(identifier: 3, phase: .stationary, location: Point(x: 110, y: 110))])
        window.send([TouchInput(identifier: 3, phase: .began, location: Point(x: 120, y: 120))])
        #expect(r.events == ["began", "cancelled", "began"])
    }
}

@MainActor
@Suite("Views: a tiled scroll view draws only newly exposed tiles")
struct TilingTests {
    /// Content drawn per tile: a colour per cell and a diagonal line across the whole content.
    static func drawContent(_ row: Int, _ column: Int, _ rect: Rect, _ c: GraphicsContext) {
        c.setFillColor(Color(red: Double(row % 4) / 3, green: Double(column % 3) / 2, blue: 0.5))
        c.fill(rect)
        c.setStrokeColor(.black)
        c.setLineWidth(3)
        c.move(to: Point(x: 0, y: 0)); c.addLine(to: Point(x: 400, y: 1000)); c.strokePath()
    }

    @Test("only newly exposed tiles draw: scrolling by a tile's height draws exactly one row; pixels match a direct drawing")
    func tiles() throws {
        let window = try makeWindow(width: 100, height: 100)
        let scroll = TiledScrollView(frame: Rect(x: 0, y: 0, width: 100, height: 100),
                                     contentSize: Size(width: 100, height: 1000), tileSize: Size(width: 50, height: 25),
                                     drawTile: TilingTests.drawContent)
        window.addSubview(scroll)
        try window.compositeNow()
        #expect(scroll.tiles.count == 8)            // 2 columns × 4 rows
        #expect(scroll.tileDraws == 8)
        scroll.contentOffset = Point(x: 0, y: 25)  // one tile's height
        try window.compositeNow()
        #expect(scroll.tileDraws == 10, "one new row of 2 tiles")
        #expect(scroll.tiles.count == 8, "tiles are recycled, not created")
        let drawnThisFrame = window.lastFrame.displays.count
        #expect(drawnThisFrame == 2)
        // Drag by touch: 50 points up = two rows.
        window.send([TouchInput(phase: .began, location: Point(x: 50, y: 80))])
        window.send([TouchInput(phase: .moved, location: Point(x: 50, y: 30))])
        window.send([TouchInput(phase: .ended, location: Point(x: 50, y: 30))])
        try window.compositeNow()
        #expect(scroll.contentOffset == Point(x: 0, y: 75))
        #expect(scroll.tileDraws == 14)
        // The window shows content y 75…175, as drawing that part directly would.
        let bitmap = try Bitmap(pixelSize: PixelSize(width: 100, height: 100))
        let ctx = GraphicsContext(bitmap: bitmap, origin: Point(x: 0, y: 75))
        for row in 0..<40 { for column in 0..<2 {
            let rect = Rect(x: Double(column) * 50, y: Double(row) * 25, width: 50, height: 25)
            ctx.save(); ctx.clip(to: rect); TilingTests.drawContent(row, column, rect, ctx); ctx.restore()
        } }
        ctx.invalidate()
        let reference = bitmap.rgbaImage()
        let shown = try pixels(window)
        let d = shown.difference(from: reference, tolerance: 2)
        #expect(d.differing == 0, "\(d.differing) pixels differ (max \(d.maxDifference))")
    }
}

@MainActor
@Suite("GLView", .isolatedTransactions)
struct GLViewTests {
    /// Clears the drawable to a colour that changes with each draw.
    final class Counter: GLView {
        let draws = Locked(0)
        nonisolated override func draw(in drawable: GLDrawable) {
            let n = draws.withLock { $0 += 1; return $0 }
            glClearColor(n % 2 == 1 ? 1 : 0, n % 2 == 0 ? 1 : 0, 0, 1)
            glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        }
    }

    @Test("GLKView's display: displayNow() runs the GL code and composites before it returns; setNeedsDisplay() draws once at the end of the turn")
    func displayNow() throws {
        let device = try GPUDevice()
        let target = try OffscreenTarget(device: device, pixelSize: PixelSize(width: 80, height: 60))
        let window = Window(target: target, background: .white)
        let view = Counter(frame: Rect(x: 10, y: 10, width: 40, height: 30))
        window.addSubview(view)
        try Transaction.flush()
        #expect(view.draws.withLock { $0 } == 1)
        #expect(try target.readPixels()[20, 20] == RGBAPixel(r: 255, g: 0, b: 0, a: 255))
        try view.displayNow()
        #expect(view.draws.withLock { $0 } == 2)
        #expect(try target.readPixels()[20, 20] == RGBAPixel(r: 0, g: 255, b: 0, a: 255), "on the target when displayNow() returns")
        view.setNeedsDisplay()
        view.setNeedsDisplay()
        try Transaction.flush()
        #expect(view.draws.withLock { $0 } == 3)
        #expect(view.drawableSize == PixelSize(width: 40, height: 30))
    }
    @Test("on a host's adopted context: the GL code runs in the host's context, the view is composited over the host's frame, and the host's GL state is as it was")
    func adoptedContext() throws {
        try Transaction.flush()
        let size = PixelSize(width: 64, height: 48)
        let host = try TestHost()
        defer { host.destroy() }
        let fb = host.makeFramebuffer(size)
        host.fill(fb.fbo, PixelRect(size: size), (0, 0, 1, 1), size: size)      // the host's blue frame
        let before = hostStateFingerprint()
        let device = try GPUDevice(adopting: .current)
        defer { device.close() }
        let target = try ExternalFramebufferTarget(device: device, framebuffer: fb.fbo, pixelSize: size)
        let window = Window(target: target, background: nil)
        let view = Counter(frame: Rect(x: 8, y: 8, width: 24, height: 16))
        window.addSubview(view)
        try window.compositeNow()
        #expect(view.draws.withLock { $0 } == 1)
        #expect(changedState(before, hostStateFingerprint()).isEmpty, "\(changedState(before, hostStateFingerprint()))")
        let image = host.read(fb.fbo, size: size)
        #expect(image[20, 16] == RGBAPixel(r: 255, g: 0, b: 0, a: 255), "the GL view's first draw (red): \(image[20, 16])")
        #expect(image[50, 40] == RGBAPixel(r: 0, g: 0, b: 255, a: 255), "the host's frame around it")
        window.removeFromSuperview()
    }
}

import Foundation
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import Testing
@testable import LaminaUI

@MainActor
private func makeWindow(width: Double = 200, height: Double = 200) throws -> Window {
    try Transaction.flush()   // nothing left over from other tests
    let device = try GPUDevice()
    let target = try OffscreenTarget(device: device, size: Size(width: width, height: height), scale: 1)
    return Window(target: target)
}

private let blue = RGBAPixel(r: 0, g: 0, b: 255, a: 255)
private let white = RGBAPixel(r: 255, g: 255, b: 255, a: 255)

@MainActor
@Suite("Views: robustness")
struct ViewRobustnessTests {
    @Test("a subclass calling super.draw that paints nothing on its first view does not stop later views of the class from drawing")
    func drawDecidedPerView() throws {
        let window = try makeWindow()
        final class Sometimes: View {
            var paints = false
            override func draw(_ rect: Rect) {
                super.draw(rect)
                guard paints, let c = currentGraphicsContext() else { return }
                c.setFillColor(.blue)
                c.fill(bounds)
            }
        }
        let first = Sometimes(frame: Rect(x: 0, y: 0, width: 20, height: 20))
        window.addSubview(first)
        try window.compositeNow()
        #expect(first.layer.backingStore == nil, "painted nothing: no bitmap")
        let second = Sometimes(frame: Rect(x: 40, y: 0, width: 20, height: 20))
        second.paints = true
        window.addSubview(second)
        try window.compositeNow()
        #expect(second.layer.displayCount == 1)
        #expect(try window.host.target.readPixels()[50, 10] == blue)
    }

    @Test("a view with empty bounds keeps contents set by code through its first display; shown once it has a size")
    func emptyViewKeepsContents() throws {
        let window = try makeWindow()
        final class Card: View {}
        let card = Card(frame: .zero)
        card.layer.contents = .image(ContentImage(RGBAImage(width: 2, height: 2, fill: blue)))
        window.addSubview(card)
        try window.compositeNow()
        #expect(card.layer.contents != nil)
        card.frame = Rect(x: 0, y: 0, width: 20, height: 20)
        try window.compositeNow()
        #expect(try window.host.target.readPixels()[10, 10] == blue)
    }

    @Test("non-finite frame, bounds, center, transform and alpha on a view are refused and reported; nothing traps")
    func nonFiniteViewGeometry() throws {
        let window = try makeWindow()
        let v = View(frame: Rect(x: 10, y: 10, width: 30, height: 30))
        v.backgroundColor = .blue
        window.addSubview(v)
        try window.compositeNow()
        var reports: [InvalidLayerValue] = []
        let saved = Layer.invalidValueHandler
        Layer.invalidValueHandler = { reports.append($0) }
        defer { Layer.invalidValueHandler = saved }
        v.frame = Rect(x: .nan, y: 0, width: 10, height: 10)
        v.frame = Rect(x: 0, y: 0, width: .infinity, height: 10)
        v.bounds = Rect(x: 0, y: 0, width: 10, height: -.infinity)
        v.center = Point(x: .nan, y: .nan)
        v.transform = Transform2D(scaleX: .infinity, y: 1)
        v.alpha = .nan
        #expect(reports.map(\.property) == ["frame", "frame", "bounds", "position", "transform", "opacity"])
        #expect(v.frame == Rect(x: 10, y: 10, width: 30, height: 30) && v.transform == .identity && v.alpha == 1)
        v.alpha = 7
        #expect(v.alpha == 1)
        try window.compositeNow()
        #expect(try window.host.target.readPixels()[25, 25] == blue)
    }

    @Test("tiled scroll view: a tiny tile size (1e-300, 0.05 pt) is bounded by the minimum side and the visible-tile cap; an infinite content size scrolled far does not trap")
    func tiledLimits() throws {
        let window = try makeWindow(width: 400, height: 300)
        var draws = 0
        for side in [1e-300, 0.05, 0, -.infinity, .nan] {
            let tiled = TiledScrollView(frame: Rect(x: 0, y: 0, width: 400, height: 300), contentSize: Size(width: 4000, height: 4000),
                                        tileSize: Size(width: side, height: side)) { _, _, _, _ in draws += 1 }
            window.addSubview(tiled)
            try window.compositeNow()
            #expect(tiled.tiles.count <= TiledScrollView.maximumVisibleTiles, "\(side): \(tiled.tiles.count) tiles")
            #expect(tiled.effectiveTileSize.width >= TiledScrollView.minimumTileSide)
            tiled.removeFromSuperview()
        }
        #expect(draws > 0 && draws <= 5 * TiledScrollView.maximumVisibleTiles)
        let endless = TiledScrollView(frame: Rect(x: 0, y: 0, width: 400, height: 300),
                                      contentSize: Size(width: .infinity, height: .infinity),
                                      tileSize: Size(width: 100, height: 100)) { _, _, _, _ in }
        window.addSubview(endless)
        try window.compositeNow()
        #expect(endless.tiles.count == 12)   // 4 × 3 visible
        endless.contentOffset = Point(x: 1e300, y: 1e300)
        try window.compositeNow()
        #expect(endless.tiles.allSatisfy { $0.isHidden }, "beyond the largest tile index nothing is tiled")
        endless.contentOffset = Point(x: 1000, y: 200)
        try window.compositeNow()
        #expect(endless.tiles.filter { !$0.isHidden }.count == 12)
    }

    @Test("a 100 000-deep chain of views is hit-tested in a loop and freed without recursion")
    func deepViewChain() throws {
        let window = try makeWindow()
        let depth = 100_000
        weak var weakTop: View?
        weak var weakBottom: View?
        do {
            let bottom = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
            var top = bottom
            for _ in 1..<depth {   // built bottom-up: each insertion O(1)
                let parent = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
                parent.addSubview(top)
                top = parent
            }
            window.addSubview(top)
            // (Not composited: rendering a chain this deep is the renderer's part of issue 11.)
            #expect(window.hitTest(Point(x: 50, y: 50), with: nil) === bottom)
            #expect(bottom.window === window)
            weakTop = top
            weakBottom = bottom
            top.removeFromSuperview()
        }
        #expect(weakTop == nil && weakBottom == nil)
        try window.compositeNow()
    }

    @Test("subviews: removing many siblings one by one keeps the order of the rest, and the layers follow; moves, inserts above/below work after removals")
    func wideSubviews() throws {
        let parent = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        let n = 100_000
        let views = (0..<n).map { i -> View in let v = View(); v.tag = i; return v }
        for v in views { parent.addSubview(v) }
        for i in stride(from: 0, to: n, by: 2) { views[i].removeFromSuperview() }
        #expect(parent.subviews.count == n / 2)
        #expect(parent.subviews.enumerated().allSatisfy { $0.element === views[2 * $0.offset + 1] })
        #expect(parent.layer.sublayers.map(\.id) == parent.subviews.map(\.layer.id))
        for v in parent.subviews.prefix(n / 2 - 3) { v.removeFromSuperview() }
        let left = [views[n - 5], views[n - 3], views[n - 1]]
        #expect(parent.subviews.map(\.tag) == left.map(\.tag))
        views[n - 1].removeFromSuperview()
        views[n - 5].removeFromSuperview()
        parent.insertSubview(views[0], belowSubview: views[n - 3])
        parent.insertSubview(views[2], aboveSubview: views[0])
        parent.addSubview(views[4])
        parent.sendSubviewToBack(views[4])
        parent.bringSubviewToFront(views[0])
        #expect(parent.subviews.map(\.tag) == [4, 2, n - 3, 0])
        #expect(parent.layer.sublayers.map(\.id) == parent.subviews.map(\.layer.id))
        #expect(parent.subviews.allSatisfy { $0.superview === parent })
    }

    @Test("a touch on the bottom of a 100 000-deep chain of views goes up the responder chain in a loop: through an override calling super, to the view that handles it")
    func deepResponderChain() throws {
        let window = try makeWindow()
        var log: [String] = []
        final class Catcher: View {
            var log: ((String) -> Void)?
            override func touchesBegan(_ touches: Set<Touch>, with event: Event) { log?("caught") }
        }
        final class Passer: View {
            var log: ((String) -> Void)?
            override func touchesBegan(_ touches: Set<Touch>, with event: Event) {
                log?("passing")
                super.touchesBegan(touches, with: event)
            }
        }
        let catcher = Catcher(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        catcher.log = { log.append($0) }
        let passer = Passer(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        passer.log = { log.append($0) }
        var top: View = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        let bottom = top
        for _ in 1..<100_000 {
            let parent = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
            parent.addSubview(top)
            top = parent
        }
        passer.addSubview(top)
        top = passer
        for _ in 0..<1000 {   // plain views between the passer and the catcher
            let parent = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
            parent.addSubview(top)
            top = parent
        }
        catcher.addSubview(top)
        window.addSubview(catcher)
        window.send([TouchInput(phase: .began, location: Point(x: 5, y: 5))])
        #expect(log == ["passing", "caught"])
        #expect(window.hitTest(Point(x: 5, y: 5), with: nil) === bottom)
        catcher.removeFromSuperview()
    }
}

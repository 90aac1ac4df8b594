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

/// A layer that paints itself red and counts its draws and the layers of its class freed.
@MainActor
final class TallyLayer: Layer {
    static var freed = 0
    static var drawn = 0
    override func draw(in context: GraphicsContext) {
        TallyLayer.drawn += 1
        context.setFillColor(.red)
        context.fill(bounds)
    }
    isolated deinit { TallyLayer.freed += 1 }
}

/// Runs `body` and prints its wall-clock time (measured for the report, never asserted).
@MainActor
func timed<T>(_ label: String, _ body: () throws -> T) rethrows -> T {
    let clock = ContinuousClock()
    var result: T?
    let elapsed = try clock.measure { result = try body() }
    print("TIMING \(label): \(elapsed)")
    return result!
}

/// Collects the values layers refuse while `body` runs.
@MainActor
func refusals(_ body: () throws -> Void) rethrows -> [InvalidLayerValue] {
    var reports: [InvalidLayerValue] = []
    let saved = Layer.invalidValueHandler
    Layer.invalidValueHandler = { reports.append($0) }
    defer { Layer.invalidValueHandler = saved }
    try body()
    return reports
}

/// Collects the transaction warnings while `body` runs.
@MainActor
func transactionWarnings(_ body: () throws -> Void) rethrows -> [TransactionWarning] {
    var warnings: [TransactionWarning] = []
    let saved = Transaction.warningHandler
    Transaction.warningHandler = { warnings.append($0) }
    defer { Transaction.warningHandler = saved }
    try body()
    return warnings
}

@MainActor
@Suite("Model robustness: values from the API", .withoutImplicitAnimations)
struct ModelValueTests {
    @Test("PixelSize(covering:) never traps: NaN is 0 px, huge and infinite sides saturate; checked(covering:) is nil for them")
    func pixelSizeConversion() {
        #expect(PixelSize(covering: Size(width: 100.0000001, height: 10), scale: 2) == PixelSize(width: 200, height: 20))
        #expect(PixelSize(covering: Size(width: 1e19, height: 1), scale: 1).width == Int(Int32.max))
        #expect(PixelSize(covering: Size(width: 1, height: 1), scale: 1e300).height == Int(Int32.max))
        #expect(PixelSize(covering: Size(width: .nan, height: -.infinity), scale: 1) == PixelSize(width: 0, height: -Int(Int32.max)))
        #expect(PixelSize.checked(covering: Size(width: 1e19, height: 1), scale: 1) == nil)
        #expect(PixelSize.checked(covering: Size(width: 1, height: 1), scale: .infinity) == nil)
        #expect(PixelSize.checked(covering: Size(width: .nan, height: 1), scale: 1) == nil)
        #expect(PixelSize.checked(covering: Size(width: 3.5, height: 2), scale: 2) == PixelSize(width: 7, height: 4))
    }

    @Test("a backing store too large to represent (1e7 pt at contentsScale 4096, a width of 1e19) is the commit's error naming the layer, not a trap; the rest of the commit runs")
    func unrepresentableBackingStore() throws {
        let s = try Scene()
        let fine = s.addCountingLayer(Rect(x: 0, y: 0, width: 10, height: 10))
        let scaled = TallyLayer()
        scaled.name = "scaled"
        scaled.frame = Rect(x: 0, y: 0, width: 1e7, height: 10)
        scaled.contentsScale = 4096
        scaled.contentsScale = 1e300        // beyond PixelScale.range: refused, the value stays
        #expect(scaled.contentsScale == 4096)
        scaled.setNeedsDisplay()
        s.root.addSublayer(scaled)
        let wide = TallyLayer()
        wide.name = "wide"
        wide.frame = Rect(x: 0, y: 0, width: 1e19, height: 10)
        wide.setNeedsDisplay()
        s.root.addSublayer(wide)
        var caught: CommitError?
        do { try Transaction.flush() } catch let e as CommitError { caught = e }
        let failures = try #require(caught).failures
        #expect(failures.map(\.layer) == ["scaled", "wide"])
        #expect(failures.allSatisfy { $0.phase == .display })
        #expect(failures[0].message.contains("contentsScale 4096") && failures[0].message.contains("lower contentsScale"))
        // Typed causes: the display's own errors, to match on.
        if case .backingStoreSizeNotRepresentable(let layer, _, let scale, _)? = failures[0].cause.error as? DisplayError {
            #expect(layer == "scaled" && scale == 4096)
        } else { Issue.record("cause: \(failures[0].cause)") }
        #expect(failures[1].cause.error is DisplayError, "\(failures[1].cause)")
        #expect(fine.displayCount == 1, "the other layers still draw")
        #expect(try s.pixels()[5, 5] == red)
    }

    @Test("a shape layer whose path reaches past any finite extent fails its display with a clear error (the C-API fuzzer's trap)")
    func shapeBeyondFiniteExtent() throws {
        let s = try Scene()
        let shape = ShapeLayer()
        shape.name = "far"
        shape.frame = Rect(x: 0, y: 0, width: 10, height: 10)
        var path = Path()
        path.move(to: Point(x: -1.5e308, y: 0))
        path.addLine(to: Point(x: 1.5e308, y: 5))
        path.addLine(to: Point(x: 0, y: 10))
        path.closeSubpath()
        shape.path = path
        s.root.addSublayer(shape)
        var caught: CommitError?
        do { try Transaction.flush() } catch let e as CommitError { caught = e }
        let failures = try #require(caught).failures
        #expect(failures.map(\.layer) == ["far"] && failures[0].phase == .display)
        guard case .shapeExtentNotRepresentable(let layer, _)? = failures[0].cause.error as? DisplayError else {
            Issue.record("cause: \(failures[0].cause)"); return
        }
        #expect(layer == "far" && failures[0].message.contains("within ±1e300"), "\(failures[0].message)")
        // A path within range draws again.
        shape.path = Path(rect: Rect(x: 1, y: 1, width: 8, height: 8))
        try Transaction.flush()
        #expect(shape.displayCount == 1)
    }

    @Test("non-finite geometry is refused and reported (CALayerInvalidGeometry), the property keeps its value; nothing traps at the commit")
    func nonFiniteGeometry() throws {
        let s = try Scene()
        let layer = TallyLayer()
        layer.name = "target"
        layer.frame = Rect(x: 10, y: 10, width: 20, height: 20)
        s.root.addSublayer(layer)
        try Transaction.flush()
        let before = layer.properties
        let reports = refusals {
            layer.bounds = Rect(x: 0, y: 0, width: .nan, height: 10)
            layer.bounds.origin.x = .infinity
            layer.position = Point(x: .infinity, y: 0)
            layer.frame = Rect(x: 0, y: 0, width: 1, height: .nan)
            layer.frame.origin.x = .infinity
            layer.anchorPoint = Point(x: .nan, y: 0.5)
            layer.anchorPointZ = -.infinity
            layer.zPosition = .nan
            var t = Transform3D.identity
            t.m34 = .nan
            layer.transform = t
            layer.sublayerTransform = Transform3D(scaleX: .infinity, y: 1, z: 1)
            layer.contentsScale = .infinity
            layer.contentsScale = 0
            layer.contentsScale = -2
            layer.contentsRect = Rect(x: .nan, y: 0, width: 1, height: 1)
            layer.contentsCenter = Rect(x: 0, y: 0, width: .infinity, height: 1)
            layer.borderWidth = .nan
            layer.cornerRadius = .infinity
            layer.backgroundColor = Color(red: .nan, green: 0, blue: 0)
            layer.borderColor = Color(red: 0, green: 0, blue: 0, alpha: .infinity)
            layer.opacity = .nan
        }
        #expect(reports.map(\.property) == ["bounds", "bounds", "position", "frame", "frame", "anchorPoint", "anchorPointZ",
                                            "zPosition", "transform", "sublayerTransform", "contentsScale", "contentsScale",
                                            "contentsScale", "contentsRect", "contentsCenter", "borderWidth", "cornerRadius",
                                            "backgroundColor", "borderColor", "opacity"])
        #expect(reports.allSatisfy { $0.layer == "target" && $0.layerID == layer.id })
        #expect(reports[0].description.contains("CALayerInvalidGeometry"))
        #expect(layer.properties == before, "every refused value left the layer as it was")
        layer.setNeedsDisplay()
        try Transaction.flush()
        #expect(try s.pixels()[20, 20] == red)
    }

    @Test("opacity outside 0…1 is clamped, as Core Animation presents it")
    func opacityClamped() {
        let layer = Layer()
        layer.opacity = 5
        #expect(layer.opacity == 1)
        layer.opacity = -3
        #expect(layer.opacity == 0)
        layer.opacity = 0.25
        #expect(layer.opacity == 0.25)
        layer.opacity = .infinity
        #expect(layer.opacity == 1)
    }

    @Test("setNeedsDisplay(_:) with an infinite or huge rectangle redraws everything; a NaN one is ignored")
    func infiniteDirtyRect() throws {
        let s = try Scene()
        let layer = s.addCountingLayer(Rect(x: 0, y: 0, width: 40, height: 30))
        try Transaction.flush()
        #expect(layer.displayCount == 1)
        layer.setNeedsDisplay(Rect(x: -.infinity, y: -.infinity, width: .infinity, height: .infinity))
        #expect(layer.needsDisplay)
        try Transaction.flush()
        #expect(layer.displayCount == 2 && layer.clips.last == Rect(x: 0, y: 0, width: 40, height: 30))
        // Core Graphics' infinite rectangle: finite numbers, larger than anything.
        layer.setNeedsDisplay(Rect(x: -8.98846567431158e307, y: -8.98846567431158e307,
                                   width: .greatestFiniteMagnitude, height: .greatestFiniteMagnitude))
        try Transaction.flush()
        #expect(layer.displayCount == 3 && layer.clips.last == Rect(x: 0, y: 0, width: 40, height: 30))
        layer.setNeedsDisplay(Rect(x: .nan, y: 0, width: 10, height: 10))
        #expect(!layer.needsDisplay)
        try Transaction.flush()
        #expect(layer.displayCount == 3)
    }

    @Test("with empty bounds, setNeedsDisplay keeps contents set by code (drawn contents go)")
    func emptyBoundsKeepContents() throws {
        let s = try Scene()
        let layer = TallyLayer()
        s.root.addSublayer(layer)
        let image = ContentImage(RGBAImage(width: 2, height: 2, fill: RGBAPixel(r: 0, g: 0, b: 255, a: 255)))
        layer.contents = .image(image)
        layer.setNeedsDisplay()
        try Transaction.flush()
        #expect(layer.contents?.isSame(as: .image(image)) == true, "an empty layer's display keeps an image set by code")
        // Drawn content of a layer that becomes empty goes.
        layer.contents = nil
        layer.frame = Rect(x: 0, y: 0, width: 10, height: 10)
        layer.setNeedsDisplay()
        try Transaction.flush()
        #expect(layer.backingStore != nil)
        layer.bounds.size = .zero
        layer.setNeedsDisplay()
        try Transaction.flush()
        #expect(layer.contents == nil && layer.backingStore == nil)
    }
}

@MainActor
@Suite("Model robustness: transactions", .withoutImplicitAnimations)
struct TransactionRobustnessTests {
    @Test("commit() without begin() is harmless: it commits what is pending and warns")
    func commitWithoutBegin() throws {
        let s = try Scene()
        let layer = s.addCountingLayer(Rect(x: 0, y: 0, width: 10, height: 10))
        let warnings = try transactionWarnings { try Transaction.commit() }
        #expect(warnings == [.commitWithoutBegin])
        #expect(layer.displayCount == 1)
    }

    @Test("a begin() never committed holds commits back for one end of turn only: the next end of turn closes it, warns and commits; later commits work")
    func uncommittedBegin() throws {
        let s = try Scene()
        let layer = s.addCountingLayer(Rect(x: 0, y: 0, width: 10, height: 10))
        try Transaction.flush()
        Transaction.begin()
        layer.color = .blue
        layer.setNeedsDisplay()
        var warnings = try transactionWarnings { try Transaction.commitIfNeeded() }   // the turn it began in
        #expect(warnings.isEmpty && layer.displayCount == 1)
        warnings = try transactionWarnings { try Transaction.commitIfNeeded() }        // the next turn's end
        #expect(warnings == [.uncommittedTransaction(depth: 1)])
        #expect(try layer.displayCount == 2 && s.pixels()[5, 5] == blue)
        layer.color = .green
        layer.setNeedsDisplay()
        try Transaction.flush()
        #expect(try layer.displayCount == 3 && s.pixels()[5, 5] == green)
    }

    @Test("a layout that never settles is the commit's error (phase layout, naming the layer); the commit still displays and composites; the next commit works")
    func layoutNeverSettles() throws {
        let s = try Scene()
        final class Restless: Layer {
            var runs = 0
            override func layoutSublayers() { runs += 1; setNeedsLayout() }
        }
        let restless = Restless()
        restless.name = "restless"
        s.root.addSublayer(restless)
        restless.setNeedsLayout()
        let drawn = s.addCountingLayer(Rect(x: 0, y: 0, width: 10, height: 10))
        var caught: CommitError?
        do { try Transaction.flush() } catch let e as CommitError { caught = e }
        let failure = try #require(caught?.failures.first)
        #expect(failure.phase == .layout && failure.layer == "restless" && failure.message.contains("does not settle"))
        #expect(failure.cause == .layoutDoesNotSettle(passes: Transaction.maximumLayoutPasses, layers: ["restless"]))
        #expect((Transaction.maximumLayoutPasses...2 * Transaction.maximumLayoutPasses).contains(restless.runs), "bounded work")
        #expect(!restless.needsLayout)
        #expect(try drawn.displayCount == 1 && s.pixels()[5, 5] == red)
        try Transaction.flush()   // nothing left queued
        #expect(caught == CommitError(failures: [failure]), "compared field by field")
        #expect(CommitError(failures: [failure]) != CommitError(failures: [CommitError.Failure(phase: .display, layer: "restless", layerID: restless.id, message: failure.message)]))
    }

    @Test("layers built, changed and dropped are neither kept, drawn nor delivered by the next unrelated commit; live layers outside hosted trees are not delivered")
    func droppedLayers() throws {
        let s = try Scene()
        try Transaction.flush()
        TallyLayer.freed = 0
        TallyLayer.drawn = 0
        weak var dropped: TallyLayer?
        do {
            // A half-built tree, as a failed Scene.parse leaves it: changed, invalid, then dropped.
            let top = TallyLayer()
            for _ in 0..<10 {
                let l = TallyLayer()
                l.frame = Rect(x: 0, y: 0, width: 10, height: 10)
                l.backgroundColor = .blue
                l.setNeedsDisplay()
                l.setNeedsLayout()
                top.addSublayer(l)
            }
            top.setNeedsDisplay()
            dropped = top
        }
        #expect(dropped == nil && TallyLayer.freed == 11, "the transaction does not keep them alive")
        let detached = Layer()                     // alive, but in no hosted tree
        detached.backgroundColor = .green
        let unrelated = s.addCountingLayer(Rect(x: 0, y: 0, width: 10, height: 10))
        try Transaction.flush()
        #expect(TallyLayer.drawn == 0)
        #expect(unrelated.displayCount == 1)
        #expect(TransactionContext.current.lastDelivery.described == 2, "the root (sublayers changed) and the new layer")
        #expect(TransactionContext.current.lastDelivery.leftOut == 1, "the detached layer")
        #expect(s.host.compositor.tree?.contains(detached.id) == false)
        // Joining the hosted tree, it is described whole.
        detached.frame = Rect(x: 20, y: 0, width: 10, height: 10)
        s.root.addSublayer(detached)
        try Transaction.flush()
        #expect(try s.pixels()[25, 5] == green)
    }

    @Test("which changed layers are in a hosted tree follows every change of shape between commits (the look-up's answers are kept while none happens)")
    func hostedAnswersFollowShape() throws {
        let s = try Scene()
        let parent = Layer(), child = Layer(), maskHolder = Layer(), mask = Layer()
        parent.frame = Rect(x: 0, y: 0, width: 50, height: 50)
        child.frame = Rect(x: 0, y: 0, width: 10, height: 10)
        maskHolder.frame = Rect(x: 50, y: 50, width: 50, height: 50)
        mask.frame = Rect(x: 0, y: 0, width: 50, height: 50)
        parent.addSublayer(child)
        s.root.addSublayer(parent)
        s.root.addSublayer(maskHolder)
        try Transaction.flush()
        var shade = 0.0
        /// Changes `layers`, commits, and returns what the delivery described and left out.
        func change(_ layers: Layer...) throws -> (described: Int, leftOut: Int) {
            shade += 0.125
            for l in layers { l.backgroundColor = Color(red: shade, green: 0, blue: 0, alpha: 1) }
            try Transaction.flush()
            return TransactionContext.current.lastDelivery
        }
        // Twice with no change of shape between: the second look-up keeps the first's answers.
        #expect(try change(child) == (1, 0))
        #expect(try change(child) == (1, 0))
        // Its parent leaves the hosted tree (the root is described for its sublayers).
        parent.removeFromSuperlayer()
        try Transaction.flush()
        #expect(try change(child) == (0, 1), "a sublayer of a removed layer is not delivered")
        #expect(try change(child) == (0, 1))
        // Back in the tree: described whole when it joins, then by its changes.
        s.root.addSublayer(parent)
        try Transaction.flush()
        #expect(try change(child) == (1, 0))
        // A mask joins and leaves through maskOwner.
        #expect(try change(mask) == (0, 1), "not yet a mask")
        maskHolder.mask = mask
        try Transaction.flush()
        #expect(try change(mask) == (1, 0), "the hosted layer's mask")
        maskHolder.mask = nil
        try Transaction.flush()
        #expect(try change(mask) == (0, 1), "no longer a mask")
        // A host whose root is another layer: the same layers are outside what it shows.
        s.host.detach()
        try Transaction.flush()
        #expect(try change(child) == (0, 1), "no host shows the tree any more")
    }
}

@MainActor
@Suite("Model robustness: deep and wide trees")
struct DeepWideTreeTests {
    @Test("a 100 000-deep chain is built, laid out, drawn, committed and freed without recursion; depth, hit testing and conversions work at the bottom")
    func deepChain() throws {
        try Transaction.flush()
        TallyLayer.freed = 0
        TallyLayer.drawn = 0
        let depth = 100_000
        var laidOut = 0
        final class Counting: Layer {
            var onLayout: (() -> Void)?
            override func layoutSublayers() { onLayout?() }
        }
        weak var weakRoot: Layer?
        try timed("deep chain of \(depth): built, committed, freed (both chains)") {
            let root = Counting()
            root.frame = Rect(x: 0, y: 0, width: 100, height: 100)
            let bottom: Layer = timed("deep chain: build \(depth) top-down") {
                var bottom: Layer = root
                for i in 0..<depth {
                    let l: Layer = i == depth - 1 ? TallyLayer() : Counting()
                    l.frame = Rect(x: 0, y: 0, width: 100, height: 100)
                    (l as? Counting)?.onLayout = { laidOut += 1 }
                    bottom.addSublayer(l)
                    bottom = l
                }
                return bottom
            }
            root.onLayout = { laidOut += 1 }
            bottom.setNeedsDisplay()
            try timed("deep chain: commit (layout \(depth), display 1)") { try Transaction.flush() }
            #expect(laidOut == depth, "the root and every Counting layer below it laid out once")
            #expect(TallyLayer.drawn == 1)
            #expect(timed("deep chain: hit test") { root.hitTest(Point(x: 50, y: 50)) } === bottom)
            #expect(bottom.convert(Point(x: 1, y: 2), to: bottom.superlayer) == Point(x: 1, y: 2))
            #expect(bottom.rootLayer === root && bottom.isDescendant(of: root))
            // Built bottom-up too: each insertion O(1).
            let top: Layer = timed("deep chain: build \(depth) bottom-up") {
                var top: Layer = Layer()
                for _ in 0..<depth {
                    let parent = Layer()
                    parent.addSublayer(top)
                    top = parent
                }
                return top
            }
            root.addSublayer(top)
            try timed("deep chain: commit the second chain") { try Transaction.flush() }
            weakRoot = root
            root.onLayout = nil
        }
        #expect(weakRoot == nil && TallyLayer.freed == 1, "the chains were freed (no stack overflow)")
    }

    @Test("a 1 000 000-wide sibling list is added, committed, removed one by one (in order kept) and freed")
    func wideSiblings() throws {
        try Transaction.flush()
        let width = 1_000_000
        weak var weakParent: Layer?
        try timed("wide: \(width) siblings added, committed, removed, freed") {
            let parent = Layer()
            var children: [Layer] = []
            children.reserveCapacity(width)
            timed("wide: add \(width)") {
                for i in 0..<width {
                    let l = Layer()
                    l.frame = Rect(x: Double(i % 100), y: 0, width: 1, height: 1)
                    parent.addSublayer(l)
                    children.append(l)
                }
            }
            #expect(parent.sublayers.count == width)
            try timed("wide: commit \(width)") { try Transaction.flush() }
            // Remove every second one, from the front: the order of the rest is kept.
            timed("wide: remove \(width / 2) one by one from the front") {
                for i in stride(from: 0, to: width, by: 2) { children[i].removeFromSuperlayer() }
            }
            let rest = parent.sublayers
            #expect(rest.count == width / 2)
            #expect(rest.enumerated().allSatisfy { $0.element === children[2 * $0.offset + 1] })
            timed("wide: remove the other \(width / 2) (iterating a copy of sublayers)") {
                for l in rest { l.removeFromSuperlayer() }
            }
            #expect(parent.sublayers.isEmpty)
            try Transaction.flush()
            timed("wide: free \(width)") { children = [] }
            weakParent = parent
        }
        #expect(weakParent == nil)
        // The figure of issue 11: 40 000 siblings removed one by one.
        let parent = Layer()
        let forty = (0..<40_000).map { _ in Layer() }
        for l in forty { parent.addSublayer(l) }
        timed("remove 40 000 siblings one by one (first to last)") {
            for l in parent.sublayers { l.removeFromSuperlayer() }
        }
        #expect(parent.sublayers.isEmpty && forty.allSatisfy { $0.superlayer == nil })
    }

    @Test("Layer.hitTest (CALayer's): the farthest layer containing the point, top-most sublayer first; hidden layers and points outside a masking layer skip its sublayers")
    func layerHitTest() {
        let root = rootLayer(width: 100, height: 100)
        let a = solid(Rect(x: 0, y: 0, width: 50, height: 50), .red)
        let b = solid(Rect(x: 25, y: 25, width: 50, height: 50), .blue)
        let child = solid(Rect(x: 40, y: 40, width: 20, height: 20), .green)   // reaches outside b
        b.addSublayer(child)
        root.addSublayer(a)
        root.addSublayer(b)
        #expect(root.hitTest(Point(x: 10, y: 10)) === a)
        #expect(root.hitTest(Point(x: 30, y: 30)) === b, "b is above a")
        #expect(root.hitTest(Point(x: 80, y: 80)) === child, "a sublayer outside its superlayer's bounds is hit")
        b.masksToBounds = true
        #expect(root.hitTest(Point(x: 80, y: 80)) === root, "…unless the superlayer masks")
        b.isHidden = true
        #expect(root.hitTest(Point(x: 30, y: 30)) === a)
        #expect(root.hitTest(Point(x: 150, y: 10)) == nil)
        b.isHidden = false
        b.transform = Transform3D(scaleX: 2, y: 2)   // about its centre (50, 50): covers 0…100
        #expect(root.hitTest(Point(x: 5, y: 5)) === b)
    }

    @Test("sublayer order semantics with removed slots: insert at/above/below, replace, re-add and move behave as on a plain list")
    func orderWithRemovedSlots() {
        let p = Layer()
        let ls = (0..<8).map { i -> Layer in let l = Layer(); l.name = "\(i)"; return l }
        for l in ls { p.addSublayer(l) }
        func names() -> [String] { p.sublayers.map { $0.name ?? "?" } }
        ls[2].removeFromSuperlayer()
        ls[4].removeFromSuperlayer()
        #expect(p.sublayerCount == 6)
        p.insertSublayer(ls[2], above: ls[5])
        #expect(names() == ["0", "1", "3", "5", "2", "6", "7"])
        ls[1].removeFromSuperlayer()
        p.insertSublayer(ls[4], below: ls[3])
        #expect(names() == ["0", "4", "3", "5", "2", "6", "7"])
        ls[6].removeFromSuperlayer()
        p.replaceSublayer(ls[5], with: ls[1])
        #expect(names() == ["0", "4", "3", "1", "2", "7"])
        ls[0].removeFromSuperlayer()
        p.insertSublayer(ls[7], at: 0)   // a move to the front
        #expect(names() == ["7", "4", "3", "1", "2"])
        ls[3].removeFromSuperlayer()
        p.addSublayer(ls[4])             // a move to the top
        #expect(names() == ["7", "1", "2", "4"])
        p.insertSublayer(ls[2], at: 1)
        #expect(names() == ["7", "2", "1", "4"])
        #expect(p.sublayers.allSatisfy { $0.superlayer === p })
        #expect(!p.addSublayer(p) && !ls[7].addSublayer(p), "cycles are still refused")
    }
}

@Suite("Model robustness: images")
struct ImageRobustnessTests {
    @Test("images of different sizes differ everywhere (no trap)")
    func differentSizes() {
        let a = RGBAImage(width: 2, height: 2), b = RGBAImage(width: 3, height: 1)
        #expect(a.difference(from: b) == (differing: 4, maxDifference: 255))
        #expect(a.difference(from: a) == (differing: 0, maxDifference: 0))
    }
}

import Foundation
import LaminaGeometry
import LaminaGPU
import Testing
@testable import LaminaCore
@testable import LaminaModel
@testable import LaminaRender
@testable import LaminaValues
import LaminaTestSupport

/// Non-finite and absurd geometry reaching the renderer: such layers are not drawn (see
/// docs/notes-i11-render.md); the others draw as if they were not there; nothing traps or
/// hangs.
@MainActor
@Suite("Non-finite geometry in the renderer", .isolatedTransactions, .withoutImplicitAnimations)
struct NonFiniteRenderTests {
    @Test("TargetBox.of: NaN or ∞ in the rectangle or the transform, or corners beyond 1e15 pt, give no box; a layer wholly behind the eye none either")
    func boxOf() {
        let everything = TargetBox(minX: 0, minY: 0, maxX: 100, maxY: 100)
        let r = Rect(x: 0, y: 0, width: 10, height: 10)
        var nan = Transform3D.identity
        nan.m11 = .nan
        var inf = Transform3D.identity
        inf.m41 = .infinity
        var behind = Transform3D.identity
        behind.m44 = -1
        #expect(TargetBox.of(layerRect: r, through: nan, everything: everything).isEmpty)
        #expect(TargetBox.of(layerRect: r, through: inf, everything: everything).isEmpty)
        #expect(TargetBox.of(layerRect: r, through: behind, everything: everything).isEmpty)
        #expect(TargetBox.of(layerRect: Rect(x: .nan, y: 0, width: 10, height: 10), through: .identity, everything: everything).isEmpty)
        #expect(TargetBox.of(layerRect: Rect(x: 0, y: 0, width: 1e300, height: 10), through: .identity, everything: everything).isEmpty)
        #expect(TargetBox.of(layerRect: r, through: .identity, everything: everything) == TargetBox(minX: -1, minY: -1, maxX: 11, maxY: 11))
    }

    @Test("the grid takes boxes of any size or NaN without trapping or looping over their cells")
    func grid() {
        var grid = Grid(size: Size(width: 256, height: 256))
        let node = RenderNode(state: LayerState(id: LayerID.next(), properties: LayerProperties(), preservesDepth: false, contents: nil,
                                                sublayers: [], changes: .all), parent: nil)
        let boxes = [TargetBox(minX: -1e300, minY: -1e300, maxX: 1e300, maxY: 1e300),
                     TargetBox(minX: .nan, minY: 0, maxX: 10, maxY: .nan),
                     TargetBox(minX: -.infinity, minY: 10, maxX: .infinity, maxY: 20),
                     TargetBox(minX: 10, minY: 10, maxX: 20, maxY: 20),
                     TargetBox(minX: 1e300, minY: 1e300, maxX: .infinity, maxY: .infinity)]
        let items = boxes.enumerated().map { i, b in
            let item = Item(node: node, kind: SolidItem.self, key: UInt64(i), surface: .target, clip: nil)
            item.bounds = b
            return item
        }
        for item in items { grid.insert(item) }
        var found: [Item] = []
        grid.query(TargetBox(minX: 0, minY: 0, maxX: 30, maxY: 30), into: &found)
        #expect(Set(found.map(\.key)) == [0, 2, 3], "\(found.map(\.key))")
        for item in items { grid.remove(item) }
        found = []
        grid.query(TargetBox(minX: .nan, minY: -1e300, maxX: 1e300, maxY: .infinity), into: &found)
        #expect(found.isEmpty)
        // A 16384-pixel target at 1/4096 pixel per point is 6.7e7 points wide: 64-point cells
        // would be 2^40 of them; the cells grow instead (at most 1024 a side).
        let huge = Grid(size: Size(width: 16384 * 4096, height: 16384 * 4096))
        #expect(huge.columns == 1024 && huge.rows == 1024 && huge.cell == 65536, "\(huge.columns)×\(huge.rows), \(huge.cell)")
        #expect(Grid(size: Size(width: 1920, height: 1080)).cell == 64)
    }

    @Test("layers with NaN, ∞ or 1e300 geometry, opacity or depth, mixed with normal ones: the normal ones draw exactly, in full and damage-limited frames")
    func mixed() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let target = try OffscreenTarget(device: device, size: Size(width: 128, height: 128))
        let root = rootLayer(width: 128, height: 128)
        let green = solid(Rect(x: 10, y: 10, width: 20, height: 20), .green)
        let blue = solid(Rect(x: 60, y: 60, width: 20, height: 20), .blue)
        let red = solid(Rect(x: 100, y: 10, width: 20, height: 20), .red)
        root.addSublayer(green)
        let compositor = LayerRenderer(device: device)
        defer { compositor.release() }
        // The model refuses NaN and ∞ (Layer.invalidValueHandler), so they are handed to the
        // renderer directly, as another model (or an animation) could: a layer's state with
        // its properties changed. 1e300 passes the model and overflows in the renderer.
        func inject(_ layer: Layer, _ configure: (inout LayerProperties) -> Void) {
            var p = layer.properties
            p.isHidden = false
            configure(&p)
            let s = layer.wholeState
            var update = RenderUpdate()
            update.layers = [LayerState(id: s.id, properties: p, preservesDepth: s.preservesDepth, contents: s.contents,
                                        sublayers: s.sublayers, changes: .all)]
            compositor.compositor.apply(update)
        }
        var odd: [(layer: Layer, configure: (inout LayerProperties) -> Void)] = []
        func weird(_ configure: @escaping (inout LayerProperties) -> Void) {
            let l = Layer()
            l.bounds = Rect(x: 0, y: 0, width: 30, height: 30)
            l.position = Point(x: 64, y: 20)
            l.backgroundColor = .black
            l.borderWidth = 2
            l.masksToBounds = true
            l.isHidden = true              // shown with its odd values by `inject`
            let child = solid(Rect(x: 0, y: 0, width: 10, height: 10), .black)
            l.addSublayer(child)
            root.addSublayer(l)
            odd.append((l, configure))
        }
        weird { $0.bounds = Rect(x: .nan, y: 0, width: 30, height: 30) }
        weird { $0.bounds = Rect(x: 0, y: 0, width: 1e300, height: 1e300) }
        weird { $0.bounds = Rect(x: 0, y: 0, width: .infinity, height: 30) }
        weird { $0.position = Point(x: .infinity, y: 20) }
        weird { $0.position = Point(x: -1e300, y: .nan) }
        weird { $0.transform.m11 = .nan }
        weird { $0.transform.m22 = .infinity }
        weird { $0.sublayerTransform.m34 = .nan; $0.backgroundColor = nil; $0.borderWidth = 0 }
        weird { $0.opacity = .nan }
        weird { $0.opacity = -.infinity }
        weird { $0.zPosition = .nan; $0.opacity = 0.5; $0.isDoubleSided = false; $0.bounds = Rect(x: 0, y: 0, width: .nan, height: 1) }
        weird { $0.transform = Transform3D(scaleX: 1e300, y: 1e300) }
        // A group whose two items are a 1e300-wide layer's: through the model (finite values).
        let group = Layer()
        group.frame = Rect(x: 40, y: 90, width: 30, height: 30)
        group.opacity = 0.5
        let wide = Layer()
        wide.bounds = Rect(x: 0, y: 0, width: 1e300, height: 10)
        wide.backgroundColor = .black
        wide.borderWidth = 1
        group.addSublayer(wide)
        root.addSublayer(group)
        root.addSublayer(blue)
        root.addSublayer(red)
        red.opacity = 5                                   // clamped to 1: drawn opaque
        #expect(red.opacity == 1)
        func check(_ what: String, green g: Rect) throws {
            let image = try target.readPixels()
            let wrong = image.mismatches { x, y in
                let p = Point(x: Double(x) + 0.5, y: Double(y) + 0.5)
                if g.contains(p) { return LaminaCoreTests.green }
                if Rect(x: 60, y: 60, width: 20, height: 20).contains(p) { return LaminaCoreTests.blue }
                if Rect(x: 100, y: 10, width: 20, height: 20).contains(p) { return LaminaCoreTests.red }
                return white
            }
            #expect(wrong.isEmpty, "\(what): \(wrong)")
        }
        try Transaction.flush()
        let first = try compositor.render(root, to: target, background: .white)
        #expect(first.layersVisited == 6 + 2 * odd.count)
        try check("full frame", green: Rect(x: 10, y: 10, width: 20, height: 20))
        for (layer, configure) in odd { inject(layer, configure) }
        // (Each odd layer is placed again; none shows anything, so nothing may be redrawn.)
        let shown = try compositor.render(root, to: target, background: .white)
        #expect(shown.layersVisited >= 2 * odd.count, "\(shown)")
        try check("the odd layers shown", green: Rect(x: 10, y: 10, width: 20, height: 20))
        // Damage-limited frames (the grid in use), with the odd layers changing too.
        for step in 1...3 {
            green.position = Point(x: 20 + Double(step) * 3, y: 20)
            try Transaction.flush()
            inject(odd[step].layer) { odd[step].configure(&$0); $0.position = Point(x: .nan, y: Double(step)) }
            inject(odd[3 + step].layer) { odd[3 + step].configure(&$0); $0.opacity = step == 2 ? .infinity : 0.7 }
            let stats = try compositor.render(root, to: target, background: .white)
            #expect(!stats.skipped)
            try check("frame \(step)", green: Rect(x: 10 + Double(step) * 3, y: 10, width: 20, height: 20))
        }
        // And back to finite values: it draws again.
        inject(odd[0].layer) { $0.position = Point(x: 64, y: 100) }
        try compositor.render(root, to: target, background: .white)
        let image = try target.readPixels()
        #expect(image[64, 100] == black, "a layer given finite geometry again draws: \(image[64, 100])")
    }

    @Test("targets at the ends of PixelScale.range (a million points wide, or a thousandth of one) render and move a layer exactly")
    func extremeScales() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        for scale in [PixelScale.range.lowerBound, PixelScale.range.upperBound] {
            let target = try OffscreenTarget(device: device, pixelSize: PixelSize(width: 128, height: 128), scale: scale)
            defer { target.release() }
            let side = 128 / scale                      // the target's side in points
            let root = rootLayer(width: side, height: side)
            let green = solid(Rect(x: 0, y: 0, width: side / 4, height: side / 4), .green)
            root.addSublayer(green)
            root.addSublayer(solid(Rect(x: side / 2, y: side / 2, width: side / 4, height: side / 4), .blue))
            let compositor = LayerRenderer(device: device)
            defer { compositor.release() }
            func check(_ what: String, greenAt x: Int) throws {
                let image = try target.readPixels()
                let wrong = image.mismatches { px, py in
                    if (x..<(x + 32)).contains(px) && (0..<32).contains(py) { return LaminaCoreTests.green }
                    if (64..<96).contains(px) && (64..<96).contains(py) { return LaminaCoreTests.blue }
                    return white
                }
                #expect(wrong.isEmpty, "scale \(scale), \(what): \(wrong)")
            }
            try Transaction.flush()
            try compositor.render(root, to: target, background: .white)
            try check("full frame", greenAt: 0)
            // A move of 8 pixels. A million points wide: a damage-limited frame, the grid over
            // the target in use (at most 1024 cells a side). A thousandth of a point wide: a
            // box's point of margin covers the target, so the frame is full.
            green.position.x += 8 / scale
            try Transaction.flush()
            let moved = try compositor.render(root, to: target, background: .white)
            if scale < 1 { #expect(moved.fullFrameReason == nil && !moved.damageRects.isEmpty, "scale \(scale): \(moved)") }
            try check("moved", greenAt: 8)
        }
    }

    @Test("a blur σ of 1e308 and rectangles of 1e308 points are clamped, not traps (found by the C-API fuzzer)")
    func hugeBlurAndRects() throws {
        try Transaction.flush()
        let device = try GPUDevice()
        defer { device.close() }
        let target = try OffscreenTarget(device: device, pixelSize: PixelSize(width: 32, height: 32))
        defer { target.release() }
        #expect(target.pixelRect(covering: Rect(x: -1e308, y: -1e300, width: .infinity, height: 2e300)) == PixelRect(x: 0, y: 0, width: 32, height: 32))
        #expect(target.pixelRect(covering: Rect(x: .nan, y: 0, width: 4, height: .nan)).height == 0)
        let region = PixelRect(x: 0, y: 0, width: 4, height: 4)
        #expect(GaussianBlur.sourceRect(ofBlurOf: region, sigma: 1e308) == GaussianBlur.sourceRect(ofBlurOf: region, sigma: GaussianBlur.maximumSigma))
        // A backdrop blur of radius 1e308 over a half-black target: drawn (flat grey), no trap.
        let root = rootLayer(width: 32, height: 32)
        root.addSublayer(solid(Rect(x: 0, y: 0, width: 16, height: 32), .black))
        let glass = Layer()
        glass.frame = Rect(x: 0, y: 0, width: 32, height: 32)
        glass.backgroundFilters = [.gaussianBlur(radius: 1e308)]
        root.addSublayer(glass)
        let renderer = LayerRenderer(device: device)
        defer { renderer.release() }
        try Transaction.flush()
        try renderer.render(root, to: target, background: .white)
        let image = try target.readPixels()
        #expect(abs(Int(image[4, 16].r) - Int(image[28, 16].r)) < 40, "blurred flat: \(image[4, 16]) vs \(image[28, 16])")
    }
}

import Foundation
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import Synchronization
import Testing
@testable import LaminaCore
@testable import LaminaModel
@testable import LaminaRender
@testable import LaminaValues
import LaminaTestSupport

/// Counts tile draws, and draws made on the main thread (there must be none).
final class TileLog: Sendable {
    let draws = Atomic<Int>(0)
    let onMain = Atomic<Int>(0)
    let generation = Atomic<Int>(0)
}

/// A checkerboard of 50-point squares over the whole (huge) layer; a square's colour
/// depends on its position and on `log.generation`.
func checkerDrawing(_ log: TileLog) -> @Sendable (GraphicsContext) -> Void {
    { ctx in
        log.draws.add(1, ordering: .relaxed)
        if Thread.isMainThread { log.onMain.add(1, ordering: .relaxed) }
        let g = Double(log.generation.load(ordering: .relaxed))
        let r = ctx.clipBoundingBox
        var y = (r.minY / 50).rounded(.down) * 50
        while y < r.maxY {
            var x = (r.minX / 50).rounded(.down) * 50
            while x < r.maxX {
                let odd = (Int(x / 50) + Int(y / 50)) % 2 != 0
                ctx.setFillColor(odd ? Color(red: 0.1, green: 0.2 + 0.1 * g, blue: 0.8) : Color(red: 0.9, green: 0.8, blue: 0.1 + 0.1 * g))
                ctx.fill(Rect(x: x, y: y, width: 50, height: 50))
                x += 50
            }
            y += 50
        }
    }
}

@MainActor
@Suite("Tiled layers", .isolatedTransactions, .withoutImplicitAnimations)
struct TiledLayerTests {
    /// A 200×150 window onto a 100 000 × 100 000 point tiled layer, scrolled by its position.
    @MainActor
    final class Rig {
        let device: GPUDevice
        let target: OffscreenTarget
        let root = Layer()
        let window = Layer()
        let tiled: TiledLayer
        let host: LayerTreeHost
        let log = TileLog()

        init(levels: Int = 1) throws {
            try Transaction.flush()
            device = try GPUDevice()
            target = try OffscreenTarget(device: device, size: Size(width: 200, height: 150))
            root.frame = Rect(x: 0, y: 0, width: 200, height: 150)
            window.frame = Rect(x: 0, y: 0, width: 200, height: 150)
            window.masksToBounds = true
            tiled = TiledLayer(drawing: checkerDrawing(log))
            tiled.tileSize = Size(width: 64, height: 64)
            tiled.levelsOfDetail = levels
            tiled.fadeDuration = 0
            tiled.anchorPoint = .zero
            tiled.bounds = Rect(x: 0, y: 0, width: 100_000, height: 100_000)
            tiled.position = .zero
            window.addSublayer(tiled)
            root.addSublayer(window)
            host = LayerTreeHost(rootLayer: root, target: target, background: .white)
        }

        /// Commits, waits for the tiles wanted, commits them.
        func settle() throws {
            try Transaction.flush()
            #expect(tiled.waitForPendingTiles(timeout: 30))
            try Transaction.flush()
        }

        /// The checkerboard's colour at content point (x, y) (centre of a pixel).
        func expected(_ x: Double, _ y: Double) -> RGBAPixel {
            let odd = (Int((x / 50).rounded(.down)) + Int((y / 50).rounded(.down))) % 2 != 0
            let g = Double(log.generation.load(ordering: .relaxed))
            let c = odd ? Color(red: 0.1, green: 0.2 + 0.1 * g, blue: 0.8) : Color(red: 0.9, green: 0.8, blue: 0.1 + 0.1 * g)
            return c.premultipliedPixel
        }

        /// Pixels (away from square edges) that do not show the content scrolled by `offset`, scaled by `scale`.
        func wrongPixels(offset: Point, scale: Double = 1) throws -> Int {
            let image = try target.readPixels()
            var wrong = 0
            for y in stride(from: 1, to: 150, by: 3) {
                for x in stride(from: 1, to: 200, by: 3) {
                    let cx = (Double(x) + 0.5) / scale + offset.x, cy = (Double(y) + 0.5) / scale + offset.y
                    let fx = cx.truncatingRemainder(dividingBy: 50), fy = cy.truncatingRemainder(dividingBy: 50)
                    guard fx > 2 / scale + 0.5, fx < 50 - 2 / scale - 0.5, fy > 2 / scale + 0.5, fy < 50 - 2 / scale - 0.5 else { continue }
                    let e = expected(cx, cy), p = image[x, y]
                    if abs(Int(p.r) - Int(e.r)) > 2 || abs(Int(p.g) - Int(e.g)) > 2 || abs(Int(p.b) - Int(e.b)) > 2 { wrong += 1 }
                }
            }
            return wrong
        }

        func close() {
            host.detach()
            window.removeFromSuperlayer()
            device.close()
        }
    }

    @Test("a 100 000 × 100 000 point layer draws only its visible tiles, off the main thread, and shows the right content")
    func visibleTilesOnly() throws {
        let rig = try Rig()
        defer { rig.close() }
        try rig.settle()
        // 200×150 points in 64-point tiles: 4 columns × 3 rows.
        #expect(rig.log.draws.load(ordering: .relaxed) == 12 && rig.tiled.tilesDrawn == 12)
        #expect(rig.log.onMain.load(ordering: .relaxed) == 0, "tiles are drawn on worker threads")
        #expect(rig.tiled.residentTiles == 12)
        #expect(try rig.wrongPixels(offset: .zero) == 0)
    }

    @Test("scrolling across the layer draws only newly visible tiles (counted), and memory stays under the budget")
    func scrolling() throws {
        let rig = try Rig()
        defer { rig.close() }
        rig.tiled.memoryBudget = 40 * 64 * 64 * 4
        try rig.settle()
        var offset = Point.zero
        var worstStep = 0
        for step in 1...30 {
            let before = rig.log.draws.load(ordering: .relaxed)
            offset = Point(x: offset.x + 97, y: offset.y + 41)
            rig.tiled.position = Point(x: -offset.x, y: -offset.y)
            try rig.settle()
            let drawn = rig.log.draws.load(ordering: .relaxed) - before
            worstStep = max(worstStep, drawn)
            #expect(try rig.wrongPixels(offset: offset) == 0, "step \(step)")
            #expect(rig.tiled.residentTileBytes <= rig.tiled.memoryBudget, "step \(step): \(rig.tiled.residentTileBytes) bytes")
        }
        // A step of 97×41 points uncovers at most 2 new columns and 2 new rows of a 5×4 window.
        #expect(worstStep <= 5 * 4, "at most one window of tiles per step: \(worstStep)")
        #expect(rig.tiled.peakTileBytes <= rig.tiled.memoryBudget)
        #expect(rig.log.onMain.load(ordering: .relaxed) == 0)
    }

    @Test("zooming out picks the level of detail the on-screen scale needs; zooming back in draws full-resolution tiles again")
    func levelsOfDetail() throws {
        let rig = try Rig(levels: 3)
        defer { rig.close() }
        try rig.settle()
        #expect(rig.tiled.currentLevel == 0)
        let before = rig.log.draws.load(ordering: .relaxed)
        rig.tiled.transform = Transform3D(scaleX: 0.25, y: 0.25)
        try rig.settle()
        #expect(rig.tiled.currentLevel == 2, "a quarter of the size: the level drawn at 1/4")
        // 800×600 content points at density 1/4: tiles of 256 points, 4 × 3 of them.
        #expect(rig.log.draws.load(ordering: .relaxed) - before == 12)
        #expect(try rig.wrongPixels(offset: .zero, scale: 0.25) <= 20, "coarse squares, 12.5 pixels wide")
        rig.tiled.transform = .identity
        try rig.settle()
        #expect(rig.tiled.currentLevel == 0)
        #expect(try rig.wrongPixels(offset: .zero) == 0)
    }

    @Test("setNeedsDisplay(rect) draws again only the tiles it touches; setNeedsDisplay() all visible ones")
    func invalidation() throws {
        let rig = try Rig()
        defer { rig.close() }
        try rig.settle()
        let before = rig.log.draws.load(ordering: .relaxed)
        rig.log.generation.store(1, ordering: .relaxed)
        rig.tiled.setNeedsDisplay(Rect(x: 70, y: 70, width: 10, height: 10))   // inside tile (1, 1)
        try rig.settle()
        #expect(rig.log.draws.load(ordering: .relaxed) - before == 1)
        let image = try rig.target.readPixels()
        #expect(image[75, 75] == rig.expected(75.5, 75.5), "the redrawn tile shows the new content")
        rig.tiled.setNeedsDisplay()
        try rig.settle()
        #expect(rig.log.draws.load(ordering: .relaxed) - before == 13)
        #expect(try rig.wrongPixels(offset: .zero) == 0)
    }

    @Test("new bounds or a new tile size while tiles are being drawn: the tiles are cut again, nothing stale shows")
    func boundsChange() throws {
        let rig = try Rig()
        defer { rig.close() }
        rig.tiled.bounds = Rect(x: 0, y: 0, width: 60, height: 40)
        try rig.settle()
        #expect(rig.tiled.residentTiles == 1)
        rig.tiled.bounds = Rect(x: 0, y: 0, width: 110, height: 80)
        rig.tiled.tileSize = Size(width: 32, height: 32)
        try Transaction.flush()
        rig.tiled.tileSize = Size(width: 48, height: 48)   // (while the 32-pixel tiles are drawn)
        try rig.settle()
        let image = try rig.target.readPixels()
        func near(_ p: RGBAPixel, _ e: RGBAPixel) -> Bool { p.maxChannelDifference(e) <= 2 }
        #expect(near(image[90, 60], rig.expected(90.5, 60.5)) && near(image[20, 20], rig.expected(20.5, 20.5)), "\(image[90, 60])")
        #expect(image[150, 100] == px(255, 255, 255), "past the bounds: the background")
        #expect(rig.tiled.residentTiles == 6, "3 × 2 tiles of 48 points: \(rig.tiled.residentTiles)")
    }

    @Test("growing the bounds draws only the tiles the old or the new edge cuts, and the new ones; the others stay")
    func boundsGrow() throws {
        let rig = try Rig()
        defer { rig.close() }
        rig.tiled.bounds = Rect(x: 0, y: 0, width: 150, height: 100)
        try rig.settle()
        #expect(rig.tiled.residentTiles == 6)
        let before = rig.log.draws.load(ordering: .relaxed)
        rig.tiled.bounds = Rect(x: 0, y: 0, width: 190, height: 140)
        try rig.settle()
        // Kept: (0,0), (1,0). Drawn again: (2,0), (0,1), (1,1), (2,1). New: row 2's three.
        #expect(rig.log.draws.load(ordering: .relaxed) - before == 7)
        #expect(rig.tiled.residentTiles == 9)
        let image = try rig.target.readPixels()
        func near(_ p: RGBAPixel, _ e: RGBAPixel) -> Bool { p.maxChannelDifference(e) <= 2 }
        for (x, y) in [(20, 20), (170, 30), (30, 120), (180, 130), (140, 90)] {
            #expect(near(image[x, y], rig.expected(Double(x) + 0.5, Double(y) + 0.5)), "(\(x), \(y)): \(image[x, y])")
        }
        #expect(image[195, 145] == px(255, 255, 255))
    }

    @Test("a new tile fades in over fadeDuration (as Core Animation's tiles do)")
    func fadeIn() throws {
        let stage = try AnimationStage()
        defer { stage.close() }
        let log = TileLog()
        let tiled = TiledLayer(drawing: checkerDrawing(log))
        tiled.tileSize = Size(width: 256, height: 256)
        tiled.fadeDuration = 1
        tiled.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        stage.root.addSublayer(tiled)
        try Transaction.flush()
        #expect(tiled.waitForPendingTiles())
        try Transaction.flush()
        let start = try stage.frame(at: 0)
        let mid = try stage.frame(at: 0.5)
        let end = try stage.frame(at: 1.5)
        let e = end[25, 25]
        #expect(start[25, 25] == px(255, 255, 255) || start[25, 25].r > 250, "invisible at first: \(start[25, 25])")
        #expect(abs(Int(mid[25, 25].g) - (Int(e.g) + 255) / 2) <= 3, "half faded: \(mid[25, 25]) of \(e)")
        #expect(e.r < 240)
    }
}

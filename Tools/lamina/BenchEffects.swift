import CGLES
import Foundation
import LaminaCore
import LaminaGeometry
import LaminaGPU
import LaminaGraphics
import Synchronization

/// The effect scenes of `lamina bench` (E1…E7): each measured against a baseline scene in
/// the same run, frames of the two alternating, so the ratio is the effect's own cost.
/// See docs/benchmarks.md#effects.
@MainActor
struct EffectsBench {
    let device: GPUDevice
    let size: Size
    let frames: Int
    let warmup: Int

    nonisolated static let scenes = ["E1", "E2", "E3", "E4", "E5", "E6", "E7", "E8"]

    struct Result: Codable {
        var id: String
        var summary: String
        var baseline: String
        /// Medians of wall time per frame (ms), or for E4 tiles per second.
        var effect: Double
        var base: Double
        var unit: String
        /// effect ÷ baseline (E4: tiles per second on the workers ÷ on one thread).
        var ratio: Double
        var note: String
    }

    func run(_ ids: [String]) throws -> [Result] {
        try ids.map { id in
            switch id {
            case "E1": return try movingShadows(id: id, alphaPath: false)
            case "E2": return try movingShadows(id: id, alphaPath: true)
            case "E3": return try backdropBlur(id: id)
            case "E5": return try glLayer(id: id)
            case "E6": return try shaderEffect(id: id)
            case "E7": return try progressRings(id: id)
            case "E8": return try textLabels(id: id)
            default: return try tiledScrolling(id: id)
            }
        }
    }

    /// A tree on its own target, composited by the commits.
    @MainActor
    final class Stage {
        let root = Layer()
        let target: OffscreenTarget
        let host: LayerTreeHost
        init(device: GPUDevice, size: Size) throws {
            root.bounds = Rect(origin: .zero, size: size)
            root.position = Point(x: size.width / 2, y: size.height / 2)
            target = try OffscreenTarget(device: device, size: size)
            host = LayerTreeHost(rootLayer: root, target: target, background: Color(red: 0.92, green: 0.93, blue: 0.95))
        }
        func close() { host.detach(); target.release() }
    }

    /// Median wall time (ms) of frames of `a` and `b`, alternating: each frame runs its
    /// `update`, commits (the host composites) and waits for the GPU.
    func alternate(_ a: (Int) -> Void, _ b: (Int) -> Void) throws -> (Double, Double) {
        var ta: [Double] = [], tb: [Double] = []
        func frame(_ f: Int, _ update: (Int) -> Void) throws -> Double {
            let t0 = Clocks.now().wall
            Transaction.setDisableActions(true)
            update(f)
            try Transaction.flush()
            try device.withContext { glFinish() }
            return (Clocks.now().wall - t0) * 1000
        }
        for f in 0..<(warmup + frames) {
            let x = try frame(f, a), y = try frame(f, b)
            if f >= warmup { ta.append(x); tb.append(y) }
        }
        return (median(ta), median(tb))
    }

    func median(_ v: [Double]) -> Double {
        let s = v.sorted()
        return s.isEmpty ? 0 : s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    /// An image with an irregular alpha (a ring and a bar): its shadow must follow it.
    private static let badge: ContentImage = {
        var image = RGBAImage(width: 48, height: 48)
        for y in 0..<48 { for x in 0..<48 {
            let dx = Double(x) - 23.5, dy = Double(y) - 23.5, d = (dx * dx + dy * dy).squareRoot()
            if (d > 12 && d < 22) || (x >= 21 && x < 27) { image[x, y] = RGBAPixel(r: 30, g: 110, b: 220, a: 255) }
        } }
        return ContentImage(image)
    }()

    /// E1/E2: 100 layers with shadows moving every frame, against the same without shadows.
    private func movingShadows(id: String, alphaPath: Bool) throws -> Result {
        func build(_ stage: Stage, shadows: Bool) -> [Layer] {
            (0..<100).map { i in
                let l = Layer()
                l.frame = Rect(x: 20 + Double(i % 10) * (size.width - 80) / 10, y: 20 + Double(i / 10) * (size.height - 80) / 10,
                               width: 48, height: 48)
                if alphaPath { l.contents = .image(EffectsBench.badge) } else {
                    l.backgroundColor = Color(red: 0.2, green: 0.45, blue: 0.85)
                    l.cornerRadius = 10
                }
                if shadows { l.shadowOpacity = 0.5; l.shadowRadius = 8; l.shadowOffset = Size(width: 0, height: 6) }
                stage.root.addSublayer(l)
                return l
            }
        }
        let a = try Stage(device: device, size: size), b = try Stage(device: device, size: size)
        defer { a.close(); b.close() }
        let la = build(a, shadows: true), lb = build(b, shadows: false)
        try Transaction.flush()
        func move(_ layers: [Layer]) -> (Int) -> Void {
            { f in for (i, l) in layers.enumerated() { l.position = Point(x: l.position.x + (f % 2 == 0 ? 1 : -1) * Double(1 + i % 3), y: l.position.y) } }
        }
        var stats = a.host.lastFrame
        a.host.didComposite = { if !$0.skipped { stats = $0 } }
        let (e, base) = try alternate(move(la), move(lb))
        return Result(id: id, summary: "100 layers with \(alphaPath ? "layer-alpha shadows (an image's alpha, blurred on the GPU)" : "analytic shadows (rounded rectangles)"), moving",
                      baseline: "the same 100 layers without shadows", effect: e, base: base, unit: "ms/frame", ratio: e / max(base, 1e-9),
                      note: "last frame: \(stats.blurs) blurs, \(stats.offscreenPasses) offscreen passes, \(stats.drawCalls) draw calls")
    }

    /// E3: a full-target backdrop blur over a moving background, against the same without the blur.
    private func backdropBlur(id: String) throws -> Result {
        func build(_ stage: Stage, blur: Bool) -> Layer {
            let stripes = GradientLayer()
            stripes.frame = stage.root.bounds
            stripes.colors = [Color(red: 1, green: 0.4, blue: 0.4), Color(red: 0.3, green: 0.6, blue: 1), Color(red: 0.3, green: 0.9, blue: 0.5)]
            stripes.startPoint = Point.zero
            stripes.endPoint = Point(x: 1, y: 1)
            stage.root.addSublayer(stripes)
            let mover = Layer()
            mover.frame = Rect(x: 100, y: 100, width: 300, height: 300)
            mover.backgroundColor = Color(red: 0.1, green: 0.1, blue: 0.2)
            mover.cornerRadius = 150
            stage.root.addSublayer(mover)
            let glass = Layer()
            glass.frame = stage.root.bounds
            glass.backgroundColor = Color(red: 1, green: 1, blue: 1, alpha: 0.15)
            if blur { glass.backgroundFilters = [.gaussianBlur(radius: 20)] }
            stage.root.addSublayer(glass)
            return mover
        }
        let a = try Stage(device: device, size: size), b = try Stage(device: device, size: size)
        defer { a.close(); b.close() }
        let ma = build(a, blur: true), mb = build(b, blur: false)
        try Transaction.flush()
        func move(_ l: Layer) -> (Int) -> Void { { f in l.position = Point(x: 250 + Double(f % 40) * 20, y: l.position.y) } }
        let (e, base) = try alternate(move(ma), move(mb))
        return Result(id: id, summary: "a \(Int(size.width))×\(Int(size.height)) backdrop blur (σ 20 pt) over a moving layer",
                      baseline: "the same scene without the blur", effect: e, base: base, unit: "ms/frame", ratio: e / max(base, 1e-9),
                      note: "the blur is redrawn where the damage (grown by 3σ) reaches: the whole target here")
    }

    /// E4: tiles drawn per second while a 100 000² pt tiled layer scrolls (its workers, at
    /// once), against the same scroll with one worker.
    private func tiledScrolling(id: String) throws -> Result {
        let steps = max(10, frames / 4)
        func scroll(workers: Int?, from start: Double) throws -> (Double, Int, TiledLayer, Double) {
            let stage = try Stage(device: device, size: size)
            defer { stage.close() }
            let drawn = Atomic<Int>(0)
            let tiled = TiledLayer(drawing: { ctx in
                drawn.add(1, ordering: .relaxed)
                EffectsBench.drawMap(ctx)
            })
            if let workers { tiled.maximumConcurrentTiles = workers }
            tiled.fadeDuration = 0
            tiled.anchorPoint = .zero
            tiled.bounds = Rect(x: 0, y: 0, width: 100_000, height: 100_000)
            tiled.position = Point(x: -start, y: -start)
            stage.root.masksToBounds = true
            stage.root.addSublayer(tiled)
            try Transaction.flush()
            tiled.waitForPendingTiles()
            let before = drawn.load(ordering: .relaxed)
            let start0 = Clocks.now()
            let t0 = start0.wall
            for s in 1...steps {
                tiled.position = Point(x: -start - Double(s) * 300, y: -start - Double(s) * 120)
                try Transaction.flush()
                tiled.waitForPendingTiles()
            }
            try Transaction.flush()
            let count = drawn.load(ordering: .relaxed) - before
            let end = Clocks.now()
            tiled.removeFromSuperlayer()
            return (Double(count) / (end.wall - t0), count, tiled, (end.thread - start0.thread) * 1000 / Double(max(count, 1)))
        }
        let (parallel, count, tiled, mainPerTile) = try scroll(workers: nil, from: 10_000)
        let (serial, _, _, mainPerTileSerial) = try scroll(workers: 1, from: 40_000)
        return Result(id: id, summary: "scrolling a 100 000² pt tiled layer (\(steps) steps of 300×120 pt; \(count) tiles of 256² px drawn)",
                      baseline: "the same scroll with one worker thread", effect: parallel, base: serial,
                      unit: "tiles/s", ratio: parallel / max(serial, 1e-9),
                      note: String(format: "%d workers; each step commits, waits for its tiles and composites; main-thread CPU %.2f ms a tile (%.2f with one worker); peak %d KiB of tiles (budget %d MiB)",
                                   tiled.maximumConcurrentTiles, mainPerTile, mainPerTileSerial, tiled.peakTileBytes / 1024, tiled.memoryBudget >> 20))
    }

    /// A map-like tile: a grid, blocks and roads, from the tile's own rectangle only.
    nonisolated static func drawMap(_ ctx: GraphicsContext) {
        let r = ctx.clipBoundingBox
        ctx.setFillColor(Color(red: 0.95, green: 0.94, blue: 0.9))
        ctx.fill(r)
        var y = (r.minY / 64).rounded(.down) * 64
        while y < r.maxY {
            var x = (r.minX / 64).rounded(.down) * 64
            while x < r.maxX {
                let h = (Int(x / 64) &* 73_856_093) ^ (Int(y / 64) &* 19_349_663)
                ctx.setFillColor(Color(red: 0.75 + Double(h & 15) / 100, green: 0.8, blue: 0.7 + Double((h >> 4) & 15) / 100))
                ctx.beginPath()
                ctx.addRoundedRect(Rect(x: x + 6, y: y + 6, width: 52, height: 52), cornerRadius: 6)
                ctx.fillPath()
                x += 64
            }
            y += 64
        }
        // Roads: y = 300k + 100·sin(x / 200), continuous across tiles.
        ctx.setStrokeColor(Color(red: 1, green: 0.85, blue: 0.4))
        ctx.setLineWidth(8)
        ctx.setLineJoin(.round)
        let step = max(2, r.width / 64)
        var k = ((r.minY - 110) / 300).rounded(.down)
        while k * 300 - 110 < r.maxY {
            ctx.beginPath()
            var x = r.minX - step
            ctx.move(to: Point(x: x, y: k * 300 + 100 * sin(x / 200)))
            while x < r.maxX + step {
                x += step
                ctx.addLine(to: Point(x: x, y: k * 300 + 100 * sin(x / 200)))
            }
            ctx.strokePath()
            k += 1
        }
    }

    nonisolated static func table(_ results: [Result]) -> String {
        var out = "Effects (each against a baseline in the same run, frames alternating; medians)\n"
        for r in results {
            let v = String(format: "%.2f", r.effect), b = String(format: "%.2f", r.base), x = String(format: "%.2f", r.ratio)
            out += "  \(r.id)  \(r.summary)\n"
            out += "      \(v) \(r.unit)  vs  \(b) \(r.unit) (\(r.baseline))  →  \(x)×\n"
            out += "      \(r.note)\n"
        }
        return out
    }
}

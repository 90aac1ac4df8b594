import Foundation
import LaminaCore
import LaminaGeometry
import LaminaGraphics

// The damage scenes of `lamina bench` (docs/benchmarks.md): small changes among 1000 static
// layers (S2's), whose cost should follow the area they damage — one recolour (D1), two in
// opposite corners (D2), a layer removed and another added (D3), a layer inserted under its
// siblings by zPosition (D4), a layer's masksToBounds toggled (D5) — and S6s, a layer inserted and one removed per frame among
// 10⁵ (its baseline S6s-1k among 10³). Public API only, so the same file builds against an
// older Lamina for side-by-side runs.

/// A 32×32 point square's colour at frame `f` (premultiplied, opaque).
private func squareColor(_ f: Int, _ k: Int = 0) -> (Color, RGBAPixel) {
    let r = UInt8((f * 53 + k * 101 + 40) & 255), g = UInt8((f * 97 + k * 31 + 90) & 255), b = UInt8((f * 29 + k * 67 + 160) & 255)
    return (Color(r8: r, g8: g, b8: b), RGBAPixel(r: r, g: g, b: b, a: 255))
}

/// D1–D5: S2's 1000 frozen layers and small changes on top (or, D4, under them).
@MainActor
final class DamageScene: BenchScene {
    enum Kind { case recolour, recolourTwo, replace, insertBelow, clipToggle }
    let id: String
    let summary: String
    let kind: Kind
    private let base: SpinningTilesScene
    private let size: Size
    private var squares: [Layer] = []
    private weak var root: Layer?

    init(id: String, kind: Kind, size: Size) {
        self.id = id
        self.kind = kind
        self.size = size
        base = SpinningTilesScene(id: "S2", size: size, frozen: true, drawnLayer: false)
        switch kind {
        case .recolour: summary = "S2's 1000 static layers + one 32×32 layer recoloured per frame"
        case .recolourTwo: summary = "S2's 1000 static layers + two 32×32 layers in opposite corners recoloured per frame"
        case .replace: summary = "S2's 1000 static layers; per frame one 32×32 layer removed and another added, alternating corners"
        case .insertBelow: summary = "S2's 1000 static layers; per frame one 32×32 layer inserted under its siblings (zPosition −1), the previous one removed, alternating corners"
        case .clipToggle: summary = "S2's 1000 static layers + a 32×32 layer whose 48×48 sublayer reaches 8 pt past it; its masksToBounds toggled per frame"
        }
    }

    var layerCount: Int { base.layerCount + (kind == .recolourTwo || kind == .clipToggle ? 2 : 1) }
    var ceilingQuads: Int { base.ceilingQuads + 2 }

    /// The corners the squares use: top-left and bottom-right.
    private func corner(_ k: Int) -> Rect {
        k % 2 == 0 ? Rect(x: 40, y: 40, width: 32, height: 32)
            : Rect(x: (size.width - 72).rounded(), y: (size.height - 72).rounded(), width: 32, height: 32)
    }

    private func square(_ frame: Rect, _ color: Color) -> Layer {
        let l = Layer()
        l.frame = frame
        l.backgroundColor = color
        return l
    }

    func build(root: Layer) throws {
        self.root = root
        try base.build(root: root)
        switch kind {
        case .recolour, .replace:
            squares = [square(corner(0), squareColor(0).0)]
        case .clipToggle:
            let s = square(corner(0), squareColor(0).0)
            s.addSublayer(square(Rect(x: -8, y: -8, width: 48, height: 48), squareColor(0, 1).0))
            squares = [s]
        case .recolourTwo:
            squares = [square(corner(0), squareColor(0).0), square(corner(1), squareColor(0, 1).0)]
        case .insertBelow:
            let s = square(corner(0), squareColor(0).0)
            s.zPosition = -1
            squares = [s]
        }
        for s in squares { root.addSublayer(s) }
    }

    func update(frame f: Int) {
        switch kind {
        case .recolour:
            squares[0].backgroundColor = squareColor(f).0
        case .recolourTwo:
            squares[0].backgroundColor = squareColor(f).0
            squares[1].backgroundColor = squareColor(f, 1).0
        case .replace, .insertBelow:
            guard let root else { return }
            squares[0].removeFromSuperlayer()
            let s = square(corner(f), squareColor(f).0)
            if kind == .insertBelow { s.zPosition = -1 }
            root.addSublayer(s)
            squares = [s]
        case .clipToggle:
            squares[0].masksToBounds = f % 2 == 1
        }
    }

    func prepare(_ ceiling: Ceiling) throws { try base.prepare(ceiling) }

    func ceilingFrame(_ f: Int, _ quads: inout QuadWriter, _ ceiling: Ceiling) {
        switch kind {
        case .insertBelow:
            quads.rect(corner(f), layer: -2, color: squareColor(f).1)
            base.ceilingFrame(f, &quads, ceiling)
        case .recolour, .replace:
            base.ceilingFrame(f, &quads, ceiling)
            quads.rect(corner(kind == .replace ? f : 0), layer: -2, color: squareColor(f).1)
        case .recolourTwo:
            base.ceilingFrame(f, &quads, ceiling)
            quads.rect(corner(0), layer: -2, color: squareColor(f).1)
            quads.rect(corner(1), layer: -2, color: squareColor(f, 1).1)
        case .clipToggle:
            // The sublayer covers the square: clipped to it, or 8 pt past it all round.
            base.ceilingFrame(f, &quads, ceiling)
            let c = corner(0)
            quads.rect(f % 2 == 1 ? c : Rect(x: c.minX - 8, y: c.minY - 8, width: 48, height: 48), layer: -2, color: squareColor(0, 1).1)
        }
    }
}

/// S6s: S6's grid of `count` 4×4 solid layers; per frame one layer is removed and a new one
/// (another colour) added at the end of the sublayers in its place — a recycling list's
/// churn. Run with 10⁵ layers (S6s) and 10³ (S6s-1k), whose frame cost the goal compares.
@MainActor
final class ChurnScene: BenchScene {
    let id: String
    let summary: String
    let layerCount: Int
    var ceilingQuads: Int { layerCount }
    private let size: Size
    private var layers: [Layer] = []
    private var colors: [RGBAPixel]
    private weak var root: Layer?
    /// The last frame the ceiling applied, and its drawing order (Lamina's sublayer order:
    /// a new layer is drawn last).
    private var ceilingFrameApplied = -1
    private lazy var order: [Int] = Array(0..<layerCount)

    init(id: String, count: Int, size: Size) {
        self.id = id
        self.layerCount = count
        self.size = size
        summary = count >= 100_000 ? "10⁵ layers (S6's grid); per frame one removed and another added in its place"
            : "S6s with \(count) layers: the baseline of S6s's goal"
        colors = ManyLayersScene.colors(count)
    }

    private func frame(_ i: Int) -> Rect { ManyLayersScene.cell(i, in: size) }

    /// The layer replaced at frame `f`, and its new colour.
    private func change(_ f: Int) -> (index: Int, color: RGBAPixel) {
        ((f * 7919 + 13) % layerCount, squareColor(f).1)
    }

    private func layer(_ i: Int, _ c: RGBAPixel) -> Layer {
        let l = Layer()
        l.backgroundColor = Color(r8: c.r, g8: c.g, b8: c.b)
        l.frame = frame(i)
        return l
    }

    func build(root: Layer) throws {
        self.root = root
        for i in 0..<layerCount {
            let l = layer(i, colors[i])
            root.addSublayer(l)
            layers.append(l)
        }
    }

    func update(frame f: Int) {
        guard let root else { return }
        let (i, c) = change(f)
        layers[i].removeFromSuperlayer()
        let l = layer(i, c)
        root.addSublayer(l)
        layers[i] = l
    }

    func prepare(_ ceiling: Ceiling) throws {}

    func ceilingFrame(_ f: Int, _ quads: inout QuadWriter, _ ceiling: Ceiling) {
        while ceilingFrameApplied < f {
            ceilingFrameApplied += 1
            let (i, c) = change(ceilingFrameApplied)
            colors[i] = c
            if let k = order.firstIndex(of: i) { order.remove(at: k) }
            order.append(i)
        }
        for i in order { quads.rect(frame(i), layer: -2, color: colors[i]) }
    }
}

extension BenchRunner {
    /// The goals of the damage scenes against D1 (damaged area ≤ 2.5×, wall and process CPU
    /// ≤ 2×, Lamina's frames measured back to back), and S6S's against S6S-1k (process and
    /// main-thread CPU ≤ 2×).
    static func setDamageGoals(_ results: inout [SceneResult]) {
        func timings(_ r: SceneResult) -> Timings { r.laminaAlone ?? r.lamina }
        if let d1 = results.first(where: { $0.id == "D1" }) {
            for i in results.indices where ["D2", "D3", "D4", "D5"].contains(results[i].id) {
                let a = timings(results[i]), b = timings(d1)
                let area = Double(results[i].laminaFrame.damagedPixels) / Double(max(1, d1.laminaFrame.damagedPixels))
                let wall = a.wallMs.median / b.wallMs.median, cpu = a.cpuMs.median / b.cpuMs.median
                results[i].goal = Goal(text: "damaged area ≤ 2.5× D1's, wall and CPU ≤ 2× D1's", checks: [
                    Goal.Check(name: "damaged area ÷ D1's", value: area, limit: 2.5, met: area <= 2.5),
                    Goal.Check(name: "wall ÷ D1's (Lamina's frames back to back)", value: wall, limit: 2, met: wall <= 2),
                    Goal.Check(name: "process CPU ÷ D1's (Lamina's frames back to back)", value: cpu, limit: 2, met: cpu <= 2),
                ])
            }
        }
        if let i = results.firstIndex(where: { $0.id == "S6S" }), let base = results.first(where: { $0.id == "S6S-1k" }) {
            let a = timings(results[i]), b = timings(base)
            let cpu = a.cpuMs.median / b.cpuMs.median, thread = a.threadMs.median / b.threadMs.median
            results[i].goal = Goal(text: "frame CPU with one layer removed and one added among 10⁵ ≤ 2× among 10³", checks: [
                Goal.Check(name: "process CPU, 10⁵ ÷ 10³ layers (Lamina's frames back to back)", value: cpu, limit: 2, met: cpu <= 2),
                Goal.Check(name: "main-thread CPU, 10⁵ ÷ 10³ layers (Lamina's frames back to back)", value: thread, limit: 2, met: thread <= 2),
            ])
        }
    }
}

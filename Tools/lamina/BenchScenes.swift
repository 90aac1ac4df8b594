import Foundation
import LaminaCore
import LaminaGeometry
import LaminaGraphics

/// One scene of `lamina bench`, built twice: as a Lamina layer tree (public API only) and as
/// the raw-GL ceiling's quads. Both sides read the same per-frame values (angles, sizes,
/// positions) from the scene, so the last frames must match pixel for pixel.
///
/// Sizes: the scenes are defined for a 1920×1080-point target at scale 1. Another `--size`
/// spreads the same grids over the target; layers keep their sizes in points.
@MainActor
protocol BenchScene: AnyObject {
    var id: String { get }
    var summary: String { get }
    /// Layers in Lamina's tree (the root not counted).
    var layerCount: Int { get }
    /// Lamina: adds the scene's layers under `root` (which covers the target).
    func build(root: Layer) throws
    /// Lamina: what the app changes for frame `f` (before the frame's commit).
    func update(frame f: Int)
    /// Ceiling: textures, once.
    func prepare(_ ceiling: Ceiling) throws
    /// Ceiling: frame `f`'s quads (and uploads) — everything, every frame.
    func ceilingFrame(_ f: Int, _ quads: inout QuadWriter, _ ceiling: Ceiling)
    /// Quads the ceiling draws per frame (to reserve space).
    var ceilingQuads: Int { get }
    /// Texture bytes the ceiling uploads per frame.
    var ceilingUploadBytes: Int { get }
    /// Driven by animations: frame `f` is the media time `f / 60` s after the first commit.
    var isAnimated: Bool { get }
}

extension BenchScene {
    var ceilingUploadBytes: Int { 0 }
    var isAnimated: Bool { false }
}

/// Frames per second of the animated scenes' media time.
let benchFrameRate = 60.0

/// Deterministic per-layer variety.
private func fraction(_ x: Double) -> Double { x - x.rounded(.down) }

/// A distinct, smooth premultiplied texture for layer `index` (`side`×`side` pixels): a
/// two-colour diagonal gradient with a soft band, opaque in the middle and half transparent
/// towards the corners. Smooth on purpose: the pixel check compares two renderers whose
/// sampling positions may differ in the last bits, which only shows on sharp texel steps.
func benchTile(index i: Int, side: Int) -> RGBAImage {
    let d = Double(i)
    let a = (0.25 + 0.75 * fraction(d * 0.137), 0.25 + 0.75 * fraction(d * 0.419 + 0.3), 0.25 + 0.75 * fraction(d * 0.731 + 0.6))
    let b = (1 - a.0 * 0.8, 1 - a.1 * 0.8, 1 - a.2 * 0.8)
    var bytes = [UInt8](repeating: 0, count: side * side * 4)
    let s = Double(side)
    for y in 0..<side {
        let v = (Double(y) + 0.5) / s
        for x in 0..<side {
            let u = (Double(x) + 0.5) / s
            let t = (u + v) / 2
            let band = 0.75 + 0.25 * cos(2 * Double.pi * v)
            let dx = u - 0.5, dy = v - 0.5
            let r = (dx * dx + dy * dy).squareRoot()
            let alpha = 1 - 0.5 * min(1, max(0, (r - 0.35) / 0.35))
            let k = (y * side + x) * 4
            func q(_ c: Double) -> UInt8 { UInt8(max(0, min(255, (c * band * alpha * 255).rounded()))) }
            bytes[k] = q(a.0 * (1 - t) + b.0 * t)
            bytes[k + 1] = q(a.1 * (1 - t) + b.1 * t)
            bytes[k + 2] = q(a.2 * (1 - t) + b.2 * t)
            bytes[k + 3] = UInt8((alpha * 255).rounded())
        }
    }
    return RGBAImage(width: side, height: side, bytes: bytes)
}

/// The grid of S1 (and S2, S3): 40×25 cells over the target.
private struct Grid {
    let columns: Int, rows: Int, size: Size
    func center(_ i: Int) -> Point {
        let cw = size.width / Double(columns), ch = size.height / Double(rows)
        return Point(x: (Double(i % columns) + 0.5) * cw, y: (Double(i / columns) + 0.5) * ch)
    }
}

// MARK: S1, S2, S3

/// S1: 1000 layers with distinct 64×64 textures on a 40×25 grid, turned and scaled about
/// their centres, opacity 0.8; every angle (and scale) changes every frame. `frozen` (S2):
/// the same layers at frame 0's angles, nothing changes. `drawnLayer` (S3): S2 plus a
/// 256×256 layer at the centre that redraws its content with the 2D context every frame.
@MainActor
final class SpinningTilesScene: BenchScene {
    let id: String
    let summary: String
    let frozen: Bool
    let drawnLayer: Bool
    private let grid: Grid
    private let size: Size
    static let count = 1000
    static let side = 64
    private var tiles: [Layer] = []
    private var drawn: MovingGradientLayer?
    private var images: [RGBAImage]
    private var bitmap: Bitmap?

    /// S1A: S1's poses come from animations added once (the renderer evaluates them at each
    /// frame's media time), not from properties set every frame; `animatedFrames` long.
    let isAnimated: Bool
    private let animatedFrames: Int

    init(id: String, size: Size, frozen: Bool, drawnLayer: Bool, animatedFrames: Int? = nil) {
        self.id = id
        self.size = size
        self.frozen = frozen
        self.drawnLayer = drawnLayer
        self.isAnimated = animatedFrames != nil
        self.animatedFrames = animatedFrames ?? 0
        grid = Grid(columns: 40, rows: 25, size: size)
        images = (0..<SpinningTilesScene.count).map { benchTile(index: $0, side: SpinningTilesScene.side) }
        switch (frozen, drawnLayer) {
        case (false, _) where animatedFrames != nil:
            summary = "S1 driven by animations (rotation + scale keyframes per layer, added once; each frame is a media time)"
        case (false, _): summary = "1000 layers, distinct 64×64 textures, 40×25 grid, rotation + scale about centres, opacity 0.8, all change every frame"
        case (true, false): summary = "S1 frozen: nothing changes"
        case (true, true): summary = "S2 + a 256×256 layer at the centre redrawn with the 2D context (gradient, circle) and uploaded every frame"
        }
    }

    var layerCount: Int { SpinningTilesScene.count + (drawnLayer ? 1 : 0) }
    var ceilingQuads: Int { layerCount }
    var ceilingUploadBytes: Int { drawnLayer ? 256 * 256 * 4 : 0 }

    /// The angle and scale of tile `i` at frame `f` (S2, S3: frame 0's).
    func pose(_ i: Int, _ f: Int) -> (angle: Double, scale: Double) {
        let frame = Double(frozen ? 0 : f), d = Double(i)
        let speed = 0.01 + 0.03 * fraction(d * 0.618)
        return (0.37 * d + frame * speed, 0.85 + 0.15 * sin(0.71 * d + 0.05 * frame))
    }

    private var drawnFrame: Rect {
        Rect(x: (size.width / 2 - 128).rounded(), y: (size.height / 2 - 128).rounded(), width: 256, height: 256)
    }

    func build(root: Layer) throws {
        let side = Double(SpinningTilesScene.side)
        for i in 0..<SpinningTilesScene.count {
            let l = Layer()
            l.bounds = Rect(x: 0, y: 0, width: side, height: side)
            l.position = grid.center(i)
            l.contents = .image(ContentImage(images[i]))
            l.opacity = 0.8
            root.addSublayer(l)
            tiles.append(l)
        }
        setPoses(frame: 0)
        if isAnimated { addAnimations() }
        if drawnLayer {
            let g = MovingGradientLayer()
            g.frame = drawnFrame
            g.setNeedsDisplay()
            root.addSublayer(g)
            drawn = g
        }
    }

    private func setPoses(frame f: Int) {
        for (i, l) in tiles.enumerated() {
            let p = pose(i, f)
            l.transform = Transform3D(scaleX: p.scale, y: p.scale).concatenating(Transform3D(rotationAngle: p.angle, x: 0, y: 0, z: 1))
        }
    }

    /// Per tile: the angle by `transform.rotation.z` (linear: S1's angle grows linearly
    /// with the frame), the scale by `transform.scale` keyframes at every frame's time
    /// (exact there); both begin at the first commit.
    private func addAnimations() {
        let n = max(1, animatedFrames)
        let duration = Double(n) / benchFrameRate
        for (i, l) in tiles.enumerated() {
            var turn = BasicAnimation(keyPath: "transform.rotation.z")
            turn.fromValue = .number(pose(i, 0).angle)
            turn.toValue = .number(pose(i, n).angle)
            turn.duration = duration
            turn.timingFunction = .linear
            var grow = KeyframeAnimation(keyPath: "transform.scale")
            grow.values = (0...n).map { .number(pose(i, $0).scale) }
            grow.duration = duration
            l.add(turn, forKey: "turn")
            l.add(grow, forKey: "grow")
        }
    }

    func update(frame f: Int) {
        if !frozen && !isAnimated { setPoses(frame: f) }
        drawn?.frameIndex = f
    }

    func prepare(_ ceiling: Ceiling) throws {
        try ceiling.setLayers(images)
        if drawnLayer {
            let px = PixelSize(width: 256, height: 256)
            bitmap = try Bitmap(pixelSize: px)
            try ceiling.makeSingle(px, bgra: true)
        }
    }

    func ceilingFrame(_ f: Int, _ quads: inout QuadWriter, _ ceiling: Ceiling) {
        let side = Double(SpinningTilesScene.side)
        let bounds = Rect(x: 0, y: 0, width: side, height: side)
        let anchor = Point(x: side / 2, y: side / 2)
        let alpha = RGBAPixel(r: 204, g: 204, b: 204, a: 204)   // opacity 0.8
        for i in 0..<SpinningTilesScene.count {
            let p = pose(i, f)
            quads.quad(bounds, Plane(anchor: anchor, angle: p.angle, scale: p.scale, position: grid.center(i)),
                       layer: Float(i), color: alpha)
        }
        if let bitmap {
            // The same drawing as the layer's, into the ceiling's bitmap, then one upload.
            let r = Rect(x: 0, y: 0, width: 256, height: 256)
            let ctx = GraphicsContext(bitmap: bitmap, scale: 1, origin: .zero, clip: r)
            ctx.clear(r)
            MovingGradientLayer.drawContent(ctx, bounds: r, frame: f)
            ctx.invalidate()
            bitmap.withUnsafeBytes { ceiling.uploadSingle($0, bytesPerRow: bitmap.bytesPerRow) }
            quads.rect(drawnFrame, layer: -1, color: RGBAPixel(r: 255, g: 255, b: 255, a: 255))
        }
    }
}

/// S3's layer: draws a gradient and a circle that move with `frameIndex`.
@MainActor
final class MovingGradientLayer: Layer {
    var frameIndex = 0 { didSet { if frameIndex != oldValue { setNeedsDisplay() } } }

    override func draw(in context: GraphicsContext) {
        MovingGradientLayer.drawContent(context, bounds: bounds, frame: frameIndex)
    }

    static func drawContent(_ c: GraphicsContext, bounds b: Rect, frame f: Int) {
        let t = Double(f)
        let from = Color(red: 0.5 + 0.5 * sin(t * 0.05), green: 0.35, blue: 0.75)
        let to = Color(red: 0.1, green: 0.6 + 0.4 * cos(t * 0.03), blue: 0.3)
        c.drawLinearGradient(Gradient(colors: [from, to]), start: Point(x: b.minX, y: b.minY), end: Point(x: b.maxX, y: b.maxY))
        let r = b.width * 0.2
        let cx = b.midX + b.width * 0.25 * cos(t * 0.1), cy = b.midY + b.height * 0.25 * sin(t * 0.1)
        c.setFillColor(Color(red: 1, green: 0.95, blue: 0.2, alpha: 0.9))
        c.fillEllipse(in: Rect(x: cx - r, y: cy - r, width: 2 * r, height: 2 * r))
    }
}

// MARK: S4

/// S4: 200 layers showing one 32×32 image with 8-pixel caps (`contentsCenter`), stretched
/// to sizes that change every frame (100–400 × 40–200 points) on a 20×10 grid. The ceiling
/// draws each as nine quads.
@MainActor
final class NineSliceScene: BenchScene {
    let id = "S4"
    let summary = "200 layers, one 32×32 image with 8 px caps stretched by contentsCenter to sizes changing every frame (100–400 × 40–200)"
    let layerCount = 200
    var ceilingQuads: Int { layerCount * 9 }
    private let size: Size
    private let image: RGBAImage
    private var layers: [Layer] = []
    static let center = Rect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)

    init(size: Size) throws {
        self.size = size
        image = try NineSliceScene.makeImage()
    }

    /// A rounded button-like image: gradient fill, dark border, drawn with the 2D context.
    static func makeImage() throws -> RGBAImage {
        let bitmap = try Bitmap(pixelSize: PixelSize(width: 32, height: 32))
        let c = GraphicsContext(bitmap: bitmap, scale: 1)
        let r = Rect(x: 1, y: 1, width: 30, height: 30)
        c.save()
        c.addRoundedRect(r, cornerRadius: 7)
        c.clip()
        c.drawLinearGradient(Gradient(colors: [Color(red: 0.45, green: 0.7, blue: 1), Color(red: 0.1, green: 0.3, blue: 0.8)]),
                             start: Point(x: 0, y: 0), end: Point(x: 0, y: 32))
        c.restore()
        c.addRoundedRect(r, cornerRadius: 7)
        c.setStrokeColor(Color(red: 0.02, green: 0.08, blue: 0.25, alpha: 0.9))
        c.setLineWidth(2)
        c.strokePath()
        c.invalidate()
        return bitmap.rgbaImage()
    }

    /// Layer `i`'s frame at frame `f`: integer origin and size (pixel-aligned edges).
    func frame(_ i: Int, _ f: Int) -> Rect {
        func triangle(_ k: Int, _ period: Int) -> Int { let m = k % period; return m <= period / 2 ? m : period - m }
        let x = (Double(i % 20) * size.width / 20).rounded(.down), y = (Double(i / 20) * size.height / 10).rounded(.down)
        // Odd steps over an even period: the size changes every frame, also at the turns.
        let w = 100 + triangle(i * 53 + f * 3, 600), h = 40 + triangle(i * 29 + f * 3, 320)
        return Rect(x: x, y: y, width: Double(w), height: Double(h))
    }

    func build(root: Layer) throws {
        let contents = ContentImage(image)
        for i in 0..<layerCount {
            let l = Layer()
            l.contents = .image(contents)
            l.contentsCenter = NineSliceScene.center
            l.frame = frame(i, 0)
            root.addSublayer(l)
            layers.append(l)
        }
    }

    func update(frame f: Int) {
        for (i, l) in layers.enumerated() { l.frame = frame(i, f) }
    }

    func prepare(_ ceiling: Ceiling) throws { try ceiling.setSingle(image) }

    func ceilingFrame(_ f: Int, _ quads: inout QuadWriter, _ ceiling: Ceiling) {
        let c = NineSliceScene.center
        let capL = c.minX * 32, capR = (1 - c.maxX) * 32, capT = c.minY * 32, capB = (1 - c.maxY) * 32
        let us = [0, c.minX, c.maxX, 1], vs = [0, c.minY, c.maxY, 1]
        let white = RGBAPixel(r: 255, g: 255, b: 255, a: 255)
        for i in 0..<layerCount {
            let r = frame(i, f)
            // Caps shrink proportionally when they do not fit (as Lamina's).
            let sx = min(1, r.width / (capL + capR)), sy = min(1, r.height / (capT + capB))
            let xs = [r.minX, r.minX + capL * sx, r.maxX - capR * sx, r.maxX]
            let ys = [r.minY, r.minY + capT * sy, r.maxY - capB * sy, r.maxY]
            for row in 0..<3 {
                for col in 0..<3 {
                    quads.rect(Rect(x: xs[col], y: ys[row], width: xs[col + 1] - xs[col], height: ys[row + 1] - ys[row]),
                               uv: Rect(x: us[col], y: vs[row], width: us[col + 1] - us[col], height: vs[row + 1] - vs[row]),
                               layer: -1, color: white)
                }
            }
        }
    }
}

// MARK: S5

/// S5: 200 layers with distinct 128×128 textures on a 20×10 grid, each turning about its
/// vertical axis with its own perspective (`transform.m34 = -1/500`, the usual card flip).
@MainActor
final class PerspectiveScene: BenchScene {
    let id = "S5"
    let summary = "200 layers, distinct 128×128 textures, rotating about their vertical axis with perspective (m34 = −1/500)"
    let layerCount = 200
    var ceilingQuads: Int { layerCount }
    private let grid: Grid
    private let images: [RGBAImage]
    private var layers: [Layer] = []

    init(size: Size) {
        grid = Grid(columns: 20, rows: 10, size: size)
        images = (0..<200).map { benchTile(index: $0 * 7 + 3, side: 128) }
    }

    /// Layer `i`'s transform at frame `f`: the turn first, then the perspective.
    func transform(_ i: Int, _ f: Int) -> Transform3D {
        let d = Double(i)
        let angle = 0.29 * d + Double(f) * (0.01 + 0.03 * fraction(d * 0.618))
        var perspective = Transform3D.identity
        perspective.m34 = -1.0 / 500
        return perspective.rotated(by: angle, x: 0, y: 1, z: 0)
    }

    func build(root: Layer) throws {
        for i in 0..<layerCount {
            let l = Layer()
            l.bounds = Rect(x: 0, y: 0, width: 128, height: 128)
            l.position = grid.center(i)
            l.contents = .image(ContentImage(images[i]))
            root.addSublayer(l)
            layers.append(l)
        }
        update(frame: 0)
    }

    func update(frame f: Int) {
        for (i, l) in layers.enumerated() { l.transform = transform(i, f) }
    }

    func prepare(_ ceiling: Ceiling) throws { try ceiling.setLayers(images) }

    func ceilingFrame(_ f: Int, _ quads: inout QuadWriter, _ ceiling: Ceiling) {
        let bounds = Rect(x: 0, y: 0, width: 128, height: 128)
        let white = RGBAPixel(r: 255, g: 255, b: 255, a: 255)
        for i in 0..<layerCount {
            let c = grid.center(i)
            let world = Transform3D(translationX: -64, y: -64).concatenating(transform(i, f))
                .concatenating(Transform3D(translationX: c.x, y: c.y))
            quads.quad(bounds, Plane(world), layer: Float(i), color: white)
        }
    }
}

// MARK: S6

/// S6: `count` small solid layers (4×4 points) on a 400×250 grid, of which one — the
/// middle one — moves every frame. Run with 10⁵ layers (S6) and with the first 10³ of the
/// same grid (S6-1k), whose frame cost the goal compares.
@MainActor
final class ManyLayersScene: BenchScene {
    let id: String
    let summary: String
    let layerCount: Int
    var ceilingQuads: Int { layerCount }
    private let size: Size
    private var layers: [Layer] = []
    private let colors: [RGBAPixel]

    init(id: String, count: Int, size: Size) {
        self.id = id
        self.layerCount = count
        self.size = size
        summary = count == 100_000 ? "10⁵ layers (4×4 solid colours, 400×250 grid), one moves per frame"
            : "S6 with \(count) layers (the first of the same grid): the baseline of S6's goal"
        colors = Self.colors(count)
    }

    /// The grid's colours (distinct neighbours), shared with S6S.
    static func colors(_ count: Int) -> [RGBAPixel] {
        (0..<count).map { (i: Int) -> RGBAPixel in
            let r = UInt8((i * 67) & 255), g = UInt8((i * 131 + 50) & 255), b = UInt8((i * 29 + 100) & 255)
            return RGBAPixel(r: r, g: g, b: b, a: 255)
        }
    }

    /// Cell `i` of the 400×250 grid over `size`: a 4×4-point square (shared with S6S).
    static func cell(_ i: Int, in size: Size) -> Rect {
        Rect(x: Double(i % 400) * size.width / 400, y: Double(i / 400) * size.height / 250, width: 4, height: 4)
    }

    var moving: Int { layerCount / 2 }

    func frame(_ i: Int, _ f: Int) -> Rect {
        var r = Self.cell(i, in: size)
        if i == moving { r.origin.x += Double((f * 5) % 200); r.origin.y += Double((f * 3) % 90) }
        return r
    }

    func build(root: Layer) throws {
        for i in 0..<layerCount {
            let l = Layer()
            let c = colors[i]
            l.backgroundColor = Color(r8: c.r, g8: c.g, b8: c.b)
            l.frame = frame(i, 0)
            root.addSublayer(l)
            layers.append(l)
        }
    }

    func update(frame f: Int) {
        let r = frame(moving, f)
        layers[moving].position = Point(x: r.midX, y: r.midY)
    }

    func prepare(_ ceiling: Ceiling) throws {}

    func ceilingFrame(_ f: Int, _ quads: inout QuadWriter, _ ceiling: Ceiling) {
        for i in 0..<layerCount { quads.rect(frame(i, f), layer: -2, color: colors[i]) }
    }
}

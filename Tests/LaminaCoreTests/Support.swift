import CGLES
import Foundation
import LaminaGeometry
import LaminaGPU
import Testing
@testable import LaminaCore
@testable import LaminaModel
@testable import LaminaRender
@testable import LaminaValues

/// Renders `root` (placed in target points) into a fresh target of `width`×`height`
/// points and returns the pixels (and the statistics of the frame).
@MainActor
func render(_ root: Layer, width: Double = 200, height: Double = 200, scale: Double = 1,
            background: Color = .white) throws -> (image: RGBAImage, stats: FrameStatistics) {
    let device = try GPUDevice()
    let compositor = LayerRenderer(device: device)
    let target = try OffscreenTarget(device: device, size: Size(width: width, height: height), scale: scale)
    let stats = try compositor.render(root, to: target, background: background)
    return (try target.readPixels(), stats)
}

/// A layer with a frame and a background colour.
@MainActor
func solid(_ frame: Rect, _ color: Color) -> Layer {
    let l = Layer()
    l.frame = frame
    l.backgroundColor = color
    return l
}

/// A root layer covering the target, transparent.
@MainActor
func rootLayer(width: Double = 200, height: Double = 200) -> Layer {
    let l = Layer()
    l.frame = Rect(x: 0, y: 0, width: width, height: height)
    return l
}

func px(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8 = 255) -> RGBAPixel { RGBAPixel(r: r, g: g, b: b, a: a) }
let white = px(255, 255, 255), red = px(255, 0, 0), green = px(0, 255, 0), blue = px(0, 0, 255), black = px(0, 0, 0)

extension RGBAImage {
    /// Pixels that differ from `expected` by more than `tolerance`, as "(x,y) got/expected" lines.
    func mismatches(tolerance: Int = 0, limit: Int = 8, _ expected: (Int, Int) -> RGBAPixel?) -> [String] {
        var out: [String] = []
        var count = 0
        for y in 0..<height {
            for x in 0..<width {
                guard let e = expected(x, y) else { continue }
                let got = self[x, y]
                if got.maxChannelDifference(e) > tolerance {
                    count += 1
                    if out.count < limit { out.append("(\(x),\(y)) got \(got) expected \(e)") }
                }
            }
        }
        if count > limit { out.append("… \(count) in all") }
        return out
    }

    /// Bounding box of pixels matching `predicate` (nil when none).
    func boundingBox(where predicate: (RGBAPixel) -> Bool) -> PixelRect? {
        var x0 = Int.max, y0 = Int.max, x1 = -1, y1 = -1
        for y in 0..<height { for x in 0..<width where predicate(self[x, y]) {
            x0 = min(x0, x); y0 = min(y0, y); x1 = max(x1, x); y1 = max(y1, y)
        } }
        return x1 < 0 ? nil : PixelRect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
    }
}

/// A small image with four coloured quadrants (red TL, green TR, blue BL, white BR).
func quadrantImage(size: Int) -> RGBAImage {
    var image = RGBAImage(width: size, height: size)
    for y in 0..<size { for x in 0..<size {
        image[x, y] = y < size / 2 ? (x < size / 2 ? red : green) : (x < size / 2 ? blue : white)
    } }
    return image
}

/// Expected colour of the quadrant image drawn into `rect` (in pixels), or nil near its
/// seams/edges (within `margin` px) or outside.
func quadrantColor(_ x: Int, _ y: Int, in rect: Rect, margin: Double = 1) -> RGBAPixel? {
    let cx = Double(x) + 0.5, cy = Double(y) + 0.5
    guard cx > rect.minX + margin, cx < rect.maxX - margin, cy > rect.minY + margin, cy < rect.maxY - margin else { return nil }
    guard abs(cx - rect.midX) > margin, abs(cy - rect.midY) > margin else { return nil }
    return cy < rect.midY ? (cx < rect.midX ? red : green) : (cx < rect.midX ? blue : white)
}

/// Where a 40×20-point image lands in a 100×80-point layer at (50, 60) for each gravity
/// (worked out by hand).
func gravityPlacement(_ gravity: ContentsGravity) -> Rect {
    switch gravity {
    case .resize: return Rect(x: 50, y: 60, width: 100, height: 80)
    case .resizeAspect: return Rect(x: 50, y: 75, width: 100, height: 50)        // scale 2.5
    case .resizeAspectFill: return Rect(x: 20, y: 60, width: 160, height: 80)    // scale 4, overflows
    case .center: return Rect(x: 80, y: 90, width: 40, height: 20)
    case .top: return Rect(x: 80, y: 60, width: 40, height: 20)
    case .bottom: return Rect(x: 80, y: 120, width: 40, height: 20)
    case .left: return Rect(x: 50, y: 90, width: 40, height: 20)
    case .right: return Rect(x: 110, y: 90, width: 40, height: 20)
    case .topLeft: return Rect(x: 50, y: 60, width: 40, height: 20)
    case .topRight: return Rect(x: 110, y: 60, width: 40, height: 20)
    case .bottomLeft: return Rect(x: 50, y: 120, width: 40, height: 20)
    case .bottomRight: return Rect(x: 110, y: 120, width: 40, height: 20)
    }
}

/// A small deterministic random source (xorshift64*), so a failing frame can be replayed.
struct TestRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state ^= state >> 12; state ^= state << 25; state ^= state >> 27
        return state &* 2685821657736338717
    }
    mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func double(_ a: Double, _ b: Double) -> Double { a + (b - a) * Double(next() % 1_000_000) / 1_000_000 }
    mutating func chance(_ p: Double) -> Bool { double(0, 1) < p }
}

/// The seeds the damage fuzz tests run (`DamageTests`, `EffectDamageTests`,
/// `StructureDamageTests`): `LAMINA_DAMAGE_FUZZ_SEEDS` — a list and ranges, e.g. `5-40` or
/// `3,7,100-110` — or the fixed ones each test names. Seed 0 is each test's own sequence.
enum DamageFuzzSeeds {
    static func or(_ fixed: [UInt64]) -> [UInt64] {
        guard let text = ProcessInfo.processInfo.environment["LAMINA_DAMAGE_FUZZ_SEEDS"], !text.isEmpty else { return fixed }
        var seeds: [UInt64] = []
        for part in text.split(separator: ",") {
            let ends = part.split(separator: "-", omittingEmptySubsequences: false).map { UInt64($0.trimmingCharacters(in: .whitespaces)) }
            switch (ends.count, ends.first ?? nil, ends.last ?? nil) {
            case (1, let a?, _): seeds.append(a)
            case (2, let a?, let b?) where a <= b: seeds += Array(a...b)
            default: preconditionFailure("LAMINA_DAMAGE_FUZZ_SEEDS=\(text): \"\(part)\" is not a seed or a range (expected seeds such as 5-40 or 3,7,100-110)")
            }
        }
        return seeds
    }

    /// A random source for `seed` from a test's own state (seed 0: that state itself).
    static func random(_ state: UInt64, seed: UInt64) -> TestRandom {
        let s = state ^ (seed &* 0xD1B5_4A32_D192_ED03)
        return TestRandom(state: s == 0 ? 1 : s)
    }
}

/// A hosted tree on a 200×200 offscreen target with the media clock fixed at `t0` (what
/// was pending from other tests is committed first). Tests of animations drive frames
/// with `frame(at:)` and read values with `presented(_:at:)`; `close()` puts the real
/// clock back.
@MainActor
final class AnimationStage {
    let device: GPUDevice
    let target: OffscreenTarget
    let root: Layer
    let host: LayerTreeHost
    let t0 = 1000.0

    init() throws {
        MediaClock.set(t0)
        try Transaction.flush()
        device = try GPUDevice()
        target = try OffscreenTarget(device: device, size: Size(width: 200, height: 200))
        root = rootLayer()
        host = LayerTreeHost(rootLayer: root, target: target, background: .white)
    }

    /// Commits at media time `t0 + dt` and reads the target.
    @discardableResult
    func frame(at dt: Double) throws -> RGBAImage {
        MediaClock.set(t0 + dt)
        try Transaction.flush()
        return try target.readPixels()
    }

    /// What `layer` shows at `t0 + dt`.
    func presented(_ layer: Layer, at dt: Double) -> Layer {
        MediaClock.set(t0 + dt)
        return layer.presentation()
    }

    func close() {
        host.detach()
        MediaClock.set(nil)
    }
}

/// The damage check of the random-frame tests: a tree hosted on a target composited with
/// damage, and after each frame the same tree composited whole by a second renderer (see
/// `Reference`) — the two must be equal pixel for pixel, and every pixel that changed must
/// lie inside one of the reported damage rectangles.
@MainActor
final class DamageRig {
    let size: Size
    let device: GPUDevice
    let damaged: OffscreenTarget
    let reference: OffscreenTarget
    let root: Layer
    let host: LayerTreeHost
    private let full: LayerRenderer
    private var previous: RGBAImage
    /// Frames composited in part, frames skipped (nothing changed), and frames whose items
    /// were worked out from scratch.
    private(set) var partial = 0, skipped = 0, rebuilt = 0

    /// What each frame is checked against.
    enum Reference {
        /// A renderer that starts from a new snapshot of the model every frame: it keeps
        /// nothing from the frame before (checks the incremental tree, items and damage).
        /// Its atlas places small images elsewhere: the same texel's coordinates differ in
        /// the last bits, and llvmpipe's 8-bit filter weights may round one step apart in
        /// each axis — where a magnified image's neighbouring texels differ strongly, pixels
        /// may differ by 2 (`randomFrames` seed 101 frame 239 and `randomEffectFrames`
        /// seed 37 frame 241: one pixel each, by 2; against `.rebuilt`, the same renderer
        /// and atlas, both seeds pass at tolerance 0 over every frame).
        case fresh
        /// The same renderer throughout, its items worked out from scratch every frame: for
        /// frames that show what a renderer keeps (a transition's old picture is captured
        /// when the transition is added, not described by the model).
        case rebuilt
    }
    let mode: Reference

    init(size: Size = Size(width: 128, height: 96), reference mode: Reference = .fresh) throws {
        self.mode = mode
        try Transaction.flush()
        self.size = size
        device = try GPUDevice()
        damaged = try OffscreenTarget(device: device, size: size)
        reference = try OffscreenTarget(device: device, size: size)
        root = Layer()
        root.frame = Rect(origin: .zero, size: size)
        root.backgroundColor = Color(red: 0.9, green: 0.9, blue: 0.85)
        host = LayerTreeHost(rootLayer: root, target: damaged, background: .white)
        full = LayerRenderer(device: device)
        previous = try damaged.readPixels()
    }

    /// The items of every surface, for a failure's report.
    static func dump(_ b: FrameBuilder) -> String {
        // (Boxes to a hundredth of a point: truncated to whole points, two builders' boxes
        // that differ read the same.)
        func box(_ b: TargetBox?) -> String {
            b.map { "[" + [$0.minX, $0.minY, $0.maxX, $0.maxY].map { String(format: "%.2f", $0) }.joined(separator: ",") + "]" } ?? "-"
        }
        return b.surfaces.sorted { "\($0.key)" < "\($1.key)" }.map { id, s in
            "\(id) \(box(s.bounds)): " + s.items.array.map { i in
                "\(i.node.id).\(i.kind.name)\(box(i.bounds))\(i.clip.map { "c\($0.layers.map(\.description).joined())" } ?? "")"
            }.joined(separator: " ")
        }.joined(separator: "\n    ")
    }

    static func channelDifference(_ a: RGBAPixel, _ b: RGBAPixel) -> Int {
        max(abs(Int(a.r) - Int(b.r)), abs(Int(a.g) - Int(b.g)), abs(Int(a.b) - Int(b.b)), abs(Int(a.a) - Int(b.a)))
    }

    /// Commits what was built so far, unchecked: the starting picture.
    func settle() throws {
        try Transaction.flush()
        previous = try damaged.readPixels()
    }

    /// Commits the frame's changes and checks it; returns its statistics.
    @discardableResult
    func commitAndCheck(_ label: String) throws -> FrameStatistics {
        try Transaction.flush()
        let stats = host.lastFrame
        let now = try damaged.readPixels()
        switch mode {
        case .fresh: full.release()   // (a new snapshot: nothing kept from the frame before)
        case .rebuilt: full.compositor.tree?.needsRebuild = true
        }
        try full.render(root, to: reference, background: .white)
        let expected = try reference.readPixels()
        let tolerance = mode == .fresh ? 2 : 0
        let d = now.difference(from: expected, tolerance: tolerance)
        var items = ""
        if d.differing != 0, let a = host.compositor.builder, let b = full.compositor.builder {
            var first: [String] = []
            for y in 0..<now.height { for x in 0..<now.width where first.count < 4 && Self.channelDifference(now[x, y], expected[x, y]) > tolerance { first.append("(\(x), \(y)): \(now[x, y]) vs \(expected[x, y])") } }
            items = "\n  first: \(first.joined(separator: ", "))\n  incremental: \(Self.dump(a))\n  reference:   \(Self.dump(b))"
        }
        if let target = host.compositor.builder?.target {
            // The count of items drawn inside stencil clips is kept as items come and go and
            // as their clips change shape; the target's depth/stencil buffer follows it.
            let recount = target.items.array.filter(\.drawsInStencil).count
            try #require(target.stencilItems == recount, "\(label): \(target.stencilItems) items counted as drawn in stencil clips, \(recount) are")
            try #require(damaged.ownStencilAttached == (recount > 0), "\(label): the target's depth/stencil buffer does not follow its clips")
        }
        try #require(d.differing == 0, "\(label): the damage-limited target differs from a full recomposite in \(d.differing) pixels (max \(d.maxDifference)); damage \(stats.damageRects)\(items)")
        let boxes = (stats.damageRects.isEmpty ? [stats.damagedRect] : stats.damageRects).map { damaged.pixelRect(covering: $0) }
        var outside = 0
        for y in 0..<now.height {
            for x in 0..<now.width where now[x, y] != previous[x, y] && !boxes.contains(where: { $0.contains(x: x, y: y) }) { outside += 1 }
        }
        try #require(outside == 0, "\(label): \(outside) pixels changed outside the reported damage \(stats.damageRects)")
        previous = now
        if stats.rebuildReason != nil { rebuilt += 1 }
        let area = stats.damageRects.reduce(0) { $0 + $1.width * $1.height }
        if stats.skipped { skipped += 1 } else if stats.fullFrameReason == nil && area < size.width * size.height { partial += 1 }
        return stats
    }

    func close() {
        host.detach()
        full.release()
        device.close()
    }
}

/// A framebuffer of the caller's kind over `texture`: its colour only, no depth or stencil
/// (delete it with `glDeleteFramebuffers` in the device's context).
func colorOnlyFramebuffer(_ device: GPUDevice, over texture: Texture) throws -> GLuint {
    var fbo: GLuint = 0
    try device.withContext {
        glGenFramebuffers(1, &fbo)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), fbo)
        glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D), texture.glName, 0)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
    }
    return fbo
}

import CGLES
import Foundation
import LaminaGeometry
import LaminaTestSupport
import Testing
@testable import LaminaGPU

/// Premultiplied noise: every texel differs from its neighbours, so any sample that reads
/// a wrong texel (a neighbour's, or the wrong weight) shows.
private func noiseImage(_ size: PixelSize, seed: UInt64) -> RGBAImage {
    var rng = SplitMix64(seed: seed)
    var image = RGBAImage(width: size.width, height: size.height)
    for y in 0..<size.height {
        for x in 0..<size.width {
            let a: UInt8 = (x + y) % 3 == 0 ? 255 : .random(in: 0...255, using: &rng)
            image[x, y] = RGBAPixel(r: .random(in: 0...a, using: &rng), g: .random(in: 0...a, using: &rng),
                                    b: .random(in: 0...a, using: &rng), a: a)
        }
    }
    return image
}

/// `image` with `border` pixels of replicated edge around it: what a page must hold
/// around an entry.
private func padded(_ image: RGBAImage, border b: Int) -> RGBAImage {
    var out = RGBAImage(width: image.width + 2 * b, height: image.height + 2 * b)
    for y in 0..<out.height {
        for x in 0..<out.width {
            out[x, y] = image[min(max(x - b, 0), image.width - 1), min(max(y - b, 0), image.height - 1)]
        }
    }
    return out
}

/// Reads `region` of a texture through a framebuffer on it (the target owns only that).
private func readTexture(_ device: GPUDevice, _ texture: Texture, _ region: PixelRect? = nil) throws -> RGBAImage {
    let target = try OffscreenTarget(device: device, texture: texture)
    defer { target.release() }
    return try target.readPixels(region)
}

/// An entry's rectangle with its border.
private func slotRect(_ e: AtlasEntry) -> PixelRect {
    PixelRect(x: e.rect.x - e.border, y: e.rect.y - e.border, width: e.rect.width + 2 * e.border, height: e.rect.height + 2 * e.border)
}

private func overlaps(_ a: PixelRect, _ b: PixelRect) -> Bool {
    a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
}

/// Reads every page once and compares each entry's rectangle, border included, with its
/// image padded by replication; the mismatching entries.
private func pageMismatches(_ device: GPUDevice, _ entries: [(AtlasEntry, RGBAImage)]) throws -> [String] {
    var byPage: [ObjectIdentifier: (Texture, [(AtlasEntry, RGBAImage)])] = [:]
    for (e, image) in entries { byPage[ObjectIdentifier(e.page), default: (e.page, [])].1.append((e, image)) }
    var wrong: [String] = []
    for (texture, list) in byPage.values {
        let page = try readTexture(device, texture)
        for (e, image) in list {
            let expected = padded(image, border: e.border)
            let s = slotRect(e)
            var bad = 0
            for y in 0..<s.height {
                for x in 0..<s.width where page[s.x + x, s.y + y] != expected[x, y] { bad += 1 }
            }
            if bad > 0 { wrong.append("\(e): \(bad) px wrong") }
        }
    }
    return wrong
}

/// The batched quad shader's sampling, as a test program: the quad's page coordinates
/// (`u_source`), clamped to a rectangle (`u_clamp`: min x, min y, max x, max y), the texels
/// read in the entry's byte order (`u_channels`: 0 RGBA, 1 BGRA, 2 BGRX).
private let clampFragmentSource = """
#version 300 es
precision highp float;
uniform sampler2D u_texture;
uniform vec4 u_source;
uniform vec4 u_clamp;
uniform int u_channels;
in vec2 v_texCoord;
out vec4 fragColor;
void main() {
    vec2 uv = clamp(u_source.xy + v_texCoord * u_source.zw, u_clamp.xy, u_clamp.zw);
    vec4 c = texture(u_texture, uv);
    if (u_channels == 1) c = c.bgra;
    else if (u_channels == 2) c = vec4(c.bgr, 1.0);
    fragColor = c;
}
"""

private func makeClampProgram(_ d: GPUDevice) throws -> Program {
    try d.makeProgram(vertexSource: try Shaders.source(named: "quad.vert"), vertexName: "quad.vert",
                      fragmentSource: clampFragmentSource, fragmentName: "atlas-clamp.frag")
}

private extension RenderPass {
    /// Draws `source` (page coordinates) of `page` into `rect`, clamped to `clamp`.
    func drawClamped(_ program: Program, device: GPUDevice, page: Texture, source: Rect, clamp: Rect, in rect: Rect,
                     filter: (TextureFilter, TextureFilter) = (.linear, .linear), transform: Transform3D = .identity,
                     channels: Int32 = 0) {
        draw(with: program, in: rect, transform: transform) { p in
            glActiveTexture(GLenum(GL_TEXTURE0))
            glBindTexture(GLenum(GL_TEXTURE_2D), page.glName)
            glBindSampler(0, device.sampler(min: filter.0, mag: filter.1).glName)
            glUniform1i(p.uniformLocation("u_texture"), 0)
            glUniform4f(p.uniformLocation("u_source"), GLfloat(source.origin.x), GLfloat(source.origin.y),
                        GLfloat(source.size.width), GLfloat(source.size.height))
            glUniform4f(p.uniformLocation("u_clamp"), GLfloat(clamp.minX), GLfloat(clamp.minY), GLfloat(clamp.maxX), GLfloat(clamp.maxY))
            glUniform1i(p.uniformLocation("u_channels"), channels)
        }
    }
}

/// An entry holding `image` in a page where other entries of loud, different colours touch
/// it on all four sides (their borders against its border), and the same image in a
/// texture of its own.
private struct EdgeFixture {
    let atlas: TextureAtlas
    let entry: AtlasEntry
    let neighbours: [(AtlasEntry, RGBAImage)]
    let standalone: Texture

    static let loud: [RGBAPixel] = [px(255, 0, 255), px(0, 255, 0), px(0, 0, 0, 0), px(255, 255, 255),
                                    px(0, 0, 255), px(255, 0, 0), px(0, 255, 255), px(255, 255, 0)]

    init(device d: GPUDevice, image: RGBAImage, border: Int) throws {
        // Three slots a shelf: a page a little wider than three.
        let slot = max(image.width + 3, image.height + 3) + 2 * border
        atlas = TextureAtlas(device: d, pageSize: 3 * slot + 2, maxEntrySide: 64, border: border)
        var all: [AtlasEntry] = []
        for _ in 0..<12 { all.append(try #require(try atlas.allocate(image.pixelSize))) }
        func touching(_ e: AtlasEntry, _ dx: Int, _ dy: Int) -> AtlasEntry? {
            all.first { n in
                n.page === e.page && n.rect.x == e.rect.x + dx * (e.rect.width + 2 * border)
                    && n.rect.y == e.rect.y + dy * (e.rect.height + 2 * border)
                    && (dx == 0 || n.rect.y == e.rect.y) && (dy == 0 || n.rect.x == e.rect.x)
            }
        }
        let middle = all.first { e in [(-1, 0), (1, 0), (0, -1), (0, 1)].allSatisfy { touching(e, $0.0, $0.1) != nil } }
        entry = try #require(middle, "no entry with neighbours on all sides: \(all.map(\.rect))")
        try atlas.upload(entry, image: image)
        var neighbours: [(AtlasEntry, RGBAImage)] = []
        for (i, n) in all.enumerated() where n != entry {
            let fill = RGBAImage(width: image.width, height: image.height, fill: EdgeFixture.loud[i % EdgeFixture.loud.count])
            try atlas.upload(n, image: fill)
            neighbours.append((n, fill))
        }
        self.neighbours = neighbours
        standalone = try d.makeTexture(pixelSize: image.pixelSize, pixels: image)
    }

    func release() { atlas.release(); standalone.release() }
}

/// One way of drawing a texture into a rectangle.
private struct DrawCase: CustomStringConvertible, Sendable {
    var name: String
    var rect: Rect
    var transform: Transform3D = .identity
    var filter: (TextureFilter, TextureFilter) = (.linear, .linear)
    /// 0: exact. 1 for a rotated or unevenly stretched quad: its texture coordinate is
    /// interpolated in page units rather than the texture's own, and the rounding of that
    /// plane equation moves a bilinear weight by one step at a few interior pixels (seen on
    /// llvmpipe: one column of the rotated quad, far from the entry's edges; on an NVIDIA
    /// H200, whose filter weights have 8 bits: 27 pixels of the stretched one, 19 of the
    /// rotated). A neighbour bleeding in shows as 8 to 180 (`noBorderBleeds`).
    var tolerance = 0
    var description: String { name }
}

/// How far two renderings differ.
private struct Comparison: CustomStringConvertible {
    var differing: Int, maxDifference: Int
    var description: String { "\(differing) px differ, by at most \(maxDifference)" }
}

private func compare(_ a: RGBAImage, _ b: RGBAImage, tolerance: Int = 0) -> Comparison {
    let d = a.difference(from: b, tolerance: tolerance)
    return Comparison(differing: d.differing, maxDifference: d.maxDifference)
}

/// Renders one drawing into a cleared target and reads it back.
private func render(_ target: OffscreenTarget, _ body: (RenderPass) throws -> Void) throws -> RGBAImage {
    let pass = try target.device.beginRenderPass(on: target, clear: Color(r8: 40, g8: 60, b8: 90))
    try body(pass)
    pass.submit()
    return try target.readPixels()
}

@Suite("Texture atlas")
struct AtlasTests {
    // MARK: (a) many frames of allocations and frees

    @Test("hundreds of frames of random allocations and frees: live entries never overlap, hold their pixels, pages are reused and released, texture counts return to the baseline")
    func churn() throws {
        let d = try openDevice()
        let baseline = d.liveObjectCounts[.texture]
        let atlas = TextureAtlas(device: d, pageSize: 512, maxEntrySide: 128)
        var rng = SplitMix64(seed: 0xA71A5)
        var live: [(AtlasEntry, RGBAPixel)] = []
        var allocations = 0, maxPages = 0, releasedMidRun = false
        var pagesMade = 0
        /// How full the pages were each time the atlas needed a new one.
        var occupancyWhenFull: [Double] = []
        func randomSide() -> Int {
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<70: return .random(in: 1...32, using: &rng)
            case 70..<95: return .random(in: 33...96, using: &rng)
            default: return .random(in: 97...128, using: &rng)
            }
        }
        for frame in 0..<400 {
            // Frames 250..<300 drain the atlas (frees only); the others churn.
            let draining = (250..<300).contains(frame)
            let freeChance = draining ? 0.3 : 0.1
            var kept: [(AtlasEntry, RGBAPixel)] = []
            for item in live {
                if Double.random(in: 0..<1, using: &rng) < freeChance { #expect(atlas.free(item.0)) } else { kept.append(item) }
            }
            live = kept
            if !draining {
                for _ in 0..<Int.random(in: 0...30, using: &rng) {
                    let size = PixelSize(width: randomSide(), height: randomSide())
                    let before = atlas.statistics
                    let entry = try #require(try atlas.allocate(size))
                    if atlas.statistics.pagesCreated > before.pagesCreated {
                        pagesMade += 1
                        if before.pages > 0 { occupancyWhenFull.append(before.occupancy) }
                    }
                    let colour = RGBAPixel(r: .random(in: 0...255, using: &rng), g: .random(in: 0...255, using: &rng),
                                           b: .random(in: 0...255, using: &rng), a: 255)
                    try atlas.upload(entry, image: RGBAImage(width: size.width, height: size.height, fill: colour))
                    live.append((entry, colour))
                    allocations += 1
                }
            }
            // No two live entries (with their borders) overlap; each lies inside its page.
            let stats = atlas.statistics
            #expect(stats.entries == live.count)
            for i in live.indices {
                let a = slotRect(live[i].0)
                #expect(PixelRect(size: live[i].0.page.pixelSize).contains(a))
                for j in live.indices where j > i && live[j].0.page === live[i].0.page {
                    if overlaps(a, slotRect(live[j].0)) {
                        Issue.record("frame \(frame): \(live[i].0) overlaps \(live[j].0)")
                    }
                }
            }
            maxPages = max(maxPages, stats.pages)
            if stats.pagesReleased > 0 && frame < 300 { releasedMidRun = true }
            if frame % 40 == 39 {
                let wrong = try pageMismatches(d, live.map { ($0.0, RGBAImage(width: $0.0.size.width, height: $0.0.size.height, fill: $0.1)) })
                #expect(wrong.isEmpty, "frame \(frame): \(wrong.prefix(4))")
                #expect(Set(atlas.pageTextures.map { ObjectIdentifier($0) }) == Set(live.map { ObjectIdentifier($0.0.page) }),
                        "frame \(frame): a page without entries is still alive")
            }
        }
        let stats = atlas.statistics
        let lowest = occupancyWhenFull.min() ?? 1, mean = occupancyWhenFull.reduce(0, +) / Double(max(1, occupancyWhenFull.count))
        print("atlas churn: \(allocations) allocations in 400 frames, \(pagesMade) made a page; at most \(maxPages) pages; pages \(String(format: "%.0f%% full on average, %.0f%% at least", mean * 100, lowest * 100)) when a new one was needed; now \(stats)")
        #expect(allocations > 3000)
        // Pages are reused: nearly every allocation lands in a page that already exists.
        #expect(pagesMade == stats.pagesCreated && pagesMade * 100 < allocations, "\(stats)")
        // Free space is reused before a page is added: the pages were mostly full each time.
        // (Seen: 46% and 61%. Entries here reach a quarter of the page's side, and a tall one
        // needs a free band of its height in some column.)
        #expect(lowest >= 0.4, "\(occupancyWhenFull)")
        #expect(releasedMidRun, "draining should release pages before the end")
        for (entry, _) in live { atlas.free(entry) }
        #expect(atlas.statistics.pages == 0 && atlas.statistics.entries == 0 && atlas.statistics.usedPixels == 0)
        #expect(d.liveObjectCounts[.texture] == baseline)
    }

    @Test("release() frees every entry and page; freeing afterwards is a no-op; the atlas works again")
    func releaseAll() throws {
        let d = try openDevice()
        let baseline = d.liveObjectCounts[.texture]
        let atlas = TextureAtlas(device: d, pageSize: 128, maxEntrySide: 100)
        let entries = try (0..<5).map { _ in try #require(try atlas.allocate(PixelSize(width: 90, height: 90))) }
        #expect(atlas.statistics.pages == 5)   // one 92×92 slot a 128² page
        #expect(d.liveObjectCounts[.texture] == baseline + 5)
        atlas.release()
        #expect(d.liveObjectCounts[.texture] == baseline)
        #expect(atlas.statistics.entries == 0 && atlas.statistics.pages == 0)
        #expect(!atlas.contains(entries[0]) && !atlas.free(entries[0]))
        let again = try #require(try atlas.allocate(PixelSize(width: 10, height: 10)))
        #expect(atlas.free(again) && !atlas.free(again))   // a second free does nothing
        #expect(d.liveObjectCounts[.texture] == baseline)
    }

    @Test("emptyPagesKept keeps a page for a lone entry replaced every frame; releaseEmptyPages lets it go")
    func keptEmptyPages() throws {
        let d = try openDevice()
        let baseline = d.liveObjectCounts[.texture]
        let atlas = TextureAtlas(device: d, pageSize: 256)
        atlas.emptyPagesKept = 1
        for frame in 0..<20 {
            let e = try #require(try atlas.allocate(PixelSize(width: 10 + frame, height: 20)))
            atlas.free(e)
        }
        #expect(atlas.statistics.pagesCreated == 1 && atlas.statistics.pages == 1 && atlas.statistics.emptyPages == 1)
        #expect(d.liveObjectCounts[.texture] == baseline + 1)
        atlas.releaseEmptyPages()
        #expect(atlas.statistics.pages == 0 && d.liveObjectCounts[.texture] == baseline)
        // Without keeping (the default), each frame makes and releases a page.
        atlas.emptyPagesKept = 0
        for _ in 0..<3 { atlas.free(try #require(try atlas.allocate(PixelSize(width: 8, height: 8)))) }
        #expect(atlas.statistics.pagesCreated == 4 && d.liveObjectCounts[.texture] == baseline)
    }

    @Test("freed room is reused and an emptied shelf gives its rows back (packer alone)")
    func packerReuse() {
        var p = ShelfPacker(width: 256, height: 256, columnWidth: 256)
        let size = PixelSize(width: 32, height: 32)
        #expect(ShelfPacker.slotSize(for: size, border: 0) == size)
        var slots = (0..<64).compactMap { _ in p.allocate(size, fit: .snug) }
        #expect(slots.count == 64)   // 8 × 8 slots of 32²: a full page
        #expect(p.allocate(size, fit: .snug) == nil && p.allocate(size, fit: .any) == nil)
        p.free(slots[9])
        #expect(p.allocate(size, fit: .snug) == slots[9])
        // Empty two whole shelves: a taller entry takes their rows.
        for s in slots[8..<24] { p.free(s) }
        let tall = p.allocate(PixelSize(width: 64, height: 64), fit: .snug)
        #expect(tall == PixelRect(x: 0, y: 32, width: 64, height: 64))
        // A small entry goes into a tall shelf only when nothing snug is left.
        let small = PixelSize(width: 8, height: 8)
        #expect(p.allocate(small, fit: .snug) == nil)
        #expect(p.allocate(small, fit: .any) == PixelRect(x: 64, y: 32, width: 8, height: 64))
        p.free(PixelRect(x: 64, y: 32, width: 8, height: 64))
        p.free(tall!)
        slots.removeSubrange(8..<24)
        for s in slots { p.free(s) }
        #expect(p.isEmpty && p.shelfCount == 0)
    }

    // MARK: (b) edges under linear filtering

    private static let edgeCases: [DrawCase] = [
        DrawCase(name: "magnified ×7", rect: Rect(x: 4, y: 6, width: 112, height: 84)),
        DrawCase(name: "magnified ×7 at a sub-pixel offset", rect: Rect(x: 4.37, y: 6.61, width: 112, height: 84)),
        DrawCase(name: "1:1 at a half-pixel offset", rect: Rect(x: 20.5, y: 30.5, width: 16, height: 12)),
        DrawCase(name: "1:1 at a quarter-pixel offset", rect: Rect(x: 60.25, y: 30.75, width: 16, height: 12)),
        DrawCase(name: "minified ×0.43 at a sub-pixel offset", rect: Rect(x: 50.3, y: 40.7, width: 6.88, height: 5.16)),
        DrawCase(name: "minified ×0.75", rect: Rect(x: 90, y: 10, width: 12, height: 9)),
        DrawCase(name: "stretched ×9.3 by ×2.7", rect: Rect(x: 1.2, y: 80.4, width: 148.8, height: 32.4), tolerance: 1),
        DrawCase(name: "rotated 30° and magnified ×5", rect: Rect(x: 0, y: 0, width: 80, height: 60),
                 transform: Transform3D(rotationAngle: .pi / 6, x: 0, y: 0, z: 1).concatenating(Transform3D(translationX: 60, y: 10)), tolerance: 1),
        DrawCase(name: "magnified ×7, nearest", rect: Rect(x: 4.37, y: 6.61, width: 112, height: 84), filter: (.nearest, .nearest)),
        DrawCase(name: "minified ×0.43, nearest", rect: Rect(x: 50.3, y: 40.7, width: 6.88, height: 5.16), filter: (.nearest, .nearest)),
    ]

    @Test("an entry among loud neighbours draws like its own texture with CLAMP_TO_EDGE (magnified, minified, sub-pixel offsets, rotated)",
          arguments: edgeCases)
    fileprivate func edges(_ c: DrawCase) throws {
        let d = try openDevice()
        let image = noiseImage(PixelSize(width: 16, height: 12), seed: 7)
        let f = try EdgeFixture(device: d, image: image, border: 1)
        let program = try makeClampProgram(d)
        let target = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 160, height: 120))
        let expected = try render(target) { try $0.draw(f.standalone, in: c.rect, minFilter: c.filter.0, magFilter: c.filter.1, transform: c.transform) }
        // The border alone: the page drawn with the entry's uvRect as the source rectangle.
        let plain = try render(target) {
            try $0.draw(f.entry.page, in: c.rect, sourceRect: f.entry.uvRect, minFilter: c.filter.0, magFilter: c.filter.1, transform: c.transform)
        }
        // What the batched shader does: coordinates clamped to clampRect.
        let clamped = try render(target) {
            $0.drawClamped(program, device: d, page: f.entry.page, source: f.entry.uvRect, clamp: f.entry.clampRect, in: c.rect,
                           filter: c.filter, transform: c.transform)
        }
        let blank = try render(target) { _ in }
        #expect(expected.difference(from: blank).differing > 0, "the drawing must show")
        let p = compare(plain, expected), q = compare(clamped, expected)
        print("atlas edges, \(c.name): sourceRect only: \(p); clamped: \(q)")
        #expect(p.maxDifference <= c.tolerance, "sourceRect = uvRect: \(p)")
        #expect(q.maxDifference <= c.tolerance, "clamped to clampRect: \(q)")
        program.release(); target.release(); f.release()
    }

    @Test("without a border the neighbours bleed in (the edge test sees it); the clamp alone keeps them out")
    func noBorderBleeds() throws {
        let d = try openDevice()
        let image = noiseImage(PixelSize(width: 16, height: 12), seed: 7)
        let f = try EdgeFixture(device: d, image: image, border: 0)
        let program = try makeClampProgram(d)
        let target = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 160, height: 120))
        var bled = 0
        for c in AtlasTests.edgeCases where c.filter.1 == .linear {
            let expected = try render(target) { try $0.draw(f.standalone, in: c.rect, transform: c.transform) }
            let plain = try render(target) { try $0.draw(f.entry.page, in: c.rect, sourceRect: f.entry.uvRect, transform: c.transform) }
            let clamped = try render(target) {
                $0.drawClamped(program, device: d, page: f.entry.page, source: f.entry.uvRect, clamp: f.entry.clampRect, in: c.rect, transform: c.transform)
            }
            let p = compare(plain, expected), q = compare(clamped, expected)
            print("atlas edges without a border, \(c.name): sourceRect only: \(p); clamped: \(q)")
            bled += p.differing
            #expect(q.maxDifference <= 1, "\(c.name), clamped: \(q)")
        }
        #expect(bled > 0)
        program.release(); target.release(); f.release()
    }

    // MARK: (c) nine-slice: interior seams are not clamped

    @Test("nine-slice of an atlas entry (whole, zero-size centre, with a contentsRect) equals nine-slice of its own texture")
    func nineSlice() throws {
        let d = try openDevice()
        let image = noiseImage(PixelSize(width: 24, height: 24), seed: 11)
        let f = try EdgeFixture(device: d, image: image, border: 1)
        let target = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 160, height: 100))
        let cases: [(String, Rect, Rect)] = [
            ("centre 0.25…0.75", Rect(x: 0.25, y: 0.25, width: 0.5, height: 0.5), Rect(x: 0, y: 0, width: 1, height: 1)),
            ("zero-size centre", Rect(x: 0.5, y: 0.5, width: 0, height: 0), Rect(x: 0, y: 0, width: 1, height: 1)),
            ("contentsRect (0.125, 0, 0.75, 1)", Rect(x: 0.3, y: 0.2, width: 0.4, height: 0.5), Rect(x: 0.125, y: 0, width: 0.75, height: 1)),
        ]
        for (name, center, contentsRect) in cases {
            let dest = Rect(x: 3.3, y: 2.7, width: 150, height: 90)
            let content = Size(width: 24 * contentsRect.width, height: 24 * contentsRect.height)
            let expected = try render(target) {
                try $0.drawNineSlice(f.standalone, in: dest, sourceRect: contentsRect, center: center, contentSize: content)
            }
            let got = try render(target) {
                try $0.drawNineSlice(f.entry.page, in: dest, sourceRect: f.entry.uvRect(for: contentsRect), center: center, contentSize: content)
            }
            let c = compare(got, expected)
            print("atlas nine-slice, \(name): \(c)")
            #expect(c.differing == 0, "\(name): \(c)")
        }
        target.release(); f.release()
    }

    @Test("nine pieces drawn as separate quads, each clamped to the whole entry, read across the interior seams like the entry's own texture")
    func nineQuadsAcrossSeams() throws {
        let d = try openDevice()
        let image = noiseImage(PixelSize(width: 24, height: 24), seed: 13)
        let f = try EdgeFixture(device: d, image: image, border: 1)
        let program = try makeClampProgram(d)
        let target = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 160, height: 100))
        // Source splits (unit) and destination splits (points): 6-pixel caps kept, the rest stretched.
        let su = [0.0, 0.25, 0.75, 1.0], dx = [2.5, 8.5, 146.5, 152.5], dy = [3.25, 9.25, 87.25, 93.25]
        var pieces: [(source: Rect, dest: Rect)] = []
        for j in 0..<3 {
            for i in 0..<3 {
                pieces.append((Rect(x: su[i], y: su[j], width: su[i + 1] - su[i], height: su[j + 1] - su[j]),
                               Rect(x: dx[i], y: dy[j], width: dx[i + 1] - dx[i], height: dy[j + 1] - dy[j])))
            }
        }
        let expected = try render(target) { pass in
            for p in pieces { try pass.draw(f.standalone, in: p.dest, sourceRect: p.source) }
        }
        let got = try render(target) { pass in
            for p in pieces {
                pass.drawClamped(program, device: d, page: f.entry.page, source: f.entry.uvRect(for: p.source),
                                 clamp: f.entry.clampRect, in: p.dest)
            }
        }
        // Clamping each piece to its own part would stop the seams from reading across.
        let perPiece = try render(target) { pass in
            for p in pieces {
                let uv = f.entry.uvRect(for: p.source)
                let half = Size(width: 0.5 / Double(f.entry.page.pixelSize.width), height: 0.5 / Double(f.entry.page.pixelSize.height))
                pass.drawClamped(program, device: d, page: f.entry.page, source: uv,
                                 clamp: uv.insetBy(dx: half.width, dy: half.height), in: p.dest)
            }
        }
        let c = compare(got, expected), wrong = compare(perPiece, expected)
        print("atlas nine quads: clamped to the entry: \(c); clamped to each piece: \(wrong)")
        #expect(c.differing == 0, "\(c)")
        #expect(wrong.differing > 0)
        program.release(); target.release(); f.release()
    }

    // MARK: (d) partial uploads

    @Test("a partial upload touching the entry's edge refreshes the border beside it, corners included; neighbours stay intact", arguments: [1, 2])
    func partialUploads(border: Int) throws {
        let d = try openDevice()
        let size = PixelSize(width: 16, height: 12)
        var current = noiseImage(size, seed: 21)
        let f = try EdgeFixture(device: d, image: current, border: border)
        let fresh = noiseImage(size, seed: 22)
        let b = border
        // (region, border pixels it refreshes)
        let updates: [(PixelRect, Int)] = [
            (PixelRect(x: 11, y: 3, width: 5, height: 4), 4 * b),                            // right edge
            (PixelRect(x: 0, y: 0, width: 3, height: 2), (2 + 3) * b + b * b),               // top-left corner
            (PixelRect(x: 5, y: 4, width: 3, height: 3), 0),                                 // inside: no border
            (PixelRect(x: 13, y: 9, width: 3, height: 3), (3 + 3) * b + b * b),              // bottom-right corner
            (PixelRect(x: 0, y: 11, width: 16, height: 1), (16 + 2) * b + 2 * b * b),        // the whole bottom row
        ]
        for (r, borderPixels) in updates {
            // The region's bytes inside a larger buffer (the whole fresh image): rows are
            // further apart than the region is wide.
            let before = d.uploadedBytes
            let sent = try fresh.bytes.withUnsafeBytes { all in
                try f.atlas.upload(f.entry, bytes: UnsafeRawBufferPointer(rebasing: all[((r.y * size.width + r.x) * 4)...]),
                                   bytesPerRow: size.width * 4, region: r)
            }
            #expect(sent == (r.area + borderPixels) * 4, "\(r)")
            #expect(d.uploadedBytes - before == sent)
            for y in r.y..<(r.y + r.height) { for x in r.x..<(r.x + r.width) { current[x, y] = fresh[x, y] } }
            let wrong = try pageMismatches(d, [(f.entry, current)] + f.neighbours)
            #expect(wrong.isEmpty, "after \(r): \(wrong)")
        }
        // And it draws like a texture of its own holding the same pixels.
        let own = try d.makeTexture(pixelSize: size, pixels: current)
        let target = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 160, height: 120))
        let rect = Rect(x: 4.37, y: 6.61, width: 112, height: 84)
        let c = compare(try render(target) { try $0.draw(f.entry.page, in: rect, sourceRect: f.entry.uvRect) },
                        try render(target) { try $0.draw(own, in: rect) })
        #expect(c.differing == 0, "\(c)")
        own.release(); target.release(); f.release()
    }

    // MARK: (e) byte orders side by side

    @Test("BGRA and BGRX bytes land in the page as given (no swizzle, no conversion) next to RGBA entries, and draw like swizzled textures of their own")
    func byteOrders() throws {
        let d = try openDevice()
        let baseline = d.liveObjectCounts[.texture]
        let atlas = TextureAtlas(device: d, pageSize: 64, maxEntrySide: 32)
        let size = PixelSize(width: 8, height: 6)
        let rgba = try #require(try atlas.allocate(size))
        let bgra = try #require(try atlas.allocate(size, byteOrder: .bgra))
        let bgrx = try #require(try atlas.allocate(size, byteOrder: .bgrx))
        #expect(rgba.page === bgra.page && bgra.page === bgrx.page)
        #expect(bgra.page.byteOrder == .rgba && bgra.byteOrder == .bgra && bgrx.byteOrder == .bgrx)
        // Bytes in memory order: B, G, R, A (Cairo's ARGB32 on little-endian); X = 17 is junk.
        func bytes(alpha: UInt8?) -> [UInt8] {
            var out: [UInt8] = []
            for y in 0..<size.height {
                for x in 0..<size.width { out += [UInt8(x * 30), UInt8(y * 40), 200, alpha ?? 17] }
            }
            return out
        }
        let bgraBytes = bytes(alpha: 255), bgrxBytes = bytes(alpha: nil)
        try atlas.upload(rgba, image: noiseImage(size, seed: 3))
        try bgraBytes.withUnsafeBytes { _ = try atlas.upload(bgra, bytes: $0, bytesPerRow: size.width * 4) }
        try bgrxBytes.withUnsafeBytes { _ = try atlas.upload(bgrx, bytes: $0, bytesPerRow: size.width * 4) }
        // Read back as R, G, B, A: the page holds the given bytes, in the given order.
        let asImage = RGBAImage(width: size.width, height: size.height, bytes: bgraBytes)
        let asImageX = RGBAImage(width: size.width, height: size.height, bytes: bgrxBytes)
        let wrong = try pageMismatches(d, [(rgba, noiseImage(size, seed: 3)), (bgra, asImage), (bgrx, asImageX)])
        #expect(wrong.isEmpty, "\(wrong)")
        let page = try readTexture(d, bgra.page, bgra.rect)
        #expect(page[3, 2] == RGBAPixel(r: 90, g: 80, b: 200, a: 255))   // B, G, R, A
        // Drawn through the quad's byte order, they equal swizzled textures of their own.
        let program = try makeClampProgram(d)
        let target = try OffscreenTarget(device: d, pixelSize: PixelSize(width: 80, height: 60))
        for (entry, order, channels, data) in [(bgra, PixelByteOrder.bgra, Int32(1), bgraBytes), (bgrx, .bgrx, 2, bgrxBytes)] {
            let own = try d.makeTexture(pixelSize: size, byteOrder: order)
            try data.withUnsafeBytes { _ = try own.upload($0, bytesPerRow: size.width * 4) }
            let rect = Rect(x: 3.4, y: 2.2, width: 70, height: 50)
            let expected = try render(target) { try $0.draw(own, in: rect) }
            let got = try render(target) {
                $0.drawClamped(program, device: d, page: entry.page, source: entry.uvRect, clamp: entry.clampRect, in: rect, channels: channels)
            }
            let c = compare(got, expected)
            #expect(c.differing == 0, "\(order): \(c)")
            own.release()
        }
        program.release(); target.release(); atlas.release()
        #expect(d.liveObjectCounts[.texture] == baseline)
    }

    // MARK: (f) limits and failures

    @Test("entries above the maximum side are refused with nil; pages never exceed the maximum texture size; empty sizes throw")
    func limits() throws {
        let d = try openDevice()
        let atlas = TextureAtlas(device: d)
        #expect(atlas.pageSize == min(2048, d.capabilities.maxTextureSize) && atlas.maxEntrySide == 512 && atlas.border == 1)
        #expect(try atlas.allocate(PixelSize(width: 513, height: 10)) == nil)
        #expect(try atlas.allocate(PixelSize(width: 10, height: 600)) == nil)
        #expect(!atlas.canHold(PixelSize(width: 513, height: 1)) && atlas.canHold(PixelSize(width: 512, height: 512)))
        #expect(atlas.statistics.pages == 0)   // a refusal makes no page
        let big = try #require(try atlas.allocate(PixelSize(width: 512, height: 512)))
        #expect(big.page.pixelSize == PixelSize(width: atlas.pageSize, height: atlas.pageSize))
        #expect(throws: GPUError.self) { _ = try atlas.allocate(PixelSize(width: 0, height: 4)) }
        atlas.release()
        // A page size above the device's limit is clamped to it (nothing allocated here: a
        // 16384² page is 1 GiB); the maximum entry side follows the page.
        let huge = TextureAtlas(device: d, pageSize: 1 << 20, maxEntrySide: 1 << 20)
        #expect(huge.pageSize == d.capabilities.maxTextureSize)
        #expect(huge.maxEntrySide == d.capabilities.maxTextureSize - 2)
        let small = TextureAtlas(device: d, pageSize: 64, maxEntrySide: 512, border: 2)
        #expect(small.maxEntrySide == 60)
        #expect(try small.allocate(PixelSize(width: 61, height: 1)) == nil)
        let full = try #require(try small.allocate(PixelSize(width: 60, height: 60)))
        #expect(full.rect == PixelRect(x: 2, y: 2, width: 60, height: 60))
        small.release()
        #expect(d.liveObjectCounts[.texture] == 0)
    }

    @Test("GL_OUT_OF_MEMORY making a page becomes GPUError.outOfMemory and leaves the atlas as it was")
    func outOfMemory() throws {
        let d = try openDevice()
        let atlas = TextureAtlas(device: d, pageSize: 64, maxEntrySide: 62)
        let first = try #require(try atlas.allocate(PixelSize(width: 62, height: 62)))
        let before = atlas.statistics
        let textures = d.liveObjectCounts[.texture]
        // llvmpipe cannot be made to run out of memory on demand (a 16384² texture succeeds):
        // the page maker fails as makeTexture does on GL_OUT_OF_MEMORY.
        let makePage = atlas.makePage
        atlas.makePage = { size in throw GPUError.outOfMemory(what: "a \(size) texture") }
        let error = #expect(throws: GPUError.self) { _ = try atlas.allocate(PixelSize(width: 10, height: 10)) }
        if case .outOfMemory? = error {} else { Issue.record("expected outOfMemory, got \(String(describing: error))") }
        #expect(atlas.statistics == before && d.liveObjectCounts[.texture] == textures && atlas.contains(first))
        atlas.makePage = makePage
        let second = try #require(try atlas.allocate(PixelSize(width: 10, height: 10)))
        #expect(second.page !== first.page && atlas.statistics.pages == 2)
        atlas.release()
        #expect(d.liveObjectCounts[.texture] == 0)
    }

    @Test("a closed device: allocating and uploading throw, freeing and releasing do nothing")
    func closedDevice() throws {
        let d = try openDevice()
        let atlas = TextureAtlas(device: d, pageSize: 64)
        let e = try #require(try atlas.allocate(PixelSize(width: 4, height: 4)))
        d.close()
        #expect(throws: GPUError.deviceClosed(operation: "TextureAtlas.allocate")) { _ = try atlas.allocate(PixelSize(width: 4, height: 4)) }
        #expect(throws: GPUError.deviceClosed(operation: "TextureAtlas.upload")) {
            _ = try atlas.upload(e, image: RGBAImage(width: 4, height: 4))
        }
        #expect(atlas.free(e))
        atlas.release()
    }

    // MARK: The motivating scene

    @Test("1000 distinct 64×64 images fit in two 2048² pages and keep their pixels")
    func thousandImages() throws {
        let d = try openDevice()
        let atlas = TextureAtlas(device: d)
        var entries: [(AtlasEntry, RGBAImage)] = []
        for i in 0..<1000 {
            let image = RGBAImage(width: 64, height: 64, fill: RGBAPixel(r: UInt8(i % 256), g: UInt8(i / 256), b: UInt8(i % 7 * 30), a: 255))
            let e = try #require(try atlas.allocate(image.pixelSize))
            try atlas.upload(e, image: image)
            entries.append((e, image))
        }
        #expect(atlas.statistics.pages == 2, "\(atlas.statistics)")
        #expect(Set(entries.map { ObjectIdentifier($0.0.page) }).count == 2)
        let wrong = try pageMismatches(d, entries)
        #expect(wrong.isEmpty, "\(wrong.prefix(4))")
        for (e, _) in entries { atlas.free(e) }
        #expect(d.liveObjectCounts[.texture] == 0)
    }
}

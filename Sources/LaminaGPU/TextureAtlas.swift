import LaminaValues
import CGLES
import LaminaGeometry
import Synchronization

/// Small images and backing stores packed into shared textures ("pages"), so that many
/// layers draw from one texture and batch into few draw calls.
///
/// - **Pages** are plain RGBA8 textures (`Texture`, counted like any other) of
///   `pageSize` × `pageSize` pixels (2048 by default, never above the device's
///   `maxTextureSize`), with no swizzle: entries of any byte order live side by side, and
///   the quad that draws an entry says how to read its texels (`AtlasEntry.byteOrder`).
///   A page is made when an entry fits in no existing page and released (its texture
///   deleted) as soon as its last entry is freed, so `liveObjectCounts[.texture]` returns
///   to its earlier value once every entry is freed (unless `emptyPagesKept` asks to keep
///   some for reuse).
/// - **Entries** are at most `maxEntrySide` pixels on a side (512 by default); larger
///   contents get a texture of their own: `allocate` returns nil for them.
/// - **Borders.** Each entry is surrounded by `border` pixels (1 by default) that `upload`
///   fills by replicating the entry's edge texels, so bilinear sampling anywhere inside the
///   entry's `uvRect` (quad edges included) reads exactly what `CLAMP_TO_EDGE` sampling of
///   a texture of the entry alone would: a sample half a texel outside the outermost texel
///   centres reads the edge texel and its replica, never a neighbour. One pixel is enough
///   because Lamina never samples beyond a quad's source rectangle and uses no mipmaps
///   (a bilinear footprint reaches at most one texel past the last centre). Sampling
///   clamped to `clampRect` (what the batched quad shader does) reproduces
///   `CLAMP_TO_EDGE` also for texture coordinates outside the entry (a `contentsRect`
///   beyond 0…1); the border then only absorbs rounding in the clamped coordinate.
/// - **Packing** is shelf packing with free-space reuse (`ShelfPacker`): a page is cut
///   into columns as wide as the widest entry, each column into horizontal shelves whose
///   heights are rounded to a few classes, each shelf into slots. An entry takes the
///   snuggest shelf with room on the oldest page that has one (or a new shelf cut from free
///   rows); only when no page has a snug place does it accept a taller shelf, and only when
///   none has room at all is a page made. A freed slot merges with free neighbours, a shelf
///   left empty gives its rows back to its column, and an empty page is released: freed
///   space is never lost, only split among shelves of different heights (bounded by the
///   height classes). Filling the oldest pages first lets newer ones drain and go. Shelves
///   were chosen over a skyline because a skyline cannot give back the room of an entry
///   freed below its top edge; over a guillotine tree because merging freed rectangles
///   back is simple here (neighbours in a shelf, neighbouring bands in a column).
///
/// Every GL call happens inside the device's scope; uploads set Lamina's unpack state
/// first, so a host's pixel-store settings never change what lands in a page. Use an atlas
/// from the device's thread only.
public final class TextureAtlas {
    public let device: GPUDevice
    /// The side of every page, in pixels (the requested size, at most `maxTextureSize`).
    public let pageSize: Int
    /// The largest entry side accepted (at most `pageSize - 2 * border`).
    public let maxEntrySide: Int
    /// Pixels of replicated edge around each entry.
    public let border: Int

    /// Pages are cut into columns this wide or wider (the widest slot).
    let columnWidth: Int

    /// What `allocate` calls to make a page (tests inject failures here).
    var makePage: (PixelSize) throws -> Texture

    private final class Page {
        let texture: Texture
        var packer: ShelfPacker
        var entryCount = 0
        init(texture: Texture, packer: ShelfPacker) { self.texture = texture; self.packer = packer }
    }

    private struct Slot {
        let page: Page
        /// The entry with its border, as the packer placed it (rounded up).
        let slot: PixelRect
    }

    private var pages: [Page] = []
    private var slots: [UInt64: Slot] = [:]
    private var contentPixels = 0
    private var occupiedPixels = 0
    private var pagesCreated = 0
    private var pagesReleased = 0

    private static let nextID = Atomic<UInt64>(1)

    /// An atlas on `device`. `pageSize` is clamped to the device's `maxTextureSize`,
    /// `maxEntrySide` to 1… what a page can hold with its border. `border` is 0…4 pixels
    /// (clamped): 0 only for contents always drawn with a clamp rectangle or nearest
    /// filtering.
    public init(device: GPUDevice, pageSize: Int = 2048, maxEntrySide: Int = 512, border: Int = 1) {
        // Out-of-range arguments are brought into range (documented above).
        let border = min(max(border, 0), 4)
        self.device = device
        self.pageSize = min(max(pageSize, 2 * border + 1), device.capabilities.maxTextureSize)
        self.maxEntrySide = max(1, min(maxEntrySide, self.pageSize - 2 * border))
        self.border = border
        self.columnWidth = min(self.pageSize, ShelfPacker.slotSize(for: PixelSize(width: self.maxEntrySide, height: 1), border: border).width)
        self.makePage = { size in try device.makeTexture(pixelSize: size, byteOrder: .rgba) }
    }

    /// Whether an entry of `size` goes into the atlas (else: give it a texture of its own).
    public func canHold(_ size: PixelSize) -> Bool {
        size.width >= 1 && size.height >= 1 && size.width <= maxEntrySide && size.height <= maxEntrySide
    }

    /// Reserves room for `size` pixels of contents read as `byteOrder` (the atlas stores
    /// bytes as given; the order only travels with the entry, for the quad that draws it).
    /// Returns nil when `size` exceeds `maxEntrySide` (use a texture of its own). The
    /// contents are undefined until uploaded. Throws `GPUError.invalidSize` for an empty
    /// size, `GPUError.outOfMemory` when a new page cannot be made, `GPUError.deviceClosed`.
    public func allocate(_ size: PixelSize, byteOrder: PixelByteOrder = .rgba) throws -> AtlasEntry? {
        guard size.width >= 1, size.height >= 1 else { throw GPUError.invalidSize(what: "atlas entry", size: size) }
        guard canHold(size) else { return nil }
        guard !device.isClosed else { throw GPUError.deviceClosed(operation: "TextureAtlas.allocate") }
        let padded = PixelSize(width: size.width + 2 * border, height: size.height + 2 * border)
        let rounded = ShelfPacker.slotSize(for: size, border: border)
        let slotSize = PixelSize(width: min(rounded.width, pageSize), height: min(rounded.height, pageSize))
        // A snug place in any page, else any shelf with room, else a new page.
        var placed: (Page, PixelRect)?
        search: for fit in [ShelfPacker.Fit.snug, .any] {
            for page in pages {
                if let r = page.packer.allocate(slotSize, fit: fit) { placed = (page, r); break search }
            }
        }
        if placed == nil {
            let texture = try makePage(PixelSize(width: pageSize, height: pageSize))
            let page = Page(texture: texture, packer: ShelfPacker(width: pageSize, height: pageSize, columnWidth: columnWidth,
                                                                  minimumSlotHeight: 4 + 2 * border))
            pages.append(page)
            pagesCreated += 1
            guard let r = page.packer.allocate(slotSize, fit: .snug) else {
                // canHold(size) guarantees a fit: a broken packer, not a caller's mistake.
                fatalError("Lamina: TextureAtlas: \(size) does not fit an empty \(pageSize)² page")
            }
            placed = (page, r)
        }
        let (page, slot) = placed!
        let entry = AtlasEntry(id: TextureAtlas.nextID.add(1, ordering: .relaxed).oldValue, page: page.texture,
                               rect: PixelRect(x: slot.x + border, y: slot.y + border, width: size.width, height: size.height),
                               border: border, byteOrder: byteOrder)
        page.entryCount += 1
        slots[entry.id] = Slot(page: page, slot: slot)
        contentPixels += size.width * size.height
        occupiedPixels += padded.width * padded.height
        return entry
    }

    /// Gives `entry`'s room back; releases its page when it was the page's last entry.
    /// Returns false (and does nothing) for an entry already freed, of another atlas, or
    /// freed by `release()`.
    @discardableResult
    public func free(_ entry: AtlasEntry) -> Bool {
        guard let s = slots.removeValue(forKey: entry.id) else { return false }
        s.page.packer.free(s.slot)
        s.page.entryCount -= 1
        contentPixels -= entry.size.width * entry.size.height
        occupiedPixels -= (entry.size.width + 2 * border) * (entry.size.height + 2 * border)
        if s.page.entryCount == 0 { releaseEmptyPages(keeping: emptyPagesKept) }
        return true
    }

    /// How many empty pages to keep for later entries instead of releasing them: 0 by
    /// default (a page is released as soon as its last entry is freed). Keeping one spares
    /// making and deleting a page every frame when a lone entry is replaced (a 2048² page
    /// takes some 7 ms to make on llvmpipe); `releaseEmptyPages()` lets them go.
    public var emptyPagesKept = 0 {
        didSet { releaseEmptyPages(keeping: emptyPagesKept) }
    }

    /// Releases the empty pages kept by `emptyPagesKept`.
    public func releaseEmptyPages() { releaseEmptyPages(keeping: 0) }

    private func releaseEmptyPages(keeping n: Int) {
        var kept = 0
        pages.removeAll { page in
            guard page.entryCount == 0 else { return false }
            if kept < n { kept += 1; return false }
            page.texture.release()
            pagesReleased += 1
            return true
        }
    }

    /// Frees every entry and releases every page.
    public func release() {
        for page in pages { page.texture.release() }
        pagesReleased += pages.count
        pages = []
        slots = [:]
        contentPixels = 0
        occupiedPixels = 0
    }

    /// Whether `entry` is live in this atlas.
    public func contains(_ entry: AtlasEntry) -> Bool { slots[entry.id] != nil }

    /// The pages' textures, oldest first.
    public var pageTextures: [Texture] { pages.map(\.texture) }

    /// Uploads `region` (entry pixels; nil: the whole entry) of a live `entry` (uploading
    /// to a freed one is a programming error and stops) from `bytes`, whose
    /// rows are `bytesPerRow` apart, top row first, the first byte the region's top-left
    /// pixel. The bytes land in the page as given — B, G, R, A stays B, G, R, A — with
    /// Lamina's unpack state (`glTexSubImage2D` from `bytes` itself, `UNPACK_ROW_LENGTH`;
    /// no CPU conversion — only a border wider than 1 pixel copies its corner texels). Where the region touches the entry's edge, the border beside it (corners
    /// included) is refreshed from the region's edge texels. Returns the bytes sent, border
    /// included (also added to `GPUDevice.uploadedBytes`). Throws `GPUError.outOfMemory` if
    /// the driver reports `GL_OUT_OF_MEMORY`, `GPUError.deviceClosed` when the context is gone.
    @discardableResult
    public func upload(_ entry: AtlasEntry, bytes: UnsafeRawBufferPointer, bytesPerRow: Int, region: PixelRect? = nil) throws -> Int {
        guard !device.isClosed else { throw GPUError.deviceClosed(operation: "TextureAtlas.upload") }
        guard slots[entry.id] != nil, !entry.page.isReleased else {
            throw GPUError.released(what: "the atlas entry (freed, its atlas released, or another atlas's)", operation: "TextureAtlas.upload")
        }
        let r = region ?? PixelRect(size: entry.size)
        try Texture.checkUpload(r, within: entry.size, bytes: bytes.count, bytesPerRow: bytesPerRow, operation: "TextureAtlas.upload")
        guard !r.isEmpty else { return 0 }
        guard let base = bytes.baseAddress else { return 0 }
        let gl = device.gl
        let b = border
        // Destination of the region in the page.
        let x0 = entry.rect.x + r.x, y0 = entry.rect.y + r.y
        let left = r.x == 0, top = r.y == 0
        let right = r.x + r.width == entry.size.width, bottom = r.y + r.height == entry.size.height
        var sent = 0
        try gl.withCurrentThrowing {
            LaminaGLState.applyForUpload(rowLength: GLint(bytesPerRow / 4))
            LaminaGLState.bindForTransfer(texture: entry.page.name)
            _ = glGetError()
            func put(_ x: Int, _ y: Int, _ w: Int, _ h: Int, _ source: UnsafeRawPointer) {
                glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, GLint(x), GLint(y), GLsizei(w), GLsizei(h),
                                GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), source)
                sent += w * h * 4
            }
            func pixel(_ x: Int, _ y: Int) -> UnsafeRawPointer { base + y * bytesPerRow + x * 4 }
            put(x0, y0, r.width, r.height, base)
            if b > 0 {
                // Sides: the region's outer column or row, once per border pixel.
                for i in 1...b {
                    if left { put(x0 - i, y0, 1, r.height, pixel(0, 0)) }
                    if right { put(x0 + r.width - 1 + i, y0, 1, r.height, pixel(r.width - 1, 0)) }
                    if top { put(x0, y0 - i, r.width, 1, pixel(0, 0)) }
                    if bottom { put(x0, y0 + r.height - 1 + i, r.width, 1, pixel(0, r.height - 1)) }
                }
                // Corners: b × b copies of the corner texel.
                func corner(_ x: Int, _ y: Int, _ source: UnsafeRawPointer) {
                    if b == 1 { put(x, y, 1, 1, source); return }
                    let texel = source.loadUnaligned(as: UInt32.self)
                    let block = [UInt32](repeating: texel, count: b * b)
                    glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), GLint(b))
                    block.withUnsafeBytes { put(x, y, b, b, $0.baseAddress!) }
                    glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), GLint(bytesPerRow / 4))
                }
                if left && top { corner(x0 - b, y0 - b, pixel(0, 0)) }
                if right && top { corner(x0 + r.width, y0 - b, pixel(r.width - 1, 0)) }
                if left && bottom { corner(x0 - b, y0 + r.height, pixel(0, r.height - 1)) }
                if right && bottom { corner(x0 + r.width, y0 + r.height, pixel(r.width - 1, r.height - 1)) }
            }
            try gl.throwIfOutOfMemory("uploading \(r) of an atlas entry")
        }
        gl.uploadedBytes += sent
        return sent
    }

    /// Uploads a whole RGBA image of the entry's size.
    @discardableResult
    public func upload(_ entry: AtlasEntry, image: RGBAImage) throws -> Int {
        guard image.pixelSize == entry.size else {
            throw GPUError.invalidArgument(operation: "TextureAtlas.upload(image:)", reason: "the image is \(image.pixelSize) but the entry \(entry.size)")
        }
        return try image.bytes.withUnsafeBytes { try upload(entry, bytes: $0, bytesPerRow: image.width * 4) }
    }

    /// What the atlas holds.
    public struct Statistics: Equatable, Sendable, CustomStringConvertible {
        /// Live pages (textures).
        public var pages: Int
        /// Live pages without entries (kept by `emptyPagesKept`).
        public var emptyPages: Int
        /// Live entries.
        public var entries: Int
        /// Pixels of the live entries' contents.
        public var contentPixels: Int
        /// Pixels the live entries occupy, borders included.
        public var usedPixels: Int
        /// Pixels of the live pages not occupied by an entry or its border (packing waste
        /// included).
        public var freePixels: Int
        /// Pages made and released since the atlas was created.
        public var pagesCreated: Int
        public var pagesReleased: Int
        /// `usedPixels` over the live pages' area (0 without pages).
        public var occupancy: Double { usedPixels + freePixels == 0 ? 0 : Double(usedPixels) / Double(usedPixels + freePixels) }
        public var description: String {
            "\(entries) entries on \(pages) pages, \(usedPixels) px used, \(freePixels) px free (occupancy \(Int((occupancy * 100).rounded()))%), pages made \(pagesCreated), released \(pagesReleased)"
        }
    }

    public var statistics: Statistics {
        Statistics(pages: pages.count, emptyPages: pages.count(where: { $0.entryCount == 0 }), entries: slots.count, contentPixels: contentPixels, usedPixels: occupiedPixels,
                   freePixels: pages.count * pageSize * pageSize - occupiedPixels,
                   pagesCreated: pagesCreated, pagesReleased: pagesReleased)
    }
}

/// Room in a `TextureAtlas`: a rectangle of one page. Valid until freed (or until the
/// atlas is released); equal entries are the same allocation.
///
/// Not `Sendable`: it names its page's `Texture`, which belongs to the device's thread.
public struct AtlasEntry: Hashable, CustomStringConvertible {
    /// Unique among all atlases of the process.
    public let id: UInt64
    /// The page texture holding the entry (RGBA8, no swizzle).
    public let page: Texture
    /// The entry's pixels in the page (its border lies outside).
    public let rect: PixelRect
    /// Pixels of replicated edge around `rect`.
    public let border: Int
    /// How the quad drawing the entry reads its texels (the bytes are stored as uploaded).
    public let byteOrder: PixelByteOrder

    /// The entry's size in pixels.
    public var size: PixelSize { rect.size }

    /// The entry in unit page coordinates (y down, v = 0 the page's top row): the
    /// `sourceRect` that draws the entry whole.
    public var uvRect: Rect {
        let w = Double(page.pixelSize.width), h = Double(page.pixelSize.height)
        return Rect(x: Double(rect.x) / w, y: Double(rect.y) / h, width: Double(rect.width) / w, height: Double(rect.height) / h)
    }

    /// `uvRect` inset by half a texel on each side (from the first to the last texel
    /// centre): texture coordinates clamped to it sample like `CLAMP_TO_EDGE` on a texture
    /// of the entry alone. Use the whole entry's clamp for every part of it (nine-slice
    /// pieces, `contentsRect`): interior seams must read across.
    public var clampRect: Rect {
        let w = Double(page.pixelSize.width), h = Double(page.pixelSize.height)
        return Rect(x: (Double(rect.x) + 0.5) / w, y: (Double(rect.y) + 0.5) / h,
                    width: Double(rect.width - 1) / w, height: Double(rect.height - 1) / h)
    }

    /// The page coordinates of `contentsRect`, a unit rectangle of the entry's contents
    /// (may reach outside 0…1: sample with `clampRect`, as CLAMP_TO_EDGE would).
    public func uvRect(for contentsRect: Rect) -> Rect {
        let uv = uvRect
        return Rect(x: uv.origin.x + contentsRect.origin.x * uv.size.width, y: uv.origin.y + contentsRect.origin.y * uv.size.height,
                    width: contentsRect.size.width * uv.size.width, height: contentsRect.size.height * uv.size.height)
    }

    public static func == (a: AtlasEntry, b: AtlasEntry) -> Bool { a.id == b.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
    public var description: String { "AtlasEntry #\(id) \(rect) on page \(page.glName)" }
}

/// Shelf packing of one page (no GL). The page is split into columns at least as wide as
/// the widest slot; each column's rows are a list of bands, each either free or a shelf; a
/// shelf's columns of pixels are a list of segments, each free or holding one slot.
/// Slot sizes are rounded (`slotSize`), so freed slots fit later entries of similar size.
///
/// `allocate(_:fit: .snug)` takes the shelf with the least height to spare (at most a
/// quarter of the slot's height, or 8 rows), then the narrowest free segment; else it cuts a
/// new shelf from the free band with the fewest rows to spare. `.any` accepts any shelf
/// tall enough (the atlas tries it on every page before it makes a new one). Freed
/// segments merge with free neighbours, and a shelf left empty merges back into the free
/// bands around it, so no freed space is ever lost — only split among shelves of
/// different heights.
struct ShelfPacker {
    struct Segment { var x: Int; var width: Int; var used: Bool }
    struct Band {
        var y: Int
        var height: Int
        /// nil: free rows.
        var segments: [Segment]?
        /// The widest free segment of a shelf.
        var widestFree: Int
    }
    struct Column {
        var x: Int
        var width: Int
        var bands: [Band]
    }
    enum Fit { case snug, any }

    let width: Int
    let height: Int
    /// Rows too few for any slot: a free band this small joins the shelf cut above it.
    let minimumSlotHeight: Int
    private(set) var columns: [Column]

    /// A page of `width` × `height` cut into as many columns of at least `columnWidth` as fit.
    init(width: Int, height: Int, columnWidth: Int, minimumSlotHeight: Int = 1) {
        self.width = width; self.height = height; self.minimumSlotHeight = minimumSlotHeight
        let n = max(1, width / max(1, columnWidth))
        columns = (0..<n).map { i in
            let x = i * width / n
            return Column(x: x, width: (i + 1) * width / n - x, bands: [Band(y: 0, height: height, segments: nil, widestFree: 0)])
        }
    }

    var isEmpty: Bool { columns.allSatisfy { $0.bands.count == 1 && $0.bands[0].segments == nil } }
    var shelfCount: Int { columns.reduce(0) { $0 + $1.bands.count(where: { $0.segments != nil }) } }

    private static func roundUp(_ v: Int, _ step: Int) -> Int { (v + step - 1) / step * step }

    /// The slot for contents of `size` with `border` pixels around: the width rounded up to
    /// a multiple of 4, the height to a class (multiples of 4 up to 32, of 8 up to 128, 16
    /// up to 256, then 32), plus the border.
    static func slotSize(for size: PixelSize, border: Int) -> PixelSize {
        let h = size.height
        return PixelSize(width: roundUp(size.width, 4) + 2 * border,
                         height: roundUp(h, h <= 32 ? 4 : h <= 128 ? 8 : h <= 256 ? 16 : 32) + 2 * border)
    }

    /// Places a slot of `slot` pixels (rounded by `slotSize`); nil when it does not fit.
    /// The slot returned may be taller than asked (the shelf's height).
    mutating func allocate(_ slot: PixelSize, fit: Fit) -> PixelRect? {
        let w = slot.width, h = slot.height
        let spare = fit == .snug ? max(8, h / 4) : Int.max
        // The shelf with the least height to spare, then the narrowest free segment.
        var best: (column: Int, band: Int, segment: Int, extra: Int, widthLeft: Int)?
        for (c, column) in columns.enumerated() where column.width >= w {
            for (i, band) in column.bands.enumerated() {
                guard let segments = band.segments, band.height >= h, band.height - h <= spare, band.widestFree >= w else { continue }
                let extra = band.height - h
                if let b = best, b.extra < extra { continue }
                for (j, s) in segments.enumerated() where !s.used && s.width >= w {
                    let left = s.width - w
                    if let b = best, b.extra == extra && b.widthLeft <= left { continue }
                    best = (c, i, j, extra, left)
                }
            }
        }
        if let b = best { return take(column: b.column, band: b.band, segment: b.segment, width: w) }
        guard fit == .snug else { return nil }
        // A new shelf in the free band with the fewest rows to spare.
        var free: (column: Int, band: Int)?
        for (c, column) in columns.enumerated() where column.width >= w {
            for (i, band) in column.bands.enumerated() where band.segments == nil && band.height >= h {
                if let f = free, columns[f.column].bands[f.band].height <= band.height { continue }
                free = (c, i)
            }
        }
        guard let (c, f) = free else { return nil }
        let band = columns[c].bands[f]
        // Rows left over that no slot could use join the shelf.
        let shelfHeight = band.height - h < minimumSlotHeight ? band.height : h
        let shelf = Band(y: band.y, height: shelfHeight, segments: [Segment(x: columns[c].x, width: columns[c].width, used: false)],
                         widestFree: columns[c].width)
        if shelfHeight < band.height {
            columns[c].bands[f] = Band(y: band.y + shelfHeight, height: band.height - shelfHeight, segments: nil, widestFree: 0)
            columns[c].bands.insert(shelf, at: f)
        } else {
            columns[c].bands[f] = shelf
        }
        return take(column: c, band: f, segment: 0, width: w)
    }

    private mutating func take(column c: Int, band i: Int, segment j: Int, width w: Int) -> PixelRect {
        var band = columns[c].bands[i]
        var segments = band.segments!
        let s = segments[j]
        segments[j] = Segment(x: s.x, width: w, used: true)
        if s.width > w { segments.insert(Segment(x: s.x + w, width: s.width - w, used: false), at: j + 1) }
        band.segments = segments
        band.widestFree = ShelfPacker.widestFree(segments)
        columns[c].bands[i] = band
        return PixelRect(x: s.x, y: band.y, width: w, height: band.height)
    }

    private static func widestFree(_ segments: [Segment]) -> Int {
        segments.reduce(0) { $1.used ? $0 : max($0, $1.width) }
    }

    /// Frees a slot `allocate` returned.
    mutating func free(_ slot: PixelRect) {
        guard let c = columns.firstIndex(where: { slot.x >= $0.x && slot.x < $0.x + $0.width }),
              let i = columns[c].bands.firstIndex(where: { $0.y == slot.y }), var segments = columns[c].bands[i].segments,
              let j = segments.firstIndex(where: { $0.x == slot.x }), segments[j].used else {
            // Only slots `allocate` handed out are freed (the atlas keeps them by entry id).
            fatalError("Lamina: ShelfPacker.free: \(slot) is not allocated")
        }
        segments[j].used = false
        var k = j
        if k + 1 < segments.count && !segments[k + 1].used {
            segments[k].width += segments[k + 1].width
            segments.remove(at: k + 1)
        }
        if k > 0 && !segments[k - 1].used {
            segments[k - 1].width += segments[k].width
            segments.remove(at: k)
            k -= 1
        }
        var bands = columns[c].bands
        if segments.count == 1 && !segments[0].used {
            // An empty shelf: its rows go back, merged with free bands beside it.
            bands[i].segments = nil
            bands[i].widestFree = 0
            if i + 1 < bands.count && bands[i + 1].segments == nil {
                bands[i].height += bands[i + 1].height
                bands.remove(at: i + 1)
            }
            if i > 0 && bands[i - 1].segments == nil {
                bands[i - 1].height += bands[i].height
                bands.remove(at: i)
            }
        } else {
            bands[i].segments = segments
            bands[i].widestFree = ShelfPacker.widestFree(segments)
        }
        columns[c].bands = bands
    }
}

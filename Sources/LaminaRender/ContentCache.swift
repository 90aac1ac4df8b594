import FoundationEssentials
import Glibc
import Dispatch
import LaminaGeometry
import LaminaGPU
import LaminaValues
import Synchronization

/// Where a content's pixels are kept on the GPU.
// Indirect: a copy is one retain (a draw looks its contents' place up every frame; the
// inline enum's copy, with an atlas entry in it, went through its value witnesses).
indirect enum ContentPlace {
    /// A texture of its own (large contents, and textures shown as contents).
    case texture(Texture)
    /// A place in the atlas (small contents), with its page coordinates and clamp rectangle
    /// worked out once.
    case atlas(AtlasEntry, uv: Rect, clamp: Rect)
    /// A GL layer's drawable: row 0 is the picture's bottom (sampled flipped).
    case drawable(Texture)
}

/// A content's place, found last for a layer (`ContentCache.recent`).
private struct RecentPlace {
    let key: ContentKey
    let place: ContentPlace
}

/// A compositor's GPU copies of the contents its tree shows: a texture per image or backing
/// store (small ones in a shared atlas), made at the first whole upload and updated with
/// redrawn rectangles; imports of external buffers, each read from the moment a layer shows
/// it until none does and handed back to its producer after a fence.
final class ContentCache {
    let device: GPUDevice
    private(set) var places: [ContentKey: ContentPlace] = [:]
    /// The places found last, by layer: a direct-mapped table (a power of two long, indexed
    /// by the layer id's low bits) in front of `places`, so the same layers drawn frame after
    /// frame find theirs in draw order without hashing. An entry whose key differs is a miss;
    /// the table is cleared whenever a place is freed.
    /// (A struct, not a tuple: a tuple's copy goes through the runtime's generic witness.)
    @exclusivity(unchecked) private var recent: [RecentPlace?] = []
    private var atlasStorage: TextureAtlas?
    /// Contents at most this many pixels a side share the atlas (0: no atlas).
    var atlasEntrySide: Int
    /// Bytes uploaded since the count was last taken.
    var uploadedBytes = 0
    /// GL layers' drawables, by `GLContentSource` id (GLContents.swift).
    var glDrawables: [UInt64: GLDrawableState] = [:]

    init(device: GPUDevice, atlasEntrySide: Int) {
        self.device = device
        self.atlasEntrySide = atlasEntrySide
    }

    var count: Int { places.count }
    var atlasStatistics: TextureAtlas.Statistics? { atlasStorage?.statistics }

    private func atlas() -> TextureAtlas {
        if let atlasStorage { return atlasStorage }
        let atlas = TextureAtlas(device: device, pageSize: 2048, maxEntrySide: atlasEntrySide)
        atlasStorage = atlas
        return atlas
    }

    /// A place for `size` pixels of contents stored in `byteOrder`: in the atlas if small.
    private func makePlace(_ size: PixelSize, byteOrder: PixelByteOrder) throws -> ContentPlace {
        if atlasEntrySide > 0, size.width <= atlasEntrySide, size.height <= atlasEntrySide,
           let entry = try atlas().allocate(size, byteOrder: byteOrder) {
            return .atlas(entry, uv: entry.uvRect, clamp: entry.clampRect)
        }
        return .texture(try device.makeTexture(pixelSize: size, byteOrder: byteOrder))
    }

    private func free(_ place: ContentPlace) {
        switch place {
        case .texture(let t), .drawable(let t): t.release()
        case .atlas(let e, _, _): atlasStorage?.free(e)
        }
    }

    /// Puts a backing store's pixels into its texture (made on a whole upload; a partial
    /// one for a store not placed yet waits for the whole one that will come).
    func receive(_ upload: ContentUpload) throws {
        let key = ContentKey.store(upload.store.id)
        if places[key] == nil {
            guard upload.isFull else { return }
            places[key] = try makePlace(upload.store.pixelSize, byteOrder: upload.store.isOpaque ? .bgrx : .bgra)
        }
        let before = device.uploadedBytes
        defer { uploadedBytes += device.uploadedBytes - before }
        try upload.bytes.withUnsafeBytes { bytes in
            switch places[key]! {
            case .texture(let t), .drawable(let t): _ = try t.upload(bytes, bytesPerRow: upload.rowBytes, region: upload.region)
            case .atlas(let e, _, _): _ = try atlas().upload(e, bytes: bytes, bytesPerRow: upload.rowBytes, region: upload.region)
            }
        }
    }

    /// Where the contents `layer` shows are (`place(for:)`), through the table of places
    /// found last.
    func place(for contents: ContentRef, of layer: LayerID?) throws -> ContentPlace? {
        let key: ContentKey
        switch contents {
        case .image(let i): key = .image(i.id)
        case .store(let s): key = .store(s.id)
        case .texture, .external, .gl: return try place(for: contents)   // (checked at each use)
        }
        guard let layer else { return try place(for: contents) }
        if !recent.isEmpty, let r = recent[Int(truncatingIfNeeded: layer.rawValue) & (recent.count - 1)], r.key == key {
            return r.place
        }
        guard let place = try place(for: contents) else { return nil }
        if recent.count < 2 * places.count {
            var n = 64
            while n < 2 * places.count { n *= 2 }
            recent = Array(repeating: nil, count: n)
        }
        recent[Int(truncatingIfNeeded: layer.rawValue) & (recent.count - 1)] = RecentPlace(key: key, place: place)
        return place
    }

    /// Where a content is (an image is uploaded when first needed; nil: nothing to draw —
    /// a texture of another device or released, a buffer Lamina cannot import).
    func place(for contents: ContentRef) throws -> ContentPlace? {
        switch contents {
        case .texture(let t):
            guard let texture = t.texture as? Texture else { return nil }   // (only LaminaGPU's textures are drawn)
            return texture.belongs(to: device) && !texture.isReleased ? .texture(texture) : nil
        case .store(let s):
            return places[.store(s.id)]
        case .gl(let g):
            return glDrawables[g.source.id].map { .drawable($0.target.texture) }
        case .external(let e):
            guard let buffer = e.buffer as? ExternalBuffer else { return nil }   // (only LaminaGPU's buffers are imported)
            return .texture(try device.texture(for: buffer, frame: buffer.generation))
        case .image(let image):
            let key = ContentKey.image(image.id)
            if let p = places[key] { return p }
            let before = device.uploadedBytes
            defer { uploadedBytes += device.uploadedBytes - before }
            let place = try makePlace(image.pixelSize, byteOrder: .rgba)
            do {
                switch place {
                case .texture(let t), .drawable(let t): try t.upload(image.pixels)
                case .atlas(let e, _, _): try atlas().upload(e, image: image.pixels)
                }
            } catch {
                free(place)
                throw error
            }
            places[key] = place
            return place
        }
    }

    /// Frees the copies of contents no layer shows any more; hands back external buffers.
    func free(_ unused: Set<ContentKey>) {
        var released: [ExternalBuffer] = []
        if !unused.isEmpty { forgetRecent() }
        for key in unused {
            if let place = places.removeValue(forKey: key) { free(place) }
            if case .gl(let id) = key { glDrawables.removeValue(forKey: id)?.target.release() }
            if case .external(let id) = key, let buffer = externalsHeld.removeValue(forKey: id) { released.append(buffer) }
        }
        if !released.isEmpty { handBack(released) }
    }

    /// Frees every copy (a new snapshot uploads its contents again).
    func releaseContents() {
        for p in places.values { free(p) }
        places.removeAll()
        for d in glDrawables.values { d.target.release() }
        glDrawables.removeAll()
        forgetRecent()
        atlasStorage?.release()
        atlasStorage = nil
    }

    private func forgetRecent() {
        if !recent.isEmpty { recent = Array(repeating: nil, count: recent.count) }
    }

    // MARK: External buffers

    /// External buffers the tree shows (by id): each is read (`beginReading`) from the
    /// moment a layer shows it until none does — drawn or not.
    private(set) var externalsHeld: [UInt64: ExternalBuffer] = [:]

    /// Starts reading buffers the tree began to show.
    func hold(_ buffers: [ExternalBuffer]) {
        for b in buffers where externalsHeld.updateValue(b, forKey: b.id) == nil { b.beginReading() }
    }

    /// Stops holding every buffer (handed back after the work issued so far; `waiting`: now).
    func handBackAll(waiting: Bool = false) {
        let held = Array(externalsHeld.values)
        externalsHeld.removeAll()
        if !held.isEmpty { handBack(held, waiting: waiting) }
    }

    /// Hands `buffers` back to their producers once the GPU is done with the frames that may
    /// have sampled them: a fence after the work issued so far, waited for on a background
    /// thread (no further frame is needed), or here with `waiting`.
    func handBack(_ buffers: [ExternalBuffer], waiting: Bool = false) {
        let fence = device.capabilities.fenceSync ? try? SyncFence.afterWork(on: device) : nil
        if fence == nil { try? device.finishWork() }
        if waiting || fence == nil {
            fence?.wait(timeout: 5)
            buffers.forEach { $0.endReading() }
            return
        }
        let pending = pendingHandBacks
        pending.count.add(buffers.count, ordering: .relaxed)
        let work = (fence, buffers)
        DispatchQueue.global().async {
            work.0?.wait(timeout: 5)
            work.1.forEach { $0.endReading() }
            pending.count.subtract(work.1.count, ordering: .relaxed)
        }
    }

    /// External buffers no layer shows any more, waiting for the GPU before they are handed back.
    var awaitingRelease: Int { pendingHandBacks.count.load(ordering: .relaxed) }
    private let pendingHandBacks = HandBackCounter()
}

/// Counts hand-backs in flight (shared with the threads that wait for their fences).
final class HandBackCounter: Sendable {
    let count = Atomic<Int>(0)
}

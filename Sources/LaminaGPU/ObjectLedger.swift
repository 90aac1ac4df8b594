import LaminaValues
import CEGL
import CGLES

/// Counts of live GL objects, names waiting to be deleted, and EGL images. Shared with
/// the objects' `deinit`, which may run on any thread: it only queues, never calls GL.
final class ObjectLedger: Sendable {
    private struct State {
        var live: [GPUObjectKind: Int] = [:]
        /// Every live name (kind << 32 | name): what `close()` deletes on a context that
        /// outlives the device (shared or adopted).
        var names: Set<UInt64> = []
        var pending: [(GPUObjectKind, GLuint)] = []
        var images: Set<UInt> = []
        var closed = false
        /// The context generation the names belong to (`GLContext.generation`).
        var generation = 0
    }
    private let state = Locked(State())

    private static func key(_ kind: GPUObjectKind, _ name: GLuint) -> UInt64 {
        UInt64(GPUObjectKind.allCases.firstIndex(of: kind)!) << 32 | UInt64(name)
    }

    func created(_ kind: GPUObjectKind, _ name: GLuint) {
        state.withLock { s in
            s.live[kind, default: 0] += 1
            s.names.insert(ObjectLedger.key(kind, name))
        }
    }
    func deleted(_ kind: GPUObjectKind, _ name: GLuint) {
        state.withLock { s in
            if s.names.remove(ObjectLedger.key(kind, name)) != nil { s.live[kind, default: 0] -= 1 }
        }
    }
    /// Queues a name for deletion (nothing when the context is gone, or when the name is of
    /// a context lost since: `generation` is the object's).
    func enqueue(_ kind: GPUObjectKind, _ name: GLuint, generation: Int) {
        state.withLock { s in if !s.closed && s.generation == generation { s.pending.append((kind, name)) } }
    }
    /// Forgets every name and image (the context they lived in was lost): the next
    /// generation starts with nothing. Returns the EGL images to destroy.
    func reset(generation: Int) -> [EGLImage] {
        state.withLock { s in
            let images = s.images.compactMap { EGLImage(bitPattern: $0) }
            s = State()
            s.generation = generation
            return images
        }
    }
    func takePending() -> [(GPUObjectKind, GLuint)] { state.withLock { s in defer { s.pending = [] }; return s.pending } }
    var pendingCount: Int { state.withLock { $0.pending.count } }
    var isClosed: Bool { state.withLock { $0.closed } }
    func counts() -> GPUObjectCounts { state.withLock { GPUObjectCounts(counts: $0.live.filter { $0.value != 0 }) } }

    /// Every live name, to delete before the context goes (or is handed back to its owner).
    func liveNames() -> [(GPUObjectKind, GLuint)] {
        state.withLock { s in
            s.names.map { (GPUObjectKind.allCases[Int($0 >> 32)], GLuint(truncatingIfNeeded: $0)) }
        }
    }

    func imageCreated(_ image: EGLImage) { state.withLock { _ = $0.images.insert(UInt(bitPattern: image)) } }
    /// True (once) when the image is still registered: the caller destroys it.
    func takeImage(_ image: EGLImage) -> Bool { state.withLock { $0.images.remove(UInt(bitPattern: image)) != nil } }
    var imageCount: Int { state.withLock { $0.images.count } }

    /// Marks the context closed; returns the EGL images still alive, to destroy.
    func close() -> [EGLImage] {
        state.withLock { s in
            let images = s.images.compactMap { EGLImage(bitPattern: $0) }
            s = State()
            s.closed = true
            return images
        }
    }
}

import CLamina
import CRunLoop
import FoundationEssentials
import Glibc
import Synchronization
import LaminaCore
import LaminaGPU
import LaminaGraphics
import LaminaScene
import LaminaUI

/// What a C handle stands for.
enum HandleObject {
    case device(GPUDevice)
    case target(RenderTarget)
    case layer(Layer)
    case host(LayerTreeHost)
    case scene(SceneBox)
    /// A view, or a window (a view).
    case view(View)

    var kind: String {
        switch self {
        case .device: return "device"
        case .target: return "target"
        case .layer: return "layer"
        case .host: return "host"
        case .scene: return "scene"
        case .view(let v): return v is Window ? "window" : "view"
        }
    }
    var object: AnyObject {
        switch self {
        case .device(let o): return o
        case .target(let o): return o
        case .layer(let o): return o
        case .host(let o): return o
        case .scene(let o): return o
        case .view(let o): return o
        }
    }
}

/// A scene (a value) behind a handle.
final class SceneBox {
    let scene: Scene
    init(_ scene: Scene) { self.scene = scene }
}

/// A failure of a C call: its status and message.
struct CAPIError: Error {
    var status: lamina_status
    var message: String
    init(_ status: lamina_status, _ message: String) { self.status = status; self.message = message }
}

/// The handles given out: never-reused numbers (so that a handle released twice is found
/// out instead of reaching another object), each with its object and reference count.
/// Main thread only.
@MainActor
enum Handles {
    struct Entry { var object: HandleObject; var references: Int }
    static var entries: [UInt: Entry] = [:]
    /// The handle of each object that has one (so the same object gets the same handle).
    static var byObject: [ObjectIdentifier: UInt] = [:]
    private static var next: UInt = 1
    /// Handles are spaced and offset so that they never look like small integers or
    /// usual heap addresses (and so are never mistaken for pointers that work).
    private static let base: UInt = 0x4C41_0000_0000

    /// A new reference to `object`'s handle (made if it has none).
    static func handle(for object: HandleObject) -> OpaquePointer {
        let id = ObjectIdentifier(object.object)
        if let h = byObject[id], entries[h] != nil {
            entries[h]!.references += 1
            return OpaquePointer(bitPattern: h)!
        }
        let h = base + next * 16
        next += 1
        entries[h] = Entry(object: object, references: 1)
        byObject[id] = h
        return OpaquePointer(bitPattern: h)!
    }

    static func entry(_ p: UnsafeRawPointer?, _ what: String) throws -> Entry {
        guard let p else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "\(what) is NULL") }
        let h = UInt(bitPattern: p)
        guard let e = entries[h] else {
            throw CAPIError(LAMINA_ERROR_RELEASED, "\(what) (\(String(h, radix: 16))) is not a live Lamina handle: it was released (every reference dropped), or never came from Lamina")
        }
        return e
    }

    static func retain(_ p: UnsafeRawPointer?) throws {
        _ = try entry(p, "the handle")
        entries[UInt(bitPattern: p!)]!.references += 1
    }

    static func release(_ p: UnsafeRawPointer?) throws {
        let e = try entry(p, "the handle")
        let h = UInt(bitPattern: p!)
        if e.references > 1 { entries[h]!.references -= 1; return }
        entries[h] = nil
        byObject[ObjectIdentifier(e.object.object)] = nil
        switch e.object {
        // (A window's host leaves with the window, not with a handle of the host.)
        case .host(let host) where !windowHosts.contains(ObjectIdentifier(host)): host.detach()
        case .view(let window as Window):
            windowHosts.remove(ObjectIdentifier(window.host))
            window.host.detach()
        default: break
        }
    }

    static func device(_ p: OpaquePointer?) throws -> GPUDevice {
        guard case .device(let d) = try entry(UnsafeRawPointer(p), "the device").object else { throw wrongKind(p, "device") }
        return d
    }
    static func target(_ p: OpaquePointer?) throws -> RenderTarget {
        guard case .target(let t) = try entry(UnsafeRawPointer(p), "the target").object else { throw wrongKind(p, "target") }
        return t
    }
    static func layer(_ p: OpaquePointer?) throws -> Layer {
        guard case .layer(let l) = try entry(UnsafeRawPointer(p), "the layer").object else { throw wrongKind(p, "layer") }
        return l
    }
    static func host(_ p: OpaquePointer?) throws -> LayerTreeHost {
        guard case .host(let h) = try entry(UnsafeRawPointer(p), "the host").object else { throw wrongKind(p, "host") }
        return h
    }
    /// The hosts of windows given out (`lamina_window_get_host`).
    static var windowHosts: Set<ObjectIdentifier> = []

    static func view(_ p: OpaquePointer?) throws -> View {
        guard case .view(let v) = try entry(UnsafeRawPointer(p), "the view").object else { throw wrongKind(p, "view") }
        return v
    }
    static func window(_ p: OpaquePointer?) throws -> Window {
        guard case .view(let v) = try entry(UnsafeRawPointer(p), "the window").object, let w = v as? Window else {
            throw wrongKind(p, "window")
        }
        return w
    }
    static func scene(_ p: OpaquePointer?) throws -> Scene {
        guard case .scene(let s) = try entry(UnsafeRawPointer(p), "the scene").object else { throw wrongKind(p, "scene") }
        return s.scene
    }

    private static func wrongKind(_ p: OpaquePointer?, _ wanted: String) -> CAPIError {
        let kind = entries[UInt(bitPattern: UnsafeRawPointer(p))]?.object.kind ?? "?"
        return CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a \(kind) handle was passed where a \(wanted) is expected")
    }
}

// MARK: Errors, per thread

private let errorKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { free($0) }
    return key
}()

func setLastError(_ message: String?) {
    if let old = pthread_getspecific(errorKey) { free(old) }
    pthread_setspecific(errorKey, message.map { UnsafeMutableRawPointer(strdup($0)) } ?? nil)
}

func lastErrorPointer() -> UnsafePointer<CChar>? {
    pthread_getspecific(errorKey).map { UnsafePointer($0.assumingMemoryBound(to: CChar.self)) }
}

/// The main thread's pthread, once a call from it was seen (0: not yet): later checks
/// compare `pthread_self()` with it, without the two system calls of `Thread.isMainThread`.
private let mainThread = Atomic<UInt>(0)

/// Whether the calling thread is the process's main thread.
@inline(__always) func onMainThread() -> Bool {
    let me = UInt(pthread_self())
    let known = mainThread.load(ordering: .relaxed)
    if known != 0 { return me == known }
    guard lamina_is_main_thread() != 0 else { return false }   // (Thread.isMainThread, without Foundation)
    mainThread.store(me, ordering: .relaxed)
    return true
}

/// Runs a call's body on the main actor: off the main thread it fails (never traps);
/// errors become a status and the thread's last error.
func call(_ name: String, _ body: @MainActor () throws -> Void) -> lamina_status {
    guard onMainThread() else {
        setLastError("\(name): called off the main thread; Lamina's layers, transactions and hosts belong to the process's main thread (call it there, or post the work to it)")
        return LAMINA_ERROR_WRONG_THREAD
    }
    // On the main thread (checked just above): the main actor's code runs here, as
    // `MainActor.assumeIsolated` would run it, without its executor check per call.
    callDepth += 1
    defer {
        callDepth -= 1
        // The outermost call: the callbacks it left run now (they may call in again).
        while callDepth == 0, !pendingCallbacks.isEmpty { pendingCallbacks.removeFirst()() }
    }
    do {
        try withoutActuallyEscaping(body) { body in
            try unsafeBitCast(body, to: (() throws -> Void).self)()
        }
        return LAMINA_OK
    } catch let e as CAPIError {
        setLastError("\(name): \(e.message)")
        return e.status
    } catch let e as GPUError {
        setLastError("\(name): \(e)")
        if case .unsupportedContext = e { return LAMINA_ERROR_UNSUPPORTED }
        return LAMINA_ERROR_GPU
    } catch let e as SceneError {
        setLastError("\(name): \(e)")
        return LAMINA_ERROR_SCENE
    } catch let e as GraphicsError {
        setLastError("\(name): \(e)")
        return LAMINA_ERROR_IO
    } catch {
        setLastError("\(name): \(error)")
        return LAMINA_ERROR_DRAW
    }
}

/// Stores a new handle in `out` — checked before the object is made.
@MainActor
func give(_ object: @autoclosure () throws -> HandleObject, to out: UnsafeMutablePointer<OpaquePointer?>?) throws {
    let out = try required(out)
    out.pointee = Handles.handle(for: try object())
}

/// An out-pointer that must not be NULL.
func required<T>(_ p: UnsafeMutablePointer<T>?) throws -> UnsafeMutablePointer<T> {
    guard let p else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "the out-pointer is NULL") }
    return p
}

/// C callbacks to run once the outermost API call returns (destroy callbacks: never in
/// the middle of Lamina's own work, such as a layer's deinit or a commit).
/// (These three are touched on the main thread only: every call checks it first.)
nonisolated(unsafe) var pendingCallbacks: [() -> Void] = []
/// API calls in progress on the main thread (callbacks may call the API again).
nonisolated(unsafe) var callDepth = 0
/// Draw callbacks running: committing or drawing again from one is refused.
nonisolated(unsafe) var drawDepth = 0

/// The frame-request callback running (lamina_set_frame_request_callback).
nonisolated(unsafe) var frameRequestDepth = 0

func refuseInsideDraw(_ what: String) throws {
    guard drawDepth == 0 else {
        throw CAPIError(LAMINA_ERROR_DRAW, "\(what) from inside a draw callback: a draw callback only draws (commit, flush or display after it returns)")
    }
    // A commit there would ask for the next frame at once (an animation running): a loop.
    guard frameRequestDepth == 0 else {
        throw CAPIError(LAMINA_ERROR_UNSUPPORTED, "\(what) from inside the frame-request callback: it only schedules a frame (commit in that frame, after it returns)")
    }
}

func cString(_ p: UnsafePointer<CChar>?, _ what: String) throws -> String {
    guard let p else { throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "\(what) is NULL") }
    return String(cString: p)
}

@inline(__always) func finite(_ a: Double, _ b: Double = 0, _ c: Double = 0, _ d: Double = 0, what: String) throws {
    guard a.isFinite, b.isFinite, c.isFinite, d.isFinite else {
        throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "\(what) must be finite numbers (got \([a, b, c, d].filter { !$0.isFinite }))")
    }
}

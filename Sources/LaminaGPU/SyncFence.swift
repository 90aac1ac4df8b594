import LaminaValues
import CEGL
import CGLES
import Glibc
import Synchronization

/// A GPU fence (an EGL sync object): signalled when the GL work before it completes, or —
/// a `userSignaled` fence — when its producer calls `signal()`. Lamina hands one out with
/// each frame a swapchain presents (instead of `glFinish`), and waits on a producer's
/// before it samples an external buffer.
///
/// Across processes a fence travels as a sync file (`exportSyncFile()`, from
/// `EGL_ANDROID_native_fence_sync`). Where the driver lacks that extension (Mesa's
/// llvmpipe, and so the test VM), a fence is usable only on its EGL display, in this
/// process: `wait`/`isSignaled` on any thread, and server-side waits
/// (`EGL_KHR_wait_sync`) on contexts of the display. `exportSyncFile()` then throws, and
/// a consumer in another process relies on `wait` before the buffer is handed over.
public final class SyncFence: @unchecked Sendable {
    /// What signals it.
    public enum Kind: String, Sendable {
        /// GL commands before it complete (`EGL_SYNC_FENCE`).
        case gpu
        /// A sync file's fence (`EGL_SYNC_NATIVE_FENCE_ANDROID`).
        case syncFile
        /// Its producer's `signal()` (`EGL_SYNC_REUSABLE_KHR`).
        case userSignaled
    }
    public let kind: Kind
    let display: EGLDisplay
    private let sync: Locked<EGLSync?>
    /// Fences alive in the process (tests prove none leaks).
    public static var liveCount: Int { live.load(ordering: .relaxed) }
    private static let live = Atomic<Int>(0)

    private init(kind: Kind, display: EGLDisplay, sync: EGLSync) {
        self.kind = kind; self.display = display; self.sync = Locked(sync)
        SyncFence.live.add(1, ordering: .relaxed)
    }

    /// A fence after the GL work issued so far on `device`'s context (flushed, so that it
    /// signals without further calls). A sync-file fence where the driver has
    /// `EGL_ANDROID_native_fence_sync`, else an EGL fence.
    public static func afterWork(on device: GPUDevice) throws -> SyncFence {
        guard !device.isClosed else { throw GPUError.deviceClosed(operation: "SyncFence.afterWork") }
        guard device.capabilities.fenceSync else {
            throw GPUError.loggedEGLFailure(call: "eglCreateSync(EGL_SYNC_FENCE)", error: "no EGL_KHR_fence_sync",
                                            hint: "the driver has no fences: finish the work with glFinish instead")
        }
        return try device.gl.withCurrentThrowing {
            device.gl.pendingPass?.flush()
            let native = device.capabilities.nativeFenceSync
            let type = EGLenum(native ? EGL_SYNC_NATIVE_FENCE_ANDROID : EGL_SYNC_FENCE)
            guard let sync = eglCreateSync(device.display, type, [EGLAttrib(EGL_NONE)]) else {
                throw GPUError.loggedEGLFailure(call: "eglCreateSync(\(native ? "EGL_SYNC_NATIVE_FENCE_ANDROID" : "EGL_SYNC_FENCE"))",
                                                error: lastEGLError(), hint: "the driver could not make a fence")
            }
            glFlush()
            return SyncFence(kind: native ? .syncFile : .gpu, display: device.display, sync: sync)
        }
    }

    /// A fence its producer signals itself (`signal()`), e.g. when a CPU decoder or another
    /// thread's GL finished writing a buffer (`EGL_KHR_reusable_sync`).
    public static func userSignaled(on device: GPUDevice) throws -> SyncFence {
        guard !device.isClosed else { throw GPUError.deviceClosed(operation: "SyncFence.userSignaled") }
        guard device.capabilities.eglExtensions.contains("EGL_KHR_reusable_sync"),
              let create = eglProcedure("eglCreateSyncKHR", as: PFNEGLCREATESYNCKHRPROC.self) else {
            throw GPUError.loggedEGLFailure(call: "eglCreateSyncKHR(EGL_SYNC_REUSABLE_KHR)", error: "no EGL_KHR_reusable_sync",
                                            hint: "signal completion with a GPU fence (SyncFence.afterWork) instead")
        }
        guard let sync = create(device.display, EGLenum(EGL_SYNC_REUSABLE_KHR), [EGLint(EGL_NONE)]) else {
            throw GPUError.loggedEGLFailure(call: "eglCreateSyncKHR(EGL_SYNC_REUSABLE_KHR)", error: lastEGLError(), hint: "the driver could not make a fence")
        }
        return SyncFence(kind: .userSignaled, display: device.display, sync: sync)
    }

    /// Adopts a sync-file fd (closed by the fence): a fence another process or API made
    /// (`EGL_ANDROID_native_fence_sync`; throws, closing `fd`, where the driver lacks it).
    public static func importSyncFile(_ fd: Int32, on device: GPUDevice) throws -> SyncFence {
        guard !device.isClosed else { Glibc.close(fd); throw GPUError.deviceClosed(operation: "SyncFence.importSyncFile") }
        guard device.capabilities.nativeFenceSync else {
            Glibc.close(fd)
            throw GPUError.loggedEGLFailure(call: "eglCreateSync(EGL_SYNC_NATIVE_FENCE_ANDROID)", error: "no EGL_ANDROID_native_fence_sync",
                                            hint: "this driver cannot wait on sync files: wait on the fd yourself (poll for POLLIN) before handing the buffer over")
        }
        return try device.gl.withCurrentThrowing {
            guard let sync = eglCreateSync(device.display, EGLenum(EGL_SYNC_NATIVE_FENCE_ANDROID),
                                           [EGLAttrib(EGL_SYNC_NATIVE_FENCE_FD_ANDROID), EGLAttrib(fd), EGLAttrib(EGL_NONE)]) else {
                Glibc.close(fd)
                throw GPUError.loggedEGLFailure(call: "eglCreateSync(EGL_SYNC_NATIVE_FENCE_ANDROID, fd \(fd))", error: lastEGLError(),
                                                hint: "the fd must be a sync file (a fence fd from a driver or sync_file API): wait on it yourself (poll for POLLIN) otherwise")
            }
            return SyncFence(kind: .syncFile, display: device.display, sync: sync)
        }
    }

    /// Whether it has signalled (never blocks).
    public var isSignaled: Bool {
        sync.withLock { s in
            guard let s else { return true }
            var value: EGLAttrib = 0
            guard eglGetSyncAttrib(display, s, EGL_SYNC_STATUS, &value) == EGL_TRUE else { return true }
            return value == EGLAttrib(EGL_SIGNALED)
        }
    }

    /// Blocks until it signals, or `timeout` seconds pass (nil: forever). True if signalled.
    @discardableResult
    public func wait(timeout: Double? = nil) -> Bool {
        guard let s = sync.withLock({ $0 }) else { return true }
        let ns: EGLTime = timeout.map { EGLTime(max(0, $0) * 1e9) } ?? EGLTime(EGL_FOREVER)
        return eglClientWaitSync(display, s, EGLint(EGL_SYNC_FLUSH_COMMANDS_BIT), ns) == EGLint(EGL_CONDITION_SATISFIED)
    }

    /// Makes `device`'s GL wait for the fence before the commands after (on the GPU,
    /// without blocking the CPU: `EGL_KHR_wait_sync`). Fences the driver cannot wait on
    /// that way (user-signalled ones) are waited for on the CPU, at most `timeout` seconds.
    /// Inside a scope of `device`. False on timeout.
    func serverWait(on device: GPUDevice, timeout: Double) -> Bool {
        guard let s = sync.withLock({ $0 }) else { return true }
        if kind != .userSignaled, display == device.display, device.capabilities.eglExtensions.contains("EGL_KHR_wait_sync"),
           eglWaitSync(display, s, 0) == EGL_TRUE {
            device.serverWaitCount += 1
            return true
        }
        return wait(timeout: timeout)
    }

    /// Signals a `userSignaled` fence (throws for the others: the GPU signals them).
    public func signal() throws {
        guard kind == .userSignaled else {
            throw GPUError.invalidArgument(operation: "SyncFence.signal", reason: "a \(kind) fence is signalled by the GPU, not by signal()")
        }
        guard let signal = eglProcedure("eglSignalSyncKHR", as: PFNEGLSIGNALSYNCKHRPROC.self) else {
            throw GPUError.loggedEGLFailure(call: "eglSignalSyncKHR", error: "not found", hint: "the driver lacks EGL_KHR_reusable_sync")
        }
        try sync.withLock { s in
            guard let s else { return }
            guard signal(display, s, EGLenum(EGL_SIGNALED)) == EGL_TRUE else {
                throw GPUError.loggedEGLFailure(call: "eglSignalSyncKHR", error: lastEGLError(),
                                                hint: "the fence's display is gone (its last device closed): make fences on a device that stays open while they are used")
            }
        }
    }

    /// A sync file (a new fd the caller owns) that signals with this fence, for another
    /// process or API (KMS `IN_FENCE_FD`, Wayland explicit sync). Throws where the driver
    /// lacks `EGL_ANDROID_native_fence_sync`: wait (`wait()`) before handing the buffer over.
    public func exportSyncFile() throws -> Int32 {
        guard kind == .syncFile, let dup = eglProcedure("eglDupNativeFenceFDANDROID", as: PFNEGLDUPNATIVEFENCEFDANDROIDPROC.self) else {
            throw GPUError.loggedEGLFailure(call: "eglDupNativeFenceFDANDROID", error: "a \(kind) fence has no sync file",
                                            hint: "the driver lacks EGL_ANDROID_native_fence_sync: call wait() before handing the buffer to another process")
        }
        return try sync.withLock { s in
            guard let s else { throw GPUError.released(what: "the fence", operation: "exportSyncFile") }
            let fd = dup(display, s)
            guard fd >= 0 else {
                throw GPUError.loggedEGLFailure(call: "eglDupNativeFenceFDANDROID", error: lastEGLError(),
                                                hint: "the fence has no sync file yet or the process is out of fds: call wait() and hand the buffer over finished instead")
            }
            return fd
        }
    }

    deinit {
        if let s = sync.withLock({ $0 }) {
            eglDestroySync(display, s)
            SyncFence.live.subtract(1, ordering: .relaxed)
        }
    }
}

extension GPUCapabilities {
    /// EGL_KHR_fence_sync: GPU fences.
    public var fenceSync: Bool { eglExtensions.contains("EGL_KHR_fence_sync") }
    /// EGL_ANDROID_native_fence_sync: fences as sync files (across processes).
    public var nativeFenceSync: Bool { eglExtensions.contains("EGL_ANDROID_native_fence_sync") }
    /// EGL_KHR_wait_sync: the GPU waits for a fence without the CPU.
    public var serverWaitSync: Bool { eglExtensions.contains("EGL_KHR_wait_sync") }
}

import FoundationEssentials
import Glibc

/// A mutex with a condition variable (what `NSLock` and `NSCondition` give, without
/// Foundation: the library links `FoundationEssentials` only, no ICU). Timed waits run on
/// CLOCK_MONOTONIC, so a change of the wall clock neither ends nor stretches them.
package final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }
    package func unlock() { pthread_mutex_unlock(mutex) }

    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock(); defer { unlock() }
        return try body()
    }

    /// Wakes every waiter.
    package func broadcast() { pthread_cond_broadcast(condition) }

    /// Waits (the lock held) until woken.
    package func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits (the lock held) until woken or `seconds` of CLOCK_MONOTONIC; false when that
    /// time passed.
    package func wait(untilMonotonic seconds: Double) -> Bool {
        let t = seconds.isNaN ? 0 : max(0, seconds)
        var spec = timespec()
        spec.tv_sec = t >= Double(Int.max) ? Int.max : Int(t)
        spec.tv_nsec = t >= Double(Int.max) ? 0 : Int((t - t.rounded(.down)) * 1e9)
        return pthread_cond_timedwait(condition, mutex, &spec) != ETIMEDOUT
    }

    /// Waits (the lock held) until woken or `deadline`; false when the deadline passed.
    package func wait(until deadline: Date) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return wait(untilMonotonic: Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 + deadline.timeIntervalSinceNow)
    }
}

/// Starts a detached thread running `body` (`Foundation.Thread`, without Foundation); false
/// when the system gives no thread (the caller fails cleanly: nothing runs `body`).
@discardableResult
package func startThread(named name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
    final class Box { let body: @Sendable () -> Void; init(_ b: @escaping @Sendable () -> Void) { body = b } }
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let started = pthread_create(&thread, nil, { raw in
        let box = Unmanaged<AnyObject>.fromOpaque(raw!).takeRetainedValue() as! Box
        box.body()
        return nil
    }, context)
    guard started == 0 else {
        Unmanaged<AnyObject>.fromOpaque(context).release()
        return false
    }
    // (glibc's pthread_setname_np is not in Swift's Glibc module: looked up; 15 bytes at most.)
    typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32
    if let symbol = dlsym(nil, "pthread_setname_np") {
        _ = unsafeBitCast(symbol, to: SetName.self)(thread, String(decoding: name.utf8.prefix(15), as: UTF8.self))
    }
    pthread_detach(thread)
    return true
}

/// Whether `path` is a regular file, and its size in bytes (nil: it cannot be read).
/// (`stat`: FoundationEssentials' attribute dictionary types its values differently from
/// Foundation's.)
package func regularFileSize(atPath path: String) -> (isRegular: Bool, size: Int)? {
    var s = stat()
    guard stat(path, &s) == 0 else { return nil }
    return ((s.st_mode & S_IFMT) == S_IFREG, Int(s.st_size))
}

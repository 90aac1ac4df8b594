import Glibc

/// A value guarded by a `pthread_mutex_t`. Lamina uses it instead of the standard
/// library's `Mutex`, whose Linux implementation locks with raw futex calls in a library
/// ThreadSanitizer does not instrument: TSan then sees no ordering between the critical
/// sections and reports false races. A pthread mutex is intercepted by every sanitizer,
/// so `Tools/sanitize.sh` checks Lamina's real synchronization.
package final class Locked<State>: @unchecked Sendable {
    private var state: State
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init(_ state: State) {
        self.state = state
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the state, the mutex held.
    package func withLock<T, E: Error>(_ body: (inout State) throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}

// What MainLoop needs from Linux and libdispatch that Swift's Glibc module does not bring:
// epoll, timerfd and eventfd (their headers are not in the Glibc module map), and the two
// libdispatch entry points CoreFoundation's run loop uses to run the main queue (exported
// by libdispatch.so on Linux, declared in its private headers only, which the toolchain
// does not ship).
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

/// The main queue's wake-up descriptor: an eventfd written whenever work is queued on the
/// Dispatch main queue (DispatchQueue.main, @MainActor jobs) while the main thread owns the
/// queue; never read by libdispatch. -1 once the main thread gave the queue up (dispatch_main(),
/// as an async main or the swift-testing runner do).
int _dispatch_get_main_queue_handle_4CF(void);

/// Runs the work on the Dispatch main queue (what was queued when it started). Call it on
/// the main thread only: libdispatch crashes the process otherwise when there is work.
void _dispatch_main_queue_callback_4CF(void *msg);

/// Whether the calling thread is the process's main thread (the one libdispatch binds the
/// main queue to).
static inline int lamina_is_main_thread(void) { return syscall(SYS_gettid) == getpid(); }

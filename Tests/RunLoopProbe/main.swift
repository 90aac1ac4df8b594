// lamina-runloop-probe: shows that `MainLoop.run(until:)` runs Dispatch main-queue blocks
// and `@MainActor` tasks, on the main thread, between its own timers and posted blocks.
// Synchronous top-level code keeps the main thread (no `dispatchMain()`), which is what
// lets the loop drain the main queue. RunLoopTests runs this program and checks its output:
// inside the test process the main thread belongs to Dispatch, so it cannot be shown there.
//
// Each event causes the next, so the order is fixed:
//   1. a DispatchQueue.main.async block (queued before the task)
//   2. a @MainActor task starts, sleeps 20 ms, 3. resumes,
//      and has a background queue hop to the main queue after 30 ms: 4.,
//      which has a background thread post to the loop: 5.,
//      which adds a 20 ms MainLoop timer: 6.
import Dispatch
import Foundation
import LaminaCore

let loop = MainLoop.main
var events: [String] = []
var insideRun = false

@MainActor func note(_ event: String) {
    events.append(event)
    print("\(events.count). \(event) (main thread: \(Thread.isMainThread), inside run(): \(insideRun))")
}

print("drains the main queue: \(loop.drainsMainQueue)")
DispatchQueue.main.async {
    MainActor.assumeIsolated { note("DispatchQueue.main.async block") }
}
Task { @MainActor in
    note("@MainActor task started")
    try await Task.sleep(for: .milliseconds(20))
    note("@MainActor task resumed after Task.sleep")
    DispatchQueue.global().asyncAfter(deadline: .now() + 0.03) { [loop] in
        DispatchQueue.main.async {
            MainActor.assumeIsolated { note("background work item hopped to DispatchQueue.main") }
            DispatchQueue.global().async {
                loop.post {
                    note("MainLoop.post from a background thread")
                    loop.addTimer(after: 0.02) { note("MainLoop timer") }
                }
            }
        }
    }
}
// Keeps run() going while the work above is on other threads, and ends a stuck probe.
let watchdog = loop.addTimer(after: 10) {
    print("stuck after \(events.count) events")
    exit(1)
}

print("run() starts")
insideRun = true
try loop.run { events.count == 6 }
insideRun = false
loop.cancelTimer(watchdog)
print("run() returned after \(events.count) events")

import CEGL
import CGLES

/// A `GL_TIME_ELAPSED_EXT` query object (GL_EXT_disjoint_timer_query), counted as `.query`.
final class TimerQuery: GPUObject {
    /// Inside a scope.
    init(gl: GLContext) {
        var q: GLuint = 0
        glGenQueries(1, &q)
        super.init(gl: gl, kind: .query, name: q)
    }
}

/// What the GPU timings of timed render passes came to so far.
public struct GPUTimingReport: Equatable, Sendable, CustomStringConvertible {
    /// The GPU time of the most recent timed pass whose result has come in, in nanoseconds
    /// (nil until one has).
    public var latestNanoseconds: UInt64?
    /// Timed passes whose result came in.
    public var measured = 0
    /// Results thrown away because the GPU reported a disjoint event (`GL_GPU_DISJOINT_EXT`:
    /// a power-state change, a reset…) while they were in flight.
    public var discarded = 0
    /// Timed passes that were not measured: no timer queries on this device, another timed
    /// pass (or a host's `GL_TIME_ELAPSED_EXT` query) already active, or every query of the
    /// ring still waiting for its result.
    public var skipped = 0

    public var description: String {
        "latest \(latestNanoseconds.map { "\($0) ns" } ?? "none"), measured \(measured), discarded \(discarded), skipped \(skipped)"
    }
}

/// The timer queries of one device: a small ring, so that timing never stalls — a timed
/// pass begins a query and ends it at `submit()`; results are read one or more frames
/// later, when `GL_QUERY_RESULT_AVAILABLE` says they are there (polled at the start of
/// every timed pass and by `GPUDevice.pollGPUTimings()`).
final class GPUTimer {
    /// Queries in flight at most: four frames of latency before a timed pass is skipped.
    static let ringSize = 4

    private var free: [TimerQuery] = []
    /// Ended, result not read yet; oldest first.
    private var inFlight: [TimerQuery] = []
    private(set) var active: TimerQuery?
    private(set) var report = GPUTimingReport()
    private let getResult64: PFNGLGETQUERYOBJECTUI64VEXTPROC?

    init() {
        getResult64 = eglProcedure("glGetQueryObjectui64vEXT", as: PFNGLGETQUERYOBJECTUI64VEXTPROC.self)
    }

    /// Begins timing (inside a scope); false (and counted as skipped) when it cannot now.
    func begin(_ gl: GLContext, supported: Bool) -> TimerQuery? {
        guard supported, active == nil else { report.skipped += 1; return nil }
        // A host's own time-elapsed query (adopted context): GL allows one at a time.
        var hostQuery: GLint = 0
        glGetQueryiv(GLenum(GL_TIME_ELAPSED_EXT), GLenum(GL_CURRENT_QUERY), &hostQuery)
        guard hostQuery == 0 else { report.skipped += 1; return nil }
        poll()
        let query: TimerQuery
        if let q = free.popLast(), !q.isReleased {
            query = q
        } else if inFlight.count < GPUTimer.ringSize {
            query = TimerQuery(gl: gl)
        } else {
            report.skipped += 1
            return nil
        }
        glBeginQuery(GLenum(GL_TIME_ELAPSED_EXT), query.name)
        gl.checkGLError("glBeginQuery(GL_TIME_ELAPSED_EXT)")
        active = query
        return query
    }

    /// Ends the active query (inside a scope).
    func end(_ query: TimerQuery) {
        guard active === query else { return }
        glEndQuery(GLenum(GL_TIME_ELAPSED_EXT))
        active = nil
        inFlight.append(query)
    }

    /// Reads the results that are in, oldest first, without waiting (inside a scope).
    func poll() {
        var results: [UInt64] = []
        while let q = inFlight.first {
            var available: GLuint = 0
            glGetQueryObjectuiv(q.name, GLenum(GL_QUERY_RESULT_AVAILABLE), &available)
            guard available != 0 else { break }
            if let getResult64 {
                var ns: GLuint64 = 0
                getResult64(q.name, GLenum(GL_QUERY_RESULT), &ns)
                results.append(ns)
            } else {
                var ns: GLuint = 0
                glGetQueryObjectuiv(q.name, GLenum(GL_QUERY_RESULT), &ns)
                results.append(UInt64(ns))
            }
            free.append(inFlight.removeFirst())
        }
        guard let last = results.last else { return }
        // A disjoint event while these were in flight makes them meaningless (reading the
        // flag clears it).
        var disjoint: GLint = 0
        glGetIntegerv(GLenum(GL_GPU_DISJOINT_EXT), &disjoint)
        if disjoint != 0 {
            report.discarded += results.count
        } else {
            report.measured += results.count
            report.latestNanoseconds = last
        }
    }

    /// Frees the queries (inside a scope); results in flight are lost.
    func releaseAll() {
        if active != nil { glEndQuery(GLenum(GL_TIME_ELAPSED_EXT)) }
        for q in free + inFlight { q.release() }
        active?.release()
        free = []; inFlight = []; active = nil
    }

    /// Drops the wrappers without GL calls (the context is gone).
    func forgetAll() { free = []; inFlight = []; active = nil }
}

extension GPUDevice {
    /// Reads the GPU timings of timed passes that have come in (never waits for the GPU)
    /// and reports them: `beginRenderPass(on:clear:timed: true)` times a pass from begin to
    /// `submit()`, on the GPU (GL_EXT_disjoint_timer_query, `capabilities.timerQueries`);
    /// results arrive one or more frames later.
    @discardableResult
    public func pollGPUTimings() -> GPUTimingReport {
        guard !isClosed else { return timer.report }
        gl.withCurrentIfPossible { timer.poll() }
        return timer.report
    }

    /// The GPU time of the latest timed pass whose result has come in (as of the last
    /// poll: each timed pass's begin, or `pollGPUTimings()`), in nanoseconds; nil until one has.
    public var latestGPUDuration: UInt64? { timer.report.latestNanoseconds }
}

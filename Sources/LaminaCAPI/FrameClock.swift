import CLamina
import LaminaCore
import LaminaValues

// A host's frame clock through the C API: frame requests and the frame time.

@_cdecl("lamina_set_frame_request_callback")
public func c_set_frame_request_callback(_ callback: lamina_frame_request_fn?, _ userData: UnsafeMutableRawPointer?) -> lamina_status {
    nonisolated(unsafe) let userData = userData
    return call("lamina_set_frame_request_callback") {
        try refuseInsideDraw("lamina_set_frame_request_callback")
        guard let callback else { TransactionContext.main.frameRequestHandler = nil; return }
        // Called once the outermost Lamina call that asked returns (a property setter, say):
        // the callback may call Lamina again, but not commit (refuseInsideDraw).
        let run = { frameRequestDepth += 1; defer { frameRequestDepth -= 1 }; callback(userData) }
        TransactionContext.main.frameRequestHandler = {
            if callDepth == 0 { run() } else { pendingCallbacks.append(run) }
        }
    }
}
@_cdecl("lamina_frame_request_count") public func c_frame_request_count(_ out: UnsafeMutablePointer<UInt64>?) -> lamina_status {
    nonisolated(unsafe) let out = out
    return call("lamina_frame_request_count") { try required(out).pointee = UInt64(TransactionContext.main.frameRequestCount) }
}
@_cdecl("lamina_set_frame_time") public func c_set_frame_time(_ seconds: Double) -> lamina_status {
    call("lamina_set_frame_time") {
        guard !seconds.isNaN else { MediaClock.set(nil); return }
        guard seconds.isFinite, abs(seconds) < 1e12 else {
            throw CAPIError(LAMINA_ERROR_INVALID_ARGUMENT, "a frame time must be finite seconds of CLOCK_MONOTONIC, or NaN for Lamina's own clock (got \(seconds))")
        }
        MediaClock.set(seconds)
    }
}

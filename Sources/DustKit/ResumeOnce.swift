import Synchronization

/// A continuation resumed once, by whichever comes first: the awaited thing ending or the waiting task
/// cancelled (which may come before the continuation is there). For a wait that cancellation must end
/// at once: a PostgreSQL lease's connection closing, a trim on a thread of its own.
public final class ResumeOnce: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<Void, Never>?, done: Bool)>((nil, false))

    public init() {}

    /// The continuation to resume; resumed at once if `resume()` already came.
    public func set(_ continuation: CheckedContinuation<Void, Never>) {
        let resumeNow = state.withLock { state in
            if state.done { return true }
            state.continuation = continuation
            return false
        }
        if resumeNow { continuation.resume() }
    }

    /// Resumes the continuation the first time; later calls do nothing.
    public func resume() {
        let continuation = state.withLock { state in
            defer {
                state.done = true
                state.continuation = nil
            }
            return state.continuation
        }
        continuation?.resume()
    }
}

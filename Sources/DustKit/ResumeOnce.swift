import Synchronization

/// A continuation resumed once, by whichever comes first: the awaited thing ending or the waiting task
/// cancelled (which may come before the continuation is there). For a wait that cancellation must end
/// at once: a PostgreSQL lease's connection closing, a trim on a thread of its own.
public final class ResumeOnce: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<Void, Never>?, done: Bool)>((nil, false))

    private init() {}

    /// Returns once `start` calls the `done` it is given, or at once when the task is cancelled; a `done`
    /// that comes after, or a second one, does nothing.
    public static func untilDone(orCancelled start: (_ done: @escaping @Sendable () -> Void) -> Void) async {
        let waiter = ResumeOnce()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiter.set(continuation)
                start { waiter.resume() }
            }
        } onCancel: {
            waiter.resume()
        }
    }

    /// The continuation to resume; resumed at once if `resume()` already came.
    private func set(_ continuation: CheckedContinuation<Void, Never>) {
        let resumeNow = state.withLock { state in
            if state.done { return true }
            state.continuation = continuation
            return false
        }
        if resumeNow { continuation.resume() }
    }

    /// Resumes the continuation the first time; later calls do nothing.
    private func resume() {
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

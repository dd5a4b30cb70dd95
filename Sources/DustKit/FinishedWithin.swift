import Synchronization

/// Runs `work` outside the caller's cancellation and waits for it at most `seconds` of real time: for
/// what a stop must not cut short, the record of the stop itself, nor wait for past systemd's
/// `TimeoutStopSec` (real time too). A cancelled caller still waits. Past the wait the work goes on
/// without the caller, and is abandoned unfinished if the process exits first. Nil when it did not
/// finish in time.
public func finishedWithin<T: Sendable>(seconds: Double, _ work: @escaping @Sendable () async -> T) async -> T? {
    let first = FirstOfTwo<T>()
    Task {
        first.finish(await work())
    }
    let timer = Task {
        // Not cancelled with the caller: only the work or the deadline ends the wait.
        try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
        first.finish(nil)
    }
    let result = await withCheckedContinuation { first.wait($0) }
    timer.cancel()
    return result
}

/// The first of the work's result and the deadline's nil, handed to the one waiter.
private final class FirstOfTwo<T: Sendable>: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<T?, Never>?, result: T??)>((nil, nil))

    func finish(_ result: T?) {
        let continuation = state.withLock { state -> CheckedContinuation<T?, Never>? in
            guard state.result == nil else { return nil }
            state.result = .some(result)
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: result)
    }

    func wait(_ continuation: CheckedContinuation<T?, Never>) {
        let result = state.withLock { state -> T?? in
            if state.result == nil { state.continuation = continuation }
            return state.result
        }
        if let result { continuation.resume(returning: result) }
    }
}

import DustServices
import Synchronization

/// SQLite's lease: always held, because the file lock (`DatabaseLock`) that dustd takes before it
/// opens the database already keeps every other dustd away from it.
public struct SQLitePollerLease: PollerLease {
    public init() {}

    public var alwaysHeld: Bool { true }

    public func acquire() async throws(StorageFailure) -> Bool { true }

    public func lost() async {
        // Never lost: wait until the caller stops waiting.
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(86_400))
        }
    }

    public func release() async {}
}

/// Several dustd in one process sharing one lock, for tests: each dustd takes a `MemoryPollerLease`
/// of the same lock, and `endSession(of:)` makes a holder lose it as a killed poller's session would.
public final class MemoryPollerLock: Sendable {
    private struct State {
        var holder: Int?
        var nextSession = 0
        /// The `lost()` waiters, by the session they wait for.
        var waiters: [Int: [Int: CheckedContinuation<Void, Never>]] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// A new dustd's lease on this lock.
    public func lease() -> MemoryPollerLease {
        let session = state.withLock { state in
            state.nextSession += 1
            return state.nextSession
        }
        return MemoryPollerLease(lock: self, session: session)
    }

    /// The session holding the lock, if any.
    public var holder: Int? { state.withLock { $0.holder } }

    /// Ends `lease`'s session as a crash would: the lock is free, its `lost()` returns.
    public func endSession(of lease: MemoryPollerLease) {
        free(session: lease.session)
    }

    fileprivate func acquire(session: Int) -> Bool {
        state.withLock { state in
            if state.holder == nil { state.holder = session }
            return state.holder == session
        }
    }

    fileprivate func free(session: Int) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            if state.holder == session { state.holder = nil }
            return state.waiters.removeValue(forKey: session).map { Array($0.values) } ?? []
        }
        for waiter in waiters { waiter.resume() }
    }

    fileprivate func waitUntilLost(session: Int) async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    guard state.holder == session, !Task.isCancelled else { return true }
                    state.waiters[session, default: [:]][id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters[session]?.removeValue(forKey: id) }?.resume()
        }
    }
}

/// One dustd's lease on a `MemoryPollerLock`.
public struct MemoryPollerLease: PollerLease {
    fileprivate let lock: MemoryPollerLock
    /// This dustd's session on the lock.
    public let session: Int

    public func acquire() async throws(StorageFailure) -> Bool { lock.acquire(session: session) }

    public func lost() async { await lock.waitUntilLost(session: session) }

    public func release() async { lock.free(session: session) }
}

import DustConfig
import DustPostgres
import DustServices
import Synchronization

// A test's PostgreSQL store runs its pool of connections (a `Service`, as in dustd's scope) in a
// task of the test's own: `running` starts it, `close()` ends it and waits until it has ended.

private let runs = Mutex<[ObjectIdentifier: Task<Void, Never>]>([:])

extension PostgresStore {
    /// How long a test's store waits for a pooled connection. dustd's `defaultLeaseTimeout` (10 s)
    /// was met by a test whose process was starved, not by a fault: two full test runs side by side
    /// and two builds (load 20) kept the shared server's logins waiting past it (docs/RELIABILITY.md,
    /// "Eighth session"). A test about the timeout passes dustd's own.
    public static let testLeaseTimeout: Duration = .seconds(120)

    /// Opens the store at `location` and runs its pool until `close()`.
    public static func running(
        _ location: PostgresLocation, password: String, mode: Mode = .readWrite, leaseTimeout: Duration = testLeaseTimeout
    ) async throws(StorageFailure) -> PostgresStore {
        let store = try await open(location, password: password, mode: mode, leaseTimeout: leaseTimeout)
        let run = Task { await store.run() }
        runs.withLock { $0[ObjectIdentifier(store)] = run }
        return store
    }

    /// Ends the pool that `running` started: its connections close, and every later call fails as
    /// `unreachable`. Returns once the pool has stopped.
    public func close() async {
        guard let run = runs.withLock({ $0.removeValue(forKey: ObjectIdentifier(self)) }) else { return }
        run.cancel()
        await run.value
    }

    /// Runs `body` with the store while its pool runs beside it in this scope, then stops the pool.
    public func serving<T>(_ body: (PostgresStore) async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await self.run() }
            defer { group.cancelAll() }
            return try await body(self)
        }
    }
}

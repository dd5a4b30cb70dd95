import DustConfig
import DustPostgres
import DustServices
import Synchronization

// A test's PostgreSQL store runs its pool of connections (a `Service`, as in dustd's scope) in a
// task of the test's own: `running` starts it, `close()` ends it and waits until it has ended.

private let runs = Mutex<[ObjectIdentifier: Task<Void, Never>]>([:])

extension PostgresStore {
    /// Opens the store at `location` and runs its pool until `close()`.
    public static func running(
        _ location: PostgresLocation, password: String, mode: Mode = .readWrite
    ) async throws(StorageFailure) -> PostgresStore {
        let store = try await open(location, password: password, mode: mode)
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

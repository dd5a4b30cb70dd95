import DustConfig
import DustServices
import Foundation
import Logging
import NIOPosix
import PostgresNIO
import Synchronization

/// The FineDust database on a PostgreSQL server (docs/REFERENCE.md §20): every store protocol, with
/// the SQLite store's semantics and outputs, over a pool of connections that several dustd and
/// dustctl share. Every write is one transaction; a read of several statements reads one snapshot.
public final class PostgresStore: Sendable {
    /// How to open the database.
    public enum Mode: Sendable, Hashable {
        /// Migrate the schema to this version's (under an advisory lock), and write.
        case readWrite
        /// Only check the schema; a write fails as the server decides (a read-only role: `denied`).
        case readOnly
    }

    /// Where the database is; what every message names (never with the password).
    public let location: PostgresLocation
    let client: PostgresClient
    let logger: Logger
    /// Kept only to withhold it from a message that would ever quote it.
    private let password: String
    private let runTask: Task<Void, Never>
    /// Where the shared statements' transactions run and wait on the server (PostgresStore+Engine.swift):
    /// one thread per pooled connection.
    let threads: NIOThreadPool

    private init(location: PostgresLocation, password: String, client: PostgresClient, logger: Logger) {
        self.location = location
        self.password = password
        self.client = client
        self.logger = logger
        threads = NIOThreadPool(numberOfThreads: Self.maximumConnections)
        threads.start()
        runTask = Task { await client.run() }
    }

    deinit {
        runTask.cancel()
        threads.shutdownGracefully { _ in }
    }

    /// Connects to `location` with `password`, checks the schema and, read-write, migrates it: the
    /// store, or the failure an operator can act on (`unreachable`, `denied`, `schemaTooNew`, …).
    public static func open(
        _ location: PostgresLocation, password: String, mode: Mode = .readWrite,
        logger: Logger = Logger(label: "FineDust.postgres")
    ) async throws(StorageFailure) -> PostgresStore {
        // One connection of its own first: a pool retries a refused login or a server that is down
        // in the background, where open must say at once what is wrong.
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                configuration: try connectionConfiguration(location, password: password), id: 0, logger: logger)
        } catch {
            throw StorageFailure(postgres: error, location: location, password: password)
        }
        do {
            switch mode {
            case .readWrite: try await PostgresSchema.migrate(connection, location: location, logger: logger)
            case .readOnly: try await PostgresSchema.check(connection, location: location, logger: logger)
            }
            try? await connection.close()
        } catch {
            try? await connection.close()
            throw StorageFailure(postgres: error, location: location, password: password)
        }
        let client: PostgresClient
        do {
            // The pool's run task starts a moment after the store is returned: its warning that a
            // first lease came before it is noise, so the pool's background speaks only of errors.
            var background = logger
            background.logLevel = max(logger.logLevel, .error)
            client = PostgresClient(configuration: try clientConfiguration(location, password: password), backgroundLogger: background)
        } catch {
            throw StorageFailure(postgres: error, location: location, password: password)
        }
        return PostgresStore(location: location, password: password, client: client, logger: logger)
    }

    /// Ends the pool: its connections close and every later call fails as `unreachable`.
    public func close() async {
        runTask.cancel()
        await runTask.value
        try? await threads.shutdownGracefully()
    }

    // MARK: - Connections

    /// The pool's connections at most.
    static let maximumConnections = 10

    private static func clientConfiguration(_ location: PostgresLocation, password: String) throws -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        switch location.endpoint {
        case .tcp(let host, let port):
            configuration = PostgresClient.Configuration(
                host: host, port: port, username: location.user, password: password, database: location.database,
                tls: try clientTLS(location.tls))
        case .unixSocket(let directory, let port):
            // A Unix socket never carries TLS (libpq ignores sslmode there too).
            configuration = PostgresClient.Configuration(
                unixSocketPath: socketPath(directory: directory, port: port), username: location.user, password: password,
                database: location.database)
        }
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = .seconds(10)
        return configuration
    }

    /// One connection's settings from `storage.url`'s parts (the store's first connection, the
    /// poller lease's own), TLS as `tlsConfiguration` reads `sslmode`.
    static func connectionConfiguration(_ location: PostgresLocation, password: String) throws -> PostgresConnection.Configuration {
        switch location.endpoint {
        case .tcp(let host, let port):
            let tls: PostgresConnection.Configuration.TLS =
                switch try tlsConfiguration(location.tls) {
                case nil: .disable
                case (let configuration, let enforced)?:
                    enforced
                        ? .require(try NIOSSLContext(configuration: configuration))
                        : .prefer(try NIOSSLContext(configuration: configuration))
                }
            return PostgresConnection.Configuration(
                host: host, port: port, username: location.user, password: password, database: location.database, tls: tls)
        case .unixSocket(let directory, let port):
            return PostgresConnection.Configuration(
                unixSocketPath: socketPath(directory: directory, port: port), username: location.user, password: password,
                database: location.database)
        }
    }

    private static func clientTLS(_ mode: PostgresLocation.TLSMode) throws -> PostgresClient.Configuration.TLS {
        switch try tlsConfiguration(mode) {
        case nil: .disable
        case (let configuration, let enforced)?: enforced ? .require(configuration) : .prefer(configuration)
        }
    }

    /// `sslmode` as libpq reads it: `allow` and `prefer` try TLS and fall back, without verifying
    /// the certificate; `require` insists on TLS without verifying it; `verify-ca` verifies the
    /// chain against the system's trust store, `verify-full` the host name too. Nil: no TLS.
    private static func tlsConfiguration(_ mode: PostgresLocation.TLSMode) throws -> (TLSConfiguration, enforced: Bool)? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch mode {
        case .disable:
            return nil
        case .allow, .prefer:
            configuration.certificateVerification = .none
            return (configuration, false)
        case .require:
            configuration.certificateVerification = .none
            return (configuration, true)
        case .verifyCA:
            configuration.certificateVerification = .noHostnameVerification
            return (configuration, true)
        case .verifyFull:
            configuration.certificateVerification = .fullVerification
            return (configuration, true)
        }
    }

    /// The socket file a server listening in `directory` on `port` creates.
    static func socketPath(directory: String, port: Int) -> String {
        (directory.hasSuffix("/") ? directory : directory + "/") + ".s.PGSQL.\(port)"
    }

    // MARK: - Transactions

    /// Runs a read on one pooled connection; once more on a fresh connection when the one leased
    /// had been cut (a server restarted since the pool last used it).
    func reading<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws(StorageFailure) -> T {
        try await withRetry(afterAnyCut: true) { try await leasing(body) }
    }

    /// Runs `body` in one read-only transaction that sees one snapshot (REPEATABLE READ), so a read
    /// of several statements never sees half of a concurrent import.
    func snapshot<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws(StorageFailure) -> T {
        try await transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
    }

    /// Runs `body` in one transaction: all of it is committed, or none.
    func writing<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws(StorageFailure) -> T {
        try await transaction("BEGIN", body)
    }

    private func transaction<T: Sendable>(
        _ begin: PostgresQuery, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws(StorageFailure) -> T {
        let logger = logger
        // Only a transaction that never began runs again: one cut at its COMMIT may have committed.
        return try await withRetry(afterAnyCut: false) {
            try await leasing { connection in
                do {
                    try await connection.query(begin, logger: logger)
                } catch {
                    throw BeginFailed(underlying: error)
                }
                do {
                    let result = try await body(connection)
                    try await connection.query("COMMIT", logger: logger)
                    return result
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
            }
        }
    }

    /// How long a call waits for a connection before it fails as `unreachable`: the pool itself
    /// waits a minute while the server is down, and a poll or a web request must not.
    static let leaseTimeout: Duration = .seconds(10)

    /// Runs `body` on a pooled connection, or fails with `LeaseTimedOut` when none is had within
    /// `leaseTimeout`. Once `body` runs it takes as long as it takes (an import of a year). Cancelled,
    /// the call fails with `CancellationError` at once, waiting or running; `body` is cancelled and
    /// left to end on its own (a transaction it had not committed, the server rolls back).
    ///
    /// A race, not a task group: a group waits for every child, and a pooled connection whose server
    /// was stopped in the middle of a statement can leave the statement, or the pool's wait for a
    /// connection, unanswered for good; a dustd stopping (or losing the poller's lease) hung there.
    /// A request left waiting runs nothing when a connection comes (`LeaseRace.start`).
    private func leasing<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let client = client
        let race = LeaseRace<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                guard race.begin(continuation) else { return }
                let work = Task {
                    do {
                        let value = try await client.withConnection { connection in
                            guard race.start() else { throw CancellationError() }
                            return try await body(connection)
                        }
                        race.finish(.success(value))
                    } catch {
                        race.finish(.failure(error))
                    }
                }
                let timer = Task {
                    guard (try? await Task.sleep(for: Self.leaseTimeout)) != nil else { return }
                    // A process whose threads were all busy wakes this timer and the lease's continuation
                    // together: the lease had in time runs first, and only a lease never had fails.
                    await Task.yield()
                    race.abandon(LeaseTimedOut())
                }
                race.attach(work: work, timer: timer)
            }
        } onCancel: {
            race.cancel()
        }
    }

    /// One `leasing` call's race: waiting for a connection, then running on it, then over.
    private final class LeaseRace<T: Sendable>: Sendable {
        private enum Phase { case waiting, started, over }
        private struct State {
            var phase = Phase.waiting
            var continuation: CheckedContinuation<T, any Error>?
            var work: Task<Void, Never>?
            var timer: Task<Void, Never>?
        }
        private let state = Mutex(State())

        /// Keeps the continuation; false (and resumed, cancelled) when the caller was cancelled already.
        func begin(_ continuation: CheckedContinuation<T, any Error>) -> Bool {
            let over = state.withLock { state in
                if state.phase == .over { return true }
                state.continuation = continuation
                return false
            }
            if over { continuation.resume(throwing: CancellationError()) }
            return !over
        }

        /// Keeps the tasks, or stops them when the race is already over (cancelled meanwhile).
        func attach(work: Task<Void, Never>, timer: Task<Void, Never>) {
            let over = state.withLock { state in
                state.work = work
                state.timer = timer
                return state.phase == .over
            }
            if over {
                timer.cancel()
                work.cancel()
            }
        }

        /// The connection is had: true to run `body` on it, false when the caller has gone.
        func start() -> Bool {
            state.withLock { state in
                guard state.phase == .waiting else { return false }
                state.phase = .started
                return true
            }
        }

        func finish(_ result: Result<T, any Error>) {
            end(with: result)
        }

        /// The timer: the caller fails with `error` unless a connection was had.
        func abandon(_ error: any Error) {
            end(with: .failure(error), onlyWaiting: true)
        }

        /// The caller was cancelled: it fails at once, and `body`, if running, is cancelled.
        func cancel() {
            end(with: .failure(CancellationError()))
        }

        private func end(with result: Result<T, any Error>, onlyWaiting: Bool = false) {
            let ended = state.withLock { state -> (CheckedContinuation<T, any Error>?, Task<Void, Never>?, Task<Void, Never>?)? in
                guard state.phase != .over, !onlyWaiting || state.phase == .waiting else { return nil }
                state.phase = .over
                defer { state.continuation = nil }
                return (state.continuation, state.work, state.timer)
            }
            guard let (continuation, work, timer) = ended else { return }
            timer?.cancel()
            // A request left waiting runs nothing when it gets a connection (`start`); a running body is cancelled.
            work?.cancel()
            continuation?.resume(with: result)
        }
    }

    /// No connection could be had within `leaseTimeout`.
    struct LeaseTimedOut: Error {}

    /// Nothing of the transaction ran: safe to run it again on another connection.
    struct BeginFailed: Error {
        var underlying: any Error
    }

    private func withRetry<T: Sendable>(afterAnyCut: Bool, _ work: () async throws -> T) async throws(StorageFailure) -> T {
        do {
            return try await work()
        } catch {
            guard afterAnyCut || error is BeginFailed, Self.isCutConnection(error) else { throw failure(error) }
        }
        do {
            return try await work()
        } catch {
            throw failure(error)
        }
    }

    /// A connection the server or the network ended before the statement ran.
    static func isCutConnection(_ error: any Error) -> Bool {
        let error = (error as? BeginFailed)?.underlying ?? error
        guard let psql = error as? PSQLError else { return false }
        switch psql.code {
        case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown: return true
        case .server: return psql.serverInfo?[.sqlState].map(PostgresFailure.isConnectionLoss) ?? false
        default: return false
        }
    }

    func failure(_ error: any Error) -> StorageFailure {
        StorageFailure(postgres: error, location: location, password: password)
    }
}

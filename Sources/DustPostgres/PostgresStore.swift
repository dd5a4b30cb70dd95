import DustConfig
import DustServices
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The FineDust database on a PostgreSQL server (docs/REFERENCE.md §20): every store protocol, with
/// the SQLite store's semantics and outputs, over a pool of connections that several dustd and
/// dustctl share. Every write is one transaction; a read of several statements reads one snapshot.
///
/// The pool is a `Service`: it works while `run()` runs — in dustd's `ServiceGroup`, or around a
/// command (`OpenedStorage.serving`) — and a call made when it is not running waits for a
/// connection and fails as `unreachable` after `leaseTimeout`.
public final class PostgresStore: Sendable, Service {
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
    /// Where the shared statements' transactions run and wait on the server (PostgresStore+Engine.swift):
    /// one thread per pooled connection.
    let threads: NIOThreadPool
    /// How long a call waits for a pooled connection before it fails as `unreachable`.
    let leaseTimeout: Duration

    private init(location: PostgresLocation, password: String, client: PostgresClient, leaseTimeout: Duration, logger: Logger) {
        self.location = location
        self.password = password
        self.client = client
        self.leaseTimeout = leaseTimeout
        self.logger = logger
        threads = NIOThreadPool(numberOfThreads: Self.maximumConnections)
        threads.start()
    }

    deinit {
        threads.shutdownGracefully { _ in }
    }

    /// Connects to `location` with `password`, checks the schema and, read-write, migrates it: the
    /// store, or the failure an operator can act on (`unreachable`, `denied`, `schemaTooNew`, …).
    ///
    /// - Parameter leaseTimeout: how long a call waits for a pooled connection; dustd's and dustctl's
    ///   is `defaultLeaseTimeout`.
    public static func open(
        _ location: PostgresLocation, password: String, mode: Mode = .readWrite,
        logger: Logger = Logger(label: "FineDust.postgres"), clock: any WallClock = SystemClock(),
        leaseTimeout: Duration = defaultLeaseTimeout
    ) async throws(StorageFailure) -> PostgresStore {
        try await refuseCleartextPassword(location, password: password, logger: logger)
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
            case .readWrite: try await PostgresSchema.migrate(connection, location: location, at: clock.now, logger: logger)
            case .readOnly: try await PostgresSchema.check(connection, location: location, logger: logger)
            }
            try? await connection.close()
        } catch {
            try? await connection.close()
            throw StorageFailure(postgres: error, location: location, password: password)
        }
        let client: PostgresClient
        do {
            // The pool runs a moment after the store is returned: its warning that a first lease
            // came before it is noise, so the pool's background speaks only of errors.
            var background = logger
            background.logLevel = max(logger.logLevel, .error)
            client = PostgresClient(configuration: try clientConfiguration(location, password: password), backgroundLogger: background)
        } catch {
            throw StorageFailure(postgres: error, location: location, password: password)
        }
        return PostgresStore(location: location, password: password, client: client, leaseTimeout: leaseTimeout, logger: logger)
    }

    /// Refuses a server that would have the password sent in clear text over a connection that may
    /// not be encrypted: over TCP with `sslmode` `allow` or `prefer` (the default), a server without
    /// TLS, or a stranger in between, sees what a `password` line of pg_hba.conf asks for. Asked first
    /// with no password at all: md5 and scram-sha-256 then end the attempt before anything is sent
    /// (`authMechanismRequiresPassword`), a cleartext request is answered with an empty password and
    /// refused by the server. `sslmode=disable` written out, `require` and above, and a Unix socket
    /// are left alone (docs/REFERENCE.md §20).
    private static func refuseCleartextPassword(
        _ location: PostgresLocation, password: String, logger: Logger
    ) async throws(StorageFailure) {
        guard case .tcp = location.endpoint, !password.isEmpty, location.tls == .allow || location.tls == .prefer else { return }
        let probe: PostgresConnection
        do {
            var configuration = try connectionConfiguration(location, password: password)
            configuration.password = nil
            probe = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
        } catch let error as PSQLError where error.code == .server && error.serverInfo?[.sqlState] == "28P01" {
            throw StorageFailure(postgres: PostgresFailure.cleartextPassword, location: location, password: password)
        } catch {
            // md5 or scram-sha-256 (the mechanism needs a password), or anything the real connection will say.
            return
        }
        // trust: no password was asked for.
        try? await probe.close()
    }

    /// Runs the pool of connections until the task is cancelled or a graceful shutdown begins; then
    /// its connections close and every later call fails as `unreachable`.
    public func run() async {
        await client.run()
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
        configuration.options.additionalStartupParameters = sessionParameters
        return configuration
    }

    /// Every session's own setting, sent when it starts: its program's name, for a DBA's
    /// `pg_stat_activity` (`dustd`, `dustctl`). Nothing else: a `lock_timeout` there would also bound
    /// the migration's wait for another dustd's migration (an advisory lock), and a pooler such as
    /// PgBouncer refuses startup parameters it does not know (it knows this one).
    static var sessionParameters: [(String, String)] {
        [("application_name", String(ProcessInfo.processInfo.processName.prefix(63)))]
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
            var configuration = PostgresConnection.Configuration(
                host: host, port: port, username: location.user, password: password, database: location.database, tls: tls)
            configuration.options.additionalStartupParameters = sessionParameters
            return configuration
        case .unixSocket(let directory, let port):
            var configuration = PostgresConnection.Configuration(
                unixSocketPath: socketPath(directory: directory, port: port), username: location.user, password: password,
                database: location.database)
            configuration.options.additionalStartupParameters = sessionParameters
            return configuration
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

    /// Runs statements outside a transaction on one pooled connection, on a thread of the store's
    /// pool; once more on a fresh connection when the one leased had been cut (a server restarted
    /// since the pool last used it).
    func reading<T: Sendable>(_ body: @escaping @Sendable (PostgresSession) throws -> T) async throws(StorageFailure) -> T {
        try await withRetry(afterAnyCut: true) { try await leasing(body) }
    }

    /// How long a call waits for a connection before it fails as `unreachable`: the pool itself
    /// waits a minute while the server is down, and a poll or a web request must not.
    public static let defaultLeaseTimeout: Duration = .seconds(10)

    /// How long one statement may go unanswered before its connection is closed, which fails the
    /// statement: a server stopped, or a network cut, in the middle of a statement can otherwise
    /// leave it unanswered for good. Far above any statement FineDust sends (a chunk of an import,
    /// the reads of a year), so only a server that stopped answering meets it.
    static let statementTimeout: TimeAmount = .seconds(60)

    /// Runs `body` on a pooled connection, on a thread of the store's pool (`threads`), or fails with
    /// `LeaseTimedOut` when none is had within
    /// `leaseTimeout`. Once `body` runs it takes as long as its statements do, each within
    /// `statementTimeout`. Cancelled, the call ends at once, waiting or running: a wait for a
    /// connection is withdrawn from the pool, and a running body's connection is closed, which fails
    /// its statement (a transaction it had not committed, the server rolls back).
    ///
    /// Structured: the lease and its timer are the two children of a task group, and neither can
    /// outlive the call, as each ends promptly when cancelled.
    func leasing<T: Sendable>(_ body: @escaping @Sendable (PostgresSession) throws -> T) async throws -> T {
        let (client, threads, logger, leaseTimeout) = (client, threads, logger, leaseTimeout)
        let leased = LeaseFlag()
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await client.withConnection { connection in
                    leased.value.store(true, ordering: .sequentiallyConsistent)
                    let waits = StatementWaits(connection: connection)
                    do {
                        return try await withTaskCancellationHandler {
                            try await threads.runIfActive {
                                try body(PostgresSession(connection: connection, waits: waits, logger: logger))
                            }
                        } onCancel: {
                            waits.cancel()
                        }
                    } catch {
                        // A session that refused a write as read-only (SQLSTATE 25006) keeps the setting it
                        // started with (`default_transaction_read_only` of a failover in progress, or set by
                        // a DBA): it is closed, so the pool's next session starts with the server's setting
                        // of now, and a spell that has ended ends for dustd too.
                        if Self.isReadOnlySession(error) { try? await connection.close() }
                        // A connection closed under the body goes back to the pool only once the pool
                        // has seen it close (its own callback on the same future runs first), so the
                        // next lease, a retry's included, is never handed the dead connection.
                        if connection.isClosed { try? await connection.closeFuture.get() }
                        throw error
                    }
                }
            }
            group.addTask {
                try await Task.sleep(for: leaseTimeout)
                // A process whose threads were all busy wakes this timer and the lease together: the
                // lease had in time runs first, and only a lease never had fails.
                await Task.yield()
                guard leased.value.load(ordering: .sequentiallyConsistent) else { throw LeaseTimedOut(after: leaseTimeout) }
                return nil
            }
            defer { group.cancelAll() }
            while let next = try await group.next() {
                if let value = next { return value }
            }
            throw CancellationError()
        }
    }

    /// Whether a call's connection was had: its timer fails the call only while it was not.
    private final class LeaseFlag: Sendable {
        let value = Atomic(false)
    }

    /// No connection could be had within `leaseTimeout`.
    struct LeaseTimedOut: Error {
        var after: Duration
    }

    /// A statement had no answer within `statementTimeout`; its connection was closed.
    struct StatementTimedOut: Error {}

    /// The leased connection was closed before a statement could be sent on it.
    struct ConnectionClosed: Error {}

    /// Nothing of the transaction ran: safe to run it again on another connection.
    struct BeginFailed: Error {
        var underlying: any Error
    }

    func withRetry<T: Sendable>(afterAnyCut: Bool, _ work: () async throws -> T) async throws(StorageFailure) -> T {
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

    /// A write refused because the session is read-only (SQLSTATE 25006).
    static func isReadOnlySession(_ error: any Error) -> Bool {
        let error = (error as? BeginFailed)?.underlying ?? error
        return (error as? PSQLError)?.serverInfo?[.sqlState] == "25006"
    }

    /// A connection the server or the network ended before the statement ran.
    static func isCutConnection(_ error: any Error) -> Bool {
        let error = (error as? BeginFailed)?.underlying ?? error
        if error is ConnectionClosed || error is StatementTimedOut { return true }
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

/// The statement a leased connection waits on, so that its deadline or the caller's cancellation
/// ends the wait even when the connection's own answer never comes: PostgresNIO drops a query
/// written after its channel closed, and that query's promise is never completed (the stalled
/// test runs of docs/RELIABILITY.md waited on one for good).
final class StatementWaits: Sendable {
    private struct State {
        var current: EventLoopPromise<PostgresQueryResult>?
        var cancelled = false
    }

    private let connection: PostgresConnection
    private let state = Mutex(State())

    init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// Sends `query` and waits, on this thread, for its answer, at most `PostgresStore.statementTimeout`:
    /// past it, or once the caller is cancelled, the wait fails and the connection is closed. A
    /// connection already closed fails at once as cut (`ConnectionClosed`), so a transaction that
    /// never began runs again on another.
    func run(_ query: PostgresQuery, logger: Logger) throws -> PostgresQueryResult {
        guard !connection.isClosed else { throw PostgresStore.ConnectionClosed() }
        let promise = connection.eventLoop.makePromise(of: PostgresQueryResult.self)
        let cancelled = state.withLock { state in
            state.current = promise
            return state.cancelled
        }
        defer { state.withLock { $0.current = nil } }
        guard !cancelled else {
            promise.fail(CancellationError())
            throw CancellationError()
        }
        connection.send(
            query, answering: promise, within: PostgresStore.statementTimeout, failing: PostgresStore.StatementTimedOut(), logger: logger)
        return try promise.futureResult.wait()
    }

    /// The caller was cancelled: the statement waited on fails now, as does every later one, and
    /// the connection is closed (the server rolls back what was not committed).
    func cancel() {
        let current = state.withLock { state in
            state.cancelled = true
            return state.current
        }
        current?.fail(CancellationError())
        connection.close().whenComplete { _ in }
    }
}

extension PostgresConnection {
    /// Sends `query`, its answer completing `promise`; when none has come within `within`, fails
    /// `promise` with `timedOut` and closes the connection. PostgresNIO drops a query written after its
    /// channel closed and never completes its future, and a server that froze never answers: the
    /// deadline is what ends such a wait, for the store's statements (`StatementWaits`) and the poller
    /// lease's alike.
    func send<Failure: Error & Sendable>(
        _ query: PostgresQuery, answering promise: EventLoopPromise<PostgresQueryResult>, within: TimeAmount, failing timedOut: Failure,
        logger: Logger
    ) {
        let deadline = eventLoop.scheduleTask(in: within) { [self] in
            promise.fail(timedOut)
            close().whenComplete { _ in }
        }
        promise.futureResult.whenComplete { _ in deadline.cancel() }
        self.query(query, logger: logger).cascade(to: promise)
    }
}

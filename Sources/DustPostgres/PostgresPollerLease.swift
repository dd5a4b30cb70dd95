import DustConfig
import DustKit
import DustServices
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// The poller's lease on PostgreSQL (docs/REFERENCE.md §20): a session-level advisory lock,
/// `pg_try_advisory_lock(PostgresPollerLease.lockKey)`, held by a connection of its own (never one of
/// the store's pool, whose sessions come and go). The lock lasts as long as that session: a poller
/// killed, or cut off from the server, loses its session and the server frees the lock for another
/// dustd. A lost connection is reopened at the next try.
public final class PostgresPollerLease: PollerLease {
    /// The advisory lock's key, the same for every FineDust database: the bytes of `FineDust` read as a
    /// big-endian 64-bit integer (0x46696E6544757374, 5073707836428874612). Another application on the same database must
    /// not use this key for its own advisory locks.
    public static let lockKey: Int64 = 0x4669_6E65_4475_7374

    private struct State {
        var connection: PostgresConnection?
        var held = false
        var nextID = 1
    }

    private let location: PostgresLocation
    private let password: String
    private let logger: Logger
    private let checkEvery: Duration
    private let answerWithin: Duration
    private let state = Mutex(State())

    /// - Parameter password: from `storage.passwordFile` or the `postgres-password` credential; empty
    ///   when the server asks for none. Never in any message.
    /// - Parameter checkEvery: how often a held session is asked whether it is still there: a server or
    ///   network that stopped answering without closing the connection ends the lease too.
    /// - Parameter answerWithin: how long it may take to answer before the connection is given up.
    public init(
        location: PostgresLocation, password: String, logger: Logger = Logger(label: "dustd.poller-lease"),
        checkEvery: Duration = .seconds(30), answerWithin: Duration = .seconds(10)
    ) {
        self.location = location
        self.password = password
        self.logger = logger
        self.checkEvery = checkEvery
        self.answerWithin = answerWithin
    }

    deinit {
        // A lease dropped without `release()` still ends its session; the connection lives until it is closed.
        if let connection = state.withLock({ $0.connection }), !connection.isClosed {
            connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
        }
    }

    /// Tries once, without waiting: true when this session holds the lock (also when it already did),
    /// false when another session does. Opens the connection when there is none or it was lost.
    public func acquire() async throws(StorageFailure) -> Bool {
        let (open, held) = state.withLock { state in
            if state.connection?.isClosed == true {
                state.connection = nil
                state.held = false
            }
            return (state.connection, state.held)
        }
        if let open, held, !open.isClosed { return true }
        let connection: PostgresConnection
        if let open { connection = open } else { connection = try await connect() }
        do {
            var locked = false
            let rows = try await ask(connection, "SELECT pg_try_advisory_lock(\(Self.lockKey))", within: answerWithin)
            for row in rows { locked = try row.decode(Bool.self) }
            state.withLock { $0.held = locked }
            return locked
        } catch {
            state.withLock { state in
                state.connection = nil
                state.held = false
            }
            try? await connection.close()
            throw failure("could not ask it who polls AirKorea", error)
        }
    }

    /// Returns when the session holding the lock ends (the connection closed: the server stopped or
    /// ended the session, the network failed), at once when no lock is held, and when cancelled.
    public func lost() async {
        guard let connection = state.withLock({ $0.held ? $0.connection : nil }), !connection.isClosed else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await Self.closed(connection) }
            group.addTask { [self] in await watch(connection) }
            await group.next()
            group.cancelAll()
        }
        if connection.isClosed {
            state.withLock { state in
                if state.connection === connection {
                    state.connection = nil
                    state.held = false
                }
            }
        }
    }

    /// Returns when `connection` is closed, or when cancelled.
    private static func closed(_ connection: PostgresConnection) async {
        await ResumeOnce.untilDone { done in connection.closeFuture.whenComplete { _ in done() } }
    }

    /// Asks the session every `checkEvery` whether it is there; closes the connection when it does not
    /// answer within `answerWithin` (a server that froze, a network that dropped without a word, where
    /// the server frees the lock once its keepalives give up). Returns then, or when cancelled.
    private func watch(_ connection: PostgresConnection) async {
        while !connection.isClosed {
            do { try await Task.sleep(for: checkEvery) } catch { return }
            do {
                _ = try await ask(connection, "SELECT 1", within: answerWithin)
            } catch is StatementTimedOut {
                logger.warning("PostgreSQL at \(location) did not answer within \(answerWithin); this dustd gives up the right to poll")
                return
            } catch {
                // The connection failed (closed as it ends), or the watch was cancelled.
                if !(error is CancellationError) { try? await connection.close() }
                return
            }
        }
    }

    /// Gives the lock up and ends the session: another dustd takes it at its next try.
    public func release() async {
        let (connection, held) = state.withLock { state in
            defer {
                state.connection = nil
                state.held = false
            }
            return (state.connection, state.held)
        }
        guard let connection else { return }
        // Unlocked before the connection closes: the server frees a closed session's locks only once
        // it notices, and the next dustd should not find the lock still taken.
        if held, !connection.isClosed {
            _ = try? await ask(connection, "SELECT pg_advisory_unlock(\(Self.lockKey))", within: Self.releaseWithin)
        }
        try? await connection.close()
    }

    /// How long a stopping dustd waits for the server to take the lock back: a server that does not
    /// answer frees it when the session ends, and the stop must end well inside systemd's 10 s.
    static let releaseWithin: Duration = .seconds(2)

    /// No answer within the time given; the connection was closed.
    struct StatementTimedOut: Error, CustomStringConvertible {
        var within: Duration
        var description: String { "no answer within \(within.components.seconds) s" }
    }

    /// The connection had closed before the statement could be sent.
    struct ConnectionClosed: Error, CustomStringConvertible {
        var description: String { "the connection had closed" }
    }

    /// Sends `query` and waits at most `within` for its answer: past it the connection is closed (a
    /// server that froze, a network gone without a word: the server frees the lock once its
    /// keepalives give up) and the wait fails; cancelled (dustd stopping), the wait fails at once and
    /// the connection is left to `release()`. PostgresNIO's own `query` awaits a future that no
    /// cancellation ends, and the deadline (`PostgresConnection.send`, which the store's statements use
    /// too) is what ends a wait on a server that froze, so a stop could otherwise wait for a vanished
    /// server until systemd killed dustd.
    private func ask(_ connection: PostgresConnection, _ query: PostgresQuery, within: Duration) async throws -> PostgresQueryResult {
        guard !connection.isClosed else { throw ConnectionClosed() }
        let promise = connection.eventLoop.makePromise(of: PostgresQueryResult.self)
        connection.send(query, answering: promise, within: TimeAmount(within), failing: StatementTimedOut(within: within), logger: logger)
        return try await withTaskCancellationHandler {
            try await promise.futureResult.get()
        } onCancel: {
            promise.fail(CancellationError())
        }
    }

    private func connect() async throws(StorageFailure) -> PostgresConnection {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: try configuration(), id: id, logger: logger)
        } catch let failure as StorageFailure {
            throw failure
        } catch {
            throw failure("could not connect", error)
        }
        // The lease's session idles by design between its checks: a DBA's `idle_session_timeout` (or
        // one for idle transactions) under 30 s would end it after each take, and dustd would give up
        // polling and take it again, with a poll, every 30 s. This session opts out (a server before
        // PostgreSQL 14 has no such setting, and says so; nothing else is asked).
        for setting in ["idle_session_timeout = 0", "idle_in_transaction_session_timeout = 0"] {
            _ = try? await ask(connection, PostgresQuery(unsafeSQL: "SET \(setting)"), within: answerWithin)
        }
        // Over TCP the server is told to notice a vanished dustd within about a minute (its own
        // default is two hours), so the lock of a poller whose machine or network went away is freed.
        if case .tcp = location.endpoint {
            for setting in ["tcp_keepalives_idle = 30", "tcp_keepalives_interval = 10", "tcp_keepalives_count = 3"] {
                _ = try? await ask(connection, PostgresQuery(unsafeSQL: "SET \(setting)"), within: answerWithin)
            }
        }
        state.withLock { $0.connection = connection }
        return connection
    }

    /// The connection's settings: the store's (`PostgresStore.connectionConfiguration`), so the lease
    /// reaches the database exactly as the store does.
    private func configuration() throws(StorageFailure) -> PostgresConnection.Configuration {
        do {
            return try PostgresStore.connectionConfiguration(location, password: password)
        } catch {
            throw failure("could not set up TLS (sslmode=\(location.tls.rawValue))", error)
        }
    }

    /// A storage failure naming the database, what failed and the server's reason; never the password.
    private func failure(_ what: String, _ error: any Error) -> StorageFailure {
        var reason: String
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                reason = message + (error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? "")
            } else if let underlying = error.underlying {
                reason = "\(underlying)"
            } else {
                reason = "\(error.code)"
            }
        } else {
            reason = "\(error)"
        }
        reason = location.withholding(password, in: reason, as: "(password)")
        return StorageFailure(
            kind: .io,
            description:
                "PostgreSQL at \(location) \(what): \(TerminalSafeText.shown(reason, characters: 300)). Check that the server runs and "
                + "that storage.url and the password are right; dustd keeps trying.")
    }
}

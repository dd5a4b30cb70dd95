import DustConfig
import DustDaemon
import DustKit
import DustPostgres
import DustServices
import DustStore
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycleTestKit
import Synchronization
import TestSupport
import Testing

/// The tests' throwaway server (`PostgresServer`, run for this test process) and one database of
/// its own for this suite, whose tests run one at a time: advisory locks belong to a database.
private enum TestServer {
    static var configured: Bool { PostgresServer.isAvailable }

    private static let server = Task<(PostgresServer, String)?, Never> {
        guard let server = try? await PostgresServer.running(), let database = try? await server.createDatabase() else { return nil }
        return (server, database)
    }

    static func location() async -> PostgresLocation {
        guard let (server, database) = await server.value else {
            return PostgresLocation(endpoint: .unixSocket(directory: "/nonexistent", port: 5432), user: "none", database: "none")
        }
        return server.location(database: database)
    }

    static func password() async -> String { await server.value?.0.password ?? "" }

    static func lease() async -> PostgresPollerLease { PostgresPollerLease(location: await location(), password: await password()) }

    /// Runs `body` on a connection of its own, as another client of the server would.
    static func withConnection<Result>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        let location = await location()
        let password = await password()
        guard case .unixSocket(let directory, let port) = location.endpoint else { fatalError("a socket") }
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                unixSocketPath: "\(directory)/.s.PGSQL.\(port)", username: location.user, password: password.isEmpty ? nil : password,
                database: location.database),
            id: 99, logger: Logger(label: "test"))
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }
}

extension TestServer {
    /// Ends the session holding the poller's lock as the server ends a killed client's, and returns once
    /// its process has exited (its locks released): one `true` per session ended.
    static func endHoldersSession() async throws -> [Bool] {
        try await withConnection { connection in
            let rows = try await connection.query(
                """
                SELECT pg_terminate_backend(pid, 10000) FROM pg_locks
                WHERE locktype = 'advisory' AND granted
                  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                  AND ((classid::bigint << 32) | objid::bigint) = \(PostgresPollerLease.lockKey)
                """, logger: Logger(label: "test"))
            var ended: [Bool] = []
            for try await value in rows.decode(Bool.self) { ended.append(value) }
            return ended
        }
    }
}

/// Waits for `operation`, failing the test (not hanging the suite) when it takes longer than `seconds`.
private func within(_ seconds: Int, _ operation: @escaping @Sendable () async -> Void) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            await operation()
            return true
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return false
        }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
    }
}

@Suite("PostgresPollerLease: a session-level advisory lock (docs/REFERENCE.md §20)", .serialized, .timeLimit(.minutes(10)))
struct PostgresPollerLeaseTests {
    @Test(
        "One lease holds the lock, the other cannot; the holder's session ends, lost() returns and the other takes it",
        .enabled(
            if: TestServer.configured,
            Comment(rawValue: PostgresServer.unavailableReason)))
    func oneHoldsThenTakeover() async throws {
        let first = await TestServer.lease()
        let second = await TestServer.lease()
        #expect(!first.alwaysHeld)
        #expect(try await first.acquire())
        #expect(try await first.acquire(), "the holder asking again still holds it")
        #expect(try await !second.acquire())
        #expect(try await !second.acquire())
        // The server ends the holder's session, as when the poller is killed or cut off, and returns once
        // the session's process has exited (its locks released).
        let holder = Task { await first.lost() }
        let terminated = try await TestServer.endHoldersSession()
        #expect(terminated == [true], "exactly one session held the key")
        #expect(await within(10) { await holder.value }, "lost() returns once the session ended")
        #expect(try await second.acquire())
        // The first reconnects at its next try and finds the lock taken.
        #expect(try await !first.acquire())
        // Released, the lock is the first's again.
        await second.release()
        #expect(try await first.acquire())
        #expect(try await !second.acquire())
        await first.release()
        await second.release()
    }

    @Test(
        "A DBA's idle_session_timeout of one second does not end the lease's session: held after four seconds idle",
        .enabled(
            if: TestServer.configured,
            Comment(rawValue: PostgresServer.unavailableReason)))
    func idleSessionTimeout() async throws {
        let database = await TestServer.location().database
        func set(_ clause: String) async throws {
            try await TestServer.withConnection { connection in
                _ = try await connection.query(
                    PostgresQuery(unsafeSQL: "ALTER DATABASE \"\(database)\" \(clause)"), logger: Logger(label: "test"))
            }
        }
        try await set("SET idle_session_timeout = '1s'")
        let lease = await TestServer.lease()
        let acquired: Bool
        do {
            acquired = try await lease.acquire()
        } catch {
            // The suite's database is shared by its tests: never left with the timeout.
            try await set("RESET idle_session_timeout")
            throw error
        }
        #expect(acquired)
        let lost = await within(4) { await lease.lost() }
        try await set("RESET idle_session_timeout")
        #expect(!lost, "the server ended the lease's session while it idled")
        #expect(try await lease.acquire())
        await lease.release()
    }

    @Test(
        "lost() returns at once without the lock, and when its waiter is cancelled",
        .enabled(
            if: TestServer.configured,
            Comment(rawValue: PostgresServer.unavailableReason)))
    func lostWithoutLock() async throws {
        let lease = await TestServer.lease()
        #expect(await within(10) { await lease.lost() })
        #expect(try await lease.acquire())
        let waiting = Task { await lease.lost() }
        waiting.cancel()
        #expect(await within(10) { await waiting.value })
        // Still held: cancelling a waiter ends no session.
        #expect(try await lease.acquire())
        let other = await TestServer.lease()
        #expect(try await !other.acquire())
        await lease.release()
        await other.release()
    }

    @Test(
        "A session that stops answering without closing ends the lease: the check gives the connection up",
        .enabled(
            if: TestServer.configured,
            Comment(rawValue: PostgresServer.unavailableReason)))
    func silentSessionEndsTheLease() async throws {
        let lease = PostgresPollerLease(
            location: await TestServer.location(), password: await TestServer.password(), checkEvery: .milliseconds(100),
            answerWithin: .milliseconds(500))
        #expect(try await lease.acquire())
        let backend = try #require(try await Self.backends().first)
        // The session's server process frozen, as a server or a network that stops answering.
        try #require(kill(pid_t(backend), SIGSTOP) == 0, "the test runs where it may signal the server's processes")
        let gaveUp = await within(10) { await lease.lost() }
        kill(pid_t(backend), SIGCONT)
        #expect(gaveUp, "lost() returns once the session did not answer within 500 ms")
        // Thawed, the process finds its client gone and ends; the lock is free again.
        _ = try await TestServer.endHoldersSession()
        let next = await TestServer.lease()
        #expect(try await next.acquire())
        await next.release()
        await lease.release()
    }

    @Test(
        "A server that stops answering cannot hold up a stop: release gives up within its bound, and a cancelled try ends at once",
        .enabled(
            if: TestServer.configured,
            Comment(rawValue: PostgresServer.unavailableReason)))
    func frozenServerStops() async throws {
        let lease = PostgresPollerLease(
            location: await TestServer.location(), password: await TestServer.password(), answerWithin: .seconds(60))
        #expect(try await lease.acquire())
        let holders = try await Self.backends()
        let holder = try #require(holders.first)
        try #require(kill(pid_t(holder), SIGSTOP) == 0, "the test runs where it may signal the server's processes")
        // Were a wait not to end, the thaw would end it 20 s on: the test fails, it does not hang.
        let frozen = Mutex<[Int32]>([holder])
        let thaw = Task {
            try? await Task.sleep(for: .seconds(20))
            for pid in frozen.withLock({ $0 }) { kill(pid_t(pid), SIGCONT) }
        }
        defer { thaw.cancel() }
        // The unlock goes unanswered: given up after PostgresPollerLease.releaseWithin, not waited for.
        let released = await within(8) { await lease.release() }
        #expect(released, "release() waited on a server that does not answer")

        // A standby's try, sent on its own session which then freezes, cancelled as a stop cancels it.
        let standby = PostgresPollerLease(
            location: await TestServer.location(), password: await TestServer.password(), answerWithin: .seconds(60))
        #expect(try await !standby.acquire(), "the frozen session still holds the lock")
        // The standby's session: the one whose last statement was its try (the holder's is frozen mid-unlock).
        let own = try #require(try await Self.sessions().first { $0 != holder }, "the standby's session was not found")
        frozen.withLock { $0.append(own) }
        try #require(kill(pid_t(own), SIGSTOP) == 0)
        let trying = Task { try await standby.acquire() }
        try await Task.sleep(for: .milliseconds(300))
        trying.cancel()
        let ended = await within(5) { _ = try? await trying.value }
        #expect(ended, "a cancelled acquire() waited on a server that does not answer")
        for pid in [holder, own] { kill(pid_t(pid), SIGCONT) }
        await standby.release()
        _ = try await TestServer.endHoldersSession()
        let next = await TestServer.lease()
        #expect(try await next.acquire())
        await next.release()
    }

    /// The server processes of the sessions holding the poller's lock.
    private static func backends() async throws -> [Int32] {
        try await pids(
            """
            SELECT pid FROM pg_locks
            WHERE locktype = 'advisory' AND granted
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND ((classid::bigint << 32) | objid::bigint) = \(PostgresPollerLease.lockKey)
            """)
    }

    /// The server processes of the test database's other sessions whose last statement was a try for the lock,
    /// the newest first.
    private static func sessions() async throws -> [Int32] {
        try await pids(
            """
            SELECT pid FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
              AND query LIKE 'SELECT pg_try_advisory_lock%'
            ORDER BY backend_start DESC
            """)
    }

    /// The server processes `query` names, asked on a connection of the test's own.
    private static func pids(_ query: PostgresQuery) async throws -> [Int32] {
        try await TestServer.withConnection { connection in
            let rows = try await connection.query(query, logger: Logger(label: "test"))
            var pids: [Int32] = []
            for try await pid in rows.decode(Int32.self) { pids.append(pid) }
            return pids
        }
    }

    @Test(
        "A wrong password: a storage failure with the server's reason, never the password",
        .enabled(
            if: TestServer.configured,
            Comment(rawValue: PostgresServer.unavailableReason)))
    func wrongPassword() async throws {
        let lease = PostgresPollerLease(location: await TestServer.location(), password: "wrong-\(await TestServer.password())-wrong")
        do {
            _ = try await lease.acquire()
            Issue.record("acquired with a wrong password")
        } catch {
            #expect(error.kind == .io)
            #expect(error.description.contains("could not connect: password authentication failed for user"), "\(error)")
            #expect(!error.description.contains("wrong-"))
        }
    }

    @Test("No server at the address: a storage failure naming the database, never the password, never the network")
    func noServer() async throws {
        let location = PostgresLocation(
            endpoint: .unixSocket(directory: "/nonexistent/finedust-no-server", port: 5432), user: "dust", database: "dust")
        let lease = PostgresPollerLease(location: location, password: "s3cret-Password")
        do {
            _ = try await lease.acquire()
            Issue.record("acquired without a server")
        } catch {
            #expect(error.kind == .io)
            #expect(error.description.hasPrefix("PostgreSQL at dust@/nonexistent/finedust-no-server:5432/dust could not connect: "))
            #expect(
                error.description.hasSuffix(
                    "Check that the server runs and that storage.url and the password are right; dustd keeps trying."))
            #expect(!error.description.contains("s3cret"))
            #expect(!error.description.lowercased().contains("network"))
        }
        #expect(await within(10) { await lease.lost() }, "no lock held: lost() returns at once")
    }

    @Test(
        "Two dustd's poller roles on one server: one runs the poll services; the server ends its session, the other runs them at its next try",
        .enabled(
            if: TestServer.configured,
            Comment(rawValue: PostgresServer.unavailableReason)))
    func rolesTakeOver() async throws {
        let clock = ManualClock(DemoReplay.now)
        let probes = Probes()
        let store = SQLiteStore.scratch()
        func role(_ host: String, _ lease: PostgresPollerLease, retry: TimeInterval) async -> PollerRole {
            let logger = LogCapture().logger()
            let board = await DaemonStatusBoard(
                DaemonStatus(
                    state: .starting, mode: .daemon, pid: 1, version: "test", station: "종로구", startedAt: clock.now,
                    heartbeatSeconds: 600, host: host),
                database: DaemonDatabase(store, logger: logger), clock: clock, logger: logger, publishing: false)
            return PollerRole(
                lease: lease, board: board, clock: clock, logger: logger, host: host, pid: 1, retrySeconds: { retry },
                services: { [ProbeService(name: "\(host)/poll", probes: probes, clock: clock)] }, stop: DaemonStop())
        }
        let (first, second) = (await TestServer.lease(), await TestServer.lease())
        let a = await role("dust-a", first, retry: 45)
        let b = await role("dust-b", second, retry: 30)
        try await testGracefulShutdown { trigger in
            let polling = Task { try await a.run() }
            #expect(await clock.waitUntilSleeping(0) { probes.running == ["dust-a/poll"] })
            let waiting = Task { try await b.run() }
            #expect(try await clock.waitUntilSleeping(1))
            #expect(try await TestServer.endHoldersSession() == [true])
            // a sees its connection closed and stops polling; b, at its next try, polls.
            #expect(await clock.waitUntilSleeping(2) { probes.running.isEmpty })
            clock.advanceToNextDeadline()
            #expect(await clock.waitUntilSleeping(1) { probes.running == ["dust-b/poll"] })
            #expect(try await store.loadStatus()?.host == "dust-b")
            trigger.triggerGracefulShutdown()
            try await polling.value
            try await waiting.value
        }
        // Both gave their sessions up: a new lease takes the lock at once.
        let next = await TestServer.lease()
        #expect(try await next.acquire())
        await next.release()
    }
}

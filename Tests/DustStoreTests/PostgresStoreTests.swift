import AirKorea
import DustConfig
import DustKit
import DustServices
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import DustPostgres

private let eight = Slot(startEpochSeconds: 1_795_129_200)  // 2026-11-20 08:00 KST
private let fetched = Date(timeIntervalSince1970: 1_795_219_200)

private func reading(_ slot: Slot, pm10: Double) -> HourlyReading {
    HourlyReading(station: "종로구", slot: slot, concentration: DustPair(fineDust: pm10, ultraFineDust: nil), sidoName: "서울")
}

/// What only a server can get wrong (docs/REFERENCE.md §20): its schema's versions, its logins and
/// privileges, its restarts; the store's other rules are StoreContractTests' on every backend.
@Suite(
    "PostgresStore: schema versions, logins, privileges, restarts",
    .enabled(if: PostgresServer.isAvailable, Comment(rawValue: PostgresServer.unavailableReason)), .timeLimit(.minutes(10)))
struct PostgresStoreTests {
    /// A store on a new database of the shared server.
    private func fresh() async throws -> (PostgresServer, PostgresLocation, PostgresStore) {
        let server = try await PostgresServer.running()
        let location = server.location(database: try await server.createDatabase())
        return (server, location, try await PostgresStore.running(location, password: server.password))
    }

    private func failure(_ open: () async throws(StorageFailure) -> PostgresStore) async -> StorageFailure? {
        do {
            let store = try await open()
            await store.close()
            return nil
        } catch {
            return error
        }
    }

    @Test("A database holding a migration this version does not know is refused, naming the database and never the password")
    func schemaTooNew() async throws {
        let (server, location, store) = try await fresh()
        await store.close()
        try await server.execute("INSERT INTO finedust_migration (name, applied_at) VALUES ('v99-future', 0)", database: location.database)
        for mode in [PostgresStore.Mode.readWrite, .readOnly] {
            let refused = try #require(
                await failure { () async throws(StorageFailure) in
                    try await PostgresStore.running(location, password: server.password, mode: mode)
                })
            #expect(refused.kind == .schemaTooNew)
            #expect(refused.description == "The database \(location) was written by a newer FineDust; upgrade dustd and dustctl.")
            #expect(!refused.description.contains(server.password))
            #expect(ExitStatus(refused) == .dataError)
        }
    }

    @Test("Opening twice migrates once: the names applied are v1…v21, each once, and what was stored stays")
    func migrationsIdempotent() async throws {
        let (server, location, store) = try await fresh()
        #expect(try await store.saveReadings([reading(eight, pm10: 41)], fetchedAt: fetched) == UpsertSummary(inserted: 1))
        await store.close()
        let again = try await PostgresStore.open(location, password: server.password, leaseTimeout: PostgresStore.testLeaseTimeout)
        try await again.serving { again throws in
            #expect(try await again.readingCount(station: nil) == 1)
            let names = try await server.execute(
                "SELECT name FROM finedust_migration ORDER BY applied_at, name", database: location.database)
            #expect(names.split(separator: "\n").count == 21)
            #expect(
                Set(names.split(separator: "\n")).isSuperset(of: [
                    "v1", "v6-activity-sources", "v11-people", "v12-positions", "v13-slot-places",
                ]))
        }
    }

    @Test("Two stores opening a new database at once: one migrates, the other waits and finds it done")
    func concurrentOpens() async throws {
        let server = try await PostgresServer.running()
        let location = server.location(database: try await server.createDatabase())
        async let first = PostgresStore.running(location, password: server.password)
        async let second = PostgresStore.running(location, password: server.password)
        let stores = try await [first, second]
        _ = try await stores[0].saveReadings([reading(eight, pm10: 41)], fetchedAt: fetched)
        #expect(try await stores[1].readingCount(station: "종로구") == 1)
        for store in stores { await store.close() }
        #expect(try await server.execute("SELECT count(*) FROM finedust_migration", database: location.database) == "21")
    }

    @Test("A wrong password is denied (exit 78), in a sentence that names the role and never either password")
    func wrongPassword() async throws {
        let server = try await PostgresServer.running()
        let location = server.location(database: try await server.createDatabase())
        let wrong = "wrong-" + UUID().uuidString
        let refused = try #require(
            await failure { () async throws(StorageFailure) in try await PostgresStore.running(location, password: wrong) })
        #expect(refused.kind == .denied)
        #expect(refused.description.hasPrefix("The PostgreSQL server refused the login of role finedust_test to \(location) ("))
        #expect(refused.description.contains("storage.passwordFile"))
        #expect(!refused.description.contains(wrong) && !refused.description.contains(server.password))
        #expect(ExitStatus(refused) == .configuration)
    }

    @Test("No server behind the socket is unreachable (exit 74), never a network failure, and the password is not in the sentence")
    func unreachable() async throws {
        let directory = try TemporaryDirectory("finedust-no-server")
        defer { directory.remove() }
        let location = PostgresLocation(
            endpoint: .unixSocket(directory: directory.url.path, port: 5432), user: "dust", database: "dust", tls: .disable)
        let refused = try #require(
            await failure { () async throws(StorageFailure) in try await PostgresStore.running(location, password: "secret-pw") })
        #expect(refused.kind == .unreachable)
        #expect(PollFailure.storage(refused).kind == .storage)
        #expect(refused.description.hasPrefix("Cannot reach the PostgreSQL server of dust@\(directory.url.path):5432/dust"))
        #expect(!refused.description.contains("secret-pw"))
        #expect(ExitStatus(refused) == .ioError)
    }

    @Test("Upgrading to v13 grants the kept places to the roles granted the positions: a reader of a v12 database still reads")
    func placesGrantedOnUpgrade() async throws {
        let (server, location, store) = try await fresh()
        await store.close()
        // The database as FineDust v12 left it, with a reading role an operator set up then.
        let role = "reader_" + UUID().uuidString.prefix(8).lowercased()
        let password = UUID().uuidString
        try await server.execute(
            """
            DROP TABLE slot_place, place_generation; DELETE FROM finedust_migration WHERE name = 'v13-slot-places';
            CREATE ROLE \(role) LOGIN PASSWORD '\(password)'; GRANT SELECT ON ALL TABLES IN SCHEMA public TO \(role)
            """, database: location.database)
        let upgraded = try await PostgresStore.running(location, password: server.password)
        await upgraded.close()
        let reader = try await PostgresStore.open(
            server.location(database: location.database, user: role), password: password, mode: .readOnly,
            leaseTimeout: PostgresStore.testLeaseTimeout)
        try await reader.serving { reader throws in
            #expect(try await reader.placeGeneration() == 0)
            #expect(try await reader.slotPlaces(person: "dad", inputs: "v1", from: eight, to: eight.advanced(by: 1)).isEmpty)
            #expect(
                try await server.execute(
                    "SELECT privilege_type FROM information_schema.role_table_grants WHERE grantee = '\(role)' AND table_name = 'slot_place'",
                    database: location.database) == "SELECT")
        }
    }

    @Test("A read-only role reads; its write is denied, and a read-write open by it says which grant it lacks")
    func readOnlyRole() async throws {
        let (server, location, store) = try await fresh()
        _ = try await store.saveReadings([reading(eight, pm10: 41)], fetchedAt: fetched)
        await store.close()
        let role = "reader_" + UUID().uuidString.prefix(8).lowercased()
        let password = UUID().uuidString
        try await server.execute(
            "CREATE ROLE \(role) LOGIN PASSWORD '\(password)'; GRANT SELECT ON ALL TABLES IN SCHEMA public TO \(role)",
            database: location.database)
        let readerLocation = server.location(database: location.database, user: role)
        let reader = try await PostgresStore.running(readerLocation, password: password, mode: .readOnly)
        #expect(try await reader.readingCount(station: "종로구") == 1)
        #expect(try await reader.readings(stations: ["종로구"], from: eight, to: eight.advanced(by: 1)).map(\.concentration.fineDust) == [41])
        do {
            _ = try await reader.saveReadings([reading(eight.advanced(by: 1), pm10: 30)], fetchedAt: fetched)
            Issue.record("a read-only role wrote")
        } catch {
            #expect(error.kind == .denied)
            #expect(error.description.hasPrefix("The role \(role) lacks a privilege on the PostgreSQL database \(readerLocation) ("))
            #expect(!error.description.contains(password))
        }
        await reader.close()
        let refused = try #require(
            await failure { () async throws(StorageFailure) in
                try await PostgresStore.running(readerLocation, password: password, mode: .readWrite)
            })
        #expect(refused.kind == .denied)
        #expect(refused.description.contains("GRANT INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO \(role)"))
    }

    @Test("A table dropped or a column renamed by hand: the read fails as a damaged database (unusable, 65), naming what is gone")
    func schemaChangedByHand() async throws {
        let (server, location, store) = try await fresh()
        _ = try await store.saveReadings([reading(eight, pm10: 41)], fetchedAt: fetched)
        for (change, missing) in [
            ("ALTER TABLE measurement RENAME COLUMN pm25 TO fine", "pm25"), ("DROP TABLE measurement", "measurement"),
        ] {
            try await server.execute(change, database: location.database)
            do {
                _ = try await store.readings(stations: ["종로구"], from: eight, to: eight.advanced(by: 1))
                Issue.record("read a table changed by hand: \(change)")
            } catch {
                #expect(error.kind == .unusable, "\(error)")
                #expect(ExitStatus(error) == .dataError)
                #expect(
                    error.description.contains("are not the ones its migrations made (") && error.description.contains(missing), "\(error)")
            }
        }
        await store.close()
    }

    @Test(
        "A row changed by hand (an hour not on the hour, 'Infinity') is a damaged database (65) to every reader, the long reads too; 'NaN' is unknown"
    )
    func rowChangedByHand() async throws {
        let (server, location, store) = try await fresh()
        _ = try await store.saveReadings([reading(eight, pm10: 41), reading(eight.advanced(by: 1), pm10: 30)], fetchedAt: fetched)
        let range = (from: eight, to: eight.advanced(by: 2))
        for (change, column) in [
            ("UPDATE measurement SET pm10 = 'Infinity' WHERE slot_start = \(eight.startEpochSeconds)", "pm10"),
            ("UPDATE measurement SET pm10 = 41, slot_start = slot_start + 60 WHERE slot_start = \(eight.startEpochSeconds)", "slot_start"),
        ] {
            try await server.execute(change, database: location.database)
            do {
                _ = try await store.readings(stations: ["종로구"], from: range.from, to: range.to)
                Issue.record("read a row changed by hand: \(change)")
            } catch {
                #expect(ExitStatus(error) == .dataError && error.description.contains("the column \(column) holds"), "\(error)")
            }
            do {
                _ = try await store.dustValues(stations: ["종로구"], from: range.from, to: range.to)
                Issue.record("the long read took a row changed by hand: \(change)")
            } catch {
                #expect(ExitStatus(error) == .dataError && error.description.contains("the column \(column) holds"), "\(error)")
            }
        }
        try await server.execute(
            "UPDATE measurement SET slot_start = \(eight.startEpochSeconds), pm10 = 'NaN' WHERE slot_start = \(eight.startEpochSeconds + 60)",
            database: location.database)
        #expect(try await store.readings(stations: ["종로구"], from: range.from, to: range.to).map(\.concentration.fineDust) == [nil, 30])
        #expect(try await store.dustValues(stations: ["종로구"], from: range.from, to: range.to).map(\.concentration.fineDust) == [nil, 30])
        await store.close()
    }

    @Test("The role's write check covers every table the migrations make: one missed (indoor_hour) let a role open and fail later")
    func writeCheckCoversEveryTable() async throws {
        let (server, location, store) = try await fresh()
        await store.close()
        let tables = try await server.execute(
            "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'finedust_migration'",
            database: location.database)
        let made = Set(tables.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map(String.init))
        #expect(made.count > 20)
        #expect(Set(PostgresSchema.writtenTables) == made)
    }

    @Test(
        "A read-only spell (default_transaction_read_only set, then reset) ends for the store when it ends: the session that refused is not reused; sessions carry their program's name"
    )
    func readOnlySpellEnds() async throws {
        let (server, location, store) = try await fresh()
        #expect(try await store.saveReadings([reading(eight, pm10: 41)], fetchedAt: fetched) == UpsertSummary(inserted: 1))
        let names = try await server.execute(
            "SELECT string_agg(DISTINCT application_name, ',') FROM pg_stat_activity WHERE datname = '\(location.database)'")
        #expect(names.trimmingCharacters(in: .whitespacesAndNewlines) == String(ProcessInfo.processInfo.processName.prefix(63)))
        let database = "\"\(location.database)\""
        try await server.execute("ALTER DATABASE \(database) SET default_transaction_read_only = on")
        // Sessions begun before the change keep what they began with: new ones, as after a failover.
        try await server.execute(
            "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE datname = '\(location.database)' AND pid <> pg_backend_pid()"
        )
        do {
            _ = try await store.saveReadings([reading(eight.advanced(by: 1), pm10: 30)], fetchedAt: fetched)
            Issue.record("a read-only database took a write")
        } catch {
            #expect(error.description.contains("is read-only here"), "\(error)")
        }
        try await server.execute("ALTER DATABASE \(database) RESET default_transaction_read_only")
        #expect(try await store.saveReadings([reading(eight.advanced(by: 1), pm10: 30)], fetchedAt: fetched) == UpsertSummary(inserted: 1))
        await store.close()
    }

    @Test(
        "A password that is also the role's or the database's name, or a digit of the address, is withheld only where it is not part of them"
    )
    func passwordWithheldAroundNames() {
        let location = PostgresLocation(endpoint: .tcp(host: "127.0.0.1", port: 55439), user: "fdtwo", database: "fdtwo")
        let text = "the PostgreSQL database fdtwo@127.0.0.1:55439/fdtwo refused role fdtwo; the server said: bad password fdtwo-x fdtwo"
        // The password is the role's name, which every message shows: there is nothing left to hide, and no
        // "(withheld)" beside the role's name to point it out.
        #expect(location.withholding("fdtwo", in: text, as: "(withheld)") == text)
        #expect(location.withholding("wo@1", in: text, as: "(withheld)") == text)
        #expect(location.withholding("bad pass", in: text, as: "(w)") == text.replacingOccurrences(of: "bad pass", with: "(w)"))
        #expect(location.withholding("1", in: "at 127.0.0.1:55439: got 1", as: "(w)") == "at 127.0.0.1:55439: got (w)")
        #expect(location.withholding("s3cret", in: "said s3cret twice: s3cret", as: "(w)") == "said (w) twice: (w)")
        #expect(location.withholding("", in: "nothing", as: "(w)") == "nothing")
    }

    @Test("After the server restarts, the next call succeeds on a new connection and nothing stored is lost")
    func serverRestart() async throws {
        // A server of its own: a restart would cut every other test's connections.
        let server = try await PostgresServer.start()
        defer { server.stop() }
        let location = server.location(database: try await server.createDatabase())
        let store = try await PostgresStore.running(location, password: server.password)
        #expect(try await store.saveReadings([reading(eight, pm10: 41)], fetchedAt: fetched) == UpsertSummary(inserted: 1))
        #expect(try await store.readingCount(station: nil) == 1)
        try await server.restart()
        #expect(try await store.saveReadings([reading(eight.advanced(by: 1), pm10: 30)], fetchedAt: fetched) == UpsertSummary(inserted: 1))
        #expect(
            try await store.readings(stations: ["종로구"], from: eight, to: eight.advanced(by: 2)).map(\.concentration.fineDust) == [41, 30])
        try await server.restart()
        #expect(try await store.readingCount(station: nil) == 2)
        await store.close()
    }

    @Test("A server stopped under an open store: the next call fails as unreachable within the lease timeout, not the pool's minute")
    func serverStopped() async throws {
        let server = try await PostgresServer.start()
        let location = server.location(database: try await server.createDatabase())
        let store = try await PostgresStore.running(location, password: server.password, leaseTimeout: PostgresStore.defaultLeaseTimeout)
        #expect(try await store.readingCount(station: nil) == 0)
        await server.stopped()
        let started = ContinuousClock.now
        do {
            _ = try await store.saveReadings([reading(eight, pm10: 41)], fetchedAt: fetched)
            Issue.record("a write reached a stopped server")
        } catch {
            #expect(error.kind == .unreachable)
            #expect(
                error.description.hasPrefix(
                    "Cannot reach the PostgreSQL database \(location): no connection to the server within 10 seconds;"))
            #expect(!error.description.contains(server.password))
        }
        // The pool alone would wait its minute of retries (and more on a loaded machine).
        #expect(ContinuousClock.now - started < .seconds(55))
        await store.close()
    }

    @Test("A call cancelled while its statement gets no answer returns at once, as dustd stopping needs, and the store goes on")
    func cancelledWhileRunning() async throws {
        let (server, location, store) = try await fresh()
        #expect(try await store.readingCount(station: nil) == 0)
        // The pool's one connection, its server process frozen: a statement sent to it gets no answer.
        let backends = try await server.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = '\(location.database)' AND pid <> pg_backend_pid()")
        let pids = backends.split(separator: "\n").compactMap { pid_t($0) }
        try #require(!pids.isEmpty, "the store keeps its connection open")
        for pid in pids { try #require(kill(pid, SIGSTOP) == 0, "the test runs where it may signal the server's processes") }
        defer { for pid in pids { kill(pid, SIGCONT) } }
        // Were cancelling not to end the call, the thaw would, 10 s on: the test fails, it does not hang.
        let thaw = Task {
            try? await Task.sleep(for: .seconds(10))
            for pid in pids { kill(pid, SIGCONT) }
        }
        defer { thaw.cancel() }
        let call = Task { try await store.readingCount(station: nil) }
        try await Task.sleep(for: .milliseconds(500))
        let cancelled = ContinuousClock.now
        call.cancel()
        let result = await call.result
        #expect(ContinuousClock.now - cancelled < .seconds(5), "the call returned when cancelled, not when answered")
        guard case .failure(let error) = result, let failure = error as? StorageFailure else {
            Issue.record("the frozen statement answered: \(result)")
            return
        }
        #expect(
            failure.description == "Reading or writing the PostgreSQL database \(location) was stopped before it finished: "
                + "dustd is stopping, or this dustd no longer polls. What was not committed is not stored.")
        // Thawed, the server answers again; the store's next call is answered.
        for pid in pids { kill(pid, SIGCONT) }
        #expect(try await store.saveReadings([reading(eight, pm10: 41)], fetchedAt: fetched) == UpsertSummary(inserted: 1))
        #expect(try await store.readingCount(station: nil) == 1)
        await store.close()
    }

    @Test(
        "A poll stopped while its hours are stored is a stop, recorded as one: the write is rolled back, not called a storage failure"
    )
    func pollStoppedWhileStoring() async throws {
        let (_, _, store) = try await fresh()
        let source = AnsweredAfterStop()
        let task = Task {
            await PollCycle(source: source, store: store, clock: FixedClock(Date(timeIntervalSince1970: 1_795_191_600)))
                .run(stations: StationPreference(primary: "종로구"), includeNation: false)
        }
        // Stopped once the request is under way (a suite under load took longer than 200 ms to get there).
        for _ in 0..<6000 where !source.asked.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(10)) }
        let asked = source.asked.load(ordering: .acquiring)
        #expect(asked, "the poll never asked AirKorea")
        task.cancel()
        let report = await task.value
        #expect(report.stopped)
        #expect(report.failure == nil, "\(String(describing: report.failure))")
        #expect(try await store.recentAttempts(limit: 10).map(\.outcome) == [.stopped])
        #expect(try await store.readingCount(station: nil) == 0)
        await store.close()
    }

    @Test("sslmode on TCP: prefer and require talk TLS without verifying; verify-ca and verify-full refuse a self-signed certificate")
    func tls() async throws {
        let server = try await PostgresServer.start(tcpTLS: true)
        defer { server.stop() }
        func location(_ mode: PostgresLocation.TLSMode, _ database: String) -> PostgresLocation {
            PostgresLocation(endpoint: .tcp(host: "127.0.0.1", port: server.port), user: server.user, database: database, tls: mode)
        }
        for (mode, encrypted) in [(PostgresLocation.TLSMode.disable, "false"), (.allow, "true"), (.prefer, "true"), (.require, "true")] {
            let database = try await server.createDatabase()
            let store = try await PostgresStore.running(location(mode, database), password: server.password)
            #expect(try await store.readingCount(station: nil) == 0)
            // The pool's connection stays open, idle: the server says whether it is encrypted.
            let sessions = try await server.execute(
                "SELECT bool_and(ssl)::text FROM pg_stat_ssl JOIN pg_stat_activity USING (pid) WHERE datname = '\(database)'")
            #expect(sessions == encrypted, "sslmode=\(mode.rawValue)")
            await store.close()
        }
        let database = try await server.createDatabase()
        for mode in [PostgresLocation.TLSMode.verifyCA, .verifyFull] {
            let refused = try #require(
                await failure { () async throws(StorageFailure) in
                    try await PostgresStore.open(location(mode, database), password: server.password)
                })
            #expect(refused.kind == .unreachable, "sslmode=\(mode.rawValue)")
            #expect(!refused.description.contains(server.password))
            #expect(
                refused.description.hasPrefix(
                    "The PostgreSQL server of \(location(mode, database)) presented a certificate "
                        + "sslmode=\(mode.rawValue) does not accept ("
                ))
        }
    }

    @Test("A server asking for the password in clear text over TCP without TLS is refused at sslmode prefer and allow; disable accepts it")
    func cleartextPassword() async throws {
        let server = try await PostgresServer.start(tcpCleartext: true)
        defer { server.stop() }
        let database = try await server.createDatabase()
        func location(_ mode: PostgresLocation.TLSMode) -> PostgresLocation {
            PostgresLocation(endpoint: .tcp(host: "127.0.0.1", port: server.port), user: server.user, database: database, tls: mode)
        }
        for mode in [PostgresLocation.TLSMode.prefer, .allow] {
            let refused = try #require(
                await failure { () async throws(StorageFailure) in
                    try await PostgresStore.open(location(mode), password: server.password)
                })
            #expect(refused.kind == .denied, "sslmode=\(mode.rawValue)")
            #expect(refused.description.contains("asks for the password in clear text"), "\(refused.description)")
            #expect(!refused.description.contains(server.password))
            // The server saw one login, with an empty password (its log says it failed), and never the real one.
            let log = (try? String(contentsOfFile: server.root + "/server.log", encoding: .utf8)) ?? ""
            #expect(!log.contains(server.password))
        }
        let accepted = try await PostgresStore.running(location(.disable), password: server.password)
        #expect(try await accepted.readingCount(station: nil) == 0)
        await accepted.close()
    }

    @Test("An import that fails at its last row leaves nothing of it: not its walking, not its body records")
    func interruptedImport() async throws {
        let (_, _, store) = try await fresh()
        do {
            let at = Date(timeIntervalSince1970: TimeInterval(eight.startEpochSeconds))
            let walking = ActivitySourceBatch(person: "민지", source: "health:iPhone", distances: [eight: 1200], replacing: eight...eight)
            let body = PhysiologyBatch(
                person: "민지", source: PhysiologyBatch.healthSource,
                heartRate: HeartRateSeries([HeartRateSample(at: at, beatsPerMinute: 72)]),
                // An interval ending before it starts: the server's CHECK refuses it, last of the import.
                sleep: [SleepInterval(start: at.addingTimeInterval(3600), end: at)])
            do {
                try await store.saveImport(walking: [walking], body: [body], positions: [], importedAt: fetched)
                Issue.record("the import was stored")
            } catch {
                #expect(error.kind == .io)
            }
            #expect(try await store.walking(person: "민지", from: eight, to: eight.advanced(by: 1)).isEmpty)
            #expect(try await store.activitySources().isEmpty)
            #expect(try await store.physiologySummaries().isEmpty)
            // The same import without the bad row is stored whole.
            var good = body
            good.sleep = []
            try await store.saveImport(walking: [walking], body: [good], positions: [], importedAt: fetched)
            #expect(try await store.walking(person: "민지", from: eight, to: eight.advanced(by: 1))[eight]?.metres == 1200)
            #expect(try await store.physiologySummaries().map(\.heartRateSamples) == [1])
        }
        await store.close()
    }
}

/// A day of 종로구 (2026-11-20), answered once the asking task is cancelled: a stop that lands while an
/// answer is parsed (the parse runs on a thread of its own and finishes), so its hours reach the store
/// on a cancelled task.
private final class AnsweredAfterStop: MeasurementAPI {
    let asked = Atomic(false)

    func measurements(_ request: AirKoreaRequest) async throws(FetchError) -> FetchedPage {
        asked.store(true, ordering: .releasing)
        while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
        let readings = (1...24).map { hour in reading(Slot(startEpochSeconds: 1_795_100_400 + 3600 * (hour - 1)), pm10: Double(30 + hour)) }
        return FetchedPage(
            page: MeasurementPage(readings: readings, paging: Paging(numOfRows: 100, pageNo: 1, totalCount: 24, itemCount: 24), skipped: 0),
            httpStatus: 200)
    }
}

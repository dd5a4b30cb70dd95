import DustKit
import DustServices
import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing

@testable import DustStore

func reading(_ station: String, hour: Int, pm10: Double?, pm25: Double?, flag: String? = nil) -> HourlyReading {
    // Hours of 2026-11-20 KST; hour 0 starts at 2026-11-19T15:00:00Z.
    let start = Int64(1_795_100_400) + Int64(hour) * 3600
    return HourlyReading(
        station: station, slot: Slot(startEpochSeconds: start),
        concentration: DustPair(fineDust: pm10, ultraFineDust: pm25),
        flag: DustPair(repeating: flag), stationCode: "111123", sidoName: "서울", network: "도시대기")
}

@Suite("SQLite store", .timeLimit(.minutes(10)))
struct SQLiteStoreTests {
    @Test("The first hour of the test day is 2026-11-20 00:00 KST")
    func testDay() {
        #expect(
            DayCalendar(timeZone: KoreaStandardTime.timeZone).iso8601(reading("a", hour: 0, pm10: 1, pm25: 1).slot.start)
                == "2026-11-20T00:00:00+09:00")
    }

    @Test("Upserting the same readings twice changes nothing")
    func idempotent() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.path("dust.sqlite"))
        let batch = (0..<24).map { reading("종로구", hour: $0, pm10: Double(30 + $0), pm25: Double(10 + $0)) }
        #expect(try await store.saveReadings(batch) == UpsertSummary(inserted: 24))
        #expect(try await store.saveReadings(batch) == UpsertSummary(unchanged: 24))
        #expect(try await store.readingCount() == 24)
    }

    @Test("On the caller's thread (dustctl's threading), reads and writes run on the thread that asks, none handed to a queue")
    func callersThread() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dust.sqlite")
        let writer = try SQLiteStore(path: path, threading: .callersThread)
        #expect(try await writer.saveReadings([reading("종로구", hour: 0, pm10: 30, pm25: 10)]) == UpsertSummary(inserted: 1))
        let reader = try SQLiteStore(path: path, mode: .readOnly, threading: .callersThread)
        #expect(try await reader.readingCount() == 1)
        for round in 0..<20 {
            let store = round.isMultiple(of: 2) ? writer : reader
            let asking = pthread_self()
            let read = try await store.read { _ in pthread_self() }
            #expect(pthread_equal(asking, read) != 0, "a read of round \(round) ran on another thread")
            let asked = pthread_self()
            let wrote = try await writer.writeTransaction { _ in pthread_self() }
            #expect(pthread_equal(asked, wrote) != 0, "a write of round \(round) ran on another thread")
        }
    }

    @Test("The busy wait's steps are SQLite's own (sqliteDefaultBusyCallback): 1, 2, 5, … 100 ms, their sum cut at the limit")
    func busySteps() {
        let sqlite = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]
        #expect((0..<12).map { SQLiteStore.busyStep(tries: $0, limit: 10_000) } == sqlite)
        // 328 ms by the 12th step, then 100 each: the 108th waits the 72 ms left of 10 s, and the next none.
        #expect(SQLiteStore.busyStep(tries: 12, limit: 10_000) == 100 && SQLiteStore.busyStep(tries: 107, limit: 10_000) == 100)
        #expect(SQLiteStore.busyStep(tries: 108, limit: 10_000) == 72 && SQLiteStore.busyStep(tries: 109, limit: 10_000) == nil)
        #expect(SQLiteStore.busyStep(tries: 3, limit: 10) == 2 && SQLiteStore.busyStep(tries: 4, limit: 10) == nil)
        #expect(SQLiteStore.busyStep(tries: 0, limit: 0) == nil)
    }

    @Test(
        "A write waiting for another program's lock waits as SQLite's busy timeout does, ends within a step of a stop that comes while it waits, and a wait begun after the stop (its records') keeps its time"
    )
    func abandonedWait() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dust.sqlite")
        let stop = Mutex<ContinuousClock.Instant?>(nil)
        let store = try SQLiteStore(
            path: path, threading: .callersThread,
            abandonWaits: { began in stop.withLock { $0.map { began <= $0 } ?? false } })
        #expect(try await store.saveReadings([reading("종로구", hour: 0, pm10: 30, pm25: 10)]) == UpsertSummary(inserted: 1))
        var holding = Configuration()
        holding.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: path, configuration: holding)
        func hold(forMilliseconds milliseconds: UInt32) throws {
            try other.inDatabase { try $0.execute(sql: "BEGIN IMMEDIATE") }
            Thread {
                usleep(milliseconds * 1000)
                try? other.inDatabase { try $0.execute(sql: "ROLLBACK") }
            }.start()
        }
        // Held for 400 ms: the write waits, then is written.
        try hold(forMilliseconds: 400)
        let waited = ContinuousClock.now
        #expect(try await store.saveReadings([reading("종로구", hour: 1, pm10: 31, pm25: 11)]) == UpsertSummary(inserted: 1))
        #expect(ContinuousClock.now - waited >= .milliseconds(300))
        usleep(200_000)
        // Held for 3 s, and the stop comes 300 ms into the wait: the write fails as busy then, not after the hold.
        try hold(forMilliseconds: 3_000)
        Thread {
            usleep(300_000)
            stop.withLock { $0 = ContinuousClock.now }
        }.start()
        let began = ContinuousClock.now
        let refused = await #expect(throws: StorageFailure.self) {
            try await store.saveReadings([reading("종로구", hour: 2, pm10: 32, pm25: 12)])
        }
        let ended = ContinuousClock.now - began
        #expect(refused?.kind == .locked, "\(String(describing: refused))")
        #expect(ended >= .milliseconds(250) && ended < .milliseconds(2_500), "the wait ended \(ended) after it began")
        // A write after the stop (the stop's own record) waits for the lock as before, and is written once it is let go.
        let after = ContinuousClock.now
        #expect(try await store.saveReadings([reading("종로구", hour: 3, pm10: 33, pm25: 13)]) == UpsertSummary(inserted: 1))
        #expect(ContinuousClock.now - after >= .milliseconds(200), "it did not wait for the lock")
    }

    @Test("The count of stored rows reads the same pages for a day as for 20,000 hours more (it was a scan of every row)")
    func rowCountCost() async throws {
        let store = SQLiteStore.scratch()  // one connection: every read below is counted on it
        let pagesOfCount = { () async throws -> Int32 in
            try store.synchronousRead { db in _ = pagesFetched(db, reset: true) }
            _ = try await store.readingCount()
            return try store.synchronousRead { db in pagesFetched(db) }
        }
        _ = try await store.saveReadings((0..<24).map { reading("종로구", hour: $0, pm10: 30, pm25: 10) })
        let day = try await pagesOfCount()
        let stations = (0..<20).map { "측정소\($0)" }
        _ = try await store.saveReadings(stations.flatMap { name in (0..<1_000).map { reading(name, hour: -$0, pm10: 30, pm25: 10) } })
        #expect(try await store.readingCount() == 20_024)
        #expect(try await pagesOfCount() == day)
        #expect(day > 0)
    }

    @Test("A v19 database's rows, however they were stored, are counted once at its upgrade, then kept")
    func rowCountMigration() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dust.sqlite")
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v19-sign-out-count")
        try await queue.write { db in
            try db.execute(
                sql:
                    "INSERT INTO measurement (station, slot_start, pm10, pm25, fetched_at) VALUES ('종로구', 0, 1, 1, 1), ('종로구', 3600, 2, 2, 1), ('중구', 0, 3, 3, 1)"
            )
        }
        try queue.close()
        let store = try SQLiteStore(path: path)
        let kept = { try store.synchronousRead { db in try Int.fetchOne(db, sql: "SELECT measurement_rows FROM data_generation") } }
        #expect(try kept() == 3)
        #expect(try await store.readingCount() == 3)
        _ = try await store.saveReadings([reading("종로구", hour: 0, pm10: 30, pm25: 10), reading("종로구", hour: 1, pm10: 30, pm25: 10)])
        #expect(try kept() == 5)
        #expect(try await store.readingCount() == 5)
    }

    @Test("A revised value replaces the stored one; unknown stays NULL, never 0")
    func revision() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.path("dust.sqlite"))
        try await store.saveReadings([reading("종로구", hour: 5, pm10: 40, pm25: nil), reading("종로구", hour: 6, pm10: 41, pm25: 20)])
        let summary = try await store.saveReadings([
            reading("종로구", hour: 5, pm10: 44, pm25: 21), reading("종로구", hour: 6, pm10: 41, pm25: 20),
        ])
        #expect(summary == UpsertSummary(updated: 1, unchanged: 1))
        let stored = try await store.readings(
            stations: ["종로구"], from: reading("x", hour: 0, pm10: nil, pm25: nil).slot,
            to: reading("x", hour: 24, pm10: nil, pm25: nil).slot)
        #expect(stored.map(\.concentration) == [DustPair(fineDust: 44, ultraFineDust: 21), DustPair(fineDust: 41, ultraFineDust: 20)])

        try await store.saveReadings([reading("종로구", hour: 6, pm10: nil, pm25: nil, flag: "자료이상")])
        let flagged = try await store.readings(
            stations: ["종로구"], from: reading("x", hour: 6, pm10: nil, pm25: nil).slot,
            to: reading("x", hour: 7, pm10: nil, pm25: nil).slot)
        #expect(flagged.first?.concentration == DustPair(fineDust: nil, ultraFineDust: nil))
        #expect(flagged.first?.flag == DustPair(fineDust: "자료이상", ultraFineDust: "자료이상"))
    }

    @Test("Readings come back ordered, filtered by station and half-open slot range")
    func query() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.path("dust.sqlite"))
        try await store.saveReadings(
            (0..<24).flatMap { [reading("종로구", hour: $0, pm10: 1, pm25: 1), reading("중구", hour: $0, pm10: 2, pm25: 2)] })
        let from = reading("x", hour: 3, pm10: nil, pm25: nil).slot
        let to = reading("x", hour: 6, pm10: nil, pm25: nil).slot
        let rows = try await store.readings(stations: ["중구"], from: from, to: to)
        #expect(rows.map(\.slot) == [from, from.advanced(by: 1), from.advanced(by: 2)])
        #expect(rows.allSatisfy { $0.station == "중구" })
        let last = reading("x", hour: 23, pm10: nil, pm25: nil).slot
        #expect(try await store.newestSlot(station: "종로구", endingBy: last.end) == last)
        // A slot that has not ended by `now` is in the future: it never counts as the latest.
        #expect(try await store.newestSlot(station: "종로구", endingBy: last.end.addingTimeInterval(-1)) == last.advanced(by: -1))
        #expect(try await store.newestSlot(station: "없는곳", endingBy: last.end) == nil)
        #expect(try await store.stations().map(\.name) == ["종로구", "중구"])
        #expect(try await store.stations().first?.code == "111123")
    }

    @Test("Releasing memory empties the writer's page cache and closes the readers; the store reads and writes on after it")
    func releaseMemory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.path("dust.sqlite"))
        try await store.saveReadings(
            (0..<6_000).map { reading("측정소\($0 % 60)", hour: $0 / 60, pm10: Double($0 % 90), pm25: Double($0 % 40)) })
        let pool = try #require(store.pool as? DatabasePool)
        let (counted, readerFilled) = try await pool.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(pm10) FROM measurement"), pageCacheBytes(db))
        }
        #expect(counted == 6_000)
        let writerFilled = try await pool.writeWithoutTransaction(pageCacheBytes)
        #expect(readerFilled > 100_000 && writerFilled > 100_000, "the scan and the write filled both caches")

        // It waits for the writer's work in progress: on a thread of its own, as dustd's trim calls it.
        await OwnThread.result(store.releaseMemory)

        // A new reader, opened for this read: nothing cached but what opening it read.
        let readerAfter = try await pool.read(pageCacheBytes)
        let writerAfter = try await pool.writeWithoutTransaction(pageCacheBytes)
        #expect(readerAfter < readerFilled / 4, "a reader opened afresh (the schema read): \(readerAfter) bytes against \(readerFilled)")
        #expect(writerAfter < writerFilled / 4, "\(writerAfter) bytes against \(writerFilled)")
        #expect(try await store.readingCount() == 6_000)
        #expect(try await store.saveReadings([reading("종로구", hour: 200, pm10: 7, pm25: 3)]) == UpsertSummary(inserted: 1))
        #expect(try await store.readingCount() == 6_001)
    }

    @Test("The database file is created with mode 0640 in WAL mode, and is sound")
    func fileMode() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("nested/dir/dust.sqlite")
        let store = try SQLiteStore(path: path)
        try await store.saveReadings([reading("종로구", hour: 0, pm10: 1, pm25: 1)])
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o640)
        #expect(try store.integrityCheck() == ["ok"])
        let header = try FileHandle(forReadingFrom: URL(fileURLWithPath: path)).readData(ofLength: 20)
        #expect(header[18] == 2 && header[19] == 2, "WAL databases have file format 2 at bytes 18 and 19")
        // 2 = FULL: the writer syncs the WAL on every commit (GRDB alone would leave NORMAL, 1).
        #expect(try store.synchronousWrite { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } == 2)
    }

    @Test("The WAL and shared-memory files outlive the writer, so group readers can open the database later")
    func persistentWAL() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dust.sqlite")
        do {
            let store = try SQLiteStore(path: path)
            try await store.saveReadings([reading("종로구", hour: 0, pm10: 1, pm25: 1)])
        }
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(FileManager.default.fileExists(atPath: path + "-shm"))
        #expect(try await SQLiteStore(path: path, mode: .readOnly).readingCount() == 1)
    }

    @Test("A large write leaves no large -wal behind: it is cut to 0 bytes when the writer closes, and kept")
    func walTruncatedOnClose() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dust.sqlite")
        func walSize() throws -> Int {
            try (FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)?.intValue ?? -1
        }
        do {
            let store = try SQLiteStore(path: path)
            // 20 stations × 720 hours: one transaction of 14,400 rows, about 0.8 MB of WAL.
            let batch = (0..<20).flatMap { station in
                (0..<720).map { reading("station \(station)", hour: $0, pm10: Double($0 % 90), pm25: Double($0 % 40)) }
            }
            _ = try await store.saveReadings(batch)
            let openSize = try walSize()
            #expect(openSize > 1 << 19, "the batch should leave a WAL of over half a MiB while the writer is open")
            #expect(try store.synchronousWrite { db in try Int.fetchOne(db, sql: "PRAGMA journal_size_limit") } == SQLiteStore.walSizeLimit)
        }
        // Every later reader that opens the database with no writer rebuilds the WAL index from the
        // whole -wal: an empty one costs nothing, whatever history holds.
        #expect(try walSize() == 0)
        #expect(FileManager.default.fileExists(atPath: path + "-shm"))
        #expect(try await SQLiteStore(path: path, mode: .readOnly).readingCount() == 14_400)
    }

    @Test("Opening a missing database read-only is a clear error, and creates nothing")
    func missing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("absent.sqlite")
        #expect(throws: SQLiteFailure.databaseMissing(path: path)) { try SQLiteStore(path: path, mode: .readOnly) }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("A file that is not a database is reported as such and left alone")
    func notADatabase() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("notes.sqlite")
        try Data("these are my notes, not a database, and must survive\n".utf8).write(to: URL(fileURLWithPath: path))
        do {
            _ = try SQLiteStore(path: path)
            Issue.record("opening a text file as a database succeeded")
        } catch let error {
            guard case .corrupt = error else {
                Issue.record("expected .corrupt, got \(error)")
                return
            }
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("these are my notes"))
    }

    @Test("A database an older FineDust wrote: a reader says to restart dustd (it cannot upgrade it), a writer upgrades it, then it reads")
    func olderSchema() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dust.sqlite")
        try await SQLiteStore(path: path).saveReadings([reading("종로구", hour: 1, pm10: 30, pm25: 12)])
        // What FineDust 0.3 left: everything up to v3, no alert tables.
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(sql: "DROP TABLE alert_delivery; DROP TABLE alert_event; DROP TABLE alert_state")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v5-alerts'")
        }
        try queue.close()
        #expect {
            _ = try SQLiteStore(path: path, mode: .readOnly)
        } throws: { error in
            guard case .cannotOpen(_, let reason) = error as? SQLiteFailure else { return false }
            return reason == .olderSchema && "\(error)".contains("restart dustd")
        }
        let upgraded = try SQLiteStore(path: path)
        #expect(try await upgraded.alertStates().isEmpty)
        let reader = try SQLiteStore(path: path, mode: .readOnly)
        #expect(try await reader.readingCount() == 1)
    }
}

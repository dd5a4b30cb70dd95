import DustDaemon
import DustKit
import DustServices
import Foundation
import GRDB
import GRDBSQLite
import Synchronization
import TestSupport
import Testing

@testable import DustStore

@Suite("HeapTrimService: the heap's free pages go back to the system after a burst", .timeLimit(.minutes(10)))
struct HeapTrimServiceTests {
    final class Count: Sendable {
        let value = Mutex(0)
        var current: Int { value.withLock { $0 } }
    }

    /// A clock whose waits end at once (cancelled, they throw): the service's loop, not the machine's
    /// speed, is what is tested. (A real 10 ms interval once saw one trim in 120 s at a load of 10.)
    struct InstantClock: Clock {
        var now: ContinuousClock.Instant { ContinuousClock.Instant.now }
        var minimumResolution: Duration { .zero }
        func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
            try Task.checkCancellation()
            await Task.yield()
        }
    }

    @Test("It trims once an interval, and stops at cancellation (dustd's shutdown) without trimming again")
    func trimsUntilCancelled() async throws {
        let trims = Count()
        let service = HeapTrimService(interval: .seconds(30), clock: InstantClock()) { trims.value.withLock { $0 += 1 } }
        let running = Task { try await service.run() }
        let deadline = ContinuousClock.now + .seconds(300)
        while trims.current < 3, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(trims.current >= 3)
        running.cancel()
        try await running.value
        let atStop = trims.current
        try await Task.sleep(for: .milliseconds(100))
        #expect(trims.current == atStop)
    }

    @Test("Nothing is trimmed before the first interval has passed")
    func waitsAnInterval() async throws {
        let trims = Count()
        let service = HeapTrimService(interval: .seconds(3600)) { trims.value.withLock { $0 += 1 } }
        let running = Task { try await service.run() }
        try await Task.sleep(for: .milliseconds(50))
        running.cancel()
        try await running.value
        #expect(trims.current == 0)
    }

    /// 16 MiB in 8 KiB blocks (below glibc's mmap threshold, so on the heap), written, then all but
    /// every 32nd freed: the free runs lie between blocks still in use, where glibc's `free` never
    /// gives memory back. The pages wholly inside freed blocks are resident before the trim and,
    /// but for what other tests running at once took again, gone after it (`mincore`).
    @Test("The default trim (glibc's malloc_trim) gives back the pages of memory freed between blocks still in use")
    func glibcGivesPagesBack() throws {
        let blockSize = 8192
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        var blocks: [UnsafeMutableRawPointer] = []
        for _ in 0..<2048 {
            let block = try #require(malloc(blockSize))
            memset(block, 0x5a, blockSize)
            blocks.append(block)
        }
        let freed = blocks.enumerated().filter { $0.offset % 32 != 0 }.map(\.element)
        let kept = blocks.enumerated().filter { $0.offset % 32 == 0 }.map(\.element)
        defer { for block in kept { free(block) } }
        // The pages wholly inside each freed block (a block's first bytes hold the free list's links).
        let pages = freed.flatMap { block -> [UnsafeMutableRawPointer] in
            let start = (Int(bitPattern: block) + 64 + page - 1) / page * page
            let end = (Int(bitPattern: block) + blockSize) / page * page
            return stride(from: start, to: end, by: page).compactMap { UnsafeMutableRawPointer(bitPattern: $0) }
        }
        func resident() -> Int {
            var vector: [UInt8] = [0]
            return pages.reduce(0) { count, address in
                mincore(address, page, &vector) == 0 && vector[0] & 1 == 1 ? count + 1 : count
            }
        }
        #expect(pages.count >= 1900)
        for block in freed { free(block) }
        let before = resident()
        HeapTrimService.glibcTrim()
        let after = resident()
        #expect(before >= pages.count * 9 / 10, "glibc gave freed pages back before any trim: \(before) of \(pages.count) resident")
        #expect(after <= pages.count / 2, "\(after) of \(pages.count) freed pages still resident after the trim")
    }
    @Test("dustd's trim first gives back what the SQLite store's connections keep: a new reader, an empty writer's cache")
    func releasesTheStore() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.path("dust.sqlite"))
        var readings: [HourlyReading] = []
        for index in 0..<6_000 {
            let slot = Slot(startEpochSeconds: 1_795_100_400 + Int64(index / 60) * 3600)
            let concentration = DustPair<Double?>(fineDust: Double(index % 90), ultraFineDust: Double(index % 40))
            readings.append(HourlyReading(station: "측정소\(index % 60)", slot: slot, concentration: concentration))
        }
        try await store.saveReadings(readings)
        let pool = try #require(store.pool as? DatabasePool)
        // Bytes of page cache one connection holds (its own, whatever runs beside the test).
        @Sendable func cacheUsed(_ db: Database) -> Int32 {
            var current: Int32 = 0
            var highest: Int32 = 0
            _ = sqlite3_db_status(db.sqliteConnection, SQLITE_DBSTATUS_CACHE_USED, &current, &highest, 0)
            return current
        }
        // A scan of the table, in the same read as the measure: that reader now holds its pages.
        let (sum, reader) = try await pool.read { db in (try Double.fetchOne(db, sql: "SELECT sum(pm10) FROM measurement"), cacheUsed(db)) }
        let writer = try await pool.writeWithoutTransaction(cacheUsed)
        #expect(sum != nil)
        #expect(reader > 100_000 && writer > 100_000, "the scan and the write filled the caches: \(reader), \(writer)")

        await OwnThread.result(HeapTrimService.glibcTrim(releasing: { store }))

        let (readerAfter, writerAfter) = (try await pool.read(cacheUsed), try await pool.writeWithoutTransaction(cacheUsed))
        #expect(readerAfter < reader / 4, "a reader opened afresh (the schema read): \(readerAfter) bytes against \(reader)")
        #expect(writerAfter < writer / 4, "the writer's cache emptied: \(writerAfter) bytes against \(writer)")
        #expect(try await store.readingCount() == 6_000)
    }
}

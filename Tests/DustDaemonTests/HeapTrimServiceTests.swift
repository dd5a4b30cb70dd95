import DustDaemon
import DustKit
import DustServices
import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing

@testable import DustStore

// Serialized: a trim in one test would give back the pages another test counts as still resident.
@Suite("HeapTrimService: the heap's free pages go back to the system after a burst", .serialized, .timeLimit(.minutes(10)))
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

    @Test("It trims once an interval, and stops at cancellation (dustd's shutdown) without starting another trim")
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
        // The stop does not wait for a trim on its thread (`stopsWhileATrimWaits`): one begun before it
        // may still end after it, and none begins.
        try await Task.sleep(for: .seconds(1))
        #expect(trims.current <= atStop + 1)
        try await Task.sleep(for: .seconds(1))
        #expect(trims.current <= atStop + 1)
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
        // A scan of the table, in the same read as the measure: that reader now holds its pages.
        let (sum, reader) = try await pool.read { db in
            (try Double.fetchOne(db, sql: "SELECT sum(pm10) FROM measurement"), pageCacheBytes(db))
        }
        let writer = try await pool.writeWithoutTransaction(pageCacheBytes)
        #expect(sum != nil)
        #expect(reader > 100_000 && writer > 100_000, "the scan and the write filled the caches: \(reader), \(writer)")

        await OwnThread.result(HeapTrimService.trimStoreAndHeap { store })

        let (readerAfter, writerAfter) = (try await pool.read(pageCacheBytes), try await pool.writeWithoutTransaction(pageCacheBytes))
        #expect(readerAfter < reader / 4, "a reader opened afresh (the schema read): \(readerAfter) bytes against \(reader)")
        #expect(writerAfter < writer / 4, "the writer's cache emptied: \(writerAfter) bytes against \(writer)")
        #expect(try await store.readingCount() == 6_000)
    }
    @Test("A trim still waiting (for the store's writer, say) does not hold up the service's stop; it ends on its own")
    func stopsWhileATrimWaits() async throws {
        let started = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let finished = Count()
        let service = HeapTrimService(interval: .seconds(30), clock: InstantClock()) {
            started.signal()
            _ = proceed.wait(timeout: .now() + 120)
            finished.value.withLock { $0 += 1 }
        }
        let running = Task { try await service.run() }
        #expect(await OwnThread.result { started.wait(timeout: .now() + 120) } == .success, "the first trim began")
        let cancelled = ContinuousClock.now
        running.cancel()
        try await running.value
        // Ended while its trim was still blocked: the stop did not wait for it.
        #expect(finished.current == 0)
        #expect(ContinuousClock.now - cancelled < .seconds(60))
        proceed.signal()
        let deadline = ContinuousClock.now + .seconds(120)
        while finished.current == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(finished.current == 1, "the abandoned trim finished on its own thread")
    }
}

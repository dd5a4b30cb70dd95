import DustKit
import DustServices
import Foundation
import GRDB
import TestSupport
import Testing

@testable import DustStore

@Suite("Activity per source", .timeLimit(.minutes(10)))
struct ActivitySourceStoreTests {
    let eight = Slot(startEpochSeconds: 1_795_100_400 + 8 * 3600)  // 2026-11-20 08:00 KST
    var nine: Slot { eight.advanced(by: 1) }

    @Test("v4 moves the CSV distances stored before it into the source csv, times kept, and drops the old table")
    func migration() async throws {
        let directory = try TemporaryDirectory("finedust-v4")
        defer { directory.remove() }
        let path = directory.path("db.sqlite")
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v3-scrub-echoed-keys")
        try await queue.write { db in
            try db.execute(
                sql: "INSERT INTO activity (slot_start, distance_m, imported_at) VALUES (?, ?, ?), (?, ?, ?)",
                arguments: [eight.startEpochSeconds, 1800.5, 1_795_000_000, nine.startEpochSeconds, 0, 1_795_000_001])
        }
        try queue.close()

        let store = try SQLiteStore(path: path)
        #expect(try await store.activity(source: "csv") == [eight: 1800.5, nine: 0])
        #expect(
            try await store.activitySources() == [
                ActivitySourceSummary(source: "csv", firstSlot: eight, lastSlot: nine, slots: 2, metres: 1800.5)
            ])
        let (importedAt, oldTable) = try store.synchronousRead { db in
            (
                try Int64.fetchOne(
                    db, sql: "SELECT imported_at FROM activity_source WHERE slot_start = ?", arguments: [eight.startEpochSeconds]),
                try db.tableExists("activity")
            )
        }
        #expect(importedAt == 1_795_000_000)
        #expect(!oldTable)
    }

    @Test("The merged distance is the largest source per slot; a tie goes to the name sorting first; negative distances are refused")
    func merged() async throws {
        let directory = try TemporaryDirectory("finedust-v4")
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.path("db.sqlite"))
        try await store.saveActivity([
            ActivitySourceBatch(source: "health:iPhone", distances: [eight: 900, nine: 300], replacing: eight...nine),
            ActivitySourceBatch(source: "health:Apple Watch", distances: [eight: 1200, nine: 300], replacing: eight...nine),
        ])
        #expect(try await store.walking(from: eight, to: nine.advanced(by: 1)).mapValues(\.metres) == [eight: 1200, nine: 300])
        await #expect(
            try store.walking(from: eight, to: nine.advanced(by: 1)) == [
                eight: SlotWalking(metres: 1200, source: "health:Apple Watch"),
                nine: SlotWalking(metres: 300, source: "health:Apple Watch"),
            ])
        await #expect {
            try await store.saveActivity([ActivitySourceBatch(source: "csv", distances: [eight: 5, nine: -1], replacing: nil)])
        } throws: { error in
            (error as? StorageFailure)?.description.contains("CHECK constraint failed: distance_m >= 0") == true
        }
        // The failed batch stored nothing, not even its good slot.
        #expect(try await store.activity(source: "csv") == [:])
        #expect(try await store.forgetActivity(source: "health:iPhone") == 2)
        #expect(try await store.forgetActivity(source: "health:iPhone") == 0)
    }
}

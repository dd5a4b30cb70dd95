import DustKit
import DustServices
import Foundation
import GRDB
import TestSupport
import Testing

@testable import DustStore

@Suite("v8: gases on the measurement row", .timeLimit(.minutes(10)))
struct GasMigrationTests {
    @Test("A v7 database opens with its hours kept and their gases unknown; a later answer fills them as one revision")
    func previousVersion() async throws {
        let directory = try TemporaryDirectory("finedust-v8")
        defer { directory.remove() }
        let path = directory.path("db.sqlite")
        let slot = Slot(startEpochSeconds: 1_795_129_200)  // 2026-11-20 08:00 KST
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v7-attempt-kind-seconds")
        try await queue.write { db in
            try db.execute(
                sql: "INSERT INTO measurement (station, slot_start, pm10, pm25, fetched_at) VALUES (?, ?, ?, ?, ?)",
                arguments: ["종로구", slot.startEpochSeconds, 41, 20, 1_795_133_000])
        }
        try queue.close()

        let store = try SQLiteStore(path: path)
        let before = try await store.readings(stations: ["종로구"], from: slot, to: slot.advanced(by: 1))
        #expect(before.map(\.concentration) == [DustPair(fineDust: 41, ultraFineDust: 20)])
        #expect(before.first?.gases == .unknown)
        // The same hour again, now with gases (the PM fields as stored, so only the gases change).
        let reading = HourlyReading(
            station: "종로구", slot: slot, concentration: DustPair(fineDust: 41, ultraFineDust: 20),
            reported: DustPair(repeating: .value),
            gases: GasReading(ppm: GasValues(o3: 0.021, no2: 0.035, co: 0.6, so2: 0.004), cai: 71, caiGrade: .moderate))
        #expect(try await store.saveReadings([reading]) == UpsertSummary(updated: 1))
        let after = try await store.readings(stations: ["종로구"], from: slot, to: slot.advanced(by: 1))
        #expect(after.first?.gases.ppm == GasValues(o3: 0.021, no2: 0.035, co: 0.6, so2: 0.004))
        #expect(after.first?.gases.cai == 71)
        #expect(try store.synchronousRead { db in try Int.fetchOne(db, sql: "SELECT revision FROM measurement") } == 1)
    }
}

import DustKit
import DustServices
import Foundation
import GRDB
import TestSupport
import Testing

@testable import DustStore

@Suite("v7: the attempt kind and started_at in seconds", .timeLimit(.minutes(10)))
struct AttemptMigrationTests {
    /// 2026-11-22 00:00 KST.
    let midnight: Int64 = 1_795_273_200

    @Test(
        "A database of the previous version opens with its attempts kept: kinds read from the old labels, times in seconds, the quota counted"
    )
    func previousVersion() async throws {
        let directory = try TemporaryDirectory("finedust-v7")
        defer { directory.remove() }
        let path = directory.path("db.sqlite")
        // The schema as the previous FineDust left it, and rows as it wrote them (milliseconds).
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v6-activity-sources")
        let rows: [(Int64, String?, String, String)] = [
            ((midnight - 60) * 1000 + 250, nil, "forecast PM25 2026-11-21 page 1", "ok"),
            ((midnight + 330) * 1000 + 999, nil, "forecast PM10 2026-11-22 page 1", "ok"),
            ((midnight + 331) * 1000, nil, "forecast PM25 2026-11-22 page 1", "quota"),
            ((midnight + 1200) * 1000 + 5, "종로구", "station 종로구 DAILY page 1", "ok"),
            ((midnight + 1201) * 1000, nil, "province 전국 page 1", "retrying"),
            ((midnight + 1500) * 1000, nil, "station list page 1", "ok"),
        ]
        try await queue.write { db in
            for (startedAt, station, operation, outcome) in rows {
                try db.execute(
                    sql: "INSERT INTO poll_attempt (started_at, station, operation, outcome) VALUES (?, ?, ?, ?)",
                    arguments: [startedAt, station, operation, outcome])
            }
        }
        try queue.close()

        let store = try SQLiteStore(path: path)
        let attempts = try await store.recentAttempts(limit: 10)
        #expect(attempts.count == 6)
        #expect(attempts.map(\.kind) == [.stationList, .measurement, .measurement, .forecast, .forecast, .forecast])
        #expect(
            attempts.map { Int64($0.startedAt.timeIntervalSince1970) } == [
                midnight + 1500, midnight + 1201, midnight + 1200, midnight + 331, midnight + 330, midnight - 60,
            ])
        #expect(attempts.map(\.operation).last == "forecast PM25 2026-11-21 page 1")
        let since = Date(timeIntervalSince1970: TimeInterval(midnight))
        #expect(try await store.attemptCount(kind: .forecast, since: since) == 2)
        #expect(try await store.attemptCount(kind: .measurement, since: since) == 2)
        #expect(try await store.attemptCount(kind: .forecast, since: since.addingTimeInterval(-3600)) == 3)
        // Every time column is now in seconds: an attempt recorded now sorts among the converted ones.
        try await store.recordAttempt(
            PollAttempt(
                startedAt: since.addingTimeInterval(1300), station: "종로구", kind: .measurement, operation: "station 종로구 DAILY page 1",
                outcome: .ok))
        await #expect(
            try store.recentAttempts(limit: 3).map { Int64($0.startedAt.timeIntervalSince1970) } == [
                midnight + 1500, midnight + 1300, midnight + 1201,
            ])
        let stored = try store.synchronousRead { db in
            try Int64.fetchAll(db, sql: "SELECT started_at FROM poll_attempt ORDER BY id")
        }
        #expect(stored == rows.map { $0.0 / 1000 } + [midnight + 1300])
    }
}

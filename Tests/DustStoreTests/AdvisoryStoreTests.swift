import DustKit
import DustServices
import Foundation
import GRDB
import TestSupport
import Testing

@testable import DustStore

private let issued = instant(kst: "2026-11-20T13:00:00")
private let fetched = instant(kst: "2026-11-20T14:10:00")

private func warning(clearedAt: Date? = nil, issueValue: Double? = 312) -> Advisory {
    Advisory(
        pollutant: .pm10, key: "87", district: "서울", area: "도심권", level: .warning, issuedAt: issued, clearedAt: clearedAt,
        issueValue: issueValue)
}

/// The advisory checks of the store contract (docs/REFERENCE.md §17), on both backends.
@Suite("Store contract: advisories", .timeLimit(.minutes(10)))
struct AdvisoryStoreContractTests {
    @Test("An advisory without a clear is active from its issue; stored again it changes nothing", arguments: Backend.allCases)
    func active(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            #expect(try await store.saveAdvisories([warning()], fetchedAt: fetched) == 1)
            #expect(try await store.saveAdvisories([warning()], fetchedAt: fetched.addingTimeInterval(3600)) == 0)
            #expect(try await store.activeAdvisories(at: issued.addingTimeInterval(-1)).isEmpty)
            #expect(try await store.activeAdvisories(at: issued) == [warning()])
            #expect(try await store.activeAdvisories(at: instant(kst: "2026-11-21T00:20:00")) == [warning()])
        }
    }

    @Test(
        "A revision (the clear arriving later) replaces the advisory: cleared, no longer active, still the year's",
        arguments: Backend.allCases)
    func revisedAndCleared(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            _ = try await store.saveAdvisories([warning()], fetchedAt: fetched)
            let cleared = warning(clearedAt: instant(kst: "2026-11-20T19:00:00"))
            #expect(try await store.saveAdvisories([cleared], fetchedAt: fetched.addingTimeInterval(7200)) == 1)
            #expect(try await store.activeAdvisories(at: instant(kst: "2026-11-20T18:59:00")) == [cleared])
            #expect(try await store.activeAdvisories(at: instant(kst: "2026-11-20T19:00:00")).isEmpty)
            let year = try await store.advisories(from: instant(kst: "2026-01-01T00:00:00"), to: instant(kst: "2027-01-01T00:00:00"))
            #expect(year == [cleared])
        }
    }

    @Test(
        "One row per pollutant and key; the year's advisories newest first, with one issued before the year and still in force",
        arguments: Backend.allCases)
    func perPollutantAndKey(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            let pm25 = Advisory(
                pollutant: .pm25, key: "87", district: "서울", area: "서남권", level: .watch, issuedAt: instant(kst: "2026-11-20T10:00:00"),
                clearedAt: instant(kst: "2026-11-20T20:00:00"), issueValue: 78, clearValue: 31)
            let ozone = Advisory(
                pollutant: .o3, key: "O3 서울 동남권 2026-06-12T15:00:00+09:00", district: "서울", area: "동남권",
                level: .unknown("특별경보"), issuedAt: instant(kst: "2026-06-12T15:00:00"), clearedAt: nil, issueValue: 0.128,
                maxValue: 0.134)
            let newYear = Advisory(
                pollutant: .pm10, key: "1", district: "경기", area: nil, level: .watch, issuedAt: instant(kst: "2025-12-31T20:00:00"))
            #expect(try await store.saveAdvisories([warning(), pm25, ozone, newYear], fetchedAt: fetched) == 4)
            let year = try await store.advisories(from: instant(kst: "2026-01-01T00:00:00"), to: instant(kst: "2027-01-01T00:00:00"))
            #expect(year == [warning(), pm25, ozone, newYear])
            let previous = try await store.advisories(from: instant(kst: "2025-01-01T00:00:00"), to: instant(kst: "2026-01-01T00:00:00"))
            #expect(previous == [newYear])
            #expect(try await store.activeAdvisories(at: fetched).map(\.pollutant) == [.pm10, .pm25, .o3, .pm10])
        }
    }
}

@Suite("v9: advisories, and the attempt kind advisory", .timeLimit(.minutes(10)))
struct AdvisoryMigrationTests {
    @Test("A database of the previous version keeps its attempts and their ids; an advisory attempt is counted apart")
    func previousVersion() async throws {
        let directory = try TemporaryDirectory("finedust-v9")
        defer { directory.remove() }
        let path = directory.path("db.sqlite")
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v7-attempt-kind-seconds")
        try await queue.write { db in
            try db.execute(
                sql:
                    "INSERT INTO poll_attempt (id, started_at, station, operation, outcome, kind) VALUES (41, ?, '종로구', ?, 'ok', 'measurement')",
                arguments: [Int64(fetched.timeIntervalSince1970), "station 종로구 DAILY page 1"])
        }
        try queue.close()
        let store = try SQLiteStore(path: path)
        try await store.recordAttempt(
            PollAttempt(startedAt: fetched, station: nil, kind: .advisory, operation: "advisories PM10 2026 page 1", outcome: .failed))
        let attempts = try await store.recentAttempts(limit: 10)
        #expect(attempts.map(\.kind) == [.advisory, .measurement])
        #expect(try await store.attemptCount(kind: .measurement, since: fetched) == 1)
        #expect(try await store.attemptCount(kind: .advisory, since: fetched) == 1)
        let ids = try store.synchronousRead { db in try Int64.fetchAll(db, sql: "SELECT id FROM poll_attempt ORDER BY id") }
        #expect(ids == [41, 42])
    }
}

@Suite("v14 and v15: ozone keys hashed, nothing from the future", .timeLimit(.minutes(10)))
struct TrustMigrationTests {
    @Test("A v13 database: its ozone key becomes the hash of the text it was, its sn keys stay; a 2099 forecast and advisory go")
    func previousVersion() async throws {
        let directory = try TemporaryDirectory("finedust-v14")
        defer { directory.remove() }
        let path = directory.path("db.sqlite")
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v13-slot-places")
        let composed = "O3 서울 동남권 2026-06-12T15:00:00+09:00"
        let issued = Int64(instant(kst: "2026-06-12T15:00:00").timeIntervalSince1970)
        let at = Int64(fetched.timeIntervalSince1970)
        try await queue.write { db in
            for (pollutant, key, issuedAt) in [("O3", composed, issued), ("PM10", "87", issued), ("PM10", "88", issued + 2_300_000_000)] {
                try db.execute(
                    sql: """
                        INSERT INTO advisory (pollutant, advisory_key, district, area, level_word, issued_at, fetched_at)
                        VALUES (?, ?, '서울', '동남권', '주의보', ?, ?)
                        """, arguments: [pollutant, key, issuedAt, at])
            }
            for (issuedAt, date) in [(at - 3600, "2026-11-21"), (at + 2_300_000_000, "2026-11-21")] {
                try db.execute(
                    sql: "INSERT INTO forecast_issue (pollutant, issued_at, forecast_date, fetched_at) VALUES ('pm10', ?, ?, ?)",
                    arguments: [issuedAt, date, at])
                try db.execute(
                    sql:
                        "INSERT INTO forecast_grade (pollutant, issued_at, forecast_date, region, grade, grade_word) VALUES ('pm10', ?, ?, '서울', 2, '보통')",
                    arguments: [issuedAt, date])
            }
        }
        try queue.close()
        let store = try SQLiteStore(path: path)
        let keys = try store.synchronousRead { db in try String.fetchAll(db, sql: "SELECT advisory_key FROM advisory ORDER BY advisory_key")
        }
        #expect(keys == ["87", Advisory.hashedKey(of: composed)].sorted())
        #expect(
            Advisory.hashedKey(of: composed)
                == Advisory.key(pollutant: .o3, district: "서울", area: "동남권", issuedAt: instant(kst: "2026-06-12T15:00:00")))
        #expect(try await store.newestForecastIssue(pollutant: .pm10) == Date(timeIntervalSince1970: TimeInterval(at - 3600)))
        let grades = try store.synchronousRead { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM forecast_grade") }
        #expect(grades == 1)
    }
}

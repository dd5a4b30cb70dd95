import DustKit
import DustServices
import Foundation
import TestSupport
import Testing

@testable import DustStore

private func forecast(
    _ pollutant: Pollutant, issued: String, date: LocalDate, _ grades: [ForecastRegion: ForecastGrade],
    overall: String? = "○ 전 권역 보통"
) -> DustForecast {
    DustForecast(
        pollutant: pollutant, issuedAt: instant(kst: issued), forecastDate: date, grades: ForecastGrades(byRegion: grades),
        overall: overall,
        cause: "원인")
}

@Suite("SQLite store: forecasts (v4-forecast)", .timeLimit(.minutes(10)))
struct ForecastStorageTests {
    let tomorrow = LocalDate(year: 2026, month: 11, day: 23)

    @Test("Migrations run in the order they shipped; new ones only ever go at the end")
    func migrationOrder() {
        #expect(
            Schema.migrator.migrations == [
                "v1", "v2-daemon-state", "v3-scrub-echoed-keys", "v4-forecast", "v5-alerts", "v6-activity-sources",
                "v7-attempt-kind-seconds", "v8-gases", "v9-advisories", "v10-weekly-outlook", "v11-people", "v12-positions",
                "v13-slot-places", "v14-advisory-keys-hashed", "v15-nothing-from-the-future", "v16-data-generation", "v17-indoor-air",
                "v18-result-codes-in-vocabulary", "v19-sign-out-count", "v20-measurement-rows",
                "v21-key-echo-check",
            ])
    }

    @Test("Every issue is stored; storing it again changes nothing; the newest issue for a region and date wins")
    func upsertAndLatest() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.path("dust.sqlite"))
        let morning = forecast(.pm25, issued: "2026-11-22T05:00:00", date: tomorrow, [.seoul: .known(.moderate), .jeju: .known(.good)])
        let evening = forecast(
            .pm25, issued: "2026-11-22T17:00:00", date: tomorrow, [.seoul: .known(.veryBad), .gyeonggiNorth: .unknown("높음")])
        #expect(try await store.saveForecasts([morning, evening]) == 2)
        #expect(try await store.saveForecasts([morning, evening]) == 0)
        let seoul = try #require(try await store.forecast(pollutant: .pm25, date: tomorrow, region: .seoul))
        #expect(seoul.grade == .known(.veryBad))
        #expect(seoul.issuedAt == instant(kst: "2026-11-22T17:00:00"))
        #expect(seoul.overall == "○ 전 권역 보통")
        #expect(seoul.cause == "원인")
        // 제주 is graded only by the morning issue: that is the newest that graded it.
        #expect(try await store.forecast(pollutant: .pm25, date: tomorrow, region: .jeju)?.issuedAt == instant(kst: "2026-11-22T05:00:00"))
        #expect(try await store.forecast(pollutant: .pm25, date: tomorrow, region: .gyeonggiNorth)?.grade == .unknown("높음"))
        #expect(try await store.forecast(pollutant: .pm10, date: tomorrow, region: .seoul) == nil)
        #expect(try await store.newestForecastIssue(pollutant: .pm25) == instant(kst: "2026-11-22T17:00:00"))
        #expect(try await store.newestForecastIssue(pollutant: .pm10) == nil)
        // A re-published issue with another grade replaces it.
        let revised = forecast(.pm25, issued: "2026-11-22T17:00:00", date: tomorrow, [.seoul: .known(.bad)])
        #expect(try await store.saveForecasts([revised]) == 1)
        #expect(try await store.forecast(pollutant: .pm25, date: tomorrow, region: .seoul)?.grade == .known(.bad))
    }

    @Test("Forecast calls are counted from the attempt record since a start instant")
    func callCount() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.path("dust.sqlite"))
        try await store.recordAttempt(
            PollAttempt(
                startedAt: instant(kst: "2026-11-21T23:30:00"), station: nil, kind: .forecast, operation: "forecast PM10 2026-11-21 page 1",
                outcome: .ok))
        try await store.recordAttempt(
            PollAttempt(
                startedAt: instant(kst: "2026-11-22T05:30:00"), station: nil, kind: .forecast, operation: "forecast PM10 2026-11-22 page 1",
                outcome: .ok))
        try await store.recordAttempt(
            PollAttempt(
                startedAt: instant(kst: "2026-11-22T05:30:01"), station: nil, kind: .forecast, operation: "forecast PM25 2026-11-22 page 1",
                outcome: .retrying
            ))
        try await store.recordAttempt(
            PollAttempt(
                startedAt: instant(kst: "2026-11-22T06:20:00"), station: "종로구", kind: .measurement, operation: "station 종로구 DAILY page 1",
                outcome: .ok))
        #expect(try await store.attemptCount(kind: .forecast, since: instant(kst: "2026-11-22T00:00:00")) == 2)
    }

    @Test("A station's province and address, as polls and the station list stored them")
    func location() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.path("dust.sqlite"))
        try await store.saveReadings([
            HourlyReading(
                station: "행신동", slot: Slot(startEpochSeconds: 1_795_100_400), concentration: DustPair(fineDust: 30, ultraFineDust: 10),
                sidoName: "경기")
        ])
        try await store.saveStations([Station(name: "행신동", address: "경기도 고양시 덕양구 행신동 1")])
        #expect(try await store.stationLocation(name: "행신동") == StationLocation(sido: "경기", address: "경기도 고양시 덕양구 행신동 1"))
        #expect(try await store.stationLocation(name: "없는곳") == nil)
    }
}

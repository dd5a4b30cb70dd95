import AirKorea
import DustKit
import DustServices
import DustStore
import Foundation
import TestSupport
import Testing

/// The weekly outlook's part of the store contract (docs/REFERENCE.md §17), on both backends.
@Suite("The weekly outlook in the store: a newer publication replaces, every publication is kept", .timeLimit(.minutes(10)))
struct WeeklyOutlookStoreTests {
    let fetched = Date(timeIntervalSince1970: 1_795_219_200)

    func outlook(_ published: LocalDate, seoul: OutlookGrade = .known(.high)) -> WeeklyOutlook {
        WeeklyOutlook(
            publishedOn: published,
            days: (0..<4).map { offset in
                WeeklyOutlookDay(
                    date: published.adding(days: 3 + offset),
                    byRegion: [.seoul: offset == 0 ? seoul : .known(.low), .busan: .known(.low)],
                    unmatchedRegions: offset == 0 ? ["강원": .known(.high)] : [:],
                    confidence: offset < 2 ? .known(.high) : (offset == 2 ? .unknown("보통") : nil))
            }, conditions: "○ 대기 정체")
    }

    @Test("Stored again it is not new; re-published it replaces; the newest publication wins; history kept", arguments: Backend.allCases)
    func saveAndRead(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            let twentyTwo = LocalDate(year: 2026, month: 11, day: 22)
            let twentyOne = LocalDate(year: 2026, month: 11, day: 21)
            #expect(try await store.newestWeeklyOutlook() == nil)
            #expect(try await store.saveWeeklyOutlook(outlook(twentyOne), fetchedAt: fetched))
            #expect(try await store.saveWeeklyOutlook(outlook(twentyTwo), fetchedAt: fetched))
            #expect(try await store.saveWeeklyOutlook(outlook(twentyTwo), fetchedAt: fetched) == false)
            #expect(try await store.newestWeeklyOutlook() == outlook(twentyTwo))
            // AirKorea re-published the 22nd: it replaces that publication whole, the 21st stays.
            let republished = outlook(twentyTwo, seoul: .unknown("예보없음"))
            #expect(try await store.saveWeeklyOutlook(republished, fetchedAt: fetched))
            let newest = try #require(try await store.newestWeeklyOutlook())
            #expect(newest == republished)
            #expect(newest.days[0].byRegion[.seoul] == .unknown("예보없음"))
            #expect(newest.days[0].unmatchedRegions == ["강원": .known(.high)])
            #expect(newest.days.map(\.confidence) == [.known(.high), .known(.high), .unknown("보통"), nil])
            #expect(newest.conditions == "○ 대기 정체")
            #expect(try await store.weeklyOutlook(publishedOn: twentyOne) == outlook(twentyOne))
            #expect(try await store.weeklyOutlook(publishedOn: twentyOne.adding(days: -1)) == nil)
            // An older publication stored later does not replace the newest.
            #expect(try await store.saveWeeklyOutlook(outlook(twentyOne.adding(days: -1)), fetchedAt: fetched))
            #expect(try await store.newestWeeklyOutlook()?.publishedOn == twentyTwo)
        }
    }

    @Test("The fixture's outlook survives the round trip unchanged", arguments: Backend.allCases)
    func fixtureRoundTrip(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            let page = try AirKoreaResponseParser().parseWeeklyOutlooks(try TestFixtures.data("synthesized/weekly-outlook-2026-11-22.xml"))
            let parsed = try #require(page.outlooks.first)
            #expect(try await store.saveWeeklyOutlook(parsed, fetchedAt: fetched))
            #expect(try await store.newestWeeklyOutlook() == parsed)
        }
    }

    @Test(
        "The outlook's calls are counted by their kind, apart from the daily forecast's, whatever their operation text says",
        arguments: Backend.allCases)
    func attemptCount(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            let midnight = Date(timeIntervalSince1970: 1_795_100_400)  // 2026-11-20 00:00 KST
            for (offset, kind, operation) in [
                (-60.0, AttemptKind.weeklyOutlook, "weekly outlook 2026-11-19 page 1"),
                (60, .weeklyOutlook, "weekly outlook 2026-11-20 page 1"),
                (120, .forecast, "forecast PM10 2026-11-20 page 1"), (180, .weeklyOutlook, "reworded in a later version"),
                (240, .forecast, "weekly outlook, says a careless label"),
            ] {
                try await store.recordAttempt(
                    PollAttempt(
                        startedAt: midnight.addingTimeInterval(offset), station: nil, kind: kind, operation: operation, outcome: .retrying)
                )
            }
            #expect(try await store.attemptCount(kind: .weeklyOutlook, since: midnight) == 2)
            #expect(try await store.attemptCount(kind: .forecast, since: midnight) == 2)
            #expect(try await store.attemptCount(kind: .weeklyOutlook, since: midnight.addingTimeInterval(-3600)) == 3)
        }
    }
}

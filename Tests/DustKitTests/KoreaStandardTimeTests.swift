import DustKit
import Foundation
import Testing

@Suite("KST arithmetic (docs/REFERENCE.md §2)", .timeLimit(.minutes(10)))
struct KoreaStandardTimeTests {
    func instant(_ iso: String) -> Date { ISO8601DateFormatter().date(from: iso)! }

    @Test("Hour 24 of a day is 00:00 of the next; hour 0 is its own midnight")
    func hour24BelongsToThePreviousDay() {
        let november20 = LocalDate(year: 2026, month: 11, day: 20)
        #expect(KoreaStandardTime.instant(hour: 24, of: november20) == instant("2026-11-21T00:00:00+09:00"))
        #expect(KoreaStandardTime.instant(hour: 24, of: november20) == KoreaStandardTime.instant(hour: 0, of: november20.adding(days: 1)))
        #expect(KoreaStandardTime.instant(hour: 0, of: november20).timeIntervalSince1970 == 1_795_100_400)
        #expect(KoreaStandardTime.instant(hour: 17, of: november20) == instant("2026-11-20T08:00:00Z"))
    }

    @Test("The KST date of an instant turns at 15:00 UTC, not at UTC midnight")
    func dateContaining() {
        #expect(KoreaStandardTime.date(containing: instant("2026-11-20T14:59:59Z")) == LocalDate(year: 2026, month: 11, day: 20))
        #expect(KoreaStandardTime.date(containing: instant("2026-11-20T15:00:00Z")) == LocalDate(year: 2026, month: 11, day: 21))
        #expect(
            KoreaStandardTime.date(containing: Date(timeIntervalSince1970: 1_795_100_399.5)) == LocalDate(year: 2026, month: 11, day: 19))
    }

    @Test("The next KST midnight after an instant; midnight itself waits a whole day")
    func nextMidnight() {
        #expect(KoreaStandardTime.nextMidnight(after: instant("2026-11-20T14:59:59Z")) == instant("2026-11-20T15:00:00Z"))
        #expect(KoreaStandardTime.nextMidnight(after: instant("2026-11-20T15:00:00Z")) == instant("2026-11-21T15:00:00Z"))
        #expect(
            KoreaStandardTime.nextMidnight(after: Date(timeIntervalSince1970: 1_795_100_399.25)).timeIntervalSince1970 == 1_795_100_400)
        #expect(KoreaStandardTime.startOfDay(containing: instant("2026-11-21T14:59:59Z")) == instant("2026-11-21T00:00:00+09:00"))
    }

    @Test("The first and last days AirKorea data can name: 2000-01-01 and 2099-12-31")
    func centuryEdges() throws {
        let first = LocalDate(year: 2000, month: 1, day: 1)
        #expect(KoreaStandardTime.instant(hour: 0, of: first) == instant("1999-12-31T15:00:00Z"))
        #expect(KoreaStandardTime.date(containing: instant("1999-12-31T15:00:00Z")) == first)
        #expect(KoreaStandardTime.date(containing: instant("1999-12-31T14:59:59Z")) == LocalDate(year: 1999, month: 12, day: 31))
        let firstSlot = try #require(KoreaStandardTime.slot(forDataTime: "2000-01-01 01:00"))
        #expect(firstSlot.start == instant("1999-12-31T15:00:00Z"))
        #expect(KoreaStandardTime.dataTime(of: firstSlot) == "2000-01-01 01:00")

        let last = LocalDate(year: 2099, month: 12, day: 31)
        #expect(KoreaStandardTime.instant(hour: 24, of: last) == instant("2099-12-31T15:00:00Z"))
        #expect(KoreaStandardTime.nextMidnight(after: instant("2099-12-31T14:00:00Z")) == instant("2099-12-31T15:00:00Z"))
        let lastSlot = try #require(KoreaStandardTime.slot(forDataTime: "2099-12-31 24:00"))
        #expect(lastSlot.end == instant("2099-12-31T15:00:00Z"))
        #expect(KoreaStandardTime.dataTime(of: lastSlot) == "2099-12-31 24:00")
        #expect(KoreaStandardTime.date(containing: lastSlot.start) == last)
    }
}

import DustActivity
import DustKit
import Foundation
import TestSupport
import Testing

@Suite("SlotApportioner", .timeLimit(.minutes(10)))
struct SlotApportionerTests {
    @Test("1,000 m from 08:50 to 09:10 gives 500 m to each hour")
    func acrossTheHour() {
        let sample = DistanceSample(
            source: "health:Apple Watch", start: instant("2024-01-01T08:50:00+09:00"),
            end: instant("2024-01-01T09:10:00+09:00"), metres: 1000)
        var apportioner = SlotApportioner()
        apportioner.add(sample)
        #expect(
            apportioner.metresBySource == [
                "health:Apple Watch": [
                    slot("2023-12-31T23:00:00Z"): 500,
                    slot("2024-01-01T00:00:00Z"): 500,
                ]
            ])
    }

    @Test("A sample over three hours splits by minutes: 10 + 60 + 20 of 90 minutes")
    func threeHours() {
        // 900 m from 08:50 to 10:20 KST: 10 min → 100 m, 60 min → 600 m, 20 min → 200 m.
        let shares = SlotApportioner.shares(
            of: DistanceSample(
                source: "csv", start: instant("2024-01-01T08:50:00+09:00"),
                end: instant("2024-01-01T10:20:00+09:00"), metres: 900))
        #expect(shares.map(\.slot) == [slot("2023-12-31T23:00:00Z"), slot("2024-01-01T00:00:00Z"), slot("2024-01-01T01:00:00Z")])
        #expect(shares.map(\.metres) == [100, 600, 200])
    }

    @Test("A sample inside one hour gives it all; a zero-length sample goes to its hour; ending on the hour gives the next nothing")
    func insideOneHour() {
        var apportioner = SlotApportioner()
        apportioner.add(
            DistanceSample(source: "a", start: instant("2024-01-01T08:20:00+09:00"), end: instant("2024-01-01T08:30:00+09:00"), metres: 650)
        )
        apportioner.add(
            DistanceSample(source: "b", start: instant("2024-01-01T08:59:59+09:00"), end: instant("2024-01-01T08:59:59+09:00"), metres: 3))
        apportioner.add(
            DistanceSample(source: "c", start: instant("2024-01-01T08:30:00+09:00"), end: instant("2024-01-01T09:00:00+09:00"), metres: 400)
        )
        let hour = slot("2023-12-31T23:00:00Z")
        #expect(apportioner.metresBySource == ["a": [hour: 650], "b": [hour: 3], "c": [hour: 400]])
    }

    @Test("Across New York's DST change (2026-03-08) the split is by absolute time: 500 m and 500 m")
    func daylightSavingTime() throws {
        // 01:50 EST (-0500) is 06:50Z; 03:10 EDT (-0400) is 07:10Z: 20 minutes, though the local
        // clock shows 1 h 20 min. Slots are UTC hours, so the change does not move the split.
        let xml = healthExport(distanceRecord(value: "1", start: "2026-03-08 01:50:00 -0500", end: "2026-03-08 03:10:00 -0400"))
        let samples = try readHealth(xml).samples
        #expect(samples.count == 1)
        #expect(samples[0].end.timeIntervalSince(samples[0].start) == 1200)
        var apportioner = SlotApportioner()
        for item in samples { apportioner.add(item) }
        let early = slot("2026-03-08T06:00:00Z")
        let late = slot("2026-03-08T07:00:00Z")
        #expect(apportioner.metresBySource["health:Apple Watch"] == [early: 500, late: 500])
        let newYork = DayCalendar(timeZone: try #require(TimeZone(identifier: "America/New_York")))
        let day = newYork.slots(of: LocalDate(year: 2026, month: 3, day: 8))
        #expect(day.count == 23)
        #expect(day.contains(early) && day.contains(late))
        #expect(newYork.hour(of: early) == 1 && newYork.hour(of: late) == 3)
    }

    @Test("Sources sharing a slot are kept apart, never summed: the store takes the largest")
    func sourcesKeptApart() {
        let eight = slot("2023-12-31T23:00:00Z")
        let nine = slot("2024-01-01T00:00:00Z")
        var apportioner = SlotApportioner()
        apportioner.add(
            DistanceSample(
                source: "health:iPhone", start: instant("2023-12-31T23:30:00Z"), end: instant("2024-01-01T00:30:00Z"), metres: 1300))
        apportioner.add(
            DistanceSample(
                source: "health:Apple Watch", start: instant("2023-12-31T23:10:00Z"), end: instant("2023-12-31T23:20:00Z"), metres: 800))
        apportioner.add(
            DistanceSample(
                source: "gpx:route_2024-01-01_8.20am.gpx", start: instant("2023-12-31T23:40:00Z"), end: instant("2023-12-31T23:50:00Z"),
                metres: 199.3))
        #expect(
            apportioner.metresBySource == [
                "health:iPhone": [eight: 650, nine: 650], "health:Apple Watch": [eight: 800],
                "gpx:route_2024-01-01_8.20am.gpx": [eight: 199.3],
            ])
        #expect(apportioner.entries == 4)
    }
}

import AirKorea
import DustKit
import DustServices
import DustStore
import Foundation
import TestSupport
import Testing

let seoul = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)
let november20 = LocalDate(year: 2026, month: 11, day: 20)

/// A fresh store in memory.
final class Scratch: Sendable {
    let store = SQLiteStore.scratch()

    init() throws {}

    func importFixture(_ path: String, station: String? = nil) async throws {
        _ = try await IngestService(store: store).ingest(try TestFixtures.data(path), requestedStation: station)
    }

    func statistics(
        model: any IntakeModel, stations: StationPreference = StationPreference(primary: "종로구"),
        calendar: DayCalendar = seoul, now: Date = DemoReplay.now
    ) -> StatisticsService {
        StatisticsService(
            readings: store, activity: store, clock: FixedClock(now), calendar: calendar, intakeModel: model, stations: stations)
    }

    /// Hour `hour` of a day in a calendar (0 = the first slot of the day).
    static func slot(_ date: LocalDate, hour: Int, calendar: DayCalendar = seoul) -> Slot {
        calendar.slots(of: date)[hour]
    }
}

@Suite("StatisticsService: totals by hand", .timeLimit(.minutes(10)))
struct StatisticsServiceTests {
    @Test("The 종로구 day under the ventilation model matches the hand computation")
    func ventilationDay() async throws {
        let scratch = try Scratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let day = try await scratch.statistics(model: try VentilationIntakeModel()).day(november20)
        // PM10 known in 23 hours (05:00 is 점검및교정): sleep hours 240 µg/m³·h × 0.27 × 0.7,
        // light hours (07, 08, 18) 155 × 0.72 × 0.85, sedentary hours 695 × 0.26 × 0.7.
        #expect(day.totals.hours == DustPair(fineDust: 23, ultraFineDust: 22))
        #expect(abs(day.totals.intake.fineDust! - (240 * 0.189 + 155 * 0.612 + 695 * 0.182)) < 1e-9)
        #expect(abs(day.totals.intake.fineDust! - 266.71) < 1e-9)
        // PM2.5 also lacks 13:00: 119 × 0.189 + 82 × 0.612 + 334 × 0.182.
        #expect(abs(day.totals.intake.ultraFineDust! - 133.463) < 1e-9)
        #expect(day.totals.mean.fineDust! == 1090.0 / 23)
        #expect(day.totals.mean.ultraFineDust! == 535.0 / 22)
        #expect(day.totals.max == DustPair(fineDust: 66, ultraFineDust: 36))
        #expect(day.totals.grade == DustPair(fineDust: .moderate, ultraFineDust: .moderate))
        #expect(day.totals.whoExceeded == DustPair(fineDust: true, ultraFineDust: true))
        #expect(day.slotCount == 24 && day.elapsedSlots == 24)
        #expect(day.hourly.count == 24)
        let calibration = day.hourly[5]
        #expect(calibration.concentration == DustPair(fineDust: nil, ultraFineDust: nil))
        #expect(calibration.intake == DustPair(fineDust: nil, ultraFineDust: nil))
        #expect(calibration.flag.fineDust == "점검및교정")
        #expect(day.latest?.slot == Scratch.slot(november20, hour: 23))
    }

    @Test("Walking raises the outdoor fraction and activity of that hour only")
    func walking() async throws {
        let scratch = try Scratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        try await scratch.store.saveCSVWalking([Scratch.slot(november20, hour: 12): 3000], importedAt: Date())
        let day = try await scratch.statistics(model: try VentilationIntakeModel()).day(november20)
        // 12:00 is sedentary indoors; 3,000 m makes it light with f = 0.625: 49 × 0.72 × (0.625 + 0.375 × 0.7).
        #expect(abs(day.hourly[12].intake.fineDust! - 49 * 0.72 * 0.8875) < 1e-9)
        #expect(abs(day.totals.intake.fineDust! - (266.71 - 49 * 0.182 + 49 * 0.639)) < 1e-9)
        #expect(day.hourly[12].walkingDistance == 3000)
    }

    @Test("The same day under the boostcamp model gives the original app's points")
    func boostcamp() async throws {
        let scratch = try Scratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        try await scratch.store.saveCSVWalking(
            [
                Scratch.slot(november20, hour: 8): 1800,  // floor(52 × 1800 × 0.036 × 0.01) = 33; PM2.5 floor(27 × …) = 17
                Scratch.slot(november20, hour: 18): 2400,  // floor(63 × 2400 × …) = 54; PM2.5 floor(34 × …) = 29
                Scratch.slot(november20, hour: 12): 300,  // under 500 m: indoors, 0
                Scratch.slot(november20, hour: 13): 1000,  // floor(47 × 1000 × …) = 16; PM2.5 unknown
            ], importedAt: Date())
        let day = try await scratch.statistics(model: BoostcampIntakeModel()).day(november20)
        #expect(day.hourly[8].intake == DustPair(fineDust: 33, ultraFineDust: 17))
        #expect(day.hourly[18].intake == DustPair(fineDust: 54, ultraFineDust: 29))
        #expect(day.hourly[12].intake == DustPair(fineDust: 0, ultraFineDust: 0))
        #expect(day.hourly[13].intake == DustPair(fineDust: 16, ultraFineDust: nil))
        #expect(day.hourly[0].intake == DustPair(fineDust: 0, ultraFineDust: 0))
        #expect(day.totals.intake == DustPair(fineDust: 103, ultraFineDust: 46))
    }

    @Test("A fallback station fills the hours and pollutants the primary lacks, and says so")
    func fallback() async throws {
        let scratch = try Scratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let fill = [5, 13].map { hour in
            HourlyReading(
                station: "중구", slot: Scratch.slot(november20, hour: hour), concentration: DustPair(fineDust: 40, ultraFineDust: 20))
        }
        _ = try await scratch.store.saveReadings(fill, fetchedAt: Date())
        let statistics = scratch.statistics(
            model: try VentilationIntakeModel(), stations: StationPreference(primary: "종로구", fallbacks: ["중구"]))
        let day = try await statistics.day(november20)
        #expect(day.totals.hours == DustPair(fineDust: 24, ultraFineDust: 24))
        #expect(day.hourly[5].concentration == DustPair(fineDust: 40, ultraFineDust: 20))
        #expect(day.hourly[5].source == DustPair(fineDust: "중구", ultraFineDust: "중구"))
        #expect(day.hourly[13].concentration == DustPair(fineDust: 47, ultraFineDust: 20))
        #expect(day.hourly[13].source == DustPair(fineDust: "종로구", ultraFineDust: "중구"))
        #expect(day.totals.mean.fineDust! == 1130.0 / 24)
        // A fallback named twice (or the primary named again) counts once: the same day, no crash.
        var twice = StationPreference(primary: "종로구", fallbacks: ["중구", "종로구", "중구"])
        #expect(twice.all == ["종로구", "중구"])
        twice.fallbacks.append("중구")
        #expect(twice.all == ["종로구", "중구"])
        let again = try await scratch.statistics(model: try VentilationIntakeModel(), stations: twice).day(november20)
        #expect(again.hourly.map(\.concentration) == day.hourly.map(\.concentration))
    }

    @Test("Today counts elapsed hours only; an empty day is all unknown, not zero")
    func todaySoFar() async throws {
        let scratch = try Scratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let afternoon = Scratch.slot(november20, hour: 14).start.addingTimeInterval(20 * 60)
        let statistics = scratch.statistics(model: try VentilationIntakeModel(), now: afternoon)
        #expect(statistics.today == november20)
        // The fixture holds the whole day, stored ahead of this clock: today is the hours begun, 00:00–15:00,
        // and the hour under way counts as elapsed since it holds a reading (never more measured than elapsed).
        let today = try await statistics.day(november20)
        #expect(today.elapsedSlots == 15 && today.hourly.count == 15)
        let empty = try await statistics.day(LocalDate(year: 2026, month: 11, day: 21))
        #expect(empty.hourly.isEmpty)
        #expect(empty.totals.hours == DustPair(fineDust: 0, ultraFineDust: 0))
        #expect(empty.totals.intake == DustPair(fineDust: nil, ultraFineDust: nil))
        #expect(empty.totals.mean == DustPair(fineDust: nil, ultraFineDust: nil))
        #expect(empty.totals.grade == DustPair(fineDust: nil, ultraFineDust: nil))
    }

    @Test("24:00 and DST: days in Asia/Seoul and America/New_York have the right slots")
    func daysAndZones() async throws {
        let scratch = try Scratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-3MONTH-2026-11-20.xml")
        let seoulDay = try await scratch.statistics(model: try VentilationIntakeModel()).day(november20)
        #expect(seoulDay.hourly.last?.slot == KoreaStandardTime.slot(forDataTime: "2026-11-20 24:00"))
        #expect(seoulDay.hourly.first?.slot == KoreaStandardTime.slot(forDataTime: "2026-11-20 01:00"))

        let newYork = DayCalendar(timeZone: TimeZone(identifier: "America/New_York")!)
        let statistics = scratch.statistics(model: try VentilationIntakeModel(), calendar: newYork)
        let fallBack = try await statistics.day(LocalDate(year: 2026, month: 11, day: 1))
        #expect(fallBack.slotCount == 25)
        #expect(fallBack.hourly.count == 25)
        #expect(fallBack.totals.hours.fineDust + (fallBack.hourly.filter { $0.concentration.fineDust == nil }.count) == 25)
        #expect(fallBack.hourly.first?.slot.start == ISO8601DateFormatter().date(from: "2026-11-01T04:00:00Z"))
        let normal = try await statistics.day(LocalDate(year: 2026, month: 11, day: 2))
        #expect(normal.slotCount == 24)
    }

    @Test("Week totals: intake and hours are the sums of the days, the mean that of all known hours")
    func weekTotals() async throws {
        let scratch = try Scratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-3MONTH-2026-11-20.xml")
        let week = try await scratch.statistics(model: try VentilationIntakeModel()).rollingWeek(endingOn: november20)
        #expect(week.days.map(\.date) == (14...20).map { LocalDate(year: 2026, month: 11, day: $0) })
        let intakeSum = week.days.compactMap(\.totals.intake.fineDust).reduce(0, +)
        #expect(abs(week.totals.intake.fineDust! - intakeSum) < 1e-9)
        #expect(week.totals.hours.fineDust == week.days.map(\.totals.hours.fineDust).reduce(0, +))
        let known = week.days.flatMap(\.hourly).compactMap(\.concentration.ultraFineDust)
        #expect(week.totals.mean.ultraFineDust == known.reduce(0, +) / Double(known.count))
    }

    @Test("Rolling and ISO weeks pick the right 7 days across month and year boundaries")
    func weekBoundaries() async throws {
        let scratch = try Scratch()
        // One reading at noon each day from 2026-11-25 to 2027-01-05, PM10 = day of month.
        var readings: [HourlyReading] = []
        var date = LocalDate(year: 2026, month: 11, day: 25)
        while date <= LocalDate(year: 2027, month: 1, day: 5) {
            readings.append(
                HourlyReading(
                    station: "종로구", slot: Scratch.slot(date, hour: 12),
                    concentration: DustPair(fineDust: Double(date.day), ultraFineDust: 1)))
            date = date.adding(days: 1)
        }
        _ = try await scratch.store.saveReadings(readings, fetchedAt: Date())
        let statistics = scratch.statistics(model: try VentilationIntakeModel())

        let acrossMonth = try await statistics.rollingWeek(endingOn: LocalDate(year: 2026, month: 12, day: 3))
        #expect(acrossMonth.days.map(\.totals.mean.fineDust) == [27, 28, 29, 30, 1, 2, 3])

        let acrossYear = try await statistics.rollingWeek(endingOn: LocalDate(year: 2027, month: 1, day: 2))
        #expect(
            acrossYear.days.map(\.date.description) == [
                "2026-12-27", "2026-12-28", "2026-12-29", "2026-12-30", "2026-12-31", "2027-01-01", "2027-01-02",
            ])
        #expect(acrossYear.days.map(\.totals.mean.fineDust) == [27, 28, 29, 30, 31, 1, 2])

        let week53 = try await statistics.week(try #require(ISOWeek("2026-W53")))
        #expect(week53.days.map(\.totals.mean.fineDust) == [28, 29, 30, 31, 1, 2, 3])
        #expect(week53.totals.hours.fineDust == 7)

        let weeks = try await statistics.weeks(
            from: LocalDate(year: 2026, month: 12, day: 30), through: LocalDate(year: 2027, month: 1, day: 5))
        #expect(weeks.map { $0.isoWeek?.description } == ["2026-W53", "2027-W01"])
    }
}

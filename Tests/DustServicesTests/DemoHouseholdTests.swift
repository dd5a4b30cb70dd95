import DustKit
import DustServices
import DustStore
import Foundation
import TestSupport
import Testing

/// The demo's household (docs/REFERENCE.md §6, §18) replayed through the real pipeline: jiho, 38 in
/// November 2026 (born 1988-04), with his Apple Watch's week, and seoa, 8 (born 2018-03), with the walks CSV.
@Suite("The demo household: two people, the same air, two doses", .timeLimit(.minutes(10)))
struct DemoHouseholdTests {
    /// Each demo person's rolling week ending on the demo's last day, from one replay.
    static func weeks() async throws -> [String: WeekReport] {
        let store = SQLiteStore.scratch()
        let fixtures = try #require(DemoReplay.locateFixtures(explicit: TestFixtures.url("").path))
        let replay = try await DemoReplay(fixtures: fixtures, store: store, calendar: seoul).run()
        // jiho's Watch export, seoa's walks, then jiho's GPX walk (issue 23, docs/REFERENCE.md §19).
        #expect(replay.activity.map(\.person) == ["jiho", "seoa", "jiho"])
        let household = StatisticsService(
            readings: store, activity: store, clock: FixedClock(DemoReplay.now), calendar: seoul,
            intakeModel: try VentilationIntakeModel(), stations: StationPreference(primary: DemoReplay.station), physiology: store)
        var weeks: [String: WeekReport] = [:]
        for person in DemoReplay.people {
            weeks[person.name] = try await household.forPerson(person).rollingWeek(endingOn: DemoReplay.lastDay)
        }
        return weeks
    }

    /// Hour `hour` of the week's `day`th day (0 = Saturday 2026-11-14).
    static func hour(_ week: WeekReport?, day: Int, _ hour: Int) throws -> HourlyExposure {
        let report = try #require(week?.days[day])
        return try #require(report.hourly.first { $0.slot == Scratch.slot(report.date, hour: hour) })
    }

    @Test("The household: jiho first, an adult of 38 with a Watch; seoa, a child of 8 without one")
    func people() {
        #expect(DemoReplay.people.map(\.name) == ["jiho", "seoa"])
        #expect(DemoReplay.people.map { $0.born?.age(on: DemoReplay.lastDay) } == [38, 8])
        #expect(DemoReplay.people.allSatisfy { Person.isValidName($0.name) && $0.station == "종로구" })
    }

    @Test("Asleep at 03:00 on 2026-11-20 (PM10 30 µg/m³, indoors): jiho 5.796 µg, seoa 5.67 µg")
    func asleep() async throws {
        let weeks = try await Self.weeks()
        let jiho = try Self.hour(weeks["jiho"], day: 6, 3)
        let seoa = try Self.hour(weeks["seoa"], day: 6, 3)
        #expect(jiho.concentration.fineDust == 30 && seoa.concentration.fineDust == 30)
        // C × V(age, sleep) × (f + (1 − f) × F), f = 0 asleep, F = 0.7:
        // jiho (31–40): 30 × (4.6E-03 × 60) × 0.7 = 30 × 0.276 × 0.7 = 5.796 µg;
        // seoa (6–10): 30 × (4.5E-03 × 60) × 0.7 = 30 × 0.27 × 0.7 = 5.67 µg.
        #expect(abs(jiho.intake.fineDust! - 5.796) < 1e-9)
        #expect(abs(seoa.intake.fineDust! - 5.67) < 1e-9)
        // His Watch says he was asleep; her night is the schedule's.
        #expect(jiho.breathing?.levelSource == .sleep && seoa.breathing?.levelSource == .schedule)
    }

    @Test("jiho's nights are asleep by his Watch, every night of the week; his waking hours are his heart rate's")
    func nightsAndDays() async throws {
        let weeks = try await Self.weeks()
        for day in 0..<7 {
            for hour in [1, 2, 3, 4] {
                #expect(try Self.hour(weeks["jiho"], day: day, hour).breathing?.levelSource == .sleep, "day \(day) \(hour):00")
            }
            for hour in [10, 14, 20] {
                #expect(try Self.hour(weeks["jiho"], day: day, hour).breathing?.levelSource == .heartRate, "day \(day) \(hour):00")
            }
        }
    }

    @Test("08:00 on 2026-11-20, walking 1800 m: jiho 25 minutes moderate by his heart rate then 35 sedentary; seoa light")
    func morningWalk() async throws {
        let weeks = try await Self.weeks()
        let jiho = try Self.hour(weeks["jiho"], day: 6, 8)
        let seoa = try Self.hour(weeks["seoa"], day: 6, 8)
        #expect(jiho.concentration.fineDust == 52 && seoa.concentration.fineDust == 52)
        #expect(jiho.walkingDistance == 1800 && seoa.walkingDistance == 1800)
        // Samples every 5 minutes: 08:00 … 08:20 at 112–128 beats/min (rest 56–60, HRmax 208 − 0.7 × 38 = 181.4:
        // a reserve of 0.40–0.60, moderate, 2.7E-02 × 60 = 1.62 m³/h) cover 08:00–08:25; 08:25 … 08:55 at 62–84
        // (below 0.30, sedentary, 4.3E-03 × 60 = 0.258) the rest. V = (25 × 1.62 + 35 × 0.258) / 60 = 0.8255.
        // f = max(0.5, 1800 / 4800) = 0.5 (07–09 light, half outdoors), F = 0.7: 52 × 0.8255 × 0.85 = 36.4871 µg.
        #expect(jiho.breathing?.levelSource == .heartRate)
        #expect(abs(jiho.breathing!.ventilation - 0.8255) < 1e-9)
        #expect(abs(jiho.intake.fineDust! - 36.4871) < 1e-9)
        // seoa, no watch: light (the schedule's, and at least light for a walk), V(8, light) = 1.1E-02 × 60 = 0.66:
        // 52 × 0.66 × 0.85 = 29.172 µg.
        #expect(seoa.breathing?.levelSource == .walking)
        #expect(abs(seoa.intake.fineDust! - 29.172) < 1e-9)
    }

    @Test("Sitting at 10:00 on 2026-11-20: the child breathes more than the adult per hour (EPA's 6–10 row)")
    func sitting() async throws {
        let weeks = try await Self.weeks()
        let jiho = try Self.hour(weeks["jiho"], day: 6, 10)
        let seoa = try Self.hour(weeks["seoa"], day: 6, 10)
        let c = try #require(jiho.concentration.fineDust)
        #expect(seoa.concentration.fineDust == c)
        // 09–18 sedentary indoors, f = 0: seoa C × (4.8E-03 × 60) × 0.7, jiho C × 0.258 × 0.7 — unless his
        // heart rate says otherwise; 62–84 beats/min over a rest of 56–60 is a reserve below 0.30, sedentary too.
        #expect(abs(seoa.intake.fineDust! - c * 0.288 * 0.7) < 1e-9)
        #expect(abs(jiho.intake.fineDust! - c * 0.258 * 0.7) < 1e-9)
    }

    @Test("Saturday 15:00, the hour-long walk of 4000 m: seoa light at 0.66 m³/h, 5/6 of the hour outdoors")
    func saturdayWalk() async throws {
        let weeks = try await Self.weeks()
        let seoa = try Self.hour(weeks["seoa"], day: 0, 15)
        let c = try #require(seoa.concentration.fineDust)
        #expect(seoa.walkingDistance == 4000)
        // f = min(1, 4000 / 4800) = 5/6; V(8, light) = 1.1E-02 × 60 = 0.66: C × 0.66 × (5/6 + 1/6 × 0.7).
        #expect(abs(seoa.intake.fineDust! - c * 0.66 * (5.0 / 6 + 1.0 / 6 * 0.7)) < 1e-9)
        #expect(seoa.breathing?.levelSource == .walking)
        let jiho = try Self.hour(weeks["jiho"], day: 0, 15)
        #expect(jiho.walkingDistance == 4000)
        // jiho's heart rate is 112–128 the whole hour: moderate, V(38, moderate) = 2.7E-02 × 60 = 1.62 m³/h.
        #expect(jiho.breathing?.levelSource == .heartRate)
        #expect(abs(jiho.intake.fineDust! - c * 1.62 * (5.0 / 6 + 1.0 / 6 * 0.7)) < 1e-9)
    }

    @Test("The same week, two totals: each person's intake is their own, the air the same")
    func weekTotals() async throws {
        let weeks = try await Self.weeks()
        let jiho = try #require(weeks["jiho"])
        let seoa = try #require(weeks["seoa"])
        #expect(jiho.totals.hours == seoa.totals.hours)
        #expect(jiho.totals.mean == seoa.totals.mean)
        #expect(jiho.totals.intake.fineDust != seoa.totals.intake.fineDust)
        #expect(jiho.days.map(\.person) == Array(repeating: "jiho", count: 7))
        // jiho's 14 hours from his Watch, and since issue 23 the hour of his GPX walk (2026-11-20 15:00).
        #expect(jiho.days.flatMap(\.walking).filter { $0.source == "health:Apple Watch" }.count == 14)
        #expect(
            jiho.days.flatMap(\.walking).filter { $0.source != "health:Apple Watch" }.map(\.source) == [
                "gpx:demo-walk-jongno-2026-11-20.gpx"
            ])
        #expect(seoa.days.flatMap(\.walking).map(\.source).allSatisfy { $0 == "csv" })
        #expect(jiho.days.flatMap(\.walking).count == 15 && seoa.days.flatMap(\.walking).count == 14)
    }
}

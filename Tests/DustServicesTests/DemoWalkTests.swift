import DustKit
import DustServices
import DustStore
import Foundation
import TestSupport
import Testing

/// The demo follows jiho along his walk of 2026-11-20 (docs/REFERENCE.md §19, §6): the GPX of
/// `Fixtures/activity/demo-walk-jongno-2026-11-20.gpx`, the 서울 archive for its hour and the station list
/// with positions, replayed through the real pipeline; the numbers below are `scripts/make-walk-fixtures.py --print`'s.
@Suite("The demo's walk: the tracked hour's air is where jiho walked", .timeLimit(.minutes(10)))
struct DemoWalkTests {
    /// jiho's 2026-11-20 from one replay: followed (the demo's location inputs) and not.
    static func days() async throws -> (followed: DayReport, homeStation: DayReport) {
        let store = SQLiteStore.scratch()
        let fixtures = try #require(DemoReplay.locateFixtures(explicit: TestFixtures.url("").path))
        let replay = try await DemoReplay(fixtures: fixtures, store: store, calendar: seoul).run()
        let walk = try #require(replay.activity.last)
        #expect(walk.file == DemoReplay.walkFile && walk.person == "jiho")
        #expect(walk.summary.trackedMinutes == 40)
        let jiho = DemoReplay.people[0]
        // Followed as the demo follows its people (`station.mode: nation`), and not followed.
        func statistics(followingRadiusKilometres: Double?) throws -> StatisticsService {
            StatisticsService(
                store: store, clock: FixedClock(DemoReplay.now), calendar: seoul, intakeModel: try VentilationIntakeModel(),
                stations: StationPreference(primary: DemoReplay.station), followingRadiusKilometres: followingRadiusKilometres
            ).forPerson(jiho)
        }
        return (
            try await statistics(followingRadiusKilometres: DemoReplay.locationRadiusKilometres).day(DemoReplay.lastDay),
            try await statistics(followingRadiusKilometres: nil).day(DemoReplay.lastDay)
        )
    }

    static func hour(_ day: DayReport, _ hour: Int) throws -> HourlyExposure {
        try #require(day.hourly.first { $0.slot == Scratch.slot(day.date, hour: hour) })
    }

    @Test("15:00–16:00: tracked 40 of 60 minutes (τ = 2/3), C_T from the stations along the walk, 13.2608 µg of PM10")
    func trackedHour() async throws {
        let days = try await Self.days()
        let hour = try Self.hour(days.followed, 15)
        let place = try #require(hour.place)
        #expect(place.kind == .track)
        // Positions 15:10 … 15:49 (the last point of each minute, at :45), each covering its 60 s: 2400 / 3600.
        #expect(abs(place.trackedFraction - 2.0 / 3) < 1e-12)
        // Each station at its nearest to any tracked position (the script's distances): 종로구 at 15:10,
        // 중구 at 15:42, 동대문구 at 15:10, 용산구 at 15:49.
        #expect(place.stations.fineDust.map(\.station) == ["종로구", "중구", "동대문구", "용산구"])
        let kilometres = place.stations.fineDust.map(\.kilometres)
        for (got, expected) in zip(kilometres, [0.077744, 0.314428, 2.220514, 3.423978]) {
            #expect(abs(got - expected) < 1e-5, "\(kilometres)")
        }
        #expect(place.fallback == nil)
        // The hour's concentration and sources stay the home station's (종로구, DAILY: PM10 46, PM2.5 23).
        #expect(hour.concentration.fineDust == 46 && hour.concentration.ultraFineDust == 23)
        // His heart rate (62–84 beats/min, every 5 minutes) keeps him sedentary all hour: V_T = V_R =
        // 4.3E-03 × 60 = 0.258 m³/h; 09–18 is indoors (f = 0) and the walk raises nothing: the track explains it.
        // C_T = the mean of the 40 minutes' weighted values (each covers 60 s) = 60.997540567 (PM10),
        // 34.257436440 (PM2.5); C_home = 46, 23; F = 0.7:
        // PM10  0.258 × 2/3 × 60.997540567 + 0.258 × 1/3 × 46 × 0.7 = 10.491577 + 2.7692 = 13.260777 µg;
        // PM2.5 0.258 × 2/3 × 34.257436440 + 0.258 × 1/3 × 23 × 0.7 = 5.892279 + 1.3846 = 7.276879 µg.
        #expect(hour.breathing?.levelSource == .heartRate)
        // What day --json says of the hour is the tracked slot's: V 0.258 over both parts, and outdoors
        // the tracked two thirds (f = 2/3 + 1/3 × 0), not the walking raise's 0.680.
        #expect(abs(hour.breathing!.ventilation - 0.258) < 1e-12)
        #expect(abs(hour.breathing!.outdoors - 2.0 / 3) < 1e-12)
        #expect(abs(hour.intake.fineDust! - (0.258 * 2 / 3 * 60.997540567 + 0.258 / 3 * 46 * 0.7)) < 1e-6)
        #expect(abs(hour.intake.fineDust! - 13.260777) < 1e-6)
        #expect(abs(hour.intake.ultraFineDust! - (0.258 * 2 / 3 * 34.257436440 + 0.258 / 3 * 23 * 0.7)) < 1e-6)
        // Without following him, the hour is the home station's air with §4's walking raise: the GPX's
        // 3266 m give f = 3266 / 4800 = 0.680, 46 × 0.258 × (0.680 + 0.320 × 0.7) = 10.73 µg.
        let station = try Self.hour(days.homeStation, 15)
        #expect(station.place == nil)
        let walked = try #require(station.walkingDistance)
        #expect(abs(walked - 3266) < 1)
        #expect(abs(station.intake.fineDust! - 46 * 0.258 * (walked / 4800 + (1 - walked / 4800) * 0.7)) < 1e-9)
        #expect(abs(station.intake.fineDust! - hour.intake.fineDust!) > 1)
    }

    @Test("Only the walk's hour follows him: 14:00 and 16:00 hold no position and are the home station's, saying so")
    func otherHours() async throws {
        let days = try await Self.days()
        for h in [14, 16] {
            let followed = try Self.hour(days.followed, h)
            let station = try Self.hour(days.homeStation, h)
            // A followed day says where every hour was: these at the home station, for want of nothing.
            #expect(followed.place == SlotPlaceSummary(kind: .homeStation), "\(h):00")
            #expect(station.place == nil, "\(h):00")
            #expect(followed.intake == station.intake, "\(h):00")
        }
    }
}

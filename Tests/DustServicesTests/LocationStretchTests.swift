import DustKit
import DustServices
import DustStore
import Foundation
import TestSupport
import Testing

/// A week after the demo's day: every hour these tests store has begun (today holds begun hours only).
private let afterTheData = DemoReplay.now.addingTimeInterval(7 * 86_400)

/// A range is read stretch by stretch, each with the stations near its own days' points
/// (docs/PERFORMANCE.md), yet says what the whole range's stations say (docs/REFERENCE.md §19).
@Suite("Each stretch of days reads its own stations and says what the range's would", .timeLimit(.minutes(10)))
struct LocationStretchTests {
    let store = SQLiteStore.scratch()
    let twentieth = Scratch.slot(november20, hour: 10)
    let twentyFirst = Scratch.slot(november20.adding(days: 1), hour: 10)

    /// 10:00–10:29 on the 20th at p in 서울 (between 종로구, 중구 and 용산구), the same minutes on the
    /// 21st 0.8 km from 해운대구 in 부산, whose station reports on the 20th only; 서울's report both days.
    func setUp() async throws {
        try await store.saveStations(
            LocationStatisticsTests.stations + [Station(name: "해운대구", address: "부산 해운대구", latitude: 35.1631, longitude: 129.1636)],
            at: DemoReplay.now)
        var readings: [HourlyReading] = []
        for (name, value) in [("종로구", 30.0), ("중구", 40.0), ("용산구", 50.0)] {
            for slot in [twentieth, twentyFirst] {
                readings.append(
                    HourlyReading(station: name, slot: slot, concentration: DustPair(fineDust: value, ultraFineDust: value / 2)))
            }
        }
        readings.append(HourlyReading(station: "해운대구", slot: twentieth, concentration: DustPair(fineDust: 80, ultraFineDust: 40)))
        _ = try await store.saveReadings(readings, fetchedAt: DemoReplay.now)
        let p = LocationStatisticsTests.p
        let minutes = TrackMinutes(
            (0..<30).map {
                TrackPoint(at: twentieth.start.addingTimeInterval(Double($0) * 60), latitude: p.latitude, longitude: p.longitude)
            }
                + (0..<30).map {
                    TrackPoint(at: twentyFirst.start.addingTimeInterval(Double($0) * 60), latitude: 35.170, longitude: 129.160)
                })
        try await store.saveImport(
            walking: [], body: [], positions: [PositionBatch(person: "dad", source: "gpx:trip.gpx", minutes: minutes, replacing: nil)],
            importedAt: DemoReplay.now)
    }

    func service() throws -> StatisticsService {
        StatisticsService(
            readings: store, activity: store, clock: FixedClock(afterTheData), calendar: seoul,
            intakeModel: try VentilationIntakeModel(), stations: StationPreference(primary: "종로구"), physiology: store,
            location: LocationInputs(positions: store, stationList: store, radiusKilometres: 10)
        ).forPerson(Person(name: "dad", born: BirthMonth("1986-01"), station: "종로구"))
    }

    @Test("부산's station silent at 10:00 on the 21st while 서울's report: no station within the radius, not no national data")
    func silentStationOfTheDay() async throws {
        try await setUp()
        let days = try await service().days(from: november20, through: november20.adding(days: 1))
        let seoulHour = try #require(days[0].hourly.first { $0.slot == twentieth })
        #expect(seoulHour.place?.kind == .track && seoulHour.place?.fallback == nil)
        #expect(seoulHour.place?.nearest?.station == "중구")
        let busanHour = try #require(days[1].hourly.first { $0.slot == twentyFirst })
        // The range's stations have rows for the slot (서울's), none within 10 km: the tracked half takes
        // C_home, 종로구's 30 — 0.72 × 0.5 × 30 + 0.258 × 0.5 × 30 × 0.7 — and says why.
        #expect(busanHour.place?.kind == .track && busanHour.place?.trackedFraction == 0.5)
        #expect(busanHour.place?.fallback == .noStationWithinRadius)
        #expect(busanHour.place?.stations.fineDust.isEmpty == true)
        #expect(abs(busanHour.intake.fineDust! - (0.72 * 0.5 * 30 + 0.258 * 0.5 * 30 * 0.7)) < 1e-9)
    }
}

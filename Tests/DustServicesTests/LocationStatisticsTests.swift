import DustKit
import DustServices
import DustStore
import Foundation
import TestSupport
import Testing

/// §19 in the statistics (docs/REFERENCE.md §19): three 서울 stations with values at 10:00 on
/// 2026-11-20, and the point p = 37.560/126.990 between them, where the weighting gives
/// PM10 38.569003 µg/m³ (종로구 30 at 1.882108 km, 중구 40 at 1.431475 km, 용산구 50 at 2.577458 km:
/// `InverseDistanceWeightingTests` and §19's worked example).
@Suite("StatisticsService follows a person: home and tracks (docs/REFERENCE.md §19)", .timeLimit(.minutes(10)))
struct LocationStatisticsTests {
    static let stations = [
        Station(name: "종로구", address: "서울 종로구", latitude: 37.572025, longitude: 127.005028),
        Station(name: "중구", address: "서울 중구", latitude: 37.564263, longitude: 126.974676),
        Station(name: "용산구", address: "서울 용산구", latitude: 37.540033, longitude: 127.004850),
    ]
    static let p = GeoPoint(latitude: 37.560, longitude: 126.990)
    static let weightedPM10 = 38.569003

    let store = SQLiteStore.scratch()
    var ten: Slot { Scratch.slot(november20, hour: 10) }

    func setUp() async throws {
        let values: [(String, Double, Double)] = [("종로구", 30, 15), ("중구", 40, 20), ("용산구", 50, 25)]
        _ = try await store.saveReadings(
            values.map { HourlyReading(station: $0.0, slot: ten, concentration: DustPair(fineDust: $0.1, ultraFineDust: $0.2)) },
            fetchedAt: DemoReplay.now)
    }

    func service(_ person: Person, radius: Double = 10, stations: [Station] = Self.stations) throws -> StatisticsService {
        StatisticsService(
            readings: store, activity: store, clock: FixedClock(DemoReplay.now), calendar: seoul,
            intakeModel: try VentilationIntakeModel(), stations: StationPreference(primary: "종로구"), physiology: store,
            location: LocationInputs(positions: store, stationList: StationList(stations), radiusKilometres: radius)
        ).forPerson(person)
    }

    @Test("home between the stations: 10:00 takes the weighted value at home, sedentary indoors, and says which stations")
    func home() async throws {
        try await setUp()
        var person = Person(name: "dad", born: BirthMonth("1986-01"), station: "종로구")
        person.home = Self.p
        let hour = try await service(person).day(november20).hourly[0]
        #expect(hour.slot == ten)
        // 38.569003 µg/m³ × 0.258 m³/h (40, sedentary) × 0.7.
        #expect(abs(hour.intake.fineDust! - Self.weightedPM10 * 0.258 * 0.7) < 1e-5)
        #expect(hour.place?.kind == .home)
        #expect(hour.place?.stations.fineDust.map(\.station) == ["중구", "종로구", "용산구"])
        #expect(hour.place?.nearest?.station == "중구")
        // The hour's reported concentration is still the home station's.
        #expect(hour.concentration.fineDust == 30)
    }

    @Test("a track covering 10:00–10:30 at p: τ = 0.5, the tracked half outdoors at light, the rest sedentary indoors at 종로구's value")
    func halfTracked() async throws {
        try await setUp()
        let minutes = TrackMinutes(
            (0..<30).map {
                TrackPoint(at: ten.start.addingTimeInterval(Double($0) * 60 + 30), latitude: Self.p.latitude, longitude: Self.p.longitude)
            })
        try await store.saveImport(
            walking: [], body: [], positions: [PositionBatch(person: "dad", source: "gpx:walk.gpx", minutes: minutes, replacing: nil)],
            importedAt: DemoReplay.now)
        let person = Person(name: "dad", born: BirthMonth("1986-01"), station: "종로구")
        let hour = try await service(person).day(november20).hourly[0]
        // V_T light 0.72 × τ 0.5 × C_T 38.569003 + V_R sedentary 0.258 × 0.5 × C_home 30 × 0.7.
        let expected = 0.72 * 0.5 * Self.weightedPM10 + 0.258 * 0.5 * 30 * 0.7
        #expect(abs(hour.intake.fineDust! - expected) < 1e-5, "\(hour.intake.fineDust!) vs \(expected)")
        #expect(hour.place?.kind == .track && hour.place?.trackedFraction == 0.5)
        #expect(hour.place?.nearest?.station == "중구" && abs((hour.place?.nearest?.kilometres ?? 0) - 1.431475) < 1e-5)

        // Within 1 km no station stands: the tracked minutes take the home value, and the slot says why.
        let far = try await service(person, radius: 1).day(november20).hourly[0]
        #expect(abs(far.intake.fineDust! - (0.72 * 0.5 * 30 + 0.258 * 0.5 * 30 * 0.7)) < 1e-9)
        #expect(far.place?.fallback == .noStationWithinRadius)

        // No station positions (the list not synced): the track says nothing about the air, the hour is
        // §4/§18's as without location (sedentary indoors at 종로구's 30), and says why.
        let unplaced = try await service(person, stations: []).day(november20).hourly[0]
        #expect(abs(unplaced.intake.fineDust! - 30 * 0.258 * 0.7) < 1e-9)
        #expect(unplaced.place == SlotPlaceSummary(kind: .homeStation, fallback: .noStationPositions))
    }

    @Test("A home monitor: tracked minutes within 300 m of home are time at home at its value; farther, the track stands")
    func trackedNearHome() async throws {
        try await setUp()
        // The walk of halfTracked (10:00–10:30 at p), and the living-room monitor at 5 µg/m³ all hour.
        let minutes = TrackMinutes(
            (0..<30).map {
                TrackPoint(at: ten.start.addingTimeInterval(Double($0) * 60 + 30), latitude: Self.p.latitude, longitude: Self.p.longitude)
            })
        try await store.saveImport(
            walking: [], body: [], positions: [PositionBatch(person: "dad", source: "gpx:walk.gpx", minutes: minutes, replacing: nil)],
            importedAt: DemoReplay.now)
        try await store.saveIndoor(
            samples: (0..<60).map {
                IndoorSample(
                    sensor: "living-room", at: ten.start.addingTimeInterval(Double($0) * 60), value: DustPair(fineDust: 5, ultraFineDust: 3)
                )
            }, states: [])
        func hour(home: GeoPoint, sensors: [String]) async throws -> HourlyExposure {
            var person = Person(name: "dad", born: BirthMonth("1986-01"), station: "종로구", indoorSensors: sensors)
            person.home = home
            return try await StatisticsService(
                readings: store, activity: store, clock: FixedClock(DemoReplay.now), calendar: seoul,
                intakeModel: try VentilationIntakeModel(), stations: StationPreference(primary: "종로구"), physiology: store,
                location: LocationInputs(positions: store, stationList: StationList(Self.stations), radiusKilometres: 10), indoor: store
            ).forPerson(person).day(november20).hourly[0]
        }
        // Home at p: the "walk" never left home; with the monitor the whole hour is at home, sedentary, at 5.
        let atHome = try await hour(home: Self.p, sensors: ["living-room"])
        #expect(abs(atHome.intake.fineDust! - 0.258 * 5) < 1e-9, "\(atHome.intake.fineDust!)")
        #expect(atHome.indoor?.source == .sensor && atHome.place?.kind != .track)
        // The estimate beside it (and the same person without a monitor): §19's tracked half, as before.
        let tracked = 0.72 * 0.5 * Self.weightedPM10 + 0.258 * 0.5 * Self.weightedPM10 * 0.7
        #expect(abs(atHome.indoor!.estimatedIntake.fineDust! - tracked) < 1e-5)
        let without = try await hour(home: Self.p, sensors: [])
        #expect(abs(without.intake.fineDust! - tracked) < 1e-5 && without.place?.trackedFraction == 0.5)
        // Home at 종로구's station, 1.9 km from p: the walk is away and stays §19's; the rest of the hour is
        // at home at the monitor's 5.
        let away = try await hour(home: GeoPoint(latitude: 37.572025, longitude: 127.005028), sensors: ["living-room"])
        #expect(abs(away.intake.fineDust! - (0.72 * 0.5 * Self.weightedPM10 + 0.258 * 0.5 * 5)) < 1e-5, "\(away.intake.fineDust!)")
        #expect(away.place?.kind == .track && away.place?.trackedFraction == 0.5)
    }

    @Test("without home or positions nothing changes: the same day as without location")
    func unchanged() async throws {
        try await setUp()
        let person = Person(name: "dad", born: BirthMonth("1986-01"), station: "종로구")
        let with = try await service(person).day(november20)
        let without = try await StatisticsService(
            readings: store, activity: store, clock: FixedClock(DemoReplay.now), calendar: seoul,
            intakeModel: try VentilationIntakeModel(), stations: StationPreference(primary: "종로구"), physiology: store
        ).forPerson(person).day(november20)
        #expect(with == without)
        #expect(with.hourly[0].place == nil)
    }
}

/// A station list as `stations sync` would have stored it.
private struct StationList: StationStore {
    let list: [Station]
    init(_ list: [Station]) { self.list = list }
    func saveStations(_ stations: [Station], at time: Date) throws(StorageFailure) {}
    func stations() throws(StorageFailure) -> [Station] { list }
    func stationsWithReadings() throws(StorageFailure) -> [String] { [] }
}

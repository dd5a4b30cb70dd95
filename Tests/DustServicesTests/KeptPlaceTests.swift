import DustKit
import DustServices
import DustStore
import Foundation
import Synchronization
import TestSupport
import Testing

/// A week after the demo's day: every hour these tests store has begun (today holds begun hours only).
private let afterTheData = DemoReplay.now.addingTimeInterval(7 * 86_400)

/// Weighed hours kept per person and slot (docs/REFERENCE.md §19): a report that reads them says
/// exactly what one that weighs every position says — before anything is kept, once it is, and after
/// each write that changes what was weighed.
@Suite("Kept places: the same days as weighing every hour, and none stale after a write", .timeLimit(.minutes(10)))
struct KeptPlaceTests {
    let store = SQLiteStore.scratch()
    let twentieth = november20
    let twentyFirst = november20.adding(days: 1)

    /// dad walks (no home): 10:00–10:29 on the 20th at p between 종로구, 중구 and 용산구, 11:15–11:44
    /// north-east from p, 10:00–10:29 on the 21st in 부산 0.8 km from 해운대구 (which reports on the 20th
    /// only); mom stays at home at p; kid has neither. 서울's stations report 09:00–12:00 on the 20th and
    /// 10:00–11:00 on the 21st, their values changing by the hour.
    static let dad = Person(name: "dad", born: BirthMonth("1986-01"), station: "종로구")
    static var mom: Person {
        var mom = Person(name: "mom", born: BirthMonth("1988-06"), station: "종로구")
        mom.home = LocationStatisticsTests.p
        return mom
    }
    static let kid = Person(name: "kid", born: BirthMonth("2017-03"), station: "종로구")
    static var people: [Person] { [dad, mom, kid] }

    func setUp() async throws {
        try await store.saveStations(
            LocationStatisticsTests.stations + [Station(name: "해운대구", address: "부산 해운대구", latitude: 35.1631, longitude: 129.1636)],
            at: DemoReplay.now)
        var readings: [HourlyReading] = []
        let hours = [(twentieth, 9), (twentieth, 10), (twentieth, 11), (twentieth, 12), (twentyFirst, 10), (twentyFirst, 11)]
        for (date, hour) in hours {
            let slot = Scratch.slot(date, hour: hour)
            for (name, value) in [("종로구", 30.0), ("중구", 40.0), ("용산구", 50.0)] {
                let pm10 = value + Double(hour)
                readings.append(HourlyReading(station: name, slot: slot, concentration: DustPair(fineDust: pm10, ultraFineDust: pm10 / 2)))
            }
            if date == twentieth {
                readings.append(HourlyReading(station: "해운대구", slot: slot, concentration: DustPair(fineDust: 80, ultraFineDust: 40)))
            }
        }
        _ = try await store.saveReadings(readings, fetchedAt: DemoReplay.now)
        let p = LocationStatisticsTests.p
        let ten = Scratch.slot(twentieth, hour: 10).start
        let eleven = Scratch.slot(twentieth, hour: 11).start
        let busan = Scratch.slot(twentyFirst, hour: 10).start
        var points: [TrackPoint] = []
        for minute in 0..<30 {
            points.append(TrackPoint(at: ten.addingTimeInterval(Double(minute) * 60), latitude: p.latitude, longitude: p.longitude))
        }
        for minute in 15..<45 {
            let step = Double(minute)
            points.append(
                TrackPoint(
                    at: eleven.addingTimeInterval(step * 60), latitude: p.latitude + step * 0.0004, longitude: p.longitude + step * 0.0005))
        }
        for minute in 0..<30 {
            points.append(TrackPoint(at: busan.addingTimeInterval(Double(minute) * 60), latitude: 35.170, longitude: 129.160))
        }
        try await store.saveImport(
            walking: [],
            body: [],
            positions: [PositionBatch(person: "dad", source: "gpx:walks.gpx", minutes: TrackMinutes(points), replacing: nil)],
            importedAt: DemoReplay.now)
    }

    /// `person`'s statistics; `places` nil weighs every hour at each read (the reference).
    func statistics(
        _ person: Person, places: (any SlotPlaceStore)?, positions: (any PositionReadStore)? = nil, stationList: (any StationStore)? = nil
    ) throws -> StatisticsService {
        StatisticsService(
            readings: store, activity: store, clock: FixedClock(afterTheData), calendar: seoul,
            intakeModel: try VentilationIntakeModel(), stations: StationPreference(primary: "종로구"), physiology: store,
            location: LocationInputs(
                positions: positions ?? store, stationList: stationList ?? store, radiusKilometres: 10, places: places)
        ).forPerson(person)
    }

    /// Each person's two days read through kept places equal the two days weighed afresh.
    func expectSameDays(_ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for person in Self.people {
            let weighed = try await statistics(person, places: nil).days(from: twentieth, through: twentyFirst)
            let read = try await statistics(person, places: store).days(from: twentieth, through: twentyFirst)
            #expect(read == weighed, "\(person.name): \(comment)", sourceLocation: sourceLocation)
        }
    }

    /// Keeps every person's places; how many each kept.
    func keep() async throws -> [String: Int] {
        var kept: [String: Int] = [:]
        for person in Self.people {
            kept[person.name] = try await statistics(person, places: store).keepPlaces(from: twentieth, through: twentyFirst)
        }
        return kept
    }

    @Test("cold, kept, and after new readings, new positions, a moved station and forgotten positions: every day as weighed afresh")
    func keptEqualsWeighed() async throws {
        try await setUp()
        try await expectSameDays("nothing kept yet")
        // Every slot with readings of the person's station, for those location follows: six hours each.
        #expect(try await keep() == ["dad": 6, "mom": 6, "kid": 0])
        #expect(try await keep() == ["dad": 0, "mom": 0, "kid": 0])
        try await expectSameDays("all kept")
        let before = try await statistics(Self.dad, places: store).day(twentieth)
        // The tracked 10:00 at p: V_T light 0.72 × τ 0.5 × C_T + V_R 0.258 × 0.5 × 종로구's 40 × 0.7, C_T the
        // worked example's weighting of 40, 50 and 60 (§19: 48.569003 once every value is 10 higher).
        let ten = try #require(before.hourly.first { $0.slot == Scratch.slot(twentieth, hour: 10) })
        #expect(abs(ten.intake.fineDust! - (0.72 * 0.5 * 48.569003 + 0.258 * 0.5 * 40 * 0.7)) < 1e-5)

        // 중구 revises 10:00 on the 20th: that slot's places go, for everyone; the rest stay kept.
        let tenSlot = Scratch.slot(twentieth, hour: 10)
        _ = try await store.saveReadings(
            [HourlyReading(station: "중구", slot: tenSlot, concentration: DustPair(fineDust: 90, ultraFineDust: 45))],
            fetchedAt: DemoReplay.now)
        try await expectSameDays("after 중구's revision")
        #expect(try await statistics(Self.dad, places: store).day(twentieth) != before)
        #expect(try await keep() == ["dad": 1, "mom": 1, "kid": 0])
        try await expectSameDays("the revised hour kept again")

        // dad walks again at noon: his places of 12:00 go (the positions' hour), not mom's.
        let noon = Scratch.slot(twentieth, hour: 12).start
        let walk = TrackMinutes(
            (0..<20).map { TrackPoint(at: noon.addingTimeInterval(Double($0) * 60), latitude: 37.55, longitude: 126.98) })
        try await store.saveImport(
            walking: [], body: [], positions: [PositionBatch(person: "dad", source: "gpx:noon.gpx", minutes: walk, replacing: nil)],
            importedAt: DemoReplay.now)
        try await expectSameDays("after the noon walk")
        #expect(try await keep() == ["dad": 1, "mom": 0, "kid": 0])

        // 중구 moves 500 m north: every place goes.
        try await store.saveStations([Station(name: "중구", latitude: 37.568763, longitude: 126.974676)], at: DemoReplay.now)
        try await expectSameDays("after 중구 moved")
        #expect(try await keep() == ["dad": 6, "mom": 6, "kid": 0])
        // The same list again moves nothing: everything stays kept.
        try await store.saveStations([Station(name: "중구", latitude: 37.568763, longitude: 126.974676)], at: DemoReplay.now)
        #expect(try await keep() == ["dad": 0, "mom": 0, "kid": 0])

        // dad's positions forgotten: his places go, and his days are as without tracks.
        #expect(try await store.forgetPositions(person: "dad", source: nil) == 110)
        try await expectSameDays("after dad's positions were forgotten")
        let untracked = try await statistics(Self.dad, places: store).day(twentieth)
        #expect(untracked.hourly.allSatisfy { $0.place == nil })
    }

    @Test("once kept, a report reads no position and no station list: nothing is weighed again")
    func keptIsNotWeighedAgain() async throws {
        try await setUp()
        let positions = CountingPositions(store)
        let stationList = CountingStations(store)
        for person in Self.people {
            _ = try await statistics(person, places: store).keepPlaces(from: twentieth, through: twentyFirst)
            let days = try await statistics(person, places: store, positions: positions, stationList: stationList)
                .days(from: twentieth, through: twentyFirst)
            #expect(days.count == 2)
        }
        // kid has neither home nor a kept place: their one look for positions finds none.
        #expect(positions.calls.load(ordering: .relaxed) == 1)
        #expect(stationList.calls.load(ordering: .relaxed) == 0)
    }

    @Test("a day says what the same day says inside the two days: what an hour says never depends on the range asked for")
    func rangeIndependent() async throws {
        try await setUp()
        for person in Self.people {
            let both = try await statistics(person, places: nil).days(from: twentieth, through: twentyFirst)
            #expect(try await statistics(person, places: nil).day(twentieth) == both[0], "\(person.name)")
            #expect(try await statistics(person, places: nil).day(twentyFirst) == both[1], "\(person.name)")
        }
        // 부산 at 10:00 on the 21st: 해운대구 is silent while 서울's stations report: no station within the
        // radius, whether the day is asked alone or with the 20th.
        let busan = try await statistics(Self.dad, places: nil).day(twentyFirst)
        let hour = try #require(busan.hourly.first { $0.slot == Scratch.slot(twentyFirst, hour: 10) })
        #expect(hour.place?.kind == .track && hour.place?.fallback == .noStationWithinRadius)
    }

    @Test("a keep that raced a write keeps nothing, and the next one keeps what the write left")
    func racedKeepKeepsNothing() async throws {
        try await setUp()
        let tenSlot = Scratch.slot(twentieth, hour: 10)
        // The write lands after the keep read the generation and the rows, before it keeps.
        let racing = RacingPlaces(store) {
            _ = try? await store.saveReadings(
                [HourlyReading(station: "중구", slot: tenSlot, concentration: DustPair(fineDust: 90, ultraFineDust: 45))],
                fetchedAt: DemoReplay.now)
        }
        #expect(try await statistics(Self.dad, places: racing).keepPlaces(from: twentieth, through: twentyFirst) == 0)
        await #expect(
            try store.slotPlaces(person: "dad", inputs: racing.inputs, from: tenSlot.advanced(by: -48), to: tenSlot.advanced(by: 48))
                .isEmpty)
        #expect(try await statistics(Self.dad, places: store).keepPlaces(from: twentieth, through: twentyFirst) == 6)
        try await expectSameDays("after the raced keep")
    }

    @Test("positions only in hours no station reported: location follows no hour, weighed afresh or kept")
    func positionsBetweenReportedHours() async throws {
        try await setUp()
        // gran walks at 15:00 on the 20th, an hour 종로구 did not report; she has no home.
        let gran = Person(name: "gran", born: BirthMonth("1950-02"), station: "종로구")
        let three = Scratch.slot(twentieth, hour: 15).start
        try await store.saveImport(
            walking: [], body: [],
            positions: [
                PositionBatch(
                    person: "gran", source: "gpx:gran.gpx",
                    minutes: TrackMinutes(
                        (0..<30).map { TrackPoint(at: three.addingTimeInterval(Double($0) * 60), latitude: 37.56, longitude: 126.99) }),
                    replacing: nil)
            ], importedAt: DemoReplay.now)
        let weighed = try await statistics(gran, places: nil).days(from: twentieth, through: twentyFirst)
        #expect(weighed.flatMap(\.hourly).allSatisfy { $0.place == nil })
        #expect(try await statistics(gran, places: store).keepPlaces(from: twentieth, through: twentyFirst) == 0)
        #expect(try await statistics(gran, places: store).days(from: twentieth, through: twentyFirst) == weighed)
    }

    @Test("history from before station.mode: nation (only the home station reported): no national data, the hour as without location")
    func onlyTheHomeStationReported() async throws {
        try await setUp()
        // 10:00 on the 22nd: 종로구 alone has a row (it was the one station polled), and dad walks in
        // 부산 by 해운대구, which has none: the archive lacks the hour.
        let twentySecond = november20.adding(days: 2)
        let slot = Scratch.slot(twentySecond, hour: 10)
        _ = try await store.saveReadings(
            [HourlyReading(station: "종로구", slot: slot, concentration: DustPair(fineDust: 30, ultraFineDust: 15))], fetchedAt: DemoReplay.now
        )
        try await store.saveImport(
            walking: [], body: [],
            positions: [
                PositionBatch(
                    person: "dad", source: "gpx:later.gpx",
                    minutes: TrackMinutes(
                        (0..<30).map {
                            TrackPoint(at: slot.start.addingTimeInterval(Double($0) * 60), latitude: 35.170, longitude: 129.160)
                        }),
                    replacing: nil)
            ], importedAt: DemoReplay.now)
        for places in [nil, store] as [(any SlotPlaceStore)?] {
            let hour = try #require(try await statistics(Self.dad, places: places).day(twentySecond).hourly.first { $0.slot == slot })
            #expect(hour.place == SlotPlaceSummary(kind: .homeStation, fallback: .noNationalData))
            // Sedentary indoors at 종로구's 30, as without location.
            #expect(abs(hour.intake.fineDust! - 30 * 0.258 * 0.7) < 1e-9)
            _ = try await statistics(Self.dad, places: store).keepPlaces(from: twentySecond, through: twentySecond)
        }
    }

    @Test("a place's bytes give it back; bytes cut short, of another version, or with a byte too many give none")
    func bytes() throws {
        let slot = Scratch.slot(twentieth, hour: 10)
        let used = SlotPlaceSummary.UsedStation.self
        var place = try #require(
            SlotPlace(bytes: [1, 0, 0, 0, 0, 0, 0, 0, 0], slot: slot), "the smallest place: no home, no position, no station")
        #expect(place.home == nil && place.track.positions.isEmpty && !place.hasPlacedValue)
        place.home = SlotPlace.Home(
            values: DustPair(fineDust: 38.569003, ultraFineDust: nil),
            stations: DustPair(fineDust: [used.init(station: "중구", kilometres: 1.431475)], ultraFineDust: []),
            fallback: .noStationWithinRadius)
        place.track.positions = [slot.start.addingTimeInterval(-60), slot.start, slot.start.addingTimeInterval(60)]
        place.track.values = [
            DustPair(repeating: nil), DustPair(fineDust: 41.5, ultraFineDust: 20.25), DustPair(fineDust: nil, ultraFineDust: 7),
        ]
        place.track.stations = DustPair(
            fineDust: [used.init(station: "종로구", kilometres: 0.077744), used.init(station: "용산구", kilometres: 3.423978)],
            ultraFineDust: [used.init(station: "동대문구", kilometres: 2.220514)])
        place.track.fallback = .noNationalData
        place.hasPlacedValue = true
        let bytes = place.bytes(slot: slot)
        #expect(SlotPlace(bytes: bytes, slot: slot) == place)
        for length in 0..<bytes.count { #expect(SlotPlace(bytes: Array(bytes[..<length]), slot: slot) == nil, "\(length) bytes") }
        #expect(SlotPlace(bytes: bytes + [0], slot: slot) == nil)
        #expect(SlotPlace(bytes: [2] + bytes.dropFirst(), slot: slot) == nil)
        // A fallback code that names none.
        #expect(SlotPlace(bytes: [1, 0, 9, 0, 0, 0, 0, 0, 0], slot: slot) == nil)
    }
}

/// The store's positions, counting the reads of them.
private final class CountingPositions: PositionReadStore, Sendable {
    let store: SQLiteStore
    let calls = Atomic<Int>(0)
    init(_ store: SQLiteStore) { self.store = store }

    func positions(person: String, from: Date, to: Date) async throws(StorageFailure) -> [StoredTrackPoint] {
        calls.add(1, ordering: .relaxed)
        return try await store.positions(person: person, from: from, to: to)
    }

    func trackPoints(person: String, from: Date, to: Date) async throws(StorageFailure) -> [TrackPoint] {
        calls.add(1, ordering: .relaxed)
        return try await store.trackPoints(person: person, from: from, to: to)
    }
}

/// The store's station list, counting the reads of it.
private final class CountingStations: StationStore, Sendable {
    let store: SQLiteStore
    let calls = Atomic<Int>(0)
    init(_ store: SQLiteStore) { self.store = store }

    func saveStations(_ stations: [Station], at time: Date) async throws(StorageFailure) {
        try await store.saveStations(stations, at: time)
    }

    func stations() async throws(StorageFailure) -> [Station] {
        calls.add(1, ordering: .relaxed)
        return try await store.stations()
    }

    func stationsWithReadings() async throws(StorageFailure) -> [String] { try await store.stationsWithReadings() }
}

/// The store's places, with `write` run once right before the first keep: a write that lands while
/// a weighing runs.
private final class RacingPlaces: SlotPlaceStore, Sendable {
    let store: SQLiteStore
    let write: @Sendable () async -> Void
    private let written = Atomic<Bool>(false)
    let inputs = SlotPlace.inputs(radiusKilometres: 10, home: nil)

    init(_ store: SQLiteStore, write: @escaping @Sendable () async -> Void) {
        self.store = store
        self.write = write
    }

    func placeGeneration() async throws(StorageFailure) -> Int64 { try await store.placeGeneration() }

    func slotPlaces(person: String, inputs: String, from: Slot, to: Slot) async throws(StorageFailure) -> [KeptSlotPlace] {
        try await store.slotPlaces(person: person, inputs: inputs, from: from, to: to)
    }

    func keepSlotPlaces(
        _ places: [KeptSlotPlace], person: String, inputs: String, generation: Int64
    ) async throws(StorageFailure) -> Bool {
        if !written.exchange(true, ordering: .relaxed) { await write() }
        return try await store.keepSlotPlaces(places, person: person, inputs: inputs, generation: generation)
    }
}

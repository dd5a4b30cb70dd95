import DustKit
import Foundation

// The cursors a report walks a range with, slot by slot in time order (StatisticsService).

/// A range's body records walked slot by slot in time order, so a week of minute-by-minute heart
/// rate is scanned once, not once per slot.
struct BodyCursor {
    let stored: StoredPhysiology
    private var heartIndex = 0

    init(_ stored: StoredPhysiology) { self.stored = stored }

    /// The samples that may cover part of `slot`: from 10 minutes before its start to its end.
    mutating func heartRate(in slot: Slot) -> [HeartRateSample] {
        let earliest = slot.start.addingTimeInterval(-SlotPhysiology.heartRateCover)
        let samples = stored.heartRate
        while heartIndex < samples.count, samples[heartIndex].at < earliest { heartIndex += 1 }
        var end = heartIndex
        while end < samples.count, samples[end].at < slot.end { end += 1 }
        return Array(samples[heartIndex..<end])
    }

    /// `heartRate(in:)` without moving the cursor, for a second look at the same slot.
    func heartRateSamples(in slot: Slot) -> [HeartRateSample] {
        var copy = self
        return copy.heartRate(in: slot)
    }

    func sleep(in slot: Slot) -> [SleepInterval] {
        stored.sleep.filter { $0.start < slot.end && $0.end > slot.start }
    }
}

/// The places a range weighed that the store did not keep: what `keepPlaces` keeps.
struct SlotPlacesToKeep {
    var places: [KeptSlotPlace]
    var inputs: String
    /// The generation read before the rows the places were weighed from.
    var generation: Int64
}

/// A range's places walked slot by slot in time order (docs/REFERENCE.md §19): each slot's kept
/// place, or one weighed now, turned into the slot's value at home, intake and `where`.
struct LocationCursor {
    private var kept: [Slot: [UInt8]] = [:]
    private var weigher: PlaceWeigher?
    /// Whether location follows the person in this range: they have `home` or a position in it.
    private var active = false
    private var inputs = ""
    private var generation: Int64?
    private var weighedNow: [KeptSlotPlace] = []

    init() {}

    /// `generation`: the one read before the rows, when the places weighed are to be kept; nil collects none.
    init(kept: [Slot: [UInt8]], weigher: PlaceWeigher?, active: Bool, inputs: String, generation: Int64?) {
        self.kept = kept
        self.weigher = weigher
        self.active = active
        self.inputs = inputs
        self.generation = generation
    }

    /// What was weighed because the store kept no place for it; nil when not keeping (a report),
    /// without a store of places, or when location does not follow the person (nothing to keep).
    var weighed: SlotPlacesToKeep? {
        guard active, let generation else { return nil }
        return SlotPlacesToKeep(places: weighedNow, inputs: inputs, generation: generation)
    }

    /// The slot's place, kept or weighed now; nil when location does not apply. Slots come in time order.
    mutating func place(_ slot: Slot) async throws(StorageFailure) -> SlotPlace? {
        guard active else { return nil }
        let place: SlotPlace
        if let bytes = kept[slot], let keptPlace = SlotPlace(bytes: bytes, slot: slot) {
            place = keptPlace
        } else {
            if weigher != nil {
                try await weigher!.prepare(slot)
                place = weigher!.place(slot)
            } else {
                place = SlotPlace(home: nil, track: SlotPlace.Track(), hasPlacedValue: false)
            }
            if generation != nil { weighedNow.append(KeptSlotPlace(slot: slot, bytes: place.bytes(slot: slot))) }
        }
        return place
    }

    /// The slot's value at home, intake and `where` from its place, the home station's values and
    /// the body records: everything of §19 that does not depend on the stations' positions.
    /// `atHome`: the instants of the track's positions within `IndoorSlotValue.homeRadiusMetres` of `home`, counted
    /// at home (docs/REFERENCE.md §21) instead of tracked: given only when the home's monitor measured the slot.
    static func resolve(
        _ place: SlotPlace, slot: Slot, stationValues: DustPair<Double?>, model: VentilationIntakeModel, person: Person,
        calendar: DayCalendar, body: BodyCursor, atHome: Set<Date> = []
    ) -> (
        homeConcentration: DustPair<Double?>, trackedDose: TrackedDose?, trackedBreathing: SlotBreathing?,
        summary: SlotPlaceSummary
    ) {
        // The value at home: weighted when `home` is set and a station is near, else the home station's.
        let homeConcentration =
            place.home.map { home in DustPair(byPollutant: { home.values[$0] ?? stationValues[$0] }) } ?? stationValues
        var positions = place.track.positions
        var values = place.track.values
        if !atHome.isEmpty {
            let kept = positions.indices.filter { !atHome.contains(positions[$0]) }
            (positions, values) = (kept.map { positions[$0] }, kept.map { values[$0] })
        }
        let coverage = TrackCoverage(positions: positions, slotStart: slot.start, slotEnd: slot.end)
        let day = calendar.date(containing: slot.start)
        let age = person.born.map { $0.age(on: day) }
        let resting = SlotPhysiology.restingBeatsPerMinute(
            on: day, configured: person.restingHeartRate, health: body.stored.restingHeartRate, calendar: calendar)
        let physiology = SlotPhysiology(
            sleep: body.sleep(in: slot), heartRate: body.heartRateSamples(in: slot), restingBeatsPerMinute: resting)
        guard
            let tracked = TrackedBreathing.of(
                coverage: coverage, physiology: physiology, age: age, rates: age.map(AgeVentilationTable.rates(age:)) ?? model.rates,
                entry: model.entry(atHour: calendar.hour(of: slot)))
        else {
            guard let home = place.home else { return (stationValues, nil, nil, .homeStation) }
            let atHome = home.values.fineDust != nil || home.values.ultraFineDust != nil
            let summary = SlotPlaceSummary(kind: atHome ? .home : .homeStation, stations: home.stations, fallback: home.fallback)
            return (homeConcentration, nil, nil, summary)
        }
        // Pieces and positions are both in time order, one instant each.
        var positionCursor = 0
        let trackedConcentration = coverage.timeWeightedMeans { piece in
            while positions[positionCursor] != piece.at { positionCursor += 1 }
            let value = values[positionCursor]
            return DustPair(
                fineDust: value.fineDust ?? homeConcentration.fineDust,
                ultraFineDust: value.ultraFineDust ?? homeConcentration.ultraFineDust)
        }
        let dose = TrackedDose(
            breathing: tracked, trackedConcentration: trackedConcentration, homeConcentration: homeConcentration,
            infiltration: model.infiltration)
        // Without national data or station positions for the slot the track says nothing about the
        // air: the slot is §4/§18's, as without location, and says why.
        // (No station near enough is not that: the track then takes the value at home, §19.)
        if !place.hasPlacedValue, let why = place.track.fallback, why != .noStationWithinRadius {
            return (homeConcentration, nil, nil, SlotPlaceSummary(kind: .homeStation, fallback: why))
        }
        let summary = SlotPlaceSummary(
            kind: .track, trackedFraction: tracked.trackedFraction, stations: place.track.stations, fallback: place.track.fallback)
        return (homeConcentration, dose, tracked.slot, summary)
    }
}

/// A tracked slot's §19 dose, computed once the indoor value of the rest is known (docs/REFERENCE.md §21).
struct TrackedDose {
    var breathing: TrackedBreathing
    var trackedConcentration: DustPair<Double?>
    var homeConcentration: DustPair<Double?>
    var infiltration: Double

    /// The intake of each pollutant; `indoor` the value at home indoors where a sensor measured it.
    func intake(indoor: DustPair<Double?>) -> DustPair<Double?> {
        DustPair(byPollutant: { pollutant -> Double? in
            guard let concentration = trackedConcentration[pollutant] else { return nil }
            return breathing.intake(
                trackedConcentration: concentration, homeConcentration: homeConcentration[pollutant], infiltration: infiltration,
                indoor: indoor[pollutant])
        })
    }
}

/// A range's positions and nearby readings walked slot by slot in time order, weighing each slot's
/// place (docs/REFERENCE.md §19). What a slot's place says depends only on the slot's own points (its
/// positions and home) and the stations near them, never on the range it was weighed in, so a kept
/// place and one weighed now agree.
struct PlaceWeigher {
    /// How many hours of the nearby stations' values are read at once at most: a month, so a year's
    /// range never holds more than a month of them.
    static let hoursPerRead = 31 * 24

    private let stationCount: Int
    /// Every station the store knows, placed or not, but the person's own: the national archive,
    /// asked whether it has the slot at all when the stations near the slot's points have no row for it.
    private let archive: [String]
    /// Whether any station has a row for the slot; asked only when its own stations have none.
    private var nationalHasRow = true
    private let radius: Double
    /// One position a minute, the first source's where two share a minute.
    private let positions: [TrackPoint]
    private var positionIndex = 0
    private let home: GeoPoint?
    /// The stations near any of the range's points, prepared for weighting every position of the range.
    private let field: WeightingStations
    private let locations: [GeoPoint]
    /// The slot's rows of the stations near its own points, recorded into `field`'s shape; reused from slot to slot.
    private var readings: WeightingStations.Readings
    /// Where the nearby stations' values come from, the end of the range, and the end of the stretch read.
    private let store: any ReadingStore
    private let rangeEnd: Slot
    private var readUntil = Slot(startEpochSeconds: 0)
    /// The stretch's rows in slot order (stations by index in `field`), and the first not yet recorded.
    private var rows: [StationDust] = []
    private var rowIndex = 0
    /// The slot's own stations (those near its points) as a mask over `field`, and how many.
    private var nearSlot: [Bool]
    private var nearSlotCount = 0
    /// Per pollutant (PM10, PM2.5) and station, its nearest distance in the slot (infinity: unused),
    /// and the stations used; two arrays each, so an update never copies one.
    private var usedFine: UsedStations
    private var usedUltraFine: UsedStations

    init(
        stations: StationPositions, archive: [String], radiusKilometres: Double, positions: [TrackPoint], home: GeoPoint?,
        nearby: [String], readings store: any ReadingStore, until end: Slot
    ) {
        stationCount = stations.count
        self.archive = archive
        radius = radiusKilometres
        self.positions = positions
        self.home = home
        self.store = store
        rangeEnd = end
        locations = nearby.map { stations.location(of: $0)! }
        field = WeightingStations(names: nearby, locations: locations)
        readings = field.readings()
        nearSlot = [Bool](repeating: false, count: nearby.count)
        usedFine = UsedStations(count: nearby.count)
        usedUltraFine = usedFine
    }

    /// Records the rows of `slot`'s own stations into `readings`, reading a new stretch when the slot
    /// is past the last one. A stretch runs day by day from `slot` while each day is near the same
    /// stations (the stations near that day's positions and home), at most a month: a day in 부산
    /// reads 부산's stations, not the whole box between 서울 and 부산 for every hour.
    mutating func prepare(_ slot: Slot) async throws(StorageFailure) {
        for index in nearSlot.indices where nearSlot[index] { nearSlot[index] = false }
        let own = stationsNear(from: slot, to: slot.advanced(by: 1))
        for index in own { nearSlot[index] = true }
        nearSlotCount = own.count
        nationalHasRow = true
        field.clear(&readings)
        guard !field.names.isEmpty else { return }
        if slot >= readUntil {
            var end = min(slot.advanced(by: 24), rangeEnd)
            let first = stationsNear(from: slot, to: end)
            while end < rangeEnd, end < slot.advanced(by: Self.hoursPerRead) {
                let next = min(end.advanced(by: 24), rangeEnd)
                guard stationsNear(from: end, to: next) == first else { break }
                end = next
            }
            readUntil = end
            rows = []
            rows = try await Self.read(first, of: field, from: slot, to: end, store)
            rowIndex = 0
        }
        // Every station within the radius of the slot's points is among its own, and those are
        // among the stretch's (its box holds the slot's points).
        while rowIndex < rows.count, rows[rowIndex].slot < slot { rowIndex += 1 }
        while rowIndex < rows.count, rows[rowIndex].slot == slot {
            if nearSlot[rows[rowIndex].station] {
                field.record(rows[rowIndex].station, values: rows[rowIndex].concentration, in: &readings)
            }
            rowIndex += 1
        }
        // Stations stand near the slot's points and none has a row: whether the archive lacks the
        // hour or only they were silent (a station elsewhere reported) decides what the slot says.
        if readings.candidateCount == 0, nearSlotCount > 0 {
            nationalHasRow = !(try await store.dustValues(stations: archive, from: slot, to: slot.advanced(by: 1))).isEmpty
        }
    }

    /// The values of `stations` (indices in `field`) over `[from, to)`, each row by its index in `field`.
    private static func read(
        _ stations: [Int], of field: WeightingStations, from: Slot, to: Slot, _ store: any ReadingStore
    ) async throws(StorageFailure) -> [StationDust] {
        guard !stations.isEmpty else { return [] }
        var rows = try await store.dustValues(stations: stations.map { field.names[$0] }, from: from, to: to)
        // In place: a stretch of a month near 서울 is some 40,000 rows.
        for index in rows.indices { rows[index].station = stations[rows[index].station] }
        return rows
    }

    /// The index of the first position at or after `instant`.
    private func firstPosition(from instant: Date) -> Int {
        var low = 0
        var high = positions.count
        while low < high {
            let middle = (low + high) / 2
            if positions[middle].at < instant { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The stations of `field` that may stand within the radius of the home or a position covering
    /// part of `[from, to)`, by index: a box around those points widened by more than the radius (a
    /// degree of latitude is 111.2 km on the sphere, of longitude 111.2 km × cos φ at most), so it
    /// never leaves out a station the weighting could choose. Empty without points.
    private func stationsNear(from: Slot, to: Slot) -> [Int] {
        var south = Double.infinity
        var north = -Double.infinity
        var west = Double.infinity
        var east = -Double.infinity
        func include(_ latitude: Double, _ longitude: Double) {
            south = min(south, latitude)
            north = max(north, latitude)
            west = min(west, longitude)
            east = max(east, longitude)
        }
        if let home { include(home.latitude, home.longitude) }
        var index = firstPosition(from: from.start.addingTimeInterval(-TrackCoverage.positionCover))
        while index < positions.count, positions[index].at < to.start {
            include(positions[index].position.latitude, positions[index].position.longitude)
            index += 1
        }
        guard south <= north else { return [] }
        let latitudeMargin = radius / 110
        let widest = max(abs(south), abs(north)) + latitudeMargin
        let longitudeMargin = widest < 89 ? radius / (110 * cos(widest * Double.pi / 180)) : 360
        let everyLongitude = west - longitudeMargin < -180 || east + longitudeMargin > 180
        return locations.indices.filter { index in
            let location = locations[index]
            return location.latitude >= south - latitudeMargin && location.latitude <= north + latitudeMargin
                && (everyLongitude || (location.longitude >= west - longitudeMargin && location.longitude <= east + longitudeMargin))
        }
    }

    /// The stations one pollutant's weightings used in a slot, each at its nearest distance.
    private struct UsedStations {
        private var distances: [Double] = []
        private var used: [Int] = []

        init() {}
        init(count: Int) { distances = [Double](repeating: .infinity, count: count) }

        mutating func note(_ nearest: WeightingStations.Nearest) {
            for rank in 0..<nearest.count {
                let index = nearest.index(rank)
                if distances[index] == .infinity { used.append(index) }
                distances[index] = min(distances[index], nearest.distanceKilometres(rank))
            }
        }

        /// Nearest first (equal distances by name), as `SlotPlaceSummary.stations` orders them;
        /// forgets them for the next slot.
        mutating func take(names: [String]) -> [SlotPlaceSummary.UsedStation] {
            let result = used.map { SlotPlaceSummary.UsedStation(station: names[$0], kilometres: distances[$0]) }
            for index in used { distances[index] = .infinity }
            used.removeAll(keepingCapacity: true)
            return result.sorted { ($0.kilometres, $0.station) < ($1.kilometres, $1.station) }
        }
    }

    /// The slot's place, from the rows `prepare(slot)` recorded.
    mutating func place(_ slot: Slot) -> SlotPlace {
        // No row for the slot among its own stations. None stands near its points: say so, not that
        // the archive lacks the hour; they were silent while another station reported: none with a
        // value stood within the radius. Only when no station at all has the hour is it no national data.
        let stationCount = stationCount
        let nearby = nearSlotCount
        let nationalHasRow = nationalHasRow
        func reason(_ fallback: WeightingFallback?) -> WeightingFallback? {
            guard fallback == .noNationalData else { return fallback }
            if nearby == 0 { return stationCount == 0 ? .noStationPositions : .noStationWithinRadius }
            return nationalHasRow ? .noStationWithinRadius : .noNationalData
        }
        var home: SlotPlace.Home?
        if let homePoint = self.home {
            let nearest = field.nearest(to: homePoint, readings: readings, radiusKilometres: radius)
            let weighted = DustPair(byPollutant: { field.weightedValue(nearest[$0], pollutant: $0, readings: readings) })
            func fallback(_ value: WeightedValue) -> WeightingFallback? {
                if case .fallback(let why) = value.outcome { return why }
                return nil
            }
            home = SlotPlace.Home(
                values: weighted.map(\.value), stations: SlotPlaceSummary.stations(weighted.map { [$0] }),
                fallback: reason(fallback(weighted.fineDust) ?? fallback(weighted.ultraFineDust)))
        }
        // Positions that may cover part of the slot: from one cover before its start to its end.
        let earliest = slot.start.addingTimeInterval(-TrackCoverage.positionCover)
        while positionIndex < positions.count, positions[positionIndex].at < earliest { positionIndex += 1 }
        var end = positionIndex
        while end < positions.count, positions[end].at < slot.end { end += 1 }
        let inSlot = positions[positionIndex..<end]
        var track = SlotPlace.Track(positions: inSlot.map(\.at))
        track.values = [DustPair<Double?>](repeating: DustPair(repeating: nil), count: inSlot.count)
        let coverage = TrackCoverage(positions: track.positions, slotStart: slot.start, slotEnd: slot.end)
        // Each covered position weighed once for both pollutants; the first fallback of PM10's
        // positions, else of PM2.5's, names the slot's.
        var fineFallback: WeightingFallback?
        var ultraFineFallback: WeightingFallback?
        var previousNearest: DustPair<WeightingStations.Nearest>?
        var offset = 0
        for piece in coverage.pieces {
            // Pieces and positions are both in time order, one instant each.
            while track.positions[offset] != piece.at { offset += 1 }
            let position = inSlot[inSlot.startIndex + offset]
            let nearest = field.nearest(
                to: position.position, readings: readings, radiusKilometres: radius,
                near: previousNearest)
            previousNearest = nearest
            usedFine.note(nearest.fineDust)
            usedUltraFine.note(nearest.ultraFineDust)
            if fineFallback == nil { fineFallback = nearest.fineDust.fallback }
            if ultraFineFallback == nil { ultraFineFallback = nearest.ultraFineDust.fallback }
            track.values[offset] = DustPair(fineDust: nearest.fineDust.value, ultraFineDust: nearest.ultraFineDust.value)
        }
        track.stations = DustPair(fineDust: usedFine.take(names: field.names), ultraFineDust: usedUltraFine.take(names: field.names))
        track.fallback = reason(fineFallback ?? ultraFineFallback)
        return SlotPlace(home: home, track: track, hasPlacedValue: readings.hasPlacedValue)
    }
}

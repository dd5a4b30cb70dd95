import DustKit
import Foundation

/// The station whose readings drive intake, and the stations that fill its gaps (docs/REFERENCE.md §5).
public struct StationPreference: Sendable, Hashable {
    public var primary: String
    public var fallbacks: [String]

    public init(primary: String, fallbacks: [String] = []) {
        self.primary = primary
        self.fallbacks = fallbacks.filter { $0 != primary }
    }

    /// Primary first, then the fallbacks in order.
    public var all: [String] { [primary] + fallbacks }
}

/// A day's exposure: its hours and totals.
public struct DayReport: Sendable, Hashable {
    public var date: LocalDate
    /// Whose day it is (docs/REFERENCE.md §18).
    public var person = Person.defaultName
    public var station: String
    /// Every slot of the day (24, or 23 / 25 on DST changes).
    public var slotCount: Int
    /// Slots that have ended by now (all of them for a past day).
    public var elapsedSlots: Int
    /// The slots for which any station had a stored reading, in order.
    public var hourly: [HourlyExposure]
    public var totals: ExposureTotals
    /// The slots of the day with walking stored, in order, each with its merged distance and the
    /// source that gave it (docs/REFERENCE.md §12), whether or not a station reported that hour.
    public var walking: [WalkingHour] = []
    /// The day's gases and index, from the primary station's hours (docs/REFERENCE.md §17).
    public var gasTotals = GasTotals([])

    /// The latest hour with at least one known value.
    public var latest: HourlyExposure? {
        hourly.last { $0.concentration.fineDust != nil || $0.concentration.ultraFineDust != nil }
    }

    /// The latest hour with a known gas value or index.
    public var latestGases: HourlyExposure? {
        hourly.last { $0.gases.hasKnownValue }
    }
}

/// One hour's walking: the largest distance of its sources and the source it came from.
public struct WalkingHour: Sendable, Hashable {
    public var slot: Slot
    public var metres: Double
    /// `health:<sourceName>`, `gpx:<file name>` or `csv`: text from an imported file.
    public var source: String

    public init(slot: Slot, metres: Double, source: String) {
        self.slot = slot
        self.metres = metres
        self.source = source
    }
}

/// A run of days (a rolling or ISO week) and its totals.
public struct WeekReport: Sendable, Hashable {
    /// `2026-W47` for an ISO week, nil for a rolling week.
    public var isoWeek: ISOWeek?
    public var days: [DayReport]
    public var totals: ExposureTotals

    public var start: LocalDate { days.first!.date }
    public var end: LocalDate { days.last!.date }
}

/// Daily and weekly totals computed from stored readings, activity and the intake model, for one
/// person of the household (docs/REFERENCE.md §18).
///
/// Intake is computed at query time, so what `dustctl` shows always agrees with the stored
/// concentrations, the imported activity and the configured model.
/// What following a person needs (docs/REFERENCE.md §19): their stored positions, where the
/// stations stand, and how far a station may be to count.
public struct LocationInputs: Sendable {
    public var positions: any PositionReadStore
    /// Where the stations stand; read only for a person with `home` or positions in the range.
    public var stationList: any StationStore
    public var radiusKilometres: Double
    /// Where weighed hours are kept: a report reads them instead of weighing them again, and
    /// `StatisticsService.keepPlaces` keeps them. nil weighs every hour at each read.
    public var places: (any SlotPlaceStore)?

    public init(
        positions: any PositionReadStore, stationList: any StationStore, radiusKilometres: Double, places: (any SlotPlaceStore)? = nil
    ) {
        self.positions = positions
        self.stationList = stationList
        self.radiusKilometres = radiusKilometres
        self.places = places
    }
}

public struct StatisticsService: Sendable {
    private let readings: any ReadingStore
    private let activity: any ActivityReadStore
    private let physiology: (any PhysiologyReadStore)?
    private let clock: any WallClock
    public let calendar: DayCalendar
    public let intakeModel: any IntakeModel
    public let stations: StationPreference
    /// Whose dose this is: their walking, heart rate and sleep, and with `born` their age's rates.
    public let person: Person
    /// Positions and station positions for §19; nil follows no one (the home station's values).
    public let location: LocationInputs?

    /// - Parameters:
    ///   - physiology: heart rate and sleep; nil reads none (the dose of §4 alone).
    ///   - person: nil for `me`, the one person of an installation without `people:`, whose
    ///     station, infiltration and schedule are already in `stations` and `intakeModel`.
    public init(
        readings: any ReadingStore, activity: any ActivityReadStore, clock: any WallClock,
        calendar: DayCalendar, intakeModel: any IntakeModel, stations: StationPreference,
        physiology: (any PhysiologyReadStore)? = nil, person: Person? = nil, location: LocationInputs? = nil
    ) {
        self.location = location
        self.readings = readings
        self.activity = activity
        self.physiology = physiology
        self.clock = clock
        self.calendar = calendar
        self.intakeModel = intakeModel
        self.stations = stations
        self.person = person ?? Person(name: Person.defaultName, station: stations.primary)
    }

    /// The same statistics for `person`: their home station first (the configured fallbacks after
    /// it), their infiltration and schedule with the configured adult rates, their records.
    public func forPerson(_ person: Person) -> StatisticsService {
        var model = intakeModel
        if let ventilation = intakeModel as? VentilationIntakeModel,
            let personal = try? VentilationIntakeModel(
                infiltration: person.infiltration, rates: ventilation.rates, schedule: person.schedule)
        {
            model = personal
        }
        let home = person.station ?? stations.primary
        return StatisticsService(
            readings: readings, activity: activity, clock: clock, calendar: calendar, intakeModel: model,
            stations: StationPreference(primary: home, fallbacks: stations.all), physiology: physiology, person: person,
            location: location)
    }

    /// Today in the configured time zone.
    public var today: LocalDate { calendar.date(containing: clock.now) }

    /// The stored readings of `stations` for the 24 hours up to now (the latest hour of each, for
    /// `/metrics`); never a slot that has not ended.
    public func recentReadings(stations: [String]) async throws(StorageFailure) -> [HourlyReading] {
        let end = Slot(containing: clock.now)
        return try await readings.readings(stations: stations, from: end.advanced(by: -24), to: end)
    }

    /// One day.
    public func day(_ date: LocalDate) async throws(StorageFailure) -> DayReport {
        try await days(from: date, through: date)[0]
    }

    /// Every day from `first` through `last`, read with one query.
    public func days(from first: LocalDate, through last: LocalDate) async throws(StorageFailure) -> [DayReport] {
        try await days(from: first, through: last, stored: nil)
    }

    /// Each person's days from `first` through `last`, in the order of `people`: the readings of
    /// every station any of them uses are read with one query, so the household costs little more
    /// than one person (docs/REFERENCE.md §18).
    public func household(
        _ people: [Person], from first: LocalDate, through last: LocalDate
    ) async throws(StorageFailure)
        -> [[DayReport]]
    {
        let services = people.map(forPerson)
        var stationNames: [String] = []
        for name in services.flatMap(\.stations.all) where !stationNames.contains(name) { stationNames.append(name) }
        var stored: [HourlyReading] = []
        if first <= last, let firstSlot = calendar.slots(of: first).first, let lastSlot = calendar.slots(of: last).last {
            stored = try await readings.readings(stations: stationNames, from: firstSlot, to: lastSlot.advanced(by: 1))
        }
        var result: [[DayReport]] = []
        for service in services { result.append(try await service.days(from: first, through: last, stored: stored)) }
        return result
    }

    /// `stored`: readings already read for these slots (of these stations and maybe others); nil reads them.
    private func days(
        from first: LocalDate, through last: LocalDate, stored: [HourlyReading]?
    ) async throws(StorageFailure)
        -> [DayReport]
    {
        guard first <= last else { return [] }
        let dates = (0...(last.daysSinceEpoch - first.daysSinceEpoch)).map { first.adding(days: $0) }
        let slotsByDay = dates.map { calendar.slots(of: $0) }
        let allSlots = slotsByDay.flatMap { $0 }
        guard let firstSlot = allSlots.first, let lastSlot = allSlots.last else {
            return dates.map { emptyDay($0) }
        }
        let found = try await exposures(from: firstSlot, to: lastSlot.advanced(by: 1), stored: stored)
        let exposures = found.hourly
        let walking = found.walking
        let now = clock.now
        var cursor = exposures.startIndex
        return zip(dates, slotsByDay).map { date, slots in
            var hourly: [HourlyExposure] = []
            let end = slots.last.map { $0.advanced(by: 1) }
            while cursor < exposures.endIndex, let end, exposures[cursor].slot < end {
                if let start = slots.first, exposures[cursor].slot >= start { hourly.append(exposures[cursor]) }
                cursor += 1
            }
            return DayReport(
                date: date, person: person.name, station: stations.primary, slotCount: slots.count,
                elapsedSlots: slots.filter { $0.end <= now }.count,
                hourly: hourly, totals: ExposureTotals(hourly, gradedOn: date),
                walking: slots.compactMap { slot in walking[slot].map { WalkingHour(slot: slot, metres: $0.metres, source: $0.source) } },
                gasTotals: GasTotals(hourly.map(\.gases)))
        }
    }

    /// The rolling week ending on `end`: `end − 6` … `end` (what `dustctl week` shows).
    public func rollingWeek(endingOn end: LocalDate) async throws(StorageFailure) -> WeekReport {
        let days = try await days(from: end.adding(days: -6), through: end)
        return WeekReport(isoWeek: nil, days: days, totals: ExposureTotals(days.flatMap(\.hourly), gradedOn: end))
    }

    /// An ISO week, Monday to Sunday.
    public func week(_ week: ISOWeek) async throws(StorageFailure) -> WeekReport {
        let days = try await days(from: week.monday, through: week.monday.adding(days: 6))
        return WeekReport(isoWeek: week, days: days, totals: ExposureTotals(days.flatMap(\.hourly), gradedOn: days.last!.date))
    }

    /// The ISO weeks that overlap `first` … `last`, each whole.
    public func weeks(from first: LocalDate, through last: LocalDate) async throws(StorageFailure) -> [WeekReport] {
        let firstWeek = ISOWeek(containing: first)
        let lastWeek = ISOWeek(containing: last)
        let days = try await days(from: firstWeek.monday, through: lastWeek.monday.adding(days: 6))
        return stride(from: 0, to: days.count, by: 7).map { index in
            let weekDays = Array(days[index..<(index + 7)])
            return WeekReport(
                isoWeek: ISOWeek(containing: weekDays[0].date), days: weekDays,
                totals: ExposureTotals(weekDays.flatMap(\.hourly), gradedOn: weekDays.last!.date))
        }
    }

    /// Weighs the person's hours from `first` through `last` that the store keeps no place for, and
    /// keeps them (docs/REFERENCE.md §19): what dustd does after each poll and an import does for its
    /// tracks, so a report reads a year of places instead of weighing a year of positions. A month
    /// at a time, so a long span never holds more than a month of positions and values. Returns how
    /// many places were kept; a write that raced a month leaves that month to the next call.
    @discardableResult
    public func keepPlaces(from first: LocalDate, through last: LocalDate) async throws(StorageFailure) -> Int {
        guard let location, let places = location.places, first <= last else { return 0 }
        var kept = 0
        var monthStart = first
        let inputs = SlotPlace.inputs(radiusKilometres: location.radiusKilometres, home: person.home)
        // dustd stopping ends the pass between months; the next start takes it up.
        while monthStart <= last, !Task.isCancelled {
            let monthEnd = min(monthStart.adding(days: 30), last)
            if let firstSlot = calendar.slots(of: monthStart).first, let lastSlot = calendar.slots(of: monthEnd).last,
                // Once caught up a month has nothing missing: told from its hours and kept places
                // alone, without reading its body records or computing its intake.
                try await hasUnkeptHours(from: firstSlot, to: lastSlot.advanced(by: 1), inputs: inputs, places: places),
                let weighed = try await exposures(from: firstSlot, to: lastSlot.advanced(by: 1), stored: nil, keeping: true).weighed,
                !weighed.places.isEmpty,
                try await places.keepSlotPlaces(
                    weighed.places, person: person.name, inputs: weighed.inputs, generation: weighed.generation)
            {
                kept += weighed.places.count
            }
            monthStart = monthEnd.adding(days: 1)
        }
        return kept
    }

    /// Whether an hour of `[from, to)` with readings of the person's stations has no place kept with
    /// `inputs`, for a person location can follow there (a `home`, or a position in the span).
    private func hasUnkeptHours(from: Slot, to: Slot, inputs: String, places: any SlotPlaceStore) async throws(StorageFailure) -> Bool {
        let kept = Set(try await places.slotPlaces(person: person.name, inputs: inputs, from: from, to: to).map(\.slot))
        guard try await readings.readings(stations: stations.all, from: from, to: to).contains(where: { !kept.contains($0.slot) }) else {
            return false
        }
        guard person.home == nil, let location else { return true }
        return try await !location.positions.trackPoints(
            person: person.name, from: from.start.addingTimeInterval(-TrackCoverage.positionCover), to: to.start
        ).isEmpty
    }

    private func emptyDay(_ date: LocalDate) -> DayReport {
        DayReport(
            date: date, person: person.name, station: stations.primary, slotCount: 0, elapsedSlots: 0, hourly: [],
            totals: ExposureTotals([], gradedOn: date))
    }

    /// What `exposures` found: the hours, the walking, and the places it weighed that the store did not keep.
    private struct Exposures {
        var hourly: [HourlyExposure]
        var walking: [Slot: SlotWalking]
        var weighed: WeighedPlaces?
    }

    /// Merged hourly exposures for slots in `[from, to)`: primary values first, then the first
    /// fallback that has a value, per pollutant; intake from the merged value and the slot's activity.
    /// `keeping`: collect the places weighed for `keepPlaces` (a report only reads).
    private func exposures(
        from: Slot, to: Slot, stored prefetched: [HourlyReading]?, keeping: Bool = false
    ) async throws(StorageFailure) -> Exposures {
        let ownStations = Set(stations.all)
        let stored =
            if let prefetched {
                prefetched.filter { ownStations.contains($0.station) && $0.slot >= from && $0.slot < to }
            } else {
                try await readings.readings(stations: stations.all, from: from, to: to)
            }
        let walking = try await activity.walking(person: person.name, from: from, to: to)
        var body = try await bodyRecords(from: from, to: to)
        var slots: [Slot] = []
        for reading in stored where reading.slot != slots.last { slots.append(reading.slot) }
        var whereabouts = try await locationRecords(from: from, to: to, slots: slots, keeping: keeping)
        let rank = Dictionary(uniqueKeysWithValues: stations.all.enumerated().map { ($1, $0) })
        var result: [HourlyExposure] = []
        var index = stored.startIndex
        while index < stored.endIndex {
            let slot = stored[index].slot
            var sameSlot: [HourlyReading] = []
            while index < stored.endIndex, stored[index].slot == slot {
                sameSlot.append(stored[index])
                index += 1
            }
            sameSlot.sort { rank[$0.station, default: .max] < rank[$1.station, default: .max] }
            let supplier = DustPair(byPollutant: { pollutant in sameSlot.first { $0.concentration[pollutant] != nil } })
            let concentration = supplier.map { $0?.concentration }
            let merged = DustPair(byPollutant: { pollutant in concentration[pollutant].flatMap { $0[pollutant] } })
            let primary = sameSlot.first { $0.station == stations.primary }
            let distance = walking[slot]?.metres
            var intake: DustPair<Double?>
            var breathing: SlotBreathing?
            var place: SlotWhereabouts?
            if let ventilation = intakeModel as? VentilationIntakeModel {
                let slotBreathing = breathe(slot, model: ventilation, walkingDistance: distance, body: &body)
                intake = merged.map { $0.map { slotBreathing.intake(concentration: $0, infiltration: ventilation.infiltration) } }
                breathing = slotBreathing
                if let followed = try await whereabouts.follow(
                    slot, stationValues: merged, model: ventilation, person: person, calendar: calendar, body: body)
                {
                    place = followed.whereabouts
                    breathing = followed.trackedBreathing ?? slotBreathing
                    intake =
                        followed.trackedIntake
                        ?? followed.homeConcentration.map {
                            $0.map { slotBreathing.intake(concentration: $0, infiltration: ventilation.infiltration) }
                        }
                }
            } else {
                intake = intakeModel.intake(merged, localHour: calendar.hour(of: slot), walkingDistance: distance)
            }
            result.append(
                HourlyExposure(
                    slot: slot,
                    concentration: merged,
                    source: supplier.map { $0?.station },
                    flag: primary?.flag ?? DustPair(repeating: nil),
                    intake: intake,
                    walkingDistance: distance,
                    gases: primary?.gases ?? .unknown,
                    breathing: breathing,
                    whereabouts: place))
        }
        return Exposures(hourly: result, walking: walking, weighed: whereabouts.weighed)
    }

    /// The person's heart rate, resting rates and sleep over `[from, to)`, read once; none
    /// without a physiology store or for a model that does not breathe.
    private func bodyRecords(from: Slot, to: Slot) async throws(StorageFailure) -> BodyCursor {
        guard let physiology, intakeModel is VentilationIntakeModel else { return BodyCursor(StoredPhysiology()) }
        return BodyCursor(try await physiology.physiology(person: person.name, from: from.start, to: to.start))
    }

    /// Where the person was in `slots` (those of `[from, to)` with readings, in order): the places
    /// the store keeps, and for the others the person's positions, read once, and the stations near
    /// them, whose values the weigher reads a month at a time. Inactive without location inputs, for
    /// a model that does not breathe, or for a person with neither `home` nor a position in the slots.
    private func locationRecords(from: Slot, to: Slot, slots: [Slot], keeping: Bool) async throws(StorageFailure) -> LocationCursor {
        guard let location, intakeModel is VentilationIntakeModel else { return LocationCursor() }
        let inputs = SlotPlace.inputs(radiusKilometres: location.radiusKilometres, home: person.home)
        // Kept as bytes until their slot comes (a year decoded at once is twice the memory), each
        // decoded once here to know it parses and whether it holds positions.
        var kept: [Slot: [UInt8]] = [:]
        var tracked = false
        var generation: Int64?
        if let places = location.places, !slots.isEmpty {
            // Read before the rows a weighing uses: a write after it raises the generation, and what
            // was weighed from older rows is not kept.
            if keeping { generation = try await places.placeGeneration() }
            for stored in try await places.slotPlaces(person: person.name, inputs: inputs, from: from, to: to) {
                guard let place = SlotPlace(bytes: stored.bytes, slot: stored.slot) else { continue }
                kept[stored.slot] = stored.bytes
                if !tracked && !place.track.positions.isEmpty { tracked = true }
            }
        }
        let missing = slots.filter { kept[$0] == nil }
        guard let first = missing.first, let last = missing.last else {
            return LocationCursor(kept: kept, weigher: nil, active: person.home != nil || tracked, inputs: inputs, generation: generation)
        }
        let positions = try await location.positions.trackPoints(
            person: person.name, from: first.start.addingTimeInterval(-TrackCoverage.positionCover), to: last.end)
        // Location follows the person when a position may cover part of an hour weighed — what a
        // kept place of that hour would record — not merely one between those hours.
        guard person.home != nil || tracked || Self.anyPosition(positions, covering: missing) else {
            return LocationCursor(kept: kept, weigher: nil, active: false, inputs: inputs, generation: generation)
        }
        guard person.home != nil || !positions.isEmpty else {
            return LocationCursor(kept: kept, weigher: nil, active: true, inputs: inputs, generation: generation)
        }
        var points = positions.map { GeoPoint(latitude: $0.latitude, longitude: $0.longitude) }
        if let home = person.home { points.append(home) }
        let known = try await location.stationList.stations()
        let placed = StationPositions(stations: known)
        let nearby = placed.names(near: points, withinKilometres: location.radiusKilometres)
        // The person's own stations always have a row for the hours weighed (those hours are theirs):
        // whether the archive has an hour is told by the others.
        let own = Set(stations.all)
        let weigher = PlaceWeigher(
            stations: placed, archive: known.map(\.name).filter { !own.contains($0) }, radiusKilometres: location.radiusKilometres,
            positions: positions,
            home: person.home, nearby: nearby, readings: readings, until: last.advanced(by: 1))
        return LocationCursor(kept: kept, weigher: weigher, active: true, inputs: inputs, generation: generation)
    }

    /// Whether a position of `positions` (in time order) may cover part of one of `slots` (in order):
    /// one lies from a minute before the slot's start to its end.
    private static func anyPosition(_ positions: [TrackPoint], covering slots: [Slot]) -> Bool {
        var index = 0
        for slot in slots {
            let earliest = slot.start.addingTimeInterval(-TrackCoverage.positionCover)
            while index < positions.count, positions[index].at < earliest { index += 1 }
            if index < positions.count, positions[index].at < slot.end { return true }
        }
        return false
    }

    /// §18: sleep, then heart rate, then §4's level, with the person's age row when `born` is set.
    private func breathe(_ slot: Slot, model: VentilationIntakeModel, walkingDistance: Double?, body: inout BodyCursor) -> SlotBreathing {
        let scheduled = model.scheduledLevel(atHour: calendar.hour(of: slot), walkingDistance: walkingDistance)
        let day = calendar.date(containing: slot.start)
        let age = person.born.map { $0.age(on: day) }
        let resting = SlotPhysiology.restingBeatsPerMinute(
            on: day, configured: person.restingHeartRate, health: body.stored.restingHeartRate, calendar: calendar)
        return SlotBreathing.of(
            start: slot.start, end: slot.end,
            physiology: SlotPhysiology(sleep: body.sleep(in: slot), heartRate: body.heartRate(in: slot), restingBeatsPerMinute: resting),
            age: age, rates: age.map(AgeVentilationTable.rates(age:)) ?? model.rates,
            fallbackLevel: scheduled.level, fallbackSource: scheduled.source, outdoors: scheduled.outdoors)
    }
}

/// A range's body records walked slot by slot in time order, so a week of minute-by-minute heart
/// rate is scanned once, not once per slot.
private struct BodyCursor {
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
private struct WeighedPlaces {
    var places: [StoredSlotPlace]
    var inputs: String
    /// The generation read before the rows the places were weighed from.
    var generation: Int64
}

/// A range's places walked slot by slot in time order (docs/REFERENCE.md §19): each slot's kept
/// place, or one weighed now, turned into the slot's value at home, intake and `where`.
private struct LocationCursor {
    private var kept: [Slot: [UInt8]] = [:]
    private var weigher: PlaceWeigher?
    /// Whether location follows the person in this range: they have `home` or a position in it.
    private var active = false
    private var inputs = ""
    private var generation: Int64?
    private var weighedNow: [StoredSlotPlace] = []

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
    var weighed: WeighedPlaces? {
        guard active, let generation else { return nil }
        return WeighedPlaces(places: weighedNow, inputs: inputs, generation: generation)
    }

    /// Where the slot's concentration comes from when location applies (nil when it does not): the
    /// value at home, and for a tracked slot §19's intake. Slots come in time order.
    mutating func follow(
        _ slot: Slot, stationValues: DustPair<Double?>, model: VentilationIntakeModel, person: Person, calendar: DayCalendar,
        body: BodyCursor
    ) async throws(StorageFailure) -> (
        homeConcentration: DustPair<Double?>, trackedIntake: DustPair<Double?>?, trackedBreathing: SlotBreathing?,
        whereabouts: SlotWhereabouts
    )? {
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
            if generation != nil { weighedNow.append(StoredSlotPlace(slot: slot, bytes: place.bytes(slot: slot))) }
        }
        return Self.resolve(place, slot: slot, stationValues: stationValues, model: model, person: person, calendar: calendar, body: body)
    }

    /// The slot's value at home, intake and `where` from its place, the home station's values and
    /// the body records: everything of §19 that does not depend on the stations' positions.
    private static func resolve(
        _ place: SlotPlace, slot: Slot, stationValues: DustPair<Double?>, model: VentilationIntakeModel, person: Person,
        calendar: DayCalendar, body: BodyCursor
    ) -> (
        homeConcentration: DustPair<Double?>, trackedIntake: DustPair<Double?>?, trackedBreathing: SlotBreathing?,
        whereabouts: SlotWhereabouts
    ) {
        // The value at home: weighted when `home` is set and a station is near, else the home station's.
        let homeConcentration =
            place.home.map { home in DustPair(byPollutant: { home.values[$0] ?? stationValues[$0] }) } ?? stationValues
        let positions = place.track.positions
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
            let whereabouts = SlotWhereabouts(kind: atHome ? .home : .homeStation, stations: home.stations, fallback: home.fallback)
            return (homeConcentration, nil, nil, whereabouts)
        }
        // Pieces and positions are both in time order, one instant each.
        let values = place.track.values
        var positionCursor = 0
        let trackedConcentration = coverage.timeWeightedMeans { piece in
            while positions[positionCursor] != piece.at { positionCursor += 1 }
            let value = values[positionCursor]
            return DustPair(
                fineDust: value.fineDust ?? homeConcentration.fineDust,
                ultraFineDust: value.ultraFineDust ?? homeConcentration.ultraFineDust)
        }
        let intake = DustPair(byPollutant: { pollutant -> Double? in
            guard let concentration = trackedConcentration[pollutant] else { return nil }
            return tracked.intake(
                trackedConcentration: concentration, homeConcentration: homeConcentration[pollutant], infiltration: model.infiltration)
        })
        // Without national data or station positions for the slot the track says nothing about the
        // air: the slot is §4/§18's, as without location, and says why.
        // (No station near enough is not that: the track then takes the value at home, §19.)
        if !place.hasPlacedValue, let why = place.track.fallback, why != .noStationWithinRadius {
            return (homeConcentration, nil, nil, SlotWhereabouts(kind: .homeStation, fallback: why))
        }
        let whereabouts = SlotWhereabouts(
            kind: .track, trackedFraction: tracked.trackedFraction, stations: place.track.stations, fallback: place.track.fallback)
        return (homeConcentration, intake, tracked.slot, whereabouts)
    }
}

/// A range's positions and nearby readings walked slot by slot in time order, weighing each slot's
/// place (docs/REFERENCE.md §19). What a slot's place says depends only on the slot's own points (its
/// positions and home) and the stations near them, never on the range it was weighed in, so a kept
/// place and one weighed now agree.
private struct PlaceWeigher {
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
            include(positions[index].latitude, positions[index].longitude)
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

        /// Nearest first (equal distances by name), as `SlotWhereabouts.stations` orders them;
        /// forgets them for the next slot.
        mutating func take(names: [String]) -> [SlotWhereabouts.UsedStation] {
            let result = used.map { SlotWhereabouts.UsedStation(station: names[$0], kilometres: distances[$0]) }
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
                values: weighted.map(\.value), stations: SlotWhereabouts.stations(weighted.map { [$0] }),
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
                to: GeoPoint(latitude: position.latitude, longitude: position.longitude), readings: readings, radiusKilometres: radius,
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

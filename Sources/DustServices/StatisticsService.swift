import DustKit
import Foundation

/// Daily and weekly totals computed from stored readings, activity and the intake model, for one
/// person of the household (docs/REFERENCE.md §18).
///
/// Intake is computed at query time, so what `dustctl` shows always agrees with the stored
/// concentrations, the imported activity and the configured model.
public struct StatisticsService: Sendable {
    private let readings: any ReadingStore
    private let activity: any ActivityReadStore
    private let physiology: (any PhysiologyReadStore)?
    /// The home's indoor samples (docs/REFERENCE.md §21); nil reads none (§4's estimate indoors).
    private let indoor: (any IndoorReadStore)?
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
        physiology: (any PhysiologyReadStore)? = nil, person: Person? = nil, location: LocationInputs? = nil,
        indoor: (any IndoorReadStore)? = nil
    ) {
        self.indoor = indoor
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
            location: location, indoor: indoor)
    }

    /// `F` of the person's home (§4); 0.7 for a model that does not breathe.
    private var infiltration: Double { (intakeModel as? VentilationIntakeModel)?.infiltration ?? person.infiltration }

    /// Today in the configured time zone.
    public var today: LocalDate { calendar.date(containing: clock.now) }

    /// The stored readings of `stations` for the 24 hours up to now (the latest hour of each, for
    /// `/metrics`); never a slot that has not begun. A slot stored while it runs (only a clock a
    /// little behind AirKorea's, or the demo, has one) counts, as on the day's card.
    public func recentReadings(stations: [String]) async throws(StorageFailure) -> [HourlyReading] {
        let end = Slot(containing: clock.now).advanced(by: 1)
        return try await readings.readings(stations: stations, from: end.advanced(by: -24), to: end)
    }

    /// The newest stored hour of the home station with a known PM10 or PM2.5, whatever its day (not
    /// one that has not begun, as `recentReadings`): what a today view shows between midnight and
    /// the first hour of the day (docs/REFERENCE.md §6, `latest`). Nil when the station has none in
    /// the day before its newest.
    public func latestReading() async throws(StorageFailure) -> HourlyReading? {
        let begun = Slot(containing: clock.now).end
        return try await latestReading(endingWith: try await readings.newestSlot(station: stations.primary, endingBy: begun))
    }

    /// `latestReading`, and the end of the home station's newest stored hour whatever the clock says
    /// (one ending after the clock means the clock is behind, `DaemonHealth.clockBehind`, as a Raspberry
    /// Pi's is before NTP): what `dustctl today` shows, both newest slots read by one statement.
    public func latestReadingAndNewestStoredHourEnd() async throws(StorageFailure) -> (
        latest: HourlyReading?, newestStoredHourEnd: Date?
    ) {
        let slots = try await readings.newestSlots(station: stations.primary, endingBy: Slot(containing: clock.now).end)
        return (try await latestReading(endingWith: slots.endedByNow), slots.stored?.end)
    }

    /// The newest hour with a known PM10 or PM2.5 among the day of hours ending with `newest`.
    private func latestReading(endingWith newest: Slot?) async throws(StorageFailure) -> HourlyReading? {
        guard let newest else { return nil }
        let day = try await readings.readings(stations: [stations.primary], from: newest.advanced(by: -23), to: newest.advanced(by: 1))
        return day.last { $0.concentration.fineDust != nil || $0.concentration.ultraFineDust != nil }
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
        let today = calendar.date(containing: now)
        var cursor = exposures.startIndex
        return zip(dates, slotsByDay).map { date, slots in
            var hourly: [HourlyExposure] = []
            let end = slots.last.map { $0.advanced(by: 1) }
            while cursor < exposures.endIndex, let end, exposures[cursor].slot < end {
                // Today holds the hours that have begun only (stored later ones exist under `--now` or a
                // clock set back after they were stored): its card, its totals "so far" and its JSON's
                // `latest` (`latestReading`) then name one hour, not 23 measured of 10 elapsed.
                if let start = slots.first, exposures[cursor].slot >= start, date != today || exposures[cursor].slot.start <= now {
                    hourly.append(exposures[cursor])
                }
                cursor += 1
            }
            return DayReport(
                date: date, person: person.name, station: stations.primary, slotCount: slots.count,
                // The hours ended, and today's hour under way when it holds a reading (a clock behind
                // the stored hours): never more measured than elapsed ("11 of 10").
                elapsedSlots: slots.filter { slot in
                    slot.end <= now || (slot.start <= now && hourly.contains { $0.slot == slot })
                }.count,
                hourly: hourly, totals: ExposureTotals(hourly, gradedOn: date),
                walking: slots.compactMap { slot in walking[slot].map { WalkingHour(slot: slot, metres: $0.metres, source: $0.source) } },
                gasTotals: GasTotals(hourly.map(\.gases)),
                indoor: found.indoorActive ? IndoorDaySummary(hourly, infiltration: infiltration) : nil)
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
    /// tracks, so a report reads a year of places instead of weighing a year of positions. A week at
    /// a time, yielding between weeks: a long span never holds more than a week of positions and
    /// values, nor one of the task pool's threads (two on a Raspberry Pi, shared with the web) for
    /// longer than a week's weighing. Returns how many places were kept; a write that raced a week
    /// leaves that week to the next call.
    @discardableResult
    public func keepPlaces(from first: LocalDate, through last: LocalDate) async throws(StorageFailure) -> Int {
        guard let location, let places = location.places, first <= last else { return 0 }
        var kept = 0
        var weekStart = first
        let inputs = SlotPlace.inputs(radiusKilometres: location.radiusKilometres, home: person.home)
        // dustd stopping ends the pass between weeks; the next start takes it up.
        while weekStart <= last, !Task.isCancelled {
            let weekEnd = min(weekStart.adding(days: 6), last)
            if let firstSlot = calendar.slots(of: weekStart).first, let lastSlot = calendar.slots(of: weekEnd).last,
                // Once caught up a week has nothing missing: told from its hours and kept places
                // alone, without reading its body records or computing its intake.
                try await hasUnkeptHours(from: firstSlot, to: lastSlot.advanced(by: 1), inputs: inputs, places: places),
                let weighed = try await exposures(from: firstSlot, to: lastSlot.advanced(by: 1), stored: nil, keeping: true).weighed,
                !weighed.places.isEmpty,
                try await places.keepSlotPlaces(
                    weighed.places, person: person.name, inputs: weighed.inputs, generation: weighed.generation)
            {
                kept += weighed.places.count
            }
            weekStart = weekEnd.adding(days: 1)
            await Task.yield()
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
        var weighed: SlotPlacesToKeep?
        /// Whether the person's indoor sensors were read (the days then carry an indoor summary).
        var indoorActive = false
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
        var places = try await locationRecords(from: from, to: to, slots: slots, keeping: keeping)
        var indoorAir = try await indoorRecords(from: from, to: to)
        let nearHome = indoorAir == nil ? [] : try await positionsNearHome(from: from, to: to)
        // `all` names each station once (`StationPreference`).
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
            var place: SlotPlaceSummary?
            var indoorHour: IndoorHour?
            if let ventilation = intakeModel as? VentilationIntakeModel {
                let slotBreathing = breathe(slot, model: ventilation, walkingDistance: distance, body: &body)
                breathing = slotBreathing
                var outdoor = merged
                var trackedDose: TrackedDose?
                let slotPlace = try await places.place(slot)
                if let slotPlace {
                    let followed = LocationCursor.resolve(
                        slotPlace, slot: slot, stationValues: merged, model: ventilation, person: person, calendar: calendar, body: body)
                    place = followed.summary
                    breathing = followed.trackedBreathing ?? slotBreathing
                    outdoor = followed.homeConcentration
                    trackedDose = followed.trackedDose
                }
                let dose = { (indoor: DustPair<Double?>) -> DustPair<Double?> in
                    trackedDose?.intake(indoor: indoor)
                        ?? DustPair(byPollutant: { pollutant in
                            outdoor[pollutant].map {
                                slotBreathing.intake(concentration: $0, infiltration: ventilation.infiltration, indoor: indoor[pollutant])
                            }
                        })
                }
                intake = dose(DustPair(repeating: nil))
                if indoorAir != nil {
                    let measured = indoorAir!.value(slot)
                    let atHome = ventilation.entry(atHour: calendar.hour(of: slot)).atHome
                    var hour = IndoorHour(measured: measured, atHome: atHome, source: .infiltration, estimatedIntake: intake)
                    let usable = hour.usable
                    if usable.fineDust != nil || usable.ultraFineDust != nil {
                        // Tracked minutes within 300 m of home are time at home, where the monitor measured the air.
                        if let slotPlace, slotPlace.track.positions.contains(where: nearHome.contains) {
                            let atHome = LocationCursor.resolve(
                                slotPlace, slot: slot, stationValues: merged, model: ventilation, person: person, calendar: calendar,
                                body: body, atHome: nearHome)
                            place = atHome.summary
                            breathing = atHome.trackedBreathing ?? slotBreathing
                            outdoor = atHome.homeConcentration
                            trackedDose = atHome.trackedDose
                        }
                        intake = dose(usable)
                        hour.source = .sensor
                    }
                    indoorHour = hour
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
                    place: place,
                    indoor: indoorHour))
        }
        return Exposures(hourly: result, walking: walking, weighed: places.weighed, indoorActive: indoorAir != nil)
    }

    /// The newest hour that has begun by `now` and ended less than `within` before it whose PM2.5 the
    /// person's indoor sensors give (at least 30 minutes covered), with that value; nil without
    /// sensors or such an hour. Read from the samples alone: an hour AirKorea has not published (an
    /// outage, the hours after midnight before the first poll) has an indoor value all the same.
    public func latestIndoorPM25(at now: Date, within: TimeInterval) async throws(StorageFailure) -> (slot: Slot, pm25: Double)? {
        guard let indoor, !person.indoorSensors.isEmpty else { return nil }
        let current = Slot(containing: now)
        var slot = Slot(containing: now.addingTimeInterval(-within))
        var cursor = IndoorAirCursor(
            try await indoor.indoorSeries(
                sensors: person.indoorSensors, from: slot.start.addingTimeInterval(-IndoorAirCursor.lookBehind), to: current.end))
        var latest: (slot: Slot, pm25: Double)?
        while slot <= current {
            if now.timeIntervalSince(slot.end) < within, let pm25 = cursor.value(slot)?.value.ultraFineDust { latest = (slot, pm25) }
            slot = slot.advanced(by: 1)
        }
        return latest
    }

    /// The samples of the person's indoor sensors that bear on `[from, to)`, read once; nil (the dose
    /// of §4 indoors, every output as without sensors) for a person without sensors, without an
    /// indoor store, or for a model that does not breathe.
    private func indoorRecords(from: Slot, to: Slot) async throws(StorageFailure) -> IndoorAirCursor? {
        guard let indoor, !person.indoorSensors.isEmpty, intakeModel is VentilationIntakeModel else { return nil }
        return IndoorAirCursor(
            try await indoor.indoorSeries(
                sensors: person.indoorSensors, from: from.start.addingTimeInterval(-IndoorAirCursor.lookBehind), to: to.start))
    }

    /// The instants of the person's positions over `[from, to)` within `IndoorSlotValue.homeRadiusMetres`
    /// of their `home` (docs/REFERENCE.md §21): tracked minutes that are time at home. Empty without a
    /// `home` or location inputs.
    private func positionsNearHome(from: Slot, to: Slot) async throws(StorageFailure) -> Set<Date> {
        guard let home = person.home, let location else { return [] }
        let points = try await location.positions.trackPoints(
            person: person.name, from: from.start.addingTimeInterval(-TrackCoverage.positionCover), to: to.start)
        return Set(
            points.filter {
                GreatCircle.metres(
                    latitude1: $0.position.latitude, longitude1: $0.position.longitude, latitude2: home.latitude, longitude2: home.longitude
                )
                    <= IndoorSlotValue.homeRadiusMetres
            }.map(\.at))
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
        var points = positions.map(\.position)
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

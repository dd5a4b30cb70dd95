import DustKit
import DustServices
import Foundation
import Synchronization

/// Every store protocol in memory, with the SQLite store's rules (unknown is never 0, a revision
/// only when a reported value changed, activity merged by the largest source, attempts kept 90
/// days), for service tests that need no file. `StoreContractTests` runs the same checks against
/// this and `SQLiteStore`, so the two cannot drift apart.
public final class MemoryStore: FineDustStore, Sendable {
    private struct ReadingKey: Hashable {
        var station: String
        var slot: Slot
    }

    private struct IssueKey: Hashable {
        var pollutant: Pollutant
        var issuedAt: Date
        var date: LocalDate
    }

    private struct Issue {
        var overall: String?
        var cause: String?
        var grades: [ForecastRegion: ForecastGrade]
    }

    private struct StationRow {
        var station: Station
        var sido: String?
    }

    private struct PersonSource: Hashable {
        var person: String
        var source: String
    }

    private struct State {
        var readings: [ReadingKey: HourlyReading] = [:]
        var revisions: [ReadingKey: Int] = [:]
        var stations: [String: StationRow] = [:]
        var attempts: [PollAttempt] = []
        var issues: [IssueKey: Issue] = [:]
        var weeklyOutlooks: [LocalDate: WeeklyOutlook] = [:]
        var activity: [PersonSource: [Slot: Double]] = [:]
        var heartRate: [PersonSource: [Date: Double]] = [:]
        var restingHeartRate: [PersonSource: [Date: Double]] = [:]
        /// Sleep intervals by start, each with its end.
        var sleep: [PersonSource: [Date: Date]] = [:]
        /// Per person and source, the minute's start and its position.
        var positions: [PersonSource: [Date: (latitude: Double, longitude: Double)]] = [:]
        var alertStates: [String: AlertState] = [:]
        var alertEvents: [AlertEvent] = []
        var alertDeliveries: [AlertDelivery] = []
        var status: String?
        /// Kept places per person and slot start, each with its inputs (docs/REFERENCE.md §19).
        var places: [String: [Int64: (inputs: String, bytes: [UInt8])]] = [:]
        var placeGeneration: Int64 = 0

        /// Forgets the places `forget` picks and raises the generation, as every store's writers do.
        mutating func forgetPlaces(where forget: (String, Int64) -> Bool) {
            for person in places.keys { places[person] = places[person]!.filter { !forget(person, $0.key) } }
            placeGeneration += 1
        }
    }

    private let state = Mutex(State())
    /// The advisories (docs/REFERENCE.md §17); their methods are in MemoryStore+Advisories.swift.
    let advisoryTable = Mutex<[String: Advisory]>([:])
    private let savingReadingsFails: StorageFailure?
    private let beforeSavingStatus: (@Sendable (DaemonStatus) async -> Void)?

    /// - Parameters:
    ///   - savingReadingsFails: thrown by every `saveReadings` (a full disk, say); other writes,
    ///     attempts among them, still succeed.
    ///   - beforeSavingStatus: awaited by `saveStatus` before it stores the record, as a remote
    ///     database's round trip would be (a test holds one write back with it).
    public init(
        savingReadingsFails: StorageFailure? = nil, beforeSavingStatus: (@Sendable (DaemonStatus) async -> Void)? = nil
    ) {
        self.savingReadingsFails = savingReadingsFails
        self.beforeSavingStatus = beforeSavingStatus
    }

    /// Every attempt recorded, oldest first.
    public var attempts: [PollAttempt] { state.withLock { $0.attempts } }

    /// How often AirKorea revised the stored reading of `station` at `slot`; nil when none is stored.
    public func revision(station: String, slot: Slot) -> Int? {
        state.withLock { $0.revisions[ReadingKey(station: station, slot: slot)] }
    }

    /// The stored distances of one source of `person`, per slot.
    public func activity(person: String = Person.defaultName, source: String) -> [Slot: Double] {
        state.withLock { $0.activity[PersonSource(person: person, source: source)] ?? [:] }
    }

    // MARK: - Readings

    public func saveReadings(_ readings: [HourlyReading], fetchedAt: Date) throws(StorageFailure) -> UpsertSummary {
        if let savingReadingsFails { throw savingReadingsFails }
        return state.withLock { state in
            var summary = UpsertSummary()
            var changedSlots = Set<Int64>()
            for reading in readings {
                let key = ReadingKey(station: reading.station, slot: reading.slot)
                let before = state.revisions[key]
                if let stored = state.readings[key] {
                    let revised = Self.revising(stored, with: reading)
                    if revised == stored {
                        summary.unchanged += 1
                    } else {
                        state.readings[key] = revised
                        state.revisions[key, default: 0] += 1
                        summary.updated += 1
                    }
                } else {
                    state.readings[key] = Self.revising(Self.empty(reading), with: reading)
                    state.revisions[key] = 0
                    summary.inserted += 1
                }
                if state.revisions[key] != before { changedSlots.insert(reading.slot.startEpochSeconds) }
                var row = state.stations[reading.station] ?? StationRow(station: Station(name: reading.station), sido: nil)
                row.station.code = reading.stationCode ?? row.station.code
                row.station.network = reading.network ?? row.station.network
                row.sido = reading.sidoName ?? row.sido
                state.stations[reading.station] = row
            }
            if !changedSlots.isEmpty { state.forgetPlaces { changedSlots.contains($1) } }
            return summary
        }
    }

    /// A stored row holds only what is stored: the fields, not what the response reported.
    private static func empty(_ reading: HourlyReading) -> HourlyReading {
        HourlyReading(
            station: reading.station, slot: reading.slot, concentration: DustPair(repeating: nil), flag: DustPair(repeating: nil),
            average24h: DustPair(repeating: nil), grade24h: DustPair(repeating: nil), grade1h: DustPair(repeating: nil))
    }

    /// `stored` with each field `reading` reports replaced; a field it does not report is kept.
    private static func revising(_ stored: HourlyReading, with reading: HourlyReading) -> HourlyReading {
        var revised = stored
        for pollutant in Pollutant.allCases {
            let reported = reading.reported[pollutant]
            if reported.contains(.value) {
                revised.concentration[pollutant] = reading.concentration[pollutant]
                revised.flag[pollutant] = reading.flag[pollutant]
            }
            if reported.contains(.average24h) { revised.average24h[pollutant] = reading.average24h[pollutant] }
            if reported.contains(.grade24h) { revised.grade24h[pollutant] = reading.grade24h[pollutant] }
            if reported.contains(.grade1h) { revised.grade1h[pollutant] = reading.grade1h[pollutant] }
        }
        revised.gases = revisingGases(stored.gases, with: reading.gases)
        return revised
    }

    // MARK: Gases (docs/REFERENCE.md §17)

    /// The stored gases with each element `reading` reports replaced, as SQLiteStore's upsert does.
    private static func revisingGases(_ stored: GasReading, with reading: GasReading) -> GasReading {
        var revised = stored
        revised.reported = .all
        for gas in Gas.allCases where reading.reported.contains(.value(of: gas)) {
            revised.ppm[gas] = reading.ppm[gas]
            revised.flag[gas] = reading.flag[gas]
        }
        if reading.reported.contains(.cai) { revised.cai = reading.cai }
        if reading.reported.contains(.caiGrade) { revised.caiGrade = reading.caiGrade }
        return revised
    }

    public func readings(stations: [String], from: Slot, to: Slot) throws(StorageFailure) -> [HourlyReading] {
        let wanted = Set(stations)
        return state.withLock { state in
            state.readings.values.filter { wanted.contains($0.station) && $0.slot >= from && $0.slot < to }
                .sorted { ($0.slot, $0.station) < ($1.slot, $1.station) }
        }
    }

    public func dustValues(stations: [String], from: Slot, to: Slot) throws(StorageFailure) -> [StationDust] {
        let indexByName = Dictionary(uniqueKeysWithValues: stations.enumerated().map { ($1, $0) })
        return try readings(stations: stations, from: from, to: to).map { reading in
            StationDust(slot: reading.slot, station: indexByName[reading.station]!, concentration: reading.concentration)
        }
    }

    public func newestSlot(station: String, endingBy now: Date) throws(StorageFailure) -> Slot? {
        state.withLock { state in
            state.readings.values.filter { $0.station == station && $0.slot.end <= now }.map(\.slot).max()
        }
    }

    public func measurementCount(station: String?) throws(StorageFailure) -> Int {
        state.withLock { state in state.readings.keys.filter { station == nil || $0.station == station }.count }
    }

    // MARK: - Attempts

    public func recordAttempt(_ attempt: PollAttempt) throws(StorageFailure) {
        state.withLock { state in
            state.attempts.append(attempt)
            let cutoff = attempt.startedAt.addingTimeInterval(-PollAttempt.retention)
            state.attempts.removeAll { $0.startedAt < cutoff }
        }
    }

    public func attemptCount(kind: AttemptKind, since start: Date) throws(StorageFailure) -> Int {
        state.withLock { state in state.attempts.filter { $0.kind == kind && $0.startedAt >= start }.count }
    }

    // MARK: - Forecasts

    public func saveForecasts(_ forecasts: [DustForecast], fetchedAt: Date) throws(StorageFailure) -> Int {
        state.withLock { state in
            var changed = 0
            for forecast in forecasts {
                let key = IssueKey(pollutant: forecast.pollutant, issuedAt: forecast.issuedAt, date: forecast.forecastDate)
                var issue = state.issues[key] ?? Issue(overall: nil, cause: nil, grades: [:])
                let before = state.issues[key]
                issue.overall = forecast.overall
                issue.cause = forecast.cause
                issue.grades.merge(forecast.grades.byRegion) { _, new in new }
                if before == nil || before?.overall != issue.overall || before?.cause != issue.cause
                    || before?.grades != issue.grades
                {
                    changed += 1
                }
                state.issues[key] = issue
            }
            return changed
        }
    }

    public func newestForecastIssue(pollutant: Pollutant) throws(StorageFailure) -> Date? {
        state.withLock { state in state.issues.keys.filter { $0.pollutant == pollutant }.map(\.issuedAt).max() }
    }

    public func forecast(pollutant: Pollutant, date: LocalDate, region: ForecastRegion) throws(StorageFailure) -> RegionalForecast? {
        state.withLock { state in
            state.issues.filter { $0.key.pollutant == pollutant && $0.key.date == date && $0.value.grades[region] != nil }
                .max { $0.key.issuedAt < $1.key.issuedAt }
                .map { key, issue in
                    RegionalForecast(
                        pollutant: pollutant, region: region, forecastDate: date, issuedAt: key.issuedAt,
                        grade: issue.grades[region]!, overall: issue.overall, cause: issue.cause)
                }
        }
    }

    public func stationLocation(name: String) throws(StorageFailure) -> StationLocation? {
        state.withLock { state in
            state.stations[name].map { StationLocation(sido: $0.sido, address: $0.station.address) }
        }
    }

    // MARK: - The weekly outlook

    public func saveWeeklyOutlook(_ outlook: WeeklyOutlook, fetchedAt: Date) throws(StorageFailure) -> Bool {
        state.withLock { state in
            var kept = outlook
            kept.days = Array(outlook.days.prefix(4))
            guard state.weeklyOutlooks[outlook.publishedOn] != kept else { return false }
            state.weeklyOutlooks[outlook.publishedOn] = kept
            return true
        }
    }

    public func newestWeeklyOutlook() throws(StorageFailure) -> WeeklyOutlook? {
        state.withLock { state in state.weeklyOutlooks.max { $0.key < $1.key }?.value }
    }

    public func weeklyOutlook(publishedOn: LocalDate) throws(StorageFailure) -> WeeklyOutlook? {
        state.withLock { state in state.weeklyOutlooks[publishedOn] }
    }

    // MARK: - Stations

    public func saveStations(_ stations: [Station], at time: Date) throws(StorageFailure) {
        state.withLock { state in
            let moved = stations.contains { station in
                let stored = state.stations[station.name]?.station
                return station.moves(fromLatitude: stored?.latitude, longitude: stored?.longitude)
            }
            if moved { state.forgetPlaces { _, _ in true } }
            for station in stations {
                var row = state.stations[station.name] ?? StationRow(station: Station(name: station.name), sido: nil)
                row.station.code = station.code ?? row.station.code
                row.station.network = station.network ?? row.station.network
                row.station.address = station.address ?? row.station.address
                row.station.latitude = station.latitude ?? row.station.latitude
                row.station.longitude = station.longitude ?? row.station.longitude
                state.stations[station.name] = row
            }
        }
    }

    public func stations() throws(StorageFailure) -> [Station] {
        state.withLock { state in state.stations.values.map(\.station).sorted { $0.name < $1.name } }
    }

    // MARK: - Activity

    public func walking(person: String, from: Slot, to: Slot) throws(StorageFailure) -> [Slot: SlotWalking] {
        state.withLock { state in
            var result: [Slot: SlotWalking] = [:]
            for (key, slots) in state.activity.sorted(by: { $0.key.source < $1.key.source }) where key.person == person {
                for (slot, metres) in slots where slot >= from && slot < to {
                    if let best = result[slot], best.metres >= metres { continue }
                    result[slot] = SlotWalking(metres: metres, source: key.source)
                }
            }
            return result
        }
    }

    /// The walking of `me`, the one person of an installation without `people:`.
    public func walking(from: Slot, to: Slot) throws(StorageFailure) -> [Slot: SlotWalking] {
        try walking(person: Person.defaultName, from: from, to: to)
    }

    /// Removes `me`'s distances of `source`.
    @discardableResult
    public func forgetActivity(source: String) throws(StorageFailure) -> Int {
        try forgetActivity(person: Person.defaultName, source: source)
    }

    public func saveActivity(_ batches: [ActivitySourceBatch], importedAt: Date) throws(StorageFailure) {
        state.withLock { state in Self.insertActivity(batches, into: &state) }
    }

    private static func insertActivity(_ batches: [ActivitySourceBatch], into state: inout State) {
        for batch in batches {
            let key = PersonSource(person: batch.person, source: batch.source)
            var slots = state.activity[key] ?? [:]
            if let span = batch.replacing { slots = slots.filter { !span.contains($0.key) } }
            slots.merge(batch.distances) { _, new in new }
            state.activity[key] = slots.isEmpty ? nil : slots
        }
    }

    public func activitySources() throws(StorageFailure) -> [ActivitySourceSummary] {
        state.withLock { state in
            state.activity.sorted { ($0.key.person, $0.key.source) < ($1.key.person, $1.key.source) }.compactMap { key, slots in
                guard let first = slots.keys.min(), let last = slots.keys.max() else { return nil }
                let metres = slots.sorted { $0.key < $1.key }.reduce(0) { $0 + $1.value }
                return ActivitySourceSummary(
                    person: key.person, source: key.source, firstSlot: first, lastSlot: last, slots: slots.count, metres: metres)
            }
        }
    }

    public func forgetActivity(person: String, source: String?) throws(StorageFailure) -> Int {
        state.withLock { state in
            var removed = 0
            for key in state.activity.keys where key.person == person && (source == nil || key.source == source) {
                removed += state.activity.removeValue(forKey: key)?.count ?? 0
            }
            return removed
        }
    }

    public func movePerson(from: String, to: String) throws(StorageFailure) -> Int {
        state.withLock { state in
            let keys =
                Array(state.activity.keys) + state.heartRate.keys + state.restingHeartRate.keys + state.sleep.keys
                + state.positions.keys
            guard !keys.contains(where: { $0.person == to }) else { return 0 }
            var moved = 0
            func move<Value>(_ table: inout [PersonSource: [Date: Value]], count: (([Date: Value]) -> Int)) {
                for key in table.keys where key.person == from {
                    let rows = table.removeValue(forKey: key)!
                    moved += count(rows)
                    table[PersonSource(person: to, source: key.source)] = rows
                }
            }
            for key in state.activity.keys where key.person == from {
                let rows = state.activity.removeValue(forKey: key)!
                moved += rows.count
                state.activity[PersonSource(person: to, source: key.source)] = rows
            }
            move(&state.heartRate) { $0.count }
            move(&state.restingHeartRate) { $0.count }
            move(&state.sleep) { $0.count }
            move(&state.positions) { $0.count }
            if moved > 0 { state.forgetPlaces { person, _ in person == from || person == to } }
            return moved
        }
    }

    // MARK: - Physiology

    public func saveImport(
        walking: [ActivitySourceBatch], body batches: [PhysiologyBatch], positions: [PositionBatch], importedAt: Date
    ) throws(StorageFailure) {
        state.withLock { state in
            Self.insertActivity(walking, into: &state)
            for batch in positions {
                let key = PersonSource(person: batch.person, source: batch.source)
                var minutes = state.positions[key] ?? [:]
                if let span = batch.replacing { minutes = minutes.filter { !span.contains($0.key) } }
                for point in batch.minutes { minutes[point.at] = (point.latitude, point.longitude) }
                state.positions[key] = minutes.isEmpty ? nil : minutes
                for span in batch.changedSpans {
                    let low = Slot(containing: span.lowerBound).startEpochSeconds
                    let high = Slot(containing: span.upperBound).startEpochSeconds
                    state.forgetPlaces { person, start in person == batch.person && start >= low && start <= high }
                }
            }
            for batch in batches {
                let key = PersonSource(person: batch.person, source: batch.source)
                // Instants are kept to the second, as SQLite keeps them.
                func second(_ instant: Date) -> Date { Date(timeIntervalSince1970: instant.timeIntervalSince1970.rounded(.down)) }
                var heart = state.heartRate[key] ?? [:]
                var resting = state.restingHeartRate[key] ?? [:]
                var sleep = state.sleep[key] ?? [:]
                if let span = batch.replacing {
                    let seconds = second(span.lowerBound)...second(span.upperBound)
                    heart = heart.filter { !seconds.contains($0.key) }
                    resting = resting.filter { !seconds.contains($0.key) }
                    sleep = sleep.filter { !seconds.contains($0.key) }
                }
                for sample in batch.heartRate { heart[second(sample.at)] = sample.beatsPerMinute }
                for sample in batch.restingHeartRate { resting[second(sample.at)] = sample.beatsPerMinute }
                for interval in batch.sleep { sleep[second(interval.start)] = second(interval.end) }
                state.heartRate[key] = heart
                state.restingHeartRate[key] = resting
                state.sleep[key] = sleep
            }
        }
    }

    public func physiology(person: String, from: Date, to: Date) throws(StorageFailure) -> StoredPhysiology {
        state.withLock { state in
            func merged(_ table: [PersonSource: [Date: Double]]) -> [Date: Double] {
                var result: [Date: Double] = [:]
                for (key, rows) in table where key.person == person { result.merge(rows) { max($0, $1) } }
                return result
            }
            let start = Date(timeIntervalSince1970: from.timeIntervalSince1970.rounded(.down))
            let end = Date(timeIntervalSince1970: to.timeIntervalSince1970.rounded(.down))
            let heartRate = merged(state.heartRate).filter {
                $0.key >= start.addingTimeInterval(-SlotPhysiology.heartRateCover) && $0.key < end
            }
            .sorted { $0.key < $1.key }.map { HeartRateSample(at: $0.key, beatsPerMinute: $0.value) }
            let allResting = merged(state.restingHeartRate)
            let floor = allResting.keys.filter { $0 <= start }.max() ?? start
            let resting = allResting.filter { $0.key >= floor && $0.key < end }.sorted { $0.key < $1.key }
                .map { RestingHeartRateSample(at: $0.key, beatsPerMinute: $0.value) }
            var sleep: [Date: Date] = [:]
            for (key, rows) in state.sleep where key.person == person { sleep.merge(rows) { max($0, $1) } }
            let intervals = sleep.filter { $0.key < end && $0.value > start }.sorted { ($0.key, $0.value) < ($1.key, $1.value) }
                .map { SleepInterval(start: $0.key, end: $0.value) }
            return StoredPhysiology(heartRate: heartRate, restingHeartRate: resting, sleep: intervals)
        }
    }

    public func physiologySummaries() throws(StorageFailure) -> [PhysiologySummary] {
        state.withLock { state in
            let keys = Set(Array(state.heartRate.keys) + Array(state.restingHeartRate.keys) + Array(state.sleep.keys))
            return keys.sorted { ($0.person, $0.source) < ($1.person, $1.source) }.compactMap { key in
                let heart = state.heartRate[key] ?? [:]
                let resting = state.restingHeartRate[key] ?? [:]
                let sleep = state.sleep[key] ?? [:]
                let instants = Array(heart.keys) + Array(resting.keys) + Array(sleep.keys) + Array(sleep.values)
                guard let first = instants.min(), let last = instants.max() else { return nil }
                return PhysiologySummary(
                    person: key.person, source: key.source, first: first, last: last, heartRateSamples: heart.count,
                    restingRates: resting.count, sleepIntervals: sleep.count,
                    asleepSeconds: sleep.reduce(0) { $0 + Int($1.value.timeIntervalSince($1.key)) })
            }
        }
    }

    public func forgetPhysiology(person: String, source: String?) throws(StorageFailure) -> Int {
        state.withLock { state in
            var removed = 0
            func forget<Value>(_ table: inout [PersonSource: [Date: Value]]) {
                for key in table.keys where key.person == person && (source == nil || key.source == source) {
                    removed += table.removeValue(forKey: key)?.count ?? 0
                }
            }
            forget(&state.heartRate)
            forget(&state.restingHeartRate)
            forget(&state.sleep)
            return removed
        }
    }

    // MARK: - Positions

    public func positions(person: String, from: Date, to: Date) throws(StorageFailure) -> [TrackPosition] {
        state.withLock { state in
            state.positions.filter { $0.key.person == person }.flatMap { key, minutes in
                minutes.filter { $0.key >= from && $0.key < to }.map {
                    TrackPosition(
                        person: person, source: key.source, minute: $0.key, latitude: $0.value.latitude, longitude: $0.value.longitude)
                }
            }
            .sorted { ($0.minute, $0.source) < ($1.minute, $1.source) }
        }
    }

    public func trackPoints(person: String, from: Date, to: Date) throws(StorageFailure) -> [TrackPoint] {
        var points: [TrackPoint] = []
        for position in try positions(person: person, from: from, to: to) where position.minute != points.last?.at {
            points.append(TrackPoint(at: position.minute, latitude: position.latitude, longitude: position.longitude))
        }
        return points
    }

    public func positionSummaries() throws(StorageFailure) -> [PositionSummary] {
        state.withLock { state in
            state.positions.sorted { ($0.key.person, $0.key.source) < ($1.key.person, $1.key.source) }.compactMap { key, minutes in
                guard let first = minutes.keys.min(), let last = minutes.keys.max() else { return nil }
                return PositionSummary(person: key.person, source: key.source, first: first, last: last, minutes: minutes.count)
            }
        }
    }

    public func forgetPositions(person: String, source: String?) throws(StorageFailure) -> Int {
        state.withLock { state in
            var removed = 0
            for key in state.positions.keys where key.person == person && (source == nil || key.source == source) {
                removed += state.positions.removeValue(forKey: key)?.count ?? 0
            }
            state.forgetPlaces { forgotten, _ in forgotten == person }
            return removed
        }
    }

    // MARK: - Alerts

    public func alertStates() throws(StorageFailure) -> [String: AlertState] {
        state.withLock { $0.alertStates }
    }

    public func saveAlertTransition(
        rule: String, state newState: AlertState, event: AlertEvent?, at: Date
    ) throws(StorageFailure)
        -> AlertEvent?
    {
        state.withLock { state in
            state.alertStates[rule] = newState
            return event.map { Self.append($0, to: &state) }
        }
    }

    public func saveAlertEvent(_ event: AlertEvent) throws(StorageFailure) -> AlertEvent {
        state.withLock { state in Self.append(event, to: &state) }
    }

    private static func append(_ event: AlertEvent, to state: inout State) -> AlertEvent {
        var saved = event
        saved.id = (state.alertEvents.last?.id ?? 0) + 1
        state.alertEvents.append(saved)
        return saved
    }

    public func recordAlertDelivery(_ delivery: AlertDelivery) throws(StorageFailure) {
        state.withLock { $0.alertDeliveries.append(delivery) }
    }

    public func recentAlertEvents(limit: Int) throws(StorageFailure) -> [(event: AlertEvent, deliveries: [AlertDelivery])] {
        state.withLock { state in
            state.alertEvents.reversed().prefix(limit).map { event in
                (event, state.alertDeliveries.filter { $0.eventID == event.id })
            }
        }
    }

    // MARK: - Status

    public func saveStatus(_ status: DaemonStatus) async throws(StorageFailure) {
        await beforeSavingStatus?(status)
        state.withLock { $0.status = status.encoded() }
    }

    public func loadStatus() throws(StorageFailure) -> DaemonStatus? {
        state.withLock { $0.status }.flatMap(DaemonStatus.decoded)
    }
}

// MARK: - Places

extension MemoryStore {
    public func placeGeneration() throws(StorageFailure) -> Int64 { state.withLock { $0.placeGeneration } }

    public func slotPlaces(person: String, inputs: String, from: Slot, to: Slot) throws(StorageFailure) -> [StoredSlotPlace] {
        state.withLock { state in
            (state.places[person] ?? [:])
                .filter { $0.key >= from.startEpochSeconds && $0.key < to.startEpochSeconds && $0.value.inputs == inputs }
                .sorted { $0.key < $1.key }
                .map { StoredSlotPlace(slot: Slot(startEpochSeconds: $0.key), bytes: $0.value.bytes) }
        }
    }

    public func keepSlotPlaces(
        _ places: [StoredSlotPlace], person: String, inputs: String, generation: Int64
    ) throws(StorageFailure) -> Bool {
        state.withLock { state in
            guard state.placeGeneration == generation else { return false }
            for place in places { state.places[person, default: [:]][place.slot.startEpochSeconds] = (inputs, place.bytes) }
            return true
        }
    }
}

import AirKorea
import DustKit
import DustServices
import Foundation

// SQLiteStore in the services' vocabulary: each protocol of DustServices/Storage, its SQLite
// failures translated at this door.

extension StorageFailure {
    /// The failure a `StoreError` stands for.
    public init(_ error: StoreError) {
        let kind: Kind =
            switch error {
            case .diskFull: .diskFull
            case .cannotOpen: .unwritable
            case .busy: .locked
            case .schemaTooNew: .schemaTooNew
            case .databaseMissing: .missing
            case .corrupt: .unusable
            case .io: .io
            }
        self.init(kind: kind, description: error.description)
    }
}

extension ExitStatus {
    /// The status for a store error: that of the storage failure it stands for.
    public init(_ error: StoreError) {
        self.init(StorageFailure(error))
    }
}

extension SQLiteStore: PollStore, ActivityStore, StationStore {
    public func saveReadings(_ readings: [HourlyReading], fetchedAt: Date) throws(StorageFailure) -> UpsertSummary {
        do { return try upsert(readings, fetchedAt: fetchedAt) } catch { throw StorageFailure(error) }
    }

    public func storedReadings(stations: [String], from: Slot, to: Slot) throws(StorageFailure) -> [HourlyReading] {
        do { return try readings(stations: stations, from: from, to: to) } catch { throw StorageFailure(error) }
    }

    public func newestSlot(station: String, endingBy now: Date) throws(StorageFailure) -> Slot? {
        do { return try latestSlot(station: station, endingBy: now) } catch { throw StorageFailure(error) }
    }

    public func recordAttempt(_ attempt: PollAttempt) throws(StorageFailure) {
        do { try record(attempt) } catch { throw StorageFailure(error) }
    }

    public func walkedDistances(from: Slot, to: Slot) throws(StorageFailure) -> [Slot: Double] {
        do { return try walkingDistances(from: from, to: to) } catch { throw StorageFailure(error) }
    }

    public func saveWalkedDistances(_ distances: [Slot: Double], importedAt: Date) throws(StorageFailure) {
        do { try replaceWalkingDistances(distances, importedAt: importedAt) } catch { throw StorageFailure(error) }
    }

    public func mergedWalking(from: Slot, to: Slot) throws(StorageFailure) -> [Slot: SlotWalking] {
        do { return try walkingActivity(from: from, to: to) } catch { throw StorageFailure(error) }
    }

    public func saveActivity(_ batches: [ActivitySourceBatch], importedAt: Date) throws(StorageFailure) {
        do { try replaceActivity(batches, importedAt: importedAt) } catch { throw StorageFailure(error) }
    }

    public func storedActivitySources() throws(StorageFailure) -> [ActivitySourceSummary] {
        do { return try activitySources() } catch { throw StorageFailure(error) }
    }

    public func forgetActivity(source: String) throws(StorageFailure) -> Int {
        do { return try forgetActivitySource(source) } catch { throw StorageFailure(error) }
    }
}

extension SQLiteStore: ForecastStore {
    public func saveForecasts(_ forecasts: [DustForecast], fetchedAt: Date) throws(StorageFailure) -> Int {
        do { return try upsertForecasts(forecasts, fetchedAt: fetchedAt) } catch { throw StorageFailure(error) }
    }

    public func newestIssue(pollutant: Pollutant) throws(StorageFailure) -> Date? {
        do { return try newestForecastIssue(pollutant: pollutant) } catch { throw StorageFailure(error) }
    }

    public func forecast(pollutant: Pollutant, date: LocalDate, region: ForecastRegion) throws(StorageFailure) -> RegionalForecast? {
        do { return try latestForecast(pollutant: pollutant, date: date, region: region) } catch { throw StorageFailure(error) }
    }

    public func forecastCalls(since start: Date) throws(StorageFailure) -> Int {
        do { return try attemptCount(operationPrefix: ForecastFetch.operationPrefix, since: start) } catch { throw StorageFailure(error) }
    }

    public func stationLocation(name: String) throws(StorageFailure) -> StationLocation? {
        do { return try location(ofStation: name) } catch { throw StorageFailure(error) }
    }
}

extension SQLiteStore: AlertStore {
    public func alertStates() throws(StorageFailure) -> [String: AlertState] {
        do {
            return try alertRuleStates().compactMapValues(AlertState.init(rawValue:))
        } catch { throw StorageFailure(error) }
    }

    public func saveAlertTransition(rule: String, state: AlertState, event: AlertEvent?, at: Date) throws(StorageFailure) -> AlertEvent? {
        do {
            let id = try saveAlertTransition(rule: rule, state: state.rawValue, event: event.map(Self.stored), at: at)
            return event.map { event in
                var saved = event
                saved.id = id ?? 0
                return saved
            }
        } catch { throw StorageFailure(error) }
    }

    public func saveAlertEvent(_ event: AlertEvent) throws(StorageFailure) -> AlertEvent {
        do {
            var saved = event
            saved.id = try saveAlertEvent(Self.stored(event))
            return saved
        } catch { throw StorageFailure(error) }
    }

    public func recordAlertDelivery(_ delivery: AlertDelivery) throws(StorageFailure) {
        do {
            try recordAlertDelivery(
                StoredAlertDelivery(
                    eventID: delivery.eventID, sink: delivery.sink, attempt: delivery.attempt,
                    at: delivery.at, outcome: delivery.outcome.rawValue, detail: delivery.detail))
        } catch { throw StorageFailure(error) }
    }

    public func recentAlertEvents(limit: Int) throws(StorageFailure) -> [(event: AlertEvent, deliveries: [AlertDelivery])] {
        do {
            return try storedAlertEvents(limit: limit).map { stored, deliveries in
                let event = AlertEvent(
                    id: stored.id, kind: AlertEvent.Kind(rawValue: stored.kind) ?? .test, rule: stored.rule,
                    metric: stored.metric.flatMap(AlertMetric.init(rawValue:)), value: stored.value,
                    station: stored.station, at: stored.at)
                return (
                    event,
                    deliveries.map { delivery in
                        AlertDelivery(
                            eventID: delivery.eventID, sink: delivery.sink, attempt: delivery.attempt, at: delivery.at,
                            outcome: AlertDelivery.Outcome(rawValue: delivery.outcome) ?? .failed, detail: delivery.detail)
                    }
                )
            }
        } catch { throw StorageFailure(error) }
    }

    private static func stored(_ event: AlertEvent) -> StoredAlertEvent {
        StoredAlertEvent(
            id: event.id, at: event.at, kind: event.kind.rawValue, rule: event.rule, metric: event.metric?.rawValue,
            value: event.value, station: event.station)
    }
}

extension SQLiteStore: DaemonStatusStore {
    private static let statusKey = "status"

    public func saveStatus(_ status: DaemonStatus) throws(StorageFailure) {
        do { try setDaemonState([Self.statusKey: status.encoded()], at: status.heartbeatAt) } catch { throw StorageFailure(error) }
    }

    public func loadStatus() throws(StorageFailure) -> DaemonStatus? {
        do { return try daemonState()[Self.statusKey].flatMap(DaemonStatus.decoded) } catch { throw StorageFailure(error) }
    }
}

import DustKit
import DustStore
import Foundation

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

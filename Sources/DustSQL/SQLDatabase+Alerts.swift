import DustKit
import DustServices
import Foundation

// Alert rules' states, events and deliveries (docs/REFERENCE.md §14): a restart neither repeats nor forgets an alert.

extension SQLDatabase {
    /// Every rule's stored state, by rule text, with when it changed; a state this version does not
    /// know is left out.
    public func storedAlertStates() async throws(StorageFailure) -> [String: StoredAlertState] {
        try await read { session in
            var states: [String: StoredAlertState] = [:]
            try session.forEachRow("SELECT rule, state, changed_at FROM alert_state", []) { row in
                guard let state = AlertState(rawValue: try row.string("state")) else { return }
                states[try row.string("rule")] = StoredAlertState(state, changedAt: SQLTime.date(try row.int64("changed_at")))
            }
            return states
        }
    }

    /// Saves a rule's state and the event it announced (if any) in one transaction; returns the
    /// event with its id.
    public func saveAlertTransition(
        rule: String, state: AlertState, event: AlertEvent?, at: Date
    ) async throws(StorageFailure)
        -> AlertEvent?
    {
        try await write { session in
            try session.execute(
                """
                INSERT INTO alert_state (rule, state, changed_at) VALUES (?, ?, ?)
                ON CONFLICT (rule) DO UPDATE SET state = excluded.state, changed_at = excluded.changed_at
                """, rule, state.rawValue, SQLTime.seconds(at))
            return try event.map { event in try insertAlertEvent(event, session) }
        }
    }

    /// Stores an event outside any rule (a test); returns it with its id.
    public func saveAlertEvent(_ event: AlertEvent) async throws(StorageFailure) -> AlertEvent {
        try await write { session in try insertAlertEvent(event, session) }
    }

    public func recordAlertDelivery(_ delivery: AlertDelivery) async throws(StorageFailure) {
        try await write { session in
            _ = try session.execute(
                "INSERT INTO alert_delivery (event_id, sink, attempt, at, outcome, detail) VALUES (?, ?, ?, ?, ?, ?)",
                delivery.eventID, delivery.sink, delivery.attempt, SQLTime.seconds(delivery.at), delivery.outcome.rawValue,
                delivery.detail)
        }
    }

    /// The newest events, newest first, each with its delivery attempts in order. A kind or
    /// outcome this version does not know reads as a test event and a failed delivery.
    public func recentAlertEvents(limit: Int) async throws(StorageFailure) -> [(event: AlertEvent, deliveries: [AlertDelivery])] {
        let events = try await read { session in
            let events = try session.rows(
                "SELECT id, at, kind, rule, metric, value, station FROM alert_event ORDER BY id DESC LIMIT ?", limit
            ).map { row in
                let recorded = AlertEvent.parse(recordedRule: try row.string("rule"))
                return AlertEvent(
                    id: try row.int64("id"), kind: AlertEvent.Kind(rawValue: try row.string("kind")) ?? .test, rule: recorded.rule,
                    metric: try row.optionalString("metric").flatMap(AlertMetric.init(rawValue:)), value: try row.optionalDouble("value"),
                    station: try row.string("station"), at: SQLTime.date(try row.int64("at")), people: recorded.people)
            }
            return try events.map { event in
                let deliveries = try session.rows(
                    "SELECT sink, attempt, at, outcome, detail FROM alert_delivery WHERE event_id = ? ORDER BY id", event.id
                ).map { row in
                    AlertDelivery(
                        eventID: event.id, sink: try row.string("sink"),
                        attempt: try StoredValue.attempt(try row.int64("attempt"), column: "attempt"),
                        at: SQLTime.date(try row.int64("at")),
                        outcome: AlertDelivery.Outcome(rawValue: try row.string("outcome")) ?? .failed,
                        detail: try row.optionalString("detail"))
                }
                return RecentAlertEvent(event: event, deliveries: deliveries)
            }
        }
        return events.map { ($0.event, $0.deliveries) }
    }
}

/// A tuple is not `Sendable` across the engine's thread; this is.
private struct RecentAlertEvent: Sendable {
    var event: AlertEvent
    var deliveries: [AlertDelivery]
}

/// The people an event names travel in its `rule` column (`AlertEvent.recordedRule`), so the v5
/// table holds them without a migration.
private func insertAlertEvent(_ event: AlertEvent, _ session: any SQLSession) throws -> AlertEvent {
    var saved = event
    saved.id =
        try session.row(
            "INSERT INTO alert_event (at, kind, rule, metric, value, station) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
            SQLTime.seconds(event.at), event.kind.rawValue, event.recordedRule, event.metric?.rawValue, event.value, event.station
        )?.int64("id") ?? event.id
    return saved
}

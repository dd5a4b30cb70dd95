import DustKit
import DustServices
import Foundation
import GRDB

extension SQLiteStore: AlertStore {
    /// Every rule's stored state, by rule text; a state this version does not know is left out.
    public func alertStates() throws(StorageFailure) -> [String: AlertState] {
        try reading { db in
            var states: [String: AlertState] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT rule, state FROM alert_state") {
                states[row["rule"]] = AlertState(rawValue: row["state"])
            }
            return states
        }
    }

    /// Saves a rule's state and the event it announced (if any) in one transaction; returns the
    /// event with its id.
    public func saveAlertTransition(rule: String, state: AlertState, event: AlertEvent?, at: Date) throws(StorageFailure) -> AlertEvent? {
        try writing { db in
            try db.execute(
                sql: """
                    INSERT INTO alert_state (rule, state, changed_at) VALUES (?, ?, ?)
                    ON CONFLICT (rule) DO UPDATE SET state = excluded.state, changed_at = excluded.changed_at
                    """, arguments: [rule, state.rawValue, Int64(at.timeIntervalSince1970)])
            return try event.map { event in try Self.insert(event, db) }
        }
    }

    /// Stores an event outside any rule (a test); returns it with its id.
    public func saveAlertEvent(_ event: AlertEvent) throws(StorageFailure) -> AlertEvent {
        try writing { db in try Self.insert(event, db) }
    }

    public func recordAlertDelivery(_ delivery: AlertDelivery) throws(StorageFailure) {
        try writing { db in
            try db.execute(
                sql: """
                    INSERT INTO alert_delivery (event_id, sink, attempt, at, outcome, detail) VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    delivery.eventID, delivery.sink, delivery.attempt, Int64(delivery.at.timeIntervalSince1970),
                    delivery.outcome.rawValue, delivery.detail,
                ])
        }
    }

    /// The newest events, newest first, each with its delivery attempts in order. A kind or
    /// outcome this version does not know reads as a test event and a failed delivery.
    public func recentAlertEvents(limit: Int) throws(StorageFailure) -> [(event: AlertEvent, deliveries: [AlertDelivery])] {
        try reading { db in
            let events = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, at, kind, rule, metric, value, station FROM alert_event ORDER BY id DESC LIMIT ?
                    """, arguments: [limit]
            ).map { row in
                let recorded = AlertEvent.parse(recordedRule: row["rule"])
                return AlertEvent(
                    id: row["id"], kind: AlertEvent.Kind(rawValue: row["kind"]) ?? .test, rule: recorded.rule,
                    metric: (row["metric"] as String?).flatMap(AlertMetric.init(rawValue:)), value: row["value"],
                    station: row["station"], at: Date(timeIntervalSince1970: TimeInterval(row["at"] as Int64)), people: recorded.people)
            }
            return try events.map { event in
                let deliveries = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT sink, attempt, at, outcome, detail FROM alert_delivery WHERE event_id = ? ORDER BY id
                        """, arguments: [event.id]
                ).map { row in
                    AlertDelivery(
                        eventID: event.id, sink: row["sink"], attempt: row["attempt"],
                        at: Date(timeIntervalSince1970: TimeInterval(row["at"] as Int64)),
                        outcome: AlertDelivery.Outcome(rawValue: row["outcome"]) ?? .failed, detail: row["detail"])
                }
                return (event, deliveries)
            }
        }
    }

    /// The people an event names travel in its `rule` column (`AlertEvent.recordedRule`), so the
    /// v5 table holds them without a migration.
    private static func insert(_ event: AlertEvent, _ db: Database) throws -> AlertEvent {
        try db.execute(
            sql: """
                INSERT INTO alert_event (at, kind, rule, metric, value, station) VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                Int64(event.at.timeIntervalSince1970), event.kind.rawValue, event.recordedRule, event.metric?.rawValue, event.value,
                event.station,
            ])
        var saved = event
        saved.id = db.lastInsertedRowID
        return saved
    }
}

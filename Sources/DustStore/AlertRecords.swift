import DustKit
import Foundation
import GRDB

/// An alert event as stored (DustServices' `AlertEvent` without its types).
public struct StoredAlertEvent: Sendable, Hashable {
    public var id: Int64
    public var at: Date
    public var kind: String
    public var rule: String
    public var metric: String?
    public var value: Double?
    public var station: String

    public init(id: Int64, at: Date, kind: String, rule: String, metric: String?, value: Double?, station: String) {
        self.id = id
        self.at = at
        self.kind = kind
        self.rule = rule
        self.metric = metric
        self.value = value
        self.station = station
    }
}

/// One delivery attempt as stored.
public struct StoredAlertDelivery: Sendable, Hashable {
    public var eventID: Int64
    public var sink: String
    public var attempt: Int
    public var at: Date
    public var outcome: String
    public var detail: String?

    public init(eventID: Int64, sink: String, attempt: Int, at: Date, outcome: String, detail: String?) {
        self.eventID = eventID
        self.sink = sink
        self.attempt = attempt
        self.at = at
        self.outcome = outcome
        self.detail = detail
    }
}

extension SQLiteStore {
    /// Every rule's stored state (`idle`, `held`, `active`), by rule text.
    public func alertRuleStates() throws(StoreError) -> [String: String] {
        try read { db in
            var states: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT rule, state FROM alert_state") {
                states[row[0]] = row[1]
            }
            return states
        }
    }

    /// Saves a rule's state and the event it announced (if any) in one transaction; returns the
    /// event's id.
    public func saveAlertTransition(rule: String, state: String, event: StoredAlertEvent?, at: Date) throws(StoreError) -> Int64? {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO alert_state (rule, state, changed_at) VALUES (?, ?, ?)
                    ON CONFLICT (rule) DO UPDATE SET state = excluded.state, changed_at = excluded.changed_at
                    """, arguments: [rule, state, Int64(at.timeIntervalSince1970)])
            guard let event else { return nil }
            return try Self.insert(event, db)
        }
    }

    /// Stores an event outside any rule (a test); returns its id.
    public func saveAlertEvent(_ event: StoredAlertEvent) throws(StoreError) -> Int64 {
        try write { db in try Self.insert(event, db) }
    }

    public func recordAlertDelivery(_ delivery: StoredAlertDelivery) throws(StoreError) {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO alert_delivery (event_id, sink, attempt, at, outcome, detail) VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    delivery.eventID, delivery.sink, delivery.attempt, Int64(delivery.at.timeIntervalSince1970),
                    delivery.outcome, delivery.detail,
                ])
        }
    }

    /// The newest events, newest first, each with its delivery attempts in order.
    public func storedAlertEvents(limit: Int) throws(StoreError) -> [(event: StoredAlertEvent, deliveries: [StoredAlertDelivery])] {
        try read { db in
            let events = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, at, kind, rule, metric, value, station FROM alert_event ORDER BY id DESC LIMIT ?
                    """, arguments: [limit]
            ).map { row in
                StoredAlertEvent(
                    id: row[0], at: Date(timeIntervalSince1970: TimeInterval(row[1] as Int64)), kind: row[2], rule: row[3],
                    metric: row[4], value: row[5], station: row[6])
            }
            return try events.map { event in
                let deliveries = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT sink, attempt, at, outcome, detail FROM alert_delivery WHERE event_id = ? ORDER BY id
                        """, arguments: [event.id]
                ).map { row in
                    StoredAlertDelivery(
                        eventID: event.id, sink: row[0], attempt: row[1],
                        at: Date(timeIntervalSince1970: TimeInterval(row[2] as Int64)), outcome: row[3], detail: row[4])
                }
                return (event, deliveries)
            }
        }
    }

    private static func insert(_ event: StoredAlertEvent, _ db: Database) throws -> Int64 {
        try db.execute(
            sql: """
                INSERT INTO alert_event (at, kind, rule, metric, value, station) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [Int64(event.at.timeIntervalSince1970), event.kind, event.rule, event.metric, event.value, event.station])
        return db.lastInsertedRowID
    }
}

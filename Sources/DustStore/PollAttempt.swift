import DustKit
import DustServices
import Foundation
import GRDB

extension SQLiteStore: AttemptStore {
    /// Records an attempt (and prunes those older than 90 days).
    public func recordAttempt(_ attempt: PollAttempt) throws(StorageFailure) {
        try writing { db in
            try db.execute(
                sql: """
                    INSERT INTO poll_attempt (started_at, station, kind, operation, outcome, http_status, result_code,
                                              rows_new, rows_updated, duration_ms, message)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    Self.seconds(attempt.startedAt), attempt.station, attempt.kind.rawValue, attempt.operation,
                    attempt.outcome.rawValue, attempt.httpStatus, attempt.resultCode, attempt.rowsNew,
                    attempt.rowsUpdated, attempt.durationMilliseconds, attempt.message,
                ])
            let cutoff = Self.seconds(attempt.startedAt.addingTimeInterval(-PollAttempt.retention))
            try db.execute(sql: "DELETE FROM poll_attempt WHERE started_at < ?", arguments: [cutoff])
        }
    }

    /// The most recent attempts, newest first.
    public func recentAttempts(
        limit: Int = 20, outcome: PollAttempt.Outcome? = nil, excluding: PollAttempt.Outcome? = nil
    ) throws(StorageFailure) -> [PollAttempt] {
        try reading { db in
            var conditions: [String] = []
            var arguments: StatementArguments = []
            if let outcome {
                conditions.append("outcome = ?")
                arguments += [outcome.rawValue]
            }
            if let excluding {
                conditions.append("outcome != ?")
                arguments += [excluding.rawValue]
            }
            arguments += [limit]
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT started_at, station, kind, operation, outcome, http_status, result_code, rows_new, rows_updated,
                           duration_ms, message
                    FROM poll_attempt \(filter) ORDER BY started_at DESC, id DESC LIMIT ?
                    """, arguments: arguments
            ).map { row in
                PollAttempt(
                    startedAt: Date(timeIntervalSince1970: TimeInterval(row["started_at"] as Int64)), station: row["station"],
                    kind: AttemptKind(rawValue: row["kind"]) ?? .measurement, operation: row["operation"],
                    outcome: PollAttempt.Outcome(rawValue: row["outcome"]) ?? .failed,
                    httpStatus: row["http_status"], resultCode: row["result_code"], rowsNew: row["rows_new"],
                    rowsUpdated: row["rows_updated"], durationMilliseconds: row["duration_ms"], message: row["message"])
            }
        }
    }

    /// Requests of `kind` recorded since `start` (in whole seconds, as `started_at` is stored).
    public func attemptCount(kind: AttemptKind, since start: Date) throws(StorageFailure) -> Int {
        try reading { db in
            try Int.fetchOne(
                db, sql: "SELECT count(*) FROM poll_attempt WHERE kind = ? AND started_at >= ?",
                arguments: [kind.rawValue, Self.seconds(start)]) ?? 0
        }
    }

    /// A time as every `*_at` column holds it: whole seconds since 1970.
    static func seconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }

    /// Stores daemon state values (`next_poll`, `state`, `status`, …).
    public func setDaemonState(_ values: [String: String], at time: Date = Date()) throws(StoreError) {
        try write { db in
            for (key, value) in values {
                try db.execute(
                    sql: """
                        INSERT INTO daemon_state (key, value, updated_at) VALUES (?, ?, ?)
                        ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
                        """, arguments: [key, value, Int64(time.timeIntervalSince1970)])
            }
        }
    }

    /// The daemon state values.
    public func daemonState() throws(StoreError) -> [String: String] {
        try read { db in
            Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT key, value FROM daemon_state").map {
                    ($0["key"] as String, $0["value"] as String)
                })
        }
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

import DustKit
import DustServices
import Foundation
import GRDB

extension SQLiteStore {
    /// Attempts older than this are pruned as new ones are recorded.
    public static let attemptRetention: TimeInterval = 90 * 86_400

    /// Records an attempt (and prunes those older than 90 days).
    public func record(_ attempt: PollAttempt) throws(StoreError) {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO poll_attempt (started_at, station, operation, outcome, http_status, result_code,
                                              rows_new, rows_updated, duration_ms, message)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    Int64(attempt.startedAt.timeIntervalSince1970 * 1000), attempt.station, attempt.operation,
                    attempt.outcome.rawValue, attempt.httpStatus, attempt.resultCode, attempt.rowsNew,
                    attempt.rowsUpdated, attempt.durationMilliseconds, attempt.message,
                ])
            let cutoff = Int64((attempt.startedAt.timeIntervalSince1970 - Self.attemptRetention) * 1000)
            try db.execute(sql: "DELETE FROM poll_attempt WHERE started_at < ?", arguments: [cutoff])
        }
    }

    /// The most recent attempts, newest first.
    public func recentAttempts(
        limit: Int = 20, outcome: PollAttempt.Outcome? = nil, excluding: PollAttempt.Outcome? = nil
    ) throws(StoreError) -> [PollAttempt] {
        try read { db in
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
                    SELECT started_at, station, operation, outcome, http_status, result_code, rows_new, rows_updated, duration_ms, message
                    FROM poll_attempt \(filter) ORDER BY started_at DESC, id DESC LIMIT ?
                    """, arguments: arguments
            ).map { row in
                PollAttempt(
                    startedAt: Date(timeIntervalSince1970: Double(row[0] as Int64) / 1000), station: row[1], operation: row[2],
                    outcome: PollAttempt.Outcome(rawValue: row[3]) ?? .failed, httpStatus: row[4], resultCode: row[5],
                    rowsNew: row[6], rowsUpdated: row[7], durationMilliseconds: row[8], message: row[9])
            }
        }
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
                    ($0[0] as String, $0[1] as String)
                })
        }
    }
}

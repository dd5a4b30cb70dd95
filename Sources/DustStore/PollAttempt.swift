import DustKit
import Foundation
import GRDB

/// One request dustd made to AirKorea, as `dustctl status` shows it.
public struct PollAttempt: Sendable, Hashable {
    public enum Outcome: String, Sendable, Hashable {
        /// The response was stored.
        case ok
        /// A passing fault; retried with backoff.
        case retrying
        /// A key or configuration problem; not retried before the next hourly poll.
        case failed
        /// The daily or per-second quota is used up.
        case quota
        /// dustd was stopped during the request; nothing went wrong.
        case stopped
    }

    public var startedAt: Date
    public var station: String?
    /// The operation and its parameters, e.g. `getMsrstnAcctoRltmMesureDnsty DAILY page 1`.
    public var operation: String
    public var outcome: Outcome
    public var httpStatus: Int?
    public var resultCode: String?
    public var rowsNew: Int
    public var rowsUpdated: Int
    public var durationMilliseconds: Int
    /// What went wrong and what to do, for failures. Never contains the service key.
    public var message: String?

    public init(
        startedAt: Date, station: String?, operation: String, outcome: Outcome, httpStatus: Int? = nil,
        resultCode: String? = nil, rowsNew: Int = 0, rowsUpdated: Int = 0, durationMilliseconds: Int = 0, message: String? = nil
    ) {
        self.startedAt = startedAt
        self.station = station
        self.operation = operation
        self.outcome = outcome
        self.httpStatus = httpStatus
        self.resultCode = resultCode
        self.rowsNew = rowsNew
        self.rowsUpdated = rowsUpdated
        self.durationMilliseconds = durationMilliseconds
        self.message = message
    }
}

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

import DustKit
import DustServices
import Foundation

// Every request to AirKorea (`poll_attempt`) and the daemon's status (`daemon_state`): docs/REFERENCE.md §8.

extension SQLDatabase {
    /// Records an attempt and forgets those older than the retention, in one transaction.
    public func recordAttempt(_ attempt: PollAttempt) async throws(StorageFailure) {
        try await write { session in
            try session.execute(
                """
                INSERT INTO poll_attempt (started_at, station, kind, operation, outcome, http_status, result_code,
                                          rows_new, rows_updated, duration_ms, message)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                SQLTime.seconds(attempt.startedAt), attempt.station, attempt.kind.rawValue, attempt.operation,
                attempt.outcome.rawValue, attempt.httpStatus, attempt.resultCode, attempt.rowsNew,
                attempt.rowsUpdated, attempt.durationMilliseconds, attempt.message)
            if let cutoff = try session.cutoff(Retention(keeping: PollAttempt.retention, at: attempt.startedAt)) {
                try session.execute("DELETE FROM poll_attempt WHERE started_at < ?", SQLTime.seconds(cutoff))
            }
        }
    }

    /// The most recent attempts, newest first (what `dustctl status` lists); `outcome` keeps only
    /// those of one outcome, `excluding` leaves one out.
    public func recentAttempts(
        limit: Int = 20, outcome: PollAttempt.Outcome? = nil, excluding: PollAttempt.Outcome? = nil
    ) async throws(StorageFailure) -> [PollAttempt] {
        try await read { session in
            var conditions: [String] = []
            var arguments: [SQLValue] = []
            if let outcome {
                conditions.append("outcome = ?")
                arguments.append(outcome.rawValue.sqlValue)
            }
            if let excluding {
                conditions.append("outcome <> ?")
                arguments.append(excluding.rawValue.sqlValue)
            }
            arguments.append(limit.sqlValue)
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            return try session.rows(
                """
                SELECT started_at, station, kind, operation, outcome, http_status, result_code, rows_new, rows_updated,
                       duration_ms, message
                FROM poll_attempt \(filter) ORDER BY started_at DESC, id DESC LIMIT ?
                """, arguments
            ).map { row in
                PollAttempt(
                    startedAt: SQLTime.date(try row.int64("started_at")), station: try row.optionalString("station"),
                    kind: AttemptKind(rawValue: try row.string("kind")) ?? .measurement, operation: try row.string("operation"),
                    outcome: PollAttempt.Outcome(rawValue: try row.string("outcome")) ?? .failed,
                    httpStatus: try row.optionalInt("http_status"), resultCode: try row.optionalString("result_code"),
                    rowsNew: try row.int("rows_new"), rowsUpdated: try row.int("rows_updated"),
                    durationMilliseconds: try row.int("duration_ms"), message: try row.optionalString("message"))
            }
        }
    }

    /// Requests of `kind` recorded since `start` (in whole seconds, as `started_at` is stored).
    public func attemptCount(kind: AttemptKind, since start: Date, before end: Date) async throws(StorageFailure) -> Int {
        try await read { session in
            try session.row(
                "SELECT count(*) AS n FROM poll_attempt WHERE kind = ? AND started_at >= ? AND started_at < ?", kind.rawValue,
                SQLTime.seconds(start), SQLTime.seconds(end)
            )?.int("n") ?? 0
        }
    }

    // MARK: - The daemon's status

    /// Stores daemon state values (`status`, …) at `time`.
    public func setDaemonState(_ values: [String: String], at time: Date) async throws(StorageFailure) {
        try await write { session in
            for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                try session.execute(
                    """
                    INSERT INTO daemon_state (key, value, updated_at) VALUES (?, ?, ?)
                    ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
                    """, key, value, SQLTime.seconds(time))
            }
        }
    }

    /// The daemon state values.
    public func daemonState() async throws(StorageFailure) -> [String: String] {
        try await read { session in
            var values: [String: String] = [:]
            try session.forEachRow("SELECT key, value FROM daemon_state", []) { row in
                values[try row.string("key")] = try row.string("value")
            }
            return values
        }
    }

    public func saveStatus(_ status: DaemonStatus) async throws(StorageFailure) {
        try await setDaemonState([DaemonStatus.storageKey: status.encoded()], at: status.heartbeatAt)
    }

    public func claimForDemo(at time: Date) async throws(StorageFailure) -> Bool {
        try await write { session in
            guard try Self.demoMayWrite(session) else { return false }
            if try session.row("SELECT 1 AS one FROM daemon_state WHERE key = ?", DaemonStatus.demoKey) != nil { return true }
            _ = try session.execute(
                "INSERT INTO daemon_state (key, value, updated_at) VALUES (?, ?, ?)", DaemonStatus.demoKey, "replayed",
                SQLTime.seconds(time))
            return true
        }
    }

    public func releaseFromDemo() async throws(StorageFailure) -> Bool {
        // Read first: a database without the mark (every database but the demo's) is not written.
        let marked = try await read { session in
            try session.row("SELECT 1 AS one FROM daemon_state WHERE key = ?", DaemonStatus.demoKey) != nil
        }
        guard marked else { return false }
        return try await write { session in
            try session.execute("DELETE FROM daemon_state WHERE key = ?", DaemonStatus.demoKey) > 0
        }
    }

    public func demoMayWrite() async throws(StorageFailure) -> Bool {
        try await read { session in try Self.demoMayWrite(session) }
    }

    /// The demo's mark is there, or nothing a household or dustd writes is.
    private static func demoMayWrite(_ session: any SQLSession) throws -> Bool {
        if try session.row("SELECT 1 AS one FROM daemon_state WHERE key = ?", DaemonStatus.demoKey) != nil { return true }
        let holds = try session.row(
            """
            SELECT 1 AS one WHERE EXISTS (SELECT 1 FROM measurement) OR EXISTS (SELECT 1 FROM station)
            OR EXISTS (SELECT 1 FROM activity_source) OR EXISTS (SELECT 1 FROM heart_rate)
            OR EXISTS (SELECT 1 FROM resting_heart_rate) OR EXISTS (SELECT 1 FROM sleep_interval)
            OR EXISTS (SELECT 1 FROM track_position) OR EXISTS (SELECT 1 FROM indoor_hour) OR EXISTS (SELECT 1 FROM indoor_sensor)
            OR EXISTS (SELECT 1 FROM poll_attempt) OR EXISTS (SELECT 1 FROM advisory) OR EXISTS (SELECT 1 FROM forecast_issue)
            OR EXISTS (SELECT 1 FROM weekly_outlook) OR EXISTS (SELECT 1 FROM alert_event) OR EXISTS (SELECT 1 FROM daemon_state)
            OR EXISTS (SELECT 1 FROM session_revocation)
            """)
        return holds == nil
    }

    public func loadStatus() async throws(StorageFailure) -> DaemonStatus? {
        let encoded = try await read { session in
            try session.row("SELECT value FROM daemon_state WHERE key = ?", DaemonStatus.storageKey)?.string("value")
        }
        return encoded.flatMap(DaemonStatus.decoded)
    }
}

extension DaemonStatus {
    /// The `daemon_state` key the status is stored under.
    static let storageKey = "status"
    /// The `daemon_state` key that marks a database the demo made (`claimForDemo`).
    static let demoKey = "demo"
}

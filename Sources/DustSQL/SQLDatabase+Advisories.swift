import DustKit
import DustServices
import Foundation

// Official advisories (주의보/경보, docs/REFERENCE.md §17): one row per pollutant and key.

extension SQLDatabase {
    /// Stores advisories in one transaction, one row per pollutant and key; a revision replaces the
    /// row. Returns how many were new or changed.
    @discardableResult
    public func saveAdvisories(_ advisories: [Advisory], fetchedAt: Date) async throws(StorageFailure) -> Int {
        let distinct = dialect.isDistinctFrom
        let sql = """
            INSERT INTO advisory (pollutant, advisory_key, district, area, level_word, issued_at, cleared_at,
                                  issue_value, clear_value, max_value, fetched_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (pollutant, advisory_key) DO UPDATE SET
                district = excluded.district, area = excluded.area, level_word = excluded.level_word,
                issued_at = excluded.issued_at, cleared_at = excluded.cleared_at, issue_value = excluded.issue_value,
                clear_value = excluded.clear_value, max_value = excluded.max_value, fetched_at = excluded.fetched_at
            WHERE advisory.district \(distinct) excluded.district OR advisory.area \(distinct) excluded.area
                OR advisory.level_word \(distinct) excluded.level_word OR advisory.issued_at \(distinct) excluded.issued_at
                OR advisory.cleared_at \(distinct) excluded.cleared_at OR advisory.issue_value \(distinct) excluded.issue_value
                OR advisory.clear_value \(distinct) excluded.clear_value OR advisory.max_value \(distinct) excluded.max_value
            """
        return try await write { session in
            var changed = 0
            for advisory in advisories {
                changed += try session.execute(
                    sql, advisory.pollutant.rawValue, advisory.key, advisory.district, advisory.area, advisory.level.word,
                    SQLTime.seconds(advisory.issuedAt), advisory.clearedAt.map(SQLTime.seconds), advisory.issueValue,
                    advisory.clearValue, advisory.maxValue, SQLTime.seconds(fetchedAt))
            }
            return changed
        }
    }

    /// The advisories issued in `[start, end)`, and any issued earlier still in force at `start`, newest first.
    public func advisories(from start: Date, to end: Date) async throws(StorageFailure) -> [Advisory] {
        let from = SQLTime.seconds(start)
        return try await read { session in
            try session.rows(
                """
                SELECT \(advisoryColumns) FROM advisory
                WHERE (issued_at >= ? AND issued_at < ?) OR (issued_at < ? AND (cleared_at IS NULL OR cleared_at > ?))
                ORDER BY issued_at DESC, pollutant, advisory_key
                """, from, SQLTime.seconds(end), from, from
            ).compactMap(advisory)
        }
    }

    /// The advisories in force at `now`, newest first.
    public func activeAdvisories(at now: Date) async throws(StorageFailure) -> [Advisory] {
        let at = SQLTime.seconds(now)
        return try await read { session in
            try session.rows(
                """
                SELECT \(advisoryColumns) FROM advisory WHERE issued_at <= ? AND (cleared_at IS NULL OR cleared_at > ?)
                ORDER BY issued_at DESC, pollutant, advisory_key
                """, at, at
            ).compactMap(advisory)
        }
    }
}

private let advisoryColumns =
    "pollutant, advisory_key, district, area, level_word, issued_at, cleared_at, issue_value, clear_value, max_value"

/// A row as an advisory, by column name; nil for a pollutant this version does not know.
private func advisory(_ row: SQLRow) throws -> Advisory? {
    guard let pollutant = AdvisoryPollutant(rawValue: try row.string("pollutant")) else { return nil }
    return Advisory(
        pollutant: pollutant, key: try row.string("advisory_key"), district: try row.string("district"),
        area: try row.optionalString("area"), level: AdvisoryLevel(word: try row.string("level_word")),
        issuedAt: SQLTime.date(try row.int64("issued_at")), clearedAt: try row.optionalInt64("cleared_at").map(SQLTime.date),
        issueValue: try row.optionalDouble("issue_value"), clearValue: try row.optionalDouble("clear_value"),
        maxValue: try row.optionalDouble("max_value"))
}

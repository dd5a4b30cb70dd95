import DustKit
import DustServices
import Foundation
import GRDB

extension SQLiteStore: AdvisoryStore {
    /// Stores advisories in one transaction, one row per pollutant and key; a revision replaces the row.
    /// Returns how many were new or changed.
    @discardableResult
    public func saveAdvisories(_ advisories: [Advisory], fetchedAt: Date = Date()) throws(StorageFailure) -> Int {
        try writing { db in
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO advisory (pollutant, advisory_key, district, area, level_word, issued_at, cleared_at,
                                          issue_value, clear_value, max_value, fetched_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (pollutant, advisory_key) DO UPDATE SET
                        district = excluded.district, area = excluded.area, level_word = excluded.level_word,
                        issued_at = excluded.issued_at, cleared_at = excluded.cleared_at, issue_value = excluded.issue_value,
                        clear_value = excluded.clear_value, max_value = excluded.max_value, fetched_at = excluded.fetched_at
                    WHERE district IS NOT excluded.district OR area IS NOT excluded.area OR level_word IS NOT excluded.level_word
                        OR issued_at IS NOT excluded.issued_at OR cleared_at IS NOT excluded.cleared_at
                        OR issue_value IS NOT excluded.issue_value OR clear_value IS NOT excluded.clear_value
                        OR max_value IS NOT excluded.max_value
                    """)
            var changed = 0
            for advisory in advisories {
                try statement.execute(
                    arguments: [
                        advisory.pollutant.rawValue, advisory.key, advisory.district, advisory.area, advisory.level.word,
                        Self.seconds(advisory.issuedAt), advisory.clearedAt.map(Self.seconds), advisory.issueValue,
                        advisory.clearValue, advisory.maxValue, Self.seconds(fetchedAt),
                    ])
                changed += db.changesCount
            }
            return changed
        }
    }

    public func advisories(from start: Date, to end: Date) throws(StorageFailure) -> [Advisory] {
        try reading { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM advisory
                    WHERE (issued_at >= ? AND issued_at < ?) OR (issued_at < ? AND (cleared_at IS NULL OR cleared_at > ?))
                    ORDER BY issued_at DESC, pollutant, advisory_key
                    """,
                arguments: [Self.seconds(start), Self.seconds(end), Self.seconds(start), Self.seconds(start)]
            ).compactMap(Self.advisory)
        }
    }

    public func activeAdvisories(at now: Date) throws(StorageFailure) -> [Advisory] {
        try reading { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM advisory WHERE issued_at <= ? AND (cleared_at IS NULL OR cleared_at > ?)
                    ORDER BY issued_at DESC, pollutant, advisory_key
                    """, arguments: [Self.seconds(now), Self.seconds(now)]
            ).compactMap(Self.advisory)
        }
    }

    /// A row as an advisory, by column name; nil for a pollutant this version does not know.
    private static func advisory(_ row: Row) -> Advisory? {
        guard let pollutant = AdvisoryPollutant(rawValue: row["pollutant"]) else { return nil }
        return Advisory(
            pollutant: pollutant, key: row["advisory_key"], district: row["district"], area: row["area"],
            level: AdvisoryLevel(word: row["level_word"]), issuedAt: Date(timeIntervalSince1970: TimeInterval(row["issued_at"] as Int64)),
            clearedAt: (row["cleared_at"] as Int64?).map { Date(timeIntervalSince1970: TimeInterval($0)) },
            issueValue: row["issue_value"], clearValue: row["clear_value"], maxValue: row["max_value"])
    }
}

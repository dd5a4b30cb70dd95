import DustKit
import DustServices
import Foundation
import GRDB

extension SQLiteStore {
    /// Stores one file's walking, its heart rate, resting rates and sleep, and its positions in one
    /// transaction, replacing each batch's person's and source's rows within `replacing`
    /// (docs/REFERENCE.md §18, §19).
    public func saveImport(
        walking: [ActivitySourceBatch], body: [PhysiologyBatch], positions: [PositionBatch], importedAt: Date = Date()
    ) throws(StorageFailure) {
        try writing { db in
            try Self.insertActivity(walking, importedAt: importedAt, db)
            try Self.insertPhysiology(body, importedAt: importedAt, db)
            try Self.insertPositions(positions, importedAt: importedAt, db)
        }
    }

    static func insertPhysiology(_ batches: [PhysiologyBatch], importedAt: Date, _ db: Database) throws {
        let imported = Int64(importedAt.timeIntervalSince1970)
        for batch in batches {
            if let span = batch.replacing {
                let bounds: [any DatabaseValueConvertible] = [
                    batch.person, batch.source, Self.seconds(span.lowerBound), Self.seconds(span.upperBound),
                ]
                try db.execute(
                    sql: "DELETE FROM heart_rate WHERE person = ? AND source = ? AND at >= ? AND at <= ?",
                    arguments: StatementArguments(bounds))
                try db.execute(
                    sql: "DELETE FROM resting_heart_rate WHERE person = ? AND source = ? AND at >= ? AND at <= ?",
                    arguments: StatementArguments(bounds))
                try db.execute(
                    sql: "DELETE FROM sleep_interval WHERE person = ? AND source = ? AND start_at >= ? AND start_at <= ?",
                    arguments: StatementArguments(bounds))
            }
            let heart = try db.cachedStatement(
                sql: """
                    INSERT INTO heart_rate (person, at, source, beats_per_minute, imported_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (person, at, source) DO UPDATE
                    SET beats_per_minute = excluded.beats_per_minute, imported_at = excluded.imported_at
                    """)
            for sample in batch.heartRate {
                try heart.execute(arguments: [batch.person, Self.seconds(sample.at), batch.source, sample.beatsPerMinute, imported])
            }
            let resting = try db.cachedStatement(
                sql: """
                    INSERT INTO resting_heart_rate (person, at, source, beats_per_minute, imported_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (person, at, source) DO UPDATE
                    SET beats_per_minute = excluded.beats_per_minute, imported_at = excluded.imported_at
                    """)
            for sample in batch.restingHeartRate {
                try resting.execute(arguments: [batch.person, Self.seconds(sample.at), batch.source, sample.beatsPerMinute, imported])
            }
            let sleep = try db.cachedStatement(
                sql: """
                    INSERT INTO sleep_interval (person, start_at, source, end_at, imported_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (person, start_at, source) DO UPDATE SET end_at = excluded.end_at, imported_at = excluded.imported_at
                    """)
            for interval in batch.sleep {
                try sleep.execute(
                    arguments: [batch.person, Self.seconds(interval.start), batch.source, Self.seconds(interval.end), imported])
            }
        }
    }

    /// `person`'s records bearing on `[from, to)`, merged over sources, in time order.
    public func physiology(person: String, from: Date, to: Date) throws(StorageFailure) -> StoredPhysiology {
        let start = Self.seconds(from)
        let end = Self.seconds(to)
        return try reading { db in
            let cover = Int64(SlotPhysiology.heartRateCover)
            let heartRate = try Row.fetchAll(
                db,
                sql: """
                    SELECT at, MAX(beats_per_minute) AS beats FROM heart_rate
                    WHERE person = ? AND at >= ? AND at < ? GROUP BY at ORDER BY at
                    """, arguments: [person, start - cover, end]
            ).map { HeartRateSample(at: Self.date($0["at"]), beatsPerMinute: $0["beats"]) }
            let resting = try Row.fetchAll(
                db,
                sql: """
                    SELECT at, MAX(beats_per_minute) AS beats FROM resting_heart_rate
                    WHERE person = ? AND at < ?
                      AND at >= COALESCE((SELECT MAX(at) FROM resting_heart_rate WHERE person = ? AND at <= ?), ?)
                    GROUP BY at ORDER BY at
                    """, arguments: [person, end, person, start, start]
            ).map { RestingHeartRateSample(at: Self.date($0["at"]), beatsPerMinute: $0["beats"]) }
            // An interval is at most a day long, so the index on start_at bounds the search.
            let sleep = try Row.fetchAll(
                db,
                sql: """
                    SELECT start_at, end_at FROM sleep_interval
                    WHERE person = ? AND start_at >= ? AND start_at < ? AND end_at > ?
                    ORDER BY start_at, end_at
                    """, arguments: [person, start - Int64(SleepInterval.maxDuration), end, start]
            ).map { SleepInterval(start: Self.date($0["start_at"]), end: Self.date($0["end_at"])) }
            return StoredPhysiology(heartRate: heartRate, restingHeartRate: resting, sleep: sleep)
        }
    }

    /// What is stored per person and source, by person then source.
    public func physiologySummaries() throws(StorageFailure) -> [PhysiologySummary] {
        try reading { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT person, source, MIN(first) AS first, MAX(last) AS last, SUM(heart) AS heart, SUM(resting) AS resting,
                           SUM(sleep) AS sleep, SUM(asleep) AS asleep FROM (
                        SELECT person, source, MIN(at) AS first, MAX(at) AS last, COUNT(*) AS heart, 0 AS resting, 0 AS sleep,
                               0 AS asleep
                        FROM heart_rate GROUP BY person, source
                        UNION ALL SELECT person, source, MIN(at), MAX(at), 0, COUNT(*), 0, 0
                        FROM resting_heart_rate GROUP BY person, source
                        UNION ALL SELECT person, source, MIN(start_at), MAX(end_at), 0, 0, COUNT(*), SUM(end_at - start_at)
                        FROM sleep_interval GROUP BY person, source
                    ) GROUP BY person, source ORDER BY person, source
                    """
            ).map { row in
                PhysiologySummary(
                    person: row["person"], source: row["source"], first: Self.date(row["first"]), last: Self.date(row["last"]),
                    heartRateSamples: row["heart"], restingRates: row["resting"], sleepIntervals: row["sleep"], asleepSeconds: row["asleep"]
                )
            }
        }
    }

    /// Deletes `person`'s records of `source` (nil: every source); the rows deleted.
    @discardableResult
    public func forgetPhysiology(person: String, source: String?) throws(StorageFailure) -> Int {
        try writing { db in
            var removed = 0
            for table in ["heart_rate", "resting_heart_rate", "sleep_interval"] {
                if let source {
                    try db.execute(sql: "DELETE FROM \(table) WHERE person = ? AND source = ?", arguments: [person, source])
                } else {
                    try db.execute(sql: "DELETE FROM \(table) WHERE person = ?", arguments: [person])
                }
                removed += db.changesCount
            }
            return removed
        }
    }

    static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }
}

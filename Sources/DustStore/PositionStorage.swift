import DustKit
import DustServices
import Foundation
import GRDB

extension SQLiteStore {
    static func insertPositions(_ batches: [PositionBatch], importedAt: Date, _ db: Database) throws {
        let imported = Int64(importedAt.timeIntervalSince1970)
        let delete = try db.cachedStatement(
            sql: "DELETE FROM track_position WHERE person = ? AND source = ? AND minute >= ? AND minute <= ?")
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO track_position (person, source, minute, latitude, longitude, imported_at) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (person, source, minute) DO UPDATE
                SET latitude = excluded.latitude, longitude = excluded.longitude, imported_at = excluded.imported_at
                """)
        for batch in batches {
            if let span = batch.replacing {
                try delete.execute(arguments: [batch.person, batch.source, Self.seconds(span.lowerBound), Self.seconds(span.upperBound)])
            }
            for point in batch.minutes {
                try insert.execute(arguments: [
                    batch.person, batch.source, Self.seconds(point.at), point.latitude, point.longitude, imported,
                ])
            }
        }
    }

    /// `person`'s positions whose minute starts in `[from, to)`, in time order, then by source.
    public func positions(person: String, from: Date, to: Date) throws(StorageFailure) -> [TrackPosition] {
        try reading { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT source, minute, latitude, longitude FROM track_position
                    WHERE person = ? AND minute >= ? AND minute < ? ORDER BY minute, source
                    """, arguments: [person, Self.minuteBound(from), Self.minuteBound(to)]
            ).map { row in
                TrackPosition(
                    person: person, source: row["source"], minute: Self.date(row["minute"]), latitude: row["latitude"],
                    longitude: row["longitude"])
            }
        }
    }

    /// The minutes stored per person and source, by person then source.
    public func positionSummaries() throws(StorageFailure) -> [PositionSummary] {
        try reading { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT person, source, MIN(minute) AS first, MAX(minute) AS last, COUNT(*) AS minutes
                    FROM track_position GROUP BY person, source ORDER BY person, source
                    """
            ).map { row in
                PositionSummary(
                    person: row["person"], source: row["source"], first: Self.date(row["first"]), last: Self.date(row["last"]),
                    minutes: row["minutes"])
            }
        }
    }

    /// Deletes `person`'s positions of `source` (nil: every source); the positions deleted.
    @discardableResult
    public func forgetPositions(person: String, source: String?) throws(StorageFailure) -> Int {
        try writing { db in
            if let source {
                try db.execute(sql: "DELETE FROM track_position WHERE person = ? AND source = ?", arguments: [person, source])
            } else {
                try db.execute(sql: "DELETE FROM track_position WHERE person = ?", arguments: [person])
            }
            return db.changesCount
        }
    }

    /// A bound of `[from, to)` in whole seconds: a minute starting at a fraction past a second is after it.
    private static func minuteBound(_ instant: Date) -> Int64 { Int64(instant.timeIntervalSince1970.rounded(.up)) }
}

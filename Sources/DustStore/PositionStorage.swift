import DustKit
import DustServices
import Foundation
import GRDB
import GRDBSQLite

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
            for span in batch.changedSpans { try forgetPlaces(person: batch.person, from: span.lowerBound, through: span.upperBound, db) }
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

    /// `person`'s positions whose minute starts in `[from, to)`, one a minute (the first source's by
    /// name), in time order. Each source is read along the primary key (person, source, minute), three
    /// columns a row by the indices of their names, and the sources merged here: the (person, minute)
    /// index would cost a primary-key search for every row.
    public func trackPoints(person: String, from: Date, to: Date) throws(StorageFailure) -> [TrackPoint] {
        try reading { db in
            // The person's sources by name, one primary-key search each.
            let sources = try Row.fetchAll(
                db,
                sql: """
                    WITH RECURSIVE next(source) AS (
                        SELECT MIN(source) FROM track_position WHERE person = ?
                        UNION ALL
                        SELECT (SELECT MIN(source) FROM track_position WHERE person = ? AND source > next.source)
                        FROM next WHERE next.source IS NOT NULL)
                    SELECT source FROM next WHERE source IS NOT NULL
                    """, arguments: [person, person]
            ).map { row -> String in row["source"] }
            let statement = try db.cachedStatement(
                sql: """
                    SELECT minute, latitude, longitude FROM track_position
                    WHERE person = ? AND source = ? AND minute >= ? AND minute < ? ORDER BY minute
                    """)
            let minute = try Self.column("minute", of: statement)
            let latitude = try Self.column("latitude", of: statement)
            let longitude = try Self.column("longitude", of: statement)
            var bySource: [[TrackPoint]] = []
            for source in sources {
                statement.arguments = [person, source, Self.minuteBound(from), Self.minuteBound(to)]
                var points: [TrackPoint] = []
                try Self.eachRow(of: statement, in: db) { row in
                    points.append(
                        TrackPoint(
                            at: Self.date(sqlite3_column_int64(row, Int32(minute))),
                            latitude: sqlite3_column_double(row, Int32(latitude)),
                            longitude: sqlite3_column_double(row, Int32(longitude))))
                }
                bySource.append(points)
            }
            guard bySource.count > 1 else { return bySource.first ?? [] }
            // A minute several sources hold keeps the first source's (the sources are in name order).
            var tagged = bySource.enumerated().flatMap { order, points in points.map { (order: order, point: $0) } }
            tagged.sort { ($0.point.at, $0.order) < ($1.point.at, $1.order) }
            var merged: [TrackPoint] = []
            for entry in tagged where entry.point.at != merged.last?.at { merged.append(entry.point) }
            return merged
        }
    }

    /// The index of the column `name` of `statement`'s rows, so a long read looks each name up once.
    static func column(_ name: String, of statement: Statement) throws -> Int {
        guard let index = statement.columnNames.firstIndex(of: name) else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no column \(name)", sql: statement.sql)
        }
        return index
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
            let forgotten = db.changesCount
            try Self.forgetPlaces(person: person, db)
            return forgotten
        }
    }

    /// A bound of `[from, to)` in whole seconds: a minute starting at a fraction past a second is after it.
    private static func minuteBound(_ instant: Date) -> Int64 { Int64(instant.timeIntervalSince1970.rounded(.up)) }
}

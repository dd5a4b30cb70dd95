import DustKit
import DustSQL
import DustServices
import Foundation
import GRDB
import GRDBSQLite

extension SQLiteStore {
    /// `person`'s positions whose minute starts in `[from, to)`, one a minute (the first source's by
    /// name), in time order. Each source is read along the primary key (person, source, minute), three
    /// columns a row by the indices of their names, and the sources merged here: the (person, minute)
    /// index would cost a primary-key search for every row.
    public func trackPoints(person: String, from: Date, to: Date) async throws(StorageFailure) -> [TrackPoint] {
        try await reading { db in
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
                statement.arguments = [person, source, SQLTime.minuteBound(from), SQLTime.minuteBound(to)]
                var points: [TrackPoint] = []
                try Self.eachRow(of: statement, in: db) { row in
                    points.append(
                        TrackPoint(
                            at: SQLTime.date(sqlite3_column_int64(row, Int32(minute))),
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
}

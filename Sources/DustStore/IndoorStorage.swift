import DustKit
import DustSQL
import DustServices
import Foundation
import GRDB
import GRDBSQLite

extension SQLiteStore {
    /// Each of `sensors`' samples taken in `[from, to)` (docs/REFERENCE.md §21), read along the primary
    /// key (sensor, minute) straight into the series' columns: a week of two monitors is 20,000 rows,
    /// and a row through the shared statements' values cost several times SQLite's own stepping
    /// (docs/PERFORMANCE.md, issue 39). The shared statement (DustSQL) serves every other engine.
    public func indoorSeries(sensors: [String], from: Date, to: Date) async throws(StorageFailure) -> [IndoorSeries] {
        guard !sensors.isEmpty else { return [] }
        let (first, end) = (SQLTime.minuteBound(from), SQLTime.minuteBound(to))
        return try await reading { db in
            let statement = try db.cachedStatement(
                sql:
                    "SELECT minute, pm25, pm10, hold_seconds FROM indoor_sample WHERE sensor = ? AND minute >= ? AND minute < ? ORDER BY minute"
            )
            var found: [IndoorSeries] = []
            for sensor in sensors.sorted() {
                statement.arguments = [sensor, first, end]
                var series = IndoorSeries(sensor: sensor)
                try Self.eachRow(of: statement, in: db) { row in
                    series.append(
                        minute: sqlite3_column_int64(row, 0),
                        value: DustPair(fineDust: Self.optionalDouble(row, 2), ultraFineDust: Self.optionalDouble(row, 1)),
                        hold: Int(sqlite3_column_int64(row, 3)))
                }
                if series.count > 0 { found.append(series) }
            }
            return found
        }
    }
}

import DustKit
import DustSQL
import DustServices
import Foundation
import GRDB
import GRDBSQLite

extension SQLiteStore {
    /// Each of `sensors`' samples taken in `[from, to)` (docs/REFERENCE.md §21): the hour rows stepped with
    /// SQLite's C API and each row's packed samples decoded where SQLite holds them, never copied (a week of
    /// two monitors is 370 KB of them; docs/PERFORMANCE.md, issue 39). The shared statement (DustSQL)
    /// serves every other engine and gives the same series (StoreContractTests).
    public func indoorSeries(sensors: [String], from: Date, to: Date) async throws(StorageFailure) -> [IndoorSeries] {
        guard !sensors.isEmpty else { return [] }
        let (first, end) = (SQLTime.minuteBound(from), SQLTime.minuteBound(to))
        let firstHour = Slot(containing: SQLTime.date(first)).startEpochSeconds
        return try await reading { db in
            let statement = try db.cachedStatement(
                sql:
                    "SELECT slot_start, samples FROM indoor_hour WHERE sensor = ? AND slot_start >= ? AND slot_start < ? ORDER BY slot_start"
            )
            var found: [IndoorSeries] = []
            for sensor in sensors.sorted() {
                statement.arguments = [sensor, firstHour, end]
                var series = IndoorSeries(sensor: sensor)
                series.reserveCapacity(Int(min(max(0, end - first) / 60, 20_160)))
                try Self.eachRow(of: statement, in: db) { row in
                    let slot = sqlite3_column_int64(row, 0)
                    let count = Int(sqlite3_column_bytes(row, 1))
                    let bytes = UnsafeRawBufferPointer(start: sqlite3_column_blob(row, 1), count: count)
                    guard IndoorHourRecord.append(bytes, slot: slot, from: first, to: end, to: &series) else {
                        throw DatabaseError(
                            resultCode: .SQLITE_CORRUPT, message: "indoor_hour.samples of \(sensor) at \(slot) is not samples")
                    }
                }
                if series.count > 0 { found.append(series) }
            }
            return found
        }
    }
}

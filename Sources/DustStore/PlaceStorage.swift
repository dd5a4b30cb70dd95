import DustKit
import DustServices
import Foundation
import GRDB
import GRDBSQLite

// The read of a person's kept places (docs/REFERENCE.md §19), with SQLite's C API: a year's export
// reads 8,760 of them. Keeping and forgetting them are the shared statements' (DustSQL's PlaceRule).
extension SQLiteStore {
    public func slotPlaces(person: String, inputs: String, from: Slot, to: Slot) async throws(StorageFailure) -> [KeptSlotPlace] {
        try await reading { db in
            let statement = try db.cachedStatement(
                sql: """
                    SELECT slot_start, place FROM slot_place
                    WHERE person = ? AND slot_start >= ? AND slot_start < ? AND inputs = ? ORDER BY slot_start
                    """)
            statement.arguments = [person, from.startEpochSeconds, to.startEpochSeconds, inputs]
            var places: [KeptSlotPlace] = []
            try Self.eachRow(of: statement, in: db) { row in
                let start = sqlite3_column_int64(row, 0)
                let count = Int(sqlite3_column_bytes(row, 1))
                var bytes = [UInt8](repeating: 0, count: count)
                if count > 0, let blob = sqlite3_column_blob(row, 1) {
                    bytes.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: blob, count: count)) }
                }
                // `slot_start` is a whole hour: the table's CHECK.
                places.append(KeptSlotPlace(slot: Slot(startEpochSeconds: start), bytes: bytes))
            }
            return places
        }
    }

}

import DustKit
import DustServices
import Foundation
import GRDB
import GRDBSQLite

// The places of §19 kept per person and slot (docs/REFERENCE.md §19, §8): `slot_place` and the one
// row of `place_generation`. Every writer that can change a place calls one of the `forget…Places`
// below in its own transaction.
extension SQLiteStore: SlotPlaceStore {
    public func placeGeneration() throws(StorageFailure) -> Int64 {
        try reading { db in try Int64.fetchOne(db, sql: "SELECT generation FROM place_generation") ?? 0 }
    }

    public func slotPlaces(person: String, inputs: String, from: Slot, to: Slot) throws(StorageFailure) -> [StoredSlotPlace] {
        try reading { db in
            let statement = try db.cachedStatement(
                sql: """
                    SELECT slot_start, place FROM slot_place
                    WHERE person = ? AND slot_start >= ? AND slot_start < ? AND inputs = ? ORDER BY slot_start
                    """)
            statement.arguments = [person, from.startEpochSeconds, to.startEpochSeconds, inputs]
            var places: [StoredSlotPlace] = []
            try Self.eachRow(of: statement, in: db) { row in
                let start = sqlite3_column_int64(row, 0)
                let count = Int(sqlite3_column_bytes(row, 1))
                var bytes = [UInt8](repeating: 0, count: count)
                if count > 0, let blob = sqlite3_column_blob(row, 1) {
                    bytes.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: blob, count: count)) }
                }
                // `slot_start` is a whole hour: the table's CHECK.
                places.append(StoredSlotPlace(slot: Slot(startEpochSeconds: start), bytes: bytes))
            }
            return places
        }
    }

    public func keepSlotPlaces(
        _ places: [StoredSlotPlace], person: String, inputs: String, generation: Int64
    ) throws(StorageFailure) -> Bool {
        try writing { db in
            guard try Int64.fetchOne(db, sql: "SELECT generation FROM place_generation") == generation else { return false }
            let insert = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO slot_place (person, slot_start, inputs, place) VALUES (?, ?, ?, ?)")
            for place in places {
                try insert.execute(arguments: [person, place.slot.startEpochSeconds, inputs, Data(place.bytes)])
            }
            return true
        }
    }

    /// Forgets every person's places of `slots` (their readings changed) and raises the generation.
    static func forgetPlaces(ofSlots slots: Set<Int64>, _ db: Database) throws {
        guard !slots.isEmpty else { return }
        let delete = try db.cachedStatement(sql: "DELETE FROM slot_place WHERE slot_start = ?")
        for slot in slots { try delete.execute(arguments: [slot]) }
        try raisePlaceGeneration(db)
    }

    /// Forgets `person`'s places of the slots from the one holding `from` through the one holding
    /// `through` (their positions changed; nil: every slot) and raises the generation.
    static func forgetPlaces(person: String, from: Date? = nil, through: Date? = nil, _ db: Database) throws {
        if let from, let through {
            try db.execute(
                sql: "DELETE FROM slot_place WHERE person = ? AND slot_start >= ? AND slot_start <= ?",
                arguments: [person, Slot(containing: from).startEpochSeconds, Slot(containing: through).startEpochSeconds])
        } else {
            try db.execute(sql: "DELETE FROM slot_place WHERE person = ?", arguments: [person])
        }
        try raisePlaceGeneration(db)
    }

    /// Forgets every place (a station moved) and raises the generation.
    static func forgetAllPlaces(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM slot_place")
        try raisePlaceGeneration(db)
    }

    private static func raisePlaceGeneration(_ db: Database) throws {
        try db.execute(sql: "UPDATE place_generation SET generation = generation + 1")
    }
}

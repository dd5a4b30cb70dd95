import DustKit
import DustServices
import Foundation

/// The one rule every write that can change a kept place follows (docs/REFERENCE.md §19, "Kept
/// places"): in the writer's own transaction, raise the generation, then forget the places it made
/// stale. On PostgreSQL the raise also takes the generation row's lock until the writer commits, and
/// a keep reads that row `FOR UPDATE` (`SQLDialect.lockingRead`): a keep either commits before the
/// writer's `DELETE` runs, which then removes what it kept, or sees the raised generation and keeps
/// nothing. SQLite has one writer at a time, so the order costs it nothing.
enum PlaceRule {
    /// Forgets every person's places of `slots` (their readings changed).
    static func forget(slots: Set<Int64>, _ session: any SQLSession) throws {
        guard !slots.isEmpty else { return }
        try raiseGeneration(session)
        let sorted = slots.sorted()
        for start in stride(from: 0, to: sorted.count, by: 500) {
            let part = sorted[start..<min(start + 500, sorted.count)]
            let placeholders = Array(repeating: "?", count: part.count).joined(separator: ", ")
            try session.execute("DELETE FROM slot_place WHERE slot_start IN (\(placeholders))", part.map(\.sqlValue))
        }
    }

    /// Forgets `person`'s places of the slots from the one holding `from` through the one holding
    /// `through` (their positions changed); returns how many there were.
    @discardableResult
    static func forget(person: String, from: Date, through: Date, _ session: any SQLSession) throws -> Int {
        try raiseGeneration(session)
        return try session.execute(
            "DELETE FROM slot_place WHERE person = ? AND slot_start >= ? AND slot_start <= ?", person,
            Slot(containing: from).startEpochSeconds, Slot(containing: through).startEpochSeconds)
    }

    /// Forgets every place of `person` (their positions were forgotten or handed over); returns how many there were.
    @discardableResult
    static func forget(person: String, _ session: any SQLSession) throws -> Int {
        try raiseGeneration(session)
        return try session.execute("DELETE FROM slot_place WHERE person = ?", person)
    }

    /// Forgets every place (a station moved or was placed anew).
    static func forgetAll(_ session: any SQLSession) throws {
        try raiseGeneration(session)
        try session.execute("DELETE FROM slot_place")
    }

    private static func raiseGeneration(_ session: any SQLSession) throws {
        try session.execute("UPDATE place_generation SET generation = generation + 1")
    }
}

// The places of §19 kept per person and slot: `slot_place` and the one row of `place_generation`.
extension SQLDatabase {
    public func placeGeneration() async throws(StorageFailure) -> Int64 {
        try await read { session in try session.row("SELECT generation FROM place_generation")?.int64("generation") ?? 0 }
    }

    /// `person`'s kept places for slots starting in `[from, to)` computed with `inputs`, by slot.
    public func slotPlaces(person: String, inputs: String, from: Slot, to: Slot) async throws(StorageFailure) -> [KeptSlotPlace] {
        try await read { session in
            var places: [KeptSlotPlace] = []
            try session.forEachRow(
                """
                SELECT slot_start, place FROM slot_place
                WHERE person = ? AND slot_start >= ? AND slot_start < ? AND inputs = ? ORDER BY slot_start
                """, [person.sqlValue, from.startEpochSeconds.sqlValue, to.startEpochSeconds.sqlValue, inputs.sqlValue]
            ) { row in
                // `slot_start` is a whole hour: the table's CHECK.
                places.append(KeptSlotPlace(slot: try row.slot("slot_start"), bytes: try row.bytes("place")))
            }
            return places
        }
    }

    /// Keeps `places` unless a write raised the generation since `generation` (`PlaceRule`).
    public func keepSlotPlaces(
        _ places: [KeptSlotPlace], person: String, inputs: String, generation: Int64
    ) async throws(StorageFailure) -> Bool {
        let lockingRead = dialect.lockingRead
        return try await write { session in
            guard try session.row("SELECT generation FROM place_generation\(lockingRead)")?.int64("generation") == generation else {
                return false
            }
            try session.insertRows(
                into: "slot_place",
                columns: [
                    SQLColumn("person", .text, key: true), SQLColumn("slot_start", .integer, key: true), SQLColumn("inputs", .text),
                    SQLColumn("place", .blob),
                ],
                rows: places.lazy.map { [.text(person), .integer($0.slot.startEpochSeconds), .text(inputs), .blob($0.bytes)] },
                conflict: "ON CONFLICT (person, slot_start) DO UPDATE SET inputs = excluded.inputs, place = excluded.place")
            return true
        }
    }
}

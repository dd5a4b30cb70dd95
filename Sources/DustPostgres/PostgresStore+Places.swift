import DustKit
import DustServices
import Foundation
import PostgresNIO

// The places of §19 kept per person and slot (docs/REFERENCE.md §19, §20): the SQLite store's
// PlaceStorage.swift in PostgreSQL's words. The generation's one row is also the lock that orders a
// keep against the writes that forget places: each writer raises it before its `DELETE`, in the same
// transaction (taking the row's lock until it commits), and a keep reads it `FOR UPDATE`, so a keep
// either commits before a writer's `DELETE` runs (which then removes what it kept) or sees the raised
// generation and keeps nothing. Writers raise it late, after their own rows, so a long import holds
// the lock only from there to its commit.

extension PostgresStore: SlotPlaceStore {
    public func placeGeneration() async throws(StorageFailure) -> Int64 {
        let logger = logger
        return try await reading { connection in
            let rows = try await connection.query("SELECT generation FROM place_generation", logger: logger)
            return try await Self.single(rows, "generation") ?? 0
        }
    }

    public func slotPlaces(person: String, inputs: String, from: Slot, to: Slot) async throws(StorageFailure) -> [StoredSlotPlace] {
        let logger = logger
        return try await reading { connection in
            let rows = try await connection.query(
                """
                SELECT slot_start, place FROM slot_place
                WHERE person = \(person) AND slot_start >= \(from.startEpochSeconds) AND slot_start < \(to.startEpochSeconds)
                    AND inputs = \(inputs)
                ORDER BY slot_start
                """, logger: logger)
            var places: [StoredSlotPlace] = []
            // `slot_start` is a whole hour: the table's CHECK.
            for try await (start, place) in rows.decode((Int64, ByteBuffer).self) {
                places.append(StoredSlotPlace(slot: Slot(startEpochSeconds: start), bytes: Array(place.readableBytesView)))
            }
            return places
        }
    }

    public func keepSlotPlaces(
        _ places: [StoredSlotPlace], person: String, inputs: String, generation: Int64
    ) async throws(StorageFailure) -> Bool {
        let logger = logger
        return try await writing { connection in
            let rows = try await connection.query("SELECT generation FROM place_generation FOR UPDATE", logger: logger)
            guard try await Self.single(rows, "generation") == generation else { return false }
            for chunk in stride(from: 0, to: places.count, by: Self.importChunk) {
                let part = places[chunk..<min(chunk + Self.importChunk, places.count)]
                let starts = part.map(\.slot.startEpochSeconds)
                let bytes = part.map { ByteBuffer(bytes: $0.bytes) }
                try await connection.query(
                    """
                    INSERT INTO slot_place (person, slot_start, inputs, place)
                    SELECT \(person), s, \(inputs), p FROM unnest(\(starts)::bigint[], \(bytes)::bytea[]) AS u(s, p)
                    ON CONFLICT (person, slot_start) DO UPDATE SET inputs = excluded.inputs, place = excluded.place
                    """, logger: logger)
            }
            return true
        }
    }

    /// Raises the generation, taking its row's lock until the writer commits: before every `DELETE`
    /// of places, in the writer's transaction.
    static func raisePlaceGeneration(_ connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.query("UPDATE place_generation SET generation = generation + 1", logger: logger)
    }

    /// Forgets every person's places of `slots` (their readings changed).
    static func forgetPlaces(ofSlots slots: Set<Int64>, _ connection: PostgresConnection, _ logger: Logger) async throws {
        guard !slots.isEmpty else { return }
        try await raisePlaceGeneration(connection, logger)
        let starts = Array(slots)
        try await connection.query("DELETE FROM slot_place WHERE slot_start = ANY(\(starts)::bigint[])", logger: logger)
    }

    /// Forgets `person`'s places of the slots from the one holding `from` through the one holding
    /// `through` (their positions changed; nil: every slot).
    static func forgetPlaces(
        person: String, from: Date? = nil, through: Date? = nil, _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        try await raisePlaceGeneration(connection, logger)
        if let from, let through {
            let low = Slot(containing: from).startEpochSeconds
            let high = Slot(containing: through).startEpochSeconds
            try await connection.query(
                "DELETE FROM slot_place WHERE person = \(person) AND slot_start >= \(low) AND slot_start <= \(high)", logger: logger)
        } else {
            try await connection.query("DELETE FROM slot_place WHERE person = \(person)", logger: logger)
        }
    }

    /// Forgets every place (a station moved); the caller raised the generation before it looked.
    static func forgetAllPlaces(_ connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.query("DELETE FROM slot_place", logger: logger)
    }
}

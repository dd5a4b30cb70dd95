import DustKit
import DustServices
import Foundation

// Walking per source and slot (`activity_source`, docs/REFERENCE.md §12), heart rate, resting rates
// and sleep (§18) and positions (§19), each per person and source. An import is one transaction.

extension SQLDatabase {
    /// The walking of `me`, the one person of an installation without `people:`.
    public func walking(from: Slot, to: Slot) async throws(StorageFailure) -> [Slot: SlotWalking] {
        try await walking(person: Person.defaultName, from: from, to: to)
    }

    /// Per slot starting in `[from, to)`, the largest distance and the source that gave it (on a
    /// tie, the source whose name sorts first); never the sum of its sources (docs/REFERENCE.md §12).
    public func walking(person: String, from: Slot, to: Slot) async throws(StorageFailure) -> [Slot: SlotWalking] {
        try await read { session in
            var result: [Slot: SlotWalking] = [:]
            try session.forEachRow(
                """
                SELECT slot_start, source, distance_m FROM activity_source
                WHERE person = ? AND slot_start >= ? AND slot_start < ?
                ORDER BY slot_start, distance_m DESC, source
                """, [person.sqlValue, from.startEpochSeconds.sqlValue, to.startEpochSeconds.sqlValue]
            ) { row in
                let slot = try row.slot("slot_start")
                if result[slot] == nil {
                    result[slot] = SlotWalking(metres: try row.double("distance_m"), source: try row.string("source"))
                }
            }
            return result
        }
    }

    /// Stores the distances of one imported file, every source of it in one transaction.
    public func saveActivity(_ batches: [ActivitySourceBatch], importedAt: Date) async throws(StorageFailure) {
        try await write { session in try ImportRows.walking(batches, importedAt: importedAt, session) }
    }

    /// Every stored person and source with its first and last slot, slot count and total distance.
    /// The total adds the distances in slot order, so it is the same to the last bit on both engines.
    public func activitySources() async throws(StorageFailure) -> [ActivitySourceSummary] {
        let metres = dialect.sum("distance_m", orderedBy: "slot_start")
        return try await read { session in
            try session.rows(
                """
                SELECT person, source, min(slot_start) AS first_slot, max(slot_start) AS last_slot, count(*) AS slots,
                       \(metres) AS metres
                FROM activity_source GROUP BY person, source ORDER BY person, source
                """
            ).map { row in
                ActivitySourceSummary(
                    person: try row.string("person"), source: try row.string("source"),
                    firstSlot: try row.slot("first_slot"),
                    lastSlot: try row.slot("last_slot"), slots: try row.int("slots"),
                    metres: try row.double("metres"))
            }
        }
    }

    /// The stored distances of one source of `person`, per slot.
    public func activity(person: String = Person.defaultName, source: String) async throws(StorageFailure) -> [Slot: Double] {
        try await read { session in
            var result: [Slot: Double] = [:]
            try session.forEachRow(
                "SELECT slot_start, distance_m FROM activity_source WHERE person = ? AND source = ?", [person.sqlValue, source.sqlValue]
            ) { row in result[try row.slot("slot_start")] = try row.double("distance_m") }
            return result
        }
    }

    /// Removes `me`'s distances of `source`.
    @discardableResult
    public func forgetActivity(source: String) async throws(StorageFailure) -> Int {
        try await forgetActivity(person: Person.defaultName, source: source)
    }

    /// Deletes `person`'s rows of `source` (nil: of every source); returns how many there were.
    @discardableResult
    public func forgetActivity(person: String, source: String?) async throws(StorageFailure) -> Int {
        try await write { session in
            try deleteRows(of: person, source: source, from: "activity_source", session)
        }
    }

    /// Hands every row of `from` to `to` when `to` has none (docs/REFERENCE.md §18); the rows moved.
    public func movePerson(from: String, to: String) async throws(StorageFailure) -> Int {
        try await write { session in
            let tables = PersonTables.records.map(\.table)
            for table in tables {
                guard try session.row("SELECT count(*) AS n FROM \(table) WHERE person = ?", to)?.int("n") == 0 else { return 0 }
            }
            var moved = 0
            for table in tables { moved += try session.execute("UPDATE \(table) SET person = ? WHERE person = ?", to, from) }
            // Nothing handed over changes nothing: `to`'s kept places stay (this runs at every start).
            if moved > 0 {
                try PlaceRule.forget(person: from, session)
                try PlaceRule.forget(person: to, session)
            }
            return moved
        }
    }

    // MARK: - Heart rate, resting rates and sleep

    /// Stores one file's walking, its heart rate, resting rates and sleep, and its positions in one
    /// transaction, replacing each batch's person's and source's rows within `replacing`
    /// (docs/REFERENCE.md §18, §19).
    public func saveImport(
        walking: [ActivitySourceBatch], body: [PhysiologyBatch], positions: [PositionBatch], importedAt: Date
    ) async throws(StorageFailure) {
        try await write { session in
            try ImportRows.walking(walking, importedAt: importedAt, session)
            try ImportRows.body(body, importedAt: importedAt, session)
            try ImportRows.positions(positions, importedAt: importedAt, session)
        }
    }

    /// `person`'s records bearing on `[from, to)`, merged over sources, in time order.
    public func physiology(person: String, from: Date, to: Date) async throws(StorageFailure) -> StoredPhysiology {
        let start = SQLTime.seconds(from)
        let end = SQLTime.seconds(to)
        return try await read { session in
            var stored = StoredPhysiology()
            let cover = Int64(SlotPhysiology.heartRateCover)
            try session.forEachRow(
                """
                SELECT at, max(beats_per_minute) AS beats FROM heart_rate
                WHERE person = ? AND at >= ? AND at < ? GROUP BY at ORDER BY at
                """, [person.sqlValue, (start - cover).sqlValue, end.sqlValue]
            ) { row in
                stored.heartRate.append(HeartRateSample(at: SQLTime.date(try row.int64("at")), beatsPerMinute: try row.double("beats")))
            }
            try session.forEachRow(
                """
                SELECT at, max(beats_per_minute) AS beats FROM resting_heart_rate
                WHERE person = ? AND at < ?
                  AND at >= coalesce((SELECT max(at) FROM resting_heart_rate WHERE person = ? AND at <= ?), ?)
                GROUP BY at ORDER BY at
                """, [person.sqlValue, end.sqlValue, person.sqlValue, start.sqlValue, start.sqlValue]
            ) { row in
                stored.restingHeartRate.append(
                    RestingHeartRateSample(at: SQLTime.date(try row.int64("at")), beatsPerMinute: try row.double("beats")))
            }
            // An interval is at most a day long, so the index on start_at bounds the search.
            try session.forEachRow(
                """
                SELECT start_at, end_at FROM sleep_interval
                WHERE person = ? AND start_at >= ? AND start_at < ? AND end_at > ?
                ORDER BY start_at, end_at
                """, [person.sqlValue, (start - Int64(SleepInterval.maxDuration)).sqlValue, end.sqlValue, start.sqlValue]
            ) { row in
                stored.sleep.append(
                    SleepInterval(start: SQLTime.date(try row.int64("start_at")), end: SQLTime.date(try row.int64("end_at"))))
            }
            return stored
        }
    }

    /// What is stored per person and source, by person then source.
    public func physiologySummaries() async throws(StorageFailure) -> [PhysiologySummary] {
        try await read { session in
            try session.rows(
                """
                SELECT person, source, min(first) AS first, max(last) AS last, CAST(sum(heart) AS BIGINT) AS heart,
                       CAST(sum(resting) AS BIGINT) AS resting, CAST(sum(sleep) AS BIGINT) AS sleep,
                       CAST(sum(asleep) AS BIGINT) AS asleep FROM (
                    SELECT person, source, min(at) AS first, max(at) AS last, count(*) AS heart, CAST(0 AS BIGINT) AS resting,
                           CAST(0 AS BIGINT) AS sleep, CAST(0 AS BIGINT) AS asleep
                    FROM heart_rate GROUP BY person, source
                    UNION ALL SELECT person, source, min(at), max(at), 0, count(*), 0, 0
                    FROM resting_heart_rate GROUP BY person, source
                    UNION ALL SELECT person, source, min(start_at), max(end_at), 0, 0, count(*), CAST(sum(end_at - start_at) AS BIGINT)
                    FROM sleep_interval GROUP BY person, source
                ) AS records GROUP BY person, source ORDER BY person, source
                """
            ).map { row in
                PhysiologySummary(
                    person: try row.string("person"), source: try row.string("source"), first: SQLTime.date(try row.int64("first")),
                    last: SQLTime.date(try row.int64("last")), heartRateSamples: try row.int("heart"), restingRates: try row.int("resting"),
                    sleepIntervals: try row.int("sleep"), asleepSeconds: try row.int("asleep"))
            }
        }
    }

    /// Deletes `person`'s records of `source` (nil: every source); the rows deleted.
    @discardableResult
    public func forgetPhysiology(person: String, source: String?) async throws(StorageFailure) -> Int {
        try await write { session in
            var removed = 0
            for table in ["heart_rate", "resting_heart_rate", "sleep_interval"] {
                removed += try deleteRows(of: person, source: source, from: table, session)
            }
            return removed
        }
    }

    // MARK: - Positions

    /// `person`'s positions whose minute starts in `[from, to)`, in time order, then by source.
    public func positions(person: String, from: Date, to: Date) async throws(StorageFailure) -> [StoredTrackPoint] {
        try await read { session in
            try session.rows(
                """
                SELECT source, minute, latitude, longitude FROM track_position
                WHERE person = ? AND minute >= ? AND minute < ? ORDER BY minute, source
                """, person, SQLTime.minuteBound(from), SQLTime.minuteBound(to)
            ).map { row in
                StoredTrackPoint(
                    person: person, source: try row.string("source"),
                    point: TrackPoint(
                        at: SQLTime.date(try row.int64("minute")), latitude: try row.double("latitude"),
                        longitude: try row.double("longitude")))
            }
        }
    }

    /// The minutes stored per person and source, by person then source.
    public func positionSummaries() async throws(StorageFailure) -> [PositionSummary] {
        try await read { session in
            try session.rows(
                """
                SELECT person, source, min(minute) AS first, max(minute) AS last, count(*) AS minutes
                FROM track_position GROUP BY person, source ORDER BY person, source
                """
            ).map { row in
                PositionSummary(
                    person: try row.string("person"), source: try row.string("source"), first: SQLTime.date(try row.int64("first")),
                    last: SQLTime.date(try row.int64("last")), minutes: try row.int("minutes"))
            }
        }
    }

    /// Deletes `person`'s positions of `source` (nil: every source); the positions deleted.
    @discardableResult
    public func forgetPositions(person: String, source: String?) async throws(StorageFailure) -> Int {
        try await write { session in
            let forgotten = try deleteRows(of: person, source: source, from: "track_position", session)
            try PlaceRule.forget(person: person, session)
            return forgotten
        }
    }
}

/// Deletes `person`'s rows of `source` (nil: of every source) from `table`, one of this file's; the rows deleted.
private func deleteRows(of person: String, source: String?, from table: String, _ session: any SQLSession) throws -> Int {
    guard let source else { return try session.execute("DELETE FROM \(table) WHERE person = ?", person) }
    return try session.execute("DELETE FROM \(table) WHERE person = ? AND source = ?", person, source)
}

/// The rows one import writes, each batch's span replaced first.
enum ImportRows {
    static func walking(_ batches: [ActivitySourceBatch], importedAt: Date, _ session: any SQLSession) throws {
        let imported = SQLTime.seconds(importedAt)
        for batch in batches {
            if let span = batch.replacing {
                try session.execute(
                    "DELETE FROM activity_source WHERE person = ? AND source = ? AND slot_start >= ? AND slot_start <= ?", batch.person,
                    batch.source, span.lowerBound.startEpochSeconds, span.upperBound.startEpochSeconds)
            }
            try session.insertRows(
                into: "activity_source",
                columns: [
                    SQLColumn("person", .text, key: true), SQLColumn("source", .text, key: true),
                    SQLColumn("slot_start", .integer, key: true),
                    SQLColumn("distance_m", .real), SQLColumn("imported_at", .integer),
                ],
                rows: batch.distances.sorted(by: { $0.key < $1.key }).lazy.map { slot, distance in
                    [.text(batch.person), .text(batch.source), .integer(slot.startEpochSeconds), .real(distance), .integer(imported)]
                },
                conflict:
                    "ON CONFLICT (person, source, slot_start) DO UPDATE SET distance_m = excluded.distance_m, imported_at = excluded.imported_at"
            )
        }
    }

    static func body(_ batches: [PhysiologyBatch], importedAt: Date, _ session: any SQLSession) throws {
        let imported = SQLValue.integer(SQLTime.seconds(importedAt))
        let rate = [
            SQLColumn("person", .text, key: true), SQLColumn("at", .integer, key: true), SQLColumn("source", .text, key: true),
            SQLColumn("beats_per_minute", .real),
            SQLColumn("imported_at", .integer),
        ]
        let rateConflict =
            "ON CONFLICT (person, at, source) DO UPDATE SET beats_per_minute = excluded.beats_per_minute, imported_at = excluded.imported_at"
        for batch in batches {
            let person = SQLValue.text(batch.person)
            let source = SQLValue.text(batch.source)
            if let span = batch.replacing {
                // Only the kinds the file holds: an export of another device with heart rate on two days removed
                // ten nights of sleep it did not hold (docs/RELIABILITY.md, "seventeenth session").
                let bounds: [SQLValue] = [
                    person, source, .integer(SQLTime.seconds(span.lowerBound)), .integer(SQLTime.seconds(span.upperBound)),
                ]
                if !batch.heartRate.isEmpty {
                    try session.execute("DELETE FROM heart_rate WHERE person = ? AND source = ? AND at >= ? AND at <= ?", bounds)
                }
                if !batch.restingHeartRate.isEmpty {
                    try session.execute("DELETE FROM resting_heart_rate WHERE person = ? AND source = ? AND at >= ? AND at <= ?", bounds)
                }
                if !batch.sleep.isEmpty {
                    // Every interval the span overlaps, not only those starting in it: a night begun before the file's
                    // first interval stayed beside the file's own, and read as 14.5 hours asleep.
                    try session.execute(
                        "DELETE FROM sleep_interval WHERE person = ? AND source = ? AND end_at > ? AND start_at < ?", bounds)
                }
            }
            try session.insertRows(
                into: "heart_rate", columns: rate,
                rows: batch.heartRate.lazy.map { [person, .integer(SQLTime.seconds($0.at)), source, .real($0.beatsPerMinute), imported] },
                conflict: rateConflict)
            try session.insertRows(
                into: "resting_heart_rate", columns: rate,
                rows: batch.restingHeartRate.lazy.map {
                    [person, .integer(SQLTime.seconds($0.at)), source, .real($0.beatsPerMinute), imported]
                },
                conflict: rateConflict)
            try session.insertRows(
                into: "sleep_interval",
                columns: [
                    SQLColumn("person", .text, key: true), SQLColumn("start_at", .integer, key: true),
                    SQLColumn("source", .text, key: true),
                    SQLColumn("end_at", .integer),
                    SQLColumn("imported_at", .integer),
                ],
                rows: batch.sleep.lazy.map {
                    [person, .integer(SQLTime.seconds($0.start)), source, .integer(SQLTime.seconds($0.end)), imported]
                },
                conflict:
                    "ON CONFLICT (person, start_at, source) DO UPDATE SET end_at = excluded.end_at, imported_at = excluded.imported_at")
        }
    }

    static func positions(_ batches: [PositionBatch], importedAt: Date, _ session: any SQLSession) throws {
        let imported = SQLValue.integer(SQLTime.seconds(importedAt))
        for batch in batches {
            if let span = batch.replacing {
                try session.execute(
                    "DELETE FROM track_position WHERE person = ? AND source = ? AND minute >= ? AND minute <= ?", batch.person,
                    batch.source,
                    SQLTime.seconds(span.lowerBound), SQLTime.seconds(span.upperBound))
            }
            let person = SQLValue.text(batch.person)
            let source = SQLValue.text(batch.source)
            try session.insertRows(
                into: "track_position",
                columns: [
                    SQLColumn("person", .text, key: true), SQLColumn("source", .text, key: true), SQLColumn("minute", .integer, key: true),
                    SQLColumn("latitude", .real),
                    SQLColumn("longitude", .real), SQLColumn("imported_at", .integer),
                ],
                rows: batch.minutes.lazy.map {
                    [person, source, .integer(SQLTime.seconds($0.at)), .real($0.position.latitude), .real($0.position.longitude), imported]
                },
                conflict:
                    "ON CONFLICT (person, source, minute) DO UPDATE SET latitude = excluded.latitude, longitude = excluded.longitude, imported_at = excluded.imported_at"
            )
            // Late, after the rows: on PostgreSQL the generation's lock is held from here to the commit only.
            for span in batch.changedSpans {
                try PlaceRule.forget(person: batch.person, from: span.lowerBound, through: span.upperBound, session)
            }
        }
    }
}

import DustKit
import DustServices
import Foundation
import PostgresNIO

// Walking, heart rate, resting rates, sleep and positions (docs/REFERENCE.md §12, §18, §19): an
// import is one transaction, so a reader sees all of it or none. Rows go in as arrays unnested
// server-side (one statement per table and chunk, not one per row: an export holds millions).

extension PostgresStore: ActivityStore, PhysiologyStore, PositionStore {
    /// Rows per statement of an import: well under the protocol's limits and a few MB per message.
    static let importChunk = 20_000

    // MARK: - Activity

    public func walking(from: Slot, to: Slot) async throws(StorageFailure) -> [Slot: SlotWalking] {
        try await walking(person: Person.defaultName, from: from, to: to)
    }

    public func forgetActivity(source: String) async throws(StorageFailure) -> Int {
        try await forgetActivity(person: Person.defaultName, source: source)
    }

    public func saveActivity(_ batches: [ActivitySourceBatch], importedAt: Date) async throws(StorageFailure) {
        let logger = logger
        _ = try await writing { connection in try await Self.insertActivity(batches, importedAt: importedAt, connection, logger) }
    }

    static func insertActivity(
        _ batches: [ActivitySourceBatch], importedAt: Date, _ connection: PostgresConnection, _ logger: Logger
    )
        async throws
    {
        let imported = Int64(importedAt.timeIntervalSince1970)
        for batch in batches {
            if let span = batch.replacing {
                try await connection.query(
                    """
                    DELETE FROM activity_source WHERE person = \(batch.person) AND source = \(batch.source)
                        AND slot_start >= \(span.lowerBound.startEpochSeconds) AND slot_start <= \(span.upperBound.startEpochSeconds)
                    """, logger: logger)
            }
            let sorted = batch.distances.sorted { $0.key < $1.key }
            for chunk in stride(from: 0, to: sorted.count, by: importChunk) {
                let part = sorted[chunk..<min(chunk + importChunk, sorted.count)]
                let slots = part.map(\.key.startEpochSeconds)
                let metres = part.map(\.value)
                try await connection.query(
                    """
                    INSERT INTO activity_source (person, source, slot_start, distance_m, imported_at)
                    SELECT \(batch.person), \(batch.source), s, d, \(imported)
                    FROM unnest(\(slots)::bigint[], \(metres)::float8[]) AS u(s, d)
                    ON CONFLICT (person, source, slot_start) DO UPDATE
                    SET distance_m = excluded.distance_m, imported_at = excluded.imported_at
                    """, logger: logger)
            }
        }
    }

    /// Per slot starting in `[from, to)`, the largest distance and the source that gave it (on a
    /// tie, the source whose name sorts first, byte by byte); never the sum of its sources.
    public func walking(person: String, from: Slot, to: Slot) async throws(StorageFailure) -> [Slot: SlotWalking] {
        let logger = logger
        return try await reading { connection in
            let rows = try await connection.query(
                """
                SELECT slot_start, source, distance_m FROM activity_source
                WHERE person = \(person) AND slot_start >= \(from.startEpochSeconds) AND slot_start < \(to.startEpochSeconds)
                ORDER BY slot_start, distance_m DESC, source
                """, logger: logger)
            var result: [Slot: SlotWalking] = [:]
            for try await row in rows {
                let row = row.makeRandomAccess()
                let slot = Slot(startEpochSeconds: try row.value("slot_start"))
                if result[slot] == nil { result[slot] = SlotWalking(metres: try row.value("distance_m"), source: try row.value("source")) }
            }
            return result
        }
    }

    /// Every stored person and source with its first and last slot, slot count and total distance,
    /// by person, then source. The total adds the distances in slot order, as SQLite's scan of its
    /// key does, so the sum is the same to the last bit.
    public func activitySources() async throws(StorageFailure) -> [ActivitySourceSummary] {
        let logger = logger
        return try await reading { connection in
            let rows = try await connection.query(
                """
                SELECT person, source, min(slot_start) AS first_slot, max(slot_start) AS last_slot, count(*) AS slots,
                       sum(distance_m ORDER BY slot_start) AS metres
                FROM activity_source GROUP BY person, source ORDER BY person, source
                """, logger: logger)
            var summaries: [ActivitySourceSummary] = []
            for try await row in rows {
                let row = row.makeRandomAccess()
                summaries.append(
                    ActivitySourceSummary(
                        person: try row.value("person"), source: try row.value("source"),
                        firstSlot: Slot(startEpochSeconds: try row.value("first_slot")),
                        lastSlot: Slot(startEpochSeconds: try row.value("last_slot")), slots: try row.value("slots"),
                        metres: try row.value("metres")))
            }
            return summaries
        }
    }

    public func forgetActivity(person: String, source: String?) async throws(StorageFailure) -> Int {
        let logger = logger
        return try await writing { connection in
            let rows = try await connection.query(
                """
                WITH gone AS (
                    DELETE FROM activity_source WHERE person = \(person) AND (\(source)::text IS NULL OR source = \(source)) RETURNING 1
                ) SELECT count(*) AS n FROM gone
                """, logger: logger)
            return try await Self.single(rows, "n") ?? 0
        }
    }

    /// Hands every row of `from` to `to` when `to` has none (docs/REFERENCE.md §18); the rows moved.
    public func movePerson(from: String, to: String) async throws(StorageFailure) -> Int {
        let logger = logger
        return try await writing { connection in
            for table in Self.personTables {
                let rows = try await connection.query(
                    PostgresQuery(unsafeSQL: "SELECT count(*) AS n FROM \(table) WHERE person = $1", binds: try Self.binds(to)),
                    logger: logger)
                guard try await Self.single(rows, "n") == 0 else { return 0 }
            }
            var moved = 0
            for table in Self.personTables {
                let rows = try await connection.query(
                    PostgresQuery(
                        unsafeSQL:
                            "WITH moved AS (UPDATE \(table) SET person = $1 WHERE person = $2 RETURNING 1) SELECT count(*) AS n FROM moved",
                        binds: try Self.binds(to, from)),
                    logger: logger)
                moved += try await Self.single(rows, "n") ?? 0
            }
            // Nothing handed over changes nothing: `to`'s kept places stay (this runs at every start).
            if moved > 0 {
                try await Self.forgetPlaces(person: from, connection, logger)
                try await Self.forgetPlaces(person: to, connection, logger)
            }
            return moved
        }
    }

    /// The tables holding rows of a person.
    private static let personTables = ["activity_source", "heart_rate", "resting_heart_rate", "sleep_interval", "track_position"]

    /// Bound parameters for a statement whose table name is one of this file's constants.
    private static func binds(_ values: String...) throws -> PostgresBindings {
        var binds = PostgresBindings()
        for value in values { binds.append(value) }
        return binds
    }

    // MARK: - Physiology

    public func saveImport(
        walking: [ActivitySourceBatch], body: [PhysiologyBatch], positions: [PositionBatch], importedAt: Date
    ) async throws(StorageFailure) {
        let logger = logger
        _ = try await writing { connection in
            try await Self.insertActivity(walking, importedAt: importedAt, connection, logger)
            try await Self.insertPhysiology(body, importedAt: importedAt, connection, logger)
            try await Self.insertPositions(positions, importedAt: importedAt, connection, logger)
        }
    }

    static func insertPhysiology(
        _ batches: [PhysiologyBatch], importedAt: Date, _ connection: PostgresConnection, _ logger: Logger
    )
        async throws
    {
        let imported = Int64(importedAt.timeIntervalSince1970)
        for batch in batches {
            if let span = batch.replacing {
                let low = seconds(span.lowerBound)
                let high = seconds(span.upperBound)
                try await connection.query(
                    """
                    DELETE FROM heart_rate WHERE person = \(batch.person) AND source = \(batch.source) AND at >= \(low) AND at <= \(high)
                    """, logger: logger)
                try await connection.query(
                    """
                    DELETE FROM resting_heart_rate
                    WHERE person = \(batch.person) AND source = \(batch.source) AND at >= \(low) AND at <= \(high)
                    """, logger: logger)
                try await connection.query(
                    """
                    DELETE FROM sleep_interval
                    WHERE person = \(batch.person) AND source = \(batch.source) AND start_at >= \(low) AND start_at <= \(high)
                    """, logger: logger)
            }
            // SQLite writes row by row, a later sample of an instant over an earlier one; one
            // statement may not touch a row twice, so the last of each instant is kept here.
            let heart = lastOfEachKey(batch.heartRate.map { (seconds($0.at), $0.beatsPerMinute) })
            for chunk in stride(from: 0, to: heart.count, by: importChunk) {
                let part = heart[chunk..<min(chunk + importChunk, heart.count)]
                let instants = part.map(\.0)
                let rates = part.map(\.1)
                try await connection.query(
                    """
                    INSERT INTO heart_rate (person, at, source, beats_per_minute, imported_at)
                    SELECT \(batch.person), a, \(batch.source), b, \(imported)
                    FROM unnest(\(instants)::bigint[], \(rates)::float8[]) AS u(a, b)
                    ON CONFLICT (person, at, source) DO UPDATE
                    SET beats_per_minute = excluded.beats_per_minute, imported_at = excluded.imported_at
                    """, logger: logger)
            }
            let resting = lastOfEachKey(batch.restingHeartRate.map { (seconds($0.at), $0.beatsPerMinute) })
            for chunk in stride(from: 0, to: resting.count, by: importChunk) {
                let part = resting[chunk..<min(chunk + importChunk, resting.count)]
                let instants = part.map(\.0)
                let rates = part.map(\.1)
                try await connection.query(
                    """
                    INSERT INTO resting_heart_rate (person, at, source, beats_per_minute, imported_at)
                    SELECT \(batch.person), a, \(batch.source), b, \(imported)
                    FROM unnest(\(instants)::bigint[], \(rates)::float8[]) AS u(a, b)
                    ON CONFLICT (person, at, source) DO UPDATE
                    SET beats_per_minute = excluded.beats_per_minute, imported_at = excluded.imported_at
                    """, logger: logger)
            }
            let sleep = lastOfEachKey(batch.sleep.map { (seconds($0.start), seconds($0.end)) })
            for chunk in stride(from: 0, to: sleep.count, by: importChunk) {
                let part = sleep[chunk..<min(chunk + importChunk, sleep.count)]
                let starts = part.map(\.0)
                let ends = part.map(\.1)
                try await connection.query(
                    """
                    INSERT INTO sleep_interval (person, start_at, source, end_at, imported_at)
                    SELECT \(batch.person), s, \(batch.source), e, \(imported)
                    FROM unnest(\(starts)::bigint[], \(ends)::bigint[]) AS u(s, e)
                    ON CONFLICT (person, start_at, source) DO UPDATE SET end_at = excluded.end_at, imported_at = excluded.imported_at
                    """, logger: logger)
            }
        }
    }

    /// `pairs` with only the last value of each key, in the order the keys first came.
    static func lastOfEachKey<Value>(_ pairs: [(Int64, Value)]) -> [(Int64, Value)] {
        var index: [Int64: Int] = [:]
        var result: [(Int64, Value)] = []
        result.reserveCapacity(pairs.count)
        for (key, value) in pairs {
            if let at = index[key] {
                result[at].1 = value
            } else {
                index[key] = result.count
                result.append((key, value))
            }
        }
        return result
    }

    /// `person`'s records bearing on `[from, to)`, merged over sources, in time order, read from one
    /// snapshot.
    public func physiology(person: String, from: Date, to: Date) async throws(StorageFailure) -> StoredPhysiology {
        let start = Self.seconds(from)
        let end = Self.seconds(to)
        let cover = Int64(SlotPhysiology.heartRateCover)
        let sleepFrom = start - Int64(SleepInterval.maxDuration)
        let logger = logger
        return try await snapshot { connection in
            var stored = StoredPhysiology()
            let heart = try await connection.query(
                """
                SELECT at, max(beats_per_minute) AS beats FROM heart_rate
                WHERE person = \(person) AND at >= \(start - cover) AND at < \(end) GROUP BY at ORDER BY at
                """, logger: logger)
            for try await row in heart {
                let row = row.makeRandomAccess()
                stored.heartRate.append(HeartRateSample(at: Self.date(try row.value("at")), beatsPerMinute: try row.value("beats")))
            }
            let resting = try await connection.query(
                """
                SELECT at, max(beats_per_minute) AS beats FROM resting_heart_rate
                WHERE person = \(person) AND at < \(end)
                  AND at >= coalesce((SELECT max(at) FROM resting_heart_rate WHERE person = \(person) AND at <= \(start)), \(start))
                GROUP BY at ORDER BY at
                """, logger: logger)
            for try await row in resting {
                let row = row.makeRandomAccess()
                stored.restingHeartRate.append(
                    RestingHeartRateSample(at: Self.date(try row.value("at")), beatsPerMinute: try row.value("beats")))
            }
            let sleep = try await connection.query(
                """
                SELECT start_at, end_at FROM sleep_interval
                WHERE person = \(person) AND start_at >= \(sleepFrom) AND start_at < \(end) AND end_at > \(start)
                ORDER BY start_at, end_at
                """, logger: logger)
            for try await row in sleep {
                let row = row.makeRandomAccess()
                stored.sleep.append(SleepInterval(start: Self.date(try row.value("start_at")), end: Self.date(try row.value("end_at"))))
            }
            return stored
        }
    }

    public func physiologySummaries() async throws(StorageFailure) -> [PhysiologySummary] {
        let logger = logger
        return try await reading { connection in
            let rows = try await connection.query(
                """
                SELECT person, source, min(first) AS first, max(last) AS last, sum(heart)::bigint AS heart,
                       sum(resting)::bigint AS resting, sum(sleep)::bigint AS sleep, sum(asleep)::bigint AS asleep FROM (
                    SELECT person, source, min(at) AS first, max(at) AS last, count(*) AS heart, 0::bigint AS resting,
                           0::bigint AS sleep, 0::bigint AS asleep
                    FROM heart_rate GROUP BY person, source
                    UNION ALL SELECT person, source, min(at), max(at), 0, count(*), 0, 0
                    FROM resting_heart_rate GROUP BY person, source
                    UNION ALL SELECT person, source, min(start_at), max(end_at), 0, 0, count(*), sum(end_at - start_at)::bigint
                    FROM sleep_interval GROUP BY person, source
                ) AS records GROUP BY person, source ORDER BY person, source
                """, logger: logger)
            var summaries: [PhysiologySummary] = []
            for try await row in rows {
                let row = row.makeRandomAccess()
                summaries.append(
                    PhysiologySummary(
                        person: try row.value("person"), source: try row.value("source"), first: Self.date(try row.value("first")),
                        last: Self.date(try row.value("last")), heartRateSamples: try row.value("heart"),
                        restingRates: try row.value("resting"), sleepIntervals: try row.value("sleep"),
                        asleepSeconds: try row.value("asleep")))
            }
            return summaries
        }
    }

    public func forgetPhysiology(person: String, source: String?) async throws(StorageFailure) -> Int {
        let logger = logger
        return try await writing { connection in
            let rows = try await connection.query(
                """
                WITH heart AS (
                    DELETE FROM heart_rate WHERE person = \(person) AND (\(source)::text IS NULL OR source = \(source)) RETURNING 1
                ), resting AS (
                    DELETE FROM resting_heart_rate WHERE person = \(person) AND (\(source)::text IS NULL OR source = \(source)) RETURNING 1
                ), sleep AS (
                    DELETE FROM sleep_interval WHERE person = \(person) AND (\(source)::text IS NULL OR source = \(source)) RETURNING 1
                ) SELECT (SELECT count(*) FROM heart) + (SELECT count(*) FROM resting) + (SELECT count(*) FROM sleep) AS n
                """, logger: logger)
            return try await Self.single(rows, "n") ?? 0
        }
    }

    // MARK: - Positions

    static func insertPositions(
        _ batches: [PositionBatch], importedAt: Date, _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        let imported = Int64(importedAt.timeIntervalSince1970)
        // The places the positions change, forgotten last: the generation's lock is then held only
        // from there to the commit, not while a year of positions goes in.
        var changed: [(person: String, from: Date, through: Date)] = []
        for batch in batches {
            changed += batch.changedSpans.map { (batch.person, $0.lowerBound, $0.upperBound) }
            if let span = batch.replacing {
                try await connection.query(
                    """
                    DELETE FROM track_position WHERE person = \(batch.person) AND source = \(batch.source)
                        AND minute >= \(seconds(span.lowerBound)) AND minute <= \(seconds(span.upperBound))
                    """, logger: logger)
            }
            let points = lastOfEachKey(batch.minutes.map { (seconds($0.at), ($0.latitude, $0.longitude)) })
            for chunk in stride(from: 0, to: points.count, by: importChunk) {
                let part = points[chunk..<min(chunk + importChunk, points.count)]
                let minutes = part.map(\.0)
                let latitudes = part.map(\.1.0)
                let longitudes = part.map(\.1.1)
                try await connection.query(
                    """
                    INSERT INTO track_position (person, source, minute, latitude, longitude, imported_at)
                    SELECT \(batch.person), \(batch.source), m, la, lo, \(imported)
                    FROM unnest(\(minutes)::bigint[], \(latitudes)::float8[], \(longitudes)::float8[]) AS u(m, la, lo)
                    ON CONFLICT (person, source, minute) DO UPDATE
                    SET latitude = excluded.latitude, longitude = excluded.longitude, imported_at = excluded.imported_at
                    """, logger: logger)
            }
        }
        for span in changed { try await forgetPlaces(person: span.person, from: span.from, through: span.through, connection, logger) }
    }

    /// `person`'s positions whose minute starts in `[from, to)`, in time order, then by source.
    public func positions(person: String, from: Date, to: Date) async throws(StorageFailure) -> [TrackPosition] {
        let logger = logger
        return try await reading { connection in
            let rows = try await connection.query(
                """
                SELECT source, minute, latitude, longitude FROM track_position
                WHERE person = \(person) AND minute >= \(Self.minuteBound(from)) AND minute < \(Self.minuteBound(to))
                ORDER BY minute, source
                """, logger: logger)
            var positions: [TrackPosition] = []
            for try await row in rows {
                let row = row.makeRandomAccess()
                positions.append(
                    TrackPosition(
                        person: person, source: try row.value("source"), minute: Self.date(try row.value("minute")),
                        latitude: try row.value("latitude"), longitude: try row.value("longitude")))
            }
            return positions
        }
    }

    /// `person`'s positions whose minute starts in `[from, to)`, one a minute (the first source's by
    /// name), in time order (PositionReadStore): the server keeps the first of each minute.
    public func trackPoints(person: String, from: Date, to: Date) async throws(StorageFailure) -> [TrackPoint] {
        let logger = logger
        return try await reading { connection in
            let rows = try await connection.query(
                """
                SELECT DISTINCT ON (minute) minute, latitude, longitude FROM track_position
                WHERE person = \(person) AND minute >= \(Self.minuteBound(from)) AND minute < \(Self.minuteBound(to))
                ORDER BY minute, source
                """, logger: logger)
            var points: [TrackPoint] = []
            for try await (minute, latitude, longitude) in rows.decode((Int64, Double, Double).self) {
                points.append(TrackPoint(at: Self.date(minute), latitude: latitude, longitude: longitude))
            }
            return points
        }
    }

    public func positionSummaries() async throws(StorageFailure) -> [PositionSummary] {
        let logger = logger
        return try await reading { connection in
            let rows = try await connection.query(
                """
                SELECT person, source, min(minute) AS first, max(minute) AS last, count(*) AS minutes
                FROM track_position GROUP BY person, source ORDER BY person, source
                """, logger: logger)
            var summaries: [PositionSummary] = []
            for try await row in rows {
                let row = row.makeRandomAccess()
                summaries.append(
                    PositionSummary(
                        person: try row.value("person"), source: try row.value("source"), first: Self.date(try row.value("first")),
                        last: Self.date(try row.value("last")), minutes: try row.value("minutes")))
            }
            return summaries
        }
    }

    public func forgetPositions(person: String, source: String?) async throws(StorageFailure) -> Int {
        let logger = logger
        return try await writing { connection in
            let rows = try await connection.query(
                """
                WITH gone AS (
                    DELETE FROM track_position WHERE person = \(person) AND (\(source)::text IS NULL OR source = \(source)) RETURNING 1
                ) SELECT count(*) AS n FROM gone
                """, logger: logger)
            let forgotten: Int = try await Self.single(rows, "n") ?? 0
            try await Self.forgetPlaces(person: person, connection, logger)
            return forgotten
        }
    }

    /// A bound of `[from, to)` in whole seconds: a minute starting at a fraction past a second is after it.
    private static func minuteBound(_ instant: Date) -> Int64 { Int64(instant.timeIntervalSince1970.rounded(.up)) }
}

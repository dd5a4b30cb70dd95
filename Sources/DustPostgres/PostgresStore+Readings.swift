import DustKit
import DustServices
import Foundation
import PostgresNIO

// Readings, stations, request attempts and the daemon's status (docs/REFERENCE.md §8, §20): the
// SQLite store's statements (SQLiteStore.swift, PollAttempt.swift) in PostgreSQL's words.

extension PostgresStore: PollStore, StationStore, DaemonStatusStore {
    // MARK: - Measurements

    /// Stores readings in one transaction: new slots inserted, changed ones revised, a field a
    /// reading does not report (its element was missing) left as it was.
    public func saveReadings(_ readings: [HourlyReading], fetchedAt: Date) async throws(StorageFailure) -> UpsertSummary {
        let logger = logger
        return try await writing { connection in
            var summary = UpsertSummary()
            let fetched = Self.seconds(fetchedAt)
            var changedSlots = Set<Int64>()
            for reading in readings {
                let gases = reading.gases
                let reported =
                    reading.reported.fineDust.rawValue | reading.reported.ultraFineDust.rawValue << 4
                    | gases.reported.rawValue << Self.gasReportedShift
                var query = PostgresQuery(unsafeSQL: Self.upsertSQL)
                query.binds.append(reading.station)
                query.binds.append(reading.slot.startEpochSeconds)
                query.binds.append(reading.concentration.fineDust)
                query.binds.append(reading.concentration.ultraFineDust)
                query.binds.append(reading.flag.fineDust)
                query.binds.append(reading.flag.ultraFineDust)
                query.binds.append(reading.average24h.fineDust)
                query.binds.append(reading.average24h.ultraFineDust)
                query.binds.append(reading.grade24h.fineDust?.rawValue)
                query.binds.append(reading.grade24h.ultraFineDust?.rawValue)
                query.binds.append(reading.grade1h.fineDust?.rawValue)
                query.binds.append(reading.grade1h.ultraFineDust?.rawValue)
                query.binds.append(fetched)
                query.binds.append(reported)
                query.binds.append(gases.ppm.o3)
                query.binds.append(gases.ppm.no2)
                query.binds.append(gases.ppm.co)
                query.binds.append(gases.ppm.so2)
                query.binds.append(gases.flag.o3)
                query.binds.append(gases.flag.no2)
                query.binds.append(gases.flag.co)
                query.binds.append(gases.flag.so2)
                query.binds.append(gases.cai)
                query.binds.append(gases.caiGrade?.rawValue)
                var revision: Int?
                for try await row in try await connection.query(query, logger: logger) {
                    revision = try row.makeRandomAccess()["revision"].decode(Int.self)
                }
                switch revision {
                case nil: summary.unchanged += 1
                case 0:
                    summary.inserted += 1
                    changedSlots.insert(reading.slot.startEpochSeconds)
                default:
                    summary.updated += 1
                    changedSlots.insert(reading.slot.startEpochSeconds)
                }
            }
            try await Self.forgetPlaces(ofSlots: changedSlots, connection, logger)
            try await Self.rememberStations(of: readings, at: fetched, connection, logger)
            return summary
        }
    }

    /// The measurement columns and the bit of the reported-fields mask (`$14`: PM10's
    /// `ReportedFields` in the low four bits, PM2.5's in the next four, the gases' `GasFields`
    /// above them) that lets a reading revise each; as in the SQLite store.
    private static let revisableColumns: [(column: String, bit: Int)] = {
        var columns: [(column: String, bit: Int)] = [
            ("pm10", ReportedFields.value.rawValue), ("pm25", ReportedFields.value.rawValue << 4),
            ("pm10_flag", ReportedFields.value.rawValue), ("pm25_flag", ReportedFields.value.rawValue << 4),
            ("pm10_24h", ReportedFields.average24h.rawValue), ("pm25_24h", ReportedFields.average24h.rawValue << 4),
            ("pm10_grade", ReportedFields.grade24h.rawValue), ("pm25_grade", ReportedFields.grade24h.rawValue << 4),
            ("pm10_grade_1h", ReportedFields.grade1h.rawValue), ("pm25_grade_1h", ReportedFields.grade1h.rawValue << 4),
        ]
        for gas in Gas.allCases {
            let bit: Int = GasFields.value(of: gas).rawValue << gasReportedShift
            columns.append((gas.rawValue, bit))
            columns.append((gas.rawValue + "_flag", bit))
        }
        columns.append(("cai", GasFields.cai.rawValue << gasReportedShift))
        columns.append(("cai_grade", GasFields.caiGrade.rawValue << gasReportedShift))
        return columns
    }()

    /// Where the gases' `GasFields` sit in the reported-fields mask: above PM's eight bits.
    private static let gasReportedShift = 8

    /// Insert, or revise the reported columns of a stored slot when one of them changed; returns
    /// the revision (0 for a new row), or no row when nothing changed. Only column names and bit
    /// constants are spliced in; every value is a bound parameter.
    private static let upsertSQL: String = {
        func revised(_ column: String, _ bit: Int) -> String {
            "CASE WHEN ($14::bigint & \(bit)) <> 0 THEN excluded.\(column) ELSE measurement.\(column) END"
        }
        let assignments = revisableColumns.map { "\($0.column) = \(revised($0.column, $0.bit))" }.joined(separator: ", ")
        let changes = revisableColumns.map { "measurement.\($0.column) IS DISTINCT FROM \(revised($0.column, $0.bit))" }
            .joined(separator: " OR ")
        return """
            INSERT INTO measurement (station, slot_start, pm10, pm25, pm10_flag, pm25_flag, pm10_24h, pm25_24h,
                                     pm10_grade, pm25_grade, pm10_grade_1h, pm25_grade_1h, fetched_at,
                                     o3, no2, co, so2, o3_flag, no2_flag, co_flag, so2_flag, cai, cai_grade)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24)
            ON CONFLICT (station, slot_start) DO UPDATE SET
                \(assignments), fetched_at = excluded.fetched_at, revision = measurement.revision + 1
            WHERE \(changes)
            RETURNING revision
            """
    }()

    private static func rememberStations(
        of readings: [HourlyReading], at time: Int64, _ connection: PostgresConnection, _ logger: Logger
    )
        async throws
    {
        var seen = Set<String>()
        for reading in readings where seen.insert(reading.station).inserted {
            try await connection.query(
                """
                INSERT INTO station (name, code, sido, network, updated_at)
                VALUES (\(reading.station), \(reading.stationCode), \(reading.sidoName), \(reading.network), \(time))
                ON CONFLICT (name) DO UPDATE SET
                    code = coalesce(excluded.code, station.code), sido = coalesce(excluded.sido, station.sido),
                    network = coalesce(excluded.network, station.network), updated_at = excluded.updated_at
                WHERE station.code IS DISTINCT FROM coalesce(excluded.code, station.code)
                   OR station.sido IS DISTINCT FROM coalesce(excluded.sido, station.sido)
                   OR station.network IS DISTINCT FROM coalesce(excluded.network, station.network)
                """, logger: logger)
        }
    }

    /// The stored readings of `stations` for slots starting in `[from, to)`, by slot, then station.
    /// PM10 and PM2.5 of `stations` over `[from, to)` by slot, then station name, each station by its
    /// index in `stations` (ReadingStore): three columns a row, decoded by position, none of the rest.
    public func dustValues(stations: [String], from: Slot, to: Slot) async throws(StorageFailure) -> [StationDust] {
        guard !stations.isEmpty, from < to else { return [] }
        let indexByName = Dictionary(stations.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let logger = logger
        return try await reading { connection in
            let rows = try await connection.query(
                """
                SELECT slot_start, station, pm10, pm25 FROM measurement
                WHERE station = ANY(\(stations)::text[])
                  AND slot_start >= \(from.startEpochSeconds) AND slot_start < \(to.startEpochSeconds)
                ORDER BY slot_start, station
                """, logger: logger)
            var result: [StationDust] = []
            for try await (slot, station, pm10, pm25) in rows.decode((Int64, String, Double?, Double?).self) {
                guard let index = indexByName[station] else { continue }
                result.append(
                    StationDust(
                        slot: Slot(startEpochSeconds: slot), station: index, concentration: DustPair(fineDust: pm10, ultraFineDust: pm25)))
            }
            return result
        }
    }

    public func readings(stations: [String], from: Slot, to: Slot) async throws(StorageFailure) -> [HourlyReading] {
        guard !stations.isEmpty else { return [] }
        let logger = logger
        return try await reading { connection in
            let rows = try await connection.query(
                """
                SELECT station, slot_start, pm10, pm25, pm10_flag, pm25_flag, pm10_24h, pm25_24h,
                       pm10_grade, pm25_grade, pm10_grade_1h, pm25_grade_1h,
                       o3, no2, co, so2, o3_flag, no2_flag, co_flag, so2_flag, cai, cai_grade
                FROM measurement
                WHERE station = ANY(\(stations)::text[])
                  AND slot_start >= \(from.startEpochSeconds) AND slot_start < \(to.startEpochSeconds)
                ORDER BY slot_start, station
                """, logger: logger)
            var result: [HourlyReading] = []
            for try await row in rows {
                let row = row.makeRandomAccess()
                result.append(
                    HourlyReading(
                        station: try row.value("station"),
                        slot: Slot(startEpochSeconds: try row.value("slot_start")),
                        concentration: DustPair(fineDust: try row.value("pm10"), ultraFineDust: try row.value("pm25")),
                        flag: DustPair(fineDust: try row.value("pm10_flag"), ultraFineDust: try row.value("pm25_flag")),
                        average24h: DustPair(fineDust: try row.value("pm10_24h"), ultraFineDust: try row.value("pm25_24h")),
                        grade24h: DustPair(
                            fineDust: Self.grade(try row.value("pm10_grade")), ultraFineDust: Self.grade(try row.value("pm25_grade"))),
                        grade1h: DustPair(
                            fineDust: Self.grade(try row.value("pm10_grade_1h")),
                            ultraFineDust: Self.grade(try row.value("pm25_grade_1h"))),
                        gases: GasReading(
                            ppm: GasValues(
                                o3: try row.value("o3"), no2: try row.value("no2"), co: try row.value("co"), so2: try row.value("so2")),
                            flag: GasValues(
                                o3: try row.value("o3_flag"), no2: try row.value("no2_flag"), co: try row.value("co_flag"),
                                so2: try row.value("so2_flag")),
                            cai: try row.value("cai"), caiGrade: Self.grade(try row.value("cai_grade")))
                    ))
            }
            return result
        }
    }

    /// A stored grade column: nil when NULL or not one of the four grades.
    static func grade(_ value: Int?) -> DustGrade? {
        value.flatMap(DustGrade.init(rawValue:))
    }

    /// The latest slot stored for a station that ended by `now`; a future slot never counts.
    public func newestSlot(station: String, endingBy now: Date) async throws(StorageFailure) -> Slot? {
        let newestStart = Int64((now.timeIntervalSince1970 - 3600).rounded(.down))
        let logger = logger
        return try await reading { connection in
            let rows = try await connection.query(
                "SELECT max(slot_start) AS newest FROM measurement WHERE station = \(station) AND slot_start <= \(newestStart)",
                logger: logger)
            var newest: Int64?
            for try await row in rows { newest = try row.makeRandomAccess().value("newest") }
            return newest.map(Slot.init(startEpochSeconds:))
        }
    }

    /// The number of stored measurement rows, in all or for one station.
    public func measurementCount(station: String?) async throws(StorageFailure) -> Int {
        let logger = logger
        return try await reading { connection in
            let rows =
                if let station {
                    try await connection.query("SELECT count(*) AS n FROM measurement WHERE station = \(station)", logger: logger)
                } else {
                    try await connection.query("SELECT count(*) AS n FROM measurement", logger: logger)
                }
            return try await Self.single(rows, "n") ?? 0
        }
    }

    // MARK: - Stations

    /// Stores stations from AirKorea's station list in one transaction; a field a station does not
    /// carry keeps its stored value.
    public func saveStations(_ stations: [Station], at time: Date) async throws(StorageFailure) {
        let logger = logger
        let updated = Self.seconds(time)
        _ = try await writing { connection in
            // A station placed anew or moved changes what every place weighed: they are weighed again.
            // The generation is raised (and its row locked) before looking, so a concurrent save that
            // moves a station commits before this one reads the stations, or after it has written them.
            try await Self.raisePlaceGeneration(connection, logger)
            var moved = false
            for station in stations where !moved && (station.latitude != nil || station.longitude != nil) {
                var stored: (Double?, Double?) = (nil, nil)
                let rows = try await connection.query(
                    "SELECT latitude, longitude FROM station WHERE name = \(station.name)", logger: logger)
                for try await row in rows.decode((Double?, Double?).self) { stored = row }
                moved = station.moves(fromLatitude: stored.0, longitude: stored.1)
            }
            if moved { try await Self.forgetAllPlaces(connection, logger) }
            for station in stations {
                try await connection.query(
                    """
                    INSERT INTO station (name, code, network, address, latitude, longitude, updated_at)
                    VALUES (\(station.name), \(station.code), \(station.network), \(station.address), \(station.latitude),
                            \(station.longitude), \(updated))
                    ON CONFLICT (name) DO UPDATE SET
                        code = coalesce(excluded.code, station.code), network = coalesce(excluded.network, station.network),
                        address = coalesce(excluded.address, station.address), latitude = coalesce(excluded.latitude, station.latitude),
                        longitude = coalesce(excluded.longitude, station.longitude), updated_at = excluded.updated_at
                    """, logger: logger)
            }
        }
    }

    /// Stations seen in measurements or the station list, by name.
    public func stations() async throws(StorageFailure) -> [Station] {
        let logger = logger
        return try await reading { connection in
            var stations: [Station] = []
            let rows = try await connection.query(
                "SELECT name, address, network, latitude, longitude, code FROM station ORDER BY name", logger: logger)
            for try await row in rows {
                let row = row.makeRandomAccess()
                stations.append(
                    Station(
                        name: try row.value("name"), address: try row.value("address"), network: try row.value("network"),
                        latitude: try row.value("latitude"), longitude: try row.value("longitude"), code: try row.value("code")))
            }
            return stations
        }
    }

    // MARK: - Attempts

    /// Records an attempt and forgets those older than the retention, in one transaction.
    public func recordAttempt(_ attempt: PollAttempt) async throws(StorageFailure) {
        let logger = logger
        let cutoff = Self.seconds(attempt.startedAt.addingTimeInterval(-PollAttempt.retention))
        _ = try await writing { connection in
            try await connection.query(
                """
                INSERT INTO poll_attempt (started_at, station, kind, operation, outcome, http_status, result_code,
                                          rows_new, rows_updated, duration_ms, message)
                VALUES (\(Self.seconds(attempt.startedAt)), \(attempt.station), \(attempt.kind.rawValue), \(attempt.operation),
                        \(attempt.outcome.rawValue), \(attempt.httpStatus), \(attempt.resultCode), \(attempt.rowsNew),
                        \(attempt.rowsUpdated), \(attempt.durationMilliseconds), \(attempt.message))
                """, logger: logger)
            try await connection.query("DELETE FROM poll_attempt WHERE started_at < \(cutoff)", logger: logger)
        }
    }

    /// The most recent attempts, newest first (what `dustctl status` lists).
    public func recentAttempts(
        limit: Int = 20, outcome: PollAttempt.Outcome? = nil, excluding: PollAttempt.Outcome? = nil
    ) async throws(StorageFailure) -> [PollAttempt] {
        let logger = logger
        return try await reading { connection in
            // A NULL parameter leaves its condition out.
            let rows = try await connection.query(
                """
                SELECT started_at, station, kind, operation, outcome, http_status, result_code, rows_new, rows_updated,
                       duration_ms, message
                FROM poll_attempt
                WHERE (\(outcome?.rawValue)::text IS NULL OR outcome = \(outcome?.rawValue))
                  AND (\(excluding?.rawValue)::text IS NULL OR outcome != \(excluding?.rawValue))
                ORDER BY started_at DESC, id DESC LIMIT \(limit)
                """, logger: logger)
            var attempts: [PollAttempt] = []
            for try await row in rows {
                let row = row.makeRandomAccess()
                attempts.append(
                    PollAttempt(
                        startedAt: Self.date(try row.value("started_at")), station: try row.value("station"),
                        kind: AttemptKind(rawValue: try row.value("kind")) ?? .measurement, operation: try row.value("operation"),
                        outcome: PollAttempt.Outcome(rawValue: try row.value("outcome")) ?? .failed,
                        httpStatus: try row.value("http_status"), resultCode: try row.value("result_code"),
                        rowsNew: try row.value("rows_new"), rowsUpdated: try row.value("rows_updated"),
                        durationMilliseconds: try row.value("duration_ms"), message: try row.value("message")))
            }
            return attempts
        }
    }

    /// Requests of `kind` recorded since `start` (in whole seconds, as `started_at` is stored).
    public func attemptCount(kind: AttemptKind, since start: Date) async throws(StorageFailure) -> Int {
        let logger = logger
        return try await reading { connection in
            let rows = try await connection.query(
                "SELECT count(*) AS n FROM poll_attempt WHERE kind = \(kind.rawValue) AND started_at >= \(Self.seconds(start))",
                logger: logger)
            return try await Self.single(rows, "n") ?? 0
        }
    }

    // MARK: - The daemon's status

    private static let statusKey = "status"

    public func saveStatus(_ status: DaemonStatus) async throws(StorageFailure) {
        let logger = logger
        let encoded = status.encoded()
        let at = Int64(status.heartbeatAt.timeIntervalSince1970)
        _ = try await writing { connection in
            try await connection.query(
                """
                INSERT INTO daemon_state (key, value, updated_at) VALUES (\(Self.statusKey), \(encoded), \(at))
                ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
                """, logger: logger)
        }
    }

    public func loadStatus() async throws(StorageFailure) -> DaemonStatus? {
        let logger = logger
        let encoded: String? = try await reading { connection in
            let rows = try await connection.query("SELECT value FROM daemon_state WHERE key = \(Self.statusKey)", logger: logger)
            return try await Self.single(rows, "value")
        }
        return encoded.flatMap(DaemonStatus.decoded)
    }

    // MARK: - Helpers

    /// A time as every `*_at` column holds it: whole seconds since 1970.
    static func seconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }

    static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }

    /// The one column of the one row a query returns; nil when no row or NULL.
    static func single<T: PostgresDecodable>(_ rows: PostgresRowSequence, _ column: String) async throws -> T? where T._DecodableType == T {
        var value: T?
        for try await row in rows { value = try row.makeRandomAccess()[column].decode(T?.self) }
        return value
    }
}

extension PostgresRandomAccessRow {
    /// The column `name` decoded as `T` (an optional for a column that may be NULL): rows are read by
    /// column name, as in the SQLite store.
    func value<T: PostgresDecodable>(_ name: String, as type: T.Type = T.self) throws -> T {
        try self[name].decode(T.self)
    }
}

import DustKit
import DustServices
import Foundation

// Hourly readings (`measurement`) and AirKorea's station list (`station`): docs/REFERENCE.md §8.

extension SQLDatabase {
    /// Stores readings in one transaction: new slots are inserted, changed slots revised (AirKorea
    /// revises data), identical ones left alone. A field the reading does not report (its element
    /// was missing from the response) keeps its stored value; so does station metadata. The kept
    /// places of every slot that changed are forgotten (`PlaceRule`).
    @discardableResult
    public func saveReadings(_ readings: [HourlyReading], fetchedAt: Date) async throws(StorageFailure) -> UpsertSummary {
        let upsert = MeasurementColumns.upsertSQL(dialect)
        let remember = rememberStationSQL(dialect)
        let fetched = SQLTime.seconds(fetchedAt)
        return try await write { session in
            var summary = UpsertSummary()
            var changedSlots = Set<Int64>()
            let upsertRow = try session.prepare(upsert)
            for reading in readings {
                let revision = try upsertRow.row(MeasurementColumns.arguments(reading, fetchedAt: fetched))?.int64("revision")
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
            try PlaceRule.forget(slots: changedSlots, session)
            let rememberStation = try session.prepare(remember)
            var seen = Set<String>()
            for reading in readings where seen.insert(reading.station).inserted {
                try rememberStation.execute(
                    [
                        reading.station.sqlValue, reading.stationCode.sqlValue, reading.sidoName.sqlValue, reading.network.sqlValue,
                        fetched.sqlValue,
                    ])
            }
            // The table's count (v20), kept here, its one writer; last, as `write` raises the generation.
            if summary.inserted > 0 {
                try session.execute("UPDATE data_generation SET measurement_rows = measurement_rows + ?", summary.inserted)
            }
            return summary
        }
    }

    /// The stored readings of `stations` for slots starting in `[from, to)`, by slot, then station.
    public func readings(stations: [String], from: Slot, to: Slot) async throws(StorageFailure) -> [HourlyReading] {
        guard !stations.isEmpty else { return [] }
        let placeholders = Array(repeating: "?", count: stations.count).joined(separator: ", ")
        let arguments = stations.map(\.sqlValue) + [from.startEpochSeconds.sqlValue, to.startEpochSeconds.sqlValue]
        return try await read { session in
            var result: [HourlyReading] = []
            try session.forEachRow(
                """
                SELECT station, slot_start, \(MeasurementColumns.read) FROM measurement
                WHERE station IN (\(placeholders)) AND slot_start >= ? AND slot_start < ?
                ORDER BY slot_start, station
                """, arguments
            ) { row in result.append(try MeasurementColumns.reading(row)) }
            return result
        }
    }

    /// The latest slot stored for a station that ended by `now`, if any. A slot in the future (a
    /// server with a wrong clock) must not make old data look fresh or stop a backfill.
    public func newestSlot(station: String, endingBy now: Date) async throws(StorageFailure) -> Slot? {
        let newestStart = Int64((now.timeIntervalSince1970 - 3600).rounded(.down))
        return try await read { session -> Slot? in
            let row = try session.row(
                "SELECT max(slot_start) AS slot_start FROM measurement WHERE station = ? AND slot_start <= ?", station, newestStart)
            guard let row, try row.optionalInt64("slot_start") != nil else { return nil }
            return try row.slot("slot_start")
        }
    }

    /// The newest slot stored for a station whatever the clock says, and the newest that ended by
    /// `now`, in one statement (each a lookup at the end of the station's index): the web's
    /// `/healthz` and dashboard ask for both at every request.
    public func newestSlots(station: String, endingBy now: Date) async throws(StorageFailure) -> NewestSlots {
        let newestStart = Int64((now.timeIntervalSince1970 - 3600).rounded(.down))
        return try await read { session -> NewestSlots in
            let row = try session.row(
                """
                SELECT (SELECT max(slot_start) FROM measurement WHERE station = ?) AS stored,
                    (SELECT max(slot_start) FROM measurement WHERE station = ? AND slot_start <= ?) AS ended
                """, station, station, newestStart)
            let stored = try row?.optionalInt64("stored")
            let ended = try row?.optionalInt64("ended")
            return NewestSlots(
                stored: try stored.map { start throws(SQLDecodingError) in try StoredValue.slot(start, column: "stored") },
                endedByNow: try ended.map { start throws(SQLDecodingError) in try StoredValue.slot(start, column: "ended") })
        }
    }

    /// The number of stored measurement rows, in all (the count kept since v20: one row read,
    /// whatever the history) or for one station.
    public func readingCount(station: String? = nil) async throws(StorageFailure) -> Int {
        try await read { session in
            if let station {
                return try session.row("SELECT count(*) AS n FROM measurement WHERE station = ?", station)?.int("n") ?? 0
            }
            return try session.row("SELECT measurement_rows AS n FROM data_generation")?.int("n") ?? 0
        }
    }

    // MARK: - Stations

    /// Stores stations from AirKorea's station list in one transaction (address, network,
    /// coordinates); a station placed anew or moved makes every kept place be weighed again.
    public func saveStations(_ stations: [Station], at time: Date) async throws(StorageFailure) {
        let updated = SQLTime.seconds(time)
        try await write { session in
            var moved = false
            for station in stations where !moved && (station.latitude != nil || station.longitude != nil) {
                let stored = try session.row("SELECT latitude, longitude FROM station WHERE name = ?", station.name)
                moved = station.moves(
                    fromLatitude: try stored?.optionalDouble("latitude"), longitude: try stored?.optionalDouble("longitude"))
            }
            if moved { try PlaceRule.forgetAll(session) }
            for station in stations {
                try session.execute(
                    """
                    INSERT INTO station (name, code, network, address, latitude, longitude, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (name) DO UPDATE SET
                        code = coalesce(excluded.code, station.code), network = coalesce(excluded.network, station.network),
                        address = coalesce(excluded.address, station.address),
                        latitude = coalesce(excluded.latitude, station.latitude),
                        longitude = coalesce(excluded.longitude, station.longitude), updated_at = excluded.updated_at
                    """, station.name, station.code, station.network, station.address, station.latitude, station.longitude, updated)
            }
        }
    }

    /// Stations seen in measurements or the station list, by name.
    public func stationsWithReadings() async throws(StorageFailure) -> [String] {
        try await read { session in
            // One probe of measurement's key per listed station (every station with readings is listed).
            try session.rows(
                "SELECT name FROM station WHERE EXISTS (SELECT 1 FROM measurement WHERE measurement.station = station.name) ORDER BY name"
            ).map { try $0.string("name") }
        }
    }

    public func stations() async throws(StorageFailure) -> [Station] {
        try await read { session in
            var stations: [Station] = []
            try session.forEachRow("SELECT name, address, network, latitude, longitude, code FROM station ORDER BY name", []) { row in
                stations.append(
                    Station(
                        name: try row.string("name"), address: try row.optionalString("address"),
                        network: try row.optionalString("network"), latitude: try row.optionalDouble("latitude"),
                        longitude: try row.optionalDouble("longitude"), code: try row.optionalString("code")))
            }
            return stations
        }
    }
}

/// A reading's station metadata, kept: a field the reading does not carry keeps its stored value.
private func rememberStationSQL(_ dialect: SQLDialect) -> String {
    let distinct = dialect.isDistinctFrom
    return """
        INSERT INTO station (name, code, sido, network, updated_at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (name) DO UPDATE SET
            code = coalesce(excluded.code, station.code), sido = coalesce(excluded.sido, station.sido),
            network = coalesce(excluded.network, station.network), updated_at = excluded.updated_at
        WHERE station.code \(distinct) coalesce(excluded.code, station.code)
           OR station.sido \(distinct) coalesce(excluded.sido, station.sido)
           OR station.network \(distinct) coalesce(excluded.network, station.network)
        """
}

/// The `measurement` row of a reading: its columns, how each is revised, and how it is read back.
enum MeasurementColumns {
    /// The columns a reading is read back from (after `station, slot_start`).
    static let read = """
        pm10, pm25, pm10_flag, pm25_flag, pm10_24h, pm25_24h, pm10_grade, pm25_grade, pm10_grade_1h, pm25_grade_1h,
        o3, no2, co, so2, o3_flag, no2_flag, co_flag, so2_flag, cai, cai_grade
        """

    /// Each revisable column and the bit of the reported-fields mask (`?14`: PM10's `ReportedFields`
    /// in the low four bits, PM2.5's in the next four, the gases' `GasFields` above them) that lets
    /// a reading revise it.
    static let revisable: [(column: String, bit: Int)] = {
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
    static let gasReportedShift = 8

    /// Insert, or revise the reported columns of a stored slot when one of them changed; returns the
    /// revision (0 for a new row), or no row when nothing changed. Only column names and bit
    /// constants are spliced in; every value is a bound parameter.
    static func upsertSQL(_ dialect: SQLDialect) -> String {
        func revised(_ column: String, _ bit: Int) -> String {
            "CASE WHEN (CAST(?14 AS BIGINT) & \(bit)) <> 0 THEN excluded.\(column) ELSE measurement.\(column) END"
        }
        let assignments = revisable.map { "\($0.column) = \(revised($0.column, $0.bit))" }.joined(separator: ", ")
        let changes = revisable.map { "measurement.\($0.column) \(dialect.isDistinctFrom) \(revised($0.column, $0.bit))" }
            .joined(separator: " OR ")
        return """
            INSERT INTO measurement (station, slot_start, pm10, pm25, pm10_flag, pm25_flag, pm10_24h, pm25_24h,
                                     pm10_grade, pm25_grade, pm10_grade_1h, pm25_grade_1h, fetched_at,
                                     o3, no2, co, so2, o3_flag, no2_flag, co_flag, so2_flag, cai, cai_grade)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24)
            ON CONFLICT (station, slot_start) DO UPDATE SET
                \(assignments), fetched_at = excluded.fetched_at, revision = measurement.revision + 1
            WHERE \(changes)
            RETURNING revision
            """
    }

    /// The upsert's 24 parameters for `reading`.
    static func arguments(_ reading: HourlyReading, fetchedAt fetched: Int64) -> [SQLValue] {
        let gases = reading.gases
        let reported =
            reading.reported.fineDust.rawValue | reading.reported.ultraFineDust.rawValue << 4
            | gases.reported.rawValue << gasReportedShift
        return [
            reading.station.sqlValue, reading.slot.startEpochSeconds.sqlValue,
            reading.concentration.fineDust.sqlValue, reading.concentration.ultraFineDust.sqlValue,
            reading.flag.fineDust.sqlValue, reading.flag.ultraFineDust.sqlValue,
            reading.average24h.fineDust.sqlValue, reading.average24h.ultraFineDust.sqlValue,
            (reading.grade24h.fineDust?.rawValue).sqlValue,
            (reading.grade24h.ultraFineDust?.rawValue).sqlValue,
            (reading.grade1h.fineDust?.rawValue).sqlValue,
            (reading.grade1h.ultraFineDust?.rawValue).sqlValue,
            fetched.sqlValue, reported.sqlValue,
            gases.ppm.o3.sqlValue, gases.ppm.no2.sqlValue, gases.ppm.co.sqlValue, gases.ppm.so2.sqlValue,
            gases.flag.o3.sqlValue, gases.flag.no2.sqlValue, gases.flag.co.sqlValue, gases.flag.so2.sqlValue,
            gases.cai.sqlValue, (gases.caiGrade?.rawValue).sqlValue,
        ]
    }

    /// A row of `station, slot_start` and `read` as a reading.
    static func reading(_ row: SQLRow) throws -> HourlyReading {
        func grade(_ column: String) throws -> DustGrade? { try row.optionalInt(column).flatMap(DustGrade.init(rawValue:)) }
        return HourlyReading(
            station: try row.string("station"),
            slot: try row.slot("slot_start"),
            concentration: DustPair(fineDust: try row.optionalDouble("pm10"), ultraFineDust: try row.optionalDouble("pm25")),
            flag: DustPair(fineDust: try row.optionalString("pm10_flag"), ultraFineDust: try row.optionalString("pm25_flag")),
            average24h: DustPair(fineDust: try row.optionalDouble("pm10_24h"), ultraFineDust: try row.optionalDouble("pm25_24h")),
            grade24h: DustPair(fineDust: try grade("pm10_grade"), ultraFineDust: try grade("pm25_grade")),
            grade1h: DustPair(fineDust: try grade("pm10_grade_1h"), ultraFineDust: try grade("pm25_grade_1h")),
            gases: GasReading(
                ppm: GasValues(
                    o3: try row.optionalDouble("o3"), no2: try row.optionalDouble("no2"), co: try row.optionalDouble("co"),
                    so2: try row.optionalDouble("so2")),
                flag: GasValues(
                    o3: try row.optionalString("o3_flag"), no2: try row.optionalString("no2_flag"),
                    co: try row.optionalString("co_flag"), so2: try row.optionalString("so2_flag")),
                cai: try row.optionalInt("cai"), caiGrade: try grade("cai_grade")))
    }
}

import DustKit
import Foundation
import GRDB

/// How many readings an upsert added, revised, or found already stored unchanged.
public struct UpsertSummary: Sendable, Hashable {
    public var inserted = 0
    public var updated = 0
    public var unchanged = 0

    public init(inserted: Int = 0, updated: Int = 0, unchanged: Int = 0) {
        self.inserted = inserted
        self.updated = updated
        self.unchanged = unchanged
    }
}

/// The FineDust database: one SQLite file in WAL mode, read by `dustctl` while `dustd` writes.
///
/// Wraps a GRDB `DatabasePool`. Every public write is one transaction, so a killed process leaves
/// either the whole batch or none of it.
public final class SQLiteStore: Sendable {
    /// How to open the database.
    public enum Mode: Sendable {
        /// Create the file (mode 0640) and its directory if needed, and migrate the schema.
        case readWrite
        /// Open an existing database for reading only; a missing file is `StoreError.databaseMissing`.
        case readOnly
    }

    /// Default time a connection waits for another process's lock before failing with `busy`.
    /// dustd's longest transaction (a 3MONTH backfill of 2,200 rows) takes well under a second.
    public static let defaultBusyTimeout: TimeInterval = 10

    public let path: String
    private let pool: DatabasePool

    public init(path: String, mode: Mode = .readWrite, busyTimeout: TimeInterval = SQLiteStore.defaultBusyTimeout) throws(StoreError) {
        self.path = path
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = "FineDust"
        switch mode {
        case .readOnly:
            guard FileManager.default.fileExists(atPath: path) else { throw .databaseMissing(path: path) }
            configuration.readonly = true
        case .readWrite:
            try Self.createFileIfNeeded(path)
            configuration.prepareDatabase { db in
                // FULL: a committed batch survives power loss, not only a killed process.
                try db.execute(sql: "PRAGMA synchronous = FULL")
            }
        }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            switch mode {
            case .readWrite:
                try Schema.migrator.migrate(pool)
            case .readOnly:
                let known = try pool.read { db in try Schema.migrator.hasCompletedMigrations(db) }
                let tooNew = try pool.read { db in try Schema.migrator.hasBeenSuperseded(db) }
                if tooNew { throw StoreError.schemaTooNew(path: path) }
                if !known { throw StoreError.corrupt(path: path, reason: "it has no FineDust tables") }
            }
        } catch {
            throw StoreError(error, path: path)
        }
    }

    /// Creates an empty database file with mode 0640 (and its directory with 0750) so SQLite never
    /// creates it with the process umask; the -wal and -shm files inherit the database file's mode.
    private static func createFileIfNeeded(_ path: String) throws(StoreError) {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o750])
            } catch {
                throw .cannotOpen(path: path, reason: "cannot create its directory: \(error.localizedDescription)")
            }
        }
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o640)
        if descriptor >= 0 {
            close(descriptor)
        } else if errno != EEXIST {
            throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
    }

    // MARK: - Measurements

    /// Stores readings in one transaction: new slots are inserted, changed slots replaced (AirKorea
    /// revises data), identical ones left alone. Station metadata carried by the readings is kept.
    @discardableResult
    public func upsert(_ readings: [HourlyReading], fetchedAt: Date = Date()) throws(StoreError) -> UpsertSummary {
        try write { db in
            var summary = UpsertSummary()
            let fetched = Int64(fetchedAt.timeIntervalSince1970)
            let statement = try db.cachedStatement(sql: """
                INSERT INTO measurement (station, slot_start, pm10, pm25, pm10_flag, pm25_flag, pm10_24h, pm25_24h,
                                         pm10_grade, pm25_grade, pm10_grade_1h, pm25_grade_1h, fetched_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (station, slot_start) DO UPDATE SET
                    pm10 = excluded.pm10, pm25 = excluded.pm25,
                    pm10_flag = excluded.pm10_flag, pm25_flag = excluded.pm25_flag,
                    pm10_24h = excluded.pm10_24h, pm25_24h = excluded.pm25_24h,
                    pm10_grade = excluded.pm10_grade, pm25_grade = excluded.pm25_grade,
                    pm10_grade_1h = excluded.pm10_grade_1h, pm25_grade_1h = excluded.pm25_grade_1h,
                    fetched_at = excluded.fetched_at, revision = revision + 1
                WHERE pm10 IS NOT excluded.pm10 OR pm25 IS NOT excluded.pm25
                   OR pm10_flag IS NOT excluded.pm10_flag OR pm25_flag IS NOT excluded.pm25_flag
                   OR pm10_24h IS NOT excluded.pm10_24h OR pm25_24h IS NOT excluded.pm25_24h
                   OR pm10_grade IS NOT excluded.pm10_grade OR pm25_grade IS NOT excluded.pm25_grade
                   OR pm10_grade_1h IS NOT excluded.pm10_grade_1h OR pm25_grade_1h IS NOT excluded.pm25_grade_1h
                RETURNING revision
                """)
            for reading in readings {
                let arguments: StatementArguments = [
                    reading.station, reading.slot.startEpochSeconds,
                    reading.concentration.fineDust, reading.concentration.ultraFineDust,
                    reading.flag.fineDust, reading.flag.ultraFineDust,
                    reading.average24h.fineDust, reading.average24h.ultraFineDust,
                    reading.grade24h.fineDust?.rawValue, reading.grade24h.ultraFineDust?.rawValue,
                    reading.grade1h.fineDust?.rawValue, reading.grade1h.ultraFineDust?.rawValue,
                    fetched,
                ]
                switch try Int.fetchOne(statement, arguments: arguments) {
                case nil: summary.unchanged += 1
                case 0: summary.inserted += 1
                default: summary.updated += 1
                }
            }
            try Self.rememberStations(of: readings, at: fetched, in: db)
            return summary
        }
    }

    private static func rememberStations(of readings: [HourlyReading], at time: Int64, in db: Database) throws {
        var seen = Set<String>()
        let statement = try db.cachedStatement(sql: """
            INSERT INTO station (name, code, sido, network, updated_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET
                code = coalesce(excluded.code, code), sido = coalesce(excluded.sido, sido),
                network = coalesce(excluded.network, network), updated_at = excluded.updated_at
            WHERE code IS NOT coalesce(excluded.code, code) OR sido IS NOT coalesce(excluded.sido, sido)
               OR network IS NOT coalesce(excluded.network, network)
            """)
        for reading in readings where seen.insert(reading.station).inserted {
            try statement.execute(arguments: [reading.station, reading.stationCode, reading.sidoName, reading.network, time])
        }
    }

    /// The stored readings of `stations` for slots starting in `[from, to)`, ordered by slot, then station.
    public func readings(stations: [String], from: Slot, to: Slot) throws(StoreError) -> [HourlyReading] {
        guard !stations.isEmpty else { return [] }
        return try read { db in
            let placeholders = databaseQuestionMarks(count: stations.count)
            var arguments = StatementArguments(stations)
            arguments += [from.startEpochSeconds, to.startEpochSeconds]
            let rows = try Row.fetchCursor(db, sql: """
                SELECT station, slot_start, pm10, pm25, pm10_flag, pm25_flag, pm10_24h, pm25_24h,
                       pm10_grade, pm25_grade, pm10_grade_1h, pm25_grade_1h
                FROM measurement
                WHERE station IN (\(placeholders)) AND slot_start >= ? AND slot_start < ?
                ORDER BY slot_start, station
                """, arguments: arguments)
            var result: [HourlyReading] = []
            while let row = try rows.next() {
                result.append(HourlyReading(
                    station: row[0],
                    slot: Slot(startEpochSeconds: row[1]),
                    concentration: DustPair(fineDust: row[2], ultraFineDust: row[3]),
                    flag: DustPair(fineDust: row[4], ultraFineDust: row[5]),
                    average24h: DustPair(fineDust: row[6], ultraFineDust: row[7]),
                    grade24h: DustPair(fineDust: (row[8] as Int?).flatMap(DustGrade.init(rawValue:)),
                                       ultraFineDust: (row[9] as Int?).flatMap(DustGrade.init(rawValue:))),
                    grade1h: DustPair(fineDust: (row[10] as Int?).flatMap(DustGrade.init(rawValue:)),
                                      ultraFineDust: (row[11] as Int?).flatMap(DustGrade.init(rawValue:)))
                ))
            }
            return result
        }
    }

    /// The latest slot stored for a station, if any.
    public func latestSlot(station: String) throws(StoreError) -> Slot? {
        try read { db in
            try Int64.fetchOne(db, sql: "SELECT max(slot_start) FROM measurement WHERE station = ?", arguments: [station])
                .map(Slot.init(startEpochSeconds:))
        }
    }

    /// The number of stored measurement rows, in all or for one station.
    public func measurementCount(station: String? = nil) throws(StoreError) -> Int {
        try read { db in
            if let station {
                return try Int.fetchOne(db, sql: "SELECT count(*) FROM measurement WHERE station = ?", arguments: [station]) ?? 0
            }
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM measurement") ?? 0
        }
    }

    /// Stores stations from AirKorea's station list in one transaction (address, network, coordinates).
    public func upsertStations(_ stations: [Station], at time: Date = Date()) throws(StoreError) {
        try write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO station (name, code, network, address, latitude, longitude, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET
                    code = coalesce(excluded.code, code), network = coalesce(excluded.network, network),
                    address = coalesce(excluded.address, address), latitude = coalesce(excluded.latitude, latitude),
                    longitude = coalesce(excluded.longitude, longitude), updated_at = excluded.updated_at
                """)
            for station in stations {
                try statement.execute(arguments: [station.name, station.code, station.network, station.address,
                                                  station.latitude, station.longitude, Int64(time.timeIntervalSince1970)])
            }
        }
    }

    /// Stations seen in measurements or the station list, by name.
    public func stations() throws(StoreError) -> [Station] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT name, address, network, latitude, longitude, code FROM station ORDER BY name").map { row in
                Station(name: row[0], address: row[1], network: row[2], latitude: row[3], longitude: row[4], code: row[5])
            }
        }
    }

    // MARK: - Activity

    /// Stores walking distances per slot in one transaction; a slot imported again is replaced.
    public func replaceWalkingDistances(_ distances: [Slot: Double], importedAt: Date = Date()) throws(StoreError) {
        try write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO activity (slot_start, distance_m, imported_at) VALUES (?, ?, ?)
                ON CONFLICT (slot_start) DO UPDATE SET distance_m = excluded.distance_m, imported_at = excluded.imported_at
                """)
            let imported = Int64(importedAt.timeIntervalSince1970)
            for (slot, distance) in distances.sorted(by: { $0.key < $1.key }) {
                try statement.execute(arguments: [slot.startEpochSeconds, distance, imported])
            }
        }
    }

    /// Walking distances (metres) of slots starting in `[from, to)`.
    public func walkingDistances(from: Slot, to: Slot) throws(StoreError) -> [Slot: Double] {
        try read { db in
            let rows = try Row.fetchCursor(db, sql: "SELECT slot_start, distance_m FROM activity WHERE slot_start >= ? AND slot_start < ?",
                                           arguments: [from.startEpochSeconds, to.startEpochSeconds])
            var result: [Slot: Double] = [:]
            while let row = try rows.next() {
                result[Slot(startEpochSeconds: row[0])] = row[1]
            }
            return result
        }
    }

    /// `PRAGMA integrity_check`: `["ok"]` for a sound database.
    public func integrityCheck() throws(StoreError) -> [String] {
        try read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }

    // MARK: - Transactions

    func write<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try pool.write(body)
        } catch {
            throw StoreError(error, path: path)
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try pool.read(body)
        } catch {
            throw StoreError(error, path: path)
        }
    }
}

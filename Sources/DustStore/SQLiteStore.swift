import AirKorea
import DustKit
import DustServices
import Foundation
import GRDB
import GRDBSQLite

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

    /// The size, in bytes, the -wal file is cut back to after a checkpoint (SQLite's
    /// `journal_size_limit`); it is cut to 0 when the last writer closes. docs/PERFORMANCE.md,
    /// "A week's cost and the size of history".
    public static let walSizeLimit = 4 * 1024 * 1024

    public let path: String
    /// A pool (a writer and concurrent readers) for read-write opens; one read-only connection
    /// for a reader such as `dustctl day`, which runs one query and exits.
    private let pool: any DatabaseWriter
    /// The device and inode of the file opened, to notice when it is deleted or replaced.
    private let identity: FileIdentity?

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
            try Self.refuseNewerSchema(path, busyTimeout: busyTimeout)
            configuration.prepareDatabase { db in
                // Keep -wal and -shm when the last writer closes: a reader in dustd's group cannot
                // create them in dustd's directory, so without them it could not read the
                // database while dustd is stopped.
                var persist: CInt = 1
                let code = sqlite3_file_control(db.sqliteConnection, nil, SQLITE_FCNTL_PERSIST_WAL, &persist)
                guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
                // A persistent WAL otherwise keeps the size of the largest write ever made (a
                // MONTH backfill, a 10-year import): every reader that opens the database while no
                // writer has it open rebuilds its index by reading the whole -wal, so `dustctl week`
                // cost in proportion to history. With a limit, SQLite truncates the -wal to this size
                // after each checkpoint and to 0 bytes when the last writer closes it (the file
                // stays, so group readers can still open the database).
                try db.execute(sql: "PRAGMA journal_size_limit = \(SQLiteStore.walSizeLimit)")
            }
        }
        do {
            pool =
                mode == .readOnly
                ? try DatabaseQueue(path: path, configuration: configuration)
                : try DatabasePool(path: path, configuration: configuration)
            switch mode {
            case .readWrite:
                // FULL: a committed batch survives power loss, not only a killed process. Set after
                // the pool is open: GRDB sets NORMAL on the writer when it turns WAL on.
                try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
                try Schema.migrator.migrate(pool)
            case .readOnly:
                // One read of grdb_migrations answers what GRDB's hasBeenSuperseded,
                // appliedIdentifiers and hasCompletedMigrations would each read it again for.
                let applied = try pool.read(Schema.migrator.appliedIdentifiers)
                let known = Schema.migrator.migrations
                if applied.contains(where: { !known.contains($0) }) { throw StoreError.schemaTooNew(path: path) }
                if applied.isEmpty { throw StoreError.corrupt(path: path, reason: "it has no FineDust tables") }
                if !known.allSatisfy(applied.contains) {
                    // A reader never writes, so it cannot upgrade the file; dustd does on start.
                    throw StoreError.cannotOpen(
                        path: path,
                        reason:
                            "an older FineDust wrote it and this version reads it only once it is upgraded; restart dustd (systemctl restart dustd), which upgrades it, then try again"
                    )
                }
            }
        } catch {
            throw StoreError(error, path: path)
        }
        identity = FileIdentity(path: path)
    }

    /// True when the file at `path` is no longer the one this store opened: deleted, or replaced by
    /// another file (a restore, a `mv`). Writes would then go to a file no one will ever read again.
    public var isReplacedOnDisk: Bool {
        FileIdentity(path: path) != identity
    }

    /// A newer FineDust's database is neither read nor written: its tables may mean something this
    /// version does not know. Checked through a read-only connection before the writer opens,
    /// because opening a writable pool already writes (GRDB makes sure the WAL is not empty).
    private static func refuseNewerSchema(_ path: String, busyTimeout: TimeInterval) throws(StoreError) {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(busyTimeout)
        do {
            let newer = try DatabaseQueue(path: path, configuration: configuration).read(Schema.migrator.hasBeenSuperseded)
            if newer { throw StoreError.schemaTooNew(path: path) }
        } catch {
            throw StoreError(error, path: path)
        }
    }

    /// Creates the database's directory (mode 0750) when it does not exist yet.
    public static func createDirectoryIfNeeded(forDatabase path: String) throws(StoreError) {
        let directory = (path as NSString).deletingLastPathComponent
        guard !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) else { return }
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o750])
        } catch {
            throw .cannotOpen(path: path, reason: "cannot create its directory: \(error.localizedDescription)")
        }
    }

    /// Creates an empty database file with mode 0640 (and its directory with 0750) so SQLite never
    /// creates it with the process umask; the -wal and -shm files inherit the database file's mode.
    private static func createFileIfNeeded(_ path: String) throws(StoreError) {
        try createDirectoryIfNeeded(forDatabase: path)
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o640)
        if descriptor >= 0 {
            close(descriptor)
        } else if errno != EEXIST {
            throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
    }

    // MARK: - Measurements

    /// Stores readings in one transaction: new slots are inserted, changed slots replaced (AirKorea
    /// revises data), identical ones left alone. A field the reading does not report (its element
    /// was missing from the response) keeps its stored value. Station metadata is kept.
    @discardableResult
    public func saveReadings(_ readings: [HourlyReading], fetchedAt: Date = Date()) throws(StorageFailure) -> UpsertSummary {
        try writing { db in
            var summary = UpsertSummary()
            let fetched = Int64(fetchedAt.timeIntervalSince1970)
            let statement = try db.cachedStatement(sql: Self.upsertSQL)
            var changedSlots = Set<Int64>()
            for reading in readings {
                let gases = reading.gases
                let arguments: StatementArguments = [
                    reading.station, reading.slot.startEpochSeconds,
                    reading.concentration.fineDust, reading.concentration.ultraFineDust,
                    reading.flag.fineDust, reading.flag.ultraFineDust,
                    reading.average24h.fineDust, reading.average24h.ultraFineDust,
                    reading.grade24h.fineDust?.rawValue, reading.grade24h.ultraFineDust?.rawValue,
                    reading.grade1h.fineDust?.rawValue, reading.grade1h.ultraFineDust?.rawValue,
                    fetched,
                    reading.reported.fineDust.rawValue | reading.reported.ultraFineDust.rawValue << 4
                        | gases.reported.rawValue << Self.gasReportedShift,
                    gases.ppm.o3, gases.ppm.no2, gases.ppm.co, gases.ppm.so2,
                    gases.flag.o3, gases.flag.no2, gases.flag.co, gases.flag.so2,
                    gases.cai, gases.caiGrade?.rawValue,
                ]
                switch try Int.fetchOne(statement, arguments: arguments) {
                case nil: summary.unchanged += 1
                case 0:
                    summary.inserted += 1
                    changedSlots.insert(reading.slot.startEpochSeconds)
                default:
                    summary.updated += 1
                    changedSlots.insert(reading.slot.startEpochSeconds)
                }
            }
            try Self.forgetPlaces(ofSlots: changedSlots, db)
            try Self.rememberStations(of: readings, at: fetched, in: db)
            return summary
        }
    }

    /// The measurement columns and the bit of the reported-fields mask (`?14`: PM10's
    /// `ReportedFields` in the low four bits, PM2.5's in the next four, the gases' `GasFields` above
    /// them) that lets a reading revise each.
    private static let revisableColumns: [(column: String, bit: Int)] = particulateColumns + gasColumns

    private static let particulateColumns: [(column: String, bit: Int)] = [
        ("pm10", ReportedFields.value.rawValue), ("pm25", ReportedFields.value.rawValue << 4),
        ("pm10_flag", ReportedFields.value.rawValue), ("pm25_flag", ReportedFields.value.rawValue << 4),
        ("pm10_24h", ReportedFields.average24h.rawValue), ("pm25_24h", ReportedFields.average24h.rawValue << 4),
        ("pm10_grade", ReportedFields.grade24h.rawValue), ("pm25_grade", ReportedFields.grade24h.rawValue << 4),
        ("pm10_grade_1h", ReportedFields.grade1h.rawValue), ("pm25_grade_1h", ReportedFields.grade1h.rawValue << 4),
    ]

    /// Each gas's value and flag (`o3`, `o3_flag`, …) under its `GasFields` bit, then the index's two columns.
    private static let gasColumns: [(column: String, bit: Int)] = {
        var columns: [(column: String, bit: Int)] = []
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

    /// Insert, or revise the reported columns of a stored slot when one of them changed; returns the
    /// revision (0 for a new row), or no row when nothing changed.
    private static let upsertSQL: String = {
        func revised(_ column: String, _ bit: Int) -> String {
            "CASE WHEN ?14 & \(bit) THEN excluded.\(column) ELSE \(column) END"
        }
        let assignments = revisableColumns.map { "\($0.column) = \(revised($0.column, $0.bit))" }.joined(separator: ", ")
        let changes = revisableColumns.map { "\($0.column) IS NOT \(revised($0.column, $0.bit))" }.joined(separator: " OR ")
        return """
            INSERT INTO measurement (station, slot_start, pm10, pm25, pm10_flag, pm25_flag, pm10_24h, pm25_24h,
                                     pm10_grade, pm25_grade, pm10_grade_1h, pm25_grade_1h, fetched_at,
                                     o3, no2, co, so2, o3_flag, no2_flag, co_flag, so2_flag, cai, cai_grade)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24)
            ON CONFLICT (station, slot_start) DO UPDATE SET
                \(assignments), fetched_at = excluded.fetched_at, revision = revision + 1
            WHERE \(changes)
            RETURNING revision
            """
    }()

    private static func rememberStations(of readings: [HourlyReading], at time: Int64, in db: Database) throws {
        var seen = Set<String>()
        let statement = try db.cachedStatement(
            sql: """
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
    /// PM10 and PM2.5 of `stations` over `[from, to)` by slot, then station name, each station by its
    /// index in `stations`. Each station is read along the primary key (station, slot_start), three
    /// columns a row by the indices of their names, and the rows put in slot order here by counting
    /// them per hour, instead of SQLite sorting them.
    public func dustValues(stations: [String], from: Slot, to: Slot) throws(StorageFailure) -> [StationDust] {
        guard !stations.isEmpty, from < to else { return [] }
        return try reading { db in
            let statement = try db.cachedStatement(
                sql: """
                    SELECT slot_start, pm10, pm25 FROM measurement
                    WHERE station = ? AND slot_start >= ? AND slot_start < ? ORDER BY slot_start
                    """)
            let slot = try Self.column("slot_start", of: statement)
            let pm10 = try Self.column("pm10", of: statement)
            let pm25 = try Self.column("pm25", of: statement)
            let hours = Int((to.startEpochSeconds - from.startEpochSeconds) / 3600)
            var rows: [StationDust] = []
            // Rows per hour, offset by one: after the prefix sums, where each hour's rows start.
            var starts = [Int](repeating: 0, count: hours + 1)
            for station in stations.indices.sorted(by: { stations[$0] < stations[$1] }) {
                statement.arguments = [stations[station], from.startEpochSeconds, to.startEpochSeconds]
                try Self.eachRow(of: statement, in: db) { row in
                    let read = StationDust(
                        slot: Slot(startEpochSeconds: sqlite3_column_int64(row, Int32(slot))), station: station,
                        concentration: DustPair(fineDust: Self.optionalDouble(row, pm10), ultraFineDust: Self.optionalDouble(row, pm25)))
                    starts[Int((read.slot.startEpochSeconds - from.startEpochSeconds) / 3600) + 1] += 1
                    rows.append(read)
                }
            }
            for hour in 0..<hours { starts[hour + 1] += starts[hour] }
            // A stable placement: within an hour the stations stay in name order.
            var ordered = rows
            for row in rows {
                let hour = Int((row.slot.startEpochSeconds - from.startEpochSeconds) / 3600)
                ordered[starts[hour]] = row
                starts[hour] += 1
            }
            return ordered
        }
    }

    public func readings(stations: [String], from: Slot, to: Slot) throws(StorageFailure) -> [HourlyReading] {
        guard !stations.isEmpty else { return [] }
        return try reading { db in
            let placeholders = databaseQuestionMarks(count: stations.count)
            var arguments = StatementArguments(stations)
            arguments += [from.startEpochSeconds, to.startEpochSeconds]
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT station, slot_start, pm10, pm25, pm10_flag, pm25_flag, pm10_24h, pm25_24h,
                           pm10_grade, pm25_grade, pm10_grade_1h, pm25_grade_1h,
                           o3, no2, co, so2, o3_flag, no2_flag, co_flag, so2_flag, cai, cai_grade
                    FROM measurement
                    WHERE station IN (\(placeholders)) AND slot_start >= ? AND slot_start < ?
                    ORDER BY slot_start, station
                    """, arguments: arguments)
            var result: [HourlyReading] = []
            while let row = try rows.next() {
                result.append(
                    HourlyReading(
                        station: row["station"],
                        slot: Slot(startEpochSeconds: row["slot_start"]),
                        concentration: DustPair(fineDust: row["pm10"], ultraFineDust: row["pm25"]),
                        flag: DustPair(fineDust: row["pm10_flag"], ultraFineDust: row["pm25_flag"]),
                        average24h: DustPair(fineDust: row["pm10_24h"], ultraFineDust: row["pm25_24h"]),
                        grade24h: DustPair(fineDust: Self.grade(row["pm10_grade"]), ultraFineDust: Self.grade(row["pm25_grade"])),
                        grade1h: DustPair(fineDust: Self.grade(row["pm10_grade_1h"]), ultraFineDust: Self.grade(row["pm25_grade_1h"])),
                        gases: GasReading(
                            ppm: GasValues(o3: row["o3"], no2: row["no2"], co: row["co"], so2: row["so2"]),
                            flag: GasValues(o3: row["o3_flag"], no2: row["no2_flag"], co: row["co_flag"], so2: row["so2_flag"]),
                            cai: row["cai"], caiGrade: Self.grade(row["cai_grade"]))
                    ))
            }
            return result
        }
    }

    /// A stored grade column: nil when NULL or not one of the four grades.
    static func grade(_ value: Int?) -> DustGrade? {
        value.flatMap(DustGrade.init(rawValue:))
    }

    /// The latest slot stored for a station that ended by `now`, if any. A slot in the future (a
    /// server with a wrong clock) must not make old data look fresh or stop a backfill.
    public func newestSlot(station: String, endingBy now: Date) throws(StorageFailure) -> Slot? {
        let newestStart = Int64((now.timeIntervalSince1970 - 3600).rounded(.down))
        return try reading { db in
            try Int64.fetchOne(
                db, sql: "SELECT max(slot_start) FROM measurement WHERE station = ? AND slot_start <= ?",
                arguments: [station, newestStart]
            )
            .map(Slot.init(startEpochSeconds:))
        }
    }

    /// The number of stored measurement rows, in all or for one station.
    public func measurementCount(station: String? = nil) throws(StorageFailure) -> Int {
        try reading { db in
            if let station {
                return try Int.fetchOne(db, sql: "SELECT count(*) FROM measurement WHERE station = ?", arguments: [station]) ?? 0
            }
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM measurement") ?? 0
        }
    }

    /// Stores stations from AirKorea's station list in one transaction (address, network, coordinates).
    public func saveStations(_ stations: [Station], at time: Date = Date()) throws(StorageFailure) {
        try writing { db in
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO station (name, code, network, address, latitude, longitude, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (name) DO UPDATE SET
                        code = coalesce(excluded.code, code), network = coalesce(excluded.network, network),
                        address = coalesce(excluded.address, address), latitude = coalesce(excluded.latitude, latitude),
                        longitude = coalesce(excluded.longitude, longitude), updated_at = excluded.updated_at
                    """)
            // A station placed anew or moved changes what every place weighed: they are weighed again.
            let stored = try db.cachedStatement(sql: "SELECT latitude, longitude FROM station WHERE name = ?")
            var moved = false
            for station in stations where !moved && (station.latitude != nil || station.longitude != nil) {
                let row = try Row.fetchOne(stored, arguments: [station.name])
                moved = station.moves(fromLatitude: row?["latitude"], longitude: row?["longitude"])
            }
            if moved { try Self.forgetAllPlaces(db) }
            for station in stations {
                try statement.execute(arguments: [
                    station.name, station.code, station.network, station.address,
                    station.latitude, station.longitude, Int64(time.timeIntervalSince1970),
                ])
            }
        }
    }

    /// Stations seen in measurements or the station list, by name.
    public func stations() throws(StorageFailure) -> [Station] {
        try reading { db in
            // Every station is read to place the ones near a person (docs/REFERENCE.md §19): each
            // column's index is looked up by name once, not once a row.
            let statement = try db.cachedStatement(
                sql: "SELECT name, address, network, latitude, longitude, code FROM station ORDER BY name")
            let name = try Self.column("name", of: statement)
            let address = try Self.column("address", of: statement)
            let network = try Self.column("network", of: statement)
            let latitude = try Self.column("latitude", of: statement)
            let longitude = try Self.column("longitude", of: statement)
            let code = try Self.column("code", of: statement)
            return try Row.fetchAll(statement).map { row in
                Station(
                    name: row[name], address: row[address], network: row[network], latitude: row[latitude], longitude: row[longitude],
                    code: row[code])
            }
        }
    }

    // MARK: - Activity

    /// The walking of `me`, the one person of an installation without `people:`.
    public func walking(from: Slot, to: Slot) throws(StorageFailure) -> [Slot: SlotWalking] {
        try walking(person: Person.defaultName, from: from, to: to)
    }

    /// Removes `me`'s distances of `source`.
    @discardableResult
    public func forgetActivity(source: String) throws(StorageFailure) -> Int {
        try forgetActivity(person: Person.defaultName, source: source)
    }

    /// Stores the distances of one imported file, every source of it in one transaction: for each
    /// batch, the source's rows within `replacing` are deleted first, then its distances written
    /// (a slot already stored is overwritten). Other sources are never touched.
    public func saveActivity(_ batches: [ActivitySourceBatch], importedAt: Date = Date()) throws(StorageFailure) {
        try writing { db in try Self.insertActivity(batches, importedAt: importedAt, db) }
    }

    static func insertActivity(_ batches: [ActivitySourceBatch], importedAt: Date, _ db: Database) throws {
        let delete = try db.cachedStatement(
            sql: """
                DELETE FROM activity_source WHERE person = ? AND source = ? AND slot_start >= ? AND slot_start <= ?
                """)
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO activity_source (person, source, slot_start, distance_m, imported_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (person, source, slot_start) DO UPDATE SET distance_m = excluded.distance_m, imported_at = excluded.imported_at
                """)
        let imported = Int64(importedAt.timeIntervalSince1970)
        for batch in batches {
            if let span = batch.replacing {
                try delete.execute(
                    arguments: [batch.person, batch.source, span.lowerBound.startEpochSeconds, span.upperBound.startEpochSeconds])
            }
            for (slot, distance) in batch.distances.sorted(by: { $0.key < $1.key }) {
                try insert.execute(arguments: [batch.person, batch.source, slot.startEpochSeconds, distance, imported])
            }
        }
    }

    /// Per slot starting in `[from, to)`, the largest distance and the source that gave it (on a
    /// tie, the source whose name sorts first); never the sum of its sources (docs/REFERENCE.md §12).
    public func walking(person: String, from: Slot, to: Slot) throws(StorageFailure) -> [Slot: SlotWalking] {
        try reading { db in
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT slot_start, source, distance_m FROM activity_source
                    WHERE person = ? AND slot_start >= ? AND slot_start < ?
                    ORDER BY slot_start, distance_m DESC, source
                    """, arguments: [person, from.startEpochSeconds, to.startEpochSeconds])
            var result: [Slot: SlotWalking] = [:]
            while let row = try rows.next() {
                let slot = Slot(startEpochSeconds: row["slot_start"])
                if result[slot] == nil { result[slot] = SlotWalking(metres: row["distance_m"], source: row["source"]) }
            }
            return result
        }
    }

    /// Every stored person and source with its first and last slot, slot count and total
    /// distance, by person, then source.
    public func activitySources() throws(StorageFailure) -> [ActivitySourceSummary] {
        try reading { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT person, source, MIN(slot_start) AS first_slot, MAX(slot_start) AS last_slot, COUNT(*) AS slots,
                           SUM(distance_m) AS metres
                    FROM activity_source GROUP BY person, source ORDER BY person, source
                    """
            ).map { row in
                ActivitySourceSummary(
                    person: row["person"], source: row["source"], firstSlot: Slot(startEpochSeconds: row["first_slot"]),
                    lastSlot: Slot(startEpochSeconds: row["last_slot"]), slots: row["slots"], metres: row["metres"])
            }
        }
    }

    /// The stored distances of one source of `person`, per slot.
    public func activity(person: String = Person.defaultName, source: String) throws(StorageFailure) -> [Slot: Double] {
        try reading { db in
            let rows = try Row.fetchCursor(
                db, sql: "SELECT slot_start, distance_m FROM activity_source WHERE person = ? AND source = ?", arguments: [person, source])
            var result: [Slot: Double] = [:]
            while let row = try rows.next() { result[Slot(startEpochSeconds: row["slot_start"])] = row["distance_m"] }
            return result
        }
    }

    /// Deletes `person`'s rows of `source` (nil: of every source); returns how many there were.
    @discardableResult
    public func forgetActivity(person: String, source: String?) throws(StorageFailure) -> Int {
        try writing { db in
            if let source {
                try db.execute(sql: "DELETE FROM activity_source WHERE person = ? AND source = ?", arguments: [person, source])
            } else {
                try db.execute(sql: "DELETE FROM activity_source WHERE person = ?", arguments: [person])
            }
            return db.changesCount
        }
    }

    /// Hands every row of `from` to `to` when `to` has none (docs/REFERENCE.md §18); the rows moved.
    public func movePerson(from: String, to: String) throws(StorageFailure) -> Int {
        try writing { db in
            let tables = ["activity_source", "heart_rate", "resting_heart_rate", "sleep_interval", "track_position"]
            for table in tables {
                guard try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table) WHERE person = ?", arguments: [to]) == 0 else { return 0 }
            }
            var moved = 0
            for table in tables {
                try db.execute(sql: "UPDATE \(table) SET person = ? WHERE person = ?", arguments: [to, from])
                moved += db.changesCount
            }
            // Nothing handed over changes nothing: `to`'s kept places stay (this runs at every start).
            if moved > 0 {
                try Self.forgetPlaces(person: from, db)
                try Self.forgetPlaces(person: to, db)
            }
            return moved
        }
    }

    /// Replaces every stored text that echoes the key (as `echoGuard` sees it: decoded, in any
    /// encoding) by `KeyEchoGuard.withheldText`, in every text column, JSON documents string by
    /// string; then empties the WAL, so no earlier copy stays on disk. dustd runs it at start with
    /// its key, for what an older FineDust stored. Returns the number of rows changed.
    @discardableResult
    public func withholdKeyEchoes(_ echoGuard: KeyEchoGuard) throws(StoreError) -> Int {
        let changed = try write { db in try Schema.withholdKeyEchoes(in: db, echoGuard) }
        if changed > 0 {
            do {
                _ = try pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            } catch {
                throw StoreError(error, path: path)
            }
        }
        return changed
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

    /// `write`, failing in the services' vocabulary.
    func writing<T>(_ body: (Database) throws -> T) throws(StorageFailure) -> T {
        do { return try write(body) } catch { throw StorageFailure(error) }
    }

    /// `read`, failing in the services' vocabulary.
    func reading<T>(_ body: (Database) throws -> T) throws(StorageFailure) -> T {
        do { return try read(body) } catch { throw StorageFailure(error) }
    }
}

// Readings, stations and activity are implemented above; attempts, forecasts, alerts and the
// daemon's status in their own files.
extension SQLiteStore: PollStore, ActivityStore, PhysiologyStore, PositionStore, StationStore {}

/// A file's device and inode: the same path with another identity is another file.
private struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}

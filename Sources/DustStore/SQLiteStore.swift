import DustKit
import DustSQL
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
        /// Open an existing database for reading only; a missing file is `SQLiteFailure.databaseMissing`.
        case readOnly
    }

    /// Where a transaction runs.
    public enum Threading: Sendable, Hashable {
        /// On GRDB's own queues (a writer's, a reader's), the caller waiting on their completion: for
        /// callers on Swift's task pool (dustd), whose threads (two on a Raspberry Pi) must not wait out
        /// a busy timeout, an fsync or a year's read.
        case databaseQueues
        /// On the thread that asks, with no hand-over to a queue's thread and back: for a process whose
        /// asynchronous work runs on a thread of its own and never on the task pool (dustctl's
        /// `CommandRunLoop`), where the hand-over is all the queues would add (a seventh of `dustctl
        /// week`'s time: docs/PERFORMANCE.md, "The twenty-third session"). The contract tests run it on the
        /// task pool too, where it blocks a pool thread for each statement: never in dustd.
        case callersThread
    }

    /// Default time a connection waits for another process's lock before failing with `busy`.
    /// dustd's longest transaction (a 3MONTH backfill of 2,200 rows) takes well under a second.
    public static let defaultBusyTimeout: TimeInterval = 10

    /// The size, in bytes, the -wal file is cut back to after a checkpoint (SQLite's
    /// `journal_size_limit`); it is cut to 0 when the last writer closes and no checkpoint has run
    /// (after one, a stopped dustd leaves it at this size, its frames stale). docs/PERFORMANCE.md,
    /// "A week's cost and the size of history".
    public static let walSizeLimit = 4 * 1024 * 1024

    public let path: String
    /// A pool (a writer and concurrent readers) for read-write opens; one read-only connection
    /// for a reader such as `dustctl day`, which runs one query and exits.
    let pool: any DatabaseWriter
    /// Where transactions run.
    let threading: Threading
    /// Whether the store was opened to write (a failure to open a file is then judged by what writing needs).
    let writes: Bool
    /// Whether a wait for another program's lock that began at the instant given should end now (dustd's
    /// stop, for a wait already under way when it came): asked at each step of the wait.
    public let abandonWaits: @Sendable (_ waitBegan: ContinuousClock.Instant) -> Bool
    /// The device and inode of the file opened, to notice when it is deleted or replaced.
    private let identity: FileIdentity?

    /// - Parameter abandonWaits: asked while a statement waits for another program's lock (up to
    ///   `busyTimeout`), with the instant its wait began: true ends the wait at once, the statement failing as
    ///   busy. dustd passes its stop, so a write already waiting behind a `dustctl import` at SIGTERM does not
    ///   hold the stop for the 10 s systemd gives it; the records of the stop, whose waits begin after it, keep
    ///   their own deadlines.
    public init(
        path: String, mode: Mode = .readWrite, busyTimeout: TimeInterval = SQLiteStore.defaultBusyTimeout,
        threading: Threading = .databaseQueues,
        abandonWaits: @escaping @Sendable (_ waitBegan: ContinuousClock.Instant) -> Bool = { _ in false }
    ) throws(SQLiteFailure) {
        self.path = path
        self.threading = threading
        self.abandonWaits = abandonWaits
        writes = mode == .readWrite
        var configuration = Configuration()
        // The writer's (and a read-only store's) wait; a pool's readers, which WAL makes wait only in SQLite's
        // "obscure cases" (another process's recovery), keep the 10 s GRDB gives them.
        configuration.busyMode = .callback(Self.busyWait(timeout: busyTimeout, abandon: abandonWaits))
        configuration.label = "FineDust"
        try Self.refuseUnlessRegularFiles(path)
        switch mode {
        case .readOnly:
            try Self.refuseUnlessThere(path)
            configuration.readonly = true
        case .readWrite:
            try Self.createFileIfNeeded(path)
            try Self.refuseUnlessFineDust(path, busyTimeout: busyTimeout)
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
                : try Self.openPool(path, configuration: configuration, busyTimeout: busyTimeout, abandon: abandonWaits)
            switch mode {
            case .readWrite:
                // FULL: a committed batch survives power loss, not only a killed process. Set after
                // the pool is open: GRDB sets NORMAL on the writer when it turns WAL on.
                try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
                try Self.migrate(pool)
            case .readOnly:
                switch try pool.read({ db in try Schema.standing(of: db, path: path) }) {
                case .current: break
                // A reader never creates the tables: an empty file is no FineDust database to it.
                case .empty: throw SQLiteFailure.corrupt(path: path, reason: .noFineDustTables)
                // A reader never writes, so it cannot upgrade the file; dustd does on start.
                case .older: throw SQLiteFailure.cannotOpen(path: path, reason: .olderSchema)
                }
            }
        } catch {
            throw SQLiteFailure(error, path: path, writing: mode == .readWrite)
        }
        identity = FileIdentity(path: path)
    }

    /// The writer's pool. Turning a new file to WAL needs it alone for a moment, and SQLite answers
    /// "busy" at once, not after its busy timeout, when another process is creating the same file
    /// (dustd and a `dustctl import` started together): asked again until the timeout has passed.
    private static func openPool(
        _ path: String, configuration: Configuration, busyTimeout: TimeInterval,
        abandon: @Sendable (_ waitBegan: ContinuousClock.Instant) -> Bool
    ) throws -> DatabasePool {
        // Measured on the continuous clock: a wall clock set back meanwhile must not stretch it.
        let began = ContinuousClock.now
        let deadline = began.advanced(by: .milliseconds(Int64(busyTimeout * 1000)))
        while true {
            do {
                return try DatabasePool(path: path, configuration: configuration)
            } catch let error as DatabaseError
                where error.resultCode == .SQLITE_BUSY && ContinuousClock.now < deadline && !abandon(began)
            {
                usleep(50_000)
            }
        }
    }

    /// How long the `tries`-th call of a busy wait sleeps, in milliseconds, as SQLite's own
    /// (`sqliteDefaultBusyCallback`: 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, then 100 each), cut to what is
    /// left of `limit`; nil once `limit` is spent.
    static func busyStep(tries: Int, limit: Int) -> Int? {
        let steps = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]
        let waited = steps.prefix(tries).reduce(0, +) + max(0, tries - steps.count) * steps[steps.count - 1]
        let step = min(steps[min(tries, steps.count - 1)], limit - waited)
        return step > 0 ? step : nil
    }

    /// SQLite's own busy wait (`busyStep`), up to `timeout`, which also ends at the step after `abandon`
    /// says so of the instant the wait began (the first call of a wait notes it on its thread, where
    /// SQLite makes every call of one wait): at most 100 ms after dustd's stop, for a wait under way then.
    static func busyWait(
        timeout: TimeInterval, abandon: @escaping @Sendable (_ waitBegan: ContinuousClock.Instant) -> Bool
    ) -> Database.BusyCallback {
        let limit = Int(min(timeout, 86_400) * 1000)
        return { tries in
            let now = ContinuousClock.now
            let store = Thread.current.threadDictionary
            if tries == 0 { store[busyWaitBeganKey] = now }
            let began = store[busyWaitBeganKey] as? ContinuousClock.Instant ?? now
            guard !abandon(began), let step = busyStep(tries: tries, limit: limit) else { return false }
            usleep(UInt32(step) * 1000)
            return !abandon(began)
        }
    }

    /// Where a busy wait notes, on its thread, when it began.
    private static let busyWaitBeganKey = "finedust.sqlite.busyWaitBegan"

    /// Applies the migrations this version has and the file lacks. GRDB reads which are applied once,
    /// before the first: a second process opening the same file at the same moment (dustd and a
    /// `dustctl import` on an upgrade) found a migration the first had just applied, and failed on
    /// "table already exists". A failure after another process applied more is looked at again: what
    /// that process applied is then skipped. Any other failure is the file's, and thrown.
    private static func migrate(_ pool: any DatabaseWriter) throws {
        while true {
            let before = try pool.read(Schema.appliedMigrations)
            do {
                return try Schema.migrator.migrate(pool)
            } catch {
                let after = try pool.read(Schema.appliedMigrations)
                guard after.count > before.count else { throw error }
            }
        }
    }

    /// Gives back the memory the connections keep between uses: closes the reader connections (a
    /// read opens one again when it needs it) and empties the writer's page cache and statement
    /// caches. A pool never holds a read: the idle readers close at once and a reader in use when its
    /// read ends (GRDB's `releaseMemoryEventually()`), and the writer empties its caches once the work
    /// it has in progress is done, which this waits for: call it on a thread of its own, never on the
    /// task pool's (`HeapTrimService` does). GRDB's `releaseMemory()` would also have held every new read
    /// until the reads running had ended, which a keep pass's long reads turned into a stalled
    /// `/healthz` (docs/PERFORMANCE.md, "dustd serving the demo: the store's connections given back
    /// too"). A single connection (in memory, read-only) empties its caches after its work in progress.
    public func releaseMemory() {
        switch pool {
        case let pool as DatabasePool:
            pool.releaseMemoryEventually()
            // Waits for the writer's release the line above queued after its work in progress.
            pool.writeWithoutTransaction { _ in }
        case let queue as DatabaseQueue: queue.releaseMemory()
        default: break
        }
    }

    /// A database in memory, migrated, gone when the store is: the real engine for tests and for
    /// anything that needs a store but no file (GRDB's `DatabaseQueue()`).
    public init(inMemory name: String = "in memory") throws(SQLiteFailure) {
        path = ":memory: (\(name))"
        identity = nil
        threading = .databaseQueues
        writes = true
        abandonWaits = { _ in false }
        do {
            let queue = try DatabaseQueue(configuration: Self.inMemoryConfiguration)
            try Schema.migrator.migrate(queue)
            pool = queue
        } catch {
            throw SQLiteFailure(error, path: ":memory:")
        }
    }

    private static var inMemoryConfiguration: Configuration {
        var configuration = Configuration()
        configuration.label = "FineDust"
        return configuration
    }

    /// True when the file at `path` is no longer the one this store opened: deleted, or replaced by
    /// another file (a restore, a `mv`). Writes would then go to a file no one will ever read again.
    public var isReplacedOnDisk: Bool {
        FileIdentity(path: path) != identity
    }

    /// A writer asks what a reader asks (`Schema.standing`), through a read-only connection before
    /// the writer opens: opening a writable pool already writes (it switches the file to WAL, and
    /// GRDB makes sure the WAL is not empty), and migrating creates FineDust's tables. So another
    /// program's database (tables, no FineDust migration record) and a newer FineDust's are refused
    /// with not a byte written; only an empty file is made a FineDust database (docs/REFERENCE.md §8).
    /// A reader's database is there: missing is `databaseMissing`; a directory this user may not enter (not yet
    /// in dustd's group, README) is said as that, not as "there is no database".
    private static func refuseUnlessThere(_ path: String) throws(SQLiteFailure) {
        var status = stat()
        guard stat(path, &status) != 0 else { return }
        let reason = errno
        guard reason != ENOENT else { throw .databaseMissing(path: path) }
        if let problem = DatabaseAccess.problem(databasePath: path, writing: false) {
            throw .cannotOpen(path: path, reason: .noAccess(problem))
        }
        throw .cannotOpen(path: path, reason: .given(String(cString: strerror(reason))))
    }

    private static func refuseUnlessFineDust(_ path: String, busyTimeout: TimeInterval) throws(SQLiteFailure) {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(busyTimeout)
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            _ = try queue.read { db in try Schema.standing(of: db, path: path) }
            try queue.close()
        } catch {
            throw SQLiteFailure(error, path: path)
        }
    }

    /// Creates the database's directory (mode 0750) when it does not exist yet.
    public static func createDirectoryIfNeeded(forDatabase path: String) throws(SQLiteFailure) {
        let directory = FilePaths.directory(of: path)
        guard !FileManager.default.fileExists(atPath: directory) else { return }
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o750])
        } catch {
            throw .cannotOpen(path: path, reason: .cannotCreateDirectory(error.localizedDescription))
        }
    }

    /// Creates an empty database file with mode 0640 (and its directory with 0750) so SQLite never
    /// creates it with the process umask; the -wal and -shm files inherit the database file's mode.
    private static func createFileIfNeeded(_ path: String) throws(SQLiteFailure) {
        try createDirectoryIfNeeded(forDatabase: path)
        let descriptor = open(path, O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, 0o640)
        if descriptor >= 0 {
            // Made by `sudo dustctl …` in dustd's directory: dustd's, as SQLite makes its -wal and -shm.
            DatabaseAccess.giveToDirectoryOwner(descriptor, path: path)
            close(descriptor)
        } else if errno != EEXIST {
            let reason = errno
            if reason == EACCES || reason == EPERM, let problem = DatabaseAccess.problem(databasePath: path, writing: true) {
                throw .cannotOpen(path: path, reason: .noAccess(problem))
            }
            throw .cannotOpen(path: path, reason: .given(String(cString: strerror(reason))))
        }
    }

    // MARK: - The long reads, engine-specific on purpose

    /// The stored readings of `stations` for slots starting in `[from, to)`, ordered by slot, then station.
    /// PM10 and PM2.5 of `stations` over `[from, to)` by slot, then station name, each station by its
    /// index in `stations`. Each station is read along the primary key (station, slot_start), three
    /// columns a row by the indices of their names, and the rows put in slot order here by counting
    /// them per hour, instead of SQLite sorting them.
    public func dustValues(stations: [String], from: Slot, to: Slot) async throws(StorageFailure) -> [StationDust] {
        guard !stations.isEmpty, from < to else { return [] }
        return try await reading { db in
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
                    // What the shared reader (`SQLRow`) refuses, refused here too (`StoredValue`).
                    let read = StationDust(
                        slot: try StoredValue.slot(sqlite3_column_int64(row, Int32(slot)), column: "slot_start"), station: station,
                        concentration: DustPair(
                            fineDust: try Self.optionalDouble(row, pm10).flatMap { value throws(SQLDecodingError) in
                                try StoredValue.number(value, column: "pm10")
                            },
                            ultraFineDust: try Self.optionalDouble(row, pm25).flatMap { value throws(SQLDecodingError) in
                                try StoredValue.number(value, column: "pm25")
                            }))
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

    /// The key's MAC of a salt (HMAC-SHA256, dustd's: DustStore has no key and no cryptography): what
    /// `key_echo_check` keeps to know the key a look for echoes covered, without the key.
    public typealias KeyMark = @Sendable (_ salt: [UInt8]) -> [UInt8]

    /// Withholds every stored text that echoes the key (as `echoGuard` sees it: decoded, in any
    /// encoding; `Schema.withholdKeyEchoes` says how), then, when anything changed, rewrites the
    /// whole file (`VACUUM`) and empties the WAL: no copy of an echo stays on disk, not in a free
    /// page, not in the unused part of an index page. dustd runs it at start with its key, for what
    /// an older FineDust stored. Returns the texts withheld plus the rows deleted.
    ///
    /// With `mark`, the key's MAC, the whole look runs once per key (`Schema.withholdKeyEchoes(in:_:unlessLookedFor:)`
    /// says why that is enough), `beforeWholeLook` called first with the rows of `measurement`; nil when it
    /// had already run for this key.
    @discardableResult
    public func withholdKeyEchoes(
        _ echoGuard: KeyEchoGuard, unlessLookedFor mark: KeyMark? = nil, beforeWholeLook: (_ rows: Int) -> Void = { _ in }
    ) throws(SQLiteFailure) -> Int? {
        let changed = try synchronousWrite { db -> Int? in
            guard let mark else { return try Schema.withholdKeyEchoes(in: db, echoGuard) }
            return try Schema.withholdKeyEchoes(in: db, echoGuard, unlessLookedFor: mark, beforeWholeLook: beforeWholeLook)
        }
        guard let changed else { return nil }
        if changed > 0 {
            do {
                try pool.vacuum()
                _ = try pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            } catch {
                throw SQLiteFailure(error, path: path)
            }
        }
        return changed
    }

    /// `PRAGMA integrity_check`: `["ok"]` for a sound database.
    public func integrityCheck() throws(SQLiteFailure) -> [String] {
        try synchronousRead { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }

    // MARK: - Transactions

    /// Start-up's work (the key's echoes withheld) and the integrity check, before any task awaits the store.
    func synchronousWrite<T>(_ body: (Database) throws -> T) throws(SQLiteFailure) -> T {
        do {
            return try pool.write(body)
        } catch {
            throw SQLiteFailure(error, path: path)
        }
    }

    func synchronousRead<T>(_ body: (Database) throws -> T) throws(SQLiteFailure) -> T {
        do {
            return try pool.read(body)
        } catch {
            throw SQLiteFailure(error, path: path)
        }
    }
}

// Every port is the shared statements' (DustSQL), but for the long reads above and in
// PositionStorage.swift and PlaceStorage.swift.

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

import DustSQL
import DustServices
import Foundation
import GRDB
import GRDBSQLite

// SQLite as an engine of the shared statements (DustSQL). In dustd (and most tests) a transaction runs on
// GRDB's own queues (`asyncWrite` on the writer's, `asyncRead` on a reader's), never on a thread of
// Swift's task pool: a write waiting up to the busy timeout, an fsync, or a year's read leaves the pool's
// threads (two on a Raspberry Pi) to the web and the other services. The caller waits on a continuation
// that GRDB's completion resumes, not on GRDB's `async` methods, which give a transaction up when the
// calling task is cancelled: a stopping dustd still records the request it stopped, as every write did
// before. dustctl, whose work runs on its own main thread, runs them there (`Threading.callersThread`).
// (These queues were set back once while the test runs stalled; the stall's cause was PostgreSQL's,
// docs/RELIABILITY.md.)

extension SQLiteStore: SQLDatabase {
    public var dialect: SQLDialect { .sqlite }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) throws -> T) async throws(StorageFailure) -> T {
        try await reading { db in try body(SQLiteSession(db: db)) }
    }

    public func writeTransaction<T: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) throws -> T
    ) async throws(StorageFailure) -> T {
        try await writing { db in try body(SQLiteSession(db: db)) }
    }

    public func eraseRemovedRows() async throws(StorageFailure) {
        let pool = pool
        let erase: @Sendable (Database) throws -> Void = { db in
            try db.execute(sql: "VACUUM")
            try db.checkpoint(.truncate)
        }
        try await perform(
            now: { try pool.writeWithoutTransaction(erase) },
            queued: { done in pool.asyncWriteWithoutTransaction { db in done(Result { try erase(db) }) } })
    }

    /// `VACUUM INTO` on a reader, outside a transaction (SQLite refuses a VACUUM inside one): a copy as of
    /// one snapshot, its free pages left out, whatever dustd writes meanwhile; works on a read-only open.
    /// (A copy of the file with `cp` while dustd runs holds none of what is still in the -wal.)
    public func backUp(into path: String) async throws(StorageFailure) {
        let pool = pool
        let copy: @Sendable (Database) throws -> Void = { db in try db.execute(sql: "VACUUM INTO ?", arguments: [path]) }
        try await perform(
            now: { try pool.unsafeRead(copy) },
            queued: { done in pool.asyncUnsafeRead { result in done(Result { try copy(result.get()) }) } })
    }

    /// One transaction on the writer's connection; finished even when the caller is cancelled meanwhile.
    func writing<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StorageFailure) -> T {
        let pool = pool
        return try await perform(
            now: { try pool.write(body) },
            queued: { done in pool.asyncWrite(body) { _, result in done(result) } })
    }

    /// A read of SQLite's C API or of the shared statements, in one snapshot, on a reader's connection.
    func reading<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StorageFailure) -> T {
        let pool = pool
        return try await perform(
            now: { try pool.read(body) },
            queued: { done in pool.asyncRead { database in done(Result { try body(database.get()) }) } })
    }

    /// Runs a piece of database work (a transaction, or a VACUUM outside one) where `threading` says: `now`
    /// on this thread, or `queued` on GRDB's queue with the caller waiting for the result it hands to its
    /// completion. Throws its error as a `StorageFailure`.
    private func perform<T: Sendable>(
        now: () throws -> T, queued: (@escaping @Sendable (Result<T, any Error>) -> Void) -> Void
    ) async throws(StorageFailure) -> T {
        do {
            switch threading {
            case .callersThread:
                return try now()
            case .databaseQueues:
                return try await withCheckedThrowingContinuation { continuation in queued { continuation.resume(with: $0) } }
            }
        } catch {
            throw failure(error)
        }
    }

    /// Any error of a transaction in the services' vocabulary.
    func failure(_ error: any Error) -> StorageFailure {
        if let decoding = error as? SQLDecodingError { return StorageFailure(decoding, database: path) }
        return StorageFailure(SQLiteFailure(error, path: path, writing: writes))
    }
}

/// One GRDB connection inside one of its transactions. Statements are prepared once per connection
/// (GRDB's statement cache), so a loop of the same insert is stepped, not parsed, a row.
struct SQLiteSession: SQLSession {
    let db: Database

    var dialect: SQLDialect { .sqlite }

    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        try prepared(sql).execute(arguments)
    }

    /// Each row's values read straight from SQLite's C API (`SQLiteStore.eachRow`) into the shared
    /// `SQLValue`s: GRDB's `Row` and its `DatabaseValue`s in between cost more than SQLite's own
    /// stepping on a read of tens of thousands of rows (a week of two indoor monitors' minutes).
    func forEachRow(_ sql: String, _ arguments: [SQLValue], _ row: (SQLRow) throws -> Void) throws {
        try prepared(sql).forEachRow(arguments, row)
    }

    /// The value of column `index` of the row `raw` stands on, as SQLite stored it.
    static func value(_ raw: SQLiteStatement, _ index: Int32) -> SQLValue {
        switch sqlite3_column_type(raw, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(raw, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(raw, index))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(raw, index) else { return .text("") }
            let length = Int(sqlite3_column_bytes(raw, index))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self))
        case SQLITE_BLOB:
            let length = Int(sqlite3_column_bytes(raw, index))
            guard length > 0, let blob = sqlite3_column_blob(raw, index) else { return .blob([]) }
            return .blob([UInt8](UnsafeRawBufferPointer(start: blob, count: length)))
        default: return .null(.text)
        }
    }

    func insertRows<Rows: Sequence<[SQLValue]>>(into table: String, columns: [SQLColumn], rows: Rows, conflict: String) throws {
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        let insert = try prepared(
            "INSERT INTO \(table) (\(columns.map(\.name).joined(separator: ", "))) VALUES (\(placeholders)) \(conflict)")
        for row in rows { try insert.execute(row) }
    }

    func prepare(_ sql: String) throws -> any SQLStatement { try prepared(sql) }

    func prepared(_ sql: String) throws -> SQLitePreparedStatement {
        try SQLitePreparedStatement(statement: db.cachedStatement(sql: sql), db: db)
    }
}

// Every port: the shared statements' (DustSQL), and the long reads in SQLite's own words.
extension SQLiteStore: SQLStore {}

/// A statement of GRDB's cache, bound with SQLite's C API and stepped a row (`SQLiteStore.eachRow`):
/// an ingest's upsert or an import's insert costs SQLite's own work a row, not a lookup of its text,
/// GRDB's argument arrays, and its column names read again.
struct SQLitePreparedStatement: SQLStatement {
    let statement: Statement
    let db: Database
    let columns: SQLColumns
    private let parameterCount: Int32

    init(statement: Statement, db: Database) {
        self.statement = statement
        self.db = db
        columns = SQLColumns(statement.columnNames)
        parameterCount = sqlite3_bind_parameter_count(statement.sqliteStatement)
    }

    @discardableResult
    func execute(_ arguments: [SQLValue]) throws -> Int {
        try bind(arguments)
        try SQLiteStore.eachRow(of: statement, in: db) { _ in }
        return db.changesCount
    }

    func forEachRow(_ arguments: [SQLValue], _ row: (SQLRow) throws -> Void) throws {
        try bind(arguments)
        let count = Int32(columns.names.count)
        try SQLiteStore.eachRow(of: statement, in: db) { raw in
            var values: [SQLValue] = []
            values.reserveCapacity(Int(count))
            for index in 0..<count { values.append(SQLiteSession.value(raw, index)) }
            try row(SQLRow(columns: columns, values: values))
        }
    }

    /// Binds every parameter, numbered as `arguments` is ordered; text and bytes are copied by SQLite.
    private func bind(_ arguments: [SQLValue]) throws {
        let raw = statement.sqliteStatement
        guard arguments.count == Int(parameterCount) else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "wrong number of statement arguments: \(arguments.count) for \(parameterCount)", sql: statement.sql)
        }
        sqlite3_reset(raw)
        for (offset, value) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .integer(let integer): code = sqlite3_bind_int64(raw, index, integer)
            case .real(let real): code = sqlite3_bind_double(raw, index, real)
            case .text(var text):
                code = text.withUTF8 { bytes in
                    bytes.isEmpty
                        ? sqlite3_bind_text(raw, index, "", 0, sqliteTransient)
                        : sqlite3_bind_text64(raw, index, bytes.baseAddress, UInt64(bytes.count), sqliteTransient, UInt8(SQLITE_UTF8))
                }
            case .blob(let bytes):
                code = bytes.withUnsafeBytes { buffer in
                    buffer.isEmpty
                        ? sqlite3_bind_zeroblob(raw, index, 0)
                        : sqlite3_bind_blob64(raw, index, buffer.baseAddress, UInt64(buffer.count), sqliteTransient)
                }
            case .null: code = sqlite3_bind_null(raw, index)
            }
            guard code == SQLITE_OK else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                    sql: statement.sql)
            }
        }
    }
}

/// SQLite's `SQLITE_TRANSIENT`: copy the bound bytes before the call returns (a macro Swift does not import).
private let sqliteTransient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

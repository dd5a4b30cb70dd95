import DustSQL
import DustServices
import Foundation
import GRDB
import GRDBSQLite

// SQLite as an engine of the shared statements (DustSQL). A transaction runs on GRDB's own queues
// (`asyncWrite` on the writer's, `asyncRead` on a reader's), never on a thread of Swift's task pool: a
// write waiting up to the busy timeout, an fsync, or a year's read leaves the pool's threads (two on a
// Raspberry Pi) to the web and the other services. The caller waits on a continuation that GRDB's
// completion resumes, not on GRDB's `async` methods, which give a transaction up when the calling task
// is cancelled: a stopping dustd still records the request it stopped, as every write did before.
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

    /// One transaction on the writer's queue; finished even when the caller is cancelled meanwhile.
    func writing<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StorageFailure) -> T {
        let pool = pool
        do {
            return try await withCheckedThrowingContinuation { continuation in
                pool.asyncWrite(body) { _, result in continuation.resume(with: result) }
            }
        } catch {
            throw failure(error)
        }
    }

    /// A read of SQLite's C API or of the shared statements, in one snapshot, on a reader's queue.
    func reading<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StorageFailure) -> T {
        let pool = pool
        do {
            return try await withCheckedThrowingContinuation { continuation in
                pool.asyncRead { database in continuation.resume(with: Result { try body(database.get()) }) }
            }
        } catch {
            throw failure(error)
        }
    }

    /// Any error of a transaction in the services' vocabulary.
    func failure(_ error: any Error) -> StorageFailure {
        if let decoding = error as? SQLDecodingError { return StorageFailure(decoding, database: path) }
        return StorageFailure(SQLiteFailure(error, path: path))
    }
}

/// One GRDB connection inside one of its transactions. Statements are prepared once per connection
/// (GRDB's statement cache), so a loop of the same insert is stepped, not parsed, a row.
struct SQLiteSession: SQLSession {
    let db: Database

    var dialect: SQLDialect { .sqlite }

    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        let statement = try db.cachedStatement(sql: sql)
        try statement.execute(arguments: Self.arguments(arguments))
        return db.changesCount
    }

    /// Each row's values read straight from SQLite's C API (`SQLiteStore.eachRow`) into the shared
    /// `SQLValue`s: GRDB's `Row` and its `DatabaseValue`s in between cost more than SQLite's own
    /// stepping on a read of tens of thousands of rows (a week of two indoor monitors' minutes).
    func forEachRow(_ sql: String, _ arguments: [SQLValue], _ row: (SQLRow) throws -> Void) throws {
        let statement = try db.cachedStatement(sql: sql)
        try statement.setArguments(Self.arguments(arguments))
        let columns = SQLColumns(statement.columnNames)
        let count = Int32(statement.columnCount)
        try SQLiteStore.eachRow(of: statement, in: db) { raw in
            var values: [SQLValue] = []
            values.reserveCapacity(Int(count))
            for index in 0..<count { values.append(Self.value(raw, index)) }
            try row(SQLRow(columns: columns, values: values))
        }
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
        let statement = try db.cachedStatement(
            sql: "INSERT INTO \(table) (\(columns.map(\.name).joined(separator: ", "))) VALUES (\(placeholders)) \(conflict)")
        for row in rows { try statement.execute(arguments: Self.arguments(row)) }
    }

    static func arguments(_ values: [SQLValue]) -> StatementArguments {
        StatementArguments(values.map(databaseValue))
    }

    static func databaseValue(_ value: SQLValue) -> DatabaseValue {
        switch value {
        case .integer(let integer): integer.databaseValue
        case .real(let real): real.databaseValue
        case .text(let text): text.databaseValue
        case .blob(let bytes): Data(bytes).databaseValue
        case .null: .null
        }
    }

    static func value(_ value: DatabaseValue) -> SQLValue {
        switch value.storage {
        case .null: .null(.text)
        case .int64(let integer): .integer(integer)
        case .double(let real): .real(real)
        case .string(let text): .text(text)
        case .blob(let data): .blob([UInt8](data))
        }
    }
}

// Every port: the shared statements' (DustSQL), and the long reads in SQLite's own words.
extension SQLiteStore: SQLStore {}

import DustSQL
import DustServices
import Foundation
import GRDB

// SQLite as an engine of the shared statements (DustSQL). A transaction runs inline, on the calling
// task's thread, as every SQLite write did before the statements were shared. On GRDB's own queues
// (`asyncWrite`/`asyncRead`) two of three full local test runs stalled the way docs/RELIABILITY.md
// records; inline, one of four did: the stall is not shown to come from the queues, but until its
// cause is known SQLite stays where it was (issue 35, item 4). Inline, a transaction also finishes
// what it began when the calling task is cancelled: a stopping dustd still records the request it stopped.

extension SQLiteStore: SQLDatabase {
    public var dialect: SQLDialect { .sqlite }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) throws -> T) async throws(StorageFailure) -> T {
        try reading { db in try body(SQLiteSession(db: db)) }
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) throws -> T) async throws(StorageFailure) -> T {
        try writing { db in try body(SQLiteSession(db: db)) }
    }

    /// One transaction, inline.
    func writing<T>(_ body: (Database) throws -> T) throws(StorageFailure) -> T {
        do { return try pool.write(body) } catch { throw failure(error) }
    }

    /// A read of SQLite's C API or of the shared statements, in one snapshot.
    func reading<T>(_ body: (Database) throws -> T) throws(StorageFailure) -> T {
        do { return try pool.read(body) } catch { throw failure(error) }
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

    func forEachRow(_ sql: String, _ arguments: [SQLValue], _ row: (SQLRow) throws -> Void) throws {
        let statement = try db.cachedStatement(sql: sql)
        let columns = SQLColumns(statement.columnNames)
        let cursor = try Row.fetchCursor(statement, arguments: Self.arguments(arguments))
        while let next = try cursor.next() {
            try row(SQLRow(columns: columns, values: next.databaseValues.map(Self.value)))
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

// Attempts, the daemon's status, advisories, alerts and forecasts are the shared statements' (DustSQL).
extension SQLiteStore: AttemptStore, DaemonStatusStore, AdvisoryStore, AlertStore, ForecastStore {}

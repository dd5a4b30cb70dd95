import DustSQL
import DustServices
import Foundation
import GRDB

// SQLite as an engine of the shared statements (DustSQL): a transaction runs on GRDB's own queues
// (`asyncWrite`, `asyncRead`), so a write waiting up to the busy timeout for another process's lock
// holds none of the task pool's threads (two on a two-core home server). Not GRDB's `async` methods:
// they give a transaction up when the calling task is cancelled, and a stopping dustd must still
// record the request it stopped, as every write here did before it was awaited.

extension SQLiteStore: SQLDatabase {
    public var dialect: SQLDialect { .sqlite }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) throws -> T) async throws(StorageFailure) -> T {
        try await reading { db in try body(SQLiteSession(db: db)) }
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) throws -> T) async throws(StorageFailure) -> T {
        let result: Result<T, any Error> = await withCheckedContinuation { continuation in
            pool.asyncWrite(
                { db in try body(SQLiteSession(db: db)) }, completion: { _, result in continuation.resume(returning: result) })
        }
        do { return try result.get() } catch { throw failure(error) }
    }

    /// A read on GRDB's queue, of SQLite's C API or of the shared statements.
    func reading<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StorageFailure) -> T {
        let result: Result<T, any Error> = await withCheckedContinuation { continuation in
            pool.asyncRead { db in continuation.resume(returning: Result { try body(try db.get()) }) }
        }
        do { return try result.get() } catch { throw failure(error) }
    }

    /// Any error of a transaction in the services' vocabulary.
    func failure(_ error: any Error) -> StorageFailure {
        if let decoding = error as? SQLDecodingError { return StorageFailure(decoding, database: path) }
        return StorageFailure(StoreError(error, path: path))
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
extension SQLiteStore: AttemptStore, DaemonStatusStore, AdvisoryStore, AlertStore, ForecastStore {
    /// A time as every `*_at` column holds it: whole seconds since 1970.
    static func seconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }
}

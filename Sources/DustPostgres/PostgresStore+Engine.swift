import DustSQL
import DustServices
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

// PostgreSQL as an engine of the shared statements (DustSQL): a transaction holds one pooled
// connection, and its synchronous body runs on a thread of the store's own pool (`NIOThreadPool`),
// waiting there on each statement's answer, so no thread of Swift's task pool ever waits on the server.

extension PostgresStore: SQLDatabase {
    public var dialect: SQLDialect { .postgres }

    /// One snapshot (REPEATABLE READ, read only): a read of several statements never sees half of a
    /// concurrent import.
    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) throws -> T) async throws(StorageFailure) -> T {
        try await transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
    }

    /// Nothing: PostgreSQL's dead rows are not served to anyone and its autovacuum reclaims them
    /// (docs/REFERENCE.md §20); a `VACUUM` here would wait on every other dustd's transactions.
    public func eraseRemovedRows() async throws(StorageFailure) {}

    /// PostgreSQL is backed up with its own tools; `dustctl backup` says so before it opens a store.
    public func backUp(into path: String) async throws(StorageFailure) {
        throw StorageFailure(kind: .unusable, description: "A PostgreSQL database is backed up with pg_dump (docs/REFERENCE.md §15).")
    }

    /// One transaction: all of it is committed, or none.
    public func writeTransaction<T: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) throws -> T
    ) async throws(StorageFailure) -> T {
        try await transaction("BEGIN", body)
    }

    /// `body` between `begin` and COMMIT on one pooled connection, all of it on a thread of the
    /// store's pool. Only a transaction that never began runs again after a cut connection: one cut
    /// at its COMMIT may have committed.
    private func transaction<T: Sendable>(
        _ begin: String, _ body: @escaping @Sendable (any SQLSession) throws -> T
    )
        async throws(StorageFailure) -> T
    {
        try await withRetry(afterAnyCut: false) {
            try await leasing { session in
                do {
                    _ = try session.execute(begin, [])
                } catch {
                    throw BeginFailed(underlying: error)
                }
                do {
                    let result = try body(session)
                    _ = try session.execute("COMMIT", [])
                    return result
                } catch {
                    _ = try? session.execute("ROLLBACK", [])
                    throw error
                }
            }
        }
    }
}

// Every port: the shared statements' (DustSQL), and the long reads in PostgreSQL's own words.
extension PostgresStore: SQLStore {}

/// One pooled connection inside one transaction, used from a thread of the store's pool: each
/// statement is sent and its answer waited for there.
struct PostgresSession: SQLSession {
    let connection: PostgresConnection
    /// Where each statement waits for its answer, within its deadline.
    let waits: StatementWaits
    let logger: Logger
    /// Each statement's text numbered once a transaction: a loop runs the same upsert a row.
    private let rendered = RenderedStatements()

    /// Rows one `insertRows` statement carries as arrays.
    static let insertChunk = 10_000

    var dialect: SQLDialect { .postgres }

    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        let result = try run(query(sql, arguments))
        return result.metadata.rows ?? 0
    }

    /// PostgreSQL's statements are this session's texts, each rendered once a transaction (`rendered`).
    func prepare(_ sql: String) throws -> any SQLStatement { SessionStatement(session: self, sql: sql) }

    func forEachRow(_ sql: String, _ arguments: [SQLValue], _ row: (SQLRow) throws -> Void) throws {
        let result = try run(query(sql, arguments))
        var columns: SQLColumns?
        for postgresRow in result.rows {
            let names = columns ?? SQLColumns(postgresRow.map(\.columnName))
            columns = names
            try row(SQLRow(columns: names, values: try postgresRow.map(Self.value)))
        }
    }

    /// Each column's values as one array, unnested by the server: one statement a chunk, not a row.
    /// A chunk holding a NULL is inserted row by row (no import writes one today).
    func insertRows<Rows: Sequence<[SQLValue]>>(into table: String, columns: [SQLColumn], rows: Rows, conflict: String) throws {
        let names = columns.map(\.name).joined(separator: ", ")
        let arrays = columns.enumerated().map { index, column in "$\(index + 1)::\(Self.typeName(column.type))[]" }
        let bulk = "INSERT INTO \(table) (\(names)) SELECT * FROM unnest(\(arrays.joined(separator: ", "))) \(conflict)"
        let single = "INSERT INTO \(table) (\(names)) VALUES (\(columns.indices.map { _ in "?" }.joined(separator: ", "))) \(conflict)"
        var chunk: [[SQLValue]] = []
        chunk.reserveCapacity(Self.insertChunk)
        func flush() throws {
            defer { chunk.removeAll(keepingCapacity: true) }
            guard !chunk.isEmpty else { return }
            chunk = Self.lastOfEachKey(chunk, key: columns.indices.filter { columns[$0].isKey })
            if chunk.contains(where: { $0.contains { if case .null = $0 { true } else { false } } }) {
                for row in chunk { _ = try execute(single, row) }
                return
            }
            var bindings = PostgresBindings(capacity: columns.count)
            for (index, column) in columns.enumerated() {
                switch column.type {
                case .integer:
                    bindings.append(chunk.map { row -> Int64 in if case .integer(let value) = row[index] { value } else { 0 } })
                case .real:
                    bindings.append(
                        chunk.map { row -> Double in
                            switch row[index] {
                            case .real(let value): value
                            case .integer(let value): Double(value)
                            default: 0
                            }
                        })
                case .text: bindings.append(chunk.map { row -> String in if case .text(let value) = row[index] { value } else { "" } })
                case .blob:
                    bindings.append(
                        chunk.map { row -> ByteBuffer in
                            if case .blob(let value) = row[index] { ByteBuffer(bytes: value) } else { ByteBuffer() }
                        })
                }
            }
            _ = try run(PostgresQuery(unsafeSQL: bulk, binds: bindings))
        }
        for row in rows {
            chunk.append(row)
            if chunk.count == Self.insertChunk { try flush() }
        }
        try flush()
    }

    /// `rows` with one row per key: the last one's values, at the first one's place.
    static func lastOfEachKey(_ rows: [[SQLValue]], key: [Int]) -> [[SQLValue]] {
        guard !key.isEmpty else { return rows }
        var index: [[SQLValue]: Int] = [:]
        var result: [[SQLValue]] = []
        result.reserveCapacity(rows.count)
        for row in rows {
            let rowKey = key.map { row[$0] }
            if let at = index[rowKey] {
                result[at] = row
            } else {
                index[rowKey] = result.count
                result.append(row)
            }
        }
        return result
    }

    /// Sends `query` and waits for its answer, within its deadline (`StatementWaits`).
    func run(_ query: PostgresQuery) throws -> PostgresQueryResult {
        try waits.run(query, logger: logger)
    }

    private func query(_ sql: String, _ arguments: [SQLValue]) -> PostgresQuery {
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument {
            case .integer(let value): bindings.append(value)
            case .real(let value): bindings.append(value)
            case .text(let value): bindings.append(value)
            case .blob(let value): bindings.append(ByteBuffer(bytes: value))
            case .null(.integer): bindings.append(Int64?.none)
            case .null(.real): bindings.append(Double?.none)
            case .null(.text): bindings.append(String?.none)
            case .null(.blob): bindings.append(ByteBuffer?.none)
            }
        }
        return PostgresQuery(unsafeSQL: rendered.text(of: sql), binds: bindings)
    }

    /// The statements of one transaction in PostgreSQL's numbering, used on the one thread running it.
    private final class RenderedStatements {
        private var texts: [String: String] = [:]

        func text(of sql: String) -> String {
            if let text = texts[sql] { return text }
            let text = SQLDialect.postgres.render(sql)
            texts[sql] = text
            return text
        }
    }

    private static func typeName(_ type: SQLType) -> String {
        switch type {
        case .integer: "bigint"
        case .real: "float8"
        case .text: "text"
        case .blob: "bytea"
        }
    }

    /// A cell as the shared statements read it: bigint, double precision, text and bytea, and what
    /// an aggregate returns (numeric, integer, boolean).
    private static func value(_ cell: PostgresCell) throws -> SQLValue {
        guard cell.bytes != nil else { return .null(.text) }
        switch cell.dataType {
        case .int8, .int4, .int2: return .integer(try cell.decode(Int64.self))
        case .float8, .float4: return .real(try cell.decode(Double.self))
        case .numeric:
            let text = try cell.decode(String.self)
            if let integer = Int64(text) { return .integer(integer) }
            return .real(Double(text) ?? .nan)
        case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
        case .bytea:
            var buffer = try cell.decode(ByteBuffer.self)
            return .blob(buffer.readBytes(length: buffer.readableBytes) ?? [])
        default: return .text(try cell.decode(String.self))
        }
    }
}

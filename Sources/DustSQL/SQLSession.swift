/// One connection inside one transaction, as the shared statements use it: statements written once
/// with `?` placeholders (`?NNN` for a numbered one), run synchronously on a thread the engine
/// chose — never one of Swift's task pool (docs/ARCHITECTURE.md, "Storage written once").
public protocol SQLSession {
    /// Which engine runs the statements, for the few that differ (`SQLDialect`).
    var dialect: SQLDialect { get }
    /// Runs `sql` with `arguments`; returns how many rows it inserted, changed or deleted.
    @discardableResult
    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int
    /// Runs `sql` with `arguments` and hands each row it returns to `row`, in order.
    func forEachRow(_ sql: String, _ arguments: [SQLValue], _ row: (SQLRow) throws -> Void) throws
    /// Inserts `rows` (the values of `columns`, one array a row) into `table`, ending each insert with
    /// `conflict` (an `ON CONFLICT …` clause, or empty). PostgreSQL sends them as arrays in a few
    /// statements, SQLite steps one prepared statement a row: an import's millions of samples are
    /// one statement a row on neither.
    /// `rows` is read once, a row at a time, so an import never holds its rows twice.
    func insertRows<Rows: Sequence<[SQLValue]>>(into table: String, columns: [SQLColumn], rows: Rows, conflict: String) throws
    /// `sql` made ready once for many runs inside this transaction: a loop of the same statement (an
    /// ingest's 2,200 upserts) binds and steps it a row instead of finding it by its text again.
    func prepare(_ sql: String) throws -> any SQLStatement
}

/// A statement of one transaction, run once for each set of arguments (`SQLSession.prepare`).
public protocol SQLStatement {
    /// Runs the statement with `arguments`; returns how many rows it inserted, changed or deleted.
    @discardableResult
    func execute(_ arguments: [SQLValue]) throws -> Int
    /// Runs the statement with `arguments` and hands each row it returns to `row`, in order.
    func forEachRow(_ arguments: [SQLValue], _ row: (SQLRow) throws -> Void) throws
}

extension SQLStatement {
    /// The first row the statement returns with `arguments`, if any.
    public func row(_ arguments: [SQLValue]) throws -> SQLRow? {
        var first: SQLRow?
        try forEachRow(arguments) { row in if first == nil { first = row } }
        return first
    }
}

/// A statement that is its text, run through its session each time: for an engine that keeps its
/// own prepared statements (PostgreSQL's session renders each text once a transaction).
public struct SessionStatement<Session: SQLSession>: SQLStatement {
    let session: Session
    let sql: String

    public init(session: Session, sql: String) {
        self.session = session
        self.sql = sql
    }

    public func execute(_ arguments: [SQLValue]) throws -> Int { try session.execute(sql, arguments) }

    public func forEachRow(_ arguments: [SQLValue], _ row: (SQLRow) throws -> Void) throws {
        try session.forEachRow(sql, arguments, row)
    }
}

/// A column of `SQLSession.insertRows`: its name, its type (PostgreSQL's arrays are typed), and
/// whether it is part of the conflict's key (of rows with the same key, the last one's values are
/// written, as SQLite's row-by-row upsert leaves them; one PostgreSQL statement may not touch a row twice).
public struct SQLColumn: Sendable {
    public var name: String
    public var type: SQLType
    public var isKey: Bool

    public init(_ name: String, _ type: SQLType, key: Bool = false) {
        self.name = name
        self.type = type
        self.isKey = key
    }
}

extension SQLSession {
    /// `execute` with the arguments listed.
    @discardableResult
    public func execute(_ sql: String, _ arguments: any SQLBindable...) throws -> Int {
        try execute(sql, arguments.map(\.sqlValue))
    }

    /// Every row of `sql`.
    public func rows(_ sql: String, _ arguments: any SQLBindable...) throws -> [SQLRow] {
        try rows(sql, arguments.map(\.sqlValue))
    }

    public func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] {
        var rows: [SQLRow] = []
        try forEachRow(sql, arguments) { rows.append($0) }
        return rows
    }

    /// The first row of `sql`, if any.
    public func row(_ sql: String, _ arguments: any SQLBindable...) throws -> SQLRow? {
        try row(sql, arguments.map(\.sqlValue))
    }

    public func row(_ sql: String, _ arguments: [SQLValue]) throws -> SQLRow? {
        var first: SQLRow?
        try forEachRow(sql, arguments) { row in if first == nil { first = row } }
        return first
    }
}

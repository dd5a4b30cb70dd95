import DustServices

/// A database engine the shared statements run on (SQLite through GRDB, PostgreSQL through
/// PostgresNIO): a transaction is a synchronous body given a `SQLSession`, which the engine runs
/// off Swift's task pool (GRDB's own queues; a thread of the PostgreSQL store's own) while the
/// caller awaits it. Every port of DustServices/Storage is implemented once, over this protocol,
/// in this target's `SQLDatabase+…` files.
public protocol SQLDatabase: Sendable {
    var dialect: SQLDialect { get }
    /// Runs `body` in one read that sees one snapshot of the database.
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) throws -> T) async throws(StorageFailure) -> T
    /// Runs `body` in one transaction: all of it is committed, or none. The engine's part of a
    /// write: every write goes through `write`, which raises the data generation in the same transaction.
    func writeTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) throws -> T) async throws(StorageFailure) -> T
    /// After rows were removed for good (a person forgotten): no copy of them is left where the engine
    /// keeps freed bytes. SQLite leaves them in free pages and in the unused space of pages its
    /// b-trees rebuilt long before, readable with a hex editor: it rewrites the file and empties the
    /// WAL. PostgreSQL's dead rows are its autovacuum's.
    func eraseRemovedRows() async throws(StorageFailure)
}

extension SQLDatabase {
    /// Runs `body` in one transaction: all of it is committed, or none, the data generation raised
    /// with it (`DataGenerationStore`): the one way the shared statements write.
    public func write<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) throws -> T) async throws(StorageFailure) -> T {
        try await writeTransaction { session in
            let result = try body(session)
            // Last, so that on PostgreSQL the row's lock is held from here to the commit only.
            try session.execute("UPDATE data_generation SET generation = generation + 1")
            return result
        }
    }

    public func dataGeneration() async throws(StorageFailure) -> Int64 {
        try await read { session in try session.row("SELECT generation FROM data_generation")?.int64("generation") ?? 0 }
    }
}

/// An engine that is the whole FineDust database: every port of DustServices/Storage, most of them
/// from this target's statements, the few long reads from the engine's own code. An engine conforms
/// to this once, so a new port (added to `FineDustStore`) needs no change in any engine's target.
public protocol SQLStore: SQLDatabase, FineDustStore {}

extension StorageFailure {
    /// A row the shared statements could not read: the database is damaged or not FineDust's.
    public init(_ error: SQLDecodingError, database: String) {
        self.init(
            kind: .unusable, description: "The database \(database) cannot be read: \(error.description).",
            detail: Detail(database: database, reason: .unreadableRow(error.description)))
    }
}

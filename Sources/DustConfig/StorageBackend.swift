/// Where FineDust keeps its data (docs/REFERENCE.md §20), decided once from the settings: SQLite at
/// `storage.path`, or PostgreSQL at `storage.url`. Everything that differs between the two is
/// decided by switching on this value, in the one place that opens a store (the `DustStorage`
/// target); past it, code sees the store protocols and `StorageFailure` only.
public enum StorageBackend: Sendable, Hashable, CustomStringConvertible {
    /// An SQLite database file.
    case sqlite(path: String)
    /// A PostgreSQL database; the password comes from the `postgres-password` credential or
    /// `passwordFile` when the store is opened, never from the settings' text.
    case postgres(PostgresLocation, passwordFile: String?)

    /// The database as messages and status name it: the file's path, or `USER@HOST:PORT/DB`.
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let location, _): location.description
        }
    }

    /// Whether each read is a round trip to a server (PostgreSQL) rather than a read of a local file:
    /// what the web saves by reusing a data generation for a moment (docs/REFERENCE.md §13).
    public var readsAreRoundTrips: Bool {
        switch self {
        case .sqlite: false
        case .postgres: true
        }
    }
}

extension FineDustSettings {
    /// The database these settings name.
    public var storage: StorageBackend {
        guard let postgres else { return .sqlite(path: storagePath) }
        return .postgres(postgres, passwordFile: storagePasswordFile)
    }
}

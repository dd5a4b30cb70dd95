import DustConfig
import DustPostgres
import DustServices
import DustStore
import Logging
import ServiceLifecycle

/// Whether a command only reads the database or also writes it.
public enum StorageAccess: Sendable, Hashable {
    /// Open an existing database, read-only: a missing SQLite file is an error, nothing is created;
    /// PostgreSQL's schema is checked, not migrated.
    case read
    /// Create the database when needed and migrate it.
    case write
}

/// A store opened from a `StorageBackend`, with what must run while it is used.
public struct OpenedStorage: Sendable {
    /// The store, seen through its protocols only.
    public let store: any FineDustStore
    /// PostgreSQL's pool of connections: a service that runs for as long as the store is used, in
    /// dustd's `ServiceGroup` or around a command by `serving(_:)`; nil for SQLite, which has no
    /// work of its own in the background.
    public let connections: (any Service)?
    /// Who of several dustd on this database polls: PostgreSQL's advisory lock (docs/REFERENCE.md
    /// §20); nil for SQLite, whose one dustd always polls.
    public let pollerLease: (any PollerLease)?
    /// Texts no log line may show (the PostgreSQL password), for the daemon's redactor.
    public let secrets: [String]

    /// Runs `body` with the store while its connections run beside it in this scope, then stops them.
    public func serving<T>(_ body: (any FineDustStore) async throws -> T) async throws -> T {
        guard let connections else { return try await body(store) }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await connections.run() }
            defer { group.cancelAll() }
            return try await body(store)
        }
    }
}

extension StorageBackend {
    /// Opens the database: the one place FineDust's executables turn settings into a store.
    /// SQLite: the file at `path`, created and migrated for `.write`. PostgreSQL: the password from
    /// the `postgres-password` credential in `environment` or the password file (`warning` is told
    /// when a credential was passed but cannot be read), then the server, its schema checked
    /// (`.read`) or migrated (`.write`). Throws `ConfigurationError` for a password that cannot be
    /// loaded and `StorageFailure` for a database that cannot be opened.
    public func open(
        _ access: StorageAccess, environment: [String: String], logger: Logger, warning: (String) -> Void = { _ in }
    ) async throws -> OpenedStorage {
        switch self {
        case .sqlite(let path):
            let store: SQLiteStore
            do {
                store = try SQLiteStore(path: path, mode: access == .read ? .readOnly : .readWrite)
            } catch {
                throw StorageFailure(error)
            }
            return OpenedStorage(store: store, connections: nil, pollerLease: nil, secrets: [])
        case .postgres(let location, let passwordFile):
            let loaded = try PostgresPasswordLoader(environment: environment).load(passwordFile: passwordFile)
            if let text = loaded.warning { warning(text) }
            let password = loaded.password?.revealedForSending ?? ""
            let store = try await PostgresStore.open(
                location, password: password, mode: access == .read ? .readOnly : .readWrite, logger: logger)
            return OpenedStorage(
                store: store, connections: store, pollerLease: PostgresPollerLease(location: location, password: password, logger: logger),
                secrets: password.isEmpty ? [] : [password])
        }
    }

    /// Opens the database, runs `body` with the store and its connections, and closes it: a command's
    /// one store.
    public func withStore<T>(
        _ access: StorageAccess, environment: [String: String], logger: Logger, warning: (String) -> Void = { _ in },
        _ body: (any FineDustStore) async throws -> T
    ) async throws -> T {
        try await open(access, environment: environment, logger: logger, warning: warning).serving(body)
    }
}

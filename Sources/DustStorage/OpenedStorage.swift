import DustConfig
import DustKit
import DustPostgres
import DustServices
import DustStore
import Foundation
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

/// Why a database could not be opened: a setting FineDust refuses (PostgreSQL's password), or the
/// database itself.
public enum StorageOpeningError: Error, Sendable, Hashable, CustomStringConvertible {
    case configuration(ConfigurationError)
    case storage(StorageFailure)

    public var description: String {
        switch self {
        case .configuration(let error): error.description
        case .storage(let failure): failure.description
        }
    }

    /// How a process that could not open its database exits: 78 for a setting, the failure's otherwise.
    public var exitStatus: ExitStatus {
        switch self {
        case .configuration: .configuration
        case .storage(let failure): ExitStatus(failure)
        }
    }
}

extension StorageBackend {
    /// Opens the database: the one place FineDust's executables turn settings into a store.
    /// SQLite: the file at `path`, created and migrated for `.write`. PostgreSQL: the password from
    /// the `postgres-password` credential in `environment` or the password file (`warning` is told
    /// when a credential was passed but cannot be read), then the server, its schema checked
    /// (`.read`) or migrated (`.write`). `sqliteThreading`: where SQLite's transactions run —
    /// GRDB's queues for callers on the task pool (dustd), the caller's own thread for dustctl.
    /// `abandonWaits`: SQLite's waits for another program's lock end when it says so (dustd's stop).
    public func open(
        _ access: StorageAccess, environment: [String: String], logger: Logger, warning: (String) -> Void = { _ in },
        sqliteThreading: SQLiteStore.Threading = .databaseQueues,
        abandonWaits: @escaping @Sendable (_ waitBegan: ContinuousClock.Instant) -> Bool = { _ in false }
    ) async throws(StorageOpeningError) -> OpenedStorage {
        switch self {
        case .sqlite(let path):
            let store: SQLiteStore
            do {
                store = try SQLiteStore(
                    path: path, mode: access == .read ? .readOnly : .readWrite, threading: sqliteThreading, abandonWaits: abandonWaits)
            } catch {
                throw .storage(StorageFailure(error))
            }
            return OpenedStorage(store: store, connections: nil, pollerLease: nil, secrets: [])
        case .postgres(let location, let passwordFile):
            let loaded: PostgresPasswordLoader.Loaded
            do {
                loaded = try PostgresPasswordLoader(environment: environment).load(passwordFile: passwordFile)
            } catch {
                throw .configuration(error)
            }
            if let text = loaded.warning { warning(text) }
            let password = loaded.password?.revealedForSending ?? ""
            let store: PostgresStore
            do {
                store = try await PostgresStore.open(
                    location, password: password, mode: access == .read ? .readOnly : .readWrite, logger: logger)
            } catch {
                throw .storage(error)
            }
            return OpenedStorage(
                store: store, connections: store, pollerLease: PostgresPollerLease(location: location, password: password, logger: logger),
                secrets: password.isEmpty ? [] : [password])
        }
    }

    /// Opens the database, runs `body` with the store and its connections, and closes it: a command's
    /// one store. Throws a `StorageOpeningError` when it cannot be opened, and what `body` throws.
    public func withStore<T>(
        _ access: StorageAccess, environment: [String: String], logger: Logger, warning: (String) -> Void = { _ in },
        _ body: (any FineDustStore) async throws -> T
    ) async throws -> T {
        try await open(access, environment: environment, logger: logger, warning: warning).serving(body)
    }
}

extension StorageBackend {
    /// Whether the demo (`dustctl demo`, `dustd --demo`) may replay into the SQLite file at `path`: no
    /// file, an empty one, or a database the demo made or that holds nothing (`demoMayWrite`), read
    /// without writing or migrating it. A file that cannot be opened to read is not the demo's.
    public static func demoMayReplay(intoSQLite path: String, logger: Logger) async -> Bool {
        var status = stat()
        guard stat(path, &status) == 0, status.st_size > 0 else { return true }
        guard let opened = try? await StorageBackend.sqlite(path: path).open(.read, environment: [:], logger: logger) else { return false }
        return (try? await opened.serving { store in try await store.demoMayWrite() }) ?? false
    }
}

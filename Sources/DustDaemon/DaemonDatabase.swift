import DustConfig
import DustServices
import DustStore
import Foundation
import Logging
import Synchronization

/// The database dustd writes, shared by its services; a database file is reopened when the file
/// under it changes.
///
/// A database deleted or replaced under a running daemon (a restore, an `rm`, a `mv` of a backup)
/// would otherwise keep receiving writes in a file no one can read any more, and everything
/// stored would vanish at the next stop while the journal said "Poll done". A store that is not a
/// file (`ReopenableStore` not adopted) is used as it is.
public final class DaemonDatabase: Sendable {
    private let store: Mutex<any FineDustStore>
    /// Held by the one caller reopening the file (`current()`).
    private let reopening = Mutex(())
    private let lock: DatabaseLock?
    private let logger: Logger

    /// - Parameter lock: the daemon's lock, moved to the new file when the database is reopened.
    public init(_ store: any FineDustStore, lock: DatabaseLock? = nil, logger: Logger) {
        self.store = Mutex(store)
        self.lock = lock
        self.logger = logger
    }

    /// A logger that drops everything, for the one-shot commands whose output is their report.
    public static let quietLogger = Logger(label: "dustd.one-shot") { _ in SwiftLogNoOpLogHandler() }

    /// The store to use now: the one open, or a new one when its file was deleted or replaced.
    /// Throws when the file must be reopened and cannot be.
    ///
    /// One caller reopens: the services a poll wakes together (alerts, advisories, keeping places)
    /// all find the file replaced at once, and a second reopening would ask for the `flock` the first
    /// has just moved to the new file, which a second descriptor of this same process cannot take:
    /// it would wait the lock's ten seconds on a thread of the task pool and then blame "another
    /// dustd". The others wait for the one reopening and use its store.
    public func current() throws(StorageFailure) -> any FineDustStore {
        let open = store.withLock { $0 }
        guard let file = open as? any ReopenableStore, file.isReplacedOnDisk else { return open }
        return try reopening.withLock { _ throws(StorageFailure) -> any FineDustStore in
            let latest = store.withLock { $0 }
            guard let file = latest as? any ReopenableStore, file.isReplacedOnDisk else { return latest }
            logger.error(
                "The database \(file.path) was deleted or replaced while dustd was running; reopening it. Hours written since then went to the old file and are fetched again by the backfill."
            )
            let reopened = try file.reopened()
            store.withLock { $0 = reopened }
            do {
                try lock?.followReplacedDatabase()
            } catch {
                logger.error("Could not lock the reopened database \(file.path): \(error)")
            }
            return reopened
        }
    }

    /// The store open now, without checking the file (for writes that must not fail on a reopen).
    public var opened: any FineDustStore { store.withLock { $0 } }
}

/// A store kept in one file, which someone can delete or replace under the running daemon.
public protocol ReopenableStore: FineDustStore {
    /// The file's path, for the journal.
    var path: String { get }
    /// True when the file at `path` is no longer the one open.
    var isReplacedOnDisk: Bool { get }
    /// The store of the file now at `path`, created and migrated when needed.
    func reopened() throws(StorageFailure) -> any FineDustStore
}

extension SQLiteStore: ReopenableStore {
    public func reopened() throws(StorageFailure) -> any FineDustStore {
        do { return try SQLiteStore(path: path, abandonWaits: abandonWaits) } catch { throw StorageFailure(error) }
    }
}

/// A store whose connections keep memory between uses that it can give back (SQLite's idle readers
/// and page caches); a PostgreSQL store's memory is the server's.
public protocol MemoryReleasingStore: FineDustStore {
    /// Gives the memory back, what a connection in use keeps as soon as its work ends; may wait for
    /// the writer's work in progress, so it runs on a thread of its own.
    func releaseMemory()
}

extension SQLiteStore: MemoryReleasingStore {}

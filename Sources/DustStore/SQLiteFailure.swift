import DustKit
import DustServices
import Foundation
import GRDB

/// What can go wrong with an SQLite database, each with a sentence saying what to do: SQLite's own
/// vocabulary, as `PostgresFailure` is PostgreSQL's. Past DustStore it is a `StorageFailure`.
public enum SQLiteFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// No database at the path (and the store was asked not to create one).
    case databaseMissing(path: String)
    /// The file or its directory cannot be opened or created.
    case cannotOpen(path: String, reason: StorageFailure.Reason)
    /// The disk (or the file system holding the database) is full.
    case diskFull(path: String)
    /// The file system holding the database is mounted read-only.
    case readOnlyFileSystem(path: String)
    /// SQLite answered BUSY or LOCKED: another process holds the database's lock. Whether the busy
    /// timeout was waited out first is not said: SQLite answers BUSY at once where waiting could
    /// deadlock (a journal mode switched, a read turned into a write), so the sentence claims no wait.
    case busy(path: String)
    /// The file is not a SQLite database, or it is damaged.
    case corrupt(path: String, reason: StorageFailure.Reason)
    /// The database was written by a newer FineDust.
    case schemaTooNew(path: String)
    /// `file` (the database at `path` or its `-wal` or `-shm`) is not a regular file
    /// (`SQLiteStore.refuseUnlessRegularFiles`).
    case notARegularFile(path: String, file: String, type: StorageFailure.FileType)
    /// Any other SQLite or I/O failure.
    case io(path: String, reason: String)

    public var description: String {
        switch self {
        case .databaseMissing(let path):
            "There is no database at \(path); create one with `dustctl import FILE…` or let dustd run once, or pass --db PATH."
        case .cannotOpen(let path, .noSharedMemory(let directory)):
            "Cannot read the database \(path): \(StorageFailure.Reason.noSharedMemory(directory: directory))."
        case .cannotOpen(let path, .readOnlyWithoutSharedMemory):
            "Cannot read the database \(path): \(StorageFailure.Reason.readOnlyWithoutSharedMemory)."
        case .cannotOpen(let path, .noAccess(let problem)):
            "Cannot open the database \(path): \(problem)."
        case .cannotOpen(let path, let reason):
            "Cannot open the database \(path) (\(reason)); check that the directory exists and that this user may read and write it."
        case .diskFull(let path):
            "The disk holding \(path) is full; nothing was written and stored data is intact. Free some space and try again."
        case .readOnlyFileSystem(let path):
            "The file system holding \(path) is read-only here: the kernel leaves an SD card so after write errors (look at dmesg, then "
                + "remount it read-write or move the database to a good disk), and dustd's unit lets it write only under /var/lib/dustd "
                + "(another storage.path needs ReadWritePaths= in the unit). Nothing was written; stored data can still be read."
        case .busy(let path):
            "The database \(path) is locked by another process (SQLite says it is busy); try again."
        case .corrupt(let path, let reason):
            "The file \(path) is not a usable FineDust database (\(reason)); restore it from a backup or move it aside."
        case .schemaTooNew(let path):
            "The database \(path) was written by a newer FineDust; upgrade dustd and dustctl."
        case .notARegularFile(_, let file, let type):
            "\(file) is \(type), not a regular file: a database and its -wal and -shm must be regular files (or not exist yet); remove it, or name another database path."
        case .io(let path, let reason):
            "Reading or writing the database \(path) failed (\(reason))."
        }
    }

    /// Maps a GRDB or SQLite error to a `SQLiteFailure` for the database at `path`, opened to write
    /// (`writing`) or only to read.
    init(_ error: any Error, path: String, writing: Bool = true) {
        if let error = error as? SQLiteFailure {
            self = error
            return
        }
        guard let database = error as? DatabaseError else {
            self = .io(path: path, reason: String(describing: error))
            return
        }
        let reason = database.message ?? "SQLite error \(database.resultCode.rawValue)"
        // SQLite says "disk I/O error" or "attempt to write a readonly database" of a file system the kernel
        // remounted read-only (what an SD card does after write errors): the one fix worth naming.
        if [.SQLITE_IOERR, .SQLITE_READONLY, .SQLITE_CANTOPEN].contains(database.resultCode.primaryResultCode),
            Self.onReadOnlyFileSystem(path)
        {
            // Without its -shm there, not even a read can be made (the sentence of a plain read-only file
            // system promised that stored data could still be read).
            // (A read-only file system is a directory no one may write: `sharedMemoryMissing` says it.)
            self =
                Self.sharedMemoryMissing(path) != nil
                ? .cannotOpen(path: path, reason: .readOnlyWithoutSharedMemory) : .readOnlyFileSystem(path: path)
            return
        }
        // A group member reading dustd's database (README: usermod -aG dustd) while dustd is stopped: SQLite
        // needs the -shm file, which only its owner may create in the directory. Its message ("attempt to
        // write a readonly database") asked this user to be given write access it should not have.
        if [.SQLITE_READONLY, .SQLITE_CANTOPEN].contains(database.resultCode.primaryResultCode),
            let directory = Self.sharedMemoryMissing(path)
        {
            self = .cannotOpen(path: path, reason: .noSharedMemory(directory: directory))
            return
        }
        // A file this user may not read or write (one `sudo dustctl` made, a group not joined yet): which one,
        // whose, and the fix, not SQLite's "unable to open database file" of whichever file it was.
        if [.SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH].contains(database.resultCode.primaryResultCode),
            let problem = DatabaseAccess.problem(databasePath: path, writing: writing)
        {
            self = .cannotOpen(path: path, reason: .noAccess(problem))
            return
        }
        switch database.resultCode.primaryResultCode {
        case .SQLITE_FULL: self = .diskFull(path: path)
        case .SQLITE_BUSY, .SQLITE_LOCKED: self = .busy(path: path)
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: self = .corrupt(path: path, reason: .given(reason))
        case .SQLITE_ERROR where Self.namesMissingSchemaObject(reason):
            self = .corrupt(path: path, reason: .tablesAltered(reason))
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY, .SQLITE_AUTH: self = .cannotOpen(path: path, reason: .given(reason))
        default: self = .io(path: path, reason: reason)
        }
    }

    /// The directory of `path` when the database is there and readable, its `-shm` is not, and this
    /// user (its effective ids, as the open was judged) may not create files in the directory; nil otherwise.
    static func sharedMemoryMissing(_ path: String) -> String? {
        let directory = DatabaseAccess.directory(of: path)
        guard DatabaseAccess.allowed(path, R_OK), !DatabaseAccess.allowed(path + "-shm", F_OK), !DatabaseAccess.allowed(directory, W_OK)
        else { return nil }
        return directory
    }

    /// Whether the file system holding `path` (or its directory, for a file not made yet) is mounted read-only.
    static func onReadOnlyFileSystem(_ path: String) -> Bool {
        var status = statvfs()
        guard statvfs(path, &status) == 0 || statvfs(FilePaths.directory(of: path), &status) == 0 else { return false }
        return status.f_flag & UInt(ST_RDONLY) != 0
    }

    /// Whether SQLite's message says a statement named a table, column or index the database lacks.
    /// FineDust's statements are tested against the schema its migrations make, so on a database that
    /// opened (every migration recorded) this is a schema changed by hand or by another program: a
    /// damaged database (65), not a failed read (74).
    static func namesMissingSchemaObject(_ message: String) -> Bool {
        message.hasPrefix("no such table:") || message.hasPrefix("no such column:") || message.hasPrefix("no such index:")
            || (message.hasPrefix("table ") && message.contains(" has no column named "))
    }
}

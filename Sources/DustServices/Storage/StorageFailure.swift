import DustKit

/// Why the database could not keep what a poll fetched, in the words an operator needs.
///
/// A storage failure is never reported as a network failure: a full disk says so, and what to do.
public struct StorageFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of storage problem it is.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The disk or file system holding the database is full.
        case diskFull
        /// The database or its directory cannot be opened or written (permissions, read-only mount).
        case unwritable
        /// Another process holds the database's lock (SQLite's BUSY or LOCKED, PostgreSQL's lock
        /// timeout): a passing condition, exit 75.
        case locked
        /// The database was written by a newer FineDust.
        case schemaTooNew
        /// The file was deleted or replaced under the running daemon.
        case replaced
        /// There is no database at the path.
        case missing
        /// The file is damaged or not a FineDust database.
        case unusable
        /// Any other I/O failure.
        case io
        /// The database server cannot be reached, or the connection to it was lost (docs/REFERENCE.md §20).
        case unreachable
        /// The database server refused the login or the statement: a wrong password, or a role
        /// without the privilege (a read-only role used for writing; docs/REFERENCE.md §20).
        case denied
    }

    /// What the database it names and why, for a caller that says the failure in words of its own
    /// (dustctl, in Korean): set by the engines whose sentences FineDust writes itself (SQLite's),
    /// nil when only the sentence is known (a PostgreSQL server's words).
    public struct Detail: Sendable, Hashable {
        /// The database the sentence names: SQLite's file.
        public var database: String
        /// Why, when the sentence says.
        public var reason: Reason?

        public init(database: String, reason: Reason? = nil) {
            self.database = database
            self.reason = reason
        }
    }

    /// Why a database could not be used: FineDust's own reasons, or the words SQLite or the system gave.
    public enum Reason: Sendable, Hashable, CustomStringConvertible {
        /// The file is an SQLite database without FineDust's tables.
        case noFineDustTables
        /// An older FineDust wrote it, and a reader cannot upgrade it.
        case olderSchema
        /// The database's directory could not be created (the system's words).
        case cannotCreateDirectory(String)
        /// A stored row is not what FineDust writes (what is wrong with it).
        case unreadableRow(String)
        /// The file system holding the database is mounted read-only.
        case readOnlyFileSystem
        /// Every migration is recorded, but a table, column or index they made is gone (the engine's words):
        /// the schema was changed by hand or by another program.
        case tablesAltered(String)
        /// The database, or its `-wal` or `-shm` (the path given), is a FIFO, a directory, a device,
        /// a socket or a symbolic link where SQLite needs a regular file (or nothing).
        case notARegularFile(path: String, type: FileType)
        /// A database in WAL mode without its `-shm` file, in a directory this user may not write:
        /// SQLite cannot read it until the database's owner (dustd, running) makes the file.
        case noSharedMemory(directory: String)
        /// A database in WAL mode without its `-shm` file, on a file system mounted read-only: SQLite
        /// can neither make the file nor read the database without it (a database copied alone to a
        /// stick, or one `dustctl demo` made).
        case readOnlyWithoutSharedMemory
        /// A file of the database, or its directory, this user may not use as the command needs: which,
        /// whose, and the fix (`AccessProblem`).
        case noAccess(AccessProblem)
        /// SQLite's or the system's words, as they were given.
        case given(String)

        /// The reason in English, as the failure's sentence says it.
        public var description: String {
            switch self {
            case .noFineDustTables: "it has no FineDust tables"
            case .olderSchema:
                "an older FineDust wrote it and this version reads it only once it is upgraded; restart dustd (systemctl restart dustd), which upgrades it, then try again"
            case .cannotCreateDirectory(let reason): "cannot create its directory: \(reason)"
            case .unreadableRow(let problem): problem
            case .tablesAltered(let words): "its tables are not the ones its migrations made: \(words)"
            case .readOnlyFileSystem: "the file system holding it is mounted read-only"
            case .notARegularFile(let path, let type): "\(path) is \(type), not a regular file"
            case .noSharedMemory(let directory):
                "it has no -shm file beside it, which SQLite needs to read it and which only the database's owner may create in "
                    + "\(directory): dustd makes it while it runs; start dustd (systemctl start dustd), or read as its user "
                    + "(sudo -u dustd dustctl …)"
            case .readOnlyWithoutSharedMemory:
                "the file system holding it is read-only, and it has no -shm file beside it, which SQLite needs to read it "
                    + "and cannot make there: copy the database (and its -wal, if there is one) to a writable disk with cp and "
                    + "read the copy, or remount the file system read-write. Nothing was written"
            case .noAccess(let problem): problem.description
            case .given(let words): words
            }
        }
    }

    /// What a path holds when it is not a regular file, as `lstat` says.
    public enum FileType: String, Sendable, Hashable, CustomStringConvertible {
        case fifo, directory, characterDevice, blockDevice, socket, symbolicLink, unknown

        /// The type with its article, as a sentence says it: "a FIFO".
        public var description: String {
            switch self {
            case .fifo: "a FIFO"
            case .directory: "a directory"
            case .characterDevice: "a character device"
            case .blockDevice: "a block device"
            case .socket: "a socket"
            case .symbolicLink: "a symbolic link"
            case .unknown: "a file of an unknown type"
            }
        }
    }

    public var kind: Kind
    /// One sentence: what happened and what to do.
    public var description: String
    /// The sentence's parts, where the engine knows them.
    public var detail: Detail?

    public init(kind: Kind, description: String, detail: Detail? = nil) {
        self.kind = kind
        self.description = description
        self.detail = detail
    }
}

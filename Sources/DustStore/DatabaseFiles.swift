import DustServices
import Foundation

extension SQLiteStore {
    /// Refuses a database whose file, `-wal` or `-shm` is there but is not a regular file: a FIFO, a
    /// directory, a device, a socket, or (the `-wal` and `-shm`) a symbolic link. Nothing there is
    /// fine. Each is looked at with `lstat`, never opened: SQLite's own open of a FIFO blocks until
    /// a writer comes, which may be never, and of a directory or a device fails as "disk I/O error".
    ///
    /// The one check both programs make, with one sentence (`SQLiteFailure.notARegularFile`):
    /// `SQLiteStore.init` before anything opens the file, and dustd's `DatabaseLock` before it takes
    /// its locks (docs/REFERENCE.md §6, "Exit statuses"). A database path that is a symbolic link
    /// (a reader's link to dustd's database) is judged by the file it names, beside which SQLite
    /// keeps the `-wal` and `-shm`.
    public static func refuseUnlessRegularFiles(_ path: String) throws(SQLiteFailure) {
        var status = stat()
        var database = path
        if lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK, let resolved = realpath(path, nil) {
            database = String(cString: resolved)
            free(resolved)
        }
        for file in [database, database + "-wal", database + "-shm"] {
            // Absent, or not to be looked at (a directory this user may not search): SQLite says what is wrong.
            guard lstat(file, &status) == 0 else { continue }
            let type = StorageFailure.FileType(mode: status.st_mode)
            guard let type else { continue }
            throw .notARegularFile(path: path, file: file, type: type)
        }
    }
}

extension StorageFailure.FileType {
    /// The type `mode` (`st_mode`) names; nil for a regular file.
    init?(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFIFO: self = .fifo
        case S_IFDIR: self = .directory
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        case S_IFSOCK: self = .socket
        case S_IFLNK: self = .symbolicLink
        default: self = .unknown
        }
    }
}

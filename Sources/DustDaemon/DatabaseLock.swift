import DustStore
import Foundation

/// One dustd per database: an advisory lock on `<database>.lock`, held for the life of the process.
///
/// Two daemons on one database would both poll and spend the daily quota twice. The lock is a
/// POSIX record lock on a file of its own (SQLite's locks on the database file itself must not be
/// touched: closing any descriptor of that file would drop them), so the kernel releases it when
/// the process ends, however it ends, and `F_GETLK` names the process holding it.
public final class DatabaseLock: Sendable {
    /// The lock file.
    public let path: String
    private let descriptor: Int32

    /// Why the lock could not be taken.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// Another process holds it.
        case held(databasePath: String, pid: Int32)
        /// The lock file cannot be opened or locked.
        case unavailable(lockPath: String, reason: String)

        public var description: String {
            switch self {
            case let .held(databasePath, pid):
                "Another dustd (PID \(pid)) is already polling into \(databasePath); stop it first, or give this one another storage.path."
            case let .unavailable(lockPath, reason):
                "Cannot take the lock \(lockPath) (\(reason)); check that dustd may write the database's directory."
            }
        }
    }

    /// Takes the lock for the database at `databasePath`, or says who holds it.
    public init(databasePath: String) throws(Failure) {
        path = databasePath + ".lock"
        do {
            try SQLiteStore.createDirectoryIfNeeded(forDatabase: databasePath)
        } catch {
            throw .unavailable(lockPath: path, reason: error.description)
        }
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else { throw .unavailable(lockPath: path, reason: String(cString: strerror(errno))) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        if fcntl(descriptor, F_SETLK, &lock) != 0 {
            let reason = errno
            var holder = flock()
            holder.l_type = Int16(F_WRLCK)
            holder.l_whence = Int16(SEEK_SET)
            let pid = fcntl(descriptor, F_GETLK, &holder) == 0 && holder.l_type != Int16(F_UNLCK) ? holder.l_pid : 0
            close(descriptor)
            if reason == EAGAIN || reason == EACCES, pid > 0 { throw .held(databasePath: databasePath, pid: pid) }
            throw .unavailable(lockPath: path, reason: String(cString: strerror(reason)))
        }
        // The PID in the file is for people; the lock is what counts.
        let text = "\(getpid())\n"
        _ = ftruncate(descriptor, 0)
        _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }
}

import DustKit
import DustServices
import Foundation

/// Who may use an SQLite database's files, looked at rather than guessed from SQLite's words
/// (docs/REFERENCE.md §15, "Who may use the database"), and the files a process run as root makes
/// there given to the directory's owner.
public enum DatabaseAccess {
    /// The first thing this process may not do with the database at `path` — enter its directory, read
    /// the database, its `-wal` or `-shm`, or (`writing`) write them or create one — with what fixes it;
    /// nil when nothing is in its way. A symlinked path is judged where it leads, where SQLite keeps the
    /// `-wal` and `-shm`; access is judged for the effective user, as the kernel judges the open.
    public static func problem(databasePath given: String, writing: Bool) -> AccessProblem? {
        let path = resolved(given)
        let directory = directory(of: path)
        var directoryStatus = stat()
        guard stat(directory, &directoryStatus) == 0 else { return nil }
        if !allowed(directory, X_OK) {
            let fix: AccessProblem.Fix =
                directoryStatus.st_mode & S_IXGRP != 0 && !UnixAccount.isMember(of: directoryStatus.st_gid)
                ? .joinGroup(UnixAccount.name(ofGroup: directoryStatus.st_gid)) : .askOwner
            return AccessProblem(path: directory, need: .enter, status: directoryStatus, fix: fix)
        }
        let files = [path, path + "-wal", path + "-shm"].compactMap { file -> (String, stat)? in
            var status = stat()
            return stat(file, &status) == 0 ? (file, status) : nil
        }
        // A file of another user than the directory's, in a directory that is this user's: what `sudo
        // dustctl` leaves where dustd keeps its database. Given back, every file of the database at once.
        func misplaced(_ status: stat) -> Bool { status.st_uid != geteuid() && directoryStatus.st_uid == geteuid() }
        let giveBack = AccessProblem.Fix.giveBack(
            owner: UnixAccount.name(ofUser: geteuid()), group: UnixAccount.name(ofGroup: directoryStatus.st_gid),
            files: files.map { FilePaths.shellQuoted($0.0) }.joined(separator: " "))
        for (file, status) in files where !allowed(file, R_OK) {
            return AccessProblem(
                path: file, need: .read, status: status, fix: writing && misplaced(status) ? giveBack : .toRead(file, status))
        }
        guard writing else { return nil }
        for (file, status) in files where !allowed(file, W_OK) {
            return AccessProblem(
                path: file, need: .write, status: status, fix: misplaced(status) ? giveBack : .runAsOwner(sudoUser(status.st_uid)))
        }
        if !allowed(directory, W_OK) {
            return AccessProblem(path: directory, need: .write, status: directoryStatus, fix: .runAsOwner(sudoUser(directoryStatus.st_uid)))
        }
        return nil
    }

    /// Gives a file of root's, opened by this process as root, to the owner and group of its directory when
    /// they are another user's: so `sudo dustctl import` into dustd's directory, or `sudo dustd --once`,
    /// leaves a database (or lock file) dustd can still open, as SQLite itself does with the `-wal` and
    /// `-shm` it creates as root. Only a regular file of root's with one name, in a directory no one else may
    /// write: never another user's file, one with a second name elsewhere (a hard link to a file of the
    /// system's), or one in a shared directory (whose owner is not the database's).
    public static func giveToDirectoryOwner(_ descriptor: Int32, path: String) {
        guard geteuid() == 0 else { return }
        var directory = stat()
        var file = stat()
        guard stat(self.directory(of: path), &directory) == 0, directory.st_uid != 0,
            directory.st_mode & (S_IWGRP | S_IWOTH) == 0, fstat(descriptor, &file) == 0,
            file.st_mode & S_IFMT == S_IFREG, file.st_uid == 0, file.st_nlink == 1
        else { return }
        _ = fchown(descriptor, directory.st_uid, directory.st_gid)
    }

    /// The directory holding `path`, the working directory for a bare name: the one place that says it, for
    /// the lock, the store's messages and these.
    public static func directory(of path: String) -> String {
        let directory = FilePaths.directory(of: path)
        return directory == "." ? FileManager.default.currentDirectoryPath : directory
    }

    /// `path` with its symlinks resolved when they can be (not when a directory on the way may not be entered).
    private static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }

    /// Whether the effective user and groups may (the kernel's judgement of an open, not `access(2)`'s of the real ids).
    static func allowed(_ path: String, _ mode: Int32) -> Bool {
        faccessat(AT_FDCWD, path, mode, AT_EACCESS) == 0
    }

    /// The user `sudo -u` takes: a name, or `#uid` (quoted) when the system has none.
    private static func sudoUser(_ uid: uid_t) -> String {
        let name = UnixAccount.name(ofUser: uid)
        return name == String(uid) ? "'#\(uid)'" : name
    }
}

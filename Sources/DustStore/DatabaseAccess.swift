import DustKit
import DustServices
import Foundation

/// Who may use an SQLite database's files, looked at rather than guessed from SQLite's words
/// (docs/REFERENCE.md §15, "Who may use the database"), and the files a process run as root makes
/// there given to the directory's owner.
public enum DatabaseAccess {
    /// The first thing this process may not do with the database at `path` — enter its directory, read
    /// the database, its `-wal` or `-shm`, or (`writing`) write them or create one — with what fixes it;
    /// nil when nothing is in its way.
    public static func problem(databasePath path: String, writing: Bool) -> AccessProblem? {
        let directory = directoryPath(of: path)
        var directoryStatus = stat()
        guard stat(directory, &directoryStatus) == 0 else { return nil }
        let user = name(ofUser: geteuid())
        if access(directory, X_OK) != 0 {
            let fix: AccessProblem.Fix =
                directoryStatus.st_mode & S_IXGRP != 0 && !isMember(of: directoryStatus.st_gid)
                ? .joinGroup(name(ofGroup: directoryStatus.st_gid)) : .askOwner
            return problem(directory, .enter, directoryStatus, user: user, fix: fix)
        }
        let files = [path, path + "-wal", path + "-shm"].compactMap { file -> (String, stat)? in
            var status = stat()
            return stat(file, &status) == 0 ? (file, status) : nil
        }
        // A file of another user than the directory's, in a directory that is this user's: what `sudo
        // dustctl` leaves where dustd keeps its database. Given back, every file of the database at once.
        func misplaced(_ status: stat) -> Bool { status.st_uid != geteuid() && directoryStatus.st_uid == geteuid() }
        let giveBack = AccessProblem.Fix.giveBack(
            owner: user, group: name(ofGroup: directoryStatus.st_gid), files: FilePaths.shellQuoted(path) + "*")
        for (file, status) in files where access(file, R_OK) != 0 {
            let fix: AccessProblem.Fix =
                if writing, misplaced(status) {
                    giveBack
                } else if status.st_mode & S_IRGRP != 0, !isMember(of: status.st_gid) {
                    .joinGroup(name(ofGroup: status.st_gid))
                } else if status.st_mode & S_IRGRP == 0, isMember(of: status.st_gid) {
                    .letGroupRead(FilePaths.shellQuoted(file))
                } else {
                    .askOwner
                }
            return problem(file, .read, status, user: user, fix: fix)
        }
        guard writing else { return nil }
        for (file, status) in files where access(file, W_OK) != 0 {
            return problem(file, .write, status, user: user, fix: misplaced(status) ? giveBack : .runAsOwner(name(ofUser: status.st_uid)))
        }
        if access(directory, W_OK) != 0 {
            return problem(directory, .write, directoryStatus, user: user, fix: .runAsOwner(name(ofUser: directoryStatus.st_uid)))
        }
        return nil
    }

    /// Gives a file this process just created, as root, to the owner and group of its directory when
    /// they are another user's: so `sudo dustctl import` into dustd's directory, or `sudo dustd --once`,
    /// leaves a database (or lock file) dustd can still open, as SQLite itself does with the `-wal` and
    /// `-shm` it creates as root. Does nothing for any other user, or in a directory of root's.
    /// Only a regular file of root's with one name is given: never a file of another user, nor one with a
    /// second name elsewhere (a hard link to a file of the system's).
    public static func giveToDirectoryOwner(_ descriptor: Int32, path: String) {
        guard geteuid() == 0 else { return }
        var directory = stat()
        var file = stat()
        guard stat(directoryPath(of: path), &directory) == 0, directory.st_uid != 0, fstat(descriptor, &file) == 0,
            file.st_mode & S_IFMT == S_IFREG, file.st_uid == 0, file.st_nlink == 1
        else { return }
        _ = fchown(descriptor, directory.st_uid, directory.st_gid)
    }

    private static func problem(
        _ path: String, _ need: AccessProblem.Need, _ status: stat, user: String, fix: AccessProblem.Fix
    ) -> AccessProblem {
        AccessProblem(
            path: path, need: need, user: user, owner: name(ofUser: status.st_uid), group: name(ofGroup: status.st_gid),
            mode: "0" + String(status.st_mode & 0o777, radix: 8), fix: fix)
    }

    private static func directoryPath(of path: String) -> String {
        let directory = FilePaths.directory(of: path)
        return directory.isEmpty ? "." : directory
    }

    private static func isMember(of group: gid_t) -> Bool { UnixAccount.isMember(of: group) }
    private static func name(ofUser uid: uid_t) -> String { UnixAccount.name(ofUser: uid) }
    private static func name(ofGroup gid: gid_t) -> String { UnixAccount.name(ofGroup: gid) }
}

import DustServices
import DustStorage
import Foundation

/// The files dustctl opens for its user, treated as sshd treats the files it trusts
/// (docs/REFERENCE.md §15, "Files the way sshd treats them"): in a directory others may write to
/// (`/tmp`, sticky or not), a name can be planted in advance — a symbolic or a hard link to another
/// database, or a file another user owns and can read back — and writing through it would put the
/// household's data where a stranger reads it, or into another database.
///
/// - A database dustctl writes (`demo`, `import`, `activity import`, any write with `--db`), and its
///   `-wal` and `-shm` beside it, is never a symbolic link, never a file with a second hard link,
///   and never a file another user owns in a directory others may write to; a new one is created
///   exclusively (`O_CREAT | O_EXCL | O_NOFOLLOW`, mode 0640), never by following a name. (SQLite
///   creates the `-wal` and `-shm` itself once it opens the database: checked before, not after.)
/// - A database dustctl only reads may be a link of the user's own (a link to dustd's database is
///   how many read it), but neither it nor the file it names is another user's in such a directory.
/// - `export --output` (OutputFile) refuses the same as a database written.
enum FileTrust {
    /// Checks `path` before dustctl opens it as a database for `access`.
    static func checkDatabase(_ path: String, for access: StorageAccess) throws(CommandFailure) {
        switch access {
        case .write:
            for file in [path, path + "-wal", path + "-shm"] { try checkWritten(file, role: "database") }
            try create(path)
        case .read:
            try checkRead(path)
        }
    }

    /// Refuses a file dustctl would write (or replace) at `path` when it is a symbolic link, has a
    /// second hard link, or belongs to another user in a directory others may write to. Nothing
    /// there is fine.
    static func checkWritten(_ path: String, role: String) throws(CommandFailure) {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            if errno == ENOENT { return }
            throw CommandFailure(.cannotCreate, "Cannot open the \(role) \(path): \(systemErrorText(errno)).")
        }
        if status.st_mode & S_IFMT == S_IFLNK {
            throw CommandFailure(
                .cannotCreate,
                "\(path) is a symbolic link; dustctl writes a \(role) only to the file itself, never through a link "
                    + "(one in a shared directory can point anywhere): name the real file.")
        }
        if status.st_mode & S_IFMT == S_IFREG, status.st_nlink > 1 {
            throw CommandFailure(
                .cannotCreate,
                "\(path) has \(status.st_nlink) hard links; dustctl does not write a \(role) that is also another name's "
                    + "file: copy it, or name another path.")
        }
        try refuseStranger(path, status, .cannotCreate)
    }

    /// A database only read: a link or a file is refused only when another user owns it in a
    /// directory others may write to (the file it names too).
    private static func checkRead(_ path: String) throws(CommandFailure) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        try refuseStranger(path, status, .noInput)
        if status.st_mode & S_IFMT == S_IFLNK, let target = realpath(path, nil) {
            defer { free(target) }
            let resolved = String(cString: target)
            var named = stat()
            if lstat(resolved, &named) == 0 { try refuseStranger(resolved, named, .noInput) }
        }
    }

    /// Refuses `path` when another user (root aside) owns it in a directory others may write to.
    private static func refuseStranger(_ path: String, _ status: stat, _ exit: ExitStatus) throws(CommandFailure) {
        let me = geteuid()
        guard status.st_uid != me, status.st_uid != 0 else { return }
        let directory = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        var folder = stat()
        guard stat(directory, &folder) == 0 else { return }
        // Others may write there (a sticky /tmp included, whoever owns it): a name in it can be planted.
        guard folder.st_mode & (S_IWGRP | S_IWOTH) != 0 else { return }
        throw CommandFailure(
            exit,
            "\(path) belongs to another user (uid \(status.st_uid)) in \(directory), a directory others may write to: "
                + "it may have been put there for dustctl to write into or read from; remove it, or name a path in a "
                + "directory of your own.")
    }

    /// Creates the database file when nothing is there, exclusively and without following a name
    /// (0640, as the store would); when something appeared there since the check, checks it again,
    /// so a link planted in between is refused too. A missing directory is left to the store, which
    /// creates it.
    private static func create(_ path: String) throws(CommandFailure) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o640)
        if descriptor >= 0 {
            close(descriptor)
        } else if errno == EEXIST {
            try checkWritten(path, role: "database")
        }
    }

}

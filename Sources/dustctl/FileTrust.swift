import DustKit
import DustServices
import DustStorage
import DustStore
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
    /// What dustctl writes at a path, as its refusals name it.
    enum Role: String {
        case database
        case outputFile = "output file"

        /// 데이터베이스, 출력 파일.
        var korean: String {
            switch self {
            case .database: "데이터베이스"
            case .outputFile: "출력 파일"
            }
        }

        /// 데이터베이스를, 출력 파일을: `korean` as an object.
        var koreanObject: String {
            switch self {
            case .database: "데이터베이스를"
            case .outputFile: "출력 파일을"
            }
        }
    }

    /// Checks `path` before dustctl opens it as a database for `access`.
    static func checkDatabase(_ path: String, for access: StorageAccess) throws(CommandFailure) {
        switch access {
        case .write:
            for file in [path, path + "-wal", path + "-shm"] { try checkWritten(file, role: .database) }
            try create(path)
        case .read:
            try checkRead(path)
        }
    }

    /// Refuses a file dustctl would write (or replace) at `path` when it is a symbolic link, has a
    /// second hard link, or belongs to another user in a directory others may write to. Nothing
    /// there is fine. The refusal is in `language`, the locale's unless told.
    static func checkWritten(_ path: String, role: Role, language: ReportLanguage = .process) throws(CommandFailure) {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            if errno == ENOENT { return }
            let reason = systemErrorText(errno)
            throw CommandFailure(
                .cannotCreate,
                language.say("\(role.korean) \(path)에 접근할 수 없습니다: ", "Cannot open the \(role.rawValue) \(path): ") + "\(reason).")
        }
        if status.st_mode & S_IFMT == S_IFLNK {
            throw CommandFailure(
                .cannotCreate,
                language.say(
                    "\(path)은(는) 심볼릭 링크입니다. dustctl은 \(role.koreanObject) 링크를 거치지 않고 그 파일 자체에만 씁니다"
                        + "(공유 디렉터리의 링크는 어디든 가리킬 수 있습니다): 실제 파일을 지정하세요.",
                    "\(path) is a symbolic link; dustctl writes a \(role.rawValue) only to the file itself, never through a link "
                        + "(one in a shared directory can point anywhere): name the real file."))
        }
        if status.st_mode & S_IFMT == S_IFREG, status.st_nlink > 1 {
            throw CommandFailure(
                .cannotCreate,
                language.say(
                    "\(path)에 하드 링크가 \(status.st_nlink)개 있습니다. dustctl은 다른 이름의 파일이기도 한 \(role.korean)에는 "
                        + "쓰지 않습니다: 복사하거나 다른 경로를 지정하세요.",
                    "\(path) has \(status.st_nlink) hard links; dustctl does not write a \(role.rawValue) that is also another name's "
                        + "file: copy it, or name another path."))
        }
        try refuseStranger(path, status, .cannotCreate, language: language)
    }

    /// A database only read: a link or a file is refused only when another user owns it in a
    /// directory others may write to (the file it names too).
    private static func checkRead(_ path: String) throws(CommandFailure) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        let language = ReportLanguage.process
        try refuseStranger(path, status, .noInput, language: language)
        if status.st_mode & S_IFMT == S_IFLNK, let target = realpath(path, nil) {
            defer { free(target) }
            let resolved = String(cString: target)
            var named = stat()
            if lstat(resolved, &named) == 0 { try refuseStranger(resolved, named, .noInput, language: language) }
        }
    }

    /// Refuses `path` when another user (root aside) owns it in a directory others may write to.
    private static func refuseStranger(_ path: String, _ status: stat, _ exit: ExitStatus, language: ReportLanguage) throws(CommandFailure)
    {
        let me = geteuid()
        guard status.st_uid != me, status.st_uid != 0 else { return }
        let directory = FilePaths.directory(of: path)
        var folder = stat()
        guard stat(directory, &folder) == 0 else { return }
        // Others may write there (a sticky /tmp included, whoever owns it): a name in it can be planted.
        guard folder.st_mode & (S_IWGRP | S_IWOTH) != 0 else { return }
        throw CommandFailure(
            exit,
            language.say(
                "\(path)은(는) 다른 사용자(uid \(status.st_uid))의 것이고, 다른 사람이 쓸 수 있는 디렉터리 \(directory)에 있습니다: "
                    + "dustctl이 그곳에 쓰거나 그곳에서 읽도록 누군가 놓아 둔 것일 수 있습니다. 지우거나, 자기 디렉터리에 있는 "
                    + "경로를 지정하세요.",
                "\(path) belongs to another user (uid \(status.st_uid)) in \(directory), a directory others may write to: "
                    + "it may have been put there for dustctl to write into or read from; remove it, or name a path in a "
                    + "directory of your own."))
    }

    /// Creates the database file when nothing is there, exclusively and without following a name
    /// (0640, as the store would); when something appeared there since the check, checks it again,
    /// so a link planted in between is refused too. A missing directory is left to the store, which
    /// creates it.
    private static func create(_ path: String) throws(CommandFailure) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o640)
        if descriptor >= 0 {
            // `sudo dustctl import` into dustd's directory: the new database is dustd's (docs/REFERENCE.md §15).
            DatabaseAccess.giveToDirectoryOwner(descriptor, path: path)
            close(descriptor)
        } else if errno == EEXIST {
            try checkWritten(path, role: .database)
        }
    }

}

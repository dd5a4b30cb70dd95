import DustConfig
import DustKit
import Foundation

/// The files SQLite keeps for a database: the file itself, its `-wal`, `-shm` and `-journal`, and dustd's
/// `.lock` beside it. A file dustctl writes (`export --output`, `person export --output`, `backup`) is never
/// one of them: renamed over the database it would replace a household's history with a CSV, a file named
/// like its `-wal` would be read by SQLite as one, and one renamed over the lock would let a second dustd
/// start beside the first (docs/REFERENCE.md §15).
struct DatabaseOwnFiles {
    /// The SQLite database; nil for PostgreSQL, which keeps no file here.
    let database: String?

    init(_ storage: StorageBackend) {
        if case .sqlite(let path) = storage { database = path } else { database = nil }
    }

    init(database: String) { self.database = database }

    /// Whether `path` names one of the database's files: the same file (by device and inode, through
    /// any link or `./` spelling), or the same name in the same directory for one not there yet.
    func contains(_ path: String) -> Bool {
        guard let database else { return false }
        var resolved = database
        var status = stat()
        // A database given as a symbolic link keeps its -wal and -shm beside the file it names.
        if lstat(database, &status) == 0, status.st_mode & S_IFMT == S_IFLNK, let real = realpath(database, nil) {
            resolved = String(cString: real)
            free(real)
        }
        let own = [database, resolved].flatMap { file in ["", "-wal", "-shm", "-journal", ".lock"].map { file + $0 } }
        var target = stat()
        if stat(path, &target) == 0 {
            for file in own {
                var status = stat()
                if stat(file, &status) == 0, status.st_dev == target.st_dev, status.st_ino == target.st_ino { return true }
            }
        }
        guard let name = Self.canonical(path) else { return false }
        return own.contains { Self.canonical($0) == name }
    }

    /// The path with its directory resolved (links, `.`, `..`) and its last component as written.
    private static func canonical(_ path: String) -> String? {
        let last = FilePaths.lastComponent(of: path)
        guard !last.isEmpty, last != ".", last != "..", last != "/" else { return nil }
        let directory = FilePaths.directory(of: path)
        guard let real = realpath(directory, nil) else { return nil }
        defer { free(real) }
        return String(cString: real) + "/" + last
    }

    /// Refuses `path` when it is one of the database's files: 64, as a mistyped argument.
    func refuse(_ path: String, language: ReportLanguage = .process) throws(CommandFailure) {
        guard contains(path) else { return }
        throw CommandFailure(
            .usage, korean: "\(path)은(는) 데이터베이스 자신의 파일입니다. 다른 곳을 주세요.",
            english: "\(path) is one of the database's own files; name another.", language: language)
    }
}

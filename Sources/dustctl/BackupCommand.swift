import ArgumentParser
import DustConfig
import DustKit
import DustServices
import Foundation

/// `dustctl backup FILE` (docs/REFERENCE.md §15, "Backups"): a consistent copy of the SQLite database,
/// made while dustd runs. A copy with `cp` holds nothing of what is still in the -wal (after a first
/// backfill the database file itself was 4 KiB beside a 960 KB -wal), so a household's obvious backup
/// restored to an empty database.
struct BackupCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "backup",
            abstract: helpAbstract("데이터베이스 전체를 한 파일로 안전하게 복사합니다.", "Copy the whole database into one file, safely."),
            discussion: helpText(
                """
                dustd가 실행 중이어도 한 시점의 일관된 사본을 씁니다(SQLite의 VACUUM INTO).
                cp로 복사하면 아직 -wal에 있는 것이 빠집니다. FILE은 소유자만 읽을 수 있는(0600)
                새 파일로, 다 쓴 뒤에야 제자리에 놓입니다: 있던 FILE은 그때 바뀝니다.
                되살리기: systemctl stop dustd, 데이터베이스의 -wal과 -shm 삭제, FILE을
                데이터베이스 자리에 복사(소유자 dustd), systemctl start dustd
                (docs/REFERENCE.md §15). PostgreSQL은 pg_dump로 백업합니다.
                예:
                  dustctl backup /var/backups/dust-$(date +%F).sqlite
                """,
                """
                Writes a consistent copy as of one moment, while dustd runs (SQLite's VACUUM
                INTO); a copy made with cp leaves out what is still in the -wal. FILE is a new
                file readable by its owner only (0600), put in place only once it is whole: an
                existing FILE is replaced then.
                To restore: systemctl stop dustd, remove the database's -wal and -shm, copy
                FILE over the database (owned by dustd), systemctl start dustd
                (docs/REFERENCE.md §15). PostgreSQL is backed up with pg_dump.
                Example:
                  dustctl backup /var/backups/dust-$(date +%F).sqlite
                """))
    }

    @OptionGroup var options: GlobalOptions

    @Argument(help: .localized("백업을 쓸 파일.", "The file to write the backup to.", valueName: "file"))
    var file: String

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            let language = ReportLanguage.process
            guard case .sqlite(let database) = settings.storage else {
                throw CommandFailure(
                    .usage,
                    korean: "PostgreSQL 데이터베이스는 pg_dump로 백업합니다: pg_dump -Fc -f FILE DATABASE (docs/REFERENCE.md §15).",
                    english: "A PostgreSQL database is backed up with pg_dump: pg_dump -Fc -f FILE DATABASE (docs/REFERENCE.md §15).")
            }
            let target = BackupTarget(path: file)
            try target.refuseUnlessApart(from: database, language)
            let partial = try target.createPartial(language)
            do {
                try await withStore(settings, for: .read) { store in
                    do {
                        try await store.backUp(into: partial)
                    } catch let failure as StorageFailure where failure.kind == .diskFull {
                        // The copy's disk, not the database's, is what filled.
                        throw CommandFailure(
                            .ioError,
                            korean: "\(target.directory)이(가) 있는 디스크가 가득 차서 백업을 쓰지 못했습니다. 데이터베이스는 그대로입니다.",
                            english: "The disk holding \(target.directory) is full: no backup was written; the database is as it was.")
                    }
                }
                try target.putInPlace(partial, language)
            } catch {
                unlink(partial)
                throw error
            }
            let size = (try? FileManager.default.attributesOfItem(atPath: target.path)[.size] as? Int) ?? 0
            let megabytes = fixedDecimals(Double(size) / 1_048_576, 1)
            try standardOutputLine(
                language.say(
                    "\(database)을(를) \(target.path)에 백업했습니다 (\(megabytes) MB, 지금 이 시점의 모든 테이블).",
                    "Backed up \(database) to \(target.path) (\(megabytes) MB: every table as of now)."))
        }
    }
}

/// Where a backup goes: written under a hidden name beside it, then renamed over it.
struct BackupTarget {
    let path: String
    var directory: String { FilePaths.directory(of: path) }

    /// The database, its -wal, -shm or -journal (there or not yet: SQLite would take a copy named so
    /// for its own and delete it) or a directory cannot be the backup: 64. Nor can anything `--output`
    /// would not replace (`OutputFile.replaceable`): a device, FIFO, socket or symbolic link, 73.
    func refuseUnlessApart(from database: String, _ language: ReportLanguage) throws {
        try DatabaseOwnFiles(database: database).refuse(path, language: language)
        var target = stat()
        if lstat(path, &target) == 0, target.st_mode & S_IFMT == S_IFDIR {
            throw CommandFailure(
                .usage, korean: "\(path)은(는) 디렉터리입니다. 백업 파일의 이름을 주세요.", english: "\(path) is a directory; name the backup file.")
        }
        _ = try OutputFile.replaceable(path, by: ("백업은", "a backup"), language: language)
    }

    /// An empty file of mode 0600 (`VACUUM INTO` writes into an empty file and keeps its mode). What
    /// backups killed before they finished left in the directory goes first (`removeAbandoned`).
    func createPartial(_ language: ReportLanguage) throws -> String {
        removeAbandoned()
        let partial = OutputFile.hiddenName(besides: path, tag: "dustctl-backup-\(getpid())")
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw CommandFailure(
                .cannotCreate, korean: "\(directory)에 백업을 쓸 수 없습니다 (\(reason)).",
                english: "Cannot write a backup in \(directory) (\(reason)).")
        }
        close(descriptor)
        return partial
    }

    /// Removes the partial copies of backups into this directory whose dustctl is gone: killed (SIGKILL,
    /// Ctrl-C, a cron job's timeout) while writing, each left `.NAME.dustctl-backup-PID` and its `-journal`,
    /// hidden from `ls` and as large as the database, for good. Only what cannot be anything else: this
    /// user's regular files of mode 0600 of that name, a PID this system can have and no process has,
    /// untouched for an hour (not another machine's backup into a shared directory), holding an SQLite
    /// database or rollback journal (or nothing yet). NAME may be any (a cron job's backup has the day in
    /// its name); the tag is dustctl's own. Of the `.NAME.backup-PID` an older dustctl left, only this
    /// backup's own name is taken: another program's `.places.sqlite.backup-4242` is left alone, and so is
    /// `.zshrc.backup-20240101`.
    private func removeAbandoned() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        let largestPID =
            (try? String(contentsOfFile: "/proc/sys/kernel/pid_max", encoding: .utf8)).flatMap { Int32($0.trimmingWhiteSpace) }
            ?? 4_194_304
        let anHourAgo = SystemClock().now.addingTimeInterval(-3600).timeIntervalSince1970
        // An older dustctl's `.NAME.backup-`, NAME this backup's own, byte for byte (a name's other Unicode
        // spelling is another file).
        let older = OutputFile.hiddenComponent(of: path, tag: "backup-").utf8
        for name in names {
            let tail: Substring
            if name.utf8.starts(with: older) {
                tail = Substring(name.utf8.dropFirst(older.count))
            } else if let own = name.wholeMatch(of: /\..+\.dustctl-backup-(\d{1,7}(?:-journal)?)/.asciiOnlyDigits()) {
                tail = own.1
            } else {
                continue
            }
            guard let match = tail.wholeMatch(of: /(\d{1,7})(-journal)?/.asciiOnlyDigits()), let pid = pid_t(match.1), pid > 1,
                pid <= largestPID, kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            let file = FilePaths.joining(directory, name)
            var status = stat()
            guard lstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_mode & 0o7777 == 0o600,
                status.st_uid == getuid(), Double(status.st_mtim.tv_sec) < anHourAgo,
                Self.holdsSQLite(file, size: status.st_size, journal: match.2 != nil)
            else { continue }
            unlink(file)
        }
    }

    /// Whether `file` is empty or begins as an SQLite database (or, `journal`, a rollback journal) does.
    private static func holdsSQLite(_ file: String, size: off_t, journal: Bool) -> Bool {
        guard size > 0 else { return true }
        let magic: [UInt8] = journal ? [0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7] : Array("SQLite format 3\0".utf8)
        guard let handle = FileHandle(forReadingAtPath: file) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: magic.count)) ?? Data()
        // A rollback journal's header is zeroed once its transaction ended.
        return Array(head) == magic || (journal && head.allSatisfy { $0 == 0 })
    }

    /// The whole copy on disk, then renamed over `path`, the directory synced: a crash leaves the old
    /// backup or the new one, never half of one.
    func putInPlace(_ partial: String, _ language: ReportLanguage) throws {
        let descriptor = open(partial, O_RDONLY | O_CLOEXEC)
        let synced = descriptor >= 0 && fsync(descriptor) == 0
        if descriptor >= 0 { close(descriptor) }
        guard synced, rename(partial, path) == 0 else {
            let reason = String(cString: strerror(errno))
            throw CommandFailure(
                .cannotCreate, korean: "백업을 \(path)에 놓을 수 없습니다 (\(reason)).", english: "Cannot put the backup at \(path) (\(reason)).")
        }
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }
}

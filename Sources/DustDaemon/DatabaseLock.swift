import DustKit
import DustServices
import DustStore
import Foundation
import Synchronization

/// One dustd per database file, held for the life of the process, and a storage directory no one
/// else can plant files in.
///
/// Two daemons on one database would both poll and spend the daily quota twice; two daemons on one
/// file under two names (a hard link) would also give it two -wal/-shm pairs, which corrupts it
/// (SQLite's "How To Corrupt", hard links). So two locks are taken:
/// - a POSIX record lock on `<database>.lock` beside the file the path resolves to (a symlinked
///   `storage.path` finds the same lock), which `F_GETLK` can name the holder of;
/// - a `flock` on the database file itself, which belongs to the file (device and inode), not to a
///   name, so a hard link finds it too. SQLite's own locks are POSIX record locks, which on Linux
///   never interact with `flock`, and closing SQLite's descriptors does not drop it.
/// Both are released by the kernel when the process ends, however it ends.
///
/// Files are opened without following symlinks and only as regular files with one name, so a
/// `dust.sqlite.lock -> /root-file` planted in the directory is refused, not overwritten; a
/// directory that others may write is refused unless it is sticky and every file there is ours.
public final class DatabaseLock: Sendable {
    /// The lock file.
    public let path: String
    private let descriptor: Int32
    /// The database file as opened for its `flock`; moved by `followReplacedDatabase`.
    private let databaseDescriptor: Mutex<Int32>
    private let databasePath: String

    /// Why the lock could not be taken.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// Another process holds it (its PID is 0 when the system does not say).
        case held(databasePath: String, pid: Int32)
        /// The lock file cannot be opened or locked.
        case unavailable(lockPath: String, reason: String)
        /// This user may not use a file of the database or its directory: which, whose, and the fix (a
        /// database `sudo dustctl` made, for one).
        case noAccess(AccessProblem)
        /// The directory or a file in it could be, or has been, planted by another user: the
        /// sentence says what and how to fix it.
        case unsafe(String)

        public var description: String {
            switch self {
            case .held(let databasePath, let pid) where pid > 0:
                "Another dustd (PID \(pid)) is already polling into \(databasePath); stop it first, or give this one another storage.path."
            case .held(let databasePath, _):
                "Another dustd is already polling into \(databasePath) (the same file under another name); stop it first, or give this one another storage.path."
            case .unavailable(let lockPath, let reason):
                "Cannot take the lock \(lockPath) (\(reason)); check that dustd may write the database's directory."
            case .noAccess(let problem):
                "Cannot open the database's files: \(problem)."
            case .unsafe(let problem):
                problem
            }
        }
    }

    /// Takes the lock for the database at `databasePath`, or says who holds it or what is unsafe.
    public init(databasePath: String) throws(Failure) {
        do {
            try SQLiteStore.createDirectoryIfNeeded(forDatabase: databasePath)
        } catch {
            throw .unavailable(lockPath: databasePath + ".lock", reason: error.description)
        }
        let storage = try StorageDirectory.check(databasePath: databasePath)
        // A FIFO, a directory or a device where the database or its -wal or -shm should be: in the
        // sentence dustctl says too, before anything here opens one (storage.path is configuration: 78).
        // A symlinked -wal or -shm is refused just below, with the sentence about links planted.
        do {
            try SQLiteStore.refuseUnlessRegularFiles(storage.databasePath)
        } catch {
            if case .notARegularFile(_, _, .symbolicLink) = error {} else { throw .unsafe(error.description) }
        }
        path = storage.databasePath + ".lock"
        for suffix in ["-wal", "-shm", "-journal"] {
            try storage.checkExisting(storage.databasePath + suffix, role: "SQLite's file")
        }
        let descriptor = try storage.open(path, role: "the lock file", failure: { .unavailable(lockPath: $0, reason: $1) })
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
        let databaseDescriptor: Int32
        do {
            // Its other names are judged after its lock: a dustd running on one of them is the better news.
            databaseDescriptor = try storage.open(
                storage.databasePath, role: "the database", allowingLinks: true,
                failure: { .unavailable(lockPath: $0, reason: $1) })
        } catch {
            close(descriptor)
            throw error
        }
        if let refusal = Self.takeWholeFileLock(databaseDescriptor) {
            close(databaseDescriptor)
            close(descriptor)
            if refusal.reason == EWOULDBLOCK { throw .held(databasePath: databasePath, pid: refusal.holder) }
            throw .unavailable(lockPath: storage.databasePath, reason: String(cString: strerror(refusal.reason)))
        }
        var status = stat()
        if fstat(databaseDescriptor, &status) == 0,
            let problem = storage.problem(with: status, path: storage.databasePath, role: "the database")
        {
            close(databaseDescriptor)
            close(descriptor)
            throw .unsafe(problem)
        }
        // The PID in the file is for people; the locks are what count.
        let text = "\(getpid())\n"
        _ = ftruncate(descriptor, 0)
        _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        self.descriptor = descriptor
        self.databaseDescriptor = Mutex(databaseDescriptor)
        self.databasePath = databasePath
    }

    deinit {
        close(databaseDescriptor.withLock { $0 })
        close(descriptor)
    }

    /// Moves the `flock` to the file now at the database's path, once dustd has reopened a
    /// database that was deleted or replaced under it: the lock held the old file, so a second
    /// dustd reaching the new one through a hard link would not have been refused.
    public func followReplacedDatabase() throws(Failure) {
        let storage = try StorageDirectory.check(databasePath: databasePath)
        let replacement = try storage.open(
            storage.databasePath, role: "the database", allowingLinks: true,
            failure: { .unavailable(lockPath: $0, reason: $1) })
        // Already held: the file at the path is the one locked (moved here before).
        var now = stat()
        var held = stat()
        if fstat(replacement, &now) == 0, databaseDescriptor.withLock({ fstat($0, &held) }) == 0,
            now.st_dev == held.st_dev, now.st_ino == held.st_ino
        {
            close(replacement)
            return
        }
        if let refusal = Self.takeWholeFileLock(replacement) {
            close(replacement)
            if refusal.reason == EWOULDBLOCK { throw .held(databasePath: databasePath, pid: refusal.holder) }
            throw .unavailable(lockPath: storage.databasePath, reason: String(cString: strerror(refusal.reason)))
        }
        close(
            databaseDescriptor.withLock { held in
                let old = held
                held = replacement
                return old
            })
    }

    /// Takes the `flock` on `descriptor`; when it cannot, the `errno` and the other process
    /// `/proc/locks` names as the holder (0 when none is named).
    ///
    /// A `flock` belongs to the open file, and a child a process is spawning holds a copy of each of
    /// its descriptors until it execs (`O_CLOEXEC` closes them only then). So a lock this process
    /// released a moment ago can still be held by one of its own children on the way to `exec`:
    /// `/proc/locks` then names this process as the holder. That is waited out, up to ten seconds (a
    /// loaded machine may leave a new child unscheduled for more than one); a lock another process
    /// holds is refused at once. (dustd spawns nothing; a test process that opens one database twice
    /// while other tests spawn programs does: docs/RELIABILITY.md.)
    static func takeWholeFileLock(_ descriptor: Int32) -> (reason: Int32, holder: Int32)? {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            if wholeFileLock(descriptor, LOCK_EX | LOCK_NB) == 0 { return nil }
            let reason = errno
            var status = stat()
            guard reason == EWOULDBLOCK, fstat(descriptor, &status) == 0 else { return (reason, 0) }
            let other = flockHolder(of: status, locks: kernelText("/proc/locks"))
            if other > 0 { return (reason, other) }
            // Only this process listed, or no one (a line the kernel's paging skipped): waited out.
            guard ContinuousClock.now < deadline else { return (reason, flockHolder(of: status)) }
            usleep(10_000)
        }
    }

    /// The process holding a `flock` on the file; 0 when the system does not say.
    ///
    /// `/proc/locks` first, read to its end (`kernelText`); it is written a page per read and each page
    /// starts afresh from a count of lines, so a line can still be skipped while other locks come and
    /// go: it is read up to five times. Then the processes that have the file open are asked, whose
    /// `/proc/PID/fdinfo` lists the locks each open file holds, which no other lock can push aside.
    static func flockHolder(of status: stat) -> Int32 {
        for attempt in 0..<5 {
            let pid = flockHolder(of: status, locks: kernelText("/proc/locks"))
            if pid > 0 { return pid }
            if attempt < 4 { usleep(5_000) }
        }
        return flockHolderAmongOpenFiles(of: status)
    }

    /// A file of the kernel's (`/proc`) read to its end. Foundation's `String(contentsOfFile:)` and
    /// `Data(contentsOf:)` stop after the first read, and the kernel gives at most a page per read, so
    /// they saw the first 4 KiB of `/proc/locks`: about seventy locks, fewer than a busy machine holds
    /// (two test runs side by side: two hundred), and a dustd's line further on was never found.
    public static func kernelText(_ path: String) -> String? {
        guard let file = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? file.close() }
        guard let data = try? file.readToEnd() else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// The process one of whose open files of the same device and inode holds a `flock` (its
    /// `fdinfo` has the `lock:` line); 0 when none is visible (another user's processes, or `/proc`
    /// mounted with `hidepid`).
    public static func flockHolderAmongOpenFiles(of status: stat) -> Int32 {
        for process in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(process), pid != getpid() else { continue }
            for descriptor in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process)/fd")) ?? [] {
                var opened = stat()
                guard stat("/proc/\(process)/fd/\(descriptor)", &opened) == 0, opened.st_dev == status.st_dev,
                    opened.st_ino == status.st_ino
                else { continue }
                // `lock:\t1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF`: the same fields as /proc/locks.
                let holder = flockHolder(of: status, locks: kernelText("/proc/\(process)/fdinfo/\(descriptor)"))
                if holder > 0 { return holder }
            }
        }
        return 0
    }

    /// The process holding a `flock` on the file in `locks`, `/proc/locks`'s text (`1: FLOCK ADVISORY
    /// WRITE 1234 08:01:5678 0 EOF`: PID, then major:minor:inode); 0 when it is not listed.
    public static func flockHolder(of status: stat, locks: String?) -> Int32 {
        let device = UInt64(status.st_dev)
        let major = ((device >> 8) & 0xFFF) | ((device >> 32) & ~0xFFF)
        let minor = (device & 0xFF) | ((device >> 12) & ~0xFF)
        let identity = String(format: "%02llx:%02llx:%llu", major, minor, UInt64(status.st_ino))
        for line in (locks ?? "").split(separator: "\n") where !line.contains("->") {
            let fields = line.split(separator: " ")
            guard fields.count >= 6, fields[1] == "FLOCK", fields[5] == identity, let pid = Int32(fields[4]), pid != getpid() else {
                continue
            }
            return pid
        }
        return 0
    }
}

/// flock(2): Swift sees only the `struct flock` of fcntl under that name.
@_silgen_name("flock")
private func wholeFileLock(_ descriptor: Int32, _ operation: Int32) -> Int32

/// The directory the database is in, checked once: where it really is, and whether other users
/// may write there.
struct StorageDirectory {
    /// The database path with its symlinks resolved (SQLite keeps -wal and -shm beside that).
    let databasePath: String
    /// Whether others may write the directory (it is sticky then): every file there must be ours.
    let shared: Bool

    /// Refuses a directory that others may write without the sticky bit, and a symlinked
    /// `storage.path` that another user owns in a shared one; resolves the symlink.
    static func check(databasePath: String) throws(DatabaseLock.Failure) -> StorageDirectory {
        var shared = false
        try inspect(directory: parent(of: databasePath), shared: &shared)
        var status = stat()
        guard lstat(databasePath, &status) == 0, (status.st_mode & S_IFMT) == S_IFLNK else {
            return StorageDirectory(databasePath: databasePath, shared: shared)
        }
        if shared, status.st_uid != geteuid() {
            throw .unsafe(
                "The database \(databasePath) is a symlink that belongs to another user (uid \(status.st_uid)) in a directory others may write; remove it, or give storage.path a directory of dustd's own."
            )
        }
        guard let resolved = realpath(databasePath, nil) else {
            throw .unsafe(
                "The database \(databasePath) is a symlink that leads nowhere (\(String(cString: strerror(errno)))); point it at the database, or give storage.path the real path."
            )
        }
        defer { free(resolved) }
        let real = String(cString: resolved)
        try inspect(directory: parent(of: real), shared: &shared)
        return StorageDirectory(databasePath: real, shared: shared)
    }

    private static func inspect(directory: String, shared: inout Bool) throws(DatabaseLock.Failure) {
        var status = stat()
        guard stat(directory, &status) == 0 else { return }
        guard status.st_mode & (S_IWGRP | S_IWOTH) != 0 else { return }
        guard status.st_mode & S_ISVTX != 0 else {
            throw .unsafe(
                "The storage directory \(directory) may be written by other users, who could plant files where dustd writes; run `chmod go-w \(directory)` (or give storage.path a directory of dustd's own)."
            )
        }
        shared = true
    }

    private static func parent(of path: String) -> String { DatabaseAccess.directory(of: path) }

    /// Refuses an existing file that is a symlink, not a regular file, has other names (hard
    /// links), or, in a shared directory, belongs to another user.
    func checkExisting(_ path: String, role: String) throws(DatabaseLock.Failure) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        if let problem = problem(with: status, path: path, role: role) { throw .unsafe(problem) }
    }

    /// Opens (creating with mode 0640 when missing, never truncating) a file of dustd's own, without
    /// following a symlink; refuses what `checkExisting` refuses.
    func open(
        _ path: String, role: String, allowingLinks: Bool = false,
        failure: (String, String) -> DatabaseLock.Failure
    ) throws(DatabaseLock.Failure) -> Int32 {
        let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0o640)
        guard descriptor >= 0 else {
            let reason = errno
            if reason == ELOOP {
                throw .unsafe(
                    "\(role.prefix(1).uppercased() + role.dropFirst()) \(path) is a symlink, which dustd does not follow there; remove it (`rm \(path)`), or give storage.path a directory of dustd's own."
                )
            }
            // The kernel may refuse first (fs.protected_regular=2 refuses root another user's file
            // in a sticky directory, with EACCES): say what is wrong with the file, not only "denied".
            var status = stat()
            if lstat(path, &status) == 0, let problem = problem(with: status, path: path, role: role, allowingLinks: allowingLinks) {
                throw .unsafe(problem)
            }
            // A database (or lock file) `sudo dustctl` or `sudo dustd --once` left as root's: which file, and the chown.
            if reason == EACCES || reason == EPERM, let problem = DatabaseAccess.problem(databasePath: databasePath, writing: true) {
                throw .noAccess(problem)
            }
            throw failure(path, String(cString: strerror(reason)))
        }
        // Made here by dustd run as root (`sudo dustd --once`): the directory's owner's, so the service can open it.
        DatabaseAccess.giveToDirectoryOwner(descriptor, path: path)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw failure(path, reason)
        }
        if let problem = problem(with: status, path: path, role: role, allowingLinks: allowingLinks) {
            close(descriptor)
            throw .unsafe(problem)
        }
        return descriptor
    }

    func problem(with status: stat, path: String, role: String, allowingLinks: Bool = false) -> String? {
        let role = role.prefix(1).uppercased() + role.dropFirst()
        switch status.st_mode & S_IFMT {
        case S_IFLNK:
            return
                "\(role) \(path) is a symlink, which dustd does not follow there; remove it (`rm \(path)`), or give storage.path a directory of dustd's own."
        case S_IFREG:
            break
        default:
            return "\(role) \(path) is not a regular file; remove it, or give storage.path a directory of dustd's own."
        }
        if status.st_nlink > 1, !allowingLinks {
            return
                "\(role) \(path) has \(status.st_nlink) names (hard links), and SQLite keeps a -wal and -shm beside each name, which corrupts the database; remove the other links, or copy the file."
        }
        if shared, status.st_uid != geteuid() {
            return
                "\(role) \(path) belongs to another user (uid \(status.st_uid)) in a directory others may write; remove it, or give storage.path a directory of dustd's own."
        }
        return nil
    }
}

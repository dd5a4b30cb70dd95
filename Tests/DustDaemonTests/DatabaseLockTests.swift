import DustDaemon
import DustKit
import DustStore
import Foundation
import TestSupport
import Testing

/// The error `DatabaseLock` throws for `path`, or nil when it took the lock (released at once).
private func lockFailure(_ path: String) -> DatabaseLock.Failure? {
    do {
        _ = try DatabaseLock(databasePath: path)
        return nil
    } catch {
        return error
    }
}

@Suite(
    "The storage directory: no planted symlink or hard link is followed, no directory others may write is used (issue 19 item 7)",
    .timeLimit(.minutes(10)))
struct DatabaseLockTests {
    /// A root-only file a planted link points at, and its bytes.
    private static func target(in directory: TemporaryDirectory) throws -> (path: String, bytes: Data) {
        let path = directory.path("root-file")
        let bytes = Data("root only\n".utf8)
        try bytes.write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        return (path, bytes)
    }

    @Test(
        "A directory every user or the group may write, without the sticky bit, is refused with the chmod; a planted lock symlink is not followed",
        arguments: [0o777, 0o775, 0o757])
    func writableDirectory(mode: Int) throws {
        let directory = try TemporaryDirectory("lock-dir")
        defer { directory.remove() }
        let (target, bytes) = try Self.target(in: directory)
        let storage = directory.path("state")
        try FileManager.default.createDirectory(atPath: storage, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: storage + "/dust.sqlite.lock", withDestinationPath: target)
        #expect(chmod(storage, mode_t(mode)) == 0)
        let failure = lockFailure(storage + "/dust.sqlite")
        #expect(
            failure
                == .unsafe(
                    "The storage directory \(storage) may be written by other users, who could plant files where dustd writes; run `chmod go-w \(storage)` (or give storage.path a directory of dustd's own)."
                ))
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == bytes)
        #expect(!FileManager.default.fileExists(atPath: storage + "/dust.sqlite"), "the database was created in an unsafe directory")
    }

    @Test(
        "A symlink or hard link planted as the lock file, the -wal or the -shm is refused in dustd's own directory too; the target is untouched",
        arguments: [
            (".lock", true), ("-wal", true), ("-shm", true), (".lock", false), ("-wal", false),
        ])
    func plantedLinks(suffix: String, symbolic: Bool) throws {
        let directory = try TemporaryDirectory("lock-planted")
        defer { directory.remove() }
        let (target, bytes) = try Self.target(in: directory)
        let storage = directory.path("state")
        try FileManager.default.createDirectory(atPath: storage, withIntermediateDirectories: false)
        chmod(storage, 0o750)
        let planted = storage + "/dust.sqlite" + suffix
        if symbolic {
            try FileManager.default.createSymbolicLink(atPath: planted, withDestinationPath: target)
        } else {
            #expect(link(target, planted) == 0)
        }
        let failure = try #require(lockFailure(storage + "/dust.sqlite"))
        #expect(failure.description.contains(planted), "\(failure)")
        #expect(
            failure.description.contains(symbolic ? "is a symlink, which dustd does not follow there" : "has 2 names (hard links)"),
            "\(failure)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == bytes)
    }

    @Test(
        "In a sticky directory every user may write (like /tmp), a lock, database or symlink of another user is refused; with none, the lock is taken",
        arguments: [
            ".lock", "", "-wal", "link",
        ])
    func stickyDirectory(planted: String) throws {
        guard geteuid() == 0 else {
            print("skipped: planting files as nobody needs root (run the tests as root to check it)")
            return
        }
        let directory = try TemporaryDirectory("lock-sticky")
        defer { directory.remove() }
        let (target, bytes) = try Self.target(in: directory)
        let storage = directory.path("shared")
        try FileManager.default.createDirectory(atPath: storage, withIntermediateDirectories: false)
        #expect(chmod(storage, 0o1777) == 0)
        let database = storage + "/dust.sqlite"
        #expect(lockFailure(database) == nil, "a clean sticky directory was refused")
        for suffix in [".lock", "", "-wal", "-shm"] { unlink(database + suffix) }
        let path = planted == "link" ? database : database + planted
        if planted == "link" {
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
            #expect(lchown(path, 65534, 65534) == 0)
        } else {
            #expect(FileManager.default.createFile(atPath: path, contents: Data()) && chown(path, 65534, 65534) == 0)
        }
        let failure = try #require(lockFailure(database))
        #expect(failure.description.contains("belongs to another user (uid 65534) in a directory others may write"), "\(failure)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == bytes)
    }

    @Test("The lock file is created 0640 with the PID, and an existing one of dustd's is reused, not refused")
    func lockFileCreated() throws {
        let directory = try TemporaryDirectory("lock-ok")
        defer { directory.remove() }
        let database = directory.path("state/dust.sqlite")
        #expect(lockFailure(database) == nil)
        #expect(lockFailure(database) == nil, "a lock file left by an earlier run was refused")
        var status = stat()
        #expect(lstat(database + ".lock", &status) == 0 && status.st_mode & 0o777 == 0o640)
        #expect(try String(contentsOfFile: database + ".lock", encoding: .utf8) == "\(getpid())\n")
    }

    @Test("After the database is deleted and created again, the lock follows it: a hard link to the new file is refused")
    func lockFollowsReplacedDatabase() throws {
        let directory = try TemporaryDirectory("lock-follow")
        defer { directory.remove() }
        let state = directory.path("state")
        let elsewhere = directory.path("elsewhere")
        for path in [state, elsewhere] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false) }
        chmod(state, 0o750)
        chmod(elsewhere, 0o750)
        let database = state + "/dust.sqlite"
        let lock = try DatabaseLock(databasePath: database)
        // Deleted and created again (a restore): the flock stayed on the old, unlinked file.
        unlink(database)
        #expect(FileManager.default.createFile(atPath: database, contents: Data()))
        chmod(database, 0o640)
        let link = elsewhere + "/dust.sqlite"
        #expect(link.withCString { to in database.withCString { from in Glibc.link(from, to) } } == 0)
        #expect(lockFailure(link) != nil)  // refused either way: the file has two names
        try lock.followReplacedDatabase()
        // Held now: a second dustd on the hard link is told another dustd has it, not merely that
        // the file has two names (which it would be told with no dustd running).
        guard case .held = try #require(lockFailure(link)) else {
            Issue.record("a second lock through the hard link was not refused as held")
            return
        }
    }

    @Test(
        "A database replaced under dustd is reopened once when the services a poll wakes find it together, and a lock already moved is kept at once"
    )
    func replacedReopenedOnce() async throws {
        let directory = try TemporaryDirectory("reopen-once")
        defer { directory.remove() }
        chmod(directory.url.path, 0o750)
        let database = directory.path("dust.sqlite")
        let lock = try DatabaseLock(databasePath: database)
        let logs = LogCapture()
        let daemon = DaemonDatabase(try SQLiteStore(path: database), lock: lock, logger: logs.logger())
        // A restore: another database renamed over the open one.
        let restored = directory.path("restored.sqlite")
        _ = try SQLiteStore(path: restored)
        #expect(rename(restored, database) == 0)
        for suffix in ["-wal", "-shm"] { unlink(database + suffix) }

        let stores = await withTaskGroup(of: ObjectIdentifier?.self) { group in
            for _ in 0..<8 { group.addTask { (try? daemon.current()).map { ObjectIdentifier($0 as AnyObject) } } }
            return await group.reduce(into: [ObjectIdentifier?]()) { $0.append($1) }
        }
        // One reopening, one move of the lock: a second one had waited ten seconds for the lock this process
        // holds, then logged "Could not lock … another dustd".
        #expect(Set(stores).count == 1 && !stores.contains(nil), "\(stores)")
        #expect(logs.text.components(separatedBy: "reopening it").count == 2, "\(logs.text)")
        #expect(!logs.text.contains("Could not lock"), "\(logs.text)")
        // Moved to the new file and held: asked again, it is kept, not refused as held by "another dustd".
        try lock.followReplacedDatabase()
        let link = directory.path("link.sqlite")
        #expect(Glibc.link(database, link) == 0)
        guard case .held = try #require(lockFailure(link)) else {
            Issue.record("the reopened database was not locked")
            return
        }
    }

    @Test(
        "A flock this process released but a copy of its descriptor still holds (a child on its way to exec) is waited for; another process's is refused at once"
    )
    func ownLockStillCopied() throws {
        let directory = try TemporaryDirectory("lock-copied")
        defer { directory.remove() }
        chmod(directory.url.path, 0o750)
        let database = directory.path("dust.sqlite")
        #expect(FileManager.default.createFile(atPath: database, contents: Data()))
        chmod(database, 0o640)
        // The copy a spawning child holds until it execs: a descriptor of this process, closed 0.3 s later by a
        // thread of its own (a block given to Dispatch's global queue was once not run within the lock's ten
        // seconds, at load 12 with two full runs side by side, 2026-12-04).
        let copy = open(database, O_RDWR | O_CLOEXEC)
        #expect(copy >= 0 && wholeFileLock(copy, LOCK_EX | LOCK_NB) == 0)
        try OwnThread.start {
            usleep(300_000)
            close(copy)
        }
        let started = Date()
        #expect(lockFailure(database) == nil, "refused while this process's own copy was being closed")
        #expect(Date().timeIntervalSince(started) >= 0.2)

        // Another process's lock is refused at once, naming it: on a file this process has not locked, so no
        // copy of a descriptor of ours can stand in the holder's way (twice at load 16 it did not have the
        // first file's lock within a minute). Waiting for the holder is done by reading /proc/locks, not by
        // trying the lock, for the same reason. One process holding it until it is killed.
        do {
            let database = directory.path("other.sqlite")
            #expect(FileManager.default.createFile(atPath: database, contents: Data()))
            chmod(database, 0o640)
            let holder = Process()
            holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            holder.arguments = [
                "-c", "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR); fcntl.flock(fd, fcntl.LOCK_EX); time.sleep(3600)",
                database,
            ]
            try holder.runReaped()
            // SIGKILL: a test process that ignores SIGTERM (dustd's signal tests) passes that on to its children.
            defer { kill(holder.processIdentifier, SIGKILL) }
            // Outside #expect: the macro would hand `stat` a copy of `status`, leaving this one zero.
            var status = stat()
            let statted = stat(database, &status)
            #expect(statted == 0)
            // What /proc/locks says of the file is printed if the holder does not have it in time.
            let deadline = Date().addingTimeInterval(240)
            while DatabaseLock.flockHolder(of: status, locks: DatabaseLock.kernelText("/proc/locks"))
                != holder.processIdentifier, Date() < deadline
            {
                Thread.sleep(forTimeInterval: 0.02)
            }
            let identity = ":\(UInt64(status.st_ino)) "
            let locks = DatabaseLock.kernelText("/proc/locks") ?? ""
            let lines = locks.split(separator: "\n").filter { $0.contains(identity) }
            #expect(
                lockFailure(database) == .held(databasePath: database, pid: holder.processIdentifier),
                "holder \(holder.processIdentifier), this process \(getpid()), running \(holder.isRunning); /proc/locks: \(lines)")
            // The fallback when /proc/locks loses the line: the holder's own open file says it holds the lock.
            #expect(DatabaseLock.flockHolderAmongOpenFiles(of: status) == holder.processIdentifier)
            let times = (0..<3).map { _ in
                let started = Date()
                _ = lockFailure(database)
                return Date().timeIntervalSince(started)
            }
            #expect(times.min()! < 0.5, "another process's lock was waited for: \(times)")
        }
    }

    @Test("A file of the kernel's is read to its end, not its first page (where a busy /proc/locks hid the holder's line)")
    func kernelTextWhole() throws {
        // This process's memory map: hundreds of lines, the stack and the vDSO at the end.
        let maps = try #require(DatabaseLock.kernelText("/proc/self/maps"))
        #expect(maps.utf8.count > 3 * 4096)
        #expect(maps.contains("[stack]") && maps.contains("[vdso]") && maps.hasSuffix("\n"))
        #expect(DatabaseLock.kernelText("/proc/no-such-file") == nil)
    }

    @Test("/proc/locks and a holder's fdinfo name the process holding a flock on a file, by device and inode")
    func flockHolderFromProcLocks() {
        var status = stat()
        status.st_dev = UInt(0x0801)
        status.st_ino = 5678
        let locks = """
            1: POSIX  ADVISORY  WRITE 111 08:01:5678 0 EOF
            2: FLOCK  ADVISORY  WRITE 4242 08:01:5678 0 EOF
            2: -> FLOCK  ADVISORY  WRITE 999 08:01:5678 0 EOF
            3: FLOCK  ADVISORY  WRITE 77 08:01:9999 0 EOF
            """
        #expect(DatabaseLock.flockHolder(of: status, locks: locks) == 4242)
        #expect(DatabaseLock.flockHolder(of: status, locks: "") == 0)
        // A holder's /proc/PID/fdinfo/N: the same fields after `lock:` and a tab.
        let fdinfo = "pos:\t0\nflags:\t02100002\nmnt_id:\t29\nino:\t5678\nlock:\t1: FLOCK  ADVISORY  WRITE 4243 08:01:5678 0 EOF\n"
        #expect(DatabaseLock.flockHolder(of: status, locks: fdinfo) == 4243)
    }
}

/// flock(2): Swift sees only the `struct flock` of fcntl under that name.
@_silgen_name("flock")
private func wholeFileLock(_ descriptor: Int32, _ operation: Int32) -> Int32

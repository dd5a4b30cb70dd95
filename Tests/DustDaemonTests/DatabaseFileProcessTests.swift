import DustKit
import DustStore
import FakeAirKorea
import Foundation
import GRDB
import TestSupport
import Testing

/// A directory with an empty configuration, and the environments dustctl and `dustd --once` run
/// with there, the database at `database` and AirKorea at `baseURL` (a fake one, or nowhere).
private struct Scene {
    let directory: TemporaryDirectory
    let configuration: String

    init(_ label: String) throws {
        directory = try TemporaryDirectory(label)
        configuration = directory.path("empty.yaml")
        try "# nothing\n".write(toFile: configuration, atomically: true, encoding: .utf8)
    }

    func dustctl(_ arguments: [String]) async throws -> ProcessResult {
        try await Executables.run("dustctl", arguments, environment: ["PATH": "/usr/bin:/bin", "DUSTD_CONFIG": configuration])
    }

    func dustdOnce(database: String, baseURL: String = "http://127.0.0.1:9") async throws -> ProcessResult {
        try await Executables.run(
            "dustd", ["--once"],
            environment: [
                "PATH": "/usr/bin:/bin", "DUSTD_CONFIG": configuration, "DUSTD_STATION_NAME": "종로구",
                "DUSTD_API_SERVICE_KEY": testKey, "DUSTD_API_BASE_URL": baseURL, "DUSTD_STORAGE_PATH": database,
                "DUSTD_FORECAST_ENABLED": "false",
            ])
    }
}

private let dailyFixture = TestFixtures.url("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml").path

@Suite("dustctl and dustd on a file they may not use as their database", .timeLimit(.minutes(10)))
struct DatabaseFileProcessTests {
    @Test("dustctl import and dustd --once refuse another program's SQLite database (65) and leave it byte for byte as it was")
    func otherProgramsDatabase() async throws {
        let scene = try Scene("other-program")
        defer { scene.directory.remove() }
        let path = scene.directory.path("otherapp.sqlite")
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(sql: "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes(body) VALUES ('x')")
        }
        try queue.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let daily = try TestFixtures.liveData("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let server = FakeAirKoreaServer { _ in .respond(status: 200, body: daily) }
        let baseURL = try await server.start()
        let imported = try await scene.dustctl(["import", "--db", path, dailyFixture])
        let once = try await scene.dustdOnce(database: path, baseURL: baseURL)
        await server.stop()
        #expect(imported.status == 65, "\(imported.standardError)")
        #expect(
            imported.standardError.contains("\(path) is not a usable FineDust database (it has no FineDust tables)"),
            "\(imported.standardError)")
        #expect(once.status == 65, "\(once.standardError)")
        #expect(once.standardError.contains("it has no FineDust tables"), "\(once.standardError)")
        #expect(server.requests.isEmpty, "dustd polled into another program's database")
        // Still in its rollback journal, its one table and row: not a byte written.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test(
        "A FIFO or a directory as the database, its -wal or its -shm: dustctl refuses at once (65), dustd too (78), in one sentence naming it",
        arguments: ["", "-wal", "-shm"], [true, false])
    func notARegularFile(suffix: String, fifo: Bool) async throws {
        let scene = try Scene("not-a-file")
        defer { scene.directory.remove() }
        let database = scene.directory.path("d.sqlite")
        if !suffix.isEmpty {
            // A FineDust database, its persistent -wal and -shm then replaced.
            _ = try SQLiteStore(path: database)
            for other in ["-wal", "-shm"] { unlink(database + other) }
        }
        let planted = database + suffix
        if fifo {
            #expect(mkfifo(planted, 0o640) == 0)
        } else {
            try FileManager.default.createDirectory(atPath: planted, withIntermediateDirectories: false)
        }
        // The FIFO held open for writing by this process: a program that opened it would then not
        // block but fail at its first read ("disk I/O error", 74), so a regression fails quickly;
        // then, with no writer, one that opened it would block forever (the suite's time limit).
        let writer = fifo ? open(planted, O_RDWR | O_NONBLOCK | O_CLOEXEC) : -1
        let sentence =
            "\(planted) is \(fifo ? "a FIFO" : "a directory"), not a regular file: a database and its -wal and -shm must be regular files (or not exist yet); remove it, or name another database path."
        for held in fifo ? [true, false] : [false] {
            if !held, writer >= 0 { close(writer) }
            let read = try await scene.dustctl(["day", "2026-11-20", "--station", "종로구", "--db", database])
            try #require(read.status == 65, "\(read.standardError)")
            #expect(read.standardError == "dustctl: \(sentence)\n")
            let written = try await scene.dustctl(["import", "--db", database, dailyFixture])
            #expect(written.status == 65, "\(written.standardError)")
            #expect(written.standardError.contains(sentence), "\(written.standardError)")
            let once = try await scene.dustdOnce(database: database)
            #expect(once.status == 78, "\(once.standardError)")
            #expect(once.standardError.contains(sentence), "\(once.standardError)")
        }
    }

    @Test("A device as the database (/dev/null): dustctl refuses to read or write it (65), and leaves it as it is")
    func device() async throws {
        let scene = try Scene("device")
        defer { scene.directory.remove() }
        let sentence =
            "/dev/null is a character device, not a regular file: a database and its -wal and -shm must be regular files (or not exist yet); remove it, or name another database path."
        let read = try await scene.dustctl(["day", "2026-11-20", "--station", "종로구", "--db", "/dev/null"])
        #expect(read.status == 65 && read.standardError == "dustctl: \(sentence)\n", "\(read.standardError)")
        let written = try await scene.dustctl(["import", "--db", "/dev/null", dailyFixture])
        #expect(written.status == 65 && written.standardError.contains(sentence), "\(written.standardError)")
        var status = stat()
        #expect(lstat("/dev/null", &status) == 0 && status.st_mode & S_IFMT == S_IFCHR)
        #expect(!FileManager.default.fileExists(atPath: "/dev/null-wal"))
    }

    @Test(
        "A schema changed by hand (a table dropped, a column renamed) is a damaged database to dustctl: 65 with what is missing, not 74",
        arguments: [
            ("DROP TABLE measurement", "no such table: measurement"),
            ("ALTER TABLE measurement RENAME COLUMN pm25 TO fine", "no such column: pm25"),
        ])
    func schemaChangedByHand(change: String, missing: String) async throws {
        let scene = try Scene("altered")
        defer { scene.directory.remove() }
        let database = scene.directory.path("d.sqlite")
        let demo = try await scene.dustctl(["demo", "--db", database, "--fixtures", TestFixtures.url("").path])
        try #require(demo.status == 0, "\(demo.standardError)")
        let week = ["week", "--db", database, "--station", "종로구", "--end", "2026-11-20"]
        let before = try await scene.dustctl(week)
        try #require(before.status == 0, "\(before.standardError)")
        let queue = try DatabaseQueue(path: database)
        try await queue.write { try $0.execute(sql: change) }
        try queue.close()
        let after = try await scene.dustctl(week)
        #expect(after.status == 65, "\(after.standardError)")
        #expect(
            after.standardError.contains(
                "\(database) is not a usable FineDust database (its tables are not the ones its migrations made: \(missing))"),
            "\(after.standardError)")
    }

    @Test("A damaged page met at start ends dustd --once with 65 and the storage sentence, before it polls: never logged and carried on")
    func damagedDatabaseAtStart() async throws {
        let scene = try Scene("damaged")
        defer { scene.directory.remove() }
        let database = scene.directory.path("d.sqlite")
        let demo = try await scene.dustctl(["demo", "--db", database, "--fixtures", TestFixtures.url("").path])
        try #require(demo.status == 0, "\(demo.standardError)")
        // The root page of heart_rate: no poll reads or writes it, but the start's look for the key's
        // echoes reads every text of every table. The demo's writer checkpointed on closing: the
        // file holds every page.
        var readOnly = GRDB.Configuration()
        readOnly.readonly = true
        let (root, pageSize) = try await DatabaseQueue(path: database, configuration: readOnly).read { db in
            (
                try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'heart_rate'") ?? 0,
                try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0
            )
        }
        try #require(root > 1 && pageSize >= 512)
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: database))
        try file.seek(toOffset: UInt64((root - 1) * pageSize))
        try file.write(contentsOf: Data(repeating: 0xFF, count: pageSize))
        try file.close()
        let daily = try TestFixtures.liveData("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let server = FakeAirKoreaServer { _ in .respond(status: 200, body: daily) }
        let baseURL = try await server.start()
        let once = try await scene.dustdOnce(database: database, baseURL: baseURL)
        await server.stop()
        #expect(once.status == 65, "\(once.standardError)")
        #expect(once.standardError.contains("\(database) is not a usable FineDust database"), "\(once.standardError)")
        #expect(!once.standardError.contains("Could not check stored messages"), "\(once.standardError)")
        #expect(server.requests.isEmpty, "dustd polled into a damaged database")
    }

    @Test(
        "A row changed by hand (an hour not on the hour, an infinite value) is a damaged database: dustctl and dustd --once exit 65 naming the column, never stopped by a trap",
        arguments: [
            (
                "UPDATE measurement SET slot_start = slot_start + 60 WHERE slot_start = (SELECT max(slot_start) FROM measurement)",
                "slot_start"
            ),
            ("UPDATE measurement SET pm10 = 9e999 WHERE slot_start = (SELECT max(slot_start) FROM measurement)", "pm10"),
        ])
    func rowChangedByHand(change: String, column: String) async throws {
        let scene = try Scene("rowbyhand")
        defer { scene.directory.remove() }
        let database = scene.directory.path("d.sqlite")
        let demo = try await scene.dustctl(["demo", "--db", database, "--fixtures", TestFixtures.url("").path])
        try #require(demo.status == 0, "\(demo.standardError)")
        let queue = try DatabaseQueue(path: database)
        try await queue.write { try $0.execute(sql: change) }
        try queue.close()
        for command in [["day", "2026-11-20"], ["week", "--end", "2026-11-20"], ["today", "--now", "2026-11-20T22:00", "--json"]] {
            let run = try await scene.dustctl(command + ["--db", database, "--station", "종로구"])
            #expect(run.status == 65, "\(command): \(run.standardError)")
            #expect(run.standardError.contains("the column \(column) holds"), "\(command): \(run.standardError)")
        }
        let daily = try TestFixtures.liveData("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let server = FakeAirKoreaServer { _ in .respond(status: 200, body: daily) }
        let baseURL = try await server.start()
        let once = try await scene.dustdOnce(database: database, baseURL: baseURL)
        await server.stop()
        #expect(once.status != 132 && once.status != 134, "dustd was stopped by a trap: \(once.standardError)")
        if column == "slot_start" {
            // The poll reads the station's newest hour first: the damaged row is met there, and AirKorea is not
            // asked (a station taken for empty was backfilled with a MONTH request every poll).
            #expect(server.requests.isEmpty, "\(server.requests.map(\.rawTarget))")
            #expect(once.status == 65 && once.standardError.contains("the column slot_start holds"), "\(once.status) \(once.standardError)")
        }
    }

    @Test(
        "A member of the database's group reading it while dustd is stopped (no -shm, which only the owner may create) is told why and what to do, not to be given write access",
        .enabled(if: getuid() == 0, "needs root, to give the database another owner and group and read it as another user"))
    func groupMemberWithoutSharedMemory() async throws {
        let scene = try Scene("groupread")
        defer { scene.directory.remove() }
        let directory = scene.directory.path("d")
        let database = directory + "/dust.sqlite"
        let imported = try await scene.dustctl(["import", dailyFixture, "--db", database])
        try #require(imported.status == 0, "\(imported.standardError)")
        // As dustd leaves it: the directory 0750, the database, its -wal and -shm 0640, the group's members may read.
        #expect(chown(directory, 0, 4242) == 0 && chmod(directory, 0o750) == 0)
        for file in [database, database + "-wal", database + "-shm"] { #expect(chown(file, 0, 4242) == 0 && chmod(file, 0o640) == 0) }
        let (output, errors) = (scene.directory.path("out.txt"), scene.directory.path("err.txt"))
        // `ids`: the member as a login gives it; or real ids of root's with the member's effective ones (a setuid
        // wrapper), which the open is judged by, and so the diagnosis too.
        func readAsMember(ids: [String] = ["--reuid=65534", "--regid=4242"]) async throws -> (Int32, String) {
            let status = try await aside {
                try Spawn.run(
                    "/usr/bin/setpriv",
                    ids + [
                        "--clear-groups", Executables.url("dustctl").path, "day", "2026-11-20", "--station", "종로구", "--db", database,
                    ],
                    environment: ["PATH": "/usr/bin:/bin", "DUSTD_CONFIG": scene.configuration, "LC_ALL": "C"], standardOutput: output,
                    standardError: errors)
            }
            return (status, try String(contentsOfFile: errors, encoding: .utf8))
        }
        let (read, _) = try await readAsMember()
        #expect(read == 0, "a member reads while the -shm is there")
        // Another SQLite client closing last (the sqlite3 command) removes the -wal and -shm.
        #expect(unlink(database + "-shm") == 0 && unlink(database + "-wal") == 0)
        let (status, said) = try await readAsMember()
        #expect(status == 74, "\(said)")
        #expect(said.contains("it has no -shm file beside it") && said.contains("start dustd (systemctl start dustd)"), "\(said)")
        #expect(!said.contains("may read and write it"))
        let (setuid, saidToSetuid) = try await readAsMember(ids: ["--ruid=0", "--euid=65534", "--rgid=0", "--egid=4242"])
        #expect(setuid == 74 && saidToSetuid.contains("it has no -shm file beside it"), "\(setuid) \(saidToSetuid)")
    }

    /// Runs dustctl or dustd as `uid`:`gid` with no other groups (`setpriv`), returning its status and stderr.
    private func run(
        as uid: uid_t, _ gid: gid_t, _ scene: Scene, _ program: String, _ arguments: [String], environment: [String: String] = [:]
    ) async throws -> (Int32, String) {
        let (output, errors) = (scene.directory.path("out-\(uid).txt"), scene.directory.path("err-\(uid).txt"))
        let status = try await aside {
            try Spawn.run(
                "/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", Executables.url(program).path] + arguments,
                environment: ["PATH": "/usr/bin:/bin", "DUSTD_CONFIG": scene.configuration, "LC_ALL": "C"].merging(environment) { $1 },
                standardOutput: output, standardError: errors)
        }
        return (status, try String(contentsOfFile: errors, encoding: .utf8))
    }

    @Test(
        "Files of dustd's database that sudo made: root's new database and lock go to the directory's owner; one left as root's, a group not joined, a member writing are each named with the fix",
        .enabled(if: getuid() == 0, "needs root, to act as root and as other users"))
    func whoMayUseTheFiles() async throws {
        let scene = try Scene("owners")
        defer { scene.directory.remove() }
        let (daemon, group, stranger): (uid_t, gid_t, uid_t) = (4243, 4242, 65534)
        // Named as the system names them (numbers here, where neither has a name).
        let (owner, groupName) = (UnixAccount.name(ofUser: daemon), UnixAccount.name(ofGroup: group))
        let directory = scene.directory.path("d")
        #expect(mkdir(directory, 0o750) == 0 && chown(directory, daemon, group) == 0 && chmod(scene.directory.url.path, 0o755) == 0)
        let database = directory + "/dust.sqlite"
        // `sudo dustctl import` into dustd's empty directory: the new database is dustd's, as SQLite makes its -wal and -shm.
        let imported = try await scene.dustctl(["import", dailyFixture, "--db", database])
        try #require(imported.status == 0, "\(imported.standardError)")
        for file in [database, database + "-wal", database + "-shm"] {
            var status = stat()
            #expect(stat(file, &status) == 0 && status.st_uid == daemon && status.st_gid == group, "\(file): \(status.st_uid)")
        }
        let (again, said) = try await run(as: daemon, group, scene, "dustctl", ["import", dailyFixture, "--db", database])
        #expect(again == 0, "dustd's user writes the database root made: \(said)")

        // One left as root's by an older dustctl: dustd's user is told which file and the chown, not "the lock" or the directory.
        for file in [database, database + "-wal", database + "-shm"] { #expect(chown(file, 0, 0) == 0 && chmod(file, 0o640) == 0) }
        let (refused, why) = try await run(as: daemon, group, scene, "dustctl", ["import", dailyFixture, "--db", database])
        #expect(refused != 0)
        #expect(why.contains("may not read \(database)") && why.contains("it belongs to root, not to \(owner)"), "\(why)")
        let chownCommand = "`sudo chown \(owner):\(groupName) \(database) \(database)-wal \(database)-shm`"
        #expect(why.contains(chownCommand) && !why.contains("read and write it"), "\(why)")
        let (daemonRefused, daemonWhy) = try await run(
            as: daemon, group, scene, "dustd", ["--once"],
            environment: [
                "DUSTD_STATION_NAME": "종로구", "DUSTD_API_SERVICE_KEY": testKey, "DUSTD_API_BASE_URL": "http://127.0.0.1:9",
                "DUSTD_STORAGE_PATH": database, "DUSTD_FORECAST_ENABLED": "false",
            ])
        #expect(daemonRefused == 73, "\(daemonWhy)")
        #expect(daemonWhy.contains(chownCommand) && !daemonWhy.contains("Cannot take the lock"), "\(daemonWhy)")
        for file in [database, database + "-wal", database + "-shm"] { #expect(chown(file, daemon, group) == 0) }

        // Not yet in the group (README: usermod -aG, then log in again): told so, not "there is no database".
        let (outside, outsideWhy) = try await run(
            as: stranger, gid_t(stranger), scene, "dustctl", ["day", "2026-11-20", "--station", "종로구", "--db", database])
        #expect(outside != 0 && outside != 66, "\(outsideWhy)")
        #expect(outsideWhy.contains("may not enter \(directory)") && outsideWhy.contains("sudo usermod -aG \(groupName)"), "\(outsideWhy)")
        #expect(!outsideWhy.contains("There is no database"))
        // `status`, a new user's first command, too: not "no database yet" (never run, exit 3).
        let (status, statusWhy) = try await run(as: stranger, gid_t(stranger), scene, "dustctl", ["status", "--db", database])
        #expect(status != 0 && status != 3, "\(statusWhy)")
        #expect(statusWhy.contains("may not enter \(directory)"), "\(statusWhy)")
        // install.sh's configuration, 0640 root:dustd: the same advice, not only "Permission denied".
        let configuration = scene.directory.path("group.yaml")
        try "# the group's\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        #expect(chown(configuration, 0, group) == 0 && chmod(configuration, 0o640) == 0)
        let (unread, unreadWhy) = try await run(
            as: stranger, gid_t(stranger), scene, "dustctl", ["status", "--db", database], environment: ["DUSTD_CONFIG": configuration])
        #expect(
            unread == 78 && unreadWhy.contains("may not read \(configuration)")
                && unreadWhy.contains("members of the group \(groupName) may: `sudo usermod -aG \(groupName)"),
            "\(unreadWhy)")

        // A member reads; writing, is told to run as the owner, not to open the directory to the group.
        let (member, memberWhy) = try await run(
            as: stranger, group, scene, "dustctl", ["day", "2026-11-20", "--station", "종로구", "--db", database])
        #expect(member == 0, "\(memberWhy)")
        let (memberWrite, memberWriteWhy) = try await run(
            as: stranger, group, scene, "dustctl", ["import", dailyFixture, "--db", database])
        #expect(memberWrite != 0)
        // A user without a name is `sudo -u '#4243'`, the form sudo takes.
        let sudoUser = owner == String(daemon) ? "'#\(daemon)'" : owner
        #expect(memberWriteWhy.contains("may not write") && memberWriteWhy.contains("sudo -u \(sudoUser) dustctl"), "\(memberWriteWhy)")
    }
}

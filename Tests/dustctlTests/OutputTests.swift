import Foundation
import GRDB
import TestSupport
import Testing

/// How a dustctl run with a chosen stdout ended.
struct RawRun {
    var status: Int32
    var reason: Process.TerminationReason
    var standardError: String
}

/// Runs dustctl with `standardOutput` as its stdout (a device, a pipe) and stderr captured, `extra`
/// added to its environment.
func dustctl(_ arguments: [String], standardOutput: FileHandle, environment extra: [String: String] = [:]) async throws -> RawRun {
    let directory = try TemporaryDirectory("finedust-raw")
    defer { directory.remove() }
    let errPath = directory.path("stderr")
    _ = FileManager.default.createFile(atPath: errPath, contents: nil)
    let process = Process()
    process.executableURL = Executables.url("dustctl")
    process.arguments = arguments
    process.environment = dustctlEnvironment(extra)
    process.standardOutput = standardOutput
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
    process.standardInput = FileHandle.nullDevice
    try process.runReaped()
    await process.exited()
    return RawRun(
        status: process.terminationStatus, reason: process.terminationReason,
        standardError: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
}

/// `dustctl export` of eleven years (about 135 KB of CSV) to `path` under a file size limit of 64
/// blocks of 512 bytes (SQLite itself needs the -shm file's 32 KiB); `starting` is the shell's line
/// that starts dustctl (`$0`, its arguments `$@`), with what it does to SIGXFSZ first.
func exportPastFileSizeLimit(_ db: String, to path: String, starting: String) async throws -> RawRun {
    let shell = Process()
    shell.executableURL = URL(fileURLWithPath: "/bin/sh")
    shell.arguments = [
        "-c", "ulimit -f 64; \(starting)", Executables.url("dustctl").path,
        "export", "--from", "2016-01-01", "--to", "2026-12-31", "--station", "종로구", "--db", db, "--output", path,
    ]
    shell.environment = dustctlEnvironment()
    let errors = Pipe()
    shell.standardError = errors
    shell.standardOutput = FileHandle.nullDevice
    try shell.runReaped()
    let message = String(decoding: await errors.fileHandleForReading.readUntilEnd(), as: UTF8.self)
    await shell.exited()
    return RawRun(status: shell.terminationStatus, reason: shell.terminationReason, standardError: message)
}

/// File type, owner and mode of a path itself (not of what a symlink points to).
func fileStatus(_ path: String) -> stat {
    var status = stat()
    lstat(path, &status)
    return status
}

@Suite("dustctl output: stdout errors, closed pipes, --output", .timeLimit(.minutes(10)))
struct OutputTests {
    @Test(
        "Every command that prints exits 74 with one sentence when stdout is /dev/full",
        arguments: [
            ["export", "--week", "2026-W47"], ["hourly", "2026-11-20"], ["day", "2026-11-20"], ["week", "--end", "2026-11-20"],
            ["week", "--end", "2026-11-20", "--json"], ["status"],
        ])
    func fullDevice(command: [String]) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await demoDatabase(directory)
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let run = try await dustctl(command + ["--station", "종로구", "--db", db], standardOutput: full)
        #expect(run.reason == .exit, "dustctl crashed: \(run.standardError)")
        #expect(run.status == 74, "\(run.standardError)")
        #expect(run.standardError == "dustctl: Cannot write the output: No space left on device.\n")
    }

    @Test(
        "A closed pipe (dustctl week | head -1 after head exits) ends quietly with 0",
        arguments: [
            ["export", "--week", "2026-W47"], ["week", "--end", "2026-11-20"], ["hourly", "2026-11-20", "--json"],
        ])
    func closedPipe(command: [String]) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await demoDatabase(directory)
        var ends: [Int32] = [0, 0]
        let piped = pipe(&ends)  // outside #expect, which could hand `pipe` a copy of `ends`
        #expect(piped == 0 && ends[0] != ends[1])
        close(ends[0])
        let writeEnd = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        let run = try await dustctl(command + ["--station", "종로구", "--db", db], standardOutput: writeEnd)
        #expect(run.reason == .exit, "dustctl was killed by signal \(run.status): \(run.standardError)")
        #expect(run.status == 0)
        #expect(run.standardError.isEmpty)
    }

    @Test(
        "import and activity import store every file whatever happens to stdout: a closed pipe ends with 0, /dev/full with 74 saying the import ran to the end"
    )
    func storingCommandsFinish() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let files = [
            "synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml", "synthesized/station-gangnam-ver1.5-DAILY-24h00-from-real-json.xml",
            "synthesized/station-junggu-ver1.5-gases-dash-flag-implausible-2026-11-20.xml",
        ].map { TestFixtures.url($0).path }
        let activity = ["activity/demo-walk-jongno-2026-11-20.gpx", "activity/jongno-week-walks.csv"].map { TestFixtures.url($0).path }
        func stations(_ db: String) throws -> Set<String> {
            try Set(DatabaseQueue(path: db).read { try String.fetchAll($0, sql: "SELECT DISTINCT station FROM measurement") })
        }
        func sources(_ db: String) throws -> Int {
            try DatabaseQueue(path: db).read { try Int.fetchOne($0, sql: "SELECT count(DISTINCT source) FROM activity_source") ?? 0 }
        }
        for output in ["pipe", "full"] {
            let db = directory.path("\(output).sqlite")
            func stdout() throws -> FileHandle {
                guard output == "pipe" else { return try #require(FileHandle(forWritingAtPath: "/dev/full")) }
                var ends: [Int32] = [0, 0]
                let piped = pipe(&ends)
                #expect(piped == 0)
                close(ends[0])
                return FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
            }
            let imported = try await dustctl(["import"] + files + ["--db", db], standardOutput: try stdout(), environment: ["LC_ALL": "C"])
            #expect(imported.reason == .exit && imported.status == (output == "pipe" ? 0 : 74), "\(output): \(imported.standardError)")
            #expect(try stations(db) == ["종로구", "강남구", "중구"], "\(output)")
            let people = directory.path("people.yaml")
            try "people:\n  - name: jiho\n    born: \"1988-04\"\n".write(toFile: people, atomically: true, encoding: .utf8)
            let tracked = try await dustctl(
                ["activity", "import"] + activity + ["--db", db, "--config", people], standardOutput: try stdout(),
                environment: ["LC_ALL": "C"])
            #expect(tracked.reason == .exit && tracked.status == (output == "pipe" ? 0 : 74), "\(output): \(tracked.standardError)")
            #expect(try sources(db) == 2, "\(output)")
            if output == "full" {
                #expect(
                    imported.standardError.contains(
                        "Cannot write the output: No space left on device. The import ran to the end all the same."))
                #expect(tracked.standardError.contains("The import ran to the end all the same."))
            } else {
                #expect(imported.standardError.isEmpty && tracked.standardError.isEmpty)
            }
        }
    }

    @Test("status keeps its answer, the exit status, when the reader of its pipe has gone (dustctl status | grep -q …)")
    func statusThroughClosedPipe() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await demoDatabase(directory)
        let read = try await dustctl(["status", "--db", db, "--station", "종로구"], standardOutput: FileHandle.nullDevice)
        #expect(read.status != 0, "dustd is not running for the demo's database")
        for json in [false, true] {
            var ends: [Int32] = [0, 0]
            let piped = pipe(&ends)
            #expect(piped == 0)
            close(ends[0])
            let unread = try await dustctl(
                ["status", "--db", db, "--station", "종로구"] + (json ? ["--json"] : []),
                standardOutput: FileHandle(fileDescriptor: ends[1], closeOnDealloc: true))
            #expect(unread.reason == .exit && unread.status == read.status, "\(unread.standardError)")
        }
    }

    @Test("--help on a full stdout exits 74 too; --help on a terminal or file still prints")
    func help() async throws {
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let run = try await dustctl(["week", "--help"], standardOutput: full)
        #expect(run.status == 74)
        #expect(run.standardError == "dustctl: Cannot write the output: No space left on device.\n")
        let help = try await dustctl("week", "--help")
        #expect(help.status == 0)
        #expect(help.standardOutput.contains("dustctl week --end 2026-11-20"))
        let usage = try await dustctl("week", "--end", "tomorrow")
        #expect(usage.status == 64)
        #expect(usage.standardError.contains("The value 'tomorrow' is invalid for '--end <YYYY-MM-DD>'"))
    }

    @Test("--output refuses a symlink, FIFO, device and directory with 73 and leaves each as it was")
    func outputRefusesNonRegularFiles() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await demoDatabase(directory)
        let target = directory.path("target.csv")
        try "old\n".write(toFile: target, atomically: false, encoding: .utf8)
        let link = directory.path("link.csv")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let fifo = directory.path("fifo.csv")
        #expect(mkfifo(fifo, 0o644) == 0)
        let subdirectory = directory.path("folder.csv")
        try FileManager.default.createDirectory(atPath: subdirectory, withIntermediateDirectories: false)
        var refused = [(link, S_IFLNK, "a symbolic link"), (fifo, S_IFIFO, "a FIFO"), (subdirectory, S_IFDIR, "a directory")]
        // A character device like /dev/full (major 1, minor 7), made here rather than risking the
        // real /dev/full; only root may make one, so elsewhere the device case is left out.
        let device = directory.path("full.csv")
        if mknod(device, S_IFCHR | 0o666, (1 << 8) | 7) == 0 {
            refused.append((device, S_IFCHR, "a character device"))
        }
        for (path, type, kind) in refused {
            let result = try await dustctl("export", "--week", "2026-W47", "--station", "종로구", "--db", db, "--output", path)
            #expect(result.status == 73, "\(path): \(result.standardError)")
            #expect(
                result.standardError
                    == "dustctl: \(path) is \(kind); --output only creates or replaces regular files, so it was left alone.\n")
            #expect(fileStatus(path).st_mode & S_IFMT == type, "\(path) was replaced")
        }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "old\n")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains("dustctl-") }.isEmpty)
    }

    @Test("--output over an existing file keeps its owner and mode (another user's 0600 file, as root)")
    func outputKeepsOwnerAndMode() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await demoDatabase(directory)
        let path = directory.path("week.csv")
        try "old\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(chmod(path, 0o600) == 0)
        // As root the file goes to nobody (65534), as it would be when root exports into a user's
        // file; as anyone else the owner stays theirs and only the mode is checked.
        let owner: (uid_t, gid_t) = getuid() == 0 ? (65534, 65534) : (getuid(), getgid())
        #expect(chown(path, owner.0, owner.1) == 0)
        let result = try await dustctl("export", "--week", "2026-W47", "--station", "종로구", "--db", db, "--output", path)
        #expect(result.status == 0, "\(result.standardError)")
        let status = fileStatus(path)
        #expect(status.st_mode & S_IFMT == S_IFREG)
        #expect(status.st_mode & 0o7777 == 0o600)
        #expect(status.st_uid == owner.0 && status.st_gid == owner.1)
        let csv = try String(contentsOfFile: path, encoding: .utf8)
        #expect(csv.hasPrefix("date,station,pm10_hours,"))
        #expect(csv.split(separator: "\n").count == 8)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains("dustctl-") }.isEmpty)
    }

    @Test("--output creates a new file 0640 less the umask")
    func outputNewFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await demoDatabase(directory)
        let path = directory.path("new.csv")
        let result = try await dustctl("export", "--week", "2026-W47", "--station", "종로구", "--db", db, "--output", path)
        #expect(result.status == 0, "\(result.standardError)")
        // Read, not set: umask(2) would change it for the tests running alongside.
        let umaskLine = try String(contentsOfFile: "/proc/self/status", encoding: .utf8).split(separator: "\n").first {
            $0.hasPrefix("Umask:")
        }
        let mask = try #require(umaskLine.flatMap { mode_t($0.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8) })
        #expect(fileStatus(path).st_mode & 0o7777 == 0o640 & ~mask)
        #expect(fileStatus(path).st_uid == getuid())
    }

    @Test("A write error on --output exits 74 and leaves the existing file whole (file size limit of 32 KiB)")
    func outputWriteError() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await demoDatabase(directory)
        let path = directory.path("year.csv")
        try "old\n".write(toFile: path, atomically: false, encoding: .utf8)
        // write(2) fails with EFBIG once SIGXFSZ is ignored (an ignored signal stays ignored across exec).
        let run = try await exportPastFileSizeLimit(db, to: path, starting: "trap '' XFSZ; exec \"$0\" \"$@\"")
        #expect(run.reason == .exit && run.status == 74, "\(run.standardError)")
        #expect(run.standardError == "dustctl: Cannot write \(path): File too large; the existing file was left as it was.\n")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains("dustctl-") }.isEmpty)
    }

    @Test("dustctl killed while writing --output (SIGXFSZ at a 32 KiB file size limit) leaves the old file and no copy of its own")
    func outputKilledWhileWriting() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await demoDatabase(directory)
        let path = directory.path("year.csv")
        try "old\n".write(toFile: path, atomically: false, encoding: .utf8)
        // As above, but SIGXFSZ gets its default action back (the test process may ignore it, and a
        // shell cannot undo that): the kernel kills dustctl in the middle of write(2), as a kill -9 or
        // a power cut would, with no chance to clean up. The new copy was a file without a name until
        // whole, so nothing of it is left in the directory.
        let run = try await exportPastFileSizeLimit(db, to: path, starting: "exec env --default-signal=XFSZ \"$0\" \"$@\"")
        #expect(run.reason == .uncaughtSignal && run.status == SIGXFSZ, "\(run.standardError)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old\n")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains("dustctl-") }
        #expect(left.isEmpty, "left behind: \(left)")
    }

    @Test("--output - is standard output, as for every Unix tool: the same bytes, no file named -, no byte order mark")
    func outputDash() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await demoDatabase(directory)
        let plain = try await dustctl("export", "--week", "2026-W47", "--station", "종로구", "--db", db)
        let dash = try await dustctl(
            ["export", "--week", "2026-W47", "--station", "종로구", "--db", db, "--output", "-"], in: directory.url)
        #expect(dash.status == 0, "\(dash.standardError)")
        #expect(dash.standardOutput == plain.standardOutput)
        #expect(dash.standardOutput.hasPrefix("date,station,"))
        #expect(!FileManager.default.fileExists(atPath: directory.path("-")))
        let person = try await dustctl(["person", "export", "me", "--db", db, "--output", "-"], in: directory.url)
        #expect(person.status == 0, "\(person.standardError)")
        #expect(person.standardOutput.hasPrefix("{"))
        #expect(!FileManager.default.fileExists(atPath: directory.path("-")))
    }

    @Test("export --json is --format json; --json with --format csv is a usage error naming both")
    func exportJSONFlag() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await demoDatabase(directory)
        let flag = try await dustctl("export", "--week", "2026-W47", "--station", "종로구", "--db", db, "--json")
        let option = try await dustctl("export", "--week", "2026-W47", "--station", "종로구", "--db", db, "--format", "json")
        #expect(flag.status == 0, "\(flag.standardError)")
        #expect(flag.standardOutput == option.standardOutput)
        let days = try #require(try JSONSerialization.jsonObject(with: Data(flag.standardOutput.utf8)) as? [[String: Any]])
        #expect(days.map { $0["date"] as? String } == (16...22).map { "2026-11-\($0)" })
        let both = try await dustctl("export", "--week", "2026-W47", "--station", "종로구", "--db", db, "--json", "--format", "csv")
        #expect(both.status == 64)
        #expect(both.standardError.contains("--json") && both.standardError.contains("--format csv"))
        #expect(both.standardOutput.isEmpty)
    }

    @Test("export --output and person export --output never name the database's own files: 64, the database left as it was")
    func outputNeverTheDatabase() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("dust.sqlite")
        #expect(try await dustctl("demo", "--db", db, "--fixtures", TestFixtures.url("").path).status == 0)
        let household = TestFixtures.url("demo-household.yaml").path
        let link = directory.path("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: db)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        // The file by another spelling, its -wal and -journal (absent now, read by SQLite once there).
        let spellings = [db, directory.path("./././dust.sqlite"), directory.path("sub/../dust.sqlite"), db + "-wal", db + "-journal"]
        try FileManager.default.createDirectory(atPath: directory.path("sub"), withIntermediateDirectories: true)
        for target in spellings {
            let export = try await dustctl(
                "export", "--from", "2026-11-14", "--to", "2026-11-20", "--db", db, "--config", household, "--output", target,
                environment: ["LC_ALL": "C"])
            #expect(
                export.status == 64 && export.standardError.contains("is one of the database's own files"),
                "\(target): \(export.standardError)")
            let person = try await dustctl(
                "person", "export", "jiho", "--db", db, "--config", household, "--output", target, environment: ["LC_ALL": "C"])
            #expect(
                person.status == 64 && person.standardError.contains("is one of the database's own files"),
                "\(target): \(person.standardError)")
        }
        // Through a link to the database, the file it names and the -wal beside it.
        let viaLink = try await dustctl(
            "export", "--from", "2026-11-20", "--to", "2026-11-20", "--db", link, "--station", "종로구", "--output", db + "-wal",
            environment: ["LC_ALL": "C"])
        #expect(viaLink.status == 64 && viaLink.standardError.contains("is one of the database's own files"), "\(viaLink.standardError)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        #expect(!FileManager.default.fileExists(atPath: db + "-journal"))
        #expect(try await dustctl("day", "2026-11-20", "--db", db, "--station", "종로구").status == 0)
        // Beside it is fine.
        let beside = try await dustctl(
            "export", "--from", "2026-11-20", "--to", "2026-11-20", "--db", db, "--station", "종로구", "--output", directory.path("dust.csv"))
        #expect(beside.status == 0, "\(beside.standardError)")
    }

}

import AirKorea
import DustStore
import Foundation
import GRDB
import TestSupport
import Testing

@Suite("dustctl backup (docs/REFERENCE.md §15, Backups)", .timeLimit(.minutes(10)))
struct BackupCommandTests {
    @Test("While a writer holds its hours in the -wal (dustd running), the backup holds every one; cp of the file holds none of them")
    func whileWritten() async throws {
        let directory = try TemporaryDirectory("finedust-backup")
        defer { directory.remove() }
        let live = directory.path("dust.sqlite")
        // A writer that stays open, as dustd does: what it wrote is in the -wal until a checkpoint.
        let store = try SQLiteStore(path: live)
        let page = try AirKoreaResponseParser().parseMeasurements(
            try TestFixtures.data("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"))
        _ = try await store.saveReadings(page.readings, fetchedAt: Date())
        let walBytes = try #require(try FileManager.default.attributesOfItem(atPath: live + "-wal")[.size] as? Int)
        #expect(walBytes > 0)
        try FileManager.default.copyItem(atPath: live, toPath: directory.path("cp.sqlite"))

        let copy = directory.path("backups/dust-copy.sqlite")
        try FileManager.default.createDirectory(atPath: directory.path("backups"), withIntermediateDirectories: true)
        let backedUp = try await dustctl("backup", copy, "--db", live)
        #expect(backedUp.status == 0, "\(backedUp.standardError)")
        #expect(backedUp.standardOutput.hasPrefix("Backed up \(live) to \(copy) ("))
        #expect(try count(copy) == 24)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: copy)[.posixPermissions] as? Int)
        #expect(mode == 0o600, "health data: the owner's alone, not \(String(mode, radix: 8))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path("backups")) == ["dust-copy.sqlite"], "no partial left")
        #expect((try? count(directory.path("cp.sqlite"))) != 24, "cp took the -wal's hours too: the test shows nothing")
        // The copy is a FineDust database dustctl reads as it reads the original.
        let week = ["week", "--station", "종로구", "--end", "2026-11-20", "--json"]
        #expect(try await dustctl(week + ["--db", copy]).standardOutput == (try await dustctl(week + ["--db", live])).standardOutput)

        // Again, over the first: replaced whole.
        _ = try await store.saveReadings(
            page.readings.map {
                var reading = $0
                reading.station = "중구"
                return reading
            }, fetchedAt: Date())
        #expect(try await dustctl("backup", copy, "--db", live).status == 0)
        #expect(try count(copy) == 48)
    }

    @Test("The database's own files, a directory or a place that cannot be written: refused, nothing written")
    func refusals() async throws {
        let directory = try TemporaryDirectory("finedust-backup")
        defer { directory.remove() }
        let live = directory.path("dust.sqlite")
        #expect(try await dustctl("demo", "--db", live, "--fixtures", TestFixtures.url("").path).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: live))
        // (A -journal not there yet is the database's too: SQLite would take the copy for a hot journal and delete it.)
        for own in [live, live + "-wal", live + "-journal", directory.url.path] {
            let refused = try await dustctl("backup", own, "--db", live)
            #expect(refused.status == 64, "\(own): \(refused.standardError)")
            #expect(!FileManager.default.fileExists(atPath: live + "-journal"))
        }
        // Nothing --output would not replace: a FIFO, a symbolic link, a device (as root, `backup /dev/null` once
        // turned the machine's /dev/null into a copy of the database). Each left as it was, 73.
        let fifo = directory.path("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let link = directory.path("link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: directory.path("elsewhere"))
        var kept = [(fifo, S_IFIFO), (link, S_IFLNK)]
        let device = directory.path("null")  // 1:3, as /dev/null (glibc's makedev is a macro Swift cannot call)
        if getuid() == 0, mknod(device, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0 { kept.append((device, S_IFCHR)) }
        for (path, kind) in kept {
            let refused = try await dustctl("backup", path, "--db", live)
            #expect(refused.status == 73 && refused.standardError.contains("left alone"), "\(path): \(refused.standardError)")
            var status = stat()
            #expect(lstat(path, &status) == 0 && status.st_mode & S_IFMT == kind, "\(path) is as it was")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path("elsewhere")))
        // An empty name is a usage error, for backup and for --output alike.
        for arguments in [["backup", ""], ["export", "--station", "종로구", "--output", ""], ["person", "export", "dad", "--output", ""]] {
            let empty = try await dustctl(arguments + ["--db", live])
            #expect(empty.status == 64 && empty.standardError.contains("is to write is empty"), "\(arguments): \(empty.standardError)")
        }
        let nowhere = try await dustctl("backup", "/nonexistent/dust.sqlite", "--db", live)
        #expect(nowhere.status == 73 && nowhere.standardError.contains("Cannot write a backup in /nonexistent"), "\(nowhere.standardError)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: live)) == before)
        let postgres = try await dustctl(
            ["backup", directory.path("x.sqlite")], environment: ["DUSTD_STORAGE_URL": "postgresql://dustd@127.0.0.1:9/dust"])
        #expect(postgres.status == 64 && postgres.standardError.contains("pg_dump"), "\(postgres.standardError)")
    }

    @Test(
        "The partial copies a killed backup left (hidden, as large as the database) are removed by the next backup there; a live one's are not"
    )
    func abandonedPartialsRemoved() async throws {
        let directory = try TemporaryDirectory("finedust-backup")
        defer { directory.remove() }
        let live = directory.path("dust.sqlite")
        #expect(try await dustctl("demo", "--db", live, "--fixtures", TestFixtures.url("").path).status == 0)
        // The PID of a process that has ended, as a SIGKILLed dustctl's is.
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.runReaped()
        ended.waitUntilExit()
        let gone = ended.processIdentifier
        let endedToo = Process()
        endedToo.executableURL = URL(fileURLWithPath: "/bin/true")
        try endedToo.runReaped()
        endedToo.waitUntilExit()
        let sqlite = Data("SQLite format 3\0".utf8) + Data(repeating: 7, count: 100)
        let journal = Data([0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7]) + Data(repeating: 1, count: 100)
        let abandoned = [
            // Yesterday's cron backup, killed; and an older dustctl's partial copy of today's name.
            (".daily-2026-12-05.sqlite.dustctl-backup-\(gone)", sqlite),
            (".daily-2026-12-05.sqlite.dustctl-backup-\(gone)-journal", journal),
            (".daily-2026-12-06.sqlite.backup-\(gone)", sqlite),
        ]
        let kept = [
            // A live dustctl's, someone's own backups by date, a name that is no backup, a file that is no database.
            (".running.sqlite.dustctl-backup-\(getpid())", sqlite), (".zshrc.backup-20240101", Data("alias ll='ls -l'\n".utf8)),
            (".notes.backup-old", sqlite), ("daily-2026-12-04.sqlite", sqlite), (".text.backup-\(gone)", Data("not SQLite".utf8)),
            // Another program's copies of the shape an older dustctl gave its own: only this backup's name is taken.
            (".places.sqlite.backup-\(gone)", sqlite), (".daily-2026-12-04.sqlite.backup-\(gone)", sqlite),
        ]
        let anHourAgo = Date().addingTimeInterval(-7200)
        for (name, contents) in abandoned + kept {
            #expect(
                FileManager.default.createFile(atPath: directory.path(name), contents: contents, attributes: [.posixPermissions: 0o600]))
            try FileManager.default.setAttributes([.modificationDate: anHourAgo], ofItemAtPath: directory.path(name))
        }
        // One just written (another machine's backup under way in a shared directory) is left too.
        let fresh = ".shared.sqlite.dustctl-backup-\(endedToo.processIdentifier)"
        #expect(FileManager.default.createFile(atPath: directory.path(fresh), contents: sqlite, attributes: [.posixPermissions: 0o600]))
        let result = try await dustctl("backup", directory.path("daily-2026-12-06.sqlite"), "--db", live)
        #expect(result.status == 0, "\(result.standardError)")
        for (name, _) in abandoned { #expect(!FileManager.default.fileExists(atPath: directory.path(name)), "\(name)") }
        for (name, _) in kept + [(fresh, sqlite)] { #expect(FileManager.default.fileExists(atPath: directory.path(name)), "\(name)") }
    }

    private func count(_ path: String) throws -> Int {
        var readOnly = Configuration()
        readOnly.readonly = true
        return try DatabaseQueue(path: path, configuration: readOnly).read {
            try Int.fetchOne($0, sql: "SELECT count(*) FROM measurement") ?? 0
        }
    }
}

import DustKit
import DustStore
import Foundation
import TestSupport
import Testing

/// Foundation's `deletingLastPathComponent` traps on a name of one character: `export --output a`,
/// `backup z` and `--db i` crashed dustctl (SIGILL, 132), and `--db i` left an empty database file behind.
@Suite("Files of one-letter names, and names that are no file's", .timeLimit(.minutes(10)))
struct OneLetterNamesTests {
    @Test("export, person export, backup and import write files of one letter in the working directory")
    func oneLetter() async throws {
        let directory = try TemporaryDirectory("finedust-one-letter")
        defer { directory.remove() }
        let here = directory.url
        let demo = try await dustctl("demo", "--db", "d", "--fixtures", TestFixtures.url("").path, in: here)
        #expect(demo.status == 0, "\(demo.standardError)")
        let household = ["--config", TestFixtures.url("demo-household.yaml").path, "--db", "d"]

        let export = try await dustctl(["export", "--week", "2026-W47", "--output", "a"] + household, in: here)
        #expect(export.status == 0, "\(export.standardError)")
        let csv = try String(contentsOfFile: directory.path("a"), encoding: .utf8)
        #expect(csv.hasPrefix("\u{FEFF}date,station,") == false && csv.hasPrefix("date,station,"), "\(csv.prefix(40))")
        #expect(csv.split(separator: "\n").count == 8)

        let person = try await dustctl(["person", "export", "jiho", "--output", "b"] + household, in: here)
        #expect(person.status == 0, "\(person.standardError)")
        #expect(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.path("b")))) is [String: Any])

        let backup = try await dustctl(["backup", "z"] + household, in: here)
        #expect(backup.status == 0, "\(backup.standardError)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.path("z"))).prefix(16) == Data("SQLite format 3\0".utf8))

        let fixture = TestFixtures.url("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml").path
        let imported = try await dustctl("import", "--db", "i", "--station", "종로구", fixture, in: here)
        #expect(imported.status == 0, "\(imported.standardError)")
        let week = try await dustctl("week", "--db", "i", "--station", "종로구", "--end", "2026-11-20", "--json", in: here)
        #expect(week.status == 0 && week.standardOutput.contains("\"station\""), "\(week.standardError)")

        // The database's directory is made when it is missing, and a bare name needs none.
        try SQLiteStore.createDirectoryIfNeeded(forDatabase: "x")
        try SQLiteStore.createDirectoryIfNeeded(forDatabase: directory.path("new/x"))
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: directory.path("new"), isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    @Test("A name ending in / is a directory's (73, nothing written); dustd's lock file is the database's own (64)")
    func notAFile() async throws {
        let directory = try TemporaryDirectory("finedust-not-a-file")
        defer { directory.remove() }
        let here = directory.url
        #expect(try await dustctl("demo", "--db", "d", "--fixtures", TestFixtures.url("").path, in: here).status == 0)
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: directory.url.path))

        let slash = try await dustctl("export", "--db", "d", "--station", "종로구", "--output", "x.csv/", in: here)
        #expect(slash.status == 73, "\(slash.standardError)")
        #expect(slash.standardError.contains("x.csv/ ends in /, a directory's name"), "\(slash.standardError)")
        for arguments in [["export", "--db", "d", "--station", "종로구", "--output", "d.lock"], ["backup", "d.lock", "--db", "d"]] {
            let lock = try await dustctl(arguments, in: here)
            #expect(lock.status == 64, "\(arguments): \(lock.standardError)")
            #expect(lock.standardError.contains("d.lock is one of the database's own files"), "\(lock.standardError)")
        }
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory.url.path)) == before)
    }
}

import Foundation
import TestSupport
import Testing

/// A directory anyone may write to, as /tmp is: sticky (1777) or not (0777).
private func sharedDirectory(_ directory: TemporaryDirectory, sticky: Bool) throws -> String {
    let shared = directory.path(sticky ? "sticky" : "open")
    try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
    #expect(chmod(shared, sticky ? 0o1777 : 0o777) == 0)
    return shared
}

private let nobody: uid_t = 65534

@Suite(
    "Files the way sshd treats them: no planted link or stranger's file in a shared directory is written through",
    .serialized, .timeLimit(.minutes(10)))
struct PlantedFileTests {
    @Test(
        "dustctl demo, import and activity import refuse a planted symbolic or hard link to another database (73), which stays as it was",
        arguments: [true, false], ["symbolic", "hard"])
    func plantedLink(sticky: Bool, kind: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let victim = try await demoDatabase(directory)
        let before = try Data(contentsOf: URL(fileURLWithPath: victim))
        let shared = try sharedDirectory(directory, sticky: sticky)
        let planted = shared + "/finedust-demo.sqlite"
        if kind == "symbolic" {
            #expect(symlink(victim, planted) == 0)
        } else {
            #expect(link(victim, planted) == 0)
        }
        let csv = directory.path("walk.csv")
        try Data("start,distance_m\n2026-11-20 18:00,1500\n".utf8).write(to: URL(fileURLWithPath: csv))
        for arguments in [
            ["demo", "--db", planted, "--fixtures", TestFixtures.url("").path],
            ["activity", "import", csv, "--db", planted],
            ["import", TestFixtures.url("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml").path, "--db", planted],
        ] {
            let result = try await dustctl(arguments)
            #expect(result.status == 73, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(kind == "symbolic" ? "symbolic link" : "hard links"), "\(result.standardError)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: victim)) == before)
    }

    @Test(
        "export --output refuses a file another user planted (nobody, 0666) in a shared directory, and a hard link; the file keeps its bytes"
    )
    func plantedOutput() async throws {
        guard geteuid() == 0 else {
            // chown to another user needs root; CI runs the suite as root.
            print("PlantedFileTests.plantedOutput: skipped, not root (a file of another user cannot be made)")
            return
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await demoDatabase(directory)
        for sticky in [true, false] {
            let shared = try sharedDirectory(directory, sticky: sticky)
            let planted = shared + "/week.csv"
            try Data("theirs\n".utf8).write(to: URL(fileURLWithPath: planted))
            #expect(chown(planted, nobody, gid_t(nobody)) == 0 && chmod(planted, 0o666) == 0)
            let result = try await dustctl("export", "--week", "2026-W47", "--station", "종로구", "--db", db, "--output", planted)
            #expect(result.status == 73, "\(result.standardError)")
            #expect(result.standardError.contains("belongs to another user"), "\(result.standardError)")
            #expect(try String(contentsOfFile: planted, encoding: .utf8) == "theirs\n")
            #expect(fileStatus(planted).st_uid == nobody)
            // A database of theirs there is not written to either.
            let theirDB = shared + "/their.sqlite"
            try FileManager.default.copyItem(atPath: db, toPath: theirDB)
            #expect(chown(theirDB, nobody, gid_t(nobody)) == 0)
            let demo = try await dustctl("demo", "--db", theirDB, "--fixtures", TestFixtures.url("").path)
            #expect(demo.status == 73, "\(demo.standardError)")
        }
        let linked = directory.path("linked.csv")
        let other = directory.path("other.csv")
        try Data("other\n".utf8).write(to: URL(fileURLWithPath: other))
        #expect(link(other, linked) == 0)
        let result = try await dustctl("export", "--week", "2026-W47", "--station", "종로구", "--db", db, "--output", linked)
        #expect(result.status == 73, "\(result.standardError)")
        #expect(try String(contentsOfFile: other, encoding: .utf8) == "other\n")
    }

    @Test("A database only read may be the user's own link (to dustd's database, say); a stranger's in a shared directory is refused")
    func readThroughOwnLink() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await demoDatabase(directory)
        let mine = directory.path("mine.sqlite")
        #expect(symlink(db, mine) == 0)
        let day = try await dustctl("day", "2026-11-20", "--station", "종로구", "--db", mine)
        #expect(day.status == 0, "\(day.standardError)")
        guard geteuid() == 0 else { return }
        let shared = try sharedDirectory(directory, sticky: true)
        let planted = shared + "/finedust-demo.sqlite"
        #expect(symlink(db, planted) == 0)
        #expect(lchown(planted, nobody, gid_t(nobody)) == 0)
        let refused = try await dustctl("day", "2026-11-20", "--station", "종로구", "--db", planted)
        #expect(refused.status == 66, "\(refused.standardError)")
    }
}

@Suite("Columns never run together, whatever the numbers (issue 36, W7)", .timeLimit(.minutes(10)))
struct WideNumberTests {
    @Test("A day of 9,999 µg/m³: every column of day and week keeps a space from the next")
    func wideNumbers() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let items = (1...24).map { hour in
            "<item><stationName>종로구</stationName><dataTime>2026-11-20 \(hour < 10 ? "0" : "")\(hour):00</dataTime>"
                + "<pm10Value>9999</pm10Value><pm25Value>9998</pm25Value></item>"
        }.joined()
        let xml =
            "<response><header><resultCode>00</resultCode><resultMsg>NORMAL_CODE</resultMsg></header><body><items>\(items)</items>"
            + "<numOfRows>100</numOfRows><pageNo>1</pageNo><totalCount>24</totalCount></body></response>"
        let file = directory.path("wide.xml")
        try xml.write(toFile: file, atomically: true, encoding: .utf8)
        let db = directory.path("wide.sqlite")
        let imported = try await dustctl("import", file, "--db", db)
        #expect(imported.status == 0, "\(imported.standardError)")
        for arguments in [["day", "2026-11-20"], ["week", "--end", "2026-11-20"], ["hourly", "2026-11-20"]] {
            let result = try await dustctl(arguments + ["--station", "종로구", "--db", db])
            #expect(result.status == 0, "\(arguments): \(result.standardError)")
            // Two numbers run together read as one with two decimal points: 1656000.0828000.0.
            let glued = result.standardOutput.split(separator: "\n").filter { line in
                line.range(of: #"[0-9]\.[0-9]+\.[0-9]"#, options: .regularExpression) != nil
            }
            #expect(glued.isEmpty, "\(arguments): \(glued)")
        }
    }
}

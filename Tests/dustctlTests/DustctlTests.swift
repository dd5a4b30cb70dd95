import DustKit
import DustStore
import Foundation
import TestSupport
import Testing

/// An empty configuration file, so a developer's /etc/dustd/dustd.yaml cannot change test results.
/// One per user, reused by every run (each used to leave its own behind in /tmp); written under a
/// temporary name and renamed, so a test process running beside this one never reads half a file.
let emptyConfiguration: String = {
    let directory = FileManager.default.temporaryDirectory
    let path = directory.appendingPathComponent("finedust-tests-empty-\(getuid()).yaml").path
    let contents = Data("# defaults only\n".utf8)
    if FileManager.default.contents(atPath: path) != contents {
        let temporary = directory.appendingPathComponent("finedust-tests-empty-\(getuid())-\(getpid()).yaml").path
        _ = FileManager.default.createFile(atPath: temporary, contents: contents, attributes: [.posixPermissions: 0o644])
        _ = rename(temporary, path)
    }
    return path
}()

/// Runs dustctl with a clean environment: no DUSTD_ variables from the host, an empty configuration.
func dustctl(_ arguments: String..., environment extra: [String: String] = [:], in directory: URL? = nil) async throws -> ProcessResult {
    try await dustctl(arguments, environment: extra, in: directory)
}

func dustctl(_ arguments: [String], environment extra: [String: String] = [:], in directory: URL? = nil) async throws -> ProcessResult {
    try await Executables.run("dustctl", arguments, environment: dustctlEnvironment(extra), currentDirectory: directory)
}

/// A suite whose tests each have one now, which their data is stored for and every dustctl they run
/// is given (`FINEDUST_NOW`): midnight in Korea between two of them then fails nothing.
protocol AtOneNow {
    var now: PinnedNow { get }
}

extension AtOneNow {
    /// `dustctl ARGS` at the test's now.
    func dustctlNow(_ arguments: String..., environment extra: [String: String] = [:]) async throws -> ProcessResult {
        try await dustctl(arguments, environment: now.environment.merging(extra) { $1 })
    }
}

/// The host's environment without its DUSTD_ variables, reading the empty configuration, plus `extra`.
func dustctlEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("DUSTD_") }
    environment["DUSTD_CONFIG"] = emptyConfiguration
    environment["NO_COLOR"] = "1"
    environment.merge(extra) { $1 }
    return environment
}

func fixture(_ path: String) -> String { TestFixtures.url(path).path }

/// The rows of `dustctl hourly --json` as dictionaries.
func hourlyRows(_ output: String) throws -> [[String: Any]] {
    let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
    return try #require(object?["hourly"] as? [[String: Any]])
}

@Suite("dustctl import and hourly", .timeLimit(.minutes(10)))
struct ImportTests {
    @Test("Every well-formed real sample imports and reads back with the right hours and values")
    func realSamples() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("dust.sqlite")
        for (file, station) in [
            ("real/rltm-station-oldapi-roadside-2019-02-12-10rows-boostcamp.xml", "강남대로"),
            ("real/rltm-station-oldapi-ver1.3-2020-01-22-numOfRows1.xml", "종로구"),
        ] {
            let result = try await dustctl("import", fixture(file), "--station", station, "--db", db)
            #expect(result.status == 0, "\(result.standardError)")
        }
        let result = try await dustctl(
            "import", fixture("real/rltm-sido-oldapi-gyeonggi-ver1.3-2019-11-28-truncated.xml"),
            fixture("real/rltm-sido-newapi-seoul-nover-2023-05-31-truncated.xml"),
            fixture("synthesized/station-gangnam-ver1.5-DAILY-24h00-from-real-json.xml"), "--db", db)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("2 readings (2 new, 0 revised, 0 unchanged)"))

        let roadside = try hourlyRows(try await dustctl("hourly", "2019-02-12", "--station", "강남대로", "--db", db, "--json").standardOutput)
        #expect(roadside.map { $0["start"] as? String } == (10...19).map { "2019-02-12T\($0):00:00+09:00" })
        #expect(roadside.map { $0["pm10"] as? Double } == [95, 90, 83, 81, 88, 85, 79, 68, 69, 67])
        #expect(roadside.map { $0["pm25"] as? Double } == [57, 62, 53, 52, 52, 50, 41, 35, 30, 27])
        #expect(roadside.allSatisfy { $0["station"] as? String == "강남대로" })

        let jongno2020 = try hourlyRows(try await dustctl("hourly", "2020-01-22", "--station", "종로구", "--db", db, "--json").standardOutput)
        #expect(jongno2020.count == 1)
        #expect(jongno2020.first?["start"] as? String == "2020-01-22T15:00:00+09:00")
        #expect(jongno2020.first?["pm10"] as? Double == 52 && jongno2020.first?["pm25"] as? Double == 33)

        let sinpung = try hourlyRows(try await dustctl("hourly", "2019-11-28", "--station", "신풍동", "--db", db, "--json").standardOutput)
        #expect(
            sinpung.map { [$0["start"] as? String, ($0["pm10"] as? Double).map { "\($0)" }, ($0["pm25"] as? Double).map { "\($0)" }] }
                == [["2019-11-28T17:00:00+09:00", "35.0", "14.0"]])

        let noVersion = try hourlyRows(try await dustctl("hourly", "2023-05-31", "--station", "종로구", "--db", db, "--json").standardOutput)
        #expect(noVersion.count == 1)
        #expect(noVersion.first?["pm10"] as? Double == 19)
        #expect(noVersion.first?["pm25"] is NSNull)

        let gangnam = try hourlyRows(try await dustctl("hourly", "2026-08-20", "--station", "강남구", "--db", db, "--json").standardOutput)
        #expect(
            gangnam.map { $0["start"] as? String } == [
                "2026-08-20T14:00:00+09:00", "2026-08-20T16:00:00+09:00", "2026-08-20T18:00:00+09:00", "2026-08-20T23:00:00+09:00",
            ])
        #expect(gangnam[1]["pm10"] is NSNull)
        #expect((gangnam[1]["flags"] as? [String: Any])?["pm10"] as? String == "통신장애")
        #expect(gangnam[3]["pm10"] as? Double == 41 && gangnam[3]["pm25"] as? Double == 36)
    }

    @Test("Importing the same file twice changes nothing")
    func twice() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("dust.sqlite")
        let file = fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        #expect(try await dustctl("import", file, "--db", db).standardOutput.contains("24 readings (24 new, 0 revised, 0 unchanged)"))
        #expect(try await dustctl("import", file, "--db", db).standardOutput.contains("24 readings (0 new, 0 revised, 24 unchanged)"))
    }

    @Test("Each item not stored is counted under its own reason, and items repeating an hour are counted, in both languages and the JSON")
    func itemsCountedByReason() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("dust.sqlite")
        func item(_ name: String, _ time: String, _ pm10: Int) -> String {
            "<item><stationName>\(name)</stationName><dataTime>\(time)</dataTime><pm10Value>\(pm10)</pm10Value><pm25Value>9</pm25Value></item>"
        }
        // Five items: one stored, one repeating its hour (the last kept), one without a valid time, one whose
        // station name is not Korean text (U+202E), one with both faults (counted once, for its time).
        let body =
            "<response><header><resultCode>00</resultCode></header><body><items>"
            + item("종로구", "2026-11-20 10:00", 30) + item("종로구", "2026-11-20 10:00", 31) + item("종로구", "2026-11-20 25:00", 32)
            + item("종로구\u{202E}", "2026-11-20 11:00", 33) + item("\u{202E}", "yesterday", 34)
            + "</items><totalCount>5</totalCount></body></response>"
        let file = directory.path("mixed.xml")
        try body.write(toFile: file, atomically: true, encoding: .utf8)
        let english = try await dustctl("import", file, "--db", db, environment: ["LC_ALL": "C"])
        #expect(english.status == 0, "\(english.standardError)")
        #expect(
            english.standardOutput.contains(
                "2 readings (1 new, 0 revised, 0 unchanged, 2 items without a valid dataTime skipped, "
                    + "1 items with a station name that is not Korean text skipped, "
                    + "1 items repeating another's station and hour (the last one kept))"), "\(english.standardOutput)")
        let korean = try await dustctl("import", file, "--db", db, environment: ["LANG": "ko_KR.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""])
        #expect(
            korean.standardOutput.contains(
                "측정값 2개 (새 값 0, 고친 값 0, 그대로 1, dataTime이 올바르지 않은 항목 2개 건너뜀, "
                    + "측정소 이름이 한글 텍스트가 아닌 항목 1개 건너뜀, 다른 항목과 측정소·시각이 같은 항목 1개 (마지막 것을 씀))"),
            "\(korean.standardOutput)")
        let json = try await dustctl("import", file, "--db", db, "--json")
        // The keys in the order REFERENCE §6 and `import --help` give them.
        #expect(
            json.standardOutput.contains(
                #""skippedItems":2,"refusedStationName":1,"datedBefore2000":0,"future":0,"repeated":1}"#), "\(json.standardOutput)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let entry = try #require((object["files"] as? [[String: Any]])?.first)
        #expect(entry["skippedItems"] as? Int == 2 && entry["refusedStationName"] as? Int == 1 && entry["repeated"] as? Int == 1)
        #expect(entry["readings"] as? Int == 2 && entry["unchanged"] as? Int == 1)
        let hourly = try hourlyRows(try await dustctl("hourly", "2026-11-20", "--station", "종로구", "--db", db, "--json").standardOutput)
        #expect(hourly.compactMap { $0["pm10"] as? Double } == [31])
    }

    @Test(
        "A file that is not a valid response is named with its error and exits 65; the good file beside it is stored",
        arguments: [
            "synthesized/html-503-service-unavailable.html", "synthesized/truncated-daily.xml", "hostile/billion-laughs.xml",
            "real/error-oldapi-22-limited-number-of-service-requests-exceeds.xml",
            "real/error-gateway-05-servicetimeout-json-airkorea.json",
            "real/rltm-station-oldapi-roadside-2019-02-12-10rows-boostcamp.xml", "synthesized/empty-body.xml",
        ])
    func invalidFile(file: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("dust.sqlite")
        #expect(try await dustctl("import", fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"), "--db", db).status == 0)
        let result = try await dustctl(
            "import", fixture("synthesized/station-gangnam-ver1.5-DAILY-24h00-from-real-json.xml"), fixture(file), "--db", db)
        #expect(result.status == 65)
        let errors = result.standardError.split(separator: "\n")
        #expect(errors.count == 2, "\(result.standardError)")
        #expect(errors.first?.hasPrefix("dustctl: \(fixture(file)): ") == true)
        #expect(errors.last == "dustctl: Imported 1 of 2 files; 1 failed.")
        let store = try SQLiteStore(path: db, mode: .readOnly)
        #expect(try await store.readingCount(station: "종로구") == 24)
        #expect(try await store.readingCount(station: "강남구") == 7)
    }

    @Test("Import of a directory with one HTML page among good responses stores the good ones and names the bad one")
    func importStandsAlone() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let inbox = directory.path("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: false)
        for name in [
            "synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml", "synthesized/html-503-service-unavailable.html",
            "synthesized/station-gangnam-ver1.5-DAILY-24h00-from-real-json.xml",
            "real/rltm-sido-oldapi-gyeonggi-ver1.3-2019-11-28-truncated.xml",
        ] {
            try FileManager.default.copyItem(
                atPath: fixture(name), toPath: (inbox as NSString).appendingPathComponent((name as NSString).lastPathComponent))
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: inbox).sorted().map {
            (inbox as NSString).appendingPathComponent($0)
        }
        let db = directory.path("dust.sqlite")
        let result = try await dustctl(["import"] + files + ["--db", db])
        #expect(result.status == 65)
        let html = (inbox as NSString).appendingPathComponent("html-503-service-unavailable.html")
        let errors = result.standardError.split(separator: "\n").map(String.init)
        #expect(errors.count == 2, "\(result.standardError)")
        #expect(errors.first?.hasPrefix("dustctl: \(html): ") == true)
        #expect(errors.last == "dustctl: Imported 3 of 4 files; 1 failed.")
        #expect(result.standardOutput.split(separator: "\n").count == 3)
        let store = try SQLiteStore(path: db, mode: .readOnly)
        #expect(try await store.readingCount(station: "종로구") == 24)
        #expect(try await store.readingCount(station: "강남구") == 7)
        #expect(try await store.readingCount(station: "신풍동") == 1)
    }

    @Test("Exit codes: missing file 66, missing database 66, bad usage 64, bad configuration 78")
    func exitCodes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let missingFile = try await dustctl("import", directory.path("nope.xml"), "--db", directory.path("d.sqlite"))
        #expect(missingFile.status == 66)
        #expect(!FileManager.default.fileExists(atPath: directory.path("d.sqlite")))
        let missingDatabase = try await dustctl("today", "--station", "종로구", "--db", directory.path("absent.sqlite"))
        #expect(missingDatabase.status == 66)
        #expect(missingDatabase.standardError.contains("dustctl import"))
        #expect(try await dustctl("day", "2026-13-01", "--station", "종로구", "--db", directory.path("d.sqlite")).status == 64)
        #expect(try await dustctl("export", "--from", "2026-11-20", "--db", directory.path("d.sqlite")).status == 64)
        let badConfig = try await dustctl("today", "--db", directory.path("d.sqlite"), environment: ["DUSTD_POLL_MINUTE": "99"])
        #expect(badConfig.status == 78)
        #expect(badConfig.standardError.contains("poll.minute"))
        #expect(try await dustctl("--help").status == 0)
        #expect(try await dustctl("export", "--help").standardOutput.contains("Example"))
    }

    @Test("A host TZ of America/New_York changes nothing: days come from the configured zone")
    func hostTimeZone() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("dust.sqlite")
        #expect(try await dustctl("import", fixture("synthesized/station-jongno-ver1.5-3MONTH-2026-11-20.xml"), "--db", db).status == 0)
        let seoul = try await dustctl("day", "2026-11-20", "--station", "종로구", "--db", db, "--json", environment: ["TZ": "Asia/Seoul"])
        let newYork = try await dustctl(
            "day", "2026-11-20", "--station", "종로구", "--db", db, "--json", environment: ["TZ": "America/New_York"])
        #expect(seoul.status == 0)
        #expect(seoul.standardOutput == newYork.standardOutput)
        let rows = try hourlyRows(newYork.standardOutput)
        #expect(rows.count == 24)
        #expect(rows.first?["start"] as? String == "2026-11-20T00:00:00+09:00")
        #expect(rows.last?["start"] as? String == "2026-11-20T23:00:00+09:00")
        #expect(rows.last?["pm10"] as? Double == 45)
    }
}

@Suite("dustctl crash safety", .timeLimit(.minutes(10)))
struct CrashSafetyTests {
    @Test("A killed import leaves integrity_check ok and no partial batch; importing again completes it")
    func killedImport() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let template = try String(contentsOf: TestFixtures.url("synthesized/station-jongno-ver1.5-3MONTH-2026-11-20.xml"), encoding: .utf8)
        let stations = (0..<40).map { "측정소\($0)" }
        var files: [String] = []
        for station in stations {
            let path = directory.path("\(station).xml")
            try template.replacingOccurrences(of: "<stationName>종로구</stationName>", with: "<stationName>\(station)</stationName>")
                .write(toFile: path, atomically: false, encoding: .utf8)
            files.append(path)
        }
        let db = directory.path("dust.sqlite")
        // Create the database so the test can watch it fill.
        #expect(try await dustctl("import", fixture("synthesized/empty-result-totalcount-0.xml"), "--db", db).status == 0)

        let process = Process()
        process.executableURL = Executables.url("dustctl")
        process.arguments = ["import"] + files + ["--db", db]
        process.environment = ["DUSTD_CONFIG": emptyConfiguration, "PATH": "/usr/bin:/bin"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runReaped()
        let watcher = try SQLiteStore(path: db, mode: .readOnly)
        let deadline = Date().addingTimeInterval(120)
        // Kill as soon as a few batches are in: the process is then writing the next one.
        while process.isRunning, Date() < deadline, try await watcher.readingCount() < 3 * 2200 {
            try await Task.sleep(for: .milliseconds(2))
        }
        // Only while it runs: once reaped, its PID may already be another program's (pid_max is 32768 here).
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        await process.exited()
        #expect(process.terminationReason == .uncaughtSignal)

        let store = try SQLiteStore(path: db)
        #expect(try store.integrityCheck() == ["ok"])
        var counts: [Int] = []
        for station in stations { counts.append(try await store.readingCount(station: station)) }
        #expect(counts.allSatisfy { $0 == 0 || $0 == 2200 }, "a batch was half-stored: \(counts)")
        #expect(counts.contains(2200) && counts.contains(0), "the kill did not land mid-import: \(counts)")

        let again = try await dustctl("import", files[0], "--db", db)
        #expect(again.status == 0)
        let rerun = try await dustctl(["import"] + files + ["--db", db])
        #expect(rerun.status == 0)
        for station in stations { #expect(try await store.readingCount(station: station) == 2200) }
    }
}

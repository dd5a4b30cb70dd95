import DustKit
import DustServices
import DustStore
import Foundation
import TestSupport
import Testing

@testable import dustctl

/// dustctl's own failures, refusals and warnings on stderr in Korean under a Korean locale and in
/// English (byte for byte as before) otherwise, with the same exit status (docs/REFERENCE.md §6, "Text").
@Suite("dustctl's own messages follow the locale: the same exit status, Korean or English lines", .timeLimit(.minutes(10)))
struct MessageLanguageTests {
    /// `LANG` Korean, and nothing before it in POSIX's order.
    static let korean = ["LANG": "ko_KR.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""]
    static let english = ["LC_ALL": "C"]

    /// Runs `arguments` in both locales: the same status, `status`, in both; stderr starts with the
    /// lines given and, when they are dustctl's own (`dustctl: …`), is exactly them.
    func expectBoth(
        _ arguments: [String], status: Int32, korean: [String], english: [String], environment: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        for (locale, lines) in [(Self.korean, korean), (Self.english, english)] {
            let run = try await dustctl(arguments, environment: environment.merging(locale) { $1 })
            #expect(run.status == status, "\(arguments) \(locale): \(run.standardError)", sourceLocation: sourceLocation)
            if lines.allSatisfy({ $0.hasPrefix("dustctl: ") }) {
                #expect(run.standardError == lines.map { $0 + "\n" }.joined(), "\(arguments)", sourceLocation: sourceLocation)
            } else {
                let shown = run.standardError.split(separator: "\n", omittingEmptySubsequences: false).prefix(lines.count).map(String.init)
                #expect(shown == lines, "\(arguments)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test("GlobalOptions, PersonOptions, dustctl's command names, output and storage failures, and the commands' refusals")
    func messages() async throws {
        let directory = try TemporaryDirectory("finedust-message-language")
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        let daily = fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let imported = try await dustctl("import", daily, "--db", db)
        #expect(imported.status == 0, "\(imported.standardError)")

        // GlobalOptions: --now, a station never stored (--station, then station.name), no station at all.
        try await expectBoth(
            ["day", "2026-11-20", "--db", db, "--station", "종로구", "--now", "noon"], status: 64,
            korean: ["dustctl: --now \"noon\"은(는) 시각이 아닙니다: YYYY-MM-DDTHH:MM(설정된 시간대)으로 쓰거나 오프셋을 붙이세요. 예: 2026-11-21T00:30+09:00."],
            english: [
                "dustctl: --now \"noon\" is not a time: write YYYY-MM-DDTHH:MM (the configured zone) or add an offset, e.g. 2026-11-21T00:30+09:00."
            ])
        try await expectBoth(
            ["day", "2026-11-20", "--db", db, "--station", "종로구"], status: 64,
            korean: [
                "dustctl: FINEDUST_NOW \"tomorrow\"은(는) 시각이 아닙니다: YYYY-MM-DDTHH:MM(설정된 시간대)으로 쓰거나 오프셋을 붙이세요. 예: 2026-11-21T00:30+09:00."
            ],
            english: [
                "dustctl: FINEDUST_NOW \"tomorrow\" is not a time: write YYYY-MM-DDTHH:MM (the configured zone) or add an offset, e.g. 2026-11-21T00:30+09:00."
            ], environment: ["FINEDUST_NOW": "tomorrow"])
        try await expectBoth(
            ["week", "--end", "2026-11-20", "--db", db, "--station", "종로구청"], status: 64,
            korean: ["dustctl: 측정소 종로구청의 측정값은 저장되어 있지 않습니다. 측정값이 있는 측정소: 종로구."],
            english: ["dustctl: No readings of a station 종로구청 are stored; stations with readings: 종로구."])
        let configuration = directory.path("dustd.yaml")
        try "station:\n  name: 종로구청\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        try await expectBoth(
            ["day", "2026-11-20", "--db", db, "--config", configuration], status: 78,
            korean: ["dustctl: 측정소 종로구청의 측정값은 저장되어 있지 않습니다. 측정값이 있는 측정소: 종로구. 설정 파일의 station.name이 이 데이터베이스에 없는 측정소를 가리킵니다."],
            english: [
                "dustctl: No readings of a station 종로구청 are stored; stations with readings: 종로구; station.name in the configuration file names no station this database holds."
            ])
        try await expectBoth(
            ["hourly", "2026-11-20", "--db", db], status: 64,
            korean: ["dustctl: 설정된 측정소가 없습니다. --station NAME을 주거나 설정 파일에 station.name을 쓰세요."],
            english: ["dustctl: No station is configured; pass --station NAME or set station.name in the configuration file."])
        // A misspelt variable: the loader's warning, then the command as usual.
        let warned = try await dustctl(
            ["person", "forget", "me", "--db", db], environment: Self.korean.merging(["DUSTD_POLL_MINUT": "3"]) { $1 })
        #expect(warned.status == 0)
        #expect(warned.standardError == "dustctl: 경고: 환경 변수 DUSTD_POLL_MINUT은(는) FineDust 설정이 아니어서 무시합니다 (혹시 DUSTD_POLL_MINUTE인가요?).\n")

        // PersonOptions: --person with --everyone (the parser's `Error:` line), an unknown person.
        try await expectBoth(
            ["week", "--person", "me", "--everyone", "--db", db], status: 64,
            korean: ["Error: --person과 --everyone은 함께 쓸 수 없습니다."], english: ["Error: --person and --everyone exclude each other."])
        try await expectBoth(
            ["today", "--person", "mom", "--db", db, "--station", "종로구"], status: 64,
            korean: ["dustctl: \"mom\"(이)라는 구성원은 설정되어 있지 않습니다. 설정된 구성원: me."],
            english: ["dustctl: no person \"mom\" is configured; configured people: me."])

        // DustCtl.main: a mistyped command, a group without its command.
        try await expectBoth(
            ["weak", "--db", db], status: 64, korean: ["dustctl: \"weak\"은(는) 명령이 아닙니다. 혹시 week인가요? 명령 목록은 dustctl --help에 있습니다."],
            english: ["dustctl: \"weak\" is not a command; did you mean week? (dustctl --help lists them)."])
        try await expectBoth(
            ["alerts", "--db", db], status: 64,
            korean: ["dustctl: \"--db\" 앞에 alerts의 명령 하나를 쓰세요: list, test. 각각 무엇을 하는지는 dustctl alerts --help에 있습니다."],
            english: ["dustctl: alerts needs one of its commands before \"--db\": list, test (dustctl alerts --help says what each does)."])
        try await expectBoth(
            ["stations", "lst"], status: 64,
            korean: [
                "dustctl: \"lst\" 앞에 stations의 명령 하나를 쓰세요: sync, import, list, nearest. 혹시 list인가요? 각각 무엇을 하는지는 dustctl stations --help에 있습니다."
            ],
            english: [
                "dustctl: stations needs one of its commands before \"lst\": sync, import, list, nearest; did you mean list? (dustctl stations --help says what each does)."
            ])

        // Support: the database's failures (the storage layer's kind, said with the path), an input that is no file.
        let missing = directory.path("missing.sqlite")
        try await expectBoth(
            ["week", "--db", missing, "--station", "종로구"], status: 66,
            korean: ["dustctl: \(missing)에 데이터베이스가 없습니다. `dustctl import FILE…`로 만들거나, dustd를 한 번 실행하거나, --db PATH를 주세요."],
            english: [
                "dustctl: There is no database at \(missing); create one with `dustctl import FILE…` or let dustd run once, or pass --db PATH."
            ])
        let junk = directory.path("junk.sqlite")
        try String(repeating: "not a database ", count: 100).write(toFile: junk, atomically: true, encoding: .utf8)
        try await expectBoth(
            ["day", "2026-11-20", "--db", junk, "--station", "종로구"], status: 65,
            korean: ["dustctl: \(junk) 파일은 쓸 수 있는 FineDust 데이터베이스가 아닙니다 (file is not a database). 백업에서 되살리거나 다른 곳으로 옮기세요."],
            english: [
                "dustctl: The file \(junk) is not a usable FineDust database (file is not a database); restore it from a backup or move it aside."
            ])
        let folder = directory.path("responses")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try await expectBoth(
            ["import", folder, "--db", db], status: 66,
            korean: ["dustctl: \(folder)은(는) 일반 파일이 아닙니다.", "dustctl: 파일 1개 중 0개 가져옴; 1개 실패."],
            english: ["dustctl: \(folder) is not a regular file.", "dustctl: Imported 0 of 1 files; 1 failed."])
        // import --json's error is English in every locale, as all JSON is the same.
        let json = try await dustctl(["import", folder, "--db", db, "--json"], environment: Self.korean)
        #expect(json.status == 66 && json.standardOutput.contains("responses is not a regular file.\""), "\(json.standardOutput)")

        // Commands: a date naming no day, week's options, forecast's region, indoor's sensor, nearest, advisories, alerts.
        try await expectBoth(
            ["day", "2026-11-31", "--db", db], status: 64,
            korean: [
                "Error: The value '2026-11-31' is invalid for '<YYYY-MM-DD>': 2026-11-31은(는) 없는 날입니다: 2026-11은(는) 30일까지 있습니다. 2000-01-01부터 2099-12-31 사이의 날을 주세요."
            ],
            english: [
                "Error: The value '2026-11-31' is invalid for '<YYYY-MM-DD>': 2026-11-31 is not a day: 2026-11 has 30 days; give a day from 2000-01-01 to 2099-12-31."
            ])
        try await expectBoth(
            ["week", "--end", "2026-11-20", "--iso", "2026-W47", "--db", db], status: 64,
            korean: ["Error: --end와 --iso는 함께 쓸 수 없습니다."], english: ["Error: --end and --iso exclude each other."])
        // A mistyped --station is named as such (below); the province FineDust cannot place is one of a database
        // that holds no hour yet (a new one, no poll or station list stored).
        let empty = directory.path("empty.sqlite")
        _ = try SQLiteStore(path: empty)
        try await expectBoth(
            ["forecast", "--db", db, "--station", "없는곳", "--now", "2026-11-20T12:00"], status: 64,
            korean: ["dustctl: 측정소 없는곳의 측정값은 저장되어 있지 않습니다. 측정값이 있는 측정소: 종로구."],
            english: ["dustctl: No readings of a station 없는곳 are stored; stations with readings: 종로구."])
        try await expectBoth(
            ["forecast", "--db", empty, "--station", "없는곳", "--now", "2026-11-20T12:00"], status: 78,
            korean: [
                "dustctl: FineDust가 아직 측정소의 시도를 모릅니다(저장된 측정도 측정소 목록도 없음). forecast.region(또는 DUSTD_FORECAST_REGION)을 "
                    + "서울, 제주, 전남, 전북, 광주, 경남, 경북, 울산, 대구, 부산, 충남, 충북, 세종, 대전, 영동, 영서, 경기남부, 경기북부, 인천 중 하나로 설정하거나, dustctl stations sync를 실행하세요."
            ],
            english: [
                "dustctl: FineDust does not know the station's province yet (no poll or station list stored); set forecast.region (or DUSTD_FORECAST_REGION) to one of "
                    + "서울, 제주, 전남, 전북, 광주, 경남, 경북, 울산, 대구, 부산, 충남, 충북, 세종, 대전, 영동, 영서, 경기남부, 경기북부, 인천, or run dustctl stations sync."
            ])
        try await expectBoth(
            ["indoor", "import", directory.path("monitor.csv"), "--sensor", "den", "--db", db], status: 64,
            korean: ["dustctl: --sensor \"den\"은(는) 설정된 측정기가 아닙니다. indoor.sensors에 추가하세요(내보내기만 되는 측정기는 kind: import)."],
            english: [
                "dustctl: --sensor \"den\" is not a configured sensor; add it to indoor.sensors (kind: import for a monitor with only an export)."
            ])
        try await expectBoth(
            ["stations", "nearest", "--lat", "91", "--lon", "127", "--db", db], status: 64,
            korean: ["Error: --lat은 ±90, --lon은 ±180 안이어야 합니다."], english: ["Error: --lat must be within ±90 and --lon within ±180."])
        try await expectBoth(
            ["advisories", "--year", "1999", "--db", db], status: 64,
            korean: ["Error: --year는 2000부터 2099까지의 해여야 합니다. 1999은(는) 그 밖입니다."],
            english: ["Error: --year must be a year from 2000 to 2099, not 1999."])
        try await expectBoth(
            ["alerts", "list", "--last", "0", "--db", db], status: 64,
            korean: ["Error: --last는 1부터 1000까지여야 합니다."], english: ["Error: --last must be from 1 to 1000."])
        try await expectBoth(
            ["person", "signout", "--db", db], status: 64,
            korean: ["Error: 구성원 한 명의 이름이나 --administrator 중 하나만 주세요."], english: ["Error: Name one person, or give --administrator."])

        // What stays English under a Korean locale: the parser's own usage errors.
        let usage = try await dustctl(["day", "--db", db], environment: Self.korean)
        #expect(usage.status == 64 && usage.standardError.hasPrefix("Error: Missing expected argument '<YYYY-MM-DD>'\n"))
    }

    @Test("indoor import: its summary in Korean with the English run's counts; a configured sensor's name and a bad line's refusal")
    func indoorImport() async throws {
        let directory = try TemporaryDirectory("finedust-message-indoor")
        defer { directory.remove() }
        let (config, db, file) = (directory.path("dustd.yaml"), directory.path("dust.sqlite"), directory.path("monitor.csv"))
        try "station:\n  name: 종로구\nindoor:\n  sensors:\n    - {name: old-monitor, kind: import}\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        // Ten minutes, one of them implausible, the last written twice.
        let rows = (0..<10).map { "2026-11-20 10:0\($0),\($0 == 3 ? "-4" : "9"),20" } + ["2026-11-20 10:09,8,20"]
        try ("time,pm25,pm10\n" + rows.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let arguments = ["indoor", "import", file, "--sensor", "old-monitor", "--db", db, "--config", config]
        let korean = try await dustctl(arguments, environment: Self.korean)
        let english = try await dustctl(arguments, environment: Self.english)
        #expect(korean.status == 0 && english.status == 0, "\(korean.standardError)\(english.standardError)")
        #expect(
            korean.standardOutput
                == "\(file): old-monitor 측정기의 표본 10개 (2026-11-20 10:00부터 2026-11-20 10:09까지), 실내 값이 있는 시간 0개 (30분 이상 채워진 시간); "
                + "믿기 어려운 값 1개는 알 수 없는 값으로 저장, 같은 분이 다시 나온 행 1개 (나중 행을 남김).\n")
        #expect(
            english.standardOutput
                == "\(file): 10 samples of old-monitor from 2026-11-20 10:00 to 2026-11-20 10:09, an indoor value for 0 hours (at least 30 minutes covered); "
                + "1 implausible values stored as unknown, 1 rows of a minute given again (the later kept).\n")
        try await expectBoth(
            ["indoor", "import", file, "--sensor", "study", "--db", db, "--config", config], status: 64,
            korean: ["dustctl: --sensor \"study\"은(는) 설정된 측정기가 아닙니다. 설정된 측정기: old-monitor."],
            english: ["dustctl: --sensor \"study\" is not a configured sensor; configured: old-monitor."])
        try "time,pm25\n2026-11-20 10:00,lots\n".write(toFile: file, atomically: true, encoding: .utf8)
        try await expectBoth(
            arguments, status: 65,
            korean: ["dustctl: \(file): line 2: pm25 must be a number of µg/m³ (or empty), not \"lots\". 아무것도 저장하지 않았습니다."],
            english: ["dustctl: \(file): line 2: pm25 must be a number of µg/m³ (or empty), not \"lots\"; nothing was stored."])
    }

    @Test("A stdout that cannot be written: exit 74 and one sentence, Korean or English")
    func output() async throws {
        let directory = try TemporaryDirectory("finedust-message-output")
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        #expect(try await dustctl("import", fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"), "--db", db).status == 0)
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let arguments = ["day", "2026-11-20", "--station", "종로구", "--db", db]
        let korean = try await dustctl(arguments, standardOutput: full, environment: Self.korean)
        let english = try await dustctl(arguments, standardOutput: full, environment: Self.english)
        #expect(korean.status == 74 && english.status == 74)
        // The system's reason (strerror) is the system's: dustctl does not set its C locale.
        #expect(korean.standardError == "dustctl: 출력을 쓸 수 없습니다: No space left on device.\n")
        #expect(english.standardError == "dustctl: Cannot write the output: No space left on device.\n")
    }

    @Test("Every SQLite failure's sentence is recognised and said in Korean with its path and reason; others are left as written")
    func storageSentences() {
        let path = "/var/lib/dustd/dust (old).sqlite"
        let cases: [(SQLiteFailure, String)] = [
            (
                .databaseMissing(path: path),
                "\(path)에 데이터베이스가 없습니다. `dustctl import FILE…`로 만들거나, dustd를 한 번 실행하거나, --db PATH를 주세요."
            ),
            (
                .cannotOpen(path: path, reason: .given("unable to open database file")),
                "데이터베이스 \(path)을(를) 열 수 없습니다 (unable to open database file). 디렉터리가 있는지, 이 사용자가 읽고 쓸 수 있는지 확인하세요."
            ),
            (
                .cannotOpen(path: path, reason: .cannotCreateDirectory("Permission denied")),
                "데이터베이스 \(path)을(를) 열 수 없습니다 (디렉터리를 만들 수 없습니다: Permission denied). 디렉터리가 있는지, 이 사용자가 읽고 쓸 수 있는지 확인하세요."
            ),
            (.diskFull(path: path), "\(path)이(가) 있는 디스크가 가득 찼습니다. 아무것도 쓰지 않았고 저장된 데이터는 그대로입니다. 공간을 비운 뒤 다시 해 보세요."),
            (.busy(path: path), "데이터베이스 \(path)을(를) 다른 프로세스가 잠그고 있습니다(SQLite: busy). 다시 해 보세요."),
            (
                .corrupt(path: path, reason: .noFineDustTables),
                "\(path) 파일은 쓸 수 있는 FineDust 데이터베이스가 아닙니다 (FineDust 테이블이 없습니다). 백업에서 되살리거나 다른 곳으로 옮기세요."
            ),
            (.schemaTooNew(path: path), "데이터베이스 \(path)은(는) 더 새로운 FineDust가 썼습니다. dustd와 dustctl을 업그레이드하세요."),
            (
                .notARegularFile(path: path, file: path + "-wal", type: .fifo),
                "\(path)-wal은(는) 일반 파일이 아니라 FIFO(이름 있는 파이프)입니다. 데이터베이스와 그 -wal, -shm은 일반 파일이어야(또는 아직 없어야) 합니다. "
                    + "지우거나 다른 데이터베이스 경로를 지정하세요."
            ),
            (.io(path: path, reason: "disk I/O error"), "데이터베이스 \(path)을(를) 읽거나 쓰지 못했습니다 (disk I/O error)."),
        ]
        for (failure, korean) in cases {
            #expect(StorageText.korean(StorageFailure(failure)) == korean, "\(failure)")
            // The English is the sentence as before, byte for byte.
            #expect(StorageFailure(failure).description == failure.description)
        }
        let upgrade = StorageFailure(SQLiteFailure.cannotOpen(path: path, reason: .olderSchema))
        #expect(
            upgrade.description
                == "Cannot open the database \(path) (an older FineDust wrote it and this version reads it only once it is upgraded; restart dustd (systemctl restart dustd), which upgrades it, then try again); check that the directory exists and that this user may read and write it."
        )
        #expect(
            StorageText.korean(upgrade)
                == "데이터베이스 \(path)을(를) 열 수 없습니다 (예전 FineDust가 쓴 것이라 업그레이드되어야 이 버전이 읽습니다. dustd를 다시 시작하면(systemctl restart dustd) 업그레이드되니, 그 뒤에 다시 해 보세요). 디렉터리가 있는지, 이 사용자가 읽고 쓸 수 있는지 확인하세요."
        )
        // A row the shared statements could not read (DustSQL's `StorageFailure(_:database:)`).
        let problem = "the column samples holds text where FineDust expects another kind of value"
        let decoding = StorageFailure(
            kind: .unusable, description: "The database \(path) cannot be read: \(problem).",
            detail: .init(database: path, reason: .unreadableRow(problem)))
        #expect(StorageText.korean(decoding) == "데이터베이스 \(path)을(를) 읽을 수 없습니다: \(problem).")
        // A PostgreSQL server's sentence, or any failure without its parts, stays as written.
        let server = StorageFailure(kind: .unreachable, description: "Cannot reach the PostgreSQL server of dust@db:5432/dust.")
        #expect(StorageText.korean(server) == nil)
        #expect(StorageText.korean(StorageFailure(kind: .diskFull, description: "The disk is full.")) == nil)
    }

    @Test("Typed dates and weeks, forecast regions and the settings' warning in Korean; the English is the layer's own")
    func otherLayers() {
        let refusals: [(TypedPeriodError, String)] = [
            (.notADate("2026-13-01"), "2026-13-01의 13월은 없는 달입니다: 달은 01부터 12까지입니다. 2000-01-01부터 2099-12-31 사이의 날을 주세요."),
            (.notADate("2026-02-29"), "2026-02-29은(는) 없는 날입니다: 2026-02은(는) 28일까지 있습니다. 2000-01-01부터 2099-12-31 사이의 날을 주세요."),
            (.notADate("tomorrow"), "날짜는 YYYY-MM-DD로, 2000-01-01부터 2099-12-31 사이에서 쓰세요."),
            (.notAWeek("2026-47"), "주는 YYYY-Www(예: 2026-W47)로, 일곱 날이 모두 2000-01-01부터 2099-12-31 사이에 드는 주를 쓰세요."),
            (
                .notAWeek("2027-W53"),
                "2027-W53은(는) 없는 주입니다: 2027년은 ISO 주가 52주까지 있고, 마지막 주는 2027-W52(2027-12-27부터 2028-01-02까지)입니다. "
                    + "일곱 날이 모두 2000-01-01부터 2099-12-31 사이에 드는 주를 쓰세요."
            ),
            (
                .notAWeek("2026-W00"),
                "2026-W00은(는) 없는 주입니다: 2026년은 ISO 주가 53주까지 있고, 마지막 주는 2026-W53(2026-12-28부터 2027-01-03까지)입니다. "
                    + "일곱 날이 모두 2000-01-01부터 2099-12-31 사이에 드는 주를 쓰세요."
            ),
            (
                .unsupportedDate(LocalDate(year: 1999, month: 12, day: 31)),
                "1999-12-31은(는) FineDust가 보관하는 날짜 밖입니다. 2000-01-01부터 2099-12-31 사이의 날을 주세요."
            ),
        ]
        for (error, korean) in refusals {
            #expect(TypedPeriodRefusal(error: error, language: .korean).description == korean)
            #expect(TypedPeriodRefusal(error: error, language: .english).description == error.description)
        }
        let region = ForecastRegionError.cityNeeded(sido: "경기")
        #expect(region.sentence(.english) == region.description)
        #expect(region.sentence(.korean).hasPrefix("측정소가 있는 경기은(는) 예보가 시·군별로 나뉘는데, 측정소의 주소를 모릅니다. dustctl stations sync를 실행하거나,"))
        #expect(
            koreanSettingsWarning("the environment variable DUSTD_X is not a FineDust setting and is ignored")
                == "환경 변수 DUSTD_X은(는) FineDust 설정이 아니어서 무시합니다")
        #expect(koreanSettingsWarning("something else") == "something else")
        let progress = ActivityImportProgress(bytesRead: 3_000_000_000, totalBytes: 12_000_000_000)
        #expect(
            ProgressBar.line(label: "export.zip", progress, elapsed: 60, language: .korean)
                == "export.zip [#####               ]  25% 3000.0/12000.0 MB  50.0 MB/s  180초 남음")
    }
}

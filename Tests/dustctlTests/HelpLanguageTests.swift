import ArgumentParser
import DustKit
import DustStore
import Foundation
import TestSupport
import Testing

@testable import dustctl

/// `--help` and `export` in Korean under a Korean locale, English otherwise; what `export` writes the
/// same bytes in both (docs/REFERENCE.md §6, "Text").
@Suite("dustctl's --help and export speak Korean under a Korean locale", .timeLimit(.minutes(10)))
struct HelpLanguageTests {
    /// `LANG` alone names the locale: a host's `LC_ALL` or `LC_MESSAGES` is emptied, which POSIX skips.
    /// `COLUMNS` keeps ArgumentParser's wrapping at 80 whatever the host says.
    static let korean = ["LANG": "ko_KR.UTF-8", "LC_ALL": "", "LC_MESSAGES": "", "COLUMNS": "80"]
    static let english = ["LC_ALL": "C", "COLUMNS": "80"]

    /// The Hangul words the English help has always quoted: station names, 주의보/경보 and the words of
    /// AirKorea's forecasts and regions.
    static let hangulInEnglish: Set<String> = [
        "강남대로", "강원", "경기", "경기남부", "경기북부", "경보", "권역", "낮음", "높음", "민지", "시도", "신뢰도", "영동", "영서", "종로구",
        "주의보", "활용신청",
    ]

    /// The help lines ArgumentParser writes itself, the same in every locale.
    static let parserLines: Set<String> = ["Show help information.", "Show the version."]

    static func hangulWords(_ text: String) -> Set<String> {
        Set(text.matches(of: /[가-힣]+/).map { String($0.output) })
    }

    static func hasHangul(_ text: String) -> Bool { !hangulWords(text).isEmpty }

    /// The widest line of `text` in terminal columns (a Hangul syllable takes two).
    static func widest(_ text: String) -> Int {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { displayWidth(String($0)) }.max() ?? 0
    }

    @Test(
        "--help of dustctl, export, week, stations nearest, person forget, status and alerts list: Korean under LANG=ko_KR.UTF-8, English under LC_ALL=C",
        arguments: [
            (
                [String](),
                [
                    "OVERVIEW: 미세먼지(PM10)와 초미세먼지(PM2.5)를 얼마나\n들이마셨는지 FineDust에 묻습니다.\n",
                    "\ndustd가 매시간 채우는 데이터베이스를 읽습니다.\n",
                    "`people:`이 없으면 구성원은 `me` 한 사람입니다.\n예:\n  dustctl demo\n",
                    "\n  export                  하루별 또는 주별 합계를 CSV(기본)나 JSON으로\n                          내보냅니다.\n",
                    "\n  status                  dustd의 상태: 마지막 성공, 마지막 오류와 해결 방법,\n",
                ],
                [
                    "OVERVIEW: Ask FineDust how much fine dust (PM10) and ultra-fine dust (PM2.5)\nyou breathed.\n",
                    "\nReads the database that dustd fills every hour.\n",
                    "\n  export                  Export daily or weekly totals as CSV (default) or\n                          JSON.\n",
                ]
            ),
            (
                ["export"],
                [
                    "OVERVIEW: 하루별 또는 주별 합계를 CSV(기본)나 JSON으로\n내보냅니다.\n",
                    "\n기본: 오늘로 끝나는 최근 7일, 하루에 한 행, 표준 출력에 CSV.\n",
                    "\n--per week이면 기간과 겹치는 ISO 주(월요일~일요일)를 통째로 내보냅니다.\n",
                    "(종료 코드 74). 예:\n  dustctl export --last-week --output last-week.csv\n",
                    "\n  --db <path>             데이터베이스 파일; storage.path 대신 씁니다.\n",
                    "\n  --last-week             지난 ISO 주 (월요일~일요일).\n",
                    "\n  --per <per>             하루마다 또는\n                          ISO 주마다 한 행. (values: day, week; default: day)\n",
                    "\n  --output <file>         표준 출력 대신 이 일반 파일에 씁니다(-는 표준 출력):\n                          통째로 바꾸되 소유자와 권한은 그대로 둡니다.\n",
                    "\n  --person <name>         누구의 흡입량을 보일지 (기본: 처음 설정된 구성원).\n",
                ],
                [
                    "OVERVIEW: Export daily or weekly totals as CSV (default) or JSON.\n",
                    "\nDefault: the rolling week ending today, one row per day, CSV on stdout.\n",
                    "\n  --db <path>             Database file; overrides storage.path.\n",
                    "\n  --output <file>         Write to this regular file instead of stdout (- is\n                          stdout): replaced whole, keeping its owner and mode.\n",
                ]
            ),
            (
                ["week"],
                [
                    "OVERVIEW: 최근 한 주(오늘이나 --end로 끝나는 7일): 하루 한 줄,\n흡입량 그래프, 합계.\n\n예:\n  dustctl week --end 2026-11-20 --station 종로구\n",
                    "\n  --iso <YYYY-Www>        최근 7일 대신 ISO 주 (월요일~일요일).\n",
                    "\n  --chart <pollutant>     그래프에 보일 흡입량:\n                          pm10 또는 pm25. (values: pm10, pm25; default: pm25)\n",
                ],
                [
                    "OVERVIEW: The rolling week (the 7 days ending today or --end): a line per day,\na chart of intake, totals.\n\nExample:\n  dustctl week --end 2026-11-20 --station 종로구\n",
                    "\n  --iso <YYYY-Www>        An ISO week (Monday to Sunday) instead of the rolling\n",
                ]
            ),
            (
                ["stations", "nearest"],
                [
                    "OVERVIEW: 동기화한 측정소 목록에서 한 곳에 가장 가까운 측정소.\n\n예 (서울시청):\n",
                    "\n  --lat <lat>             위도 (북위, 도 단위).\n",
                    "\n  --count <count>         보여 줄 측정소 수. (default: 5)\n",
                ],
                [
                    "OVERVIEW: The stations nearest to a place, from the synced station list.\n\nExample (Seoul City Hall):\n",
                    "\n  --lat <lat>             Latitude, degrees north.\n",
                ]
            ),
            (
                ["person", "forget"],
                [
                    "OVERVIEW: 한 구성원에 대해 저장된 모든 것을 모든 테이블에서 한\n번에 지웁니다.\n",
                    "측정소의 것이기 때문입니다. people:에서도 빼세요.",
                    "\n  <name>                  구성원 (people:에 적힌 이름, 또는 저장될 때의 이름).\n",
                ],
                [
                    "OVERVIEW: Remove everything stored for one person, in every table, at once.\n",
                    "\nRemoves their walking, heart rate, resting heart rates, sleep, positions, the\n",
                ]
            ),
            (
                ["status"],
                [
                    "OVERVIEW: dustd의 상태: 마지막 성공, 마지막 오류와 해결 방법,\n다음 수집, 저장된 행 수, 데이터가 오래되었는지.\n",
                    "\ncron과 모니터링을 위한 종료 코드: 0 dustd가 실행 중이고 데이터가 최신임;\n",
                ],
                [
                    "OVERVIEW: What dustd is doing: last success, last error and its fix, next poll,\nrows stored, staleness.\n"
                ]
            ),
            (
                ["alerts", "list"],
                [
                    "OVERVIEW: 규칙과 그 상태, 보낼 곳, 최근 알림과 알림마다의 전달\n시도를 보여 줍니다.\n",
                    "\n  --last <last>           보여 줄 최근 알림 수. (default: 20)\n",
                ],
                ["\n  --last <last>           How many of the latest alerts to show. (default: 20)\n"]
            ),
        ])
    func help(command: [String], korean: [String], english: [String]) async throws {
        let ko = try await dustctl(command + ["--help"], environment: Self.korean)
        #expect(ko.status == 0, "\(ko.standardError)")
        for line in korean { #expect(ko.standardOutput.contains(line), "\(command): \(line)\n---\n\(ko.standardOutput)") }
        // ArgumentParser's own headers and lines stay English.
        #expect(ko.standardOutput.contains("\nUSAGE: dustctl ") && ko.standardOutput.contains("\nOPTIONS:\n"))
        #expect(ko.standardOutput.contains("  -h, --help              Show help information.\n"))

        let en = try await dustctl(command + ["--help"], environment: Self.english)
        #expect(en.status == 0, "\(en.standardError)")
        for line in english { #expect(en.standardOutput.contains(line), "\(command): \(line)\n---\n\(en.standardOutput)") }
        let stray = Self.hangulWords(en.standardOutput).subtracting(Self.hangulInEnglish)
        #expect(stray.isEmpty, "\(command): Hangul in the English help: \(stray.sorted())")
        // The same help, word for word, as before it spoke Korean: no Korean line leaks into it.
        for line in korean { #expect(!en.standardOutput.contains(line)) }
    }

    /// Each command of dustctl's tree, by its path (`dustctl stations nearest`), from the argument
    /// parser's own dump of its help; without ArgumentParser's `help`.
    func commands(_ environment: [String: String]) async throws -> [String: [String: Any]] {
        let dump = try await dustctl(["--experimental-dump-help"], environment: environment)
        #expect(dump.status == 0, "\(dump.standardError)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.standardOutput.utf8)) as? [String: Any])
        var found: [String: [String: Any]] = [:]
        func walk(_ command: [String: Any], _ path: String) {
            found[path] = command
            for case let sub as [String: Any] in command["subcommands"] as? [Any] ?? [] {
                guard let name = sub["commandName"] as? String, name != "help" else { continue }
                walk(sub, "\(path) \(name)")
            }
        }
        walk(try #require(root["command"] as? [String: Any]), "dustctl")
        return found
    }

    /// The help of each argument of a command, keyed by its names or value name.
    func argumentHelp(_ command: [String: Any]) -> [String: String] {
        var help: [String: String] = [:]
        for case let argument as [String: Any] in command["arguments"] as? [Any] ?? [] {
            let names = (argument["names"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
            let key = names.isEmpty ? "<\(argument["valueName"] as? String ?? "?")>" : names.joined(separator: "/")
            help[key] = argument["abstract"] as? String ?? ""
        }
        return help
    }

    @Test("Every command has a Korean abstract, discussion and option help of its own, fitting 80 columns; the English is as it was")
    func everyCommand() async throws {
        let korean = try await commands(Self.korean)
        let english = try await commands(Self.english)
        #expect(korean.count >= 31)
        #expect(Set(korean.keys) == Set(english.keys))

        // The tree the dump walked is DustCtl's: a command added to `subcommands` is checked below.
        func paths(_ command: any ParsableCommand.Type, _ path: String) -> [String] {
            [path] + command.configuration.subcommands.flatMap { paths($0, "\(path) \($0._commandName)") }
        }
        #expect(Set(paths(DustCtl.self, "dustctl")) == Set(english.keys))

        for path in english.keys.sorted() {
            let en = try #require(english[path])
            let ko = try #require(korean[path])
            // The abstract: Korean, not the English, broken to fit beside ArgumentParser's label column (26).
            let koAbstract = ko["abstract"] as? String ?? ""
            let enAbstract = en["abstract"] as? String ?? ""
            #expect(Self.hasHangul(koAbstract) && koAbstract != enAbstract, "\(path): no Korean abstract: \(koAbstract)")
            #expect(Self.widest(koAbstract) <= 54, "\(path): \(koAbstract)")
            #expect(Self.hangulWords(enAbstract).isSubset(of: Self.hangulInEnglish), "\(path): \(enAbstract)")
            // The discussion, where the English has one: Korean too, each line at most 80 columns.
            if let enDiscussion = en["discussion"] as? String {
                let koDiscussion = ko["discussion"] as? String ?? ""
                #expect(Self.hasHangul(koDiscussion) && koDiscussion != enDiscussion, "\(path): no Korean discussion")
                #expect(Self.widest(koDiscussion) <= 80, "\(path): a line of the discussion is wider than 80 columns")
                #expect(Self.hangulWords(enDiscussion).isSubset(of: Self.hangulInEnglish), "\(path): \(enDiscussion)")
            } else {
                #expect(ko["discussion"] == nil, "\(path)")
            }
            // Every option, flag and argument but ArgumentParser's own --help and --version.
            let enArguments = argumentHelp(en)
            let koArguments = argumentHelp(ko)
            #expect(Set(enArguments.keys) == Set(koArguments.keys), "\(path)")
            for (name, enHelp) in enArguments {
                let koHelp = koArguments[name] ?? ""
                if Self.parserLines.contains(enHelp) {
                    #expect(koHelp == enHelp, "\(path) \(name)")
                    continue
                }
                #expect(Self.hasHangul(koHelp) && koHelp != enHelp, "\(path) \(name): no Korean help: \(koHelp)")
                #expect(Self.widest(koHelp) <= 54, "\(path) \(name): \(koHelp)")
                #expect(Self.hangulWords(enHelp).isSubset(of: Self.hangulInEnglish), "\(path) \(name): \(enHelp)")
            }
        }
    }

    @Test(
        "Every command's Korean --help as a terminal of 80 columns shows it: no line wider, ArgumentParser's (values: …; default: …) included"
    )
    func everyHelpFits() async throws {
        let english = try await commands(Self.english)
        for path in english.keys.sorted() {
            let arguments = Array(path.split(separator: " ").dropFirst().map(String.init)) + ["--help"]
            let help = try await dustctl(arguments, environment: Self.korean)
            #expect(help.status == 0, "\(path): \(help.standardError)")
            // The usage line is ArgumentParser's, one line of option names in any language.
            for line in help.standardOutput.split(separator: "\n") where !line.hasPrefix("USAGE:") && !line.hasPrefix("       dustctl") {
                #expect(displayWidth(String(line)) <= 80, "\(path): \(displayWidth(String(line))) columns: \(line)")
            }
        }
    }

    @Test("Korean help leaves room on its last line for what ArgumentParser appends")
    func roomForSuffix() {
        let wrapped = wrappedForHelp("하루마다 또는 ISO 주마다 한 행.", followedBy: "(values: day, week; default: day)")
        #expect(wrapped == "하루마다 또는\nISO 주마다 한 행.")
        let demo = wrappedForHelp("데모 데이터베이스 (다시 넣어도 바뀌는 것이 없습니다).", followedBy: "(default: finedust-demo.sqlite)")
        #expect(demo == "데모 데이터베이스 (다시 넣어도\n바뀌는 것이 없습니다).")
        #expect(wrappedForHelp("짧은 줄.", followedBy: "(default: x)") == "짧은 줄.")
    }

    @Test("Korean help is broken between words to 54 columns, nothing lost; a word wider than that keeps its own line")
    func wrapping() {
        let text = "이 시각을 지금으로 보고 답합니다: 설정된 시간대의 YYYY-MM-DDTHH:MM, 또는 오프셋을 붙인 시각 (기본: $FINEDUST_NOW, 없으면 현재)."
        let wrapped = wrappedForHelp(text)
        #expect(wrapped == "이 시각을 지금으로 보고 답합니다: 설정된 시간대의\nYYYY-MM-DDTHH:MM, 또는 오프셋을 붙인 시각 (기본:\n$FINEDUST_NOW, 없으면 현재).")
        #expect(wrapped.replacingOccurrences(of: "\n", with: " ") == text)
        #expect(wrappedForHelp("짧은 줄.") == "짧은 줄.")
        let long = String(repeating: "x", count: 60)
        #expect(wrappedForHelp("앞 \(long) 뒤") == "앞\n\(long)\n뒤")
    }

    /// A database with 종로구's readings of 2026-11-19 and 20 (the CSV quotes the station in Hangul).
    func database(_ directory: TemporaryDirectory) async throws -> String {
        let db = directory.path("dust.sqlite")
        let store = try SQLiteStore(path: db)
        let calendar = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)
        var readings: [HourlyReading] = []
        for day in [19, 20] {
            for (index, slot) in calendar.slots(of: LocalDate(year: 2026, month: 11, day: day)).enumerated() where index % 3 == 0 {
                readings.append(
                    HourlyReading(
                        station: "종로구", slot: slot,
                        concentration: DustPair(fineDust: 30 + Double(index), ultraFineDust: 12.5 + Double(day - 19))))
            }
        }
        try await store.saveReadings(readings)
        return db
    }

    @Test("export: the same CSV and JSON bytes in both locales, on stdout and in --output's file; its own messages in Korean")
    func export() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await database(directory)
        let common = ["export", "--db", db, "--station", "종로구", "--from", "2026-11-16", "--to", "2026-11-22"]

        for extra in [[], ["--per", "week"], ["--format", "json"], ["--json", "--per", "week"], ["--bom"], ["--everyone"]] {
            let ko = try await dustctl(common + extra, environment: Self.korean)
            let en = try await dustctl(common + extra, environment: Self.english)
            #expect(ko.status == 0 && en.status == 0, "\(extra): \(ko.standardError) \(en.standardError)")
            #expect(ko.standardError.isEmpty && en.standardError.isEmpty, "\(extra)")
            #expect(!en.standardOutput.isEmpty)
            #expect(Data(ko.standardOutput.utf8) == Data(en.standardOutput.utf8), "\(extra)")
        }
        for (file, format) in [("week.csv", "csv"), ("week.json", "json")] {
            var written: [Data] = []
            for (name, environment) in [("ko", Self.korean), ("en", Self.english)] {
                let output = directory.path("\(name)-\(file)")
                let result = try await dustctl(common + ["--format", format, "--output", output], environment: environment)
                #expect(result.status == 0 && result.standardOutput.isEmpty && result.standardError.isEmpty, "\(result.standardError)")
                written.append(try Data(contentsOf: URL(fileURLWithPath: output)))
            }
            #expect(written[0] == written[1] && written[0].count > 100, "\(file)")
        }
        let csv = try String(decoding: Data(contentsOf: URL(fileURLWithPath: directory.path("ko-week.csv"))), as: UTF8.self)
        #expect(csv.hasPrefix("\u{FEFF}date,station,") && csv.contains("\n2026-11-20,종로구,8,8,"))

        // Its refusals: a symbolic link, a file with a second name, a missing directory (whose reason is the system's).
        let symbolic = directory.path("link.csv")
        try FileManager.default.createSymbolicLink(atPath: symbolic, withDestinationPath: directory.path("elsewhere.csv"))
        let linked = try await dustctl(common + ["--output", symbolic], environment: Self.korean)
        #expect(linked.status == 73)
        #expect(linked.standardError == "dustctl: \(symbolic)은(는) 심볼릭 링크입니다. --output은 일반 파일만 만들거나 바꾸므로 그대로 두었습니다.\n")
        let linkedEnglish = try await dustctl(common + ["--output", symbolic], environment: Self.english)
        #expect(linkedEnglish.status == 73)
        #expect(
            linkedEnglish.standardError
                == "dustctl: \(symbolic) is a symbolic link; --output only creates or replaces regular files, so it was left alone.\n")
        #expect(!FileManager.default.fileExists(atPath: directory.path("elsewhere.csv")))

        let original = directory.path("original.csv")
        let second = directory.path("second.csv")
        try Data("kept\n".utf8).write(to: URL(fileURLWithPath: original))
        #expect(link(original, second) == 0)
        let hardLinked = try await dustctl(common + ["--output", second], environment: Self.korean)
        #expect(hardLinked.status == 73)
        #expect(
            hardLinked.standardError
                == "dustctl: \(second)에 하드 링크가 2개 있습니다. dustctl은 다른 이름의 파일이기도 한 출력 파일에는 쓰지 않습니다: 복사하거나 다른 경로를 지정하세요.\n"
        )
        #expect(try String(contentsOfFile: original, encoding: .utf8) == "kept\n")

        let missing = directory.path("missing/out.csv")
        let nowhere = try await dustctl(common + ["--output", missing], environment: Self.korean)
        #expect(nowhere.status == 73)
        #expect(
            nowhere.standardError
                == "dustctl: \(missing) 파일을 만들 수 없습니다: No such file or directory (dustctl은 \(directory.path("missing"))에 새 파일을 쓴 뒤 이름을 바꿉니다).\n"
        )

        // Its own checks of its options, after ArgumentParser's English "Error:"; the usage line stays English.
        let backwards = try await dustctl(
            ["export", "--db", db, "--station", "종로구", "--from", "2026-11-21", "--to", "2026-11-20"], environment: Self.korean)
        #expect(backwards.status == 64)
        #expect(backwards.standardError.hasPrefix("Error: --from 2026-11-21: --to 2026-11-20보다 뒤의 날짜입니다.\nUsage: dustctl export"))
        let backwardsEnglish = try await dustctl(
            ["export", "--db", db, "--station", "종로구", "--from", "2026-11-21", "--to", "2026-11-20"], environment: Self.english)
        #expect(backwardsEnglish.standardError.hasPrefix("Error: --from 2026-11-21 is after --to 2026-11-20.\n"))
        let both = try await dustctl(common + ["--bom", "--no-bom"], environment: Self.korean)
        #expect(both.status == 64)
        #expect(both.standardError.hasPrefix("Error: --bom과 --no-bom은 서로 반대입니다. 하나만 주세요.\n"))
        let half = try await dustctl(["export", "--db", db, "--from", "2026-11-20"], environment: Self.korean)
        #expect(half.standardError.hasPrefix("Error: --from과 --to는 함께 씁니다.\n"))
    }
}

import DustKit
import DustServices
import Foundation
import TestSupport
import Testing

@testable import dustctl

/// The commands that store and list (stations, import, activity, person, alerts, demo) in Korean under a
/// Korean locale, English otherwise; their JSON the same in both (docs/REFERENCE.md §6, "Text").
@Suite("dustctl's storing and listing commands speak Korean under a Korean locale", .timeLimit(.minutes(10)))
struct ReportLanguageMoreTests {
    static let korean = ["LC_ALL": "ko_KR.UTF-8"]

    @Test("demo, import, stations, activity and person: Korean lines with the English run's numbers, the same JSON")
    func commands() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("demo.sqlite")
        let fixtures = TestFixtures.repositoryRoot.appendingPathComponent("Fixtures").path
        let household = TestFixtures.repositoryRoot.appendingPathComponent("Fixtures/demo-household.yaml").path

        // demo: what it replayed, each person's breathing and the hint, in Korean; its JSON unchanged.
        let demo = try await dustctl(["demo", "--db", db, "--fixtures", fixtures], environment: Self.korean)
        #expect(demo.status == 0, "\(demo.standardError)")
        let told = demo.standardOutput
        #expect(told.hasPrefix("녹화·합성한 AirKorea 응답 14개를 \(db)에 다시 넣는 중\n"))
        #expect(told.contains("  ✓ synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml: 측정값 24개 (새 값 0, 고친 값 0, 그대로 24)\n"))
        #expect(told.contains("  ✓ activity/demo-week-watch/export.xml: jiho의 기록, 걷기 14시간, 심박수 표본 1351개, 수면 50.9시간\n"))
        #expect(told.contains("  ✓ indoor/demo-living-room-2026-11-20.csv: living-room 측정기의 표본 385개 (19:00부터 공기청정기 켬)\n"))
        #expect(told.contains("  ✓ synthesized/weekly-outlook-2026-11-20.xml: 주간 예보 2026-11-20 발표, 4일\n"))
        #expect(told.contains("종로구 · 2026-11-20 (금) · Asia/Seoul\n") && told.contains("\n구성원: seoa\n"))
        #expect(told.contains("사람마다 숫자가 다른 까닭: 같은 공기를 다르게 들이마심 (m³ = 각 시간 V의 합)\n"))
        #expect(
            told.contains("  jiho (38): 2026-11-20에 7.58 m³ — 수면 7.9시간 (0.28 m³/h), 앉아 있음 15.2시간 (0.26 m³/h), 중간 활동 0.9시간 (1.62 m³/h)\n"))
        #expect(told.contains("    활동 수준을 정한 근거별 시간 수: 걷기 2, 일정 22\n"))
        #expect(told.contains("더 살펴보기: dustctl week --everyone --config ") && !told.contains("Explore:"))
        let english = try await dustctl("demo", "--db", db, "--fixtures", fixtures)
        #expect(english.standardOutput.hasPrefix("Replaying 14 recorded and synthesized AirKorea responses into \(db)\n"))
        #expect(english.standardOutput.contains("  jiho (38): 7.58 m³ on 2026-11-20 — sleep 7.9 h at 0.28, sedentary 15.2 h at 0.26"))
        #expect(english.standardOutput.contains("\nPerson: seoa\n") && english.standardOutput.contains("Explore: dustctl week"))
        try await expectSameJSON(["demo", "--db", db, "--fixtures", fixtures, "--json"])

        // import: each file's line and the summary; a failed run's summary on stderr, its exit status unchanged.
        let daily = fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let imported = try await dustctl(["import", daily, "--db", db], environment: Self.korean)
        #expect(imported.status == 0)
        #expect(imported.standardOutput == "\(daily): 측정값 24개 (새 값 0, 고친 값 0, 그대로 24)\n파일 1개 중 1개 가져옴.\n")
        let missing = directory.path("missing.xml")
        let failed = try await dustctl(["import", daily, missing, "--db", db], environment: Self.korean)
        let englishFailed = try await dustctl("import", daily, missing, "--db", db)
        #expect(failed.status == 66 && englishFailed.status == 66)
        #expect(failed.standardError.contains("파일 2개 중 1개 가져옴; 1개 실패."))
        #expect(englishFailed.standardError.contains("Imported 1 of 2 files; 1 failed."))
        try await expectSameJSON(["import", daily, missing, "--db", db, "--json"], status: 66)

        // stations: import's count, and nearest's error where no station has a position.
        let stationsDB = directory.path("stations.sqlite")
        let list = fixture("real/msrstn-list-oldapi-bucheon-truncated.xml")
        let stations = try await dustctl(["stations", "import", list, "--db", stationsDB], environment: Self.korean)
        #expect(stations.status == 0, "\(stations.standardError)")
        #expect(stations.standardOutput == "측정소 2곳 저장됨.\n")
        #expect((try await dustctl("stations", "import", list, "--db", stationsDB)).standardOutput == "2 stations stored.\n")
        try await expectSameJSON(["stations", "nearest", "--lat", "37.5", "--lon", "126.78", "--db", stationsDB, "--json"])
        try await expectSameJSON(["stations", "list", "--db", stationsDB, "--json"])
        let placeless = directory.path("placeless.sqlite")
        #expect((try await dustctl("import", daily, "--db", placeless)).status == 0)
        let nearest = try await dustctl(
            ["stations", "nearest", "--lat", "37.5", "--lon", "127", "--db", placeless], environment: Self.korean)
        #expect(nearest.status == 66)
        #expect(nearest.standardError.contains("저장된 측정소 좌표가 아직 없습니다. `dustctl stations sync`(서비스 키 필요)나"))

        // activity: the sources table's Korean header aligned by display width, an import's summary, a forgetting.
        let sources = try await dustctl(["activity", "sources", "--db", db, "--config", household], environment: Self.korean)
        #expect(sources.status == 0, "\(sources.standardError)")
        #expect(
            sources.standardOutput.hasPrefix(
                "구성원  출처                                 처음 시간         마지막 시간       시간 수     KM  추적 분\n"
                    + "jiho    gpx:demo-walk-jongno-2026-11-20.gpx  2026-11-20 15:00  2026-11-20 15:00        1   3.27       40\n"))
        #expect(sources.standardOutput.contains("\n구성원  심박수와 수면  처음              마지막            표본  안정 시  수면 시간\n"))
        #expect(sources.standardOutput.contains("jiho    health         2026-11-13 23:21  2026-11-20 22:50  1351        7       50.9\n"))
        try await expectSameJSON(["activity", "sources", "--db", db, "--config", household, "--json"])
        let walks = fixture("activity/jongno-week-walks.csv")
        let walked = ["activity", "import", walks, "--person", "seoa", "--db", db, "--config", household]
        let walkedText = try await dustctl(walked, environment: Self.korean)
        #expect(walkedText.standardOutput == "\(walks): CSV, 행 14개 사용, 14시간 반영, 출처: csv 34.20 km.\n")
        #expect((try await dustctl(walked)).standardOutput == "\(walks): CSV, 14 rows used, 14 hours touched, sources: csv 34.20 km.\n")
        try await expectSameJSON(walked + ["--json"])
        let nobody = try await dustctl(
            ["activity", "sources", "--person", "nobody", "--db", db, "--config", household], environment: Self.korean)
        #expect(nobody.status == 64)
        #expect(nobody.standardError.contains("\"nobody\"(이)라는 구성원은 설정되어 있지 않습니다. 설정된 구성원: jiho, seoa."))
        let forget = ["activity", "forget", "--source", "csv", "--person", "seoa", "--db", db, "--config", household]
        let forgotten = try await dustctl(forget, environment: Self.korean)
        #expect(forgotten.status == 0 && forgotten.standardOutput == "csv: 걷기 14시간 지움.\n")
        let again = try await dustctl(forget, environment: Self.korean)
        #expect(again.status == 65 && again.standardError.contains("저장된 활동이 없어 지울 출처 \"csv\"가 없습니다."))

        // person: a forgetting counted kind by kind, a name that is not one, a sign-out.
        let person = try await dustctl(["person", "forget", "jiho", "--db", db], environment: Self.korean)
        #expect(person.status == 0, "\(person.standardError)")
        #expect(person.standardOutput == "jiho의 기록을 지웠습니다: 걷기 시간값 15개, 심박수 표본 1351개, 안정 시 심박수 7개, 수면 구간 14개, 위치 40개.\n")
        let nothing = try await dustctl(["person", "forget", "jiho", "--db", db], environment: Self.korean)
        #expect(nothing.standardOutput == "jiho의 저장된 기록이 없습니다.\n")
        #expect((try await dustctl("person", "forget", "jiho", "--db", db)).standardOutput == "Nothing was stored for jiho.\n")
        try await expectSameJSON(["person", "forget", "jiho", "--db", db, "--json"])
        let badName = try await dustctl(["person", "forget", "Bad Name", "--db", db], environment: Self.korean)
        #expect(badName.status == 64 && badName.standardError.contains("\"Bad Name\"은(는) 구성원 이름이 될 수 없습니다"))
        let signedOut = try await dustctl(["person", "signout", "seoa", "--db", db, "--config", household], environment: Self.korean)
        #expect(signedOut.standardOutput == "seoa의 지금까지 열린 모든 세션을 끝냈습니다. 다시 로그인할 때는 토큰을 씁니다.\n")
        let stranger = try await dustctl(["person", "signout", "zed", "--db", db, "--config", household], environment: Self.korean)
        #expect(stranger.status == 64 && stranger.standardError.contains("zed은(는) 설정된 구성원이 아닙니다. 설정된 구성원: jiho, seoa."))
    }

    @Test("A misspelt key in the configuration file is refused in Korean under a Korean locale, with the key it meant and the line")
    func misspeltKey() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path("dustd.yaml")
        try "station:\n  name: 종로구\nalerts:\n  langauge: en\n".write(toFile: file, atomically: true, encoding: .utf8)
        let korean = try await dustctl(["today", "--config", file], environment: Self.korean)
        #expect(korean.status == 78)
        #expect(
            korean.standardError
                == "dustctl: 설정이 잘못되었습니다: alerts.langauge은(는) FineDust 설정이 아닙니다 (혹시 alerts.language인가요?) (\(file), 4번째 줄).\n")
        let english = try await dustctl(["today", "--config", file], environment: ["LC_ALL": "C"])
        #expect(
            english.standardError
                == "dustctl: Invalid configuration: alerts.langauge is not a FineDust setting (did you mean alerts.language?) (in \(file), line 4).\n"
        )
    }

    @Test("alerts list: rules with their states aligned by display width, the sinks; the same JSON")
    func alertsList() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        #expect((try await dustctl("import", fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"), "--db", db)).status == 0)
        let config = directory.path("dustd.yaml")
        try """
        station: { name: 종로구 }
        people:
          - { name: dad }
          - { name: 민지 }
        alerts:
          rules:
            - { when: pm25.grade >= 나쁨 }
            - { when: intake.today.pm25 > 150, person: 민지 }
          sinks:
            - { webhook: https://home.example/api/webhook/finedust }

        """.write(toFile: config, atomically: true, encoding: .utf8)
        let listed = try await dustctl(["alerts", "list", "--config", config, "--db", db], environment: Self.korean)
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(
            listed.standardOutput
                == "규칙:\n  pm25.grade >= 3 · dad           대기\n  pm25.grade >= 3 · 민지          대기\n"
                + "  intake.today.pm25 > 150 · 민지  대기\n보낼 곳: webhook https://home.example/… (sink 1)\n아직 알림이 없습니다.\n")
        let english = try await dustctl("alerts", "list", "--config", config, "--db", db)
        #expect(
            english.standardOutput.hasPrefix("Rules:\n  pm25.grade >= 3 for dad           idle\n  pm25.grade >= 3 for 민지          idle\n"))
        #expect(english.standardOutput.hasSuffix("Sinks: webhook https://home.example/… (sink 1)\nNo alerts yet.\n"))
        try await expectSameJSON(["alerts", "list", "--config", config, "--db", db, "--json"])
        let none = try await dustctl(["alerts", "list", "--db", db], environment: Self.korean)
        #expect(none.standardOutput == "알림 규칙이 없습니다 (alerts.rules).\n보낼 곳이 없습니다 (alerts.sinks): 알림은 기록만 됩니다.\n아직 알림이 없습니다.\n")
    }

    @Test("alerts list: a rise held in quiet hours reads as held back while they last, and as waiting for a known hour once they end")
    func heldAfterQuietHours() {
        let calendar = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)
        let rules: [(rule: String, person: String?, state: AlertState)] = [("pm25.grade >= 3", nil, .held)]
        func text(_ language: ReportLanguage, quiet: Bool) -> String {
            AlertsListCommand.text(rules: rules, sinks: [], events: [], calendar: calendar, language: language, quietNow: quiet)
        }
        #expect(text(.english, quiet: true).contains("pm25.grade >= 3  holds, held back by quiet hours\n"))
        #expect(
            text(.english, quiet: false).contains("pm25.grade >= 3  held in quiet hours; sent with the next known hour if it still holds\n")
        )
        #expect(!text(.english, quiet: false).contains("held back by quiet hours"))
        #expect(text(.korean, quiet: false).contains("다음 측정값이 여전히 충족하면 보냄"))
    }

    @Test("alerts list: the latest alerts' kinds and each sink's last attempt in Korean, what was written as written")
    func alertEvents() {
        let calendar = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)
        let at = Date(timeIntervalSince1970: 1_795_154_400)  // 2026-11-20 15:00 KST
        let event = AlertEvent(id: 7, kind: .fired, rule: "pm25.grade >= 3", metric: .pm25Grade, value: 3, station: "종로구", at: at)
        let deliveries = [
            AlertDelivery(eventID: 7, sink: "ntfy https://ntfy.sh/…", attempt: 1, at: at, outcome: .retrying, detail: "HTTP 502"),
            AlertDelivery(eventID: 7, sink: "ntfy https://ntfy.sh/…", attempt: 2, at: at, outcome: .failed, detail: "HTTP 502"),
            AlertDelivery(eventID: 7, sink: "webhook https://home.example/…", attempt: 1, at: at, outcome: .delivered, detail: nil),
        ]
        let rules: [(rule: String, person: String?, state: AlertState)] = [("pm25.grade >= 3", nil, .active)]
        func text(_ language: ReportLanguage) -> String {
            AlertsListCommand.text(
                rules: rules, sinks: ["ntfy https://ntfy.sh/…"], events: [(event, deliveries)], calendar: calendar, language: language)
        }
        // Each alert's title in the reader's language: `FineDust: 초미세먼지 나쁨` or `FineDust: PM2.5 나쁨 (bad)`.
        let (koreanTitle, title) = (event.title(in: .ko), event.title(in: .en))
        #expect(koreanTitle.hasPrefix("FineDust: 초미세먼지 ") && title.hasPrefix("FineDust: PM2.5 "))
        #expect(
            text(.korean)
                == "규칙:\n  pm25.grade >= 3  조건 충족 · 알림 보냄 (해제되면 다시 알림)\n보낼 곳: ntfy https://ntfy.sh/…\n최근 알림:\n"
                + "  2026-11-20 15:00  알림  \(koreanTitle)\n      ntfy https://ntfy.sh/…: 실패 (2번째 시도): HTTP 502\n"
                + "      webhook https://home.example/…: 전달됨 (첫 번째 시도)")
        #expect(
            text(.english)
                == "Rules:\n  pm25.grade >= 3  active (a clearing follows)\nSinks: ntfy https://ntfy.sh/…\nLatest alerts:\n"
                + "  2026-11-20 15:00  fired    \(title)\n      ntfy https://ntfy.sh/…: failed (attempt 2): HTTP 502\n"
                + "      webhook https://home.example/…: delivered (attempt 1)")
    }

    /// `arguments` print the same standard output, and exit the same, in Korean and in English.
    private func expectSameJSON(_ arguments: [String], status: Int32 = 0, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let korean = try await dustctl(arguments, environment: Self.korean)
        let english = try await dustctl(arguments)
        #expect(korean.status == status && english.status == status, "\(korean.standardError)", sourceLocation: sourceLocation)
        #expect(korean.standardOutput.hasPrefix("{") || korean.standardOutput.hasPrefix("["), sourceLocation: sourceLocation)
        #expect(korean.standardOutput == english.standardOutput, sourceLocation: sourceLocation)
    }
}

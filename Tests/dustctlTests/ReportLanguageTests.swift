import DustKit
import Foundation
import TestSupport
import Testing

@testable import dustctl

/// dustctl's reports in Korean under a Korean locale, English otherwise (docs/REFERENCE.md §6, "Text").
@Suite("dustctl speaks Korean under a Korean locale", .timeLimit(.minutes(10)))
struct ReportLanguageTests {
    @Test("The locale is POSIX's: LC_ALL, then LC_MESSAGES, then LANG, the first set and not empty")
    func locale() {
        #expect(ReportLanguage(environment: [:]) == .english)
        #expect(ReportLanguage(environment: ["LANG": "ko_KR.UTF-8"]) == .korean)
        #expect(ReportLanguage(environment: ["LANG": "ko_KR.UTF-8", "LC_ALL": "C.UTF-8"]) == .english)
        #expect(ReportLanguage(environment: ["LANG": "en_US.UTF-8", "LC_MESSAGES": "ko_KR.UTF-8"]) == .korean)
        #expect(ReportLanguage(environment: ["LANG": "ko_KR.UTF-8", "LC_ALL": ""]) == .korean)
        #expect(ReportLanguage(environment: ["LANG": "ko"]) == .korean)
        // The language is the locale's first part: Konkani (`kok`) is not Korean; glibc's alias `korean` is.
        #expect(ReportLanguage(environment: ["LANG": "kok_IN.UTF-8"]) == .english)
        #expect(ReportLanguage(environment: ["LANG": "korean"]) == .korean)
        #expect(ReportLanguage(environment: ["LANG": "ko_KR.eucKR"]) == .korean)
        #expect(ReportLanguage(environment: ["LANG": "ko@latin"]) == .korean)
        #expect(ReportLanguage(environment: ["LANG": "de_DE.UTF-8"]) == .english)
    }

    @Test("day and week in Korean carry the English report's numbers, the tables aligned by display width")
    func korean() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("demo.sqlite")
        let demo = try await dustctl("demo", "--db", db, "--fixtures", TestFixtures.repositoryRoot.appendingPathComponent("Fixtures").path)
        #expect(demo.status == 0, "\(demo.standardError)")
        let korean = ["LC_ALL": "ko_KR.UTF-8"]
        let day = try await dustctl("day", "2026-11-20", "--db", db, "--station", "종로구", environment: korean)
        let english = try await dustctl("day", "2026-11-20", "--db", db, "--station", "종로구")
        #expect(day.status == 0 && english.status == 0)
        #expect(
            day.standardOutput.hasPrefix("종로구 · 2026-11-20 (금) · Asia/Seoul\n최근 측정 23:00–24:00   PM10 45 µg/m³ 보통   PM2.5 22 µg/m³ 보통\n"))
        #expect(day.standardOutput.contains("측정 시간     23/24시간             22/24시간"))
        #expect(day.standardOutput.contains("평균          47.4 µg/m³            24.3 µg/m³"))
        #expect(day.standardOutput.contains("05:00–06:00       –      –            –       –  점검및교정"))
        #expect(english.standardOutput.contains("Mean          47.4 µg/m³            24.3 µg/m³"))
        #expect(english.standardOutput.contains("(Fri)") && !english.standardOutput.contains("측정 시간"))
        // The hour table's rows, numbers and flags, are the same in both languages.
        func hourRows(_ text: String) -> [Substring] {
            text.split(separator: "\n").filter { $0.dropFirst(5).hasPrefix("–") && $0.contains(":00") }
        }
        #expect(hourRows(day.standardOutput).count == 24)
        #expect(hourRows(day.standardOutput) == hourRows(english.standardOutput))

        let week = try await dustctl("week", "--end", "2026-11-20", "--db", db, "--station", "종로구", environment: korean)
        #expect(week.status == 0)
        #expect(week.standardOutput.contains("날짜           측정 시간  평균 µg/m³    흡입량 µg       등급"))
        #expect(week.standardOutput.contains("2026-11-20 금    23    22  47.4   24.3    266.7   133.5 보통/보통"))
        #expect(week.standardOutput.contains("한 주           167   166  37.7   19.4   1571.6   806.0 보통 (PM2.5)"))
        // The forecast too; and the demo's sentence names 서울 where its chip says 매우나쁨 (issue 37).
        let now = ["--now", "2026-11-20T23:30:00+09:00"]
        let forecast = try await dustctl(["forecast", "--db", db, "--station", "종로구"] + now, environment: korean)
        #expect(forecast.status == 0)
        #expect(forecast.standardOutput.hasPrefix("미세먼지 예보 · 서울 · 2026-11-20 17시 발표\n"))
        #expect(forecast.standardOutput.contains("내일 11-21          나쁨                    매우나쁨\n"))
        #expect(forecast.standardOutput.contains("서울·경기남부는 '매우나쁨', 광주·충남·충북·세종·대전·경기북부·인천은 '나쁨'"))
        #expect(forecast.standardOutput.contains("주간 예보 · 서울 · PM2.5 초미세먼지 · 2026-11-20 발표\n월 11-23            높음"))
        let englishForecast = try await dustctl(["forecast", "--db", db, "--station", "종로구"] + now)
        #expect(englishForecast.standardOutput.contains("Tomorrow 11-21      나쁨 (bad)              매우나쁨 (very bad)"))
        // The advisories, and today's top line, in Korean words (the dashboard's Korean headline).
        let advisories = try await dustctl(["advisories", "--db", db, "--station", "종로구"] + now, environment: korean)
        // The demo's day had no advisory in force (its readings were 좋음 to 보통, issue 37): its year's are listed.
        #expect(advisories.standardOutput.hasPrefix("주의보·경보 · 서울 (모든 권역) · 2026\n지금 발령 중\n  없음\n2026년 발령\n"))
        #expect(advisories.standardOutput.contains("  미세먼지 주의보 · 서울 도심권 · 2026-03-14 11:00부터 · 2026-03-15 02:00까지 · 176 µg/m³\n"))
        #expect(advisories.standardOutput.contains("오존 주의보 · 서울 동남권 · 2026-06-12 15:00부터 · 2026-06-12 18:00까지 · 0.128 ppm"))
        let today = try await dustctl(["today", "--db", db, "--station", "종로구"] + now, environment: korean)
        #expect(today.standardOutput.hasPrefix("종로구 · 2026-11-20 (금)"))
        // JSON is the same in every language.
        let json = try await dustctl("day", "2026-11-20", "--db", db, "--station", "종로구", "--json", environment: korean)
        let englishJSON = try await dustctl("day", "2026-11-20", "--db", db, "--station", "종로구", "--json")
        #expect(json.standardOutput == englishJSON.standardOutput)

        // status and indoor: dustctl's own words in Korean, labels aligned by display width; the exit status
        // and --json the same in both languages (what dustd wrote stays as it wrote it).
        let status = try await dustctl(["status", "--db", db, "--station", "종로구"] + now, environment: korean)
        let englishStatus = try await dustctl(["status", "--db", db, "--station", "종로구"] + now)
        #expect(status.status == 3 && englishStatus.status == 3)
        #expect(
            status.standardOutput
                == "FineDust · \(db)\n측정소        종로구\ndustd         이 데이터베이스로 실행된 적 없음\n마지막 성공   없음\n"
                + "데이터        2910행; 가장 최근 시간이 30분 전에 끝남\n예보          오늘 호출 0/12회 (한국 시간)\n")
        #expect(englishStatus.standardOutput.contains("\nLast success  never\n"))
        let statusJSON = try await dustctl(["status", "--db", db, "--json"] + now, environment: korean)
        #expect(statusJSON.standardOutput == (try await dustctl(["status", "--db", db, "--json"] + now)).standardOutput)
        let household = TestFixtures.repositoryRoot.appendingPathComponent("Fixtures/demo-household.yaml").path
        let indoor = try await dustctl(["indoor", "--db", db, "--config", household] + now, environment: korean)
        #expect(
            indoor.standardOutput
                == "living-room (import), jiho, seoa의 측정기\n  마지막 값    2026-11-20 23:29  PM2.5 4.1 µg/m³, PM10 6.2 µg/m³\n"
                + "  측정 범위    최근 24시간의 25%\n")
    }
}

import DustKit
import DustReports
import DustServices
import DustStore
import Foundation
import TestSupport
import Testing

@testable import DustWeb

/// The day of 2026-11-20 at 종로구 (the synthesized fixture: 05:00 flagged 점검및교정) in a fresh
/// database, and pages of it as dustd renders them, for what a screen reader, a keyboard, a larger
/// text setting or forced colours meet (the review in headless Chromium, docs/REFERENCE.md §13).
private final class AccessibleScratch: Sendable {
    static let seoul = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)
    static let november20 = LocalDate(year: 2026, month: 11, day: 20)
    /// 2026-11-21 00:20 KST: every hour of 2026-11-20 has been stored; today is 2026-11-21.
    static let now = DemoReplay.now

    let directory: TemporaryDirectory
    let store: SQLiteStore

    init() async throws {
        directory = try TemporaryDirectory("finedust-accessible")
        store = try SQLiteStore(path: directory.path("dust.sqlite"))
        _ = try await IngestService(store: store, clock: FixedClock(Self.now))
            .ingest(try TestFixtures.data("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"), requestedStation: nil)
    }

    deinit { directory.remove() }

    /// The model of `page` (the day shown is `date`, or today), with dustd running.
    func model(
        _ page: DashboardModel.Page, showing date: LocalDate? = nil, language: PageLanguage, now: Date = now,
        advisories: [Advisory] = [], people: [String] = [], person: String? = nil
    ) async throws -> DashboardModel {
        let statistics = StatisticsService(
            readings: store, activity: store, clock: FixedClock(now), calendar: Self.seoul, intakeModel: try VentilationIntakeModel(),
            stations: StationPreference(primary: "종로구"))
        let shown = date ?? statistics.today
        var status = DaemonStatus(
            state: .idle, mode: .daemon, pid: 4242, version: "1.0.0", station: "종로구", startedAt: now.addingTimeInterval(-86_400),
            heartbeatSeconds: 60)
        status.heartbeatAt = now.addingTimeInterval(-60)
        let health = DaemonHealth(
            status: status, newestSlot: try await store.newestSlot(station: "종로구", endingBy: now), now: now, processIsDustd: { _ in true })
        let week: WeekReport
        if case .week(let isoWeek) = page {
            week = try await statistics.week(isoWeek)
        } else {
            week = try await statistics.rollingWeek(endingOn: shown)
        }
        let day: DayReport? = if case .week = page { nil } else { try await statistics.day(shown) }
        return DashboardModel(
            page: page, language: language, station: "종로구", day: day, week: week, intakeUnit: .micrograms, calendar: Self.seoul,
            health: health, now: now, advisories: advisories, people: people, person: person)
    }
}

/// The part of `page` from `start` to the first `end` after it.
private func section(of page: String, from start: String, to end: String) throws -> Substring {
    let opening = try #require(page.range(of: start))
    let closing = try #require(page.range(of: end, range: opening.upperBound..<page.endIndex))
    return page[opening.lowerBound..<closing.upperBound]
}

/// WCAG 2's contrast ratio of two `#rrggbb` or `#rgb` colours.
private func contrast(_ first: String, _ second: String) throws -> Double {
    func luminance(_ hex: String) throws -> Double {
        let digits = hex.dropFirst()
        let value = try #require(Int(digits.count == 3 ? String(digits.flatMap { [$0, $0] }) : String(digits), radix: 16), "\(hex)")
        let channels = [value >> 16, (value >> 8) & 0xFF, value & 0xFF].map { (channel: Int) -> Double in
            let c = Double(channel) / 255
            return c <= 0.03928 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]
    }
    let (a, b) = (try luminance(first), try luminance(second))
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)
}

/// The value of `--name` in the first rule of `sheet` after `marker` (`:root{` or the dark scheme's query).
private func variable(_ name: String, in sheet: String, after marker: String) throws -> String {
    let start = try #require(sheet.range(of: marker))
    let found = try #require(sheet.range(of: "--\(name):", range: start.upperBound..<sheet.endIndex))
    return String(sheet[found.upperBound...].prefix { $0 != ";" && $0 != "}" })
}

@Suite("The dashboard and the sign-in page for every reader (WCAG 2.2 AA)", .timeLimit(.minutes(10)))
struct DashboardAccessibilityTests {
    @Test("A page showing today offers to stop its ten-minute refresh; ?refresh=off has no meta refresh and every link keeps it")
    func refreshCanBeStopped() async throws {
        let scratch = try await AccessibleScratch()
        let today = try await scratch.model(.today, language: .korean)
        let refreshing = DashboardPage.render(today)
        #expect(refreshing.contains("<meta http-equiv=\"refresh\" content=\"600\"/>"))
        #expect(refreshing.contains(" · <a class=\"refresh\" href=\"/?lang=ko&amp;refresh=off\">자동 새로 고침 끄기</a></p>"))

        let stopped = DashboardPage.render(today, refresh: AutoRefresh(query: "off"))
        #expect(!stopped.contains("http-equiv"))
        #expect(stopped.contains("<a class=\"refresh\" href=\"/?lang=ko\">자동 새로 고침 켜기</a>"))
        // The page's own links keep the choice, as they keep the language.
        #expect(stopped.contains("<a class=\"lang\" href=\"/?lang=en&amp;refresh=off\""))
        #expect(stopped.contains("href=\"/day/2026-11-20?lang=ko&amp;refresh=off\" rel=\"prev\""))
        #expect(stopped.contains("<a class=\"brand\" href=\"/?lang=ko&amp;refresh=off\">"))
        let english = DashboardPage.render(try await scratch.model(.today, language: .english), refresh: .off)
        #expect(english.contains("<a class=\"refresh\" href=\"/?lang=en\">Refresh every 10 minutes</a>"))
        #expect(
            DashboardPage.render(try await scratch.model(.today, language: .english)).contains(
                "<a class=\"refresh\" href=\"/?lang=en&amp;refresh=off\">Stop refreshing</a>"))

        // A past day does not ask again: no switch, but its links still carry the choice.
        let past = try await scratch.model(.day(AccessibleScratch.november20), showing: AccessibleScratch.november20, language: .korean)
        #expect(!DashboardPage.render(past).contains("class=\"refresh\""))
        #expect(DashboardPage.render(past, refresh: .off).contains("href=\"/?lang=ko&amp;refresh=off\""))
        #expect(!DashboardPage.render(past).contains("refresh=off"))

        // Only off turns it off; anything else is ignored.
        #expect(AutoRefresh(query: "off") == .off)
        for ignored in [nil, "", "on", "OFF", "0", "false", "off "] as [String?] {
            #expect(AutoRefresh(query: ignored) == .on, "\(ignored ?? "nil")")
        }
    }

    @Test("The server passes ?refresh=off to the page: no reload; without it, the reload every 10 minutes")
    func refreshThroughTheServer() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        try await rig.application(try rig.source()).test(.router) { client in
            try await client.execute(uri: "/?refresh=off", method: .get) { response in
                #expect(response.status == .ok)
                #expect(!String(buffer: response.body).contains("http-equiv=\"refresh\""))
            }
            try await client.execute(uri: "/", method: .get) { response in
                #expect(String(buffer: response.body).contains("<meta http-equiv=\"refresh\" content=\"600\"/>"))
            }
        }
    }

    @Test("The hourly table says each hour's grade in words, the grade of the dot beside it")
    func hourlyGradesInWords() async throws {
        let scratch = try await AccessibleScratch()
        for language in PageLanguage.allCases {
            let model = try await scratch.model(
                .day(AccessibleScratch.november20), showing: AccessibleScratch.november20, language: language)
            let table = try section(of: DashboardPage.render(model), from: "<tbody>", to: "</tbody>")
            let text = DashboardText(language: language)
            let dots = table.matches(of: #/<span class="dot g(\d)" aria-hidden="true"></span>([\d.]+)( [^<]+)?</td>/#)
            // 23 hours of PM10 and 22 of PM2.5 measured: every dot has its word.
            #expect(dots.count == 45 && table.components(separatedBy: "<span class=\"dot").count - 1 == 45)
            for dot in dots {
                let grade = try #require(DustGrade.allCases.first { String($0.rawValue) == dot.1 })
                #expect(dot.3.map(String.init) == " " + text.gradeName(grade), "\(dot.0)")
            }
        }
    }

    @Test("Under forced colours the grade dots and the legend's swatches keep their colours")
    func marksSurviveForcedColours() {
        let sheet = DashboardPage.styleSheet()
        #expect(
            sheet.contains("@media (forced-colors:active){.swatch,.dot{forced-color-adjust:none}.swatch.who{border-top-color:CanvasText}}"))
    }

    @Test("The sign-in button is at least 4.5:1 in both schemes")
    func signInButtonContrast() throws {
        let sheet = LoginPage.styleSheet
        #expect(sheet.contains("button{") && sheet.contains("background:var(--accent);color:var(--on-accent)}"))
        let dark = "@media (prefers-color-scheme:dark){:root{"
        for marker in [":root{", dark] {
            let ratio = try contrast(try variable("accent", in: sheet, after: marker), try variable("on-accent", in: sheet, after: marker))
            #expect(ratio >= 4.5, "\(marker) \(ratio)")
        }
    }

    @Test("The token field is described by the hint and, after a wrong token, by the problem, and marked invalid")
    func signInFieldDescribed() {
        let fresh = LoginPage.render(language: .english, formValue: "v", next: "/", problem: nil)
        #expect(fresh.contains("autofocus aria-describedby=\"hint\">"))
        #expect(fresh.contains("<p id=\"hint\" class=\"hint\">Paste the token"))
        #expect(!fresh.contains("aria-invalid"))
        let wrong = LoginPage.render(language: .korean, formValue: "v", next: "/", problem: .wrongToken)
        #expect(wrong.contains("<p id=\"problem\" class=\"problem\" role=\"alert\">이 토큰으로는 열 수 있는 것이 없습니다.</p>"))
        #expect(wrong.contains("autofocus aria-describedby=\"problem hint\" aria-invalid=\"true\">"))
        // A form that expired says so, but the token in it was not wrong.
        let expired = LoginPage.render(language: .english, formValue: "v", next: "/", problem: .expiredForm)
        #expect(expired.contains("aria-describedby=\"problem hint\">") && !expired.contains("aria-invalid"))
        #expect(LoginPage.styleSheet.contains("body{margin:0;font:100%/1.5 "))
    }

    @Test("Text grows with the reader's setting: body in %, tiles that stack, a unit that may wrap, the grade word in rem")
    func textCanGrow() {
        let sheet = DashboardPage.styleSheet()
        #expect(sheet.contains("font:100%/1.5 system-ui") && !sheet.contains("font:16px"))
        #expect(
            sheet.contains(
                ".pair{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,max(7.5em,calc(50% - .4375rem))),1fr));"))
        #expect(!sheet.contains("1fr 1fr"))
        // The grade word fits a 320-pixel phone in one line at the default size (11vw), and still grows with the
        // reader's text size (never below 2rem): a size capped by the viewport alone did not grow at all.
        #expect(sheet.contains(".badge .word{display:block;font-size:max(min(2.75rem,11vw),2rem);"))
        #expect(sheet.components(separatedBy: "vw").count == 2, "the grade word's is the one size in viewport units")
        #expect(!sheet.contains("white-space:nowrap}\n.value") && !sheet.contains("margin:.125rem 0 .25rem;white-space:nowrap"))
        #expect(sheet.contains(".unit{display:inline-block;"))
    }

    @Test("The English page names the advisory banner in English and marks its Korean words, and the flags', as Korean")
    func englishPageLanguages() async throws {
        let scratch = try await AccessibleScratch()
        let warning = Advisory(
            pollutant: .pm10, key: "87", district: "서울", area: "도심권", level: .warning, issuedAt: instant(kst: "2026-11-20T13:00:00"),
            issueValue: 312)
        let english = DashboardPage.render(
            try await scratch.model(
                .day(AccessibleScratch.november20), showing: AccessibleScratch.november20, language: .english, advisories: [warning]))
        #expect(english.contains("<section class=\"notices advisories\" role=\"alert\" aria-label=\"Air-quality advisories\">"))
        #expect(
            english.contains(
                "⚠ <span lang=\"ko\">미세먼지 경보</span> (PM10 warning) · <span lang=\"ko\">서울 도심권</span> · since 2026-11-20 13:00 · 312 µg/m³</p>"
            ))
        #expect(!english.contains("주의보/경보"))
        #expect(english.contains("<td class=\"flags\">servicing and calibration (<span lang=\"ko\">점검및교정</span>)</td>"))

        let korean = DashboardPage.render(
            try await scratch.model(
                .day(AccessibleScratch.november20), showing: AccessibleScratch.november20, language: .korean, advisories: [warning]))
        #expect(korean.contains("role=\"alert\" aria-label=\"주의보/경보\">"))
        #expect(korean.contains("<td class=\"flags\">점검및교정</td>"))
        #expect(!korean.contains("<span lang=\"ko\">"))
    }

    @Test("In a household of several each person's page has their own title; with one person the title is as before")
    func titleNamesThePerson() async throws {
        let scratch = try await AccessibleScratch()
        let day = DashboardModel.Page.day(AccessibleScratch.november20)
        for person in ["dad", "민지"] {
            let page = DashboardPage.render(
                try await scratch.model(
                    day, showing: AccessibleScratch.november20, language: .english, people: ["dad", "민지"], person: person))
            #expect(page.contains("<title>\(person) · 종로구 · 2026-11-20 · FineDust</title>"))
        }
        let week = DashboardPage.render(
            try await scratch.model(.week(try #require(ISOWeek("2026-W47"))), language: .korean, people: ["dad", "민지"], person: "민지"))
        #expect(week.contains("<title>민지 · 종로구 · 2026-W47 · FineDust</title>"))
        let alone = DashboardPage.render(try await scratch.model(day, showing: AccessibleScratch.november20, language: .english))
        #expect(alone.contains("<title>종로구 · 2026-11-20 · FineDust</title>"))
    }

    @Test("Each chart is named once, by its <title>, not by an aria-label beside it as well")
    func chartsNamedOnce() async throws {
        let scratch = try await AccessibleScratch()
        let model = try await scratch.model(.day(AccessibleScratch.november20), showing: AccessibleScratch.november20, language: .english)
        let page = DashboardPage.render(model)
        let charts = page.matches(of: #/<svg class="chart[^"]*" viewBox="[^"]+" role="img">(<title>[^<]+</title>)?/#)
        #expect(charts.count == 2)
        #expect(charts.allSatisfy { $0.1 != nil })
        #expect(!page.contains("<svg class=\"chart\" viewBox=\"0 0 320 196\" role=\"img\" aria-label"))
        #expect(!page.contains("aria-label=\"PM10 and PM2.5 at"))
        #expect(page.contains("role=\"img\"><title>PM10 and PM2.5 at 종로구, hour by hour, 2026-11-20</title>"))
    }
}

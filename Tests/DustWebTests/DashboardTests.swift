import AirKorea
import DustKit
import DustReports
import DustServices
import DustStore
import DustWeb
import Foundation
import Synchronization
import TestSupport
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Readings in a fresh database, reports through the real StatisticsService, pages from them.
private final class DashboardScratch: Sendable {
    static let seoul = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)
    static let newYork = DayCalendar(timeZone: TimeZone(identifier: "America/New_York")!)
    static let november20 = LocalDate(year: 2026, month: 11, day: 20)
    /// 2026-11-21 00:20 KST: every hour of 2026-11-20 has been stored.
    static let afterNovember20 = DemoReplay.now

    let directory: TemporaryDirectory
    let store: SQLiteStore

    init() throws {
        directory = try TemporaryDirectory("finedust-dashboard")
        store = try SQLiteStore(path: directory.path("dust.sqlite"))
    }

    deinit { directory.remove() }

    func importFixture(_ path: String) async throws {
        _ = try await IngestService(store: store, clock: FixedClock(Self.afterNovember20))
            .ingest(try TestFixtures.data(path), requestedStation: nil)
    }

    func save(_ readings: [HourlyReading]) async throws {
        _ = try await store.saveReadings(readings, fetchedAt: Self.afterNovember20)
    }

    func statistics(
        station: String = "종로구", fallbacks: [String] = [], calendar: DayCalendar = seoul,
        now: Date = afterNovember20, intakeModel: (any IntakeModel)? = nil
    ) throws -> StatisticsService {
        StatisticsService(
            readings: store, activity: store, clock: FixedClock(now), calendar: calendar,
            intakeModel: try intakeModel ?? VentilationIntakeModel(), stations: StationPreference(primary: station, fallbacks: fallbacks))
    }

    /// The page of `date` (or of today) as dustd would build it, with a healthy running daemon by default.
    func dayPage(
        _ date: LocalDate? = nil, language: PageLanguage = .korean, station: String = "종로구", fallbacks: [String] = [],
        calendar: DayCalendar = seoul, now: Date = afterNovember20, health: DaemonHealth? = nil,
        intakeModel: (any IntakeModel)? = nil, operatorDetail: Bool = true, indoorProblems: [IndoorSensorState] = []
    ) async throws -> String {
        let statistics = try statistics(station: station, fallbacks: fallbacks, calendar: calendar, now: now, intakeModel: intakeModel)
        let shown = date ?? statistics.today
        let newest = try await store.newestSlot(station: station, endingBy: now)
        let model = DashboardModel(
            page: date.map { .day($0) } ?? .today, language: language, station: station, day: try await statistics.day(shown),
            week: try await statistics.rollingWeek(endingOn: shown), intakeUnit: statistics.intakeModel.unit,
            calendar: calendar,
            health: health ?? Self.runningHealth(newest: newest, now: now), now: now, indoorProblems: indoorProblems,
            showsOperatorDetail: operatorDetail)
        return DashboardPage.render(model)
    }

    func weekPage(_ week: ISOWeek, language: PageLanguage = .korean, now: Date = afterNovember20) async throws -> (String, WeekReport) {
        let statistics = try statistics(now: now)
        let report = try await statistics.week(week)
        let model = await DashboardModel(
            page: .week(week), language: language, station: "종로구", day: nil, week: report, intakeUnit: .micrograms,
            calendar: Self.seoul, health: Self.runningHealth(newest: try store.newestSlot(station: "종로구", endingBy: now), now: now),
            now: now, showsOperatorDetail: true)
        return (DashboardPage.render(model), report)
    }

    /// dustd running, heartbeat a minute old, last poll a success.
    static func runningHealth(newest: Slot?, now: Date) -> DaemonHealth {
        var status = DaemonStatus(
            state: .idle, mode: .daemon, pid: 4242, version: "1.0.0", station: "종로구",
            startedAt: now.addingTimeInterval(-86_400), heartbeatSeconds: 60)
        status.heartbeatAt = now.addingTimeInterval(-60)
        status.lastSuccess = .init(at: now.addingTimeInterval(-1200), rowsNew: 1, rowsUpdated: 0, requests: 1)
        return DaemonHealth(status: status, newestSlot: newest, now: now, processIsDustd: { _ in true })
    }

    /// A reading with both values known.
    static func reading(_ station: String, _ slot: Slot, pm10: Double?, pm25: Double?, flag: String? = nil) -> HourlyReading {
        HourlyReading(
            station: station, slot: slot, concentration: DustPair(fineDust: pm10, ultraFineDust: pm25),
            flag: DustPair(fineDust: flag, ultraFineDust: nil))
    }
}

private func occurrences(of needle: String, in haystack: String) -> Int {
    haystack.components(separatedBy: needle).count - 1
}

private func json(_ value: Double?) -> String { JSON.number(value).serialized }
/// A computed number (a mean, an intake) as the documents write it: at most 3 decimals.
private func measured(_ value: Double?) -> String { JSON.measured(value).serialized }

/// Parses the page as XML: the dashboard is written so that it is (void elements closed with `/>`,
/// only XML's five character references), which proves every tag is closed and nested.
private func parsesAsXML(_ page: String) -> Bool {
    let parser = XMLParser(data: Data(page.utf8))
    return parser.parse()
}

/// Everything a page must never contain: scripts, external assets, style attributes, broken numbers.
private func expectSelfContained(_ page: String, sourceLocation: SourceLocation = #_sourceLocation) {
    // The two links a page has are dustd's own web app manifest and icon (issue 37): same origin, no data.
    let ownLinks = [
        "<link rel=\"manifest\" href=\"/manifest.webmanifest\"/>", "<link rel=\"icon\" href=\"/icon.svg\" type=\"image/svg+xml\"/>",
    ]
    #expect(ownLinks.allSatisfy { occurrences(of: $0, in: page) == 1 }, sourceLocation: sourceLocation)
    let page = ownLinks.reduce(page) { $0.replacingOccurrences(of: $1, with: "") }
    for forbidden in [
        "http://", "https://", "src=", "style=\"", "<script", "<link", "<img", "<iframe", "<object",
        "NaN", "nan", "inf", "Infinity", "url(",
    ] {
        #expect(!page.contains(forbidden), "the page contains \(forbidden)", sourceLocation: sourceLocation)
    }
    #expect(occurrences(of: "<style", in: page) == 1, sourceLocation: sourceLocation)
    #expect(page.contains("<style>\(DashboardPage.styleSheet())</style>"), sourceLocation: sourceLocation)
    #expect(parsesAsXML(page), "the page is not well-formed", sourceLocation: sourceLocation)
}

@Suite("Dashboard page", .timeLimit(.minutes(10)))
struct DashboardTests {
    @Test("The Korean page of 2026-11-20 at 종로구 shows Korean grades and the same numbers as dustctl day --json")
    func koreanDay() async throws {
        let scratch = try DashboardScratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let page = try await scratch.dayPage(DashboardScratch.november20)
        let day = try await scratch.statistics().day(DashboardScratch.november20)

        #expect(page.hasPrefix("<!DOCTYPE html>\n<html lang=\"ko\">"))
        #expect(page.contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>"))
        #expect(page.contains("<title>종로구 · 2026-11-20 · FineDust</title>"))
        #expect(page.contains("2026년 11월 20일 금요일"))
        // The day's means: PM10 1090/23 µg/m³ over 23 hours, PM2.5 535/22 over 22; both 보통, both above WHO.
        #expect(page.contains("<span class=\"chip g2\">보통</span>"))
        #expect(page.contains("<p class=\"caption\">평균</p><p class=\"value\">47.4<span class=\"unit\">µg/m³</span></p>"))
        #expect(page.contains("<p class=\"caption\">평균</p><p class=\"value\">24.3<span class=\"unit\">µg/m³</span></p>"))
        #expect(page.contains("23/24시간") && page.contains("22/24시간"))
        #expect(page.contains("266.7\u{A0}µg") && page.contains("133.5\u{A0}µg"))
        #expect(page.contains("WHO 권고 45 초과 (1.1배)") && page.contains("WHO 권고 15 초과 (1.6배)"))
        #expect(!page.contains("good") && !page.contains("moderate"))
        // Machine-readable, exactly as the JSON document prints them.
        #expect(measured(day.totals.mean.fineDust) == "47.391")
        #expect(
            page.contains(
                "data-hours-pm10=\"23\" data-mean-pm10=\"47.391\" data-max-pm10=\"66\" "
                    + "data-intake-pm10=\"\(measured(day.totals.intake.fineDust))\" data-grade-pm10=\"2\" data-who-exceeded-pm10=\"true\""))
        #expect(page.contains("data-hours-pm25=\"22\" data-mean-pm25=\"24.318\" data-max-pm25=\"36\""))
        let document = ReportJSON.day(day, calendar: DashboardScratch.seoul).serialized
        #expect(
            document.contains(
                "\"mean\":{\"pm10\":\(measured(day.totals.mean.fineDust)),\"pm25\":\(measured(day.totals.mean.ultraFineDust))}"))
        // One element per hour: 12:00 had 49 µg/m³ of PM10; 05:00 was 점검및교정 (unknown, a gap).
        #expect(occurrences(of: "data-hour=\"", in: page) == 24)
        #expect(page.contains("data-hour=\"2026-11-20T12:00:00+09:00\" data-pm10=\"49\""))
        #expect(
            page.contains(
                "<g class=\"hour\" data-hour=\"2026-11-20T05:00:00+09:00\" data-pm10=\"null\" data-pm25=\"null\" "
                    + "data-intake-pm10=\"null\" data-intake-pm25=\"null\"></g>"))
        #expect(page.contains("점검및교정"))
        // Links: the days around, today (2026-11-21), the ISO week, the other language.
        #expect(page.contains("href=\"/day/2026-11-19?lang=ko\""))
        #expect(page.contains("href=\"/day/2026-11-21?lang=ko\""))
        #expect(page.contains("href=\"/week/2026-W47?lang=ko\""))
        #expect(page.contains("href=\"/day/2026-11-20?lang=en\""))
        #expect(!page.contains("class=\"notice"))
        expectSelfContained(page)
    }

    @Test("The English page has lang=en, English grade words and English text throughout")
    func englishDay() async throws {
        let scratch = try DashboardScratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let page = try await scratch.dayPage(DashboardScratch.november20, language: .english)

        #expect(page.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
        #expect(page.contains("Friday, 20 November 2026"))
        #expect(page.contains("<span class=\"chip g2\">moderate</span>"))
        #expect(page.contains("Above WHO 45 (1.1×)"))
        #expect(page.contains("23/24\u{A0}h"))
        // AirKorea's flag on 05:00 in English, its Korean beside it (in Korean: lang="ko").
        #expect(page.contains("servicing and calibration (<span lang=\"ko\">점검및교정</span>)"))
        #expect(page.contains("href=\"/day/2026-11-20?lang=ko\""))
        #expect(page.contains("href=\"/day/2026-11-19?lang=en\""))
        for korean in ["보통", "좋음", "나쁨", "평균", "흡입량", "시간별"] {
            #expect(!page.contains(korean), "English page contains \(korean)")
        }
        expectSelfContained(page)
    }

    @Test(
        "Today's one hour of 00:00 seen at 20:18 (AirKorea down since): the newest stored hour, dated, with no advice for now; within three hours it is the latest"
    )
    func staleTodayNotLatest() async throws {
        let scratch = try DashboardScratch()
        let slots = DashboardScratch.seoul.slots(of: DashboardScratch.november20)
        try await scratch.save([DashboardScratch.reading("종로구", slots[0], pm10: 40, pm25: 20)])
        let late = try await scratch.dayPage(language: .korean, now: slots[20].start.addingTimeInterval(18 * 60))
        #expect(
            late.contains(
                "<h2>가장 최근 측정 <span class=\"aside\">11/20 00:00–01:00</span></h2><div class=\"badge g2\"><span class=\"word\">보통</span></div>"
            ))
        #expect(!late.contains("최근 1시간") && !late.contains("class=\"advice\""))
        #expect(late.contains("데이터가 오래되었습니다"))
        let english = try await scratch.dayPage(language: .english, now: slots[20].start.addingTimeInterval(18 * 60))
        #expect(english.contains("<h2>Newest stored hour <span class=\"aside\">"), "\(english)")
        // Left open, the page asks again; it says when it was made, which its "… ago" counts from.
        #expect(late.contains("<meta http-equiv=\"refresh\" content=\"600\"/>") && late.contains("<p>이 페이지: 20:18 기준</p>"))
        #expect(english.contains("<p>This page as of 20:18</p>"))
        let past = try await scratch.dayPage(LocalDate(year: 2026, month: 11, day: 19), language: .english, now: slots[20].start)
        #expect(!past.contains("http-equiv=\"refresh\"") && past.contains("<p>This page as of 20:00</p>"))
        // At 03:59 the hour that ended at 01:00 is still the latest, with its advice.
        let early = try await scratch.dayPage(language: .korean, now: slots[3].start.addingTimeInterval(59 * 60))
        #expect(
            early.contains(
                "<h2>최근 1시간 <span class=\"aside\">00:00–01:00</span></h2><div class=\"badge g2\"><span class=\"word\">보통</span><span class=\"advice\">"
            ))
    }

    @Test(
        "A monitor that gives no value is said among the notices, with since when and what the hours at home use; its problem to the operator only"
    )
    func indoorMonitorProblem() async throws {
        let scratch = try DashboardScratch()
        let slots = DashboardScratch.seoul.slots(of: DashboardScratch.november20)
        try await scratch.save([DashboardScratch.reading("종로구", slots[19], pm10: 40, pm25: 20)])
        let now = slots[20].start.addingTimeInterval(18 * 60)
        let problem = IndoorSensorState(
            sensor: "living-room", kind: "airgradient", checkedAt: now, lastSampleAt: slots[19].start,
            problem: "it cannot be reached; check that it is switched on",
            problemSince: slots[20].start.addingTimeInterval(16 * 60), unknownSamples: 0)
        let page = try await scratch.dayPage(language: .korean, now: now, indoorProblems: [problem])
        #expect(
            page.contains(
                "<p class=\"notice warn\">실내 측정기 living-room의 값이 20:16부터 들어오지 않습니다. 그동안 집 안의 시간은 측정소 값으로 추정합니다.<span class=\"detail\">it cannot be reached; check that it is switched on</span></p>"
            ))
        let english = try await scratch.dayPage(language: .english, now: now, operatorDetail: false, indoorProblems: [problem])
        #expect(
            english.contains(
                "The indoor monitor living-room has given no value since 20:16; meanwhile the hours at home are estimated from the station&#39;s value.</p>"
            ))
        #expect(!english.contains("switched on"))
        #expect(!(try await scratch.dayPage(language: .english, now: now)).contains("indoor monitor"))
    }

    @Test("Today's page shows the latest hour in a big badge, intake so far and hours to come")
    func today() async throws {
        let scratch = try DashboardScratch()
        let calendar = DashboardScratch.seoul
        let slots = calendar.slots(of: DashboardScratch.november20)
        // 00:00–13:00 measured; at 14:20 the hour 13:00–14:00 has not been stored yet.
        try await scratch.save((0..<13).map { DashboardScratch.reading("종로구", slots[$0], pm10: 20 + Double($0), pm25: 10 + Double($0)) })
        let now = slots[14].start.addingTimeInterval(20 * 60)
        let page = try await scratch.dayPage(language: .korean, now: now)

        #expect(page.contains("오늘 · 2026년 11월 20일 금요일"))
        // Latest hour 12:00–13:00: PM10 32 (보통), PM2.5 22 (보통).
        #expect(
            page.contains("<h2>최근 1시간 <span class=\"aside\">12:00–13:00</span></h2><div class=\"badge g2\"><span class=\"word\">보통</span>"))
        #expect(page.contains("<h2>오늘 지금까지</h2>"))
        // The day's highest hour with its unit, as the mean above it has.
        #expect(page.contains("<dt>최고</dt><dd>32\u{A0}µg/m³</dd>"))
        #expect(page.contains("13/14시간"))
        // Intake so far, by hand: PM10 161 µg/m³·h asleep × 0.189 + 55 light × 0.612 + 122 sedentary × 0.182 = 86.293 µg;
        // PM2.5 91 × 0.189 + 35 × 0.612 + 82 × 0.182 = 53.543 µg.
        #expect(page.contains("<dt>흡입량</dt><dd>86.3\u{A0}µg</dd>"))
        #expect(page.contains("<dt>흡입량</dt><dd>53.5\u{A0}µg</dd>"))
        #expect(occurrences(of: "data-hour=\"", in: page) == 24)
        #expect(occurrences(of: "<g class=\"hour future\"", in: page) == 10)
        #expect(page.contains("<span>오늘</span>"))
        #expect(page.contains("<span>11/21 ›</span>"))
        expectSelfContained(page)
    }

    @Test("Under the boostcamp model intake is in whole points")
    func points() async throws {
        let scratch = try DashboardScratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        // 3,000 m walked at 12:00, when PM10 was 49: floor(49 × 3000 × 0.036 × 0.01) = 52 points; no other hour walked.
        try await scratch.store.saveCSVWalking([DashboardScratch.seoul.slots(of: DashboardScratch.november20)[12]: 3000])
        let korean = try await scratch.dayPage(DashboardScratch.november20, intakeModel: BoostcampIntakeModel())
        #expect(korean.contains("<dt>흡입량</dt><dd>52\u{A0}점</dd>"))
        #expect(korean.contains("data-intake-pm10=\"52\""))
        #expect(korean.contains("3000 m 걸음"))
        let english = try await scratch.dayPage(DashboardScratch.november20, language: .english, intakeModel: BoostcampIntakeModel())
        #expect(english.contains("<dt>Intake</dt><dd>52\u{A0}points</dd>"))
        expectSelfContained(korean)
        expectSelfContained(english)
    }

    @Test("A clock behind the newest stored hour by more than an hour is said to be, in both languages; within the hour it is not")
    func clockBehind() async throws {
        let scratch = try DashboardScratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let newest = try #require(try await scratch.store.newestSlot(station: "종로구", endingBy: .distantFuture))
        // The hour's own margin: a clock 59 minutes behind the newest hour's end says nothing of itself.
        let close = DashboardScratch.runningHealth(newest: newest, now: newest.end.addingTimeInterval(-59 * 60))
        #expect(close.clockBehind == nil)
        // Two days behind, as a Raspberry Pi that booted at the time it last saved.
        let now = newest.end.addingTimeInterval(-48 * 3600)
        let health = DashboardScratch.runningHealth(newest: newest, now: now)
        #expect(abs((health.clockBehind ?? 0) - 48 * 3600) < 1)
        #expect(!health.stale)
        // `dustctl status` exits 4 for it, as for stale data; not within the hour.
        #expect(health.exitStatus == 4 && close.exitStatus == 0)
        let english = try await scratch.dayPage(language: .english, now: now, health: health)
        #expect(
            english.contains(
                "<p class=\"notice\">This machine&#39;s clock is behind: the newest stored hour ends 48 h after it. Check the clock (timedatectl).</p>"
            ), "\(english)")
        let korean = try await scratch.dayPage(language: .korean, now: now, health: health)
        #expect(korean.contains("이 기기의 시계가 늦습니다: 가장 최근 측정 시간이 시계보다 48시간 뒤에 끝납니다."))
        let fine = try await scratch.dayPage(language: .english, now: newest.end.addingTimeInterval(20 * 60), health: close)
        #expect(!fine.contains("clock is behind"))
    }

    @Test("The health's read: an hour ending just after the clock is not yet the newest; one ending two days after is the clock behind")
    func healthReadsBothNewestHours() async throws {
        let scratch = try DashboardScratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let newest = try #require(try await scratch.store.newestSlot(station: "종로구", endingBy: .distantFuture))
        func health(at now: Date) async throws -> DaemonHealth {
            try await DaemonHealth.read(from: scratch.store, station: "종로구", now: now, processIsDustd: { _ in true })
        }
        // A second before the newest hour ends (the demo's clock): the hour before it is the newest shown.
        let justBefore = try await health(at: newest.end.addingTimeInterval(-1))
        #expect(justBefore.newestHourEnd == newest.start && justBefore.clockBehind == nil)
        #expect(try await health(at: newest.end).newestHourEnd == newest.end)
        let behind = try await health(at: newest.end.addingTimeInterval(-48 * 3600))
        #expect(behind.newestHourEnd == newest.end)
        #expect(abs((behind.clockBehind ?? 0) - 48 * 3600) < 1)
        #expect(
            try await DaemonHealth.read(from: scratch.store, station: "중구", now: newest.end, processIsDustd: { _ in true }).newestHourEnd
                == nil)
        // One read of the station's hours, whatever the clock: the web asks this at every /healthz and page.
        let counting = ReadCountingStore(base: scratch.store)
        for now in [newest.end.addingTimeInterval(-1), newest.end, newest.end.addingTimeInterval(-48 * 3600)] {
            _ = try await DaemonHealth.read(from: counting, station: "종로구", now: now, processIsDustd: { _ in true })
        }
        #expect(counting.reads.withLock { $0 } == ["newestSlots", "newestSlots", "newestSlots"])
    }

    @Test(
        "dustctl today's latest hour and newest stored hour, read together: the same as each read alone, at every clock, with one read of the slots"
    )
    func latestAndNewestStoredTogether() async throws {
        let scratch = try DashboardScratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let newest = try #require(try await scratch.store.newestSlot(station: "종로구", endingBy: .distantFuture))
        let clocks = [
            newest.end.addingTimeInterval(-1), newest.end, newest.start.addingTimeInterval(-1),
            newest.end.addingTimeInterval(-48 * 3600), newest.end.addingTimeInterval(30 * 86_400),
        ]
        let counting = ReadCountingStore(base: scratch.store)
        var shown: [Slot?] = []
        for now in clocks {
            for station in ["종로구", "중구"] {
                let alone = try scratch.statistics(station: station, now: now)
                let together = StatisticsService(
                    readings: counting, activity: scratch.store, clock: FixedClock(now), calendar: DashboardScratch.seoul,
                    intakeModel: try VentilationIntakeModel(), stations: StationPreference(primary: station))
                let both = try await together.latestReadingAndNewestStoredHourEnd()
                let latest = try await alone.latestReading()
                #expect(both.latest == latest, "\(station) at \(now)")
                let newestStored = try await scratch.store.newestSlot(station: station, endingBy: .distantFuture)
                #expect(both.newestStoredHourEnd == newestStored?.end, "\(station) at \(now)")
                if station == "종로구" { shown.append(latest?.slot) }
            }
        }
        // The slot shown follows the clock: the hour before the newest until the newest has begun, and none
        // at all two days before it; the newest stored is the newest whatever the clock.
        #expect(shown == [newest, newest, newest.advanced(by: -1), nil, newest])
        #expect(counting.reads.withLock { $0 } == Array(repeating: "newestSlots", count: 10))
    }

    @Test("A station name, flag, fallback and daemon message full of markup render as text, in SVG titles and attributes too")
    func hostileText() async throws {
        let scratch = try DashboardScratch()
        let station = "<script>alert(\"1\")</script>'"
        let fallback = "<b onmouseover=\"x\">중구</b>"
        let slots = DashboardScratch.seoul.slots(of: DashboardScratch.november20)
        try await scratch.save([
            DashboardScratch.reading(station, slots[9], pm10: 41, pm25: nil, flag: "<svg onload=alert(3)>"),
            DashboardScratch.reading(fallback, slots[9], pm10: 50, pm25: 20),
        ])
        var status = DaemonStatus(
            state: .backingOff, mode: .daemon, pid: 77, version: "<i>1</i>", station: station,
            startedAt: DashboardScratch.afterNovember20.addingTimeInterval(-7200), heartbeatSeconds: 60)
        status.heartbeatAt = DashboardScratch.afterNovember20.addingTimeInterval(-30)
        status.lastError = .init(
            at: DashboardScratch.afterNovember20.addingTimeInterval(-600),
            failure: .configuration("<script>alert('poll')</script> & more"))
        status.reloadRefused = .init(at: DashboardScratch.afterNovember20.addingTimeInterval(-300), reason: "<img src=x onerror=alert(4)>")
        let health = DaemonHealth(
            status: status, newestSlot: slots[9], now: DashboardScratch.afterNovember20, processIsDustd: { _ in true })

        for language in PageLanguage.allCases {
            let page = try await scratch.dayPage(
                DashboardScratch.november20, language: language, station: station, fallbacks: [fallback],
                health: health)
            #expect(!page.contains("<script"))
            #expect(!page.contains("<img"))
            #expect(!page.contains("<b "))
            #expect(!page.contains("<svg onload"))
            #expect(!page.contains("<i>"))
            let escapedStation = "&lt;script&gt;alert(&quot;1&quot;)&lt;/script&gt;&#39;"
            #expect(page.contains("<h1>\(escapedStation)</h1>"))
            #expect(page.contains("<title>\(escapedStation) · 2026-11-20 · FineDust</title>"))
            // In the chart: the SVG's <title> (its only name) and the bar's <title>.
            #expect(
                page.contains(
                    "role=\"img\"><title>"
                        + (language == .korean ? escapedStation + " 2026-11-20의" : "PM10 and PM2.5 at " + escapedStation)))
            #expect(page.contains("&lt;svg onload=alert(3)&gt;</title></rect>"))
            #expect(page.contains("&lt;b onmouseover=&quot;x&quot;&gt;중구&lt;/b&gt;"))
            #expect(page.contains("&lt;script&gt;alert(&#39;poll&#39;)&lt;/script&gt; &amp; more"))
            #expect(page.contains("&lt;img src=x onerror=alert(4)&gt;"))
            #expect(page.contains("FineDust dustd &lt;i&gt;1&lt;/i&gt;"))
            #expect(parsesAsXML(page))
        }
    }

    @Test("The escaping function escapes the five characters and drops control characters")
    func escaping() {
        #expect(
            HTMLEscaping.escape(#"<a href="x" title='y'>&amp;</a>"#)
                == "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;")
        #expect(HTMLEscaping.escape("종로구\u{0}\u{1B}[31m\u{85}") == "종로구\u{FFFD}\u{FFFD}[31m\u{FFFD}")
        #expect(HTMLEscaping.escape("a\tb\nc") == "a\tb\nc")
        #expect(HTMLEscaping.escape("12\u{202E}34\u{200F}5\u{061C}6\u{2028}7") == "12\u{FFFD}34\u{FFFD}5\u{FFFD}6 7")
    }

    @Test("A day without readings says so and draws no bars and no broken numbers")
    func emptyDay() async throws {
        let scratch = try DashboardScratch()
        for language in PageLanguage.allCases {
            let past = try await scratch.dayPage(LocalDate(year: 2026, month: 11, day: 18), language: language)
            #expect(past.contains(language == .korean ? "이날 저장된 측정값이 없습니다." : "No readings stored for this day."))
            #expect(past.contains(language == .korean ? "이 기간에 저장된 측정값이 없습니다." : "No readings stored for these days."))
            #expect(!past.contains("data-hour="))
            #expect(!past.contains("data-date="))
            #expect(!past.contains("class=\"bar"))
            #expect(!past.contains("<svg"))
            expectSelfContained(past)

            let today = try await scratch.dayPage(language: language)
            #expect(today.contains(language == .korean ? "아직 오늘 측정값이 없습니다." : "No readings for today yet;"))
            // Nothing stored at all: said at the top.
            #expect(today.contains(language == .korean ? "저장된 측정값이 아직 없습니다." : "No hours are stored yet."))
            expectSelfContained(today)
        }
        // Hours stored, the newest of them days old (AirKorea down since): no promise of the next one.
        try await scratch.save([
            DashboardScratch.reading(
                "종로구", DashboardScratch.seoul.slots(of: LocalDate(year: 2026, month: 11, day: 17))[5], pm10: 40, pm25: 20)
        ])
        let stale = try await scratch.dayPage(language: .english)
        #expect(stale.contains("No readings stored for today.") && !stale.contains("No readings for today yet;"))
        #expect(stale.contains("Stale data: the newest hour ended"))
    }

    @Test("A day in America/New_York has 23 hour elements on 2026-03-08 and 25 on 2026-11-01")
    func daylightSavingDays() async throws {
        let scratch = try DashboardScratch()
        let calendar = DashboardScratch.newYork
        let spring = LocalDate(year: 2026, month: 3, day: 8)
        let autumn = LocalDate(year: 2026, month: 11, day: 1)
        for date in [spring, autumn] {
            try await scratch.save(
                calendar.slots(of: date).enumerated().map { index, slot in
                    DashboardScratch.reading("종로구", slot, pm10: 30 + Double(index), pm25: 12 + Double(index) / 2)
                })
        }
        let now = calendar.start(of: LocalDate(year: 2026, month: 11, day: 2)).addingTimeInterval(12 * 3600)

        let springPage = try await scratch.dayPage(spring, language: .english, calendar: calendar, now: now)
        #expect(occurrences(of: "data-hour=\"", in: springPage) == 23)
        // 23 hours × 2 pollutants, and the day's two bars in the week chart.
        #expect(occurrences(of: "<rect class=\"bar", in: springPage) == 46 + 2)
        #expect(springPage.contains("data-hour=\"2026-03-08T01:00:00-05:00\""))
        #expect(springPage.contains("data-hour=\"2026-03-08T03:00:00-04:00\""))
        #expect(!springPage.contains("T02:00:00"))
        #expect(springPage.contains("This day has 23 hours"))
        #expect(springPage.contains("23/23\u{A0}h"))
        expectSelfContained(springPage)

        let autumnPage = try await scratch.dayPage(autumn, language: .korean, calendar: calendar, now: now)
        #expect(occurrences(of: "data-hour=\"", in: autumnPage) == 25)
        #expect(autumnPage.contains("data-hour=\"2026-11-01T01:00:00-04:00\""))
        #expect(autumnPage.contains("data-hour=\"2026-11-01T01:00:00-05:00\""))
        // The hour that happens twice is told apart in the table by its offset.
        #expect(autumnPage.contains("<th scope=\"row\">01:00<span class=\"offset\">-04:00</span></th>"))
        #expect(autumnPage.contains("<th scope=\"row\">01:00<span class=\"offset\">-05:00</span></th>"))
        #expect(autumnPage.contains("25시간입니다"))
        #expect(autumnPage.contains("25/25시간"))
        expectSelfContained(autumnPage)
    }

    @Test("Stale data and a dustd gone without stopping are said at the top, before the station")
    func staleAndGone() async throws {
        let scratch = try DashboardScratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        // Two days later: the newest hour (23:00–24:00 on 11-20) ended 48 h ago; dustd's PID is not dustd.
        let now = DashboardScratch.afterNovember20.addingTimeInterval(48 * 3600 - 20 * 60)
        var status = DaemonStatus(
            state: .idle, mode: .daemon, pid: 4242, version: "1.0.0", station: "종로구",
            startedAt: DashboardScratch.afterNovember20.addingTimeInterval(-86_400), heartbeatSeconds: 60)
        status.heartbeatAt = DashboardScratch.afterNovember20
        let newest = try await scratch.store.newestSlot(station: "종로구", endingBy: now)
        let health = DaemonHealth(status: status, newestSlot: newest, now: now, processIsDustd: { _ in false })
        #expect(health.daemon == .gone && health.stale)

        let english = try await scratch.dayPage(language: .english, now: now, health: health)
        let notices = try #require(english.range(of: "<section class=\"notices\""))
        let heading = try #require(english.range(of: "<h1>"))
        #expect(notices.lowerBound < heading.lowerBound)
        #expect(english.contains("<p class=\"notice\">Stale data: the newest hour ended 48 h ago.</p>"))
        #expect(
            english.contains(
                "<p class=\"notice\">dustd is not running: it ended without stopping (last heard from at 2026-11-21 00:20); check journalctl -u dustd.</p>"
            ))
        #expect(!english.contains("4242"), "the web shows no PID")
        expectSelfContained(english)

        let korean = try await scratch.dayPage(language: .korean, now: now, health: health)
        #expect(korean.contains("데이터가 오래되었습니다: 가장 최근 측정 시간이 48시간 전에 끝났습니다."))
        #expect(korean.contains("dustd가 실행 중이 아닙니다"))
        expectSelfContained(korean)
    }

    @Test("A failed last poll and a refused reload are said with their messages")
    func failedPollAndRefusedReload() async throws {
        let scratch = try DashboardScratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let now = DashboardScratch.afterNovember20
        var status = DaemonStatus(
            state: .waitingForNextHour, mode: .daemon, pid: 4242, version: "1.0.0", station: "종로구",
            startedAt: now.addingTimeInterval(-86_400), heartbeatSeconds: 60)
        status.heartbeatAt = now
        status.nextPollAt = now.addingTimeInterval(2400)
        status.lastSuccess = .init(at: now.addingTimeInterval(-3 * 3600), rowsNew: 1, rowsUpdated: 0, requests: 1)
        status.lastError = .init(
            at: now.addingTimeInterval(-600), failure: .configuration("SERVICE KEY IS NOT REGISTERED ERROR: register the key at data.go.kr")
        )
        status.reloadRefused = .init(at: now.addingTimeInterval(-300), reason: "station.name must not be empty")
        let health = await DaemonHealth(
            status: status, newestSlot: try scratch.store.newestSlot(station: "종로구", endingBy: now),
            now: now, processIsDustd: { _ in true })

        let page = try await scratch.dayPage(DashboardScratch.november20, language: .english, health: health)
        #expect(
            page.contains(
                "The last poll failed at 00:10 (configuration):<span class=\"detail\">SERVICE KEY IS NOT REGISTERED ERROR: register the key at data.go.kr</span>"
            ))
        #expect(
            page.contains(
                "A configuration reload was refused at 00:15; dustd kept its previous configuration:<span class=\"detail\">station.name must not be empty</span>"
            ))
        #expect(page.contains("dustd is waiting for the next hour because of a key or configuration problem. It tries again at 01:00."))
        #expect(!page.contains("Stale data"))
        expectSelfContained(page)
        // A person's own page (not the operator's): that it happened, not the sentence, which may quote anyone's settings.
        let persons = try await scratch.dayPage(DashboardScratch.november20, language: .english, health: health, operatorDetail: false)
        // Each sentence ends where its detail would have followed: no dangling colon.
        #expect(persons.contains("The last poll failed at 00:10 (configuration).</p>"))
        #expect(persons.contains("A configuration reload was refused at 00:15; dustd kept its previous configuration.</p>"))
        #expect(!persons.contains("class=\"detail\""))
        #expect(!persons.contains("SERVICE KEY") && !persons.contains("station.name"))
        expectSelfContained(persons)

        // AirKorea's result code explained in Korean on the Korean page; in English as recorded.
        status.lastError = .init(
            at: now.addingTimeInterval(-600),
            failure: .fetch(.response(.service(.serviceKeyNotRegistered, reportedCode: "30", serverMessage: ""), httpStatus: 200)))
        let keyHealth = await DaemonHealth(
            status: status, newestSlot: try scratch.store.newestSlot(station: "종로구", endingBy: now), now: now,
            processIsDustd: { _ in true })
        let korean = try await scratch.dayPage(DashboardScratch.november20, language: .korean, health: keyHealth)
        #expect(korean.contains("(00:10, 에어코리아 응답, 결과 코드 30):<span class=\"detail\">등록되지 않은 서비스 키입니다. "), "\(korean)")
        let english = try await scratch.dayPage(DashboardScratch.november20, language: .english, health: keyHealth)
        #expect(
            english.contains("(AirKorea, result code 30):<span class=\"detail\">") && english.contains("The service key is not registered"))
    }

    @Test("The week page of 2026-W47 has 7 day bars with dustctl's numbers, a table and totals; today is marked")
    func weekPage() async throws {
        let scratch = try DashboardScratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-3MONTH-2026-11-20.xml")
        let (page, week) = try await scratch.weekPage(try #require(ISOWeek("2026-W47")))

        #expect(page.contains("<title>종로구 · 2026-W47 · FineDust</title>"))
        #expect(page.contains("2026년 11월 셋째 주 · 11/16 – 11/22"))
        #expect(occurrences(of: "data-date=\"", in: page) == 7)
        #expect(
            week.days.map(\.date.description) == [
                "2026-11-16", "2026-11-17", "2026-11-18", "2026-11-19", "2026-11-20", "2026-11-21", "2026-11-22",
            ])
        for day in week.days {
            let intake = day.totals.intake
            #expect(
                page.contains(
                    "data-date=\"\(day.date)\" data-hours-pm10=\"\(day.totals.hours.fineDust)\" "
                        + "data-mean-pm10=\"\(measured(day.totals.mean.fineDust))\" data-max-pm10=\"\(json(day.totals.max.fineDust))\" "
                        + "data-intake-pm10=\"\(measured(intake.fineDust))\""))
            #expect(page.contains("data-intake-pm25=\"\(measured(intake.ultraFineDust))\""))
            #expect(page.contains("href=\"/day/\(day.date)?lang=ko\""))
        }
        // 11-16 … 11-20 measured (a bar each per pollutant); 11-21 is today, 11-22 has not come.
        #expect(week.days[0].totals.intake.ultraFineDust != nil && week.days[5].totals.intake.ultraFineDust == nil)
        #expect(occurrences(of: "<rect class=\"bar", in: page) == 10)
        #expect(page.contains("<g class=\"day today\" data-date=\"2026-11-21\""))
        #expect(page.contains("<tr class=\"today\"><th scope=\"row\"><a href=\"/day/2026-11-21?lang=ko\">토 11/21</a></th>"))
        // Week totals, as the JSON document's "total".
        let totals = week.totals
        #expect(
            page.contains(
                "data-scope=\"week\" data-start=\"2026-11-16\" data-end=\"2026-11-22\" "
                    + "data-hours-pm10=\"\(totals.hours.fineDust)\" data-mean-pm10=\"\(measured(totals.mean.fineDust))\""))
        #expect(page.contains("data-intake-pm25=\"\(measured(totals.intake.ultraFineDust))\" data-grade-pm25="))
        let document = ReportJSON.week(week, station: "종로구", calendar: DashboardScratch.seoul).serialized
        #expect(
            document.contains("\"intake\":{\"pm10\":\(measured(totals.intake.fineDust)),\"pm25\":\(measured(totals.intake.ultraFineDust))}")
        )
        #expect(page.contains("<tfoot><tr><th scope=\"row\">합계</th>"))
        #expect(occurrences(of: "<tr", in: page) == 1 + 7 + 1)
        #expect(page.contains("href=\"/week/2026-W46?lang=ko\""))
        #expect(page.contains("<span>48주 ›</span>"))
        #expect(page.contains("href=\"/week/2026-W47?lang=en\""))
        expectSelfContained(page)
    }

    @Test("The day page's week shows the rolling 7 days ending on the day, with 7 bars")
    func rollingWeekOnDayPage() async throws {
        let scratch = try DashboardScratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-3MONTH-2026-11-20.xml")
        let page = try await scratch.dayPage(DashboardScratch.november20, language: .english)
        let week = try await scratch.statistics().rollingWeek(endingOn: DashboardScratch.november20)
        #expect(occurrences(of: "data-date=\"", in: page) == 7)
        #expect(page.contains("Intake, last 7 days <span class=\"aside\">14 Nov – 20 Nov</span>"))
        for day in week.days {
            #expect(page.contains("data-date=\"\(day.date)\""))
            #expect(page.contains("data-intake-pm25=\"\(measured(day.totals.intake.ultraFineDust))\""))
        }
        // A bar per measured hour and pollutant in the day's chart, and two per day in the week's.
        let hoursMeasured = week.days[6].totals.hours
        #expect(occurrences(of: "<rect class=\"bar", in: page) == hoursMeasured.fineDust + hoursMeasured.ultraFineDust + 14)
        expectSelfContained(page)
    }
}

@Suite("Dashboard gases panel (docs/REFERENCE.md §17)", .timeLimit(.minutes(10)))
struct DashboardGasTests {
    @Test("The latest hour's ppm in its CAI grade's colour, the day's highest hour, the index with its grade")
    func gasPanel() async throws {
        let scratch = try DashboardScratch()
        try await scratch.importFixture("synthesized/station-junggu-ver1.5-gases-dash-flag-implausible-2026-11-20.xml")
        let page = try await scratch.dayPage(DashboardScratch.november20, station: "중구")
        // 23:00–24:00: khaiValue 501 and khaiGrade 5 are unknown; the index's only known hour is 21:00 (120, 나쁨).
        #expect(page.contains("<section class=\"card gases\" data-cai=\"null\" data-cai-grade=\"null\">"))
        #expect(page.contains("<h2>대기가스 마지막 1시간 <span class=\"aside\">23:00–24:00</span></h2>"))
        #expect(
            page.contains(
                "<div class=\"tile\" data-gas=\"o3\" data-ppm=\"0.031\" data-grade=\"2\"><h3>오존 <span class=\"aside\">O3</span></h3>"
                    + "<p class=\"value compact ppm g2\">0.031<span class=\"unit\">ppm</span></p><span class=\"chip g2\">보통</span>"))
        #expect(page.contains("<p class=\"value compact ppm g1\">0.030<span class=\"unit\">ppm</span></p>"))
        #expect(page.contains("<p class=\"value compact ppm g3\">9.01<span class=\"unit\">ppm</span></p>"))
        #expect(page.contains("<p class=\"value compact ppm g4\">0.151<span class=\"unit\">ppm</span></p>"))
        // CO: 9.01 and 0.4 known (999 was implausible); the index: 120 its highest and only hour.
        #expect(page.contains("<div><dt>최고</dt><dd>9.01\u{A0}ppm</dd></div><div><dt>측정</dt><dd>2/24시간</dd></div>"))
        #expect(page.contains("<h3>통합대기환경지수 <span class=\"aside\">CAI</span></h3><p class=\"value compact\">–</p>"))
        #expect(page.contains("<div><dt>최고</dt><dd>120</dd></div><div><dt>측정</dt><dd>1/24시간</dd></div>"))
        expectSelfContained(page)

        let english = try await scratch.dayPage(DashboardScratch.november20, language: .english, station: "중구")
        #expect(english.contains("<h2>Gases, last hour of the day <span class=\"aside\">23:00–24:00</span></h2>"))
        #expect(english.contains("<h3>Ozone <span class=\"aside\">O3</span></h3>"))
        #expect(english.contains("<span class=\"chip g4\">very bad</span>"))
        expectSelfContained(english)
    }

    @Test("A day whose hours carry no gas and no index has no gases panel")
    func noGasesNoPanel() async throws {
        let scratch = try DashboardScratch()
        let slots = DashboardScratch.seoul.slots(of: DashboardScratch.november20)
        try await scratch.save([DashboardScratch.reading("종로구", slots[9], pm10: 41, pm25: 20)])
        let page = try await scratch.dayPage(DashboardScratch.november20)
        #expect(page.contains("data-hours-pm10=\"1\""))
        #expect(!page.contains("card gases"))
        #expect(!page.contains("data-gas="))
    }
}

@Suite("The dashboard's colours", .timeLimit(.minutes(10)))
struct DashboardContrastTests {
    /// WCAG 2's contrast ratio of two `#rrggbb` colours.
    static func contrast(_ one: String, _ other: String) -> Double {
        func luminance(_ hex: String) -> Double {
            let value = Int(hex.dropFirst(), radix: 16)!
            let channels = [(value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF].map { Double($0) / 255 }
            let linear = channels.map { $0 <= 0.03928 ? $0 / 12.92 : pow(($0 + 0.055) / 1.055, 2.4) }
            return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
        }
        let (a, b) = (luminance(one), luminance(other))
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    @Test("White on each grade's big badge meets WCAG AA (4.5:1), in both schemes (the badge keeps its colour)")
    func badges() throws {
        let sheet = DashboardPage.styleSheet()
        for grade in 1...4 {
            let match = try #require(sheet.firstMatch(of: try Regex(#"\.badge\.g"# + String(grade) + #"\{background:(#[0-9a-f]{6})\}"#)))
            let colour = try #require(match.output[1].substring.map(String.init))
            #expect(Self.contrast(colour, "#ffffff") >= 4.5, "grade \(grade): \(colour)")
        }
    }

    @Test("Each person's colour in the household chart stands out from the card (WCAG 1.4.11, 3:1) and from the others, in both schemes")
    func personColours() throws {
        let sheet = DashboardPage.styleSheet()
        let schemes = sheet.components(separatedBy: "@media (prefers-color-scheme:dark)")
        #expect(schemes.count == 2)
        for scheme in schemes {
            let short = String(try #require(scheme.firstMatch(of: #/--card:(#[0-9a-f]{3}(?:[0-9a-f]{3})?)[;}]/#)).output.1)
            // `#fff` is `#ffffff`.
            let card = short.count == 4 ? "#" + short.dropFirst().map { "\($0)\($0)" }.joined() : short
            let colours = scheme.matches(of: #/--p[0-9]:(#[0-9a-f]{6})/#).map { String($0.output.1) }
            #expect(colours.count == 6)
            for colour in colours { #expect(Self.contrast(colour, String(card)) >= 3, "\(colour) on \(card)") }
            #expect(Set(colours).count == colours.count)
        }
    }
}

/// A store that records which of the hour readers a caller asked, and passes everything on.
private final class ReadCountingStore: ReadingStore, DaemonStatusStore {
    let base: SQLiteStore
    let reads = Mutex<[String]>([])

    init(base: SQLiteStore) { self.base = base }

    func saveReadings(_ readings: [HourlyReading], fetchedAt: Date) async throws(StorageFailure) -> UpsertSummary {
        try await base.saveReadings(readings, fetchedAt: fetchedAt)
    }
    func readings(stations: [String], from: Slot, to: Slot) async throws(StorageFailure) -> [HourlyReading] {
        try await base.readings(stations: stations, from: from, to: to)
    }
    func dustValues(stations: [String], from: Slot, to: Slot) async throws(StorageFailure) -> [StationDust] {
        try await base.dustValues(stations: stations, from: from, to: to)
    }
    func newestSlot(station: String, endingBy now: Date) async throws(StorageFailure) -> Slot? {
        reads.withLock { $0.append("newestSlot") }
        return try await base.newestSlot(station: station, endingBy: now)
    }
    func newestSlots(station: String, endingBy now: Date) async throws(StorageFailure) -> NewestSlots {
        reads.withLock { $0.append("newestSlots") }
        return try await base.newestSlots(station: station, endingBy: now)
    }
    func readingCount(station: String?) async throws(StorageFailure) -> Int { try await base.readingCount(station: station) }
    func saveStatus(_ status: DaemonStatus) async throws(StorageFailure) { try await base.saveStatus(status) }
    func loadStatus() async throws(StorageFailure) -> DaemonStatus? { try await base.loadStatus() }
    func claimForDemo(at time: Date) async throws(StorageFailure) -> Bool { try await base.claimForDemo(at: time) }
    func demoMayWrite() async throws(StorageFailure) -> Bool { try await base.demoMayWrite() }
    func releaseFromDemo() async throws(StorageFailure) -> Bool { try await base.releaseFromDemo() }
}

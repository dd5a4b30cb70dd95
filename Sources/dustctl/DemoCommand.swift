import ArgumentParser
import DustConfig
import DustKit
import DustReports
import DustServices
import DustStorage
import Foundation
import Logging

struct DemoCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "demo",
            abstract: helpAbstract(
                "함께 배포된 AirKorea 응답을 실제 파이프라인으로 다시 넣고 보고서를 보여 줍니다. 키도 네트워크도 필요 없습니다.",
                "Replay the bundled AirKorea responses through the real pipeline and show a report. No key, no network."),
            discussion: helpText(
                """
                Fixtures/의 실제 응답과 합성한 응답이 dustd와 같은 파서, 수집, 데이터베이스를
                거칩니다. 깨졌거나 악의적인 응답은 dustd가 로그에 남길 오류와 함께 거부됩니다.
                데이터베이스는 남겨 두니 살펴볼 수 있습니다:
                  dustctl week --db finedust-demo.sqlite --station 종로구 --end 2026-11-20
                """,
                """
                Real and synthesized responses from Fixtures/ go through the same parser,
                ingest and database as dustd; broken and hostile ones are rejected with the
                error dustd would log. The database stays behind so you can explore it:
                  dustctl week --db finedust-demo.sqlite --station 종로구 --end 2026-11-20
                """))
    }

    @Option(
        help: .localized(
            "데모 데이터베이스 (다시 넣어도 바뀌는 것이 없습니다).", "The demo database (replaying into it again changes nothing).",
            valueName: "path", suffix: "(default: finedust-demo.sqlite)"),
        completion: .file())
    var db = "finedust-demo.sqlite"

    @Option(
        help: .localized(
            "Fixtures 디렉터리 (기본: ./Fixtures, 또는 설치된 실행 파일 옆).",
            "The Fixtures directory (default: ./Fixtures, or next to the installed binary).", valueName: "dir"),
        completion: .directory)
    var fixtures: String?

    @Flag(help: .localized("보고서를 JSON으로 출력합니다.", "Print the reports as JSON."))
    var json = false

    func run() async throws {
        try await reportingFailures {
            let language = ReportLanguage.process
            let directory = try fixturesDirectory(language)
            let calendar = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)
            let model = try VentilationIntakeModel()
            let inUse = CommandFailure(
                .cannotCreate,
                korean: "\(db)에는 데모가 쓰지 않은 데이터가 있어 그대로 두었습니다. 데모는 새 파일이나 데모가 만든 파일에만 씁니다: "
                    + "--db로 다른 파일을 주세요 (예전 FineDust의 데모 파일이라면 지우고 다시 실행하세요).",
                english: "\(db) holds data the demo did not write, so it was left alone; the demo writes only into a new file "
                    + "or one it made: name another with --db (or, if it is an older FineDust's demo file, remove it and run again).",
                language: language)
            // Asked before the file is opened to write, which would migrate a household's older database.
            guard await StorageBackend.demoMayReplay(intoSQLite: db, logger: Logger(label: "dustctl.demo")) else { throw inUse }
            try await withStore(.sqlite(path: db), for: .write) { store in
                let replay: DemoReplay.Replay
                do {
                    replay = try await DemoReplay(fixtures: directory, store: store, calendar: calendar).run()
                } catch is DemoReplay.DatabaseInUse {
                    throw inUse
                }
                let household = StatisticsService(
                    store: store, clock: FixedClock(DemoReplay.now), calendar: calendar, intakeModel: model,
                    stations: StationPreference(primary: DemoReplay.station), followingRadiusKilometres: DemoReplay.locationRadiusKilometres
                )
                var reports: [(person: Person, day: DayReport, week: WeekReport)] = []
                for person in DemoReplay.people {
                    let statistics = household.forPerson(person)
                    reports.append(
                        (
                            person, try await statistics.day(DemoReplay.lastDay),
                            try await statistics.rollingWeek(endingOn: DemoReplay.lastDay)
                        ))
                }
                let (day, week) = (reports[0].day, reports[0].week)
                let forecast = try await ForecastReader(store: store, timeZone: calendar.timeZone)
                    .outlook(station: DemoReplay.station, override: nil, now: DemoReplay.now)
                if json {
                    try standardOutputLine(
                        JSON.object([
                            ("day", ReportJSON.day(day, calendar: calendar)),
                            ("week", ReportJSON.week(week, station: DemoReplay.station, calendar: calendar)),
                            ("outlook", forecast.weekly.map { ReportJSON.weeklyOutlook($0, region: forecast.region) } ?? .null),
                            (
                                "people",
                                .array(
                                    reports.map { report in
                                        JSON.object([
                                            ("person", .string(report.person.name)),
                                            ("day", ReportJSON.day(report.day, calendar: calendar)),
                                            ("week", ReportJSON.week(report.week, station: DemoReplay.station, calendar: calendar)),
                                        ])
                                    })
                            ),
                        ]).serialized)
                    return
                }
                let style = TextStyle.forStandardOutput()
                let say = language.say
                let count = replay.responses.count
                try standardOutputLine(
                    style.bold(
                        say(
                            "녹화·합성한 AirKorea 응답 \(count)개를 \(db)에 다시 넣는 중",
                            "Replaying \(count) recorded and synthesized AirKorea responses into \(db)")))
                for (response, outcome) in replay.responses {
                    switch outcome {
                    case .stored(let report):
                        let stored = report.stored
                        try standardOutputLine(
                            "  ✓ \(response.path): "
                                + say(
                                    "측정값 \(report.readings)개 (새 값 \(stored.inserted), 고친 값 \(stored.updated), 그대로 \(stored.unchanged))",
                                    "\(report.readings) readings (\(stored.inserted) new, \(stored.updated) revised, \(stored.unchanged) unchanged)"
                                ))
                    case .rejected(let error):
                        try standardOutputLine("  ✗ \(response.path): " + style.dim(error.description))
                    }
                }
                for imported in replay.activity {
                    try standardOutputLine(
                        "  ✓ \(imported.file): "
                            + say("\(imported.person)의 기록, \(Self.koreanHeld(imported.summary))", "\(imported.person)'s, \(imported.held)"))
                }
                let (sensor, samples) = (DemoReplay.indoorSensor, replay.indoorSamples)
                try standardOutputLine(
                    "  ✓ \(DemoReplay.indoorFile): "
                        + say(
                            "\(sensor) 측정기의 표본 \(samples)개 (19:00부터 공기청정기 켬)",
                            "the \(sensor) monitor's, \(samples) samples (a purifier on from 19:00)"))
                try standardOutputLine(
                    "  ✓ \(DemoReplay.weeklyOutlookFile): "
                        + say("주간 예보", "the weekly outlook")
                        + (forecast.weekly.map {
                            say(" \($0.publishedOn) 발표, \($0.days.count)일", " published \($0.publishedOn), \($0.days.count) days")
                        } ?? "") + "\n")
                let text = ReportText(style: style, calendar: calendar, intakeModel: model, language: language)
                // The advisory in force at the demo's "now" for 종로구's district, as today names it.
                let listing = try await AdvisoryReader(store: store).listing(region: AdvisoryRegion(district: "서울"), now: DemoReplay.now)
                // The demo's story is told in the locale's language, as the reports are.
                if let line = AdvisoryText(style: style, calendar: calendar, language: language).topLine(listing) {
                    try standardOutputLine(line)
                }
                try standardOutputLine(text.day(day, isToday: false))
                try standardOutputLine(text.week(week, station: DemoReplay.station, chartPollutant: .pm25))
                for report in reports.dropFirst() {
                    try standardOutputLine(style.bold(say("구성원: ", "Person: ") + report.person.name))
                    try standardOutputLine(text.day(report.day, isToday: false))
                    try standardOutputLine(text.week(report.week, station: DemoReplay.station, chartPollutant: .pm25))
                }
                try standardOutputLine(Self.breathingLines(reports.map { ($0.person, $0.day) }, language).joined(separator: "\n") + "\n")
                try standardOutputLine((weeklyOutlookLines(forecast, style, language).dropFirst() + [""]).joined(separator: "\n"))
                let configuration = Self.displayPath(directory.appendingPathComponent(DemoReplay.householdConfigurationFile).path)
                try standardOutputLine(
                    style.dim(
                        say("더 살펴보기: ", "Explore: ")
                            + "dustctl week --everyone --config \(configuration) --db \(db) --end \(DemoReplay.lastDay)"))
            }
        }
    }

    /// Why the household's numbers differ for the same air, from each person's hours (docs/REFERENCE.md §18): the
    /// volume breathed (the sum of the hours' `V`), the time at each level with the rate of the person's age,
    /// and what set the levels.
    static func breathingLines(_ days: [(person: Person, day: DayReport)], _ language: ReportLanguage = .english) -> [String] {
        let say = language.say
        var lines = [
            say(
                "사람마다 숫자가 다른 까닭: 같은 공기를 다르게 들이마심 (m³ = 각 시간 V의 합)",
                "Why the numbers differ: the same air, breathed differently (m³ = the sum of each hour's V)")
        ]
        for (person, day) in days {
            let hours = day.hourly.compactMap(\.breathing)
            guard !hours.isEmpty else { continue }
            let breathed = hours.reduce(0) { $0 + $1.ventilation }
            var seconds: [ActivityLevel: Double] = [:]
            for hour in hours { seconds.merge(hour.secondsByLevel, uniquingKeysWith: +) }
            let age = person.born.map { $0.age(on: day.date) }
            let rates = age.map(AgeVentilationTable.rates(age:))
            let levels = ActivityLevel.allCases.compactMap { level -> String? in
                guard let time = seconds[level], time > 0 else { return nil }
                let rate = rates?[level].map { say(" (\(String(format: "%.2f", $0)) m³/h)", " at \(String(format: "%.2f", $0))") } ?? ""
                let hours = String(format: "%.1f", time / 3600)
                return say("\(koreanName(level)) \(hours)시간\(rate)", "\(level.rawValue) \(hours) h\(rate)")
            }
            let sources = LevelSource.allCases.reversed().compactMap { source -> String? in
                let count = hours.filter { $0.levelSource == source }.count
                return count > 0 ? say("\(koreanName(source)) \(count)", "\(source.rawValue) \(count)") : nil
            }
            let breathedText = "\(String(format: "%.2f", breathed)) m³"
            lines.append(
                "  \(person.name)\(age.map { " (\($0))" } ?? ""): "
                    + say("\(day.date)에 \(breathedText) — ", "\(breathedText) on \(day.date) — ")
                    + levels.joined(separator: ", ") + (rates == nil ? "" : say("", " m³/h")))
            lines.append(say("    활동 수준을 정한 근거별 시간 수: ", "    hours whose level came from: ") + sources.joined(separator: ", "))
        }
        return lines
    }

    /// 수면, 앉아 있음, …: an activity level as the Korean lines name it.
    static func koreanName(_ level: ActivityLevel) -> String {
        switch level {
        case .sleep: "수면"
        case .sedentary: "앉아 있음"
        case .light: "가벼운 활동"
        case .moderate: "중간 활동"
        case .high: "격한 활동"
        }
    }

    /// 일정, 걷기, …: what set an hour's level, as the Korean lines name it.
    static func koreanName(_ source: LevelSource) -> String {
        switch source {
        case .schedule: "일정"
        case .walking: "걷기"
        case .heartRate: "심박수"
        case .sleep: "수면"
        }
    }

    /// `DemoReplay.ActivityImport.held` in Korean, from the same counts: `걷기 14시간, 심박수 표본 1351개, 수면 50.9시간`.
    static func koreanHeld(_ summary: ActivityImportSummary) -> String {
        var held = ["걷기 \(summary.slotsTouched)시간"]
        if summary.heartRateSamples > 0 { held.append("심박수 표본 \(summary.heartRateSamples)개") }
        if summary.sleepIntervals > 0 { held.append(String(format: "수면 %.1f시간", Double(summary.asleepSeconds) / 3600)) }
        if summary.trackedMinutes > 0 { held.append("위치 추적 \(summary.trackedMinutes)분") }
        return held.joined(separator: ", ")
    }

    /// `path` relative to the current directory when it lies below it, so the hint reads as typed.
    private static func displayPath(_ path: String) -> String {
        let current = FileManager.default.currentDirectoryPath + "/"
        return path.hasPrefix(current) ? String(path.dropFirst(current.count)) : path
    }

    private func fixturesDirectory(_ language: ReportLanguage) throws -> URL {
        guard let directory = DemoReplay.locateFixtures(explicit: fixtures) else {
            throw CommandFailure(
                .noInput,
                language.say(
                    "함께 배포된 Fixtures 디렉터리를 찾을 수 없습니다. 저장소에서 dustctl demo를 실행하거나 --fixtures DIR을 주세요.",
                    "Cannot find the bundled Fixtures directory; run dustctl demo from the repository or pass --fixtures DIR."))
        }
        return directory
    }
}

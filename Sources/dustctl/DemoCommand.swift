import ArgumentParser
import DustKit
import DustReports
import DustServices
import Foundation

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Replay the bundled AirKorea responses through the real pipeline and show a report. No key, no network.",
        discussion: """
            Real and synthesized responses from Fixtures/ go through the same parser,
            ingest and database as dustd; broken and hostile ones are rejected with the
            error dustd would log. The database stays behind so you can explore it:
              dustctl week --db finedust-demo.sqlite --station 종로구 --end 2026-11-20
            """)

    @Option(help: ArgumentHelp("The demo database (replaying into it again changes nothing).", valueName: "path"), completion: .file())
    var db = "finedust-demo.sqlite"

    @Option(
        help: ArgumentHelp("The Fixtures directory (default: ./Fixtures, or next to the installed binary).", valueName: "dir"),
        completion: .directory)
    var fixtures: String?

    @Flag(help: "Print the reports as JSON.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let directory = try fixturesDirectory()
            let calendar = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)
            let model = try VentilationIntakeModel()
            try await withStore(.sqlite(path: db), for: .write) { store in
                let replay = try await DemoReplay(fixtures: directory, store: store, calendar: calendar).run()
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
                try standardOutputLine(
                    style.bold("Replaying \(replay.responses.count) recorded and synthesized AirKorea responses into \(db)"))
                for (response, outcome) in replay.responses {
                    switch outcome {
                    case .stored(let report):
                        let stored = report.stored
                        try standardOutputLine(
                            "  ✓ \(response.path): \(report.readings) readings (\(stored.inserted) new, \(stored.updated) revised, \(stored.unchanged) unchanged)"
                        )
                    case .rejected(let error):
                        try standardOutputLine("  ✗ \(response.path): " + style.dim(error.description))
                    }
                }
                for imported in replay.activity {
                    try standardOutputLine("  ✓ \(imported.file): \(imported.person)'s, \(imported.held)")
                }
                try standardOutputLine(
                    "  ✓ \(DemoReplay.indoorFile): the \(DemoReplay.indoorSensor) monitor's, \(replay.indoorSamples) samples (a purifier on from 19:00)"
                )
                try standardOutputLine(
                    "  ✓ \(DemoReplay.weeklyOutlookFile): the weekly outlook"
                        + (forecast.weekly.map { " published \($0.publishedOn), \($0.days.count) days" } ?? "") + "\n")
                let text = ReportText(style: style, calendar: calendar, intakeModel: model)
                // The advisory in force at the demo's "now" for 종로구's district, as today names it.
                let listing = try await AdvisoryReader(store: store).listing(region: AdvisoryRegion(district: "서울"), now: DemoReplay.now)
                // The demo's story is told in English whatever the locale (its other lines are).
                if let line = AdvisoryText(style: style, calendar: calendar, language: .english).topLine(listing) {
                    try standardOutputLine(line)
                }
                try standardOutputLine(text.day(day, isToday: false))
                try standardOutputLine(text.week(week, station: DemoReplay.station, chartPollutant: .pm25))
                for report in reports.dropFirst() {
                    try standardOutputLine(style.bold("Person: \(report.person.name)"))
                    try standardOutputLine(text.day(report.day, isToday: false))
                    try standardOutputLine(text.week(report.week, station: DemoReplay.station, chartPollutant: .pm25))
                }
                try standardOutputLine(Self.breathingLines(reports.map { ($0.person, $0.day) }).joined(separator: "\n") + "\n")
                try standardOutputLine((weeklyOutlookLines(forecast, style).dropFirst() + [""]).joined(separator: "\n"))
                let configuration = Self.displayPath(directory.appendingPathComponent(DemoReplay.householdConfigurationFile).path)
                try standardOutputLine(
                    style.dim(
                        "Explore: dustctl week --everyone --config \(configuration) --db \(db) --end \(DemoReplay.lastDay)"))
            }
        }
    }

    /// Why the household's numbers differ for the same air, from each person's hours (docs/REFERENCE.md §18): the
    /// volume breathed (the sum of the hours' `V`), the time at each level with the rate of the person's age,
    /// and what set the levels.
    static func breathingLines(_ days: [(person: Person, day: DayReport)]) -> [String] {
        var lines = ["Why the numbers differ: the same air, breathed differently (m³ = the sum of each hour's V)"]
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
                let rate = rates?[level].map { " at \(String(format: "%.2f", $0))" } ?? ""
                return "\(level.rawValue) \(String(format: "%.1f", time / 3600)) h\(rate)"
            }
            let sources = LevelSource.allCases.reversed().compactMap { source -> String? in
                let count = hours.filter { $0.levelSource == source }.count
                return count > 0 ? "\(source.rawValue) \(count)" : nil
            }
            lines.append(
                "  \(person.name)\(age.map { " (\($0))" } ?? ""): \(String(format: "%.2f", breathed)) m³ on \(day.date) — "
                    + levels.joined(separator: ", ") + (rates == nil ? "" : " m³/h"))
            lines.append("    hours whose level came from: " + sources.joined(separator: ", "))
        }
        return lines
    }

    /// `path` relative to the current directory when it lies below it, so the hint reads as typed.
    private static func displayPath(_ path: String) -> String {
        let current = FileManager.default.currentDirectoryPath + "/"
        return path.hasPrefix(current) ? String(path.dropFirst(current.count)) : path
    }

    private func fixturesDirectory() throws -> URL {
        guard let directory = DemoReplay.locateFixtures(explicit: fixtures) else {
            throw CommandFailure(
                .noInput, "Cannot find the bundled Fixtures directory; run dustctl demo from the repository or pass --fixtures DIR.")
        }
        return directory
    }
}

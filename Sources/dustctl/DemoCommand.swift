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
            let store = try openStore(atPath: db, for: .write)
            let (outcomes, walked) = try await DemoReplay(fixtures: directory, store: store, calendar: calendar).run()
            let statistics = StatisticsService(
                readings: store, activity: store, clock: FixedClock(DemoReplay.now), calendar: calendar,
                intakeModel: model, stations: StationPreference(primary: DemoReplay.station))
            let day = try await statistics.day(DemoReplay.lastDay)
            let week = try await statistics.rollingWeek(endingOn: DemoReplay.lastDay)
            let forecast = try await ForecastReader(store: store, timeZone: calendar.timeZone)
                .outlook(station: DemoReplay.station, override: nil, now: DemoReplay.now)
            if json {
                try standardOutputLine(
                    JSON.object([
                        ("day", ReportJSON.day(day, calendar: calendar)),
                        ("week", ReportJSON.week(week, station: DemoReplay.station, calendar: calendar)),
                        ("outlook", forecast.weekly.map { ReportJSON.weeklyOutlook($0, region: forecast.region) } ?? .null),
                    ]).serialized)
                return
            }
            let style = TextStyle.forStandardOutput()
            try standardOutputLine(style.bold("Replaying \(outcomes.count) recorded and synthesized AirKorea responses into \(db)"))
            for (response, outcome) in outcomes {
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
            try standardOutputLine("  ✓ \(DemoReplay.activityFile): \(walked) hours of walking")
            try standardOutputLine(
                "  ✓ \(DemoReplay.weeklyOutlookFile): the weekly outlook"
                    + (forecast.weekly.map { " published \($0.publishedOn), \($0.days.count) days" } ?? "") + "\n")
            let text = ReportText(style: style, calendar: calendar, intakeModel: model)
            // The advisory in force at the demo's "now" for 종로구's district, as today names it.
            let listing = try await AdvisoryReader(store: store).listing(region: AdvisoryRegion(district: "서울"), now: DemoReplay.now)
            if let line = AdvisoryText(style: style, calendar: calendar).topLine(listing) { try standardOutputLine(line) }
            try standardOutputLine(text.day(day, isToday: false))
            try standardOutputLine(text.week(week, station: DemoReplay.station, chartPollutant: .pm25))
            try standardOutputLine((weeklyOutlookLines(forecast, style).dropFirst() + [""]).joined(separator: "\n"))
            try standardOutputLine(
                style.dim("Explore: dustctl week --db \(db) --station \(DemoReplay.station) --end \(DemoReplay.lastDay)"))
        }
    }

    private func fixturesDirectory() throws -> URL {
        guard let directory = DemoReplay.locateFixtures(explicit: fixtures) else {
            throw CommandFailure(
                .noInput, "Cannot find the bundled Fixtures directory; run dustctl demo from the repository or pass --fixtures DIR.")
        }
        return directory
    }
}

import ArgumentParser
import DustKit
import DustReports
import DustServices

struct WeekCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "week",
        abstract: "The rolling week (the 7 days ending today or --end): a line per day, a chart of intake, totals.",
        discussion: "Example:\n  dustctl week --end 2026-11-20 --station 종로구\n  dustctl week --iso 2026-W47 --json")

    @OptionGroup var options: GlobalOptions

    @Option(help: ArgumentHelp("The last day of the week (default: today).", valueName: "YYYY-MM-DD"), transform: PeriodArgument.date)
    var end: LocalDate? = nil

    @Option(
        name: .customLong("iso"), help: ArgumentHelp("An ISO week (Monday to Sunday) instead of the rolling week.", valueName: "YYYY-Www"),
        transform: PeriodArgument.week)
    var isoWeek: ISOWeek? = nil

    @Option(help: ArgumentHelp("Which intake the chart shows: pm10 or pm25.", valueName: "pollutant"))
    var chart: Pollutant = .pm25

    func validate() throws {
        if end != nil, isoWeek != nil { throw ValidationError("--end and --iso exclude each other.") }
    }

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            let statistics = try options.statistics(settings)
            let report: WeekReport
            if let isoWeek {
                report = try await statistics.week(isoWeek)
            } else {
                report = try await statistics.rollingWeek(endingOn: end ?? statistics.today)
            }
            if options.json {
                try standardOutputLine(
                    ReportJSON.week(report, station: statistics.stations.primary, calendar: settings.calendar).serialized)
            } else {
                let text = ReportText.forStandardOutput(settings)
                try standardOutput(text.week(report, station: statistics.stations.primary, chartPollutant: chart))
            }
        }
    }
}

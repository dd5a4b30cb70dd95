import ArgumentParser
import DustKit
import DustReports
import DustServices

struct WeekCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "week",
        abstract: "The rolling week (the 7 days ending today or --end): a line per day, a chart of intake, totals.",
        discussion: "Example:\n  dustctl week --end 2026-11-20 --station 종로구\n  dustctl week --json")

    @OptionGroup var options: GlobalOptions

    @Option(help: ArgumentHelp("The last day of the week (default: today).", valueName: "YYYY-MM-DD"))
    var end: LocalDate?

    @Option(help: ArgumentHelp("Which intake the chart shows: pm10 or pm25.", valueName: "pollutant"))
    var chart: Pollutant = .pm25

    func run() throws {
        try reportingFailures {
            let settings = try options.settings()
            let statistics = try options.statistics(settings)
            let last = end ?? statistics.today
            let report = try statistics.rollingWeek(endingOn: last)
            if options.json {
                try standardOutputLine(ReportJSON.week(report, station: statistics.stations.primary, calendar: settings.calendar).serialized)
            } else {
                let text = ReportText.forStandardOutput(settings)
                try standardOutput(text.week(report, station: statistics.stations.primary, chartPollutant: chart))
            }
        }
    }
}

extension Pollutant: ExpressibleByArgument {}

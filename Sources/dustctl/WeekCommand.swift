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

    @OptionGroup var personOptions: PersonOptions

    func validate() throws {
        if end != nil, isoWeek != nil { throw ValidationError("--end and --iso exclude each other.") }
    }

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            let people = try personOptions.people(settings)
            try await options.withHousehold(settings) { household in
                let reports: [WeekReport]
                if let isoWeek {
                    reports = try await household.householdWeek(people, isoWeek)
                } else {
                    reports = try await household.householdRollingWeek(people, endingOn: end ?? household.today)
                }
                // Each person's week is at their home station (the day reports carry it).
                let weeks = zip(people, reports).map {
                    (person: $0.name, station: $1.days.first?.station ?? household.stations.primary, week: $1)
                }
                let output = PersonOutput(namesPeople: personOptions.namesPeople, style: .forStandardOutput())
                if options.json {
                    let documents = weeks.map {
                        (person: $0.person, document: ReportJSON.week($0.week, station: $0.station, calendar: settings.calendar))
                    }
                    try standardOutputLine(output.json(documents).serialized)
                } else {
                    let text = ReportText.forStandardOutput(settings)
                    try standardOutput(
                        output.text(weeks.map { (person: $0.person, text: text.week($0.week, station: $0.station, chartPollutant: chart)) })
                    )
                }
            }
        }
    }
}

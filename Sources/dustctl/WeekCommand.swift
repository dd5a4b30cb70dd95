import ArgumentParser
import DustKit
import DustReports
import DustServices

struct WeekCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "week",
            abstract: helpAbstract(
                "최근 한 주(오늘이나 --end로 끝나는 7일): 하루 한 줄, 흡입량 그래프, 합계.",
                "The rolling week (the 7 days ending today or --end): a line per day, a chart of intake, totals."),
            discussion: helpText("예:", "Example:") + "\n  dustctl week --end 2026-11-20 --station 종로구\n  dustctl week --iso 2026-W47 --json"
        )
    }

    @OptionGroup var options: GlobalOptions

    @Option(
        help: .localized("한 주의 마지막 날 (기본: 오늘).", "The last day of the week (default: today).", valueName: "YYYY-MM-DD"),
        transform: PeriodArgument.weekEnd)
    var end: LocalDate? = nil

    @Option(
        name: .customLong("iso"),
        help: .localized("최근 7일 대신 ISO 주 (월요일~일요일).", "An ISO week (Monday to Sunday) instead of the rolling week.", valueName: "YYYY-Www"),
        transform: PeriodArgument.week)
    var isoWeek: ISOWeek? = nil

    @Option(
        help: .localized(
            "그래프에 보일 흡입량: pm10 또는 pm25.", "Which intake the chart shows: pm10 or pm25.", valueName: "pollutant",
            suffix: "(values: pm10, pm25; default: pm25)"))
    var chart: Pollutant = .pm25

    @OptionGroup var personOptions: PersonOptions

    func validate() throws {
        if end != nil, isoWeek != nil {
            throw ValidationError(korean: "--end와 --iso는 함께 쓸 수 없습니다.", english: "--end and --iso exclude each other.")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            let people = try personOptions.people(settings)
            try await options.withHousehold(settings, people: people) { household in
                let reports: [WeekReport]
                if let isoWeek {
                    reports = try await household.householdWeek(people, isoWeek)
                } else {
                    // Today's week on a `--now` in 2000's first days would begin in 1999: refused as `--end` refuses it.
                    let last = end ?? household.today
                    guard last >= SupportedPeriod.firstWeekEnd else {
                        throw CommandFailure(.usage, TypedPeriodRefusal(error: .unsupportedWeekEnd(last)).description)
                    }
                    reports = try await household.householdRollingWeek(people, endingOn: last)
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

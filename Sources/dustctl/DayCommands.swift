import ArgumentParser
import DustConfig
import DustKit
import DustReports
import DustServices
import Foundation

struct TodayCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "today",
            abstract: helpAbstract(
                "오늘 지금까지: 최근 측정, 등급, 흡입량, 측정 시간, WHO 권고 기준과의 비교.",
                "Today so far: the latest hour, grades, intake, hours measured and the WHO comparison."),
            discussion: helpText("예:", "Example:") + "\n  dustctl today --station 종로구\n  dustctl today --json")
    }

    @OptionGroup var options: GlobalOptions
    @OptionGroup var personOptions: PersonOptions

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            let people = try personOptions.people(settings)
            // One store for the day, the forecast and the advisories (one pool of connections on PostgreSQL).
            try await withStore(settings, for: .read) { store in
                let household = try await options.household(settings, store: store, people: people)
                // Tomorrow's forecast is a bonus line: no region or no forecast leaves it out (null in JSON).
                let now = try options.clock(settings).now
                let outlook = try? await forecastOutlook(settings, store: store, now: now)
                // An advisory in force for the user's district is the first line (docs/REFERENCE.md §17); none, no line.
                let listing = try? await advisoryListing(settings, store: store, now: now)
                if !options.json, let listing,
                    let line = AdvisoryText(style: .forStandardOutput(), calendar: settings.calendar).topLine(listing)
                {
                    try standardOutputLine(line)
                }
                try await printDay(
                    household.today, isToday: true, people: people, household: household, settings: settings, options: options,
                    personOptions: personOptions, forecast: .some(outlook),
                    advisory: ReportJSON.todayAdvisory(listing, calendar: settings.calendar, now: now), now: now)
            }
        }
    }
}

struct DayCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "day",
            abstract: helpAbstract("하루의 합계와 시간별 측정값.", "One day's totals and its hourly readings."),
            discussion: helpText("예:", "Example:") + "\n  dustctl day 2026-11-20 --station 종로구 --json")
    }

    @OptionGroup var options: GlobalOptions

    @Argument(
        help: .localized("날짜 (설정된 시간대 기준).", "The day, in the configured time zone.", valueName: "YYYY-MM-DD"),
        transform: PeriodArgument.date)
    var date: LocalDate

    @OptionGroup var personOptions: PersonOptions

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            let people = try personOptions.people(settings)
            try await options.withHousehold(settings, people: people) { household in
                try await printDay(
                    date, isToday: date == household.today, people: people, household: household, settings: settings, options: options,
                    personOptions: personOptions)
            }
        }
    }
}

struct HourlyCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "hourly",
            abstract: helpAbstract(
                "하루(기본: 오늘)의 저장된 시간별 측정값: PM10, PM2.5, 플래그, 측정소, 흡입량.",
                "The stored hourly readings of a day (default: today): PM10, PM2.5, flags, station, intake."),
            discussion: helpText("예:", "Example:") + "\n  dustctl hourly 2026-11-20 --station 종로구 --json")
    }

    @OptionGroup var options: GlobalOptions

    @Argument(help: .localized("날짜 (기본: 오늘).", "The day (default: today).", valueName: "YYYY-MM-DD"), transform: PeriodArgument.date)
    var date: LocalDate? = nil

    @OptionGroup var personOptions: PersonOptions

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            let people = try personOptions.people(settings)
            try await options.withHousehold(settings, people: people) { household in
                let day = date ?? household.today
                let reports = try await household.household(people, from: day, through: day).map { $0[0] }
                let output = PersonOutput(namesPeople: personOptions.namesPeople, style: .forStandardOutput())
                if options.json {
                    let documents = reports.map { (person: $0.person, document: ReportJSON.hourly($0, calendar: settings.calendar)) }
                    try standardOutputLine(output.json(documents).serialized)
                } else {
                    let text = ReportText.forStandardOutput(settings)
                    try standardOutput(output.text(reports.map { (person: $0.person, text: text.hourly($0)) }))
                }
            }
        }
    }
}

/// Prints `date` for each of `people` (their days read together), one person's output as it
/// always was, or with --everyone a section or JSON entry each (docs/REFERENCE.md §18).
///
/// - Parameter forecast: for `today`: the forecast outlook, or `.some(nil)` when there is none to
///   show (`forecastTomorrow` is then `null`); nil for `day`, whose document has no forecast.
/// - Parameter now: for `today`, the moment asked at (an hour older than `DaemonHealth.staleAfter` is then
///   the newest stored, not the latest).
func printDay(
    _ date: LocalDate, isToday: Bool, people: [Person], household: StatisticsService, settings: DustConfig.FineDustSettings,
    options: GlobalOptions, personOptions: PersonOptions, forecast: ForecastOutlook?? = nil, advisory: JSON? = nil, now: Date? = nil
) async throws {
    let reports = try await household.household(people, from: date, through: date).map { $0[0] }
    let output = PersonOutput(namesPeople: personOptions.namesPeople, style: .forStandardOutput())
    // `today` (which passes its forecast) shows the newest stored hour of each person's home station, whatever its day.
    var latest: [String: HourlyReading?] = [:]
    var newestStored: [String: Date] = [:]
    if forecast != nil {
        for person in people {
            let service = household.forPerson(person)
            if options.json {
                latest[person.name] = try await service.latestReading()
            } else {
                let newest = try await service.latestReadingAndNewestStoredHourEnd()
                latest[person.name] = newest.latest
                newestStored[person.name] = newest.newestStoredHourEnd
            }
        }
    }
    if options.json {
        let tomorrow = forecast.map { ReportJSON.forecastTomorrow($0, calendar: settings.calendar) }
        let documents = reports.map { report in
            (
                person: report.person,
                document: ReportJSON.day(
                    report, calendar: settings.calendar, forecastTomorrow: tomorrow, advisory: advisory,
                    latest: latest[report.person].map { ReportJSON.latest($0, calendar: settings.calendar) })
            )
        }
        try standardOutputLine(output.json(documents).serialized)
    } else {
        let text = ReportText.forStandardOutput(settings)
        try standardOutput(
            output.text(
                reports.map { report in
                    (
                        person: report.person,
                        text: text.day(
                            report, isToday: isToday, forecast: forecast ?? nil, latest: latest[report.person] ?? nil, now: now,
                            newestStored: newestStored[report.person])
                    )
                }))
    }
}

import ArgumentParser
import DustConfig
import DustKit
import DustReports
import DustServices
import Foundation

struct TodayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "today",
        abstract: "Today so far: the latest hour, grades, intake, hours measured and the WHO comparison.",
        discussion: "Example:\n  dustctl today --station 종로구\n  dustctl today --json")

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            let statistics = try options.statistics(settings)
            // Tomorrow's forecast is a bonus line: no region or no forecast leaves it out (null in JSON).
            let outlook = try? await forecastOutlook(settings, store: openStore(atPath: settings.storagePath, for: .read), now: Date())
            // An advisory in force for the user's district is the first line (docs/REFERENCE.md §17); none, no line.
            let now = Date()
            let listing = try? await advisoryListing(settings, store: openStore(atPath: settings.storagePath, for: .read), now: now)
            if !options.json, let listing,
                let line = AdvisoryText(style: .forStandardOutput(), calendar: settings.calendar).topLine(listing)
            {
                try standardOutputLine(line)
            }
            try await printDay(
                statistics.today, isToday: true, statistics: statistics, settings: settings, json: options.json,
                forecast: .some(outlook), advisory: ReportJSON.todayAdvisory(listing, calendar: settings.calendar, now: now))
        }
    }
}

struct DayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "day",
        abstract: "One day's totals and its hourly readings.",
        discussion: "Example:\n  dustctl day 2026-11-20 --station 종로구 --json")

    @OptionGroup var options: GlobalOptions

    @Argument(help: ArgumentHelp("The day, in the configured time zone.", valueName: "YYYY-MM-DD"), transform: PeriodArgument.date)
    var date: LocalDate

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            let statistics = try options.statistics(settings)
            try await printDay(date, isToday: date == statistics.today, statistics: statistics, settings: settings, json: options.json)
        }
    }
}

struct HourlyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hourly",
        abstract: "The stored hourly readings of a day (default: today): PM10, PM2.5, flags, station, intake.",
        discussion: "Example:\n  dustctl hourly 2026-11-20 --station 종로구 --json")

    @OptionGroup var options: GlobalOptions

    @Argument(help: ArgumentHelp("The day (default: today).", valueName: "YYYY-MM-DD"), transform: PeriodArgument.date)
    var date: LocalDate? = nil

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            let statistics = try options.statistics(settings)
            let day = date ?? statistics.today
            let report = try await statistics.day(day)
            if options.json {
                try standardOutputLine(ReportJSON.hourly(report, calendar: settings.calendar).serialized)
            } else {
                try standardOutput(ReportText.forStandardOutput(settings).hourly(report))
            }
        }
    }
}

/// - Parameter forecast: for `today`: the forecast outlook, or `.some(nil)` when there is none to
///   show (`forecastTomorrow` is then `null`); nil for `day`, whose document has no forecast.
func printDay(
    _ date: LocalDate, isToday: Bool, statistics: StatisticsService, settings: DustConfig.FineDustSettings, json: Bool,
    forecast: ForecastOutlook?? = nil, advisory: JSON? = nil
) async throws {
    let report = try await statistics.day(date)
    if json {
        let tomorrow = forecast.map { ReportJSON.forecastTomorrow($0, calendar: settings.calendar) }
        try standardOutputLine(
            ReportJSON.day(report, calendar: settings.calendar, forecastTomorrow: tomorrow, advisory: advisory).serialized)
    } else {
        try standardOutput(ReportText.forStandardOutput(settings).day(report, isToday: isToday, forecast: forecast ?? nil))
    }
}

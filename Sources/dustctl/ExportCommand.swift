import ArgumentParser
import DustKit
import DustReports
import DustServices

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export daily or weekly totals as CSV (default) or JSON.",
        discussion: """
            Default: the rolling week ending today, one row per day, CSV on stdout.
            With --per week, every ISO week (Monday–Sunday) that overlaps the range is
            exported whole. --output FILE.csv starts with a UTF-8 byte order mark, so a
            spreadsheet reads Korean names right (--no-bom: none; --bom: also on stdout).
            --output never writes through or replaces a symbolic link,
            device or FIFO (exit 73); a failed write leaves an existing file as it was
            (exit 74). Examples:
              dustctl export --last-week --output last-week.csv
              dustctl export --from 2026-01-01 --to 2026-12-31 --per week --bom
              dustctl export --week 2026-W47 --json
            """)

    enum Period: String, CaseIterable, NamedArgumentValue { case day, week }
    enum Format: String, CaseIterable, NamedArgumentValue { case csv, json }

    @OptionGroup var options: GlobalOptions

    @Option(help: ArgumentHelp("First day (with --to).", valueName: "YYYY-MM-DD"), transform: PeriodArgument.date)
    var from: LocalDate? = nil

    @Option(help: ArgumentHelp("Last day (with --from).", valueName: "YYYY-MM-DD"), transform: PeriodArgument.date)
    var to: LocalDate? = nil

    @Option(help: ArgumentHelp("An ISO week, e.g. 2026-W47.", valueName: "YYYY-Www"), transform: PeriodArgument.week)
    var week: ISOWeek? = nil

    @Flag(help: "The previous ISO week (Monday to Sunday).")
    var lastWeek = false

    @Option(help: "One row per day or per ISO week.")
    var per: Period = .day

    @Option(help: "csv (default) or json; --json is the same as --format json.")
    var format: Format?

    @Option(
        help: ArgumentHelp("Write to this regular file instead of stdout: replaced whole, keeping its owner and mode.", valueName: "file"),
        completion: .file())
    var output: String?

    @Flag(help: "Start the CSV with a UTF-8 byte order mark (for Excel); the default for --output FILE.csv.")
    var bom = false

    @Flag(help: "No byte order mark, even for --output FILE.csv.")
    var noBOM = false

    @OptionGroup var personOptions: PersonOptions

    func validate() throws {
        let choices = [from != nil || to != nil, week != nil, lastWeek].filter { $0 }.count
        guard choices <= 1 else { throw ValidationError("Choose one of --from/--to, --week or --last-week.") }
        if (from == nil) != (to == nil) { throw ValidationError("--from and --to go together.") }
        if let from, let to {
            guard from <= to else { throw ValidationError("--from \(from) is after --to \(to).") }
            guard to.daysSinceEpoch - from.daysSinceEpoch < 366 * 50 else { throw ValidationError("The range is longer than 50 years.") }
        }
        if options.json, format == .csv { throw ValidationError("--json and --format csv ask for different formats; give one of them.") }
        if bom, outputFormat == .json { throw ValidationError("--bom applies to CSV only.") }
        if bom, noBOM { throw ValidationError("--bom and --no-bom ask for different things; give one of them.") }
    }

    /// A CSV file named `.csv` opens in Excel, which reads Korean (종로구) right only after a byte order
    /// mark: it gets one unless `--no-bom`; standard output only with `--bom` (a pipe wants plain UTF-8).
    private var writesBOM: Bool {
        guard outputFormat == .csv, !noBOM else { return false }
        return bom || output.map { $0.lowercased().hasSuffix(".csv") } == true
    }

    /// `--format`, or JSON for the global `--json`, else CSV.
    private var outputFormat: Format { format ?? (options.json ? .json : .csv) }

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            let people = try personOptions.people(settings)
            try await options.withHousehold(settings) { household in
                let (first, last) = try range(today: household.today)
                var text: String
                switch (per, outputFormat) {
                case (.day, .csv):
                    let days = try await household.household(people, from: first, through: last)
                    text = ExportCSV.days(days.flatMap { $0 }, naming: personOptions.namesPeople)
                case (.week, .csv):
                    let weeks = try await household.householdWeeks(people, from: first, through: last)
                    text = ExportCSV.weeks(weeks.flatMap { $0 }, naming: personOptions.namesPeople)
                case (.day, .json):
                    let days = try await household.household(people, from: first, through: last).flatMap { $0 }
                    text =
                        JSON.array(days.map { named(ReportJSON.day($0, calendar: settings.calendar, includeHourly: false), $0) }).serialized
                        + "\n"
                case (.week, .json):
                    let weeks = try await household.householdWeeks(people, from: first, through: last).flatMap { $0 }
                    text =
                        JSON.array(
                            weeks.map { week in
                                let day = week.days[0]
                                return named(ReportJSON.week(week, station: day.station, calendar: settings.calendar), day)
                            }
                        ).serialized + "\n"
                }
                if writesBOM { text = "\u{FEFF}" + text }
                if let output {
                    try OutputFile(path: output).write(text.utf8)
                } else {
                    try standardOutput(text)
                }
            }
        }
    }

    /// A row as it always was; with --everyone, naming its person first (docs/REFERENCE.md §18).
    private func named(_ document: JSON, _ day: DayReport) -> JSON {
        personOptions.namesPeople ? ReportJSON.naming(day.person, document) : document
    }

    private func range(today: LocalDate) throws -> (LocalDate, LocalDate) {
        if let from, let to { return (from, to) }
        if let week { return (week.monday, week.monday.adding(days: 6)) }
        if lastWeek {
            let previous = ISOWeek(containing: today.adding(days: -7))
            return (previous.monday, previous.monday.adding(days: 6))
        }
        return (today.adding(days: -6), today)
    }
}

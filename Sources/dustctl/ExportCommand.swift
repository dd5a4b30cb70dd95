import ArgumentParser
import DustKit
import DustReports
import DustServices

struct ExportCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "export",
            abstract: helpAbstract(
                "하루별 또는 주별 합계를 CSV(기본)나 JSON으로 내보냅니다.", "Export daily or weekly totals as CSV (default) or JSON."),
            discussion: helpText(
                """
                기본: 오늘로 끝나는 최근 7일, 하루에 한 행, 표준 출력에 CSV.
                --per week이면 기간과 겹치는 ISO 주(월요일~일요일)를 통째로 내보냅니다.
                --output FILE.csv는 UTF-8 바이트 순서 표시(BOM)로 시작해 스프레드시트가
                한글 이름을 제대로 읽습니다(--no-bom: 붙이지 않음; --bom: 표준 출력에도).
                --output은 심볼릭 링크, 장치, FIFO를 거쳐 쓰거나 그것을 바꾸지 않고(종료
                코드 73), 쓰기에 실패하면 있던 파일을 그대로 둡니다(종료 코드 74). 예:
                  dustctl export --last-week --output last-week.csv
                  dustctl export --from 2026-01-01 --to 2026-12-31 --per week --bom
                  dustctl export --week 2026-W47 --json
                """,
                """
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
                """))
    }

    enum Period: String, CaseIterable, NamedArgumentValue { case day, week }
    enum Format: String, CaseIterable, NamedArgumentValue { case csv, json }

    @OptionGroup var options: GlobalOptions

    @Option(help: .localized("첫날 (--to와 함께).", "First day (with --to).", valueName: "YYYY-MM-DD"), transform: PeriodArgument.date)
    var from: LocalDate? = nil

    @Option(help: .localized("마지막 날 (--from과 함께).", "Last day (with --from).", valueName: "YYYY-MM-DD"), transform: PeriodArgument.date)
    var to: LocalDate? = nil

    @Option(help: .localized("ISO 주, 예: 2026-W47.", "An ISO week, e.g. 2026-W47.", valueName: "YYYY-Www"), transform: PeriodArgument.week)
    var week: ISOWeek? = nil

    @Flag(help: .localized("지난 ISO 주 (월요일~일요일).", "The previous ISO week (Monday to Sunday)."))
    var lastWeek = false

    @Option(help: .localized("하루마다 또는 ISO 주마다 한 행.", "One row per day or per ISO week.", suffix: "(values: day, week; default: day)"))
    var per: Period = .day

    @Option(
        help: .localized("csv(기본) 또는 json; --json은 --format json과 같습니다.", "csv (default) or json; --json is the same as --format json."))
    var format: Format?

    @Option(
        help: .localized(
            "표준 출력 대신 이 일반 파일에 씁니다(-는 표준 출력): 통째로 바꾸되 소유자와 권한은 그대로 둡니다.",
            "Write to this regular file instead of stdout (- is stdout): replaced whole, keeping its owner and mode.", valueName: "file"),
        completion: .file())
    var output: String?

    @Flag(
        help: .localized(
            "CSV를 UTF-8 바이트 순서 표시(BOM)로 시작합니다(Excel용); --output FILE.csv이면 기본.",
            "Start the CSV with a UTF-8 byte order mark (for Excel); the default for --output FILE.csv."))
    var bom = false

    @Flag(help: .localized("--output FILE.csv여도 바이트 순서 표시를 붙이지 않습니다.", "No byte order mark, even for --output FILE.csv."))
    var noBOM = false

    @OptionGroup var personOptions: PersonOptions

    func validate() throws {
        let language = ReportLanguage.process
        func refuse(_ korean: String, _ english: String) -> ValidationError { ValidationError(language.say(korean, english)) }
        let choices = [from != nil || to != nil, week != nil, lastWeek].filter { $0 }.count
        guard choices <= 1 else {
            throw refuse("--from/--to, --week, --last-week 중 하나만 고르세요.", "Choose one of --from/--to, --week or --last-week.")
        }
        if (from == nil) != (to == nil) { throw refuse("--from과 --to는 함께 씁니다.", "--from and --to go together.") }
        if let from, let to {
            guard from <= to else { throw refuse("--from \(from): --to \(to)보다 뒤의 날짜입니다.", "--from \(from) is after --to \(to).") }
            guard to.daysSinceEpoch - from.daysSinceEpoch < 366 * 50 else {
                throw refuse("기간이 50년보다 깁니다.", "The range is longer than 50 years.")
            }
        }
        if options.json, format == .csv {
            throw refuse(
                "--json과 --format csv가 서로 다른 형식을 요청합니다. 하나만 주세요.",
                "--json and --format csv ask for different formats; give one of them.")
        }
        if bom, outputFormat == .json { throw refuse("--bom은 CSV에만 적용됩니다.", "--bom applies to CSV only.") }
        if bom, noBOM {
            throw refuse("--bom과 --no-bom은 서로 반대입니다. 하나만 주세요.", "--bom and --no-bom ask for different things; give one of them.")
        }
    }

    /// A CSV file named `.csv` opens in Excel, which reads Korean (종로구) right only after a byte order
    /// mark: it gets one unless `--no-bom`; standard output only with `--bom` (a pipe wants plain UTF-8).
    private var writesBOM: Bool {
        guard outputFormat == .csv, !noBOM else { return false }
        return bom || OutputFile.path(output).map { $0.lowercased().hasSuffix(".csv") } == true
    }

    /// `--format`, or JSON for the global `--json`, else CSV.
    private var outputFormat: Format { format ?? (options.json ? .json : .csv) }

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            let people = try personOptions.people(settings)
            try await options.withHousehold(settings, people: people) { household in
                let (first, last) = try range(today: household.today)
                // Whole ISO weeks may reach past the dates FineDust keeps (2099-12-31's week ends in 2100):
                // refused as `--week` refuses such a week, not exported with days it never holds.
                if per == .week {
                    for week in [ISOWeek(containing: first), ISOWeek(containing: last)] where !SupportedPeriod.contains(week) {
                        throw CommandFailure(.usage, TypedPeriodRefusal(error: .unsupportedWeek(week)).description)
                    }
                }
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
                if let output = OutputFile.path(output) {
                    try DatabaseOwnFiles(settings.storage).refuse(output)
                    try await OutputFile(path: output).write(text.utf8)
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

import ArgumentParser
import DustActivity
import DustConfig
import DustKit
import DustReports
import DustServices
import Foundation

struct IndoorCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "indoor",
            abstract: helpAbstract(
                "집에 둔 미세먼지 측정기: 측정기마다 마지막 값, 문제, 측정 범위; 측정기 CSV 가져오기.",
                "The home's own PM monitors: each sensor's last sample, problem and coverage; import a monitor's CSV."),
            discussion: helpText(
                """
                구성원이 집 안에 있는 시간(일정 항목의 at: home, 기본값)에는 측정기가 잰 값이
                추정값 침투율 × 실외를 대신합니다(docs/REFERENCE.md §21). 측정기가 숫자에서
                바꾸는 것: 그 시간의 실내 부분뿐. 모르는 것: 다른 방의 공기, 사무실이나 학교의
                공기(at: away 항목), 집 안 다른 곳에서 요리할 때 부엌 곁 한 곳의 공기.
                """,
                """
                For the hours a person is at home and indoors (schedule entries at: home, the
                default), a monitor's measured value replaces the estimate infiltration ×
                outdoor (docs/REFERENCE.md §21). What a monitor changes in your number: the
                indoor part of those hours only. What it does not know: the air of other
                rooms, of the office or school (entries at: away), and of a spot by the
                kitchen while you cook elsewhere in the home.
                """),
            subcommands: [IndoorListCommand.self, IndoorImportCommand.self], defaultSubcommand: IndoorListCommand.self)
    }
}

struct IndoorListCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "list",
            abstract: helpAbstract(
                "설정된 측정기마다: 종류, 누구의 측정기인지, 마지막 값, 문제, 최근 24시간의 측정 범위.",
                "Each configured sensor: its kind, who it counts for, its last sample, its problem, and its coverage in the last 24 hours."),
            discussion: helpText("예:", "Example:") + "\n  dustctl indoor --db /var/lib/dustd/dust.sqlite")
    }

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            let now = try options.clock(settings).now
            let sensors = settings.indoor.sensors
            let language = ReportLanguage.process
            guard !sensors.isEmpty else {
                if options.json {
                    try standardOutputLine(JSON.object([("sensors", .array([]))]).serialized)
                } else {
                    try standardOutputLine(
                        language.say(
                            "설정된 실내 측정기가 없습니다 (indoor.sensors): 실내는 추정값 침투율 × 실외입니다. 측정기를 더하는 법은 docs/REFERENCE.md §21에 있습니다.",
                            "No indoor sensors configured (indoor.sensors); indoors is the estimate infiltration × outdoor. docs/REFERENCE.md §21 says how to add a monitor."
                        ))
                }
                return
            }
            try await withStore(settings, for: .read) { store in
                // Swift's `==` takes two spellings of one name (composed, decomposed) for one key; the database does not.
                // Only the sensors dustd asks have a state: one stored before a monitor became `kind: import`
                // said "cannot be reached" for good.
                let asked = settings.indoor.askedSensorNames
                let states = Dictionary(
                    try await store.indoorSensorStates().filter { asked.contains($0.sensor) }.map { ($0.sensor, $0) },
                    uniquingKeysWith: { first, _ in first })
                let overview = try await IndoorOverview.of(
                    sensors: sensors, people: settings.people, states: states, store: store, now: now)
                // Samples under a name no sensor has (one renamed, or removed): in no one's dose since.
                let configured = Set(sensors.map(\.name))
                let orphaned = try await store.indoorSensorsStored().filter { !configured.contains($0.sensor) }
                if options.json {
                    try standardOutputLine(
                        IndoorOverview.json(overview, orphaned: orphaned, calendar: settings.calendar).serialized)
                    return
                }
                if !orphaned.isEmpty {
                    try standardOutputLine(IndoorOverview.orphanedText(orphaned, calendar: settings.calendar, language: language))
                }
                for sensor in overview {
                    try standardOutputLine(IndoorOverview.text(sensor, calendar: settings.calendar, language: language))
                }
            }
        }
    }
}

struct IndoorImportCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "import",
            abstract: helpAbstract(
                "측정기가 내보낸 CSV(time,pm25[,pm10])를 설정된 측정기의 표본으로 가져옵니다.",
                "Import a monitor's CSV export (time,pm25[,pm10]) as the samples of a configured sensor."),
            discussion: helpText(
                """
                time은 오프셋이 붙은 ISO 8601(2026-11-20T10:04:00+09:00)이나 설정된 시간대의
                YYYY-MM-DD HH:mm[:ss]이고, pm25와 pm10은 µg/m³이며 어느 쪽이든 비어 있어도
                됩니다. 분마다 마지막 행을 남기고, 음수이거나 1,000 µg/m³를 넘는 값은 알 수
                없는 값으로 저장하고 셉니다. 모두 저장하거나 아무것도 저장하지 않습니다: 잘못된
                줄이 있으면 아무것도 저장하지 않고 그 줄을 알려 주며, dustctl은 65로 끝납니다.
                파일에 행이 있는 시간마다 그 측정기의 표본을 바꾸고(처음과 마지막 시간은
                파일의 첫 분과 마지막 분 사이만), 행이 없는 시간은 그대로 둡니다. 각 행은
                파일의 보통 간격(5분에서 60분)만큼의 값으로 칩니다.
                예:
                  dustctl indoor import ~/Downloads/monitor-export.csv --sensor old-monitor
                """,
                """
                time is ISO 8601 with an offset (2026-11-20T10:04:00+09:00) or a local
                YYYY-MM-DD HH:mm[:ss] in the configured time zone; pm25 and pm10 are µg/m³,
                either may be empty. The last row of each minute is kept; values that are
                negative or above 1,000 µg/m³ are stored as unknown and counted. All or
                nothing: a bad line stores nothing, is named, and dustctl exits 65. The file
                replaces the sensor's samples in each hour it has a row in (in its first and
                last hour, between its first and last minute); hours without a row keep theirs.
                Each row stands for the file's usual step, 5 to 60 minutes.
                Example:
                  dustctl indoor import ~/Downloads/monitor-export.csv --sensor old-monitor
                """))
    }

    @OptionGroup var options: GlobalOptions

    @Option(
        name: .long,
        help: .localized(
            "표본을 잰 설정된 측정기 (indoor.sensors).", "The configured sensor (indoor.sensors) the samples are of.", valueName: "name"))
    var sensor: String

    @Argument(help: .localized("CSV 파일.", "The CSV file."), completion: .file(extensions: ["csv"]))
    var file: String

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            let language = ReportLanguage.process
            guard settings.indoor.sensors.contains(where: { $0.name == sensor }) else {
                let names = settings.indoor.sensors.map(\.name).joined(separator: ", ")
                let given = "--sensor \"\(TerminalSafeText.sanitized(sensor))\""
                throw CommandFailure(
                    .usage,
                    korean: "\(given)은(는) 설정된 측정기가 아닙니다. "
                        + (names.isEmpty
                            ? "indoor.sensors에 추가하세요(내보내기만 되는 측정기는 kind: import)."
                            : "설정된 측정기: \(names)."),
                    english: "\(given) is not a configured sensor; "
                        + (names.isEmpty
                            ? "add it to indoor.sensors (kind: import for a monitor with only an export)."
                            : "configured: \(names)."))
            }
            let name = TerminalSafeText.sanitized(file)
            // The parser's and the system's words stay as they are; what dustctl adds follows the locale.
            let nothingStored = language.say(". 아무것도 저장하지 않았습니다.", "; nothing was stored.")
            let rows: IndoorCSVRows
            do {
                let opened = try RegularFile(path: file)
                guard opened.size <= UInt64(IndoorCSVParser.maxBytes) else {
                    let mebibytes = IndoorCSVParser.maxBytes / (1024 * 1024)
                    throw CommandFailure(
                        .dataError,
                        language.say(
                            "\(name): 파일이 \(mebibytes) MiB보다 큽니다(1분 간격 1년치는 10–25 MB). 내보내기를 연도별로 나누세요",
                            "\(name): the file is larger than \(mebibytes) MiB (a year of minute rows is 10–25 MB): split the export by year"
                        )
                            + nothingStored)
                }
                let now = try options.clock(settings).now
                rows = try IndoorCSVParser(calendar: settings.calendar, sensor: sensor).parse(
                    try opened.bytes(Int(opened.size), at: 0), now: now)
            } catch let error as IndoorCSVError {
                throw CommandFailure(.dataError, "\(name): \(error.description)" + nothingStored)
            } catch let error as ActivityFileError {
                throw CommandFailure(.noInput, "\(name): \(error.description)" + nothingStored)
            }
            try await withStore(settings, for: .write) { store in
                try await store.importIndoorSeries(rows.series)
            }
            let span = [rows.series.first, rows.series.last].compactMap { $0 }
            if options.json {
                try standardOutputLine(
                    JSON.object([
                        ("file", .string(file)), ("sensor", .string(sensor)), ("samples", .integer(rows.series.count)),
                        ("first", span.min().map { .string(settings.calendar.iso8601($0)) } ?? .null),
                        ("last", span.max().map { .string(settings.calendar.iso8601($0)) } ?? .null),
                        ("implausible", .integer(rows.implausible)), ("datedOutsidePeriod", .integer(rows.datedOutsidePeriod)),
                        ("sameMinute", .integer(rows.sameMinute)), ("hoursCovered", .integer(rows.hoursCovered)),
                    ]).serialized)
                return
            }
            try standardOutputLine(Self.summary(name: name, sensor: sensor, rows, calendar: settings.calendar, language))
        }
    }

    /// The line after an import, in `language` (the same counts, the same minutes).
    static func summary(name: String, sensor: String, _ rows: IndoorCSVRows, calendar: DayCalendar, _ language: ReportLanguage) -> String {
        let span = [rows.series.first, rows.series.last].compactMap { $0 }
        let range = span.min().flatMap { first in
            span.max().map { last in (IndoorOverview.minute(first, calendar), IndoorOverview.minute(last, calendar)) }
        }
        guard language == .korean else {
            var summary = "\(name): \(rows.series.count) samples of \(sensor)"
            if let (first, last) = range { summary += " from \(first) to \(last)" }
            summary +=
                ", an indoor value for \(rows.hoursCovered) \(rows.hoursCovered == 1 ? "hour" : "hours") (at least 30 minutes covered)"
            var counted: [String] = []
            if rows.implausible > 0 { counted.append("\(rows.implausible) implausible values stored as unknown") }
            if rows.sameMinute > 0 { counted.append("\(rows.sameMinute) rows of a minute given again (the later kept)") }
            if rows.datedOutsidePeriod > 0 {
                counted.append("\(rows.datedOutsidePeriod) rows dated before 2000 or more than a day ahead skipped")
            }
            return summary + (counted.isEmpty ? "." : "; " + counted.joined(separator: ", ") + ".")
        }
        var summary = "\(name): \(sensor) 측정기의 표본 \(rows.series.count)개"
        if let (first, last) = range { summary += " (\(first)부터 \(last)까지)" }
        summary += ", 실내 값이 있는 시간 \(rows.hoursCovered)개 (30분 이상 채워진 시간)"
        var counted: [String] = []
        if rows.implausible > 0 { counted.append("믿기 어려운 값 \(rows.implausible)개는 알 수 없는 값으로 저장") }
        if rows.sameMinute > 0 { counted.append("같은 분이 다시 나온 행 \(rows.sameMinute)개 (나중 행을 남김)") }
        if rows.datedOutsidePeriod > 0 { counted.append("2000년 이전이거나 지금보다 하루 넘게 뒤 시각의 행 \(rows.datedOutsidePeriod)개 건너뜀") }
        return summary + (counted.isEmpty ? "." : "; " + counted.joined(separator: ", ") + ".")
    }
}

/// What `dustctl indoor` shows of each sensor.
enum IndoorOverview {
    struct Sensor {
        var settings: IndoorSensorSettings
        var people: [String]
        var state: IndoorSensorState?
        var last: IndoorSample?
        /// Minutes of the last 24 hours a sample covers.
        var coveredMinutes: Int
    }

    static func of(
        sensors: [IndoorSensorSettings], people: [Person], states: [String: IndoorSensorState], store: any FineDustStore, now: Date
    ) async throws -> [Sensor] {
        let end = Slot(containing: now).advanced(by: 1)
        let start = end.advanced(by: -24)
        var overview: [Sensor] = []
        for sensor in sensors {
            let series = try await store.indoorSeries(
                sensors: [sensor.name], from: start.start.addingTimeInterval(-TimeInterval(IndoorSample.stateHoldSeconds)), to: now)
            // The 24 hours in order through one cursor, as a report walks its slots.
            var (starts, bins) = ([Int](repeating: 0, count: series.count), MinuteBins())
            let covered = (0..<24).reduce(0) { total, hour in
                total + (IndoorSlotValue.of(start.advanced(by: hour), series: series, starts: &starts, bins: &bins)?.minutesCovered ?? 0)
            }
            overview.append(
                Sensor(
                    settings: sensor, people: people.filter { $0.indoorSensors.contains(sensor.name) }.map(\.name),
                    state: states[sensor.name], last: series.first.flatMap(lastWithValue), coveredMinutes: covered))
        }
        return overview
    }

    /// The newest sample that has a value: not the sample of no value that ends a hold (Home
    /// Assistant's `unavailable`), which has nothing to show.
    static func lastWithValue(_ series: IndoorSeries) -> IndoorSample? {
        series.minutes.indices.last { !(series.pm25[$0].isNaN && series.pm10[$0].isNaN) }.map(series.sample)
    }

    static func minute(_ instant: Date, _ calendar: DayCalendar) -> String {
        calendar.iso8601(instant).prefix(16).replacingOccurrences(of: "T", with: " ")
    }

    /// A sensor's lines, in `language` (a problem as dustd wrote it, in English).
    static func text(_ sensor: Sensor, calendar: DayCalendar, language: ReportLanguage = .english) -> String {
        func label(_ korean: String, _ english: String) -> String { "  " + padExactly(language.say(korean, english), 13) }
        let people = sensor.people.joined(separator: ", ")
        var lines = [
            "\(sensor.settings.name) (\(sensor.settings.kind.rawValue)), " + language.say("\(people)의 측정기", "for \(people)")
        ]
        if let last = sensor.last {
            let values = [("PM2.5", last.value.ultraFineDust), ("PM10", last.value.fineDust)].compactMap { name, value in
                value.map { "\(name) \(formattedConcentration($0)) µg/m³" }
            }
            lines.append(label("마지막 값", "last sample") + "\(minute(last.at, calendar))  \(values.joined(separator: ", "))")
        } else {
            lines.append(label("마지막 값", "last sample") + language.say("최근 24시간 동안 없음", "none in the last 24 hours"))
        }
        let percent = formatted(Double(sensor.coveredMinutes) / 14.4, decimals: 0)
        lines.append(label("측정 범위", "coverage") + language.say("최근 24시간의 \(percent)%", "\(percent) % of the last 24 hours"))
        if let problem = sensor.state?.problem {
            let since =
                sensor.state?.problemSince.map { language.say(" (\(minute($0, calendar))부터)", " (since \(minute($0, calendar)))") } ?? ""
            lines.append(label("문제", "problem") + "it \(TerminalSafeText.sanitized(problem))\(since)")
        }
        if let unknown = sensor.state?.unknownSamples, unknown > 0 {
            lines.append(
                label("알 수 없는 값", "unknown")
                    + language.say(
                        "dustd 시작 뒤 믿기 어렵거나 두 채널이 어긋난 응답 \(unknown)번", "\(unknown) implausible or disagreeing answers since dustd started"))
        }
        return lines.joined(separator: "\n")
    }

    /// The line about samples stored under names no configured sensor has.
    static func orphanedText(
        _ orphaned: [(sensor: String, newestHour: Date)], calendar: DayCalendar, language: ReportLanguage
    ) -> String {
        let names = orphaned.map { "\(TerminalSafeText.sanitized($0.sensor)) (\(minute($0.newestHour, calendar)))" }.joined(separator: ", ")
        return language.say(
            "설정에 없는 이름으로 저장된 표본: \(names). 누구의 선량에도 들어가지 않습니다. indoor.sensors에서 이름을 바꿨다면 되돌리세요.",
            "Samples stored under names no sensor in indoor.sensors has: \(names) (newest hour). They count in no one's dose; if you renamed a sensor, give it its old name back."
        )
    }

    static func json(_ overview: [Sensor], orphaned: [(sensor: String, newestHour: Date)] = [], calendar: DayCalendar) -> JSON {
        .object([
            (
                "sensors",
                .array(
                    overview.map { sensor in
                        .object([
                            ("name", .string(sensor.settings.name)),
                            ("kind", .string(sensor.settings.kind.rawValue)),
                            ("people", .array(sensor.people.map(JSON.string))),
                            (
                                "lastSample",
                                sensor.last.map { last in
                                    .object([
                                        ("at", .string(calendar.iso8601(last.at))), ("pm25", .number(last.value.ultraFineDust)),
                                        ("pm10", .number(last.value.fineDust)),
                                    ])
                                } ?? .null
                            ),
                            ("coverageMinutes24h", .integer(sensor.coveredMinutes)),
                            ("problem", sensor.state?.problem.map(JSON.string) ?? .null),
                            ("problemSince", sensor.state?.problemSince.map { .string(calendar.iso8601($0)) } ?? .null),
                            ("unknownSamples", .integer(sensor.state?.unknownSamples ?? 0)),
                        ])
                    })
            ),
            (
                "unconfigured",
                .array(
                    orphaned.map {
                        .object([("sensor", .string($0.sensor)), ("newestHour", .string(calendar.iso8601($0.newestHour)))])
                    })
            ),
        ])
    }
}

import ArgumentParser
import DustActivity
import DustConfig
import DustKit
import DustReports
import DustServices
import Foundation

struct ActivityCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "activity",
            abstract: helpAbstract(
                "걸은 거리를 가져옵니다: 밖에 있던 시간의 흡입량이 그만큼 올라갑니다.",
                "Import walking distances that raise the intake of the hours you were out."),
            subcommands: [ActivityImportCommand.self, ActivitySourcesCommand.self, ActivityForgetCommand.self])
    }
}

struct ActivityImportCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "import",
            abstract: helpAbstract(
                "건강 앱 내보내기, GPX 트랙, 걸은 거리의 CSV 파일을 가져옵니다.",
                "Import Apple Health exports, GPX tracks or CSV files of walking distances."),
            discussion: helpText(
                """
                각 FILE은 이름이 아니라 내용으로 구별합니다: 건강 앱의 export.zip(안의
                export.xml은 휴대폰 언어가 무엇으로 이름 붙였든 <HealthData> 루트로 찾고, 옆의
                workout-routes/*.gpx도 모두 압축을 풀지 않은 채 읽습니다; 모든 항목을 합쳐 풀린
                크기는 activity.maxInflatedBytes까지), export.xml 하나, GPX 1.0/1.1 트랙, 또는
                머리행이 start,distance_m인 CSV(start는 오프셋이 붙은 ISO 8601 시각이나 설정된
                시간대의 YYYY-MM-DD HH:mm). 거리는 출처(health:<device>, gpx:<file name>, csv)와
                시간마다 저장하며, 한 시간의 걷기는 출처들의 합이 아니라 그중 가장 큰 값입니다.
                같은 파일을 다시 가져오면 그 파일이 덮는 시간에서 전에 저장한 것을 바꿉니다.
                2000년 이전이거나 하루 넘게 앞선 기록과 트랙 점, 초속 30 m보다 빠른 거리(한
                순간에 30 m 넘게)는 건너뛰고 요약에 셉니다. 파일마다 모두 저장하거나 아무것도
                저장하지 않습니다: 잘못된 파일은 아무것도 저장하지 않고, 다른 파일은 그래도
                가져오며, dustctl은 65로 끝납니다.
                건강 앱 내보내기에서는 심박수, 안정 시 심박수, 잠든 시간(값이 Asleep 값 중
                하나인 수면 기록; 침대에 있음과 깨어 있음은 수면이 아님)도 출처 health로,
                --person이 가리키는 구성원(기본: 처음 설정된 구성원)의 것으로 저장합니다. 분당
                25–250회를 벗어난 심박수는 버리고, 24시간보다 긴 수면 기록은 자르고, 시작 전에
                끝나는 기록은 버리고, 겹치는 기록은 합치며, 각각 요약에 셉니다. 잠든 시간은
                수면 때의 양으로 셉니다. 심박수는 그 구성원의 born 월이 설정되어 있으면 그것이
                덮는 시간의 활동 수준을 정합니다(최대 심박수에 나이가 필요합니다;
                docs/REFERENCE.md §18).
                모든 GPX 트랙과 운동 경로에서 그 사람이 있던 곳을 남깁니다: 출처마다, GPS 튐
                규칙을 거친 뒤 각 분의 마지막 점(docs/REFERENCE.md §19).
                예:
                  dustctl activity import ~/Downloads/export.zip
                  dustctl activity import Fixtures/activity/jongno-week-walks.csv
                  dustctl activity import ~/Downloads/export.zip --person 민지
                """,
                """
                Each FILE is told apart by its content, never its name: the Health
                app's export.zip (the export.xml inside, found by its <HealthData> root
                whatever the phone's language named it, and every workout-routes/*.gpx
                beside it, read without unpacking; all its entries together inflate to
                at most activity.maxInflatedBytes), a bare export.xml, a GPX 1.0/1.1
                track, or a CSV with the header start,distance_m (start is an ISO 8601
                time with an offset, or a local YYYY-MM-DD HH:mm in the configured time
                zone). Distances are stored per source (health:<device>, gpx:<file
                name>, csv) and hour; an hour's walking is the largest of its sources,
                never their sum. Importing a file again replaces what it stored before
                over the hours it covers. Records and track points dated before 2000 or
                more than a day ahead, and distances faster than 30 m/s (more than 30 m
                at one instant), are skipped and counted in the summary. Each file is
                all or nothing: a bad file stores nothing, the others are still
                imported, and dustctl exits 65.
                From a Health export it also stores the heart rate, the resting heart rate
                and the time asleep (the sleep records whose value is one of the Asleep
                values; in bed and awake are not sleep), as the source health, for the
                person --person names (default: the first configured). Heart rates outside
                25–250 beats/min are dropped, sleep records longer than 24 hours clipped,
                ending before they start dropped, overlapping merged; each is counted in
                the summary. Time asleep counts at the sleeping rate; a heart rate sets the
                level of the time it covers once the person's born month is configured
                (their maximum heart rate needs an age; docs/REFERENCE.md §18).
                From every GPX track and workout route it keeps where the person was: per
                source, the last point of each minute, after the GPS-jump rule
                (docs/REFERENCE.md §19).
                Examples:
                  dustctl activity import ~/Downloads/export.zip
                  dustctl activity import Fixtures/activity/jongno-week-walks.csv
                  dustctl activity import ~/Downloads/export.zip --person 민지
                """))
    }

    @OptionGroup var options: GlobalOptions

    @Flag(name: .long, help: .localized("진행 표시줄도 요약도 없이 오류만 출력합니다.", "No progress bar and no summary; only errors."))
    var quiet = false

    @Option(
        name: .long,
        help: .localized("누구의 기록인지 (기본: 처음 설정된 구성원).", "Whose records (default: the first configured person).", valueName: "name"))
    var person: String?

    @Argument(
        help: .localized("가져올 파일: export.zip, export.xml, .gpx 또는 .csv.", "The files: export.zip, export.xml, .gpx or .csv."),
        completion: .file())
    var files: [String]

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError(korean: "가져올 파일을 하나 이상 주세요.", english: "Name at least one file to import.") }
        try options.refuseNow("activity import")
    }

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            let language = ReportLanguage.process
            let limits = ActivityReaderLimits(maxArchiveInflatedBytes: settings.activityMaxInflatedBytes)
            try await withStore(settings, for: .write) { store in
                let service = ActivityService(
                    store: store, calendar: settings.calendar, limits: limits, people: settings.people.map(\.name))
                let person = try configuredPerson(person, service, language)
                _ = try await service.giveStoredHistoryToFirstPerson()
                var reports: [JSON] = []
                var failed = 0
                // As `dustctl import`: 66 when every failure was a file that could not be opened (missing,
                // not a regular file), 65 when any file was there but unusable.
                var onlyUnopened = true
                var trackedSources: Set<String> = []
                var output = WorkOutput()
                for file in files {
                    let name = TerminalSafeText.sanitized(file)
                    let bar = ProgressBar(label: name, enabled: !quiet && !options.json && isatty(STDERR_FILENO) == 1)
                    let outcome: Result<ActivityImportSummary, ActivityImportFailure>
                    do throws(ActivityImportFailure) {
                        outcome = .success(try await service.importFile(atPath: file, person: person) { bar.update($0) })
                    } catch {
                        outcome = .failure(error)
                    }
                    bar.finish()
                    switch outcome {
                    case .success(let summary):
                        if summary.trackedMinutes > 0 { trackedSources.formUnion(summary.sources) }
                        if options.json {
                            reports.append(ActivityJSON.imported(file: file, summary))
                        } else if !quiet {
                            output.line("\(name): " + ActivityText.summary(summary, language))
                        }
                    case .failure(let error):
                        if case .storage(let storage) = error { throw CommandFailure(storage) }
                        failed += 1
                        if case .cannotOpen = error {} else { onlyUnopened = false }
                        standardError(
                            "\(name): \(error.description)"
                                + language.say("; 이 파일에서는 아무것도 저장하지 않았습니다.", "; nothing was stored from this file."))
                        if options.json { reports.append(ActivityJSON.failed(file: file, error)) }
                    }
                }
                if !trackedSources.isEmpty {
                    await keepPlacesOfTracks(of: person, sources: trackedSources, store: store, settings: settings)
                }
                if options.json {
                    output.line(
                        JSON.object([
                            ("files", .array(reports)),
                            ("failed", .integer(failed)),
                        ]).serialized)
                }
                if failed > 0 {
                    // The files' failure is the status; the output's, said too.
                    output.sayFailure(language)
                    throw ExitCode((onlyUnopened ? ExitStatus.noInput : .dataError).rawValue)
                }
                try output.finish(language)
            }
        }
    }
}

extension ActivityImportCommand {
    /// Keeps the weighed hours the imported tracks reach, from their first day to their last.
    private func keepPlacesOfTracks(of person: String, sources: Set<String>, store: any FineDustStore, settings: FineDustSettings) async {
        guard settings.followingRadiusKilometres != nil, let followed = settings.person(named: person) else { return }
        do {
            let spans = try await store.positionSummaries().filter { $0.person == person && sources.contains($0.source) }
            guard let first = spans.map(\.first).min(), let last = spans.map(\.last).max() else { return }
            await keepPlaces(
                of: [followed], from: settings.calendar.date(containing: first), through: settings.calendar.date(containing: last),
                store: store, settings: settings)
        } catch {
            standardWarning(
                "가져온 트랙의 시간들을 미리 계산해 두지 못했습니다 (\(error)). 보고서를 읽을 때 계산합니다.",
                "the hours of the imported tracks were not weighed ahead (\(error)); reports weigh them when read.")
        }
    }
}

struct ActivitySourcesCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "sources",
            abstract: helpAbstract(
                "저장된 활동 출처를 보여 줍니다: 처음과 마지막 시간, 총거리; 심박수와 수면.",
                "List the stored activity sources: first and last hour, total distance; heart rate and sleep."),
            discussion: helpText("예:", "Example:") + "\n  dustctl activity sources --json")
    }

    @OptionGroup var options: GlobalOptions

    @Option(
        name: .long,
        help: .localized("이 구성원의 출처만 (기본: 모두의 출처).", "Only this person's sources (default: everyone's).", valueName: "name"))
    var person: String?

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            let language = ReportLanguage.process
            let people = settings.people.map(\.name)
            func listed(_ store: any FineDustStore) async throws -> Listed {
                let service = ActivityService(store: store, calendar: settings.calendar, people: people)
                let only = try person.map { try configuredPerson($0, service, language) }
                return Listed(
                    sources: try await service.sources(), body: try await service.physiologySummaries(),
                    tracks: try await service.positionSummaries(), only: only)
            }
            var listing = try await withStore(settings, for: .read) { store in try await listed(store) }
            // `me`'s history goes to a first person of another name before it is listed, as `import` and
            // `forget` hand it over (docs/REFERENCE.md §18); a database with nothing to hand is only read,
            // and one this user may not write (dustd's, read by a member of its group; a copy on a
            // read-only disk) is listed as stored.
            if listing.awaitsFirstPerson(people) {
                do {
                    listing = try await withStore(settings, for: .write) { store in
                        _ = try await ActivityService(store: store, calendar: settings.calendar, people: people)
                            .giveStoredHistoryToFirstPerson()
                        return try await listed(store)
                    }
                } catch is CommandFailure {}
            }
            let (sources, body, tracks) = listing.shown
            if options.json {
                try standardOutputLine(
                    ActivityJSON.sources(sources, body: body, tracks: tracks, calendar: settings.calendar).serialized)
            } else {
                // The person column appears once people are configured (docs/REFERENCE.md §18).
                let showPerson = people != [Person.defaultName]
                try standardOutput(
                    ActivityText.sources(
                        sources, body: body, tracks: tracks, showPerson: showPerson, calendar: settings.calendar, language: language))
            }
        }
    }
}

/// What `activity sources` read: every person's summaries, and the one person asked for, if any.
private struct Listed {
    var sources: [ActivitySourceSummary]
    var body: [PhysiologySummary]
    var tracks: [PositionSummary]
    var only: String?

    /// The summaries of the person asked for, or of everyone.
    var shown: ([ActivitySourceSummary], [PhysiologySummary], [PositionSummary]) {
        (
            sources.filter { only == nil || $0.person == only }, body.filter { only == nil || $0.person == only },
            tracks.filter { only == nil || $0.person == only }
        )
    }

    /// True when `me` has records, no configured person is `me`, and the first person has none:
    /// what `ActivityService.giveStoredHistoryToFirstPerson` would hand over.
    func awaitsFirstPerson(_ people: [String]) -> Bool {
        guard let first = people.first, !people.contains(Person.defaultName) else { return false }
        let owners = Set(sources.map(\.person) + body.map(\.person) + tracks.map(\.person))
        return owners.contains(Person.defaultName) && !owners.contains(first)
    }
}

struct ActivityForgetCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "forget",
            abstract: helpAbstract(
                "한 출처에서 저장된 거리, 심박수, 수면 기록, 위치를 모두 지웁니다.",
                "Remove every distance, heart rate, sleep record and position stored from one source."),
            discussion: helpText("예:", "Example:") + "\n  dustctl activity forget --source 'health:Apple Watch'")
    }

    @OptionGroup var options: GlobalOptions

    @Option(
        name: .long,
        help: .localized(
            "출처 (`dustctl activity sources`가 보여 주는 이름).", "The source, as `dustctl activity sources` names it.", valueName: "source"))
    var source: String

    @Option(
        name: .long,
        help: .localized("누구의 기록인지 (기본: 처음 설정된 구성원).", "Whose records (default: the first configured person).", valueName: "name"))
    var person: String?

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            let language = ReportLanguage.process
            try await withStore(settings, for: .write) { store in
                let service = ActivityService(store: store, calendar: settings.calendar, people: settings.people.map(\.name))
                let person = try configuredPerson(person, service, language)
                _ = try await service.giveStoredHistoryToFirstPerson()
                let removed: ForgottenActivity
                do {
                    removed = try await service.forget(person: person, source: source)
                } catch let unknown as UnknownActivitySource {
                    throw CommandFailure(.dataError, Self.unknownSource(unknown, language))
                }
                let name = TerminalSafeText.sanitized(source)
                if options.json {
                    try standardOutputLine(
                        JSON.object([
                            ("source", .string(source)), ("hoursRemoved", .integer(removed.walkingHours)),
                            ("bodyRecordsRemoved", .integer(removed.bodyRecords)), ("positionsRemoved", .integer(removed.positions)),
                        ]).serialized)
                } else {
                    try standardOutputLine("\(name): \(ActivityText.forgotten(removed, language))" + language.say(" 지움.", " removed."))
                }
            }
        }
    }

    /// `UnknownActivitySource`'s sentence, in `language` (the same source names).
    static func unknownSource(_ unknown: UnknownActivitySource, _ language: ReportLanguage) -> String {
        guard language == .korean else { return unknown.description + "." }
        let name = TerminalSafeText.sanitized(unknown.source)
        if unknown.known.isEmpty { return "저장된 활동이 없어 지울 출처 \"\(name)\"가 없습니다." }
        return "출처 \"\(name)\"에서 저장된 활동이 없습니다. 저장된 출처: "
            + unknown.known.map { TerminalSafeText.sanitized($0) }.joined(separator: ", ") + "."
    }
}

/// `name` when it is configured, the first person when nil; a name nobody has is exit 64 naming
/// the configured people (docs/REFERENCE.md §18).
private func configuredPerson(_ name: String?, _ service: ActivityService, _ language: ReportLanguage) throws -> String {
    do {
        return try service.person(name)
    } catch {
        throw CommandFailure(
            .usage,
            language.say(
                "\"\(TerminalSafeText.sanitized(error.name))\"(이)라는 구성원은 설정되어 있지 않습니다. 설정된 구성원: \(error.configured.joined(separator: ", ")).",
                error.description + "."))
    }
}

/// The text dustctl prints about activity; every source name and record type came from a file
/// and is made safe for the terminal.
enum ActivityText {
    static func summary(_ summary: ActivityImportSummary, _ language: ReportLanguage = .english) -> String {
        let say = language.say
        let used: String =
            switch summary.format {
            case .csv: say("행 \(summary.recordsUsed)개 사용", count(summary.recordsUsed, "row", "rows") + " used")
            case .gpx: say("트랙 구간 \(summary.trackSteps)개 사용", count(summary.trackSteps, "track step", "track steps") + " used")
            case .healthXML: say("기록 \(summary.recordsUsed)개 사용", count(summary.recordsUsed, "record", "records") + " used")
            case .healthZip:
                say(
                    "기록 \(summary.recordsUsed)개와 경로 구간 \(summary.trackSteps)개 사용",
                    count(summary.recordsUsed, "record", "records") + " and " + count(summary.trackSteps, "route step", "route steps")
                        + " used")
            }
        var parts = ["\(formatName(summary.format, language)), \(used)"]
        /// `korean` or `english` in the language, when `value` is more than 0.
        func note(_ value: Int, _ korean: String, _ english: String) {
            if value > 0 { parts.append(say(korean, english)) }
        }
        let skipped = summary.skippedByType.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        if !skipped.isEmpty {
            let total = skipped.reduce(0) { $0 + $1.value }
            var named = skipped.prefix(3).map { "\($0.value) \(TerminalSafeText.sanitized(shortType($0.key)))" }
            if skipped.count > 3 { named.append(say("그 밖의 유형 \(skipped.count - 3)개", "\(skipped.count - 3) more types")) }
            parts.append(say("\(total)개 건너뜀", "\(total) skipped") + " (\(named.joined(separator: ", ")))")
        }
        note(summary.jumpsDropped, "GPS 튐 \(summary.jumpsDropped)개 버림", count(summary.jumpsDropped, "GPS jump", "GPS jumps") + " dropped")
        note(
            summary.pointsWithoutTime, "시각 없는 트랙 점 \(summary.pointsWithoutTime)개 무시",
            count(summary.pointsWithoutTime, "track point", "track points") + " without a time ignored")
        note(
            summary.timesUnreadable, "시각을 읽을 수 없는 트랙 점 \(summary.timesUnreadable)개 버림",
            count(summary.timesUnreadable, "track point", "track points") + " with a time that is not one dropped")
        note(
            summary.timesBackwards, "앞 점보다 이른 시각의 트랙 점 \(summary.timesBackwards)개 버림",
            count(summary.timesBackwards, "track point", "track points") + " dated before the point before dropped")
        note(
            summary.trackGaps, "한 구간으로 잇기에 너무 긴 멈춤 \(summary.trackGaps)번",
            count(summary.trackGaps, "pause", "pauses") + " too long for a step")
        note(
            summary.plannedPoints, "경로점·웨이포인트 \(summary.plannedPoints)개는 계획이라 읽지 않음 (기록된 트랙을 내보내세요)",
            count(summary.plannedPoints, "route point or waypoint", "route points and waypoints")
                + " not read: they are a plan, not where you went (export the recorded track)")
        note(
            summary.recordsDropped, "거리 기록 \(summary.recordsDropped)개 버림 (시간 길이가 없거나, 30 m/s보다 빠르거나, 일주일보다 긺)",
            count(summary.recordsDropped, "distance record", "distance records")
                + " dropped (no duration, faster than 30 m/s, or longer than a week)")
        note(
            summary.datedOutsidePeriod, "2000년 이전이나 미래 날짜 \(summary.datedOutsidePeriod)개 건너뜀",
            "\(summary.datedOutsidePeriod) dated before 2000 or in the future skipped")
        let corrections = summary.walkingCorrections
        if corrections.overlappingMetres > 0 {
            let km = fixedDecimals(corrections.overlappingMetres / 1000, 2)
            parts.append(say("두 번 덮인 시간의 \(km) km는 한 번만 셈", "\(km) km of time covered twice counted once"))
        }
        if corrections.instantSteps > 0 {
            let km = fixedDecimals(corrections.instantMetres / 1000, 2)
            parts.append(
                say(
                    "시간이 있는 구간 밖의 길이 없는 구간 \(corrections.instantSteps)개 버림 (\(km) km)",
                    count(corrections.instantSteps, "step", "steps") + " of no duration outside any timed step dropped (\(km) km)"))
        }
        if corrections.tooFastMetres > 0 {
            let km = fixedDecimals(corrections.tooFastMetres / 1000, 2)
            parts.append(say("덮인 시간에 비해 30 m/s를 넘는 \(km) km 잘라냄", "\(km) km above 30 m/s over the time covered cut"))
        }
        parts += bodyParts(summary, language)
        parts.append(say("\(summary.slotsTouched)시간 반영", count(summary.slotsTouched, "hour", "hours") + " touched"))
        if summary.trackedMinutes > 0 {
            let minutes = grouped(summary.trackedMinutes)
            parts.append(say("위치 추적 \(minutes)분", "\(minutes) tracked minute\(summary.trackedMinutes == 1 ? "" : "s")"))
        }
        // A zip of thousands of routes names its five longest, and counts the rest: one line, not megabytes.
        let shownSources =
            summary.sources.count <= 6
            ? summary.sources
            : Array(summary.sources.sorted { summary.metresBySource[$0, default: 0] > summary.metresBySource[$1, default: 0] }.prefix(5))
        var sources = shownSources.map {
            "\(TerminalSafeText.sanitized($0)) \(fixedDecimals(summary.metresBySource[$0, default: 0] / 1000, 2)) km"
        }
        if shownSources.count < summary.sources.count {
            let rest = summary.sources.filter { !shownSources.contains($0) }
            let km = fixedDecimals(rest.sorted().reduce(0) { $0 + summary.metresBySource[$1, default: 0] } / 1000, 2)
            sources.append(say("그 밖의 출처 \(rest.count)개, \(km) km", "and \(rest.count) more sources, \(km) km"))
        }
        parts.append(sources.isEmpty ? say("걷기 기록 없음", "no walking found") : say("출처: ", "sources: ") + sources.joined(separator: "; "))
        return parts.joined(separator: ", ") + "."
    }

    /// `3 hours of walking`, `132 heart-rate, resting-rate and sleep records`, `1,234 positions`, or
    /// those removed joined by `and` (in Korean, by commas).
    static func forgotten(_ removed: ForgottenActivity, _ language: ReportLanguage = .english) -> String {
        let say = language.say
        let walking = say(
            "걷기 \(removed.walkingHours)시간", "\(removed.walkingHours) hour\(removed.walkingHours == 1 ? "" : "s") of walking")
        let body = say(
            "심박수·안정 시 심박수·수면 기록 \(removed.bodyRecords)개",
            "\(removed.bodyRecords) heart-rate, resting-rate and sleep record\(removed.bodyRecords == 1 ? "" : "s")")
        let positions = say(
            "위치 \(grouped(removed.positions))개", "\(grouped(removed.positions)) position\(removed.positions == 1 ? "" : "s")")
        var parts: [String] = []
        if removed.walkingHours > 0 || (removed.bodyRecords == 0 && removed.positions == 0) { parts.append(walking) }
        if removed.bodyRecords > 0 { parts.append(body) }
        if removed.positions > 0 { parts.append(positions) }
        if language == .korean { return parts.joined(separator: ", ") }
        return parts.count == 3 ? "\(parts[0]), \(parts[1]) and \(parts[2])" : parts.joined(separator: " and ")
    }

    /// `1234567` → `1,234,567`.
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return (value < 0 ? "-" : "") + result
    }

    /// `1 hour`, `2 hours`.
    static func count(_ value: Int, _ one: String, _ many: String) -> String { "\(value) \(value == 1 ? one : many)" }

    /// What a Health export held of the body, and what of it was not believed (docs/REFERENCE.md §18).
    static func bodyParts(_ summary: ActivityImportSummary, _ language: ReportLanguage = .english) -> [String] {
        let say = language.say
        var parts: [String] = []
        /// `korean` or `english` in the language, when `value` is more than 0.
        func note(_ value: Int, _ korean: String, _ english: String) {
            if value > 0 { parts.append(say(korean, english)) }
        }
        note(
            summary.heartRateSamples, "심박수 표본 \(summary.heartRateSamples)개",
            count(summary.heartRateSamples, "heart-rate sample", "heart-rate samples"))
        note(summary.restingRates, "안정 시 심박수 \(summary.restingRates)개", count(summary.restingRates, "resting rate", "resting rates"))
        if summary.sleepIntervals > 0 {
            let hours = fixedDecimals(Double(summary.asleepSeconds) / 3600, 1)
            parts.append(
                say(
                    "수면 구간 \(summary.sleepIntervals)개에 \(hours)시간 잠",
                    "\(hours) h asleep in " + count(summary.sleepIntervals, "interval", "intervals")))
        }
        note(
            summary.heartRateOutOfRange, "분당 25–250회 밖의 심박수 \(summary.heartRateOutOfRange)개 버림",
            count(summary.heartRateOutOfRange, "heart rate", "heart rates") + " outside 25–250 beats/min dropped")
        note(
            summary.sleepDropped, "시작보다 먼저 끝나는 수면 기록 \(summary.sleepDropped)개 버림",
            count(summary.sleepDropped, "sleep record", "sleep records") + " ending before it starts dropped")
        note(
            summary.sleepClipped, "24시간이 넘는 수면 기록 \(summary.sleepClipped)개 잘라냄",
            count(summary.sleepClipped, "sleep record", "sleep records") + " over 24 h clipped")
        note(
            summary.sleepOverlapsMerged, "겹치는 수면 기록 \(summary.sleepOverlapsMerged)개 합침",
            count(summary.sleepOverlapsMerged, "overlapping sleep record", "overlapping sleep records") + " merged")
        return parts
    }

    static func formatName(_ format: ActivityFileFormat, _ language: ReportLanguage = .english) -> String {
        switch format {
        case .healthZip: language.say("건강 앱 내보내기 (zip)", "Health export (zip)")
        case .healthXML: language.say("건강 앱 export.xml", "Health export.xml")
        case .gpx: language.say("GPX 트랙", "GPX track")
        case .csv: "CSV"
        }
    }

    /// `HKQuantityTypeIdentifierStepCount` → `StepCount`.
    static func shortType(_ type: String) -> String {
        for prefix in ["HKQuantityTypeIdentifier", "HKCategoryTypeIdentifier", "HKDataType"] where type.hasPrefix(prefix) {
            return String(type.dropFirst(prefix.count))
        }
        return type
    }

    /// The walking table gains a TRACKED MIN column when any of its sources kept positions
    /// (docs/REFERENCE.md §19).
    static func sources(
        _ sources: [ActivitySourceSummary], body: [PhysiologySummary] = [], tracks: [PositionSummary] = [], showPerson: Bool = false,
        calendar: DayCalendar, language: ReportLanguage = .english
    ) -> String {
        let say = language.say
        guard !sources.isEmpty || !body.isEmpty else {
            return say(
                "저장된 활동이 없습니다. `dustctl activity import FILE…`로 가져오세요.\n",
                "No activity stored; import some with `dustctl activity import FILE…`.\n")
        }
        var tables: [String] = []
        if !sources.isEmpty {
            let tracked = trackedMinutes(tracks)
            let showTracked = sources.contains { tracked[PersonSource(person: $0.person, source: $0.source)] != nil }
            tables.append(
                table(
                    header: [say("출처", "SOURCE"), say("처음 시간", "FIRST HOUR"), say("마지막 시간", "LAST HOUR"), say("시간 수", "HOURS"), "KM"]
                        + (showTracked ? [say("추적 분", "TRACKED MIN")] : []), leftColumns: 3,
                    showPerson: showPerson, language: language,
                    rows: sources.map { source in
                        let minutes = tracked[PersonSource(person: source.person, source: source.source), default: 0]
                        return (
                            source.person,
                            [
                                TerminalSafeText.sanitized(source.source), slotLabelWithDate(source.firstSlot, calendar),
                                slotLabelWithDate(source.lastSlot, calendar), String(source.slots), fixedDecimals(source.metres / 1000, 2),
                            ] + (showTracked ? [grouped(minutes)] : [])
                        )
                    }))
        }
        if !body.isEmpty {
            tables.append(
                table(
                    header: [
                        say("심박수와 수면", "HEART RATE AND SLEEP"), say("처음", "FIRST"), say("마지막", "LAST"), say("표본", "SAMPLES"),
                        say("안정 시", "RESTING"), say("수면 시간", "ASLEEP H"),
                    ], leftColumns: 3,
                    showPerson: showPerson, language: language,
                    rows: body.map { source in
                        (
                            source.person,
                            [
                                TerminalSafeText.sanitized(source.source), minuteLabel(source.first, calendar),
                                minuteLabel(source.last, calendar),
                                String(source.heartRateSamples), String(source.restingRates),
                                fixedDecimals(Double(source.asleepSeconds) / 3600, 1),
                            ]
                        )
                    }))
        }
        return tables.joined(separator: "\n")
    }

    /// A person's source, the key that joins walking to positions.
    struct PersonSource: Hashable {
        var person: String
        var source: String
    }

    /// Tracked minutes per person and source.
    static func trackedMinutes(_ tracks: [PositionSummary]) -> [PersonSource: Int] {
        Dictionary(tracks.map { (PersonSource(person: $0.person, source: $0.source), $0.minutes) }, uniquingKeysWith: +)
    }

    /// A table with columns padded to their widest cell, the first `leftColumns` aligned left and
    /// the rest right; a PERSON column first when `showPerson`.
    private static func table(
        header: [String], leftColumns: Int, showPerson: Bool, language: ReportLanguage, rows: [(person: String, cells: [String])]
    ) -> String {
        let offset = showPerson ? 1 : 0
        let header = (showPerson ? [language.say("구성원", "PERSON")] : []) + header
        let rows = rows.map { (showPerson ? [TerminalSafeText.sanitized($0.person)] : []) + $0.cells }
        let widths = (0..<header.count).map { column in ([header] + rows).map { displayWidth($0[column]) }.max()! }
        func line(_ row: [String]) -> String {
            row.enumerated().map { padExactly($1, widths[$0], alignRight: $0 >= leftColumns + offset) }.joined(separator: "  ")
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n") + "\n"
    }

    /// `2026-11-20 08:01` in the configured zone.
    static func minuteLabel(_ instant: Date, _ calendar: DayCalendar) -> String {
        let iso = calendar.iso8601(instant)
        return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5))
    }

    /// `2026-11-20 08:00` in the configured zone.
    static func slotLabelWithDate(_ slot: Slot, _ calendar: DayCalendar) -> String {
        let iso = calendar.iso8601(slot.start)
        return String(iso.prefix(10)) + " " + clockTime(slot.start, calendar)
    }
}

/// The JSON documents of the activity commands.
enum ActivityJSON {
    static func imported(file: String, _ summary: ActivityImportSummary) -> JSON {
        .object([
            ("file", .string(file)),
            ("ok", .bool(true)),
            ("format", .string(summary.format.rawValue)),
            ("recordsUsed", .integer(summary.recordsUsed)),
            ("trackSteps", .integer(summary.trackSteps)),
            ("skippedByType", .object(summary.skippedByType.sorted { $0.key < $1.key }.map { ($0.key, .integer($0.value)) })),
            ("gpsJumpsDropped", .integer(summary.jumpsDropped)),
            ("pointsWithoutTime", .integer(summary.pointsWithoutTime)),
            ("recordsDropped", .integer(summary.recordsDropped)),
            ("datedOutsidePeriod", .integer(summary.datedOutsidePeriod)),
            ("timesUnreadable", .integer(summary.timesUnreadable)),
            ("timesBackwards", .integer(summary.timesBackwards)),
            ("trackGaps", .integer(summary.trackGaps)),
            ("plannedPointsIgnored", .integer(summary.plannedPoints)),
            ("overlappingMetres", .measured(summary.walkingCorrections.overlappingMetres)),
            ("instantStepsDropped", .integer(summary.walkingCorrections.instantSteps)),
            ("instantMetresDropped", .measured(summary.walkingCorrections.instantMetres)),
            ("tooFastMetresCut", .measured(summary.walkingCorrections.tooFastMetres)),
            ("slotsTouched", .integer(summary.slotsTouched)),
            (
                "sources",
                .array(
                    summary.sources.map {
                        .object([
                            ("source", .string($0)), ("distance_m", .measured(summary.metresBySource[$0, default: 0])),
                            ("distanceMetres", .measured(summary.metresBySource[$0, default: 0])),
                        ])
                    })
            ),
            ("bytesRead", .integer(Int(summary.bytesRead))),
            ("heartRateSamples", .integer(summary.heartRateSamples)),
            ("restingRates", .integer(summary.restingRates)),
            ("sleepIntervals", .integer(summary.sleepIntervals)),
            ("asleepSeconds", .integer(summary.asleepSeconds)),
            ("heartRateOutOfRange", .integer(summary.heartRateOutOfRange)),
            ("sleepDropped", .integer(summary.sleepDropped)),
            ("sleepClipped", .integer(summary.sleepClipped)),
            ("sleepOverlapsMerged", .integer(summary.sleepOverlapsMerged)),
            ("trackedMinutes", .integer(summary.trackedMinutes)),
        ])
    }

    static func failed(file: String, _ error: ActivityImportFailure) -> JSON {
        .object([("file", .string(file)), ("ok", .bool(false)), ("error", .string(error.description))])
    }

    static func sources(
        _ sources: [ActivitySourceSummary], body: [PhysiologySummary] = [], tracks: [PositionSummary] = [], calendar: DayCalendar
    ) -> JSON {
        let tracked = ActivityText.trackedMinutes(tracks)
        return .object([
            (
                "sources",
                .array(
                    sources.map { source in
                        .object([
                            ("source", .string(source.source)),
                            ("first", .string(calendar.iso8601(source.firstSlot.start))),
                            ("last", .string(calendar.iso8601(source.lastSlot.start))),
                            ("hours", .integer(source.slots)),
                            ("distance_m", .measured(source.metres)),
                            ("person", .string(source.person)),
                            (
                                "trackedMinutes",
                                .integer(tracked[ActivityText.PersonSource(person: source.person, source: source.source), default: 0])
                            ),
                            // One key style (issue 37): `distance_m` is deprecated, kept this release, removed in the next.
                            ("distanceMetres", .measured(source.metres)),
                        ])
                    })
            ),
            (
                "body",
                .array(
                    body.map { source in
                        .object([
                            ("source", .string(source.source)),
                            ("first", .string(calendar.iso8601(source.first))),
                            ("last", .string(calendar.iso8601(source.last))),
                            ("heartRateSamples", .integer(source.heartRateSamples)),
                            ("restingRates", .integer(source.restingRates)),
                            ("sleepIntervals", .integer(source.sleepIntervals)),
                            ("asleepSeconds", .integer(source.asleepSeconds)),
                            ("person", .string(source.person)),
                        ])
                    })
            ),
        ])
    }
}

/// A progress bar on stderr for imports longer than a second: bytes read of the total, MB/s and
/// the time left, redrawn at most ten times a second. Only on a terminal.
final class ProgressBar {
    private let label: String
    private let enabled: Bool
    private let clock: () -> Date
    private let write: (String) -> Void
    /// The language of its words (`s left`, `초 남음`): the locale's (docs/REFERENCE.md §6, "Text").
    private let language: ReportLanguage
    private let started: Date
    private var lastDraw: Date?
    private var drawn = false

    /// `clock` and `write` are for tests; dustctl draws on stderr by the system clock.
    init(
        label: String, enabled: Bool, clock: @escaping () -> Date = Date.init,
        write: @escaping (String) -> Void = { _ = writeAll($0.utf8, to: STDERR_FILENO) }, language: ReportLanguage = .process
    ) {
        self.label = label
        self.enabled = enabled
        self.clock = clock
        self.write = write
        self.language = language
        self.started = clock()
    }

    func update(_ progress: ActivityImportProgress) {
        guard enabled else { return }
        let now = clock()
        let elapsed = now.timeIntervalSince(started)
        guard elapsed >= 1 else { return }
        if let lastDraw, now.timeIntervalSince(lastDraw) < 0.1 { return }
        lastDraw = now
        drawn = true
        write("\r" + Self.line(label: label, progress, elapsed: elapsed, language: language) + "\u{1B}[K")
    }

    /// Clears the bar, if one was drawn.
    func finish() {
        guard drawn else { return }
        drawn = false
        write("\r\u{1B}[K")
    }

    /// `export.zip [##########          ]  51% 262.1/512.0 MB  38.2 MB/s  7 s left` (`7초 남음` in Korean).
    static func line(
        label: String, _ progress: ActivityImportProgress, elapsed: TimeInterval, language: ReportLanguage = .english
    ) -> String {
        let megabytes = Double(progress.bytesRead) / 1_000_000
        let rate = elapsed > 0 ? megabytes / elapsed : 0
        let shortLabel = label.count > 24 ? "…" + label.suffix(23) : label
        guard progress.totalBytes > 0 else {
            return "\(shortLabel)  \(String(format: "%.1f MB  %.1f MB/s", megabytes, rate))"
        }
        let fraction = min(1, Double(progress.bytesRead) / Double(progress.totalBytes))
        let width = 20
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        let total = Double(progress.totalBytes) / 1_000_000
        let left = rate > 0 ? Int(((total - megabytes) / rate).rounded(.up)) : 0
        let remaining = language.say("\(max(0, left))초 남음", "\(max(0, left)) s left")
        return
            "\(shortLabel) [\(bar)] \(String(format: "%3d%% %.1f/%.1f MB  %.1f MB/s", Int(fraction * 100), megabytes, total, rate))  \(remaining)"
    }
}

import ArgumentParser
import DustKit
import DustReports
import DustServices
import Foundation

/// `dustctl person`: one person's data as a whole (docs/REFERENCE.md §13, "Who may see whose data").
struct PersonCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "person",
            abstract: helpAbstract(
                "한 구성원에 대해 저장된 모든 것을 내보내거나 지우고, 그 구성원의 웹 로그인을 끝냅니다.",
                "Export or remove everything stored for one person, or sign them out of the web."),
            discussion: helpText(
                """
                심박수, 수면, 위치는 건강 정보이자 위치 정보입니다: 구성원마다 자기 사본을
                받거나(export) 지우게 할(forget) 수 있습니다. NAME은 지금 설정되어 있지 않아도
                됩니다: people:에서 뺀 구성원도 지울 수 있습니다.
                예:
                  dustctl person export 민지 --output 민지.json
                  dustctl person forget dad
                """,
                """
                Heart rate, sleep and positions are health and location data: each person may
                take their copy (export) or have it removed (forget). NAME need not be
                configured any more: a person removed from people: can still be forgotten.
                Examples:
                  dustctl person export 민지 --output 민지.json
                  dustctl person forget dad
                """),
            subcommands: [PersonExportCommand.self, PersonForgetCommand.self, PersonSignOutCommand.self])
    }
}

struct PersonExportCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "export",
            abstract: helpAbstract(
                "한 구성원에 대해 저장된 모든 것을 JSON 문서 하나로 씁니다.",
                "Write everything stored for one person as one JSON document."),
            discussion: helpText(
                """
                문서에는 시간별 걷기, 심박수 표본, 안정 시 심박수, 수면, 분별 위치, 그 구성원의
                흡입량에 관한 알림이 저장된 그대로, 각각의 출처와 함께 들어 있습니다. 시각은
                설정된 시간대의 오프셋을 붙인 ISO 8601입니다. --output은 소유자만 읽을 수 있는
                (0600) 새 파일을 씁니다.
                """,
                """
                The document holds their walking per hour, heart-rate samples, resting heart
                rates, sleep, positions per minute and the alerts about their dose, each as
                stored, with the source each came from; times in ISO 8601 with the
                configured time zone's offset. --output writes a new file readable by its
                owner only (0600).
                """))
    }

    @OptionGroup var options: GlobalOptions

    @Argument(
        help: .localized(
            "구성원 (people:에 적힌 이름, 또는 저장될 때의 이름).", "The person, as people: names them (or as they were stored).",
            valueName: "name"))
    var name: String

    @Option(
        name: .long,
        help: .localized(
            "표준 출력 대신 이 파일에 문서를 씁니다(-는 표준 출력).", "Write the document to this file instead of standard output (- is standard output).",
            valueName: "file"))
    var output: String?

    func run() async throws {
        try await reportingFailures {
            let language = ReportLanguage.process
            let name = try validPersonName(name, language)
            let settings = try options.settings()
            // When the copy was made: the machine's clock, whatever `--now` explores.
            let exportedAt = SystemClock().now
            // Written as the store reads it, a record at a time: years of a watch's heart rate are
            // millions of samples, never held whole (docs/REFERENCE.md §13).
            var records = 0
            let export = { (sink: @escaping @Sendable ([UInt8]) throws -> Void) async throws in
                let document = PersonExportStream(
                    person: name, exportedAt: exportedAt, timeZone: settings.calendar.timeZone, sink: sink)
                do {
                    try await withStore(settings, for: .read) { store in
                        try await store.forEachPersonRecord(name) { record in try document.add(record) }
                    }
                } catch {
                    // The output's own failure (a full disk, a closed pipe), not the store's account of it.
                    throw document.failure ?? error
                }
                try document.finish()
                records = document.records
            }
            if let output = OutputFile.path(output) {
                try DatabaseOwnFiles(settings.storage).refuse(output, language: language)
                try await OutputFile(path: output, newFileMode: 0o600).write { file in try await export { try file.write($0) } }
            } else {
                try await export { bytes in try standardOutput(String(decoding: bytes, as: UTF8.self)) }
            }
            // A name no one is configured by and nothing is stored for is most likely mistyped: the empty
            // document is still written (a person removed from people: keeps what was stored), and said.
            let configured = settings.people.map(\.name)
            if records == 0, !configured.contains(name) {
                let list = configured.joined(separator: ", ")
                standardError(
                    language.say(
                        "\(name)에 대해 저장된 것이 없고, 그런 이름의 구성원도 설정되어 있지 않습니다(설정된 구성원: \(list)). 문서는 비어 있습니다.",
                        "Nothing is stored for \(name), and no person of that name is configured (configured: \(list)); the document is empty."
                    ))
            }
        }
    }
}

struct PersonForgetCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "forget",
            abstract: helpAbstract(
                "한 구성원에 대해 저장된 모든 것을 모든 테이블에서 한 번에 지웁니다.",
                "Remove everything stored for one person, in every table, at once."),
            discussion: helpText(
                """
                걷기, 심박수, 안정 시 심박수, 수면, 위치, 위치로 정한 시간별 측정소, 알림의
                상태와 기록을 한 트랜잭션으로(모두 지우거나 아무것도 지우지 않음) 지우고,
                무엇이 지워졌는지 알려 줍니다. 대기 측정값은 남습니다: 구성원이 아니라
                측정소의 것이기 때문입니다. people:에서도 빼세요. 그러지 않으면 다음 가져오기가
                그 구성원의 기록을 새로 저장합니다.
                예:
                  dustctl person forget dad
                """,
                """
                Removes their walking, heart rate, resting heart rates, sleep, positions, the
                hours weighed from their positions, and their alerts' states and events, in one
                transaction (all of it or nothing), and says what went. The air readings stay:
                they are the station's, not the person's. Remove them from people: as well, or
                the next import stores new records for them.
                Example:
                  dustctl person forget dad
                """))
    }

    @OptionGroup var options: GlobalOptions

    @Argument(
        help: .localized(
            "구성원 (people:에 적힌 이름, 또는 저장될 때의 이름).", "The person, as people: names them (or as they were stored).",
            valueName: "name"))
    var name: String

    func run() async throws {
        try await reportingFailures {
            let language = ReportLanguage.process
            let name = try validPersonName(name, language)
            let settings = try options.settings()
            let removal = try await withStore(settings, for: .write) { store in try await store.forgetPerson(name) }
            if options.json {
                let counts = PersonRemoval.Kind.allCases.map { kind in (PersonExport.jsonName(kind), JSON.integer(removal[kind])) }
                try standardOutputLine(JSON.object([("person", .string(name)), ("removed", .object(counts))]).serialized)
            } else if removal.total == 0 {
                try standardOutputLine(language.say("\(name)의 저장된 기록이 없습니다.", "Nothing was stored for \(name)."))
            } else {
                try standardOutputLine(
                    language.say("\(name)의 기록을 지웠습니다: \(PersonExport.koreanSummary(removal)).", "Removed for \(name): \(removal.summary)."))
            }
        }
    }
}

/// A name a person can have, composed as the database holds it (`NameForm`: a Mac's decomposed
/// Hangul is the same person); anything else is a usage error, never a query.
private func validPersonName(_ given: String, _ language: ReportLanguage) throws -> String {
    let name = NameForm.given(given)
    guard Person.isValidName(name) else {
        let quoted = "\"\(TerminalSafeText.shown(name, characters: 80))\""
        throw CommandFailure(
            .usage,
            language.say(
                "\(quoted)은(는) 구성원 이름이 될 수 없습니다: a-z, 0-9, _, -나 한글 음절로 1~32자여야 합니다.",
                "\(quoted) is not a person's name: 1 to 32 of a-z, 0-9, _ and -, or Hangul syllables."))
    }
    return name
}

/// The JSON document of `dustctl person export`, written as its records come (`forEachPersonRecord`
/// hands them in the document's order): `{"person":…,"exportedAt":…,"walking":[…],"heartRate":[…],
/// "restingHeartRate":[…],"sleep":[…],"positions":[…],"alerts":[…]}` and a line end, each record an
/// object as `PersonExport.json` makes it. Pieces of about 64 KiB, each ending after a whole record,
/// go to `sink`. Used from one thread at a time: the store's while it reads, then the caller's.
final class PersonExportStream: @unchecked Sendable {
    private let sink: @Sendable ([UInt8]) throws -> Void
    private let time: (Int64) -> JSON
    private var buffer: [UInt8] = []
    /// The list open now (an index of `PersonExport.Section.allCases`), and whether it holds a record yet.
    private var section = -1
    private var sectionHasRecord = false
    /// What `sink` threw, kept so the caller can say it rather than the store's account of it.
    private(set) var failure: (any Error)?
    /// The records added so far.
    private(set) var records = 0

    init(person: String, exportedAt: Date, timeZone: TimeZone, sink: @escaping @Sendable ([UInt8]) throws -> Void) {
        self.sink = sink
        time = PersonExport.time(in: timeZone)
        buffer.reserveCapacity(Self.piece + 4096)
        buffer.append(contentsOf: #"{"person":"#.utf8)
        JSON.string(person).write(to: &buffer)
        buffer.append(contentsOf: #","exportedAt":"#.utf8)
        time(Int64(exportedAt.timeIntervalSince1970)).write(to: &buffer)
    }

    private static let piece = 64 * 1024

    /// Appends `record` to its list, opening the lists up to it.
    func add(_ record: PersonRecord) throws {
        open(through: PersonExport.Section(record).index)
        if sectionHasRecord { buffer.append(UInt8(ascii: ",")) }
        sectionHasRecord = true
        records += 1
        PersonExport.json(record, time: time).write(to: &buffer)
        if buffer.count >= Self.piece { try flush() }
    }

    /// Closes every list, the document and its line, and hands the rest to `sink`.
    func finish() throws {
        open(through: PersonExport.Section.allCases.count)
        buffer.append(contentsOf: "}\n".utf8)
        try flush()
    }

    /// Closes the list open now and opens those up to `index` (the lists without records empty).
    private func open(through index: Int) {
        precondition(index >= section, "a person's records come in the document's order (forEachPersonRecord)")
        while section < index {
            if section >= 0 { buffer.append(UInt8(ascii: "]")) }
            section += 1
            sectionHasRecord = false
            if section < PersonExport.Section.allCases.count {
                buffer.append(contentsOf: ",\"\(PersonExport.Section.allCases[section].rawValue)\":[".utf8)
            }
        }
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        do {
            try sink(buffer)
        } catch {
            failure = error
            throw error
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// The JSON of `dustctl person export`.
enum PersonExport {
    /// A time as the document writes it: ISO 8601 with `timeZone`'s offset.
    static func time(in timeZone: TimeZone) -> (Int64) -> JSON {
        let style = Date.ISO8601FormatStyle(timeZoneSeparator: .colon, timeZone: timeZone)
        return { seconds in .string(Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(style)) }
    }

    /// The document's lists, in its order, each named as the document names it.
    enum Section: String, CaseIterable {
        case walking, heartRate, restingHeartRate, sleep, positions, alerts

        /// The list `record` belongs in.
        init(_ record: PersonRecord) {
            self =
                switch record {
                case .walking: .walking
                case .heartRate: .heartRate
                case .restingHeartRate: .restingHeartRate
                case .sleep: .sleep
                case .position: .positions
                case .alert: .alerts
                }
        }

        /// Its place in the document (an index of `allCases`).
        var index: Int { Self.allCases.firstIndex(of: self)! }
    }

    /// One record as its list holds it.
    static func json(_ record: PersonRecord, time: (Int64) -> JSON) -> JSON {
        switch record {
        case .walking(let walk):
            .object([
                ("source", .string(walk.source)), ("hourStart", time(walk.slotStart)), ("metres", .measured(walk.metres)),
                ("importedAt", time(walk.importedAt)),
            ])
        case .heartRate(let sample), .restingHeartRate(let sample):
            .object([
                ("source", .string(sample.source)), ("at", time(sample.at)), ("bpm", .number(sample.beatsPerMinute)),
                ("importedAt", time(sample.importedAt)),
            ])
        case .sleep(let interval):
            .object([
                ("source", .string(interval.source)), ("start", time(interval.start)), ("end", time(interval.end)),
                ("importedAt", time(interval.importedAt)),
            ])
        case .position(let position):
            .object([
                ("source", .string(position.source)), ("minute", time(position.minute)), ("lat", .number(position.latitude)),
                ("lon", .number(position.longitude)), ("importedAt", time(position.importedAt)),
            ])
        case .alert(let alert):
            .object([
                ("at", time(alert.at)), ("kind", .string(alert.kind)), ("rule", .string(alert.rule)),
                ("metric", alert.metric.map(JSON.string) ?? .null), ("value", .number(alert.value)), ("station", .string(alert.station)),
            ])
        }
    }

    /// `PersonRemoval.summary` in Korean: `걷기 시간값 1203개, 위치 44개` (the kinds with rows, in `Kind`'s order).
    static func koreanSummary(_ removal: PersonRemoval) -> String {
        let parts = PersonRemoval.Kind.allCases.compactMap { kind in removal[kind] == 0 ? nil : "\(koreanName(kind)) \(removal[kind])개" }
        return parts.isEmpty ? "없음" : parts.joined(separator: ", ")
    }

    static func koreanName(_ kind: PersonRemoval.Kind) -> String {
        switch kind {
        case .walking: "걷기 시간값"
        case .heartRate: "심박수 표본"
        case .restingHeartRate: "안정 시 심박수"
        case .sleep: "수면 구간"
        case .positions: "위치"
        case .keptPlaces: "위치로 정한 시간별 측정소"
        case .alertStates: "알림 상태"
        case .alertEvents: "알림 기록"
        }
    }

    static func jsonName(_ kind: PersonRemoval.Kind) -> String {
        switch kind {
        case .walking: "walkingSlots"
        case .heartRate: "heartRateSamples"
        case .restingHeartRate: "restingHeartRates"
        case .sleep: "sleepIntervals"
        case .positions: "positions"
        case .keptPlaces: "keptPlaces"
        case .alertStates: "alertStates"
        case .alertEvents: "alertEvents"
        }
    }
}

struct PersonSignOutCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "signout",
            abstract: helpAbstract(
                "한 구성원(또는 관리자)의 대시보드 세션을 모든 기기에서 끝냅니다.",
                "End every dashboard session of one person (or of the administrator), on every device."),
            discussion: helpText(
                """
                지금까지 발급된 세션 쿠키(대시보드 로그인, docs/REFERENCE.md §13)는 다음
                요청부터 거부됩니다: 잃어버린 휴대폰, 함께 쓰는 컴퓨터. 구성원은 자기 토큰으로
                다시 로그인합니다. 토큰 자체는 그대로입니다(바꾸려면 파일을 바꾸세요).
                --administrator는 http.tokenFile의 토큰으로 열린 세션을 끝냅니다.
                예:
                  dustctl person signout 민지
                  dustctl person signout --administrator
                """,
                """
                A session cookie (the dashboard's sign-in, docs/REFERENCE.md §13) issued
                before now is refused from the next request on: a lost phone, a shared
                computer. The person signs in again with their token; the token itself is
                unchanged (change the file to replace it). --administrator ends the
                sessions opened with http.tokenFile's token.
                Examples:
                  dustctl person signout 민지
                  dustctl person signout --administrator
                """))
    }

    @OptionGroup var options: GlobalOptions

    @Flag(help: .localized("구성원 대신 관리자의 세션 (http.tokenFile).", "The administrator's sessions (http.tokenFile) instead of a person's."))
    var administrator = false

    @Argument(help: .localized("구성원 (people:에 적힌 이름).", "The person, as people: names them.", valueName: "name"))
    var name: String?

    func validate() throws {
        guard administrator != (name != nil) else {
            throw ValidationError(
                korean: "구성원 한 명의 이름이나 --administrator 중 하나만 주세요.", english: "Name one person, or give --administrator.")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            let language = ReportLanguage.process
            let principal: String
            if let name {
                let person = try validPersonName(name, language)
                guard settings.person(named: person) != nil else {
                    let configured = settings.people.map(\.name).joined(separator: ", ")
                    throw CommandFailure(
                        .usage,
                        language.say(
                            "\(person)은(는) 설정된 구성원이 아닙니다. 설정된 구성원: \(configured).",
                            "\(person) is not a configured person; configured people: \(configured)."))
                }
                principal = "p:" + person
            } else {
                principal = "*"
            }
            // The machine's clock, never `--now`: a sign-out dated ahead would refuse the sessions opened
            // until then, one dated behind would leave the newest open.
            let now = SystemClock().now
            try await withStore(settings, for: .write) { store in try await store.revokeSessions(of: principal, at: now) }
            let whom = name ?? "the administrator"
            if options.json {
                try standardOutputLine(
                    JSON.object([("signedOut", .string(whom)), ("at", .string(settings.calendar.iso8601(now)))]).serialized)
            } else {
                try standardOutputLine(
                    language.say(
                        "\(name ?? "관리자")의 지금까지 열린 모든 세션을 끝냈습니다. 다시 로그인할 때는 토큰을 씁니다.",
                        "Every session of \(whom) opened before now is ended; they sign in again with their token."))
            }
        }
    }
}

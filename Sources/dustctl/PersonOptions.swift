import ArgumentParser
import DustConfig
import DustKit
import DustServices

/// `--person` and `--everyone` of the report commands (docs/REFERENCE.md §18).
struct PersonOptions: ParsableArguments {
    @Option(
        name: .long,
        help: .localized(
            "누구의 흡입량을 보일지 (기본: 처음 설정된 구성원).", "Whose dose to show (default: the first configured person).", valueName: "name"))
    var person: String?

    @Flag(
        name: .long,
        help: .localized(
            "설정된 구성원 모두를 차례로 (JSON과 CSV: 항목마다 person 필드).",
            "Every configured person, one after another (JSON and CSV: a person field on each)."))
    var everyone = false

    func validate() throws {
        if person != nil, everyone {
            throw ValidationError(korean: "--person과 --everyone은 함께 쓸 수 없습니다.", english: "--person and --everyone exclude each other.")
        }
    }

    /// Whether the output names its person: only with --everyone, so one person's output keeps its shape.
    var namesPeople: Bool { everyone }

    /// The people to report, in the configured order; a name nobody has is a usage error naming those configured.
    func people(_ settings: FineDustSettings) throws -> [Person] {
        if everyone { return settings.people }
        guard let person else { return Array(settings.people.prefix(1)) }
        return [try Self.configured(person, in: settings)]
    }

    /// The person named `name`, or exit 64 saying who is configured.
    static func configured(_ name: String, in settings: FineDustSettings) throws -> Person {
        guard let person = settings.person(named: name) else {
            let unknown = UnknownPerson(name: name, configured: settings.people.map(\.name))
            throw CommandFailure(.usage, korean: unknown.korean, english: unknown.description + ".")
        }
        return person
    }
}

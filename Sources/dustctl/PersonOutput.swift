import DustKit
import DustReports
import Foundation

/// How `--everyone` puts the household's outputs together (docs/REFERENCE.md §18): text a section
/// per person under their name, JSON an array of the usual documents each with `person` first.
struct PersonOutput {
    let namesPeople: Bool
    let style: TextStyle
    /// The heading's language: the locale's (docs/REFERENCE.md §6, "Text").
    let language: ReportLanguage

    init(
        namesPeople: Bool, style: TextStyle, language: ReportLanguage = ReportLanguage.process
    ) {
        self.namesPeople = namesPeople
        self.style = style
        self.language = language
    }

    /// One person's text as it always was; with --everyone, each under a heading with the name.
    func text(_ sections: [(person: String, text: String)]) -> String {
        guard namesPeople else { return sections.map(\.text).joined() }
        return sections.map { style.bold(language.say("구성원: ", "Person: ") + $0.person) + "\n" + $0.text }.joined(separator: "\n")
    }

    /// One person's document as it always was; with --everyone, an array of them naming each person.
    func json(_ documents: [(person: String, document: JSON)]) -> JSON {
        guard namesPeople else { return documents.first?.document ?? .null }
        return .array(documents.map { ReportJSON.naming($0.person, $0.document) })
    }
}

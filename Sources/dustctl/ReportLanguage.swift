import DustKit

/// The language of dustctl's reports (`today`, `day`, `hourly`, `week`, …), of `export`'s messages and
/// of `--help` (`HelpLanguage.swift`): Korean under a Korean locale, English otherwise, as the
/// dashboard follows the browser's (docs/REFERENCE.md §6, "Text").
/// The locale is POSIX's: the first of `LC_ALL`, `LC_MESSAGES` and `LANG` that is set and not empty.
/// JSON and CSV are the same in every language.
enum ReportLanguage: Sendable, Equatable {
    case korean
    case english

    init(environment: [String: String]) {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        // `korean` is glibc's alias of ko_KR (locale.alias).
        self = ["ko", "korean"].contains(LanguageTag.primary(locale)) ? .korean : .english
    }

    /// `korean` or `english`, as this language is.
    func say(_ korean: String, _ english: String) -> String {
        self == .korean ? korean : english
    }

    /// 월, 화, … or Mon, Tue, …
    func weekday(_ date: LocalDate) -> String {
        say(["월", "화", "수", "목", "금", "토", "일"][date.isoWeekday - 1], weekdayName(date))
    }

    /// `보통` or `보통 moderate`; `–` when unknown.
    func grade(_ grade: DustGrade?) -> String {
        guard let grade else { return "–" }
        return say(grade.koreanName, gradeName(grade))
    }

    /// `보통` or `보통 (moderate)`.
    func bilingualGrade(_ grade: DustGrade) -> String {
        say(grade.koreanName, grade.bilingualName)
    }
}

import Foundation

/// The period FineDust reads, stores and shows: the dates 2000-01-01 through 2099-12-31.
///
/// Every date or week a person can type (the web's paths, `dustctl`'s options) must lie in it,
/// so that no arithmetic on a neighbouring date (the pager's week before, a rolling week's first
/// day) can leave the proleptic calendar; and every instant read from the network or a file
/// (AirKorea items, Health records, GPX points, CSV rows) must lie between its start and a day
/// after now, else it is skipped and counted (docs/RELIABILITY.md, "Data that must not mislead").
public enum SupportedPeriod {
    /// The first supported date.
    public static let firstDate = LocalDate(year: 2000, month: 1, day: 1)
    /// The last supported date.
    public static let lastDate = LocalDate(year: 2099, month: 12, day: 31)

    /// The earliest instant stored: 2000-01-01 00:00 in the easternmost zone (UTC+14), so the
    /// first supported date is whole in every `timezone`.
    public static let earliestInstant = Date(timeIntervalSince1970: TimeInterval(firstDate.daysSinceEpoch * 86_400 - 14 * 3600))

    /// How far past now a timestamp may lie before it is taken for a wrong clock.
    public static let futureAllowance: TimeInterval = 86_400

    /// Whether `date` is a supported date.
    public static func contains(_ date: LocalDate) -> Bool { date >= firstDate && date <= lastDate }

    /// Whether the whole week, Monday to Sunday, is made of supported dates.
    public static func contains(_ week: ISOWeek) -> Bool {
        contains(week.monday) && contains(week.monday.adding(days: 6))
    }

    /// Whether an instant read from outside is plausible at `now`: not before `earliestInstant`,
    /// not more than `futureAllowance` after `now`, and finite.
    public static func isPlausible(_ instant: Date, now: Date) -> Bool {
        let seconds = instant.timeIntervalSince1970
        return seconds.isFinite && instant >= earliestInstant && seconds <= now.timeIntervalSince1970 + futureAllowance
    }
}

/// Why a date or week typed by a person (a web path, a `dustctl` option) is refused: its sentence
/// says what to write instead.
public enum TypedPeriodError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is not a date written `YYYY-MM-DD`, or names no real day.
    case notADate(String)
    /// The text is not a week written `YYYY-Www`, or the year has no such week.
    case notAWeek(String)
    /// A real date outside `SupportedPeriod`.
    case unsupportedDate(LocalDate)
    /// A real week with a day outside `SupportedPeriod`.
    case unsupportedWeek(ISOWeek)
    /// A supported date that ends a rolling week beginning before `SupportedPeriod.firstDate`.
    case unsupportedWeekEnd(LocalDate)

    public var description: String {
        let range = "\(SupportedPeriod.firstDate) to \(SupportedPeriod.lastDate)"
        switch self {
        case .notADate(let text):
            // Written right but naming no day (2026-11-31, 2026-02-29, 2026-13-01): say which part is wrong.
            switch Self.dateWrittenRight(text) {
            case .noSuchMonth(let month)?: return "\(text) has no month \(month): a month is 01 to 12; give a day from \(range)."
            case .pastLastDay(let yearMonth, let last)?:
                return "\(text) is not a day: \(yearMonth) has \(last) days; give a day from \(range)."
            case nil: return "write the day as YYYY-MM-DD, from \(range)."
            }
        case .notAWeek(let text):
            // Written right but past the year's last week (2027-W53 after 2026-W53) or W00: say how many it has.
            if let (year, last) = Self.yearOfWeekWrittenRight(text) {
                return "\(text) is not a week: \(year) has \(last.week) ISO weeks, the last \(last) (\(last.monday) to "
                    + "\(last.monday.adding(days: 6))); give a week whose seven days lie from \(range)."
            }
            return "write the week as YYYY-Www (e.g. 2026-W47), a week whose seven days lie from \(range)."
        case .unsupportedDate(let date):
            return "\(date) is outside the dates FineDust keeps; give a day from \(range)."
        case .unsupportedWeek(let week):
            return "\(week) runs \(week.monday) to \(week.monday.adding(days: 6)), outside the dates FineDust keeps; "
                + "give a week whose seven days lie from \(range) (\(SupportedPeriod.firstWeek) to \(SupportedPeriod.lastWeek))."
        case .unsupportedWeekEnd(let end):
            return "the week ending \(end) would begin on \(end.adding(days: -6)), outside the dates FineDust keeps; "
                + "end it on \(SupportedPeriod.firstWeekEnd) or later."
        }
    }
}

extension TypedPeriodError {
    /// The sentence in Korean (dustctl under a Korean locale, the dashboard's Korean 404): as `description`
    /// says which part of a date or week written right is wrong, and quotes the text only then.
    public var korean: String {
        let range = "\(SupportedPeriod.firstDate)부터 \(SupportedPeriod.lastDate)"
        switch self {
        case .notADate(let text):
            switch Self.dateWrittenRight(text) {
            case .noSuchMonth(let month)?: return "\(text)의 \(month)월은 없는 달입니다: 달은 01부터 12까지입니다. \(range) 사이의 날을 주세요."
            case .pastLastDay(let yearMonth, let last)?:
                return "\(text)은(는) 없는 날입니다: \(yearMonth)은(는) \(last)일까지 있습니다. \(range) 사이의 날을 주세요."
            case nil: return "날짜는 YYYY-MM-DD로, \(range) 사이에서 쓰세요."
            }
        case .notAWeek(let text):
            if let (year, last) = Self.yearOfWeekWrittenRight(text) {
                return "\(text)은(는) 없는 주입니다: \(year)년은 ISO 주가 \(last.week)주까지 있고, 마지막 주는 \(last)"
                    + "(\(last.monday)부터 \(last.monday.adding(days: 6))까지)입니다. 일곱 날이 모두 \(range) 사이에 드는 주를 쓰세요."
            }
            return "주는 YYYY-Www(예: 2026-W47)로, 일곱 날이 모두 \(range) 사이에 드는 주를 쓰세요."
        case .unsupportedDate(let date):
            return "\(date)은(는) FineDust가 보관하는 날짜 밖입니다. \(range) 사이의 날을 주세요."
        case .unsupportedWeek(let week):
            return "\(week)은(는) \(week.monday)부터 \(week.monday.adding(days: 6))까지로, FineDust가 보관하는 날짜 밖입니다. "
                + "일곱 날이 모두 \(range) 사이에 드는 주(\(SupportedPeriod.firstWeek)부터 \(SupportedPeriod.lastWeek)까지)를 주세요."
        case .unsupportedWeekEnd(let end):
            return "\(end)에 끝나는 주는 \(end.adding(days: -6))에 시작해 FineDust가 보관하는 날짜 밖입니다. "
                + "\(SupportedPeriod.firstWeekEnd) 이후에 끝나는 주를 주세요."
        }
    }

    /// What is wrong with a text written `YYYY-MM-DD` that names no day, when its month or day says it.
    enum DateWrittenRight {
        /// `2026-13-01`: a month past 12 (or 00).
        case noSuchMonth(Int)
        /// `2026-11-31`: the month (`2026-11`) has only `last` days.
        case pastLastDay(yearMonth: String, last: Int)
    }

    /// For a text written `YYYY-MM-DD` that names no day: which part is wrong; nil when it is not so written
    /// (then nothing of it is quoted). ASCII digits only: Regex's \d takes any (`2026-12-3１`), which LocalDate refuses.
    static func dateWrittenRight(_ text: String) -> DateWrittenRight? {
        guard let match = text.wholeMatch(of: /(\d{4})-(\d{2})-(\d{2})/.asciiOnlyDigits()), let year = Int(match.1),
            let month = Int(match.2)
        else { return nil }
        guard (1...12).contains(month) else { return .noSuchMonth(month) }
        guard year > 0, let last = (28...31).last(where: { LocalDate("\(match.1)-\(match.2)-\($0)") != nil }) else { return nil }
        return .pastLastDay(yearMonth: "\(match.1)-\(match.2)", last: last)
    }

    /// For a text written `YYYY-Www` whose year has no such week: the year and its last week.
    public static func yearOfWeekWrittenRight(_ text: String) -> (year: Int, last: ISOWeek)? {
        guard let match = text.wholeMatch(of: /(\d{4})-W(\d{2})/.asciiOnlyDigits()), let year = Int(match.1), (1...9998).contains(year)
        else { return nil }
        // 28 December is in its year's last ISO week, whichever weekday the year begins on.
        return (year, ISOWeek(containing: LocalDate(year: year, month: 12, day: 28)))
    }
}

extension SupportedPeriod {
    /// The first week whose seven days are all supported, 2000-W01 (2000-01-03 to 09): 1999-W52 ends on 2000-01-02.
    public static let firstWeek = ISOWeek(containing: firstDate.adding(days: (8 - firstDate.isoWeekday) % 7))
    /// The last week whose seven days are all supported, 2099-W52: 2099-W53 runs 2099-12-28 to 2100-01-03.
    public static let lastWeek = ISOWeek(containing: lastDate.adding(days: -(lastDate.isoWeekday % 7)))

    /// The supported date a person wrote as `YYYY-MM-DD`: the one parser of the web's paths and
    /// `dustctl`'s options, so that every date either accepts lies in the period.
    public static func date(_ text: some StringProtocol) throws(TypedPeriodError) -> LocalDate {
        guard let date = LocalDate(text) else { throw .notADate(String(text)) }
        guard contains(date) else { throw .unsupportedDate(date) }
        return date
    }

    /// The first day a rolling week may end on: its seven days all supported (2000-01-07).
    public static let firstWeekEnd = firstDate.adding(days: 6)

    /// The last day of a rolling week a person wrote as `YYYY-MM-DD` (`dustctl week --end`, the web's
    /// `/api/v1/week?end=`): a supported date whose week's seven days are all supported.
    public static func weekEnd(_ text: some StringProtocol) throws(TypedPeriodError) -> LocalDate {
        let end = try date(text)
        guard end >= firstWeekEnd else { throw .unsupportedWeekEnd(end) }
        return end
    }

    /// The supported ISO week a person wrote as `YYYY-Www`; a week is supported when all seven
    /// of its days are, so that no day of the page or the export lies outside the period.
    public static func week(_ text: some StringProtocol) throws(TypedPeriodError) -> ISOWeek {
        guard let week = ISOWeek(text) else { throw .notAWeek(String(text)) }
        guard contains(week) else { throw .unsupportedWeek(week) }
        return week
    }
}

/// A calendar date with no time zone attached: "a day" as a person in `timezone` means it.
public struct LocalDate: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// Creates a date; the components must name a real Gregorian date.
    public init(year: Int, month: Int, day: Int) {
        precondition(LocalDate.isValid(year: year, month: month, day: day), "invalid date \(year)-\(month)-\(day)")
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `YYYY-MM-DD`; returns nil for anything else, including impossible dates such as `2026-02-30`.
    public init?(_ text: some StringProtocol) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            let year = ASCIIDigits.value(bytes[0..<4]),
            let month = ASCIIDigits.value(bytes[5..<7]),
            let day = ASCIIDigits.value(bytes[8..<10]),
            LocalDate.isValid(year: year, month: month, day: day)
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The first and last dates a `LocalDate` can hold: years 1 through 9999, the years `YYYY` can write.
    public static let earliest = LocalDate(year: 1, month: 1, day: 1)
    public static let latest = LocalDate(year: 9999, month: 12, day: 31)

    /// The date `daysSinceEpoch` days after 1970-01-01, held to `earliest`…`latest`.
    ///
    /// Clamped rather than trapping: a day count comes from arithmetic on dates and instants a
    /// person or a server chose (docs/RELIABILITY.md), and a year 0 or 10000 would make the next
    /// `LocalDate(year:month:day:)` fail its precondition.
    public init(daysSinceEpoch: Int) {
        let clamped = min(max(daysSinceEpoch, LocalDate.earliestDaysSinceEpoch), LocalDate.latestDaysSinceEpoch)
        // Howard Hinnant's civil_from_days.
        let z = clamped + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        self.year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        self.month = month
        self.day = day
    }

    /// Days since 1970-01-01 (negative before).
    public var daysSinceEpoch: Int { Self.daysSinceEpoch(year: year, month: month, day: day) }

    /// Days since 1970-01-01 of any proleptic Gregorian date, year 0 included: for parsers that read
    /// a date before deciding whether it is supported (`LocalDate` itself holds years 1 through 9999).
    public static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date `days` days later (earlier when negative), held to `earliest`…`latest`.
    public func adding(days: Int) -> LocalDate {
        let (sum, overflow) = daysSinceEpoch.addingReportingOverflow(days)
        return LocalDate(daysSinceEpoch: overflow ? (days < 0 ? Int.min : Int.max) : sum)
    }

    /// Day counts of `earliest` (0001-01-01) and `latest` (9999-12-31).
    static let earliestDaysSinceEpoch = -719_162
    static let latestDaysSinceEpoch = 2_932_896

    /// ISO weekday: 1 is Monday, 7 is Sunday.
    public var isoWeekday: Int {
        // 1970-01-01 was a Thursday (4).
        let weekday = (daysSinceEpoch + 3) % 7
        return (weekday < 0 ? weekday + 7 : weekday) + 1
    }

    public var description: String {
        "\(ASCIIDigits.padded(year, width: 4))-\(ASCIIDigits.padded(month, width: 2))-\(ASCIIDigits.padded(day, width: 2))"
    }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let date = LocalDate(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a YYYY-MM-DD date: \(text)"))
        }
        self = date
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    public static func isValid(year: Int, month: Int, day: Int) -> Bool {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1 else { return false }
        return day <= daysInMonth(year: year, month: month)
    }

    /// The days in `month` (1–12) of the proleptic Gregorian `year`.
    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// An ISO 8601 week, `YYYY-Www`: Monday to Sunday.
public struct ISOWeek: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let year: Int
    public let week: Int

    /// The ISO week containing `date`.
    public init(containing date: LocalDate) {
        // The ISO year is the year of the Thursday of the same week.
        let thursday = date.adding(days: 4 - date.isoWeekday)
        let firstOfYear = LocalDate(year: thursday.year, month: 1, day: 1)
        self.year = thursday.year
        self.week = (thursday.daysSinceEpoch - firstOfYear.daysSinceEpoch) / 7 + 1
    }

    /// Parses `YYYY-Www` (e.g. `2026-W47`); nil when the year has no such week.
    public init?(_ text: some StringProtocol) {
        let bytes = Array(text.utf8)
        guard bytes.count == 8, bytes[4] == UInt8(ascii: "-"), bytes[5] == UInt8(ascii: "W"),
            let year = ASCIIDigits.value(bytes[0..<4]), let week = ASCIIDigits.value(bytes[6..<8]),
            (1...9998).contains(year), week >= 1
        else { return nil }
        let candidate = ISOWeek(uncheckedYear: year, week: week)
        guard ISOWeek(containing: candidate.monday) == candidate else { return nil }
        self = candidate
    }

    private init(uncheckedYear year: Int, week: Int) {
        self.year = year
        self.week = week
    }

    /// The Monday that starts the week.
    public var monday: LocalDate {
        // January 4th is always in week 1.
        let january4 = LocalDate(year: year, month: 1, day: 4)
        let week1Monday = january4.adding(days: 1 - january4.isoWeekday)
        return week1Monday.adding(days: (week - 1) * 7)
    }

    /// Monday through Sunday.
    public var dates: [LocalDate] { (0..<7).map { monday.adding(days: $0) } }

    public var description: String { "\(ASCIIDigits.padded(year, width: 4))-W\(ASCIIDigits.padded(week, width: 2))" }

    public static func < (lhs: ISOWeek, rhs: ISOWeek) -> Bool { (lhs.year, lhs.week) < (rhs.year, rhs.week) }
}

/// Small helpers for fixed-width ASCII numbers, used by the date and time parsers: ASCII digits
/// only, never a sign or a blank as `Int(String)` would take.
public enum ASCIIDigits {
    /// The value of a run of ASCII digits; nil if any byte is not a digit.
    public static func value<C: Collection<UInt8>>(_ digits: C) -> Int? {
        guard !digits.isEmpty else { return nil }
        var result = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            result = result * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return result
    }

    /// `value` written with leading zeros to at least `width` digits.
    static func padded(_ value: Int, width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

import DustKit
import DustReports
import DustServices

/// The export CSV of docs/REFERENCE.md §6: RFC 4180, UTF-8, `\n` line ends, empty fields for unknown values,
/// at most 3 decimals, and text that a spreadsheet would run as a formula neutralised with `'`.
enum ExportCSV {
    static let dayHeader =
        "date,station,pm10_hours,pm25_hours,pm10_mean_ug_m3,pm25_mean_ug_m3,pm10_max_ug_m3,pm25_max_ug_m3,pm10_intake_ug,pm25_intake_ug,pm10_grade,pm25_grade,pm10_grade_word,pm25_grade_word"
    static let weekHeader = "week" + dayHeader.dropFirst("date".count)

    /// A row per day at the station of its person; `naming` (--everyone) puts a `person` column first.
    static func days(_ days: [DayReport], naming: Bool = false) -> String {
        lines(
            header: dayHeader, rows: days.map { (person: $0.person, label: $0.date.description, station: $0.station, totals: $0.totals) },
            naming: naming)
    }

    /// A row per week at the station of its person; `naming` (--everyone) puts a `person` column first.
    static func weeks(_ weeks: [WeekReport], naming: Bool = false) -> String {
        lines(
            header: weekHeader,
            rows: weeks.map {
                (person: $0.days[0].person, label: $0.isoWeek?.description ?? "\($0.start)", station: $0.days[0].station, totals: $0.totals)
            },
            naming: naming)
    }

    private static func lines(
        header: String, rows: [(person: String, label: String, station: String, totals: ExposureTotals)], naming: Bool
    ) -> String {
        var output = (naming ? "person," : "") + header + "\n"
        for row in rows {
            let totals = row.totals
            let fields =
                (naming ? [text(row.person)] : []) + [
                    text(row.label), text(row.station),
                    String(totals.hours.fineDust), String(totals.hours.ultraFineDust),
                    number(totals.mean.fineDust), number(totals.mean.ultraFineDust),
                    number(totals.max.fineDust), number(totals.max.ultraFineDust),
                    number(totals.intake.fineDust), number(totals.intake.ultraFineDust),
                    totals.grade.fineDust.map { String($0.rawValue) } ?? "",
                    totals.grade.ultraFineDust.map { String($0.rawValue) } ?? "",
                    // Added by issue 37, last: the grade as AirKorea says it, beside its number.
                    totals.grade.fineDust?.koreanName ?? "", totals.grade.ultraFineDust?.koreanName ?? "",
                ]
            output += fields.joined(separator: ",") + "\n"
        }
        return output
    }

    /// A text field: formula-neutralised, then quoted if it holds a comma, quote or line break.
    static func text(_ value: String) -> String {
        // What a terminal acts on is replaced (`cat week.csv` must not retitle or clear it); a line feed
        // inside a field stays, quoted.
        var field = TerminalSafeText.sanitized(value, keepingLineFeeds: true)
        if let first = value.unicodeScalars.first, formulaLeads.contains(first) {
            field = "'" + field
        }
        // Byte by byte, as a CSV reader reads: a comma or quote is one whatever follows it. Compared as
        // characters, `,` with a combining mark or skin tone after it (or U+0D4E before it) was one
        // character that is no comma, and the field went out unquoted, a column more and a live `=`.
        guard field.utf8.contains(where: quotedBytes.contains) else { return field }
        var quoted: [UInt8] = [UInt8(ascii: "\"")]
        quoted.reserveCapacity(field.utf8.count + 4)
        for byte in field.utf8 {
            if byte == UInt8(ascii: "\"") { quoted.append(byte) }
            quoted.append(byte)
        }
        quoted.append(UInt8(ascii: "\""))
        return String(decoding: quoted, as: UTF8.self)
    }

    /// The bytes that make a field quoted: a comma, a quote, a line break.
    private static let quotedBytes: Set<UInt8> = [UInt8(ascii: ","), UInt8(ascii: "\""), UInt8(ascii: "\n"), UInt8(ascii: "\r")]

    /// What a spreadsheet may read as the start of a formula: OWASP's six, and their full-width and small
    /// forms and the minus sign (`＝1+1`, `﹦1+1`, `−1+2`), which spreadsheets set up for CJK may fold to them.
    static let formulaLeads: Set<Unicode.Scalar> = [
        "=", "+", "-", "@", "\t", "\r", "\u{FF1D}", "\u{FE66}", "\u{FF0B}", "\u{FE62}", "\u{FF0D}", "\u{FE63}", "\u{2212}", "\u{FF20}",
        "\u{FE6B}",
    ]

    /// A number with `.` and at most 3 decimals, trailing zeros (and a bare trailing point) dropped,
    /// never an exponent; empty when unknown. Rounded as the JSON documents round (`JSON.measuredValue`).
    static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "" }
        let rounded = JSON.measuredValue(value)
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        var text = fixedDecimals(rounded, 3)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}

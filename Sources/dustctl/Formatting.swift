import DustConfig
import DustKit
import Foundation

/// Human-readable text for terminals: aligned columns that respect the double width of Hangul,
/// and colour only on a terminal without NO_COLOR.
struct TextStyle {
    let colour: Bool

    /// Colour when stdout is a terminal, `NO_COLOR` is unset and `TERM` is not `dumb`.
    static func forStandardOutput(environment: [String: String] = EnvironmentVariables.read(named: ["NO_COLOR", "TERM"])) -> TextStyle {
        let wantsColour = isatty(STDOUT_FILENO) == 1 && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb"
        return TextStyle(colour: wantsColour)
    }

    func bold(_ text: String) -> String { colour ? Self.sequence("1") + text + Self.reset : text }
    func dim(_ text: String) -> String { colour ? Self.sequence("2") + text + Self.reset : text }

    /// Text in the colour AirKorea uses for a grade (blue, green, orange, red).
    func graded(_ text: String, _ grade: DustGrade?) -> String {
        guard colour, let grade else { return text }
        return Self.sequence(Self.colourCode(grade)) + text + Self.reset
    }

    private static func colourCode(_ grade: DustGrade) -> String {
        switch grade {
        case .good: "34"
        case .moderate: "32"
        case .bad: "33"
        case .veryBad: "31"
        }
    }

    private static func sequence(_ code: String) -> String { "\u{1B}[\(code)m" }
    private static let reset = sequence("0")

    /// Every escape sequence dustctl writes itself: reset, bold, dim and the grade colours, the
    /// only ones `TerminalOutput` lets through.
    static let sequences: [String] = [reset, sequence("1"), sequence("2")] + DustGrade.allCases.map { sequence(colourCode($0)) }
}

/// Terminal columns a string occupies, counted by what a terminal draws: each character (a grapheme
/// cluster) as wide as its first scalar — two for Hangul and other East Asian wide characters, none for a
/// combining mark or a zero-width one — and two for an emoji shown as a picture (`🏃‍♂️`, `👍🏽`, `❤️`), however
/// many scalars it joins. dustctl's own escape sequences (`ESC [ … m`) take none.
func displayWidth(_ text: String) -> Int {
    if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
    // Nearly every cell is Latin letters, Hangul syllables, CJK ideographs and dashes, none of which joins the
    // next into one character: counted scalar by scalar (a `stations list` of 600 Hangul names cost 8 % of the
    // command's run when every cell was broken into characters). Anything else is measured by its characters.
    var plain = 0
    for scalar in text.unicodeScalars {
        switch scalar.value {
        case 0x20...0x7E, 0xA0...0x2FF, 0x2010...0x2027: plain += 1
        case 0xAC00...0xD7A3, 0x4E00...0x9FFF: plain += 2
        default: return characterWidth(text)
        }
    }
    return plain
}

/// `displayWidth` of text that may hold escapes, marks, joiners or emoji: by characters.
private func characterWidth(_ text: String) -> Int {
    // The escapes out first, scalar by scalar: a mark after an escape's `m` would join it into one character.
    var visible = String.UnicodeScalarView()
    var inEscape = false
    for scalar in text.unicodeScalars {
        if inEscape {
            if scalar == "m" { inEscape = false }
        } else if scalar == "\u{1B}" {
            inEscape = true
        } else {
            visible.append(scalar)
        }
    }
    return String(visible).reduce(0) { $0 + columns(of: $1) }
}

/// The columns one character takes (`displayWidth`).
private func columns(of character: Character) -> Int {
    let scalars = character.unicodeScalars
    guard let first = scalars.first else { return 0 }
    // An emoji drawn as a picture: one of emoji presentation unless asked for as text (U+FE0E), or any emoji
    // asked for as a picture (U+FE0F) or given a skin tone (☝🏽).
    let asText = scalars.contains("\u{FE0E}")
    let asPicture =
        first.properties.isEmoji
        && (scalars.contains("\u{FE0F}") || scalars.dropFirst().contains { $0.properties.isEmojiModifier })
    if !asText, first.properties.isEmojiPresentation || asPicture { return 2 }
    switch first.value {
    case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
        0x20000...0x3FFFD:
        return 2
    case 0x200B...0x200F, 0x2060...0x2064, 0xFEFF:
        return 0
    default:
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: return 1
        }
    }
}

/// `text` padded with spaces to `width` columns, on the right (left-aligned) or left. A text as wide
/// as its column or wider keeps one space on its padded side, so columns never run together
/// (an intake of 1,656,000.0 µg beside 828,000.0 read `1656000.0828000.0`).
func pad(_ text: String, _ width: Int, alignRight: Bool = false) -> String {
    let textWidth = displayWidth(text)
    let padding = String(repeating: " ", count: textWidth >= width ? 1 : width - textWidth)
    return alignRight ? padding + text : text + padding
}

/// `text` padded to `width` exactly, nothing added when it is as wide: for columns whose width is
/// their widest cell's, separated by the caller.
func padExactly(_ text: String, _ width: Int, alignRight: Bool = false) -> String {
    let padding = String(repeating: " ", count: max(0, width - displayWidth(text)))
    return alignRight ? padding + text : text + padding
}

/// A number with a fixed number of decimals, or `–` when unknown.
func formatted(_ value: Double?, decimals: Int = 1) -> String {
    guard let value else { return "–" }
    return fixedDecimals(value, decimals)
}

/// A concentration as AirKorea prints it: whole µg/m³ when whole.
func formattedConcentration(_ value: Double?) -> String {
    guard let value else { return "–" }
    return Int(exactly: value).map(String.init) ?? fixedDecimals(value, 1)
}

/// `보통 moderate`, or `–`.
func gradeName(_ grade: DustGrade?) -> String {
    guard let grade else { return "–" }
    return "\(grade.koreanName) \(grade.englishName)"
}

/// `HH:mm` of an instant in the calendar's zone.
func clockTime(_ instant: Date, _ calendar: DayCalendar) -> String {
    let iso = calendar.iso8601(instant)
    let time = iso[iso.index(iso.startIndex, offsetBy: 11)...].prefix(5)
    return String(time)
}

/// `23:00–24:00`: a slot in local time, an hour ending at midnight written as AirKorea writes it.
func slotLabel(_ slot: Slot, _ calendar: DayCalendar) -> String {
    let end =
        calendar.date(containing: slot.end) != calendar.date(containing: slot.start) && clockTime(slot.end, calendar) == "00:00"
        ? "24:00" : clockTime(slot.end, calendar)
    return "\(clockTime(slot.start, calendar))–\(end)"
}

/// Mon, Tue, …
func weekdayName(_ date: LocalDate) -> String {
    ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][date.isoWeekday - 1]
}

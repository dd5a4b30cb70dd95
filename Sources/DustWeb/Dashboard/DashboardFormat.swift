import DustKit
import DustReports
import Foundation

/// Numbers and times as the dashboard writes them: `.` decimals whatever the host's locale, at most
/// one decimal for people, and the exact JSON number for machines.
enum DashboardFormat {
    /// A concentration as AirKorea prints it: whole when whole, else one decimal; `–` when unknown.
    static func concentration(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "–" }
        let tenths = (value * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? whole(value) : oneDecimal(value)
    }

    /// A mean concentration, always with one decimal (as `dustctl` prints means); `–` when unknown.
    static func mean(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "–" }
        return oneDecimal(value)
    }

    /// An intake: one decimal in µg, whole points (the boostcamp formula only makes whole points).
    static func intake(_ value: Double?, _ unit: IntakeUnit) -> String {
        guard let value, value.isFinite else { return "–" }
        switch unit {
        case .micrograms: return oneDecimal(value)
        case .points: return whole(value)
        }
    }

    /// `12.3`: rounded half away from zero to one decimal.
    static func oneDecimal(_ value: Double) -> String {
        guard value.isFinite else { return "–" }
        let tenths = Int64((abs(value) * 10).rounded())
        let sign = value < 0 && tenths != 0 ? "-" : ""
        return "\(sign)\(tenths / 10).\(tenths % 10)"
    }

    /// `12`: rounded half away from zero.
    static func whole(_ value: Double) -> String {
        guard value.isFinite else { return "–" }
        let rounded = Int64(abs(value).rounded())
        return (value < 0 && rounded != 0 ? "-" : "") + String(rounded)
    }

    /// A person's name as a query value: ASCII letters, digits, `-`, `_`, `.` and `~` as they are, every
    /// other byte of its UTF-8 percent-encoded (`민지` is `%EB%AF%BC%EC%A7%80`).
    static func queryValue(_ text: String) -> String {
        let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~")
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// The number exactly as `dustctl … --json` prints it (`null` when unknown), for `data-` attributes.
    static func json(_ value: Double?) -> String {
        JSON.number(value).serialized
    }

    /// A number FineDust computed (an intake, a mean) exactly as `dustctl … --json` prints it: at most 3 decimals.
    static func measuredJSON(_ value: Double?) -> String {
        JSON.measured(value).serialized
    }

    static func json(_ value: Int) -> String {
        JSON.integer(value).serialized
    }

    static func json(_ value: Bool?) -> String {
        value.map { $0 ? "true" : "false" } ?? "null"
    }

    /// `HH:mm` of an instant in the calendar's zone.
    static func clockTime(_ instant: Date, _ calendar: DayCalendar) -> String {
        let iso = calendar.iso8601(instant)
        return String(iso.dropFirst(11).prefix(5))
    }

    /// `13:05` when `instant` falls on the same local day as `now`, else `2026-11-19 13:05`.
    static func moment(_ instant: Date, now: Date, _ calendar: DayCalendar) -> String {
        let date = calendar.date(containing: instant)
        let time = clockTime(instant, calendar)
        return date == calendar.date(containing: now) ? time : "\(date) \(time)"
    }

    /// `23:00–24:00`: a slot in local time, an hour ending at midnight written as AirKorea writes it.
    static func slotRange(_ slot: Slot, _ calendar: DayCalendar) -> String {
        let endsAtMidnight =
            calendar.date(containing: slot.end) != calendar.date(containing: slot.start)
            && clockTime(slot.end, calendar) == "00:00"
        return "\(clockTime(slot.start, calendar))–\(endsAtMidnight ? "24:00" : clockTime(slot.end, calendar))"
    }

    /// `−05:00`: the UTC offset in force at the start of a slot, to tell apart the two 01:00s of a day
    /// that falls back.
    static func offset(_ slot: Slot, _ calendar: DayCalendar) -> String {
        String(calendar.iso8601(slot.start).suffix(6))
    }
}

import DustKit
import DustServices

/// The JSON documents of docs/REFERENCE.md §6. Unknown values are `null`; numbers are not rounded.
public enum ReportJSON {
    /// - Parameter forecastTomorrow: for `today` only, the `forecastTomorrow` member (docs/REFERENCE.md §14),
    ///   appended after the others; nil leaves the document as `day` prints it.
    /// - Parameter advisory: for `today` (issue 21, after every earlier key): the advisory in force for the user
    ///   (`todayAdvisory`); nil for `day`, whose document has none.
    public static func day(
        _ report: DayReport, calendar: DayCalendar, includeHourly: Bool = true, forecastTomorrow: JSON? = nil, advisory: JSON? = nil
    ) -> JSON {
        var members: [(String, JSON)] = [
            ("date", .string(report.date.description)),
            ("timezone", .string(calendar.timeZone.identifier)),
            ("station", .string(report.station)),
        ]
        members += totals(report.totals, includeWHO: true)
        if includeHourly {
            members.append(("hourly", .array(report.hourly.map { hour($0, primary: report.station, calendar: calendar) })))
            // Added by issue 12, after every earlier key: which hours had walking, and from which source.
            members.append(("walking", .array(report.walking.map { walking($0, calendar: calendar) })))
        }
        if let forecastTomorrow { members.append(("forecastTomorrow", forecastTomorrow)) }
        if let advisory { members.append(("advisory", advisory)) }
        return .object(members)
    }

    public static func week(_ report: WeekReport, station: String, calendar: DayCalendar) -> JSON {
        var members: [(String, JSON)] = []
        if let isoWeek = report.isoWeek { members.append(("week", .string(isoWeek.description))) }
        members += [
            ("end", .string(report.end.description)),
            ("start", .string(report.start.description)),
            ("timezone", .string(calendar.timeZone.identifier)),
            ("station", .string(station)),
            ("days", .array(report.days.map { day($0, calendar: calendar, includeHourly: false) })),
            ("total", .object(totals(report.totals, includeWHO: false))),
        ]
        return .object(members)
    }

    /// `dustctl hourly`: the stored hours of a day.
    public static func hourly(_ report: DayReport, calendar: DayCalendar) -> JSON {
        .object([
            ("date", .string(report.date.description)),
            ("timezone", .string(calendar.timeZone.identifier)),
            ("station", .string(report.station)),
            ("hourly", .array(report.hourly.map { hour($0, primary: report.station, calendar: calendar) })),
        ])
    }

    public static func hour(_ hour: HourlyExposure, primary: String, calendar: DayCalendar) -> JSON {
        .object([
            ("start", .string(calendar.iso8601(hour.slot.start))),
            ("station", .string(displayStation(hour, primary: primary))),
            ("pm10", .number(hour.concentration.fineDust)),
            ("pm25", .number(hour.concentration.ultraFineDust)),
            ("flags", .pair(hour.flag) { $0.map(JSON.string) ?? .null }),
            ("sources", .pair(hour.source) { $0.map(JSON.string) ?? .null }),
            ("intake", .pair(hour.intake) { JSON.number($0) }),
        ])
    }

    /// One hour's merged walking distance and the source that gave it (docs/REFERENCE.md §12).
    public static func walking(_ hour: WalkingHour, calendar: DayCalendar) -> JSON {
        .object([
            ("start", .string(calendar.iso8601(hour.slot.start))),
            ("distance_m", .number(hour.metres)),
            ("source", .string(hour.source)),
        ])
    }

    private static func totals(_ totals: ExposureTotals, includeWHO: Bool) -> [(String, JSON)] {
        var members: [(String, JSON)] = [
            ("hours", .pair(totals.hours) { JSON.integer($0) }),
            ("mean", .pair(totals.mean) { JSON.number($0) }),
            ("max", .pair(totals.max) { JSON.number($0) }),
            ("intake", .pair(totals.intake) { JSON.number($0) }),
            ("grade", .pair(totals.grade) { $0.map { JSON.integer($0.rawValue) } ?? .null }),
        ]
        if includeWHO {
            members.append(("whoExceeded", .pair(totals.whoExceeded) { $0.map(JSON.bool) ?? .null }))
        }
        return members
    }
}

/// The station a row is attributed to: the primary when it supplied a value (or nobody did),
/// otherwise the fallback that did.
public func displayStation(_ hour: HourlyExposure, primary: String) -> String {
    let sources = [hour.source.fineDust, hour.source.ultraFineDust].compactMap { $0 }
    if sources.isEmpty || sources.contains(primary) { return primary }
    return sources[0]
}

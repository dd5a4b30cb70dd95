import DustKit
import DustServices

/// The JSON documents of docs/REFERENCE.md §6. Unknown values are `null`; what FineDust computed is
/// rounded to at most 3 decimals (`JSON.measured`), what was stored keeps its digits.
public enum ReportJSON {
    /// - Parameter forecastTomorrow: for `today` only, the `forecastTomorrow` member (docs/REFERENCE.md §14),
    ///   appended after the others; nil leaves the document as `day` prints it.
    /// - Parameter advisory: for `today` (issue 21, after every earlier key): the advisory in force for the user
    ///   (`todayAdvisory`); nil for `day`, whose document has none.
    public static func day(
        _ report: DayReport, calendar: DayCalendar, includeHourly: Bool = true, forecastTomorrow: JSON? = nil, advisory: JSON? = nil,
        latest: JSON? = nil
    ) -> JSON {
        var members: [(String, JSON)] = [
            ("date", .string(report.date.description)),
            ("timezone", .string(calendar.timeZone.identifier)),
            ("station", .string(report.station)),
        ]
        members += totals(report.totals, includeWHO: true)
        if includeHourly {
            members.append(
                ("hourly", .array(report.hourly.map { hour($0, primary: report.station, calendar: calendar, includeBreathing: true) })))
            // Added by issue 12, after every earlier key: which hours had walking, and from which source.
            members.append(("walking", .array(report.walking.map { walking($0, calendar: calendar) })))
        }
        if let forecastTomorrow { members.append(("forecastTomorrow", forecastTomorrow)) }
        // Added by issue 21, last: the gases and the index (docs/REFERENCE.md §17); a week's days leave them out.
        if includeHourly { members.append(("gases", gases(report, calendar: calendar))) }
        if let advisory { members.append(("advisory", advisory)) }
        // Added by issue 37, last, for `today` only: the newest stored hour whatever its day.
        if let latest { members.append(("latest", latest)) }
        // Added by issue 39, last, for a person with indoor sensors only (docs/REFERENCE.md §21).
        if let indoor = report.indoor { members.append(("indoor", indoorDay(indoor))) }
        return .object(members)
    }

    /// `latest` of a today document (docs/REFERENCE.md §6): the newest stored hour of the home
    /// station whatever its day, so a today view is never blank between midnight and the day's
    /// first hour; `null` when none is stored.
    public static func latest(_ reading: HourlyReading?, calendar: DayCalendar) -> JSON {
        guard let reading else { return .null }
        let date = calendar.date(containing: reading.slot.start)
        return .object([
            ("start", .string(calendar.iso8601(reading.slot.start))),
            ("end", .string(calendar.iso8601(reading.slot.end))),
            ("station", .string(reading.station)),
            ("pm10", .number(reading.concentration.fineDust)),
            ("pm25", .number(reading.concentration.ultraFineDust)),
            (
                "grade",
                .object([
                    (
                        "pm10",
                        reading.concentration.fineDust.map { .integer(DustGrade(concentration: $0, of: .pm10, on: date).rawValue) } ?? .null
                    ),
                    (
                        "pm25",
                        reading.concentration.ultraFineDust.map { .integer(DustGrade(concentration: $0, of: .pm25, on: date).rawValue) }
                            ?? .null
                    ),
                ])
            ),
        ])
    }

    /// `document` (an object) with `person` as its first member: one entry of `--everyone`'s array
    /// (docs/REFERENCE.md §18).
    public static func naming(_ person: String, _ document: JSON) -> JSON {
        guard case .object(let members) = document else { return document }
        return .object([("person", .string(person))] + members)
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
            ("gases", .object([("hourly", .array(report.hourly.map { gasHour($0, calendar: calendar) }))])),
        ])
    }

    /// `gases` of a day: the latest hour with a gas value or index (or `null`), the day's totals per
    /// gas and of the index, and every stored hour's gases (docs/REFERENCE.md §17).
    public static func gases(_ report: DayReport, calendar: DayCalendar) -> JSON {
        let totals = report.gasTotals
        var totalMembers: [(String, JSON)] = Gas.allCases.map { gas in
            let total = totals.gases[gas]
            return (
                gas.rawValue,
                .object([
                    ("hours", .integer(total.hours)), ("mean", .measured(total.mean)), ("max", .number(total.max)),
                    ("grade", grade(total.maxGrade)),
                ])
            )
        }
        totalMembers.append(
            (
                "cai",
                .object([
                    ("hours", .integer(totals.cai.hours)), ("mean", .measured(totals.cai.mean)),
                    ("max", .number(totals.cai.max.map(Double.init))), ("grade", grade(totals.cai.maxGrade)),
                ])
            ))
        return .object([
            ("latest", report.latestGases.map { gasHour($0, calendar: calendar) } ?? .null),
            ("totals", .object(totalMembers)),
            ("hourly", .array(report.hourly.map { gasHour($0, calendar: calendar) })),
        ])
    }

    /// One hour's gases: ppm per gas, each one's CAI grade and flag, and AirKorea's index with its grade.
    public static func gasHour(_ hour: HourlyExposure, calendar: DayCalendar) -> JSON {
        let gases = hour.gases
        let grades = gases.grade
        var members: [(String, JSON)] = [("start", .string(calendar.iso8601(hour.slot.start)))]
        members += Gas.allCases.map { ($0.rawValue, JSON.number(gases.ppm[$0])) }
        members += [
            ("grade", .object(Gas.allCases.map { ($0.rawValue, grade(grades[$0])) })),
            ("flags", .object(Gas.allCases.map { ($0.rawValue, gases.flag[$0].map(JSON.string) ?? .null) })),
            ("cai", .number(gases.cai.map(Double.init))),
            ("caiGrade", grade(gases.caiGrade)),
        ]
        return .object(members)
    }

    private static func grade(_ grade: DustGrade?) -> JSON {
        grade.map { JSON.integer($0.rawValue) } ?? .null
    }

    /// - Parameter includeBreathing: for a day's document (issue 22, last): `ventilation`, the m³/h
    ///   the intake used, and `levelSource` (docs/REFERENCE.md §18); both `null` for a model that does
    ///   not breathe. `hourly`'s document leaves them out.
    public static func hour(_ hour: HourlyExposure, primary: String, calendar: DayCalendar, includeBreathing: Bool = false) -> JSON {
        var members: [(String, JSON)] = [
            ("start", .string(calendar.iso8601(hour.slot.start))),
            ("station", .string(displayStation(hour, primary: primary))),
            ("pm10", .number(hour.concentration.fineDust)),
            ("pm25", .number(hour.concentration.ultraFineDust)),
            ("flags", .pair(hour.flag) { $0.map(JSON.string) ?? .null }),
            ("sources", .pair(hour.source) { $0.map(JSON.string) ?? .null }),
            ("intake", .pair(hour.intake) { JSON.measured($0) }),
        ]
        if includeBreathing {
            members.append(("ventilation", .measured(hour.breathing?.ventilation)))
            members.append(("levelSource", hour.breathing.map { JSON.string($0.levelSource.rawValue) } ?? .null))
            // Only where location follows the person (docs/REFERENCE.md §19); absent, every hour is the home station's.
            if let place = hour.place { members.append(("where", Self.place(place))) }
            // Only for a person with indoor sensors (docs/REFERENCE.md §21); absent, indoors is §4's estimate.
            if let indoor = hour.indoor {
                members.append(("indoor", Self.indoor(indoor)))
                members.append(("indoorSource", .string(indoor.source.rawValue)))
            }
        }
        return .object(members)
    }

    /// `{"pm25":8.2,"pm10":14.5,"minutes":60,"sensors":["living-room"],"atHome":true}`; the values
    /// `null` where fewer than 30 minutes were covered, every member but `atHome` so with no sample.
    public static func indoor(_ indoor: IndoorHour) -> JSON {
        .object([
            ("pm25", .measured(indoor.measured?.value.ultraFineDust)),
            ("pm10", .measured(indoor.measured?.value.fineDust)),
            ("minutes", .number(Double(indoor.measured?.minutesCovered ?? 0))),
            ("sensors", .array((indoor.measured?.sensors ?? []).map(JSON.string))),
            ("atHome", .bool(indoor.atHome)),
        ])
    }

    /// A day's `indoor`: the measured indoor/outdoor ratio beside `F`, and what the sensors changed.
    public static func indoorDay(_ summary: IndoorDaySummary) -> JSON {
        .object([
            ("ratio", .pair(summary.ratio) { JSON.measured($0) }),
            ("infiltration", .measured(summary.infiltration)),
            ("sensorHours", .number(Double(summary.sensorHours))),
            ("intakeChange", .pair(summary.intakeChange) { JSON.measured($0) }),
        ])
    }

    /// `{"kind":"track","trackedFraction":0.5,"stations":{"pm10":[{"station":"중구","km":1.431,"distanceKm":1.431},…],"pm25":[…]},"fallback":null}`.
    public static func place(_ place: SlotPlaceSummary) -> JSON {
        .object([
            ("kind", .string(place.kind.rawValue)),
            ("trackedFraction", .measured(place.trackedFraction)),
            (
                "stations",
                .pair(place.stations) { used in
                    .array(
                        used.map {
                            // `km` is deprecated (one key style: camelCase): kept this release, removed in the next.
                            .object([
                                ("station", .string($0.station)), ("km", .measured($0.kilometres)),
                                ("distanceKm", .measured($0.kilometres)),
                            ])
                        })
                }
            ),
            ("fallback", place.fallback.map { JSON.string($0.rawValue) } ?? .null),
        ])
    }

    /// One hour's merged walking distance and the source that gave it (docs/REFERENCE.md §12).
    public static func walking(_ hour: WalkingHour, calendar: DayCalendar) -> JSON {
        .object([
            ("start", .string(calendar.iso8601(hour.slot.start))),
            ("distance_m", .measured(hour.metres)),
            ("source", .string(hour.source)),
            // One key style (issue 37): `distance_m` is deprecated, kept this release, removed in the next.
            ("distanceMetres", .measured(hour.metres)),
        ])
    }

    private static func totals(_ totals: ExposureTotals, includeWHO: Bool) -> [(String, JSON)] {
        var members: [(String, JSON)] = [
            ("hours", .pair(totals.hours) { JSON.integer($0) }),
            ("mean", .pair(totals.mean) { JSON.measured($0) }),
            ("max", .pair(totals.max) { JSON.number($0) }),
            ("intake", .pair(totals.intake) { JSON.measured($0) }),
            ("grade", .pair(totals.grade) { $0.map { JSON.integer($0.rawValue) } ?? .null }),
        ]
        if includeWHO {
            members.append(("whoExceeded", .pair(totals.whoExceeded) { $0.map(JSON.bool) ?? .null }))
        }
        return members
    }
}

/// The stations other than the home one that gave an hour's values (docs/REFERENCE.md §5's fallbacks), for
/// a note beside the hour: one station that gave every known value is named alone (`only` nil); otherwise
/// each value another station gave is named with its pollutant (`PM10 from 중구`), so a row whose PM2.5 is
/// the home station's does not read as all 중구's, nor as all the home's. Empty when the home gave all.
public func fallbackSources(_ hour: HourlyExposure, primary: String) -> [(station: String, only: Pollutant?)] {
    let known = Pollutant.allCases.filter { hour.source[$0] != nil }
    let borrowed = known.compactMap { pollutant in hour.source[pollutant].flatMap { $0 == primary ? nil : (pollutant, $0) } }
    if let first = borrowed.first, borrowed.count == known.count, borrowed.allSatisfy({ $0.1 == first.1 }) {
        return [(first.1, nil)]
    }
    return borrowed.map { ($0.1, $0.0) }
}

/// The station a row is attributed to: the primary when it supplied a value (or nobody did),
/// otherwise the fallback that did.
public func displayStation(_ hour: HourlyExposure, primary: String) -> String {
    let sources = [hour.source.fineDust, hour.source.ultraFineDust].compactMap { $0 }
    if sources.isEmpty || sources.contains(primary) { return primary }
    return sources[0]
}

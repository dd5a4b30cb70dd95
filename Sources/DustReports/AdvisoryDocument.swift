import DustKit
import DustServices
import Foundation

extension ReportJSON {
    /// `dustctl advisories --json` and `/api/v1/advisories` (docs/REFERENCE.md §17): the user's region, the
    /// advisories in force (those concerning the user first), then the year's.
    public static func advisories(_ listing: AdvisoryListing, calendar: DayCalendar, now: Date) -> JSON {
        .object([
            (
                "region",
                listing.region.map { region in
                    .object([("district", .string(region.district)), ("area", region.area.map(JSON.string) ?? .null)])
                } ?? .null
            ),
            ("year", .integer(listing.year)),
            ("active", .array(listing.active.map { advisory($0, region: listing.region, calendar: calendar, now: now) })),
            ("advisories", .array(listing.issued.map { advisory($0, region: listing.region, calendar: calendar, now: now) })),
        ])
    }

    /// The member `today`'s document gains (`advisory`): the most serious advisory in force that concerns the
    /// user, or `null` when there is none or the district is not known.
    public static func todayAdvisory(_ listing: AdvisoryListing?, calendar: DayCalendar, now: Date) -> JSON {
        guard let listing, let first = listing.concerning.first else { return .null }
        return advisory(first, region: listing.region, calendar: calendar, now: now)
    }

    /// One advisory: its level by fixed name, Korean word and rank (null when the word is unknown),
    /// its times and values (null when unknown), whether it is in force and concerns the user.
    public static func advisory(_ advisory: Advisory, region: AdvisoryRegion?, calendar: DayCalendar, now: Date) -> JSON {
        .object([
            ("pollutant", .string(advisory.pollutant.rawValue)),
            ("key", .string(advisory.key)),
            ("district", .string(advisory.district)),
            ("area", advisory.area.map(JSON.string) ?? .null),
            ("level", .string(advisory.level.name)),
            ("levelWord", .string(advisory.level.word)),
            ("levelRank", advisory.level.rank.map { JSON.integer($0) } ?? .null),
            ("issuedAt", .string(calendar.iso8601(advisory.issuedAt))),
            ("clearedAt", advisory.clearedAt.map { .string(calendar.iso8601($0)) } ?? .null),
            ("unit", .string(AdvisoryWording.unit(advisory.pollutant))),
            ("issueValue", .number(advisory.issueValue)),
            ("clearValue", .number(advisory.clearValue)),
            ("maxValue", .number(advisory.maxValue)),
            ("active", .bool(advisory.isActive(at: now))),
            ("concernsYou", .bool(region.map(advisory.concerns) ?? false)),
        ])
    }
}

/// How an advisory is named in one line: `today`'s top line, the dashboard's banner, `dustctl advisories`.
public enum AdvisoryWording {
    /// `미세먼지 경보 (PM10 warning) · 서울 도심권 · since 2026-11-20 13:00 · 312 µg/m³`; texts made terminal-safe.
    public static func headline(_ advisory: Advisory, calendar: DayCalendar) -> String {
        let level = advisory.level.rank == nil ? "level unknown" : advisory.level.name
        let place = [advisory.district, advisory.area].compactMap { $0 }.joined(separator: " ")
        var parts = [
            "\(advisory.pollutant.koreanName) \(advisory.level.word) (\(advisory.pollutant.displayName) \(level))", place,
            "since \(clock(advisory.issuedAt, calendar))",
        ]
        if let cleared = advisory.clearedAt { parts.append("until \(clock(cleared, calendar))") }
        if let value = advisory.issueValue { parts.append("\(number(value)) \(unit(advisory.pollutant))") }
        return TerminalSafeText.sanitized(parts.joined(separator: " · "))
    }

    /// The headline of a Korean page, all in Korean: `미세먼지 경보 · 서울 도심권 · 2026-11-20 13:00부터 · 312 µg/m³`.
    public static func koreanHeadline(_ advisory: Advisory, calendar: DayCalendar) -> String {
        let place = [advisory.district, advisory.area].compactMap { $0 }.joined(separator: " ")
        var parts = [
            "\(advisory.pollutant.koreanName) \(koreanLevel(advisory.level))", place,
            "\(clock(advisory.issuedAt, calendar))부터",
        ]
        if let cleared = advisory.clearedAt { parts.append("\(clock(cleared, calendar))까지") }
        if let value = advisory.issueValue { parts.append("\(number(value)) \(unit(advisory.pollutant))") }
        return TerminalSafeText.sanitized(parts.filter { !$0.isEmpty }.joined(separator: " · "))
    }

    /// The level's word; one of no known rank keeps AirKorea's word (`특별경보(단계 미상)`), as the English headline does.
    static func koreanLevel(_ level: AdvisoryLevel) -> String {
        guard level.rank == nil else { return level.word }
        return ["?", ServerVocabulary.unknownValue].contains(level.word) ? "단계 미상" : "\(level.word)(단계 미상)"
    }

    /// µg/m³ for dust, ppm for ozone.
    public static func unit(_ pollutant: AdvisoryPollutant) -> String {
        pollutant == .o3 ? "ppm" : "µg/m³"
    }

    /// `2026-11-20 13:00` in the calendar's zone.
    static func clock(_ instant: Date, _ calendar: DayCalendar) -> String {
        let iso = calendar.iso8601(instant)
        return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5))
    }

    /// A value as AirKorea wrote it: whole numbers without a fraction, ppm with its digits.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String(value)
    }
}

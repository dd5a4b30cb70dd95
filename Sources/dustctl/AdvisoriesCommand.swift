import ArgumentParser
import DustConfig
import DustKit
import DustReports
import DustServices
import Foundation

struct AdvisoriesCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "advisories",
            abstract: helpAbstract(
                "AirKorea의 공식 미세먼지(PM10)·초미세먼지(PM2.5)·오존 주의보/경보: 지금 발령 중인 것, 이어서 그해 발령된 것.",
                "AirKorea's official advisories (주의보/경보) for PM10, PM2.5 and ozone: those in force, then the year's."),
            discussion: helpText(
                """
                지역은 advisories.district가 설정되어 있으면 그것, 아니면 측정소의 시도이고,
                advisories.area가 있으면 한 권역으로 좁힙니다. 지금 발령 중이면서 해당되는
                것이 ▶ 표시와 함께 먼저 나옵니다. dustd는 수집한 뒤 한 시간에 한 번 묻습니다.
                서비스마다 data.go.kr에서 따로 활용신청이 필요합니다(승인되지 않은 것은
                dustctl status가 알려 줍니다). 저장된 것이 없으면 dustctl은 그렇다고 말하고
                0으로 끝납니다.
                예:
                  dustctl advisories
                  dustctl advisories --year 2025 --json
                """,
                """
                Your district is advisories.district when set, else the station's 시도;
                advisories.area narrows it to one 권역. Those in force that concern you
                come first, marked ▶. dustd asks once an hour after its poll; each
                service needs its own 활용신청 on data.go.kr (dustctl status says when
                one is not approved). With none stored, dustctl says so and exits 0.
                Examples:
                  dustctl advisories
                  dustctl advisories --year 2025 --json
                """))
    }

    @OptionGroup var options: GlobalOptions

    @Option(help: .localized("보일 해 (기본: 올해, 한국 시간).", "The year to list (default: this year, KST).", valueName: "YYYY"))
    var year: Int? = nil

    func validate() throws {
        // The years whose days FineDust keeps (`SupportedPeriod`), as every date and week argument.
        let years = SupportedPeriod.firstDate.year...SupportedPeriod.lastDate.year
        if let year, !years.contains(year) {
            throw ValidationError(
                korean: "--year는 \(years.lowerBound)부터 \(years.upperBound)까지의 해여야 합니다. \(year)은(는) 그 밖입니다.",
                english: "--year must be a year from \(years.lowerBound) to \(years.upperBound), not \(year).")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            try await withStore(settings, for: .read) { store in
                if settings.advisories.district == nil { try await options.checkStation(settings, store: store) }
                let now = try options.clock(settings).now
                let listing = try await advisoryListing(settings, store: store, year: year, now: now)
                if options.json {
                    try standardOutputLine(ReportJSON.advisories(listing, calendar: settings.calendar, now: now).serialized)
                } else {
                    try standardOutput(AdvisoryText(style: .forStandardOutput(), calendar: settings.calendar).listing(listing))
                }
            }
        }
    }
}

/// The listing for the configured district and 권역 (or the station's 시도).
func advisoryListing(
    _ settings: FineDustSettings, store: any FineDustStore, year: Int? = nil, now: Date
) async throws(StorageFailure)
    -> AdvisoryListing
{
    let reader = AdvisoryReader(store: store)
    let region = try await reader.region(
        district: settings.advisories.district, area: settings.advisories.area, station: settings.station.name)
    return try await reader.listing(region: region, year: year, now: now)
}

/// Advisories as text: the listing, and `today`'s top line.
struct AdvisoryText {
    let style: TextStyle
    let calendar: DayCalendar
    /// Korean under a Korean locale (docs/REFERENCE.md §6, "Text").
    var language: ReportLanguage = ReportLanguage.process

    func listing(_ listing: AdvisoryListing) -> String {
        let place =
            listing.region.map { "\($0.district) \($0.area ?? language.say("(모든 권역)", "(every 권역)"))" }
            ?? language.say(
                "시도 미상 (advisories.district를 설정하거나 dustctl stations sync를 실행하세요)",
                "district unknown (set advisories.district, or run dustctl stations sync)")
        var lines = [style.bold(language.say("주의보·경보", "Advisories") + " · \(place) · \(listing.year)")]
        lines.append(language.say("지금 발령 중", "In force now"))
        if listing.active.isEmpty { lines.append(language.say("  없음", "  none")) }
        let concerning = Set(listing.concerning.map { AdvisoryID($0) })
        for advisory in listing.active {
            lines.append((concerning.contains(AdvisoryID(advisory)) ? "▶ " : "  ") + line(advisory))
        }
        lines.append(language.say("\(listing.year)년 발령", "Issued in \(listing.year)"))
        if listing.issued.isEmpty {
            lines.append(
                language.say(
                    "  저장된 것 없음. advisories.enabled가 true인 동안 dustd가 한 시간에 한 번 묻습니다",
                    "  none stored; dustd asks once an hour while advisories.enabled is true"))
        }
        for advisory in listing.issued {
            lines.append("  " + line(advisory))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `today`'s first line when an advisory concerning the user is in force; nil otherwise.
    func topLine(_ listing: AdvisoryListing) -> String? {
        listing.concerning.first.map { "▶ " + line($0) }
    }

    private func line(_ advisory: Advisory) -> String {
        let grade: DustGrade? =
            switch advisory.level.rank {
            case nil: nil
            case 1: .bad
            default: .veryBad
            }
        let headline =
            language == .korean
            ? AdvisoryWording.koreanHeadline(advisory, calendar: calendar) : AdvisoryWording.headline(advisory, calendar: calendar)
        return style.graded(headline, grade)
    }
}

/// What identifies a stored advisory: its operation and key.
private struct AdvisoryID: Hashable {
    let pollutant: AdvisoryPollutant
    let key: String

    init(_ advisory: Advisory) {
        pollutant = advisory.pollutant
        key = advisory.key
    }
}

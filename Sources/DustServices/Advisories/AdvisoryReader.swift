import DustKit
import Foundation

/// The advisories as the user reads them (docs/REFERENCE.md §17): what `dustctl advisories`,
/// `/api/v1/advisories`, `today`'s top line, the dashboard's banner and `/metrics` show.
public struct AdvisoryListing: Sendable, Hashable {
    /// The user's district and 권역; nil when neither `advisories.district` nor the station's 시도 is known.
    public var region: AdvisoryRegion?
    /// The year listed (KST).
    public var year: Int
    /// In force now, every district: those concerning the user first (the most serious, then the
    /// newest), then the others, newest first.
    public var active: [Advisory]
    /// Issued in `year`, every district, newest first (the active ones among them).
    public var issued: [Advisory]

    public init(region: AdvisoryRegion?, year: Int, active: [Advisory], issued: [Advisory]) {
        self.region = region
        self.year = year
        self.active = active
        self.issued = issued
    }

    /// The active advisories that concern the user, the most serious first.
    public var concerning: [Advisory] {
        guard let region else { return [] }
        return active.filter { $0.concerns(region) }
    }
}

/// Reads the advisories and the user's region from the store.
public struct AdvisoryReader: Sendable {
    private let store: any AdvisoryStore & ForecastStore

    public init(store: any AdvisoryStore & ForecastStore) {
        self.store = store
    }

    /// The user's region: `district` (`advisories.district`) when set, else the station's 시도 as stored.
    public func region(district: String?, area: String?, station: String?) async throws(StorageFailure) -> AdvisoryRegion? {
        if let district { return AdvisoryRegion(district: district, area: area) }
        guard let station, let sido = try await store.stationLocation(name: station)?.sido, !sido.trimmingWhiteSpace.isEmpty else {
            return nil
        }
        return AdvisoryRegion(district: sido, area: area)
    }

    /// The advisories in force at `now` that concern `region`, the most serious first: what the
    /// alerts and `/metrics` read at every check, without the year's list.
    public func inForce(region: AdvisoryRegion, now: Date) async throws(StorageFailure) -> [Advisory] {
        Self.ordered(try await store.activeAdvisories(at: now), region: region).filter { $0.concerns(region) }
    }

    /// The advisories active at `now` and those issued in `year` (default: `now`'s KST year).
    public func listing(region: AdvisoryRegion?, year: Int? = nil, now: Date) async throws(StorageFailure) -> AdvisoryListing {
        let year = year ?? KoreaStandardTime.date(containing: now).year
        let start = KoreaStandardTime.instant(hour: 0, of: LocalDate(year: year, month: 1, day: 1))
        let end = KoreaStandardTime.instant(hour: 0, of: LocalDate(year: year + 1, month: 1, day: 1))
        let issued = try await store.advisories(from: start, to: end).filter { $0.issuedAt >= start }
        let active = Self.ordered(try await store.activeAdvisories(at: now), region: region)
        return AdvisoryListing(region: region, year: year, active: active, issued: issued)
    }

    /// Those concerning `region` first, the most serious (an unknown level last) then the newest; then the rest, newest first.
    static func ordered(_ advisories: [Advisory], region: AdvisoryRegion?) -> [Advisory] {
        advisories.enumerated().sorted { lhs, rhs in
            let (a, b) = (lhs.element, rhs.element)
            let (mineA, mineB) = (region.map(a.concerns) ?? false, region.map(b.concerns) ?? false)
            if mineA != mineB { return mineA }
            if mineA, a.level.rank != b.level.rank { return (a.level.rank ?? 0) > (b.level.rank ?? 0) }
            if a.issuedAt != b.issuedAt { return a.issuedAt > b.issuedAt }
            return lhs.offset < rhs.offset
        }.map(\.element)
    }
}

import DustKit
import Foundation

/// The level of the most serious advisory in force for the user's district, as the alerts see it (`advisory.level`).
public protocol AdvisoryLevelReader: Sendable {
    /// 0 none, 1 주의보, 2 경보, 3 중대경보; nil when the district is not known.
    func level(at now: Date) async throws(StorageFailure) -> Int?
}

/// The stored advisories for `advisories.district` (else the station's 시도) and `advisories.area`: an advisory
/// whose level word FineDust does not know counts as none, since its seriousness cannot be said.
public struct StoredAdvisoryLevel: AdvisoryLevelReader {
    private let reader: AdvisoryReader
    private let district: String?
    private let area: String?
    private let station: String?

    public init(reader: AdvisoryReader, district: String?, area: String?, station: String?) {
        self.reader = reader
        self.district = district
        self.area = area
        self.station = station
    }

    public func level(at now: Date) async throws(StorageFailure) -> Int? {
        guard let region = try await reader.region(district: district, area: area, station: station) else { return nil }
        return try await reader.inForce(region: region, now: now).compactMap(\.level.rank).max() ?? 0
    }
}

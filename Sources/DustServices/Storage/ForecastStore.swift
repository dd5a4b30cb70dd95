import DustKit
import Foundation

/// Where forecasts are kept and read back, with the requests that fetched them.
public protocol ForecastStore: AttemptStore {
    /// Stores every forecast of a response in one transaction; the same issue stored again
    /// changes nothing, a changed issue (AirKorea re-published it) replaces its text and grades.
    /// Returns how many (pollutant, issue, date) forecasts were new or changed.
    func saveForecasts(_ forecasts: [DustForecast], fetchedAt: Date) async throws(StorageFailure) -> Int
    /// The newest stored issue time of `pollutant` not after `notAfter` (what a planner asks with
    /// the time now: an issue dated ahead, from a server or a clock set back, is no fetch done).
    func newestForecastIssue(pollutant: Pollutant, notAfter: Date) async throws(StorageFailure) -> Date?
    /// The grade of `region` for `date` from the newest issue that graded that region for that date.
    func forecast(pollutant: Pollutant, date: LocalDate, region: ForecastRegion) async throws(StorageFailure) -> RegionalForecast?
    /// The province and address stored for a station; nil when it is not known at all.
    func stationLocation(name: String) async throws(StorageFailure) -> StationLocation?

    // The weekly outlook (docs/REFERENCE.md §17).
    /// Stores one weekly outlook publication; the same publication stored again changes nothing, a
    /// changed one (AirKorea re-published it) replaces it whole. Returns whether anything changed.
    func saveWeeklyOutlook(_ outlook: WeeklyOutlook, fetchedAt: Date) async throws(StorageFailure) -> Bool
    /// The newest stored publication of the weekly outlook: the one that replaces all before it.
    func newestWeeklyOutlook() async throws(StorageFailure) -> WeeklyOutlook?
    /// The publication of `publishedOn`, as stored (every publication is kept).
    func weeklyOutlook(publishedOn: LocalDate) async throws(StorageFailure) -> WeeklyOutlook?
}

/// Where a station is, as far as FineDust knows: what its forecast region is decided from.
public struct StationLocation: Sendable, Hashable {
    /// `sidoName` from measurements (`서울`, `경기`, …).
    public var sido: String?
    /// The address from the station list.
    public var address: String?

    public init(sido: String?, address: String?) {
        self.sido = sido
        self.address = address
    }
}

extension ForecastStore {
    /// The newest stored issue time of `pollutant`.
    public func newestForecastIssue(pollutant: Pollutant) async throws(StorageFailure) -> Date? {
        try await newestForecastIssue(pollutant: pollutant, notAfter: .distantFuture)
    }
}

import DustKit
import Foundation

/// Where forecasts are kept and read back, in the services' vocabulary.
public protocol ForecastStore: Sendable {
    /// Stores every forecast of a response in one transaction; the same issue stored again
    /// changes nothing. Returns how many issues were new or changed.
    func saveForecasts(_ forecasts: [DustForecast], fetchedAt: Date) throws(StorageFailure) -> Int
    /// The newest stored issue time of `pollutant`.
    func newestIssue(pollutant: Pollutant) throws(StorageFailure) -> Date?
    /// The grade of `region` for `date` from the newest issue that graded it.
    func forecast(pollutant: Pollutant, date: LocalDate, region: ForecastRegion) throws(StorageFailure) -> RegionalForecast?
    /// Forecast requests recorded since `start` (the quota count).
    func forecastCalls(since start: Date) throws(StorageFailure) -> Int
    /// Records one forecast request.
    func recordAttempt(_ attempt: PollAttempt) throws(StorageFailure)
    /// What is known of a station's place.
    func stationLocation(name: String) throws(StorageFailure) -> StationLocation?
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

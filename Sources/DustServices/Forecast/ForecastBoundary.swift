import AirKorea
import DustKit
import DustStore
import Foundation

/// Where forecasts come from. `AirKoreaClient` is the production source.
public protocol ForecastSource: Sendable {
    /// Fetches one page of forecasts (`AirKoreaRequest.forecast`).
    func forecasts(_ request: AirKoreaRequest) async throws(FetchError) -> ForecastPage
}

extension AirKoreaClient: ForecastSource {}

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

extension SQLiteStore: ForecastStore {
    public func saveForecasts(_ forecasts: [DustForecast], fetchedAt: Date) throws(StorageFailure) -> Int {
        do { return try upsertForecasts(forecasts, fetchedAt: fetchedAt) } catch { throw StorageFailure(error) }
    }

    public func newestIssue(pollutant: Pollutant) throws(StorageFailure) -> Date? {
        do { return try newestForecastIssue(pollutant: pollutant) } catch { throw StorageFailure(error) }
    }

    public func forecast(pollutant: Pollutant, date: LocalDate, region: ForecastRegion) throws(StorageFailure) -> RegionalForecast? {
        do { return try latestForecast(pollutant: pollutant, date: date, region: region) } catch { throw StorageFailure(error) }
    }

    public func forecastCalls(since start: Date) throws(StorageFailure) -> Int {
        do { return try attemptCount(operationPrefix: ForecastFetch.operationPrefix, since: start) } catch { throw StorageFailure(error) }
    }

    public func stationLocation(name: String) throws(StorageFailure) -> StationLocation? {
        do { return try location(ofStation: name) } catch { throw StorageFailure(error) }
    }
}

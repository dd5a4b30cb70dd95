import DustKit
import DustServices
import DustStore
import Foundation

/// A `ForecastStore` that counts every recorded forecast request in `RequestCounters` and passes everything on.
struct CountingForecastStore: ForecastStore {
    private let base: any ForecastStore
    private let counters: RequestCounters

    init(_ base: any ForecastStore, counters: RequestCounters) {
        self.base = base
        self.counters = counters
    }

    func saveForecasts(_ forecasts: [DustForecast], fetchedAt: Date) throws(StorageFailure) -> Int {
        try base.saveForecasts(forecasts, fetchedAt: fetchedAt)
    }

    func newestIssue(pollutant: Pollutant) throws(StorageFailure) -> Date? { try base.newestIssue(pollutant: pollutant) }

    func forecast(pollutant: Pollutant, date: LocalDate, region: ForecastRegion) throws(StorageFailure) -> RegionalForecast? {
        try base.forecast(pollutant: pollutant, date: date, region: region)
    }

    func forecastCalls(since start: Date) throws(StorageFailure) -> Int { try base.forecastCalls(since: start) }

    func recordAttempt(_ attempt: PollAttempt) throws(StorageFailure) {
        counters.countForecast(attempt)
        try base.recordAttempt(attempt)
    }

    func stationLocation(name: String) throws(StorageFailure) -> StationLocation? { try base.stationLocation(name: name) }
}

import DustKit
import DustServices
import Foundation

/// A `ForecastStore` that counts every recorded request in `RequestCounters` and passes everything on.
struct CountingForecastStore: ForecastStore {
    private let base: any ForecastStore
    private let counters: RequestCounters

    init(_ base: any ForecastStore, counters: RequestCounters) {
        self.base = base
        self.counters = counters
    }

    func saveForecasts(_ forecasts: [DustForecast], fetchedAt: Date) async throws(StorageFailure) -> Int {
        try await base.saveForecasts(forecasts, fetchedAt: fetchedAt)
    }

    func newestForecastIssue(pollutant: Pollutant, notAfter: Date) async throws(StorageFailure) -> Date? {
        try await base.newestForecastIssue(pollutant: pollutant, notAfter: notAfter)
    }

    func forecast(pollutant: Pollutant, date: LocalDate, region: ForecastRegion) async throws(StorageFailure) -> RegionalForecast? {
        try await base.forecast(pollutant: pollutant, date: date, region: region)
    }

    func stationLocation(name: String) async throws(StorageFailure) -> StationLocation? {
        try await base.stationLocation(name: name)
    }

    func saveWeeklyOutlook(_ outlook: WeeklyOutlook, fetchedAt: Date) async throws(StorageFailure) -> Bool {
        try await base.saveWeeklyOutlook(outlook, fetchedAt: fetchedAt)
    }

    func newestWeeklyOutlook() async throws(StorageFailure) -> WeeklyOutlook? {
        try await base.newestWeeklyOutlook()
    }

    func weeklyOutlook(publishedOn: LocalDate) async throws(StorageFailure) -> WeeklyOutlook? {
        try await base.weeklyOutlook(publishedOn: publishedOn)
    }

    func recordAttempt(_ attempt: PollAttempt) async throws(StorageFailure) {
        counters.count(attempt)
        try await base.recordAttempt(attempt)
    }

    func attemptCount(kind: AttemptKind, since start: Date, before end: Date) async throws(StorageFailure) -> Int {
        try await base.attemptCount(kind: kind, since: start, before: end)
    }
}

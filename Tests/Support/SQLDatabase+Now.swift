import DustKit
import DustSQL
import DustServices
import Foundation

// The stores' writes at the moment of the call, for tests that do not care when a row was written:
// the ports themselves take every time from their caller (the injected clock in the programs).
extension SQLDatabase {
    @discardableResult
    public func saveReadings(_ readings: [HourlyReading]) async throws(StorageFailure) -> UpsertSummary {
        try await saveReadings(readings, fetchedAt: Date())
    }

    @discardableResult
    public func saveAdvisories(_ advisories: [Advisory]) async throws(StorageFailure) -> Int {
        try await saveAdvisories(advisories, fetchedAt: Date())
    }

    @discardableResult
    public func saveForecasts(_ forecasts: [DustForecast]) async throws(StorageFailure) -> Int {
        try await saveForecasts(forecasts, fetchedAt: Date())
    }

    @discardableResult
    public func saveWeeklyOutlook(_ outlook: WeeklyOutlook) async throws(StorageFailure) -> Bool {
        try await saveWeeklyOutlook(outlook, fetchedAt: Date())
    }

    public func saveStations(_ stations: [Station]) async throws(StorageFailure) {
        try await saveStations(stations, at: Date())
    }

    public func saveActivity(_ batches: [ActivitySourceBatch]) async throws(StorageFailure) {
        try await saveActivity(batches, importedAt: Date())
    }

    public func saveImport(
        walking: [ActivitySourceBatch], body: [PhysiologyBatch], positions: [PositionBatch] = []
    ) async throws(StorageFailure) {
        try await saveImport(walking: walking, body: body, positions: positions, importedAt: Date())
    }

    public func setDaemonState(_ values: [String: String]) async throws(StorageFailure) {
        try await setDaemonState(values, at: Date())
    }
}

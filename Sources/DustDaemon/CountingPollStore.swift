import DustKit
import DustServices
import DustStore
import Foundation

/// A `PollStore` that counts every recorded request in `RequestCounters` and passes everything on.
struct CountingPollStore: PollStore {
    private let base: any PollStore
    private let counters: RequestCounters

    init(_ base: any PollStore, counters: RequestCounters) {
        self.base = base
        self.counters = counters
    }

    func saveReadings(_ readings: [HourlyReading], fetchedAt: Date) throws(StorageFailure) -> UpsertSummary {
        try base.saveReadings(readings, fetchedAt: fetchedAt)
    }

    func storedReadings(stations: [String], from: Slot, to: Slot) throws(StorageFailure) -> [HourlyReading] {
        try base.storedReadings(stations: stations, from: from, to: to)
    }

    func newestSlot(station: String, endingBy now: Date) throws(StorageFailure) -> Slot? {
        try base.newestSlot(station: station, endingBy: now)
    }

    func recordAttempt(_ attempt: PollAttempt) throws(StorageFailure) {
        counters.countPoll(attempt)
        try base.recordAttempt(attempt)
    }
}

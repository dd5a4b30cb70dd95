import DustKit
import DustServices
import Foundation

/// A `PollStore` that counts every recorded request in `RequestCounters` and passes everything on.
struct CountingPollStore: PollStore {
    private let base: any PollStore
    private let counters: RequestCounters

    init(_ base: any PollStore, counters: RequestCounters) {
        self.base = base
        self.counters = counters
    }

    func saveReadings(_ readings: [HourlyReading], fetchedAt: Date) async throws(StorageFailure) -> UpsertSummary {
        try await base.saveReadings(readings, fetchedAt: fetchedAt)
    }

    func readings(stations: [String], from: Slot, to: Slot) async throws(StorageFailure) -> [HourlyReading] {
        try await base.readings(stations: stations, from: from, to: to)
    }

    func newestSlot(station: String, endingBy now: Date) async throws(StorageFailure) -> Slot? {
        try await base.newestSlot(station: station, endingBy: now)
    }

    func newestSlots(station: String, endingBy now: Date) async throws(StorageFailure) -> NewestSlots {
        try await base.newestSlots(station: station, endingBy: now)
    }

    func readingCount(station: String?) async throws(StorageFailure) -> Int {
        try await base.readingCount(station: station)
    }

    func recordAttempt(_ attempt: PollAttempt) async throws(StorageFailure) {
        counters.count(attempt)
        try await base.recordAttempt(attempt)
    }

    func attemptCount(kind: AttemptKind, since start: Date, before end: Date) async throws(StorageFailure) -> Int {
        try await base.attemptCount(kind: kind, since: start, before: end)
    }
}

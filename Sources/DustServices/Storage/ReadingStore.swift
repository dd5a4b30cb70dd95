import DustKit
import Foundation

/// Where hourly readings are kept.
public protocol ReadingStore: Sendable {
    /// Stores readings in one transaction: new slots inserted, changed ones revised, a field a
    /// reading does not report left as it was.
    func saveReadings(_ readings: [HourlyReading], fetchedAt: Date) async throws(StorageFailure) -> UpsertSummary
    /// Readings of `stations` for slots starting in `[from, to)`, ordered by slot, then station.
    func readings(stations: [String], from: Slot, to: Slot) async throws(StorageFailure) -> [HourlyReading]
    /// The newest stored slot of `station` that ended by `now`; a future slot never counts (a
    /// server with a wrong clock must not make old data look fresh or stop a backfill).
    func newestSlot(station: String, endingBy now: Date) async throws(StorageFailure) -> Slot?
    /// How many station-hours are stored, in all (`station` nil) or for one station.
    func measurementCount(station: String?) async throws(StorageFailure) -> Int
}

/// How many readings an upsert added, revised, or found already stored unchanged.
public struct UpsertSummary: Sendable, Hashable {
    public var inserted = 0
    public var updated = 0
    public var unchanged = 0

    public init(inserted: Int = 0, updated: Int = 0, unchanged: Int = 0) {
        self.inserted = inserted
        self.updated = updated
        self.unchanged = unchanged
    }
}

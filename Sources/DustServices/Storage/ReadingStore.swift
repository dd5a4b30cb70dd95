import DustKit
import Foundation

/// Where hourly readings are kept.
public protocol ReadingStore: Sendable {
    /// Stores readings in one transaction: new slots inserted, changed ones revised, a field a
    /// reading does not report left as it was.
    func saveReadings(_ readings: [HourlyReading], fetchedAt: Date) async throws(StorageFailure) -> UpsertSummary
    /// Readings of `stations` for slots starting in `[from, to)`, ordered by slot, then station.
    func readings(stations: [String], from: Slot, to: Slot) async throws(StorageFailure) -> [HourlyReading]
    /// PM10 and PM2.5 alone of `stations` (distinct names) for slots starting in `[from, to)`, ordered
    /// by slot, then station name; each row names its station by its index in `stations`. What the
    /// weighting reads of the stations near a person (docs/REFERENCE.md §19), a month at a time.
    func dustValues(stations: [String], from: Slot, to: Slot) async throws(StorageFailure) -> [StationDust]
    /// The newest stored slot of `station` that ended by `now`; a future slot never counts (a
    /// server with a wrong clock must not make old data look fresh or stop a backfill).
    func newestSlot(station: String, endingBy now: Date) async throws(StorageFailure) -> Slot?
    /// The newest stored slot of `station` whatever the clock says, and the newest that ended by
    /// `now`, read together: what the clock-behind check compares (`DaemonHealth.read`).
    func newestSlots(station: String, endingBy now: Date) async throws(StorageFailure) -> NewestSlots
    /// How many station-hours are stored, in all (`station` nil) or for one station.
    func readingCount(station: String?) async throws(StorageFailure) -> Int
}

/// A station's newest stored slot, and its newest that ended by a given time (the same slot when none
/// ends after that time).
public struct NewestSlots: Sendable, Hashable {
    public var stored: Slot?
    public var endedByNow: Slot?

    public init(stored: Slot?, endedByNow: Slot?) {
        self.stored = stored
        self.endedByNow = endedByNow
    }
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

/// One station's PM10 and PM2.5 in one slot, the station given by its index in the list asked for.
public struct StationDust: Sendable, Hashable {
    public var slot: Slot
    /// The index of the station in the `stations` of `ReadingStore.dustValues`.
    public var station: Int
    public var concentration: DustPair<Double?>

    public init(slot: Slot, station: Int, concentration: DustPair<Double?>) {
        self.slot = slot
        self.station = station
        self.concentration = concentration
    }
}

extension ReadingStore {
    /// `dustValues` from the whole readings, for a store without a leaner query.
    public func dustValues(stations: [String], from: Slot, to: Slot) async throws(StorageFailure) -> [StationDust] {
        let indexByName = Dictionary(stations.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        return try await readings(stations: stations, from: from, to: to).compactMap { reading in
            indexByName[reading.station].map { StationDust(slot: reading.slot, station: $0, concentration: reading.concentration) }
        }
    }
}

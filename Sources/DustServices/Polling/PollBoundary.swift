import AirKorea
import DustKit
import DustStore
import Foundation

/// Where hourly readings are kept.
public protocol ReadingStore: Sendable {
    /// Stores readings in one transaction: new slots inserted, changed ones revised, a field a
    /// reading does not report left as it was.
    func saveReadings(_ readings: [HourlyReading], fetchedAt: Date) throws(StorageFailure) -> UpsertSummary
    /// Readings of `stations` for slots in `[from, to)`, ordered by slot.
    func storedReadings(stations: [String], from: Slot, to: Slot) throws(StorageFailure) -> [HourlyReading]
}

/// Where imported walking distances are read from.
public protocol ActivitySource: Sendable {
    /// Metres walked per slot, for slots starting in `[from, to)`.
    func walkedDistances(from: Slot, to: Slot) throws(StorageFailure) -> [Slot: Double]
    /// Per slot starting in `[from, to)`: the largest of its sources' distances and that source.
    func mergedWalking(from: Slot, to: Slot) throws(StorageFailure) -> [Slot: SlotWalking]
}

/// Where imported walking distances are written.
public protocol ActivityStore: ActivitySource {
    /// Replaces the distances of the given slots in one transaction.
    func saveWalkedDistances(_ distances: [Slot: Double], importedAt: Date) throws(StorageFailure)
    /// Stores every source of one imported file in one transaction (all or nothing).
    func saveActivity(_ batches: [ActivitySourceBatch], importedAt: Date) throws(StorageFailure)
    /// What is stored, per source, ordered by source name.
    func storedActivitySources() throws(StorageFailure) -> [ActivitySourceSummary]
    /// Removes every distance of `source`; returns the slots removed (0: no such source).
    func forgetActivity(source: String) throws(StorageFailure) -> Int
}

/// What a poll cycle reads and writes besides the readings: the newest slot per station, and a
/// record of every request.
public protocol PollStore: ReadingStore {
    /// The newest stored slot of `station` that ended by `now`; a future slot never counts.
    func newestSlot(station: String, endingBy now: Date) throws(StorageFailure) -> Slot?
    /// Records one request to AirKorea.
    func recordAttempt(_ attempt: PollAttempt) throws(StorageFailure)
}

/// Where AirKorea's measurements come from. `AirKoreaClient` is the production source.
public protocol MeasurementSource: Sendable {
    /// Fetches one page of measurements.
    func measurements(_ request: AirKoreaRequest) async throws(FetchError) -> FetchedPage
}

extension AirKoreaClient: MeasurementSource {}

extension SQLiteStore: PollStore, ActivityStore {
    public func saveReadings(_ readings: [HourlyReading], fetchedAt: Date) throws(StorageFailure) -> UpsertSummary {
        do { return try upsert(readings, fetchedAt: fetchedAt) } catch { throw StorageFailure(error) }
    }

    public func storedReadings(stations: [String], from: Slot, to: Slot) throws(StorageFailure) -> [HourlyReading] {
        do { return try readings(stations: stations, from: from, to: to) } catch { throw StorageFailure(error) }
    }

    public func newestSlot(station: String, endingBy now: Date) throws(StorageFailure) -> Slot? {
        do { return try latestSlot(station: station, endingBy: now) } catch { throw StorageFailure(error) }
    }

    public func recordAttempt(_ attempt: PollAttempt) throws(StorageFailure) {
        do { try record(attempt) } catch { throw StorageFailure(error) }
    }

    public func walkedDistances(from: Slot, to: Slot) throws(StorageFailure) -> [Slot: Double] {
        do { return try walkingDistances(from: from, to: to) } catch { throw StorageFailure(error) }
    }

    public func saveWalkedDistances(_ distances: [Slot: Double], importedAt: Date) throws(StorageFailure) {
        do { try replaceWalkingDistances(distances, importedAt: importedAt) } catch { throw StorageFailure(error) }
    }

    public func mergedWalking(from: Slot, to: Slot) throws(StorageFailure) -> [Slot: SlotWalking] {
        do { return try walkingActivity(from: from, to: to) } catch { throw StorageFailure(error) }
    }

    public func saveActivity(_ batches: [ActivitySourceBatch], importedAt: Date) throws(StorageFailure) {
        do { try replaceActivity(batches, importedAt: importedAt) } catch { throw StorageFailure(error) }
    }

    public func storedActivitySources() throws(StorageFailure) -> [ActivitySourceSummary] {
        do { return try activitySources() } catch { throw StorageFailure(error) }
    }

    public func forgetActivity(source: String) throws(StorageFailure) -> Int {
        do { return try forgetActivitySource(source) } catch { throw StorageFailure(error) }
    }
}

import DustKit
import DustStore
import Foundation

/// The current time. Injected so tests can stand on a fixed instant.
public protocol WallClock: Sendable {
    var now: Date { get }
}

/// The system's real-time clock.
public struct SystemClock: WallClock {
    public init() {}
    public var now: Date { Date() }
}

/// A clock fixed at one instant, for tests and replays.
public struct FixedClock: WallClock {
    public var now: Date
    public init(_ now: Date) { self.now = now }
}

/// Where hourly readings are kept. `SQLiteStore` is the production store.
public protocol ReadingStore: Sendable {
    /// Stores readings in one transaction; see `SQLiteStore.upsert`.
    func upsert(_ readings: [HourlyReading], fetchedAt: Date) throws(StoreError) -> UpsertSummary
    /// Readings of `stations` for slots in `[from, to)`, ordered by slot.
    func readings(stations: [String], from: Slot, to: Slot) throws(StoreError) -> [HourlyReading]
}

extension SQLiteStore: ReadingStore {}

/// Where imported walking distances are kept. `SQLiteStore` is the production source.
public protocol ActivitySource: Sendable {
    /// Metres walked per slot, for slots starting in `[from, to)`.
    func walkingDistances(from: Slot, to: Slot) throws(StoreError) -> [Slot: Double]
}

/// Where imported walking distances are written.
public protocol ActivityStore: ActivitySource {
    /// Replaces the distances of the given slots in one transaction.
    func replaceWalkingDistances(_ distances: [Slot: Double], importedAt: Date) throws(StoreError)
}

extension SQLiteStore: ActivityStore {}

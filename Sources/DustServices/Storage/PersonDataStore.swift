import DustKit
import Foundation

/// Everything stored about one person as a whole (docs/REFERENCE.md §13, "Who may see whose data"):
/// their copy of it, its removal, and the retention of their positions.
public protocol PersonDataStore: Sendable {
    /// Hands `each` every record stored for `person`, one at a time and none kept, in one read (one
    /// state of the database): the walking, then the heart rate, the resting heart rates, the sleep,
    /// the positions and the alerts, each table in its key's order (`PersonRecords`' order). A
    /// failure `each` throws ends the read; the store throws it as a `StorageFailure`, so a caller
    /// that needs its own failure keeps it aside (`dustctl person export` writes as it reads).
    func forEachPersonRecord(_ person: String, _ each: @escaping @Sendable (PersonRecord) throws -> Void) async throws(StorageFailure)
    /// Removes everything stored for `person` in every table, in one transaction; what went.
    func forgetPerson(_ person: String) async throws(StorageFailure) -> PersonRemoval
    /// Removes every person's positions past `retention` (`Retention`: never what the stored hours say
    /// is recent), and the kept places of the hours they covered, in one transaction; what went.
    func prunePositions(_ retention: Retention) async throws(StorageFailure) -> PersonRemoval
}

/// One record of a person's, as `PersonDataStore.forEachPersonRecord` hands them out.
public enum PersonRecord: Sendable, Hashable {
    case walking(PersonRecords.Walking)
    case heartRate(PersonRecords.HeartRate)
    case restingHeartRate(PersonRecords.HeartRate)
    case sleep(PersonRecords.Sleep)
    case position(PersonRecords.Position)
    case alert(PersonRecords.Alert)
}

/// How many rows of each kind one removal took, in a fixed order (`PersonRemoval.kinds`).
public struct PersonRemoval: Sendable, Hashable {
    /// What a person's rows are, as the report names them.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case walking = "walking slots"
        case heartRate = "heart-rate samples"
        case restingHeartRate = "resting heart rates"
        case sleep = "sleep intervals"
        case positions = "positions"
        case keptPlaces = "kept places"
        case alertStates = "alert states"
        case alertEvents = "alert events"

        /// The name of one row: `walking slot`.
        public var singular: String { String(rawValue.dropLast()) }
    }

    public var counts: [Kind: Int]

    public init(counts: [Kind: Int] = [:]) { self.counts = counts }

    public subscript(kind: Kind) -> Int {
        get { counts[kind] ?? 0 }
        set { counts[kind] = newValue }
    }

    /// Every row removed.
    public var total: Int { counts.values.reduce(0, +) }

    /// `1,203 walking slots, 44 positions` (the kinds with rows, in `Kind`'s order), or `nothing`.
    public var summary: String {
        let parts = Kind.allCases.compactMap { kind in
            self[kind] == 0 ? nil : "\(self[kind]) \(self[kind] == 1 ? kind.singular : kind.rawValue)"
        }
        return parts.isEmpty ? "nothing" : parts.joined(separator: ", ")
    }
}

/// Everything stored for one person (their export): rows as stored, times in seconds since 1970.
public struct PersonRecords: Sendable, Hashable {
    public struct Walking: Sendable, Hashable {
        public var source: String
        public var slotStart: Int64
        public var metres: Double
        public var importedAt: Int64

        public init(source: String, slotStart: Int64, metres: Double, importedAt: Int64) {
            (self.source, self.slotStart, self.metres, self.importedAt) = (source, slotStart, metres, importedAt)
        }
    }

    public struct HeartRate: Sendable, Hashable {
        public var source: String
        public var at: Int64
        public var beatsPerMinute: Double
        public var importedAt: Int64

        public init(source: String, at: Int64, beatsPerMinute: Double, importedAt: Int64) {
            (self.source, self.at, self.beatsPerMinute, self.importedAt) = (source, at, beatsPerMinute, importedAt)
        }
    }

    public struct Sleep: Sendable, Hashable {
        public var source: String
        public var start: Int64
        public var end: Int64
        public var importedAt: Int64

        public init(source: String, start: Int64, end: Int64, importedAt: Int64) {
            (self.source, self.start, self.end, self.importedAt) = (source, start, end, importedAt)
        }
    }

    public struct Position: Sendable, Hashable {
        public var source: String
        public var minute: Int64
        public var latitude: Double
        public var longitude: Double
        public var importedAt: Int64

        public init(source: String, minute: Int64, latitude: Double, longitude: Double, importedAt: Int64) {
            (self.source, self.minute, self.latitude, self.longitude, self.importedAt) = (source, minute, latitude, longitude, importedAt)
        }
    }

    public struct Alert: Sendable, Hashable {
        public var at: Int64
        public var kind: String
        public var rule: String
        public var metric: String?
        public var value: Double?
        public var station: String

        public init(at: Int64, kind: String, rule: String, metric: String?, value: Double?, station: String) {
            (self.at, self.kind, self.rule, self.metric, self.value, self.station) = (at, kind, rule, metric, value, station)
        }
    }

    public var walking: [Walking] = []
    public var heartRate: [HeartRate] = []
    public var restingHeartRate: [HeartRate] = []
    public var sleep: [Sleep] = []
    public var positions: [Position] = []
    public var alerts: [Alert] = []

    public init() {}

    /// Adds `record` to its kind's list.
    public mutating func append(_ record: PersonRecord) {
        switch record {
        case .walking(let walk): walking.append(walk)
        case .heartRate(let sample): heartRate.append(sample)
        case .restingHeartRate(let sample): restingHeartRate.append(sample)
        case .sleep(let interval): sleep.append(interval)
        case .position(let position): positions.append(position)
        case .alert(let alert): alerts.append(alert)
        }
    }

    public init(
        walking: [Walking], heartRate: [HeartRate], restingHeartRate: [HeartRate], sleep: [Sleep], positions: [Position], alerts: [Alert]
    ) {
        self.walking = walking
        self.heartRate = heartRate
        self.restingHeartRate = restingHeartRate
        self.sleep = sleep
        self.positions = positions
        self.alerts = alerts
    }
}

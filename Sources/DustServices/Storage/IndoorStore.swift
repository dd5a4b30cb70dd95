import DustKit
import Foundation

/// The read side of the home's indoor samples (docs/REFERENCE.md §21).
public protocol IndoorReadStore: Sendable {
    /// The samples of `sensors` taken in `[from, to)`, a series per sensor that has any, by sensor
    /// name, each in time order.
    func indoorSeries(sensors: [String], from: Date, to: Date) async throws(StorageFailure) -> [IndoorSeries]
    /// What dustd last knew of each sensor it samples, by name.
    func indoorSensorStates() async throws(StorageFailure) -> [IndoorSensorState]
    /// Every sensor name samples are stored under, by name, with the start of its newest hour: a
    /// sensor renamed in the configuration leaves its samples under the old name.
    func indoorSensorsStored() async throws(StorageFailure) -> [(sensor: String, newestHour: Date)]
}

extension IndoorReadStore {
    /// The samples of `sensors` taken in `[from, to)`, by sensor then time (a few: a status, a scrape).
    public func indoorSamples(sensors: [String], from: Date, to: Date) async throws(StorageFailure) -> [IndoorSample] {
        try await indoorSeries(sensors: sensors, from: from, to: to).flatMap(\.samples)
    }
}

/// Where indoor samples and each sensor's state are kept.
public protocol IndoorStore: IndoorReadStore {
    /// Stores samples (a sample of a sensor's minute stored already is replaced) and, in the same
    /// transaction, the sensors' states: one write for a round of sampling.
    func saveIndoor(samples: [IndoorSample], states: [IndoorSensorState]) async throws(StorageFailure)
    /// Stores an imported file's samples of one sensor in one transaction, replacing that sensor's
    /// samples in each hour the file has a sample in (in the first and last of them, only within the
    /// file's first and last minute); hours without one keep theirs. All of it, or nothing.
    func importIndoorSeries(_ series: IndoorSeries) async throws(StorageFailure)
    /// The newest sample of `sensor` taken before `before`, if any (where a backfill starts).
    func newestIndoorSample(sensor: String, before: Date) async throws(StorageFailure) -> Date?
    /// Removes samples past `retention` (`retention.samplesDays`, counted as `Retention` says), by
    /// whole hours; returns how many.
    func pruneIndoorSamples(_ retention: Retention) async throws(StorageFailure) -> Int
}

/// What dustd last knew of one sensor: when it last gave a sample, and the problem it has now, if any.
public struct IndoorSensorState: Sendable, Hashable {
    public var sensor: String
    /// `airgradient`, `purpleair`, `homeassistant`, `import`.
    public var kind: String
    /// When the sensor was last asked.
    public var checkedAt: Date?
    /// The newest sample stored from it.
    public var lastSampleAt: Date?
    /// The problem it has now, already worded for a terminal and a log (no text of the sensor's
    /// answer in it); nil when its last answer gave a sample.
    public var problem: String?
    /// Since when the problem stands.
    public var problemSince: Date?
    /// Answers that gave no plausible value (implausible numbers, channels that disagree) since dustd started.
    public var unknownSamples: Int

    public init(
        sensor: String, kind: String, checkedAt: Date? = nil, lastSampleAt: Date? = nil, problem: String? = nil,
        problemSince: Date? = nil, unknownSamples: Int = 0
    ) {
        self.sensor = sensor
        self.kind = kind
        self.checkedAt = checkedAt
        self.lastSampleAt = lastSampleAt
        self.problem = problem
        self.problemSince = problemSince
        self.unknownSamples = unknownSamples
    }
}

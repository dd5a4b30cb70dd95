import DustKit
import Foundation

/// The read side of what Apple Health recorded of each person's body (docs/REFERENCE.md §18).
public protocol PhysiologyReadStore: Sendable {
    /// `person`'s records that bear on `[from, to)`: heart-rate samples from 10 minutes before
    /// `from` (one may cover the start), sleep intervals that overlap the span, and resting rates
    /// dated before `to` from the newest one on or before `from` on. All in time order.
    func physiology(person: String, from: Date, to: Date) async throws(StorageFailure) -> StoredPhysiology
}

/// Where heart-rate samples, resting rates and sleep intervals are kept, per person and source.
public protocol PhysiologyStore: PhysiologyReadStore {
    /// Stores the batches in one transaction (all or nothing): for each, its person's and source's
    /// rows within `replacing` are deleted first, then its records written (an instant stored
    /// already is overwritten). Other people and sources are never touched.
    func savePhysiology(_ batches: [PhysiologyBatch], importedAt: Date) async throws(StorageFailure)
    /// What is stored for each person, by name.
    func physiologySummaries() async throws(StorageFailure) -> [PhysiologySummary]
    /// Removes `person`'s records of `source` (nil: every source); returns the rows removed.
    func forgetPhysiology(person: String, source: String?) async throws(StorageFailure) -> Int
}

/// One person's records from one source of one imported file.
public struct PhysiologyBatch: Sendable, Hashable {
    public var person: String
    /// `health:<sourceName>`, as for walking.
    public var source: String
    public var heartRate: [HeartRateSample]
    public var restingHeartRate: [RestingHeartRateSample]
    public var sleep: [SleepInterval]
    /// The instants whose stored records of this person and source the file replaces; nil to
    /// overwrite only the instants in the batch.
    public var replacing: ClosedRange<Date>?

    public init(
        person: String, source: String, heartRate: [HeartRateSample] = [], restingHeartRate: [RestingHeartRateSample] = [],
        sleep: [SleepInterval] = [], replacing: ClosedRange<Date>? = nil
    ) {
        self.person = person
        self.source = source
        self.heartRate = heartRate
        self.restingHeartRate = restingHeartRate
        self.sleep = sleep
        self.replacing = replacing
    }

    /// From the first to the last instant the batch holds; nil when it holds nothing.
    public var span: ClosedRange<Date>? {
        let instants = heartRate.map(\.at) + restingHeartRate.map(\.at) + sleep.flatMap { [$0.start, $0.end] }
        guard let first = instants.min(), let last = instants.max() else { return nil }
        return first...last
    }
}

/// A person's stored records over a span, merged over their sources.
public struct StoredPhysiology: Sendable, Hashable {
    public var heartRate: [HeartRateSample]
    public var restingHeartRate: [RestingHeartRateSample]
    public var sleep: [SleepInterval]

    public init(heartRate: [HeartRateSample] = [], restingHeartRate: [RestingHeartRateSample] = [], sleep: [SleepInterval] = []) {
        self.heartRate = heartRate
        self.restingHeartRate = restingHeartRate
        self.sleep = sleep
    }
}

/// How much is stored for one person.
public struct PhysiologySummary: Sendable, Hashable {
    public var person: String
    public var heartRateSamples: Int
    public var restingRates: Int
    public var sleepIntervals: Int

    public init(person: String, heartRateSamples: Int, restingRates: Int, sleepIntervals: Int) {
        self.person = person
        self.heartRateSamples = heartRateSamples
        self.restingRates = restingRates
        self.sleepIntervals = sleepIntervals
    }
}

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
    /// Stores one imported file's walking, body records and positions in one transaction (all or
    /// nothing): `walking` as `ActivityStore.saveActivity` stores it, and for each of `body` and of
    /// `positions`, its person's and source's rows within `replacing` deleted first, then its records
    /// written (an instant stored already is overwritten). Other people and sources are never touched.
    func saveImport(
        walking: [ActivitySourceBatch], body: [PhysiologyBatch], positions: [PositionBatch], importedAt: Date
    ) async throws(StorageFailure)
    /// What is stored, per person and source, by person then source.
    func physiologySummaries() async throws(StorageFailure) -> [PhysiologySummary]
    /// Removes `person`'s records of `source` (nil: every source); returns the rows removed.
    func forgetPhysiology(person: String, source: String?) async throws(StorageFailure) -> Int
}

extension PhysiologyStore {
    /// Stores one imported file's walking and body records in one transaction, without positions.
    public func saveImport(walking: [ActivitySourceBatch], body: [PhysiologyBatch], importedAt: Date) async throws(StorageFailure) {
        try await saveImport(walking: walking, body: body, positions: [], importedAt: importedAt)
    }
}

/// One person's records from one source of one imported file.
public struct PhysiologyBatch: Sendable, Hashable {
    public var person: String
    /// `health` for what an Apple Health export holds (docs/REFERENCE.md §18).
    public var source: String
    /// Kept compact: an export's two million samples reach the store in 16 MB.
    public var heartRate: HeartRateSeries
    public var restingHeartRate: [RestingHeartRateSample]
    public var sleep: [SleepInterval]
    /// The instants whose stored records of this person and source the file replaces; nil to
    /// overwrite only the instants in the batch.
    public var replacing: ClosedRange<Date>?

    public init(
        person: String, source: String, heartRate: HeartRateSeries = HeartRateSeries(),
        restingHeartRate: [RestingHeartRateSample] = [], sleep: [SleepInterval] = [], replacing: ClosedRange<Date>? = nil
    ) {
        self.person = person
        self.source = source
        self.heartRate = heartRate
        self.restingHeartRate = restingHeartRate
        self.sleep = sleep
        self.replacing = replacing
    }

    /// The source of everything an Apple Health export holds of a body: Health itself merges its
    /// devices' records, and FineDust keeps them as one (docs/REFERENCE.md §18).
    public static let healthSource = "health"

    /// From the first to the last instant the batch holds; nil when it holds nothing.
    public var span: ClosedRange<Date>? {
        var first = Date.distantFuture
        var last = Date.distantPast
        func include(_ instant: Date) {
            first = min(first, instant)
            last = max(last, instant)
        }
        for sample in heartRate { include(sample.at) }
        for sample in restingHeartRate { include(sample.at) }
        for interval in sleep {
            include(interval.start)
            include(interval.end)
        }
        return first <= last ? first...last : nil
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

/// How much is stored for one person from one source, and from when to when.
public struct PhysiologySummary: Sendable, Hashable {
    public var person: String
    public var source: String
    /// The first and last instant of any of the source's records (a sleep interval's end included).
    public var first: Date
    public var last: Date
    public var heartRateSamples: Int
    public var restingRates: Int
    public var sleepIntervals: Int
    /// Seconds asleep, summed over the source's intervals.
    public var asleepSeconds: Int

    public init(
        person: String, source: String, first: Date, last: Date, heartRateSamples: Int, restingRates: Int, sleepIntervals: Int,
        asleepSeconds: Int
    ) {
        self.person = person
        self.source = source
        self.first = first
        self.last = last
        self.heartRateSamples = heartRateSamples
        self.restingRates = restingRates
        self.sleepIntervals = sleepIntervals
        self.asleepSeconds = asleepSeconds
    }
}

import Foundation

// What Apple Health records of a person's body, as FineDust uses it for the dose
// (docs/REFERENCE.md §18): the readers produce these, the store keeps them per person, the
// intake model turns them into a ventilation rate per slot.

/// A heart-rate measurement: beats per minute at an instant (`HKQuantityTypeIdentifierHeartRate`).
public struct HeartRateSample: Sendable, Hashable {
    public var at: Date
    public var beatsPerMinute: Double

    public init(at: Date, beatsPerMinute: Double) {
        self.at = at
        self.beatsPerMinute = beatsPerMinute
    }

    /// Values a heart can have; anything outside is dropped and counted.
    public static let plausibleBeatsPerMinute: ClosedRange<Double> = 25...250
}

/// The resting heart rate Apple Health computed for the day containing `at`
/// (`HKQuantityTypeIdentifierRestingHeartRate`).
public struct RestingHeartRateSample: Sendable, Hashable {
    public var at: Date
    public var beatsPerMinute: Double

    public init(at: Date, beatsPerMinute: Double) {
        self.at = at
        self.beatsPerMinute = beatsPerMinute
    }
}

/// Time asleep: an `HKCategoryTypeIdentifierSleepAnalysis` record whose value is one of the
/// `…Asleep…` values (in bed and awake are not sleep). `end` is after `start`.
public struct SleepInterval: Sendable, Hashable {
    public var start: Date
    public var end: Date

    public init(start: Date, end: Date) {
        self.start = start
        self.end = end
    }

    /// The longest interval believed; a longer one is clipped to this and counted.
    public static let maxDuration: TimeInterval = 24 * 3600
}

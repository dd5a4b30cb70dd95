import DustKit
import Foundation

/// What an Apple Health export holds of a person's body (docs/REFERENCE.md §18, "Heart rate and
/// sleep"): heart-rate samples, resting rates, time asleep, and what was dropped, clipped or merged.
///
/// Filled by `HealthExportReader.read(_:onProgress:physiology:onSample:)` and kept compact, so an
/// export with millions of heart-rate samples fits in a few megabytes (`HeartRateSeries`). After
/// the read, the samples and rates are in time order and the sleep intervals sorted, merged where
/// they overlap or touch.
public struct HealthPhysiology: Sendable, Hashable {
    /// `HKQuantityTypeIdentifierHeartRate` samples within 25–250 beats/min, in time order.
    public private(set) var heartRate = HeartRateSeries()
    /// `HKQuantityTypeIdentifierRestingHeartRate` values within 25–250 beats/min, in time order.
    public private(set) var restingHeartRates: [RestingHeartRateSample] = []
    /// Time asleep, sorted by start; no two intervals overlap or touch.
    public private(set) var sleep: [SleepInterval] = []

    /// Heart-rate records read (kept or dropped for their value).
    public var heartRateRecords = 0
    /// Resting heart-rate records read (kept or dropped for their value).
    public var restingHeartRateRecords = 0
    /// Sleep records whose value is one of the `…Asleep…` values.
    public var asleepRecords = 0
    /// Sleep records that are not sleep (`InBed`, `Awake`, or a value FineDust does not know).
    public var notAsleepRecords = 0
    /// Heart-rate and resting heart-rate records outside 25–250 beats/min, dropped.
    public var heartRateOutOfRange = 0
    /// Asleep records longer than 24 hours, and stretches of records joined to more than 24 hours,
    /// clipped to their first 24 hours.
    public var sleepClipped = 0
    /// Asleep records ending when or before they start, dropped.
    public var sleepDropped = 0
    /// Asleep records that overlapped time already asleep (two sources, a record repeated), merged
    /// into it.
    public var sleepOverlapsMerged = 0
    /// Heart-rate, resting and sleep records dated before 2000 or more than a day after the
    /// import, skipped (`SupportedPeriod.isPlausible`).
    public var recordsOutsidePeriod = 0

    /// Asleep intervals as `CompactInstant` offsets, start in the high half: merged by `finish()`,
    /// appended to while reading.
    private var packedSleep: [UInt64] = []

    public init() {}

    mutating func add(heartRate sample: HeartRateSample) {
        guard CompactInstant(sample.at) != nil else {
            recordsOutsidePeriod += 1
            return
        }
        heartRate.append(sample)
    }

    mutating func add(restingHeartRate sample: RestingHeartRateSample) { restingHeartRates.append(sample) }

    /// Keeps an asleep interval of at most `SleepInterval.maxDuration`; `start` is before `end`.
    mutating func add(sleep interval: SleepInterval) {
        guard let start = CompactInstant(interval.start), let end = CompactInstant(interval.end) else {
            recordsOutsidePeriod += 1
            return
        }
        packedSleep.append(UInt64(start.offset) << 32 | UInt64(end.offset))
    }

    /// Puts what was read in time order, one sample a second, and merges the sleep intervals,
    /// counting the overlaps.
    mutating func finish() {
        // Samples of one second are one row where they are stored: counted once, the last kept.
        heartRate.removeRepeatedSeconds()
        restingHeartRates.sort { $0.at < $1.at }
        restingHeartRates = restingHeartRates.indices.compactMap { index in
            index + 1 < restingHeartRates.count && restingHeartRates[index + 1].at == restingHeartRates[index].at
                ? nil : restingHeartRates[index]
        }
        packedSleep.sort()
        var merged: [UInt64] = []
        var current: (start: UInt32, end: UInt32)?
        var currentClipped = false
        for packed in packedSleep {
            let start = UInt32(truncatingIfNeeded: packed >> 32)
            let end = UInt32(truncatingIfNeeded: packed)
            guard let open = current else {
                current = (start, end)
                continue
            }
            if start > open.end {
                merged.append(UInt64(open.start) << 32 | UInt64(open.end))
                current = (start, end)
                currentClipped = false
            } else {
                // Touching segments (a Watch's Core then Deep) join silently; overlapping ones are counted.
                if start < open.end { sleepOverlapsMerged += 1 }
                current = (open.start, max(open.end, end))
                // Records joined as one are held to one record's bound: its first 24 hours (a chain of long
                // records overlapping each other is not two days of sleep, and the table keeps at most one).
                let longest = UInt32(SleepInterval.maxDuration)
                if let joined = current, joined.end - joined.start > longest {
                    if !currentClipped { sleepClipped += 1 }
                    currentClipped = true
                    current = (joined.start, joined.start + longest)
                }
            }
        }
        if let open = current { merged.append(UInt64(open.start) << 32 | UInt64(open.end)) }
        packedSleep = merged
        sleep = merged.map {
            SleepInterval(
                start: CompactInstant.date(UInt32(truncatingIfNeeded: $0 >> 32)), end: CompactInstant.date(UInt32(truncatingIfNeeded: $0)))
        }
    }
}

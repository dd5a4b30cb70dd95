import Foundation

// How much a person breathes, by age and by what their body did in a slot (docs/REFERENCE.md §18):
// the age table, the heart-rate reserve bands and a slot's time-weighted ventilation.

/// The month a person was born (`born: YYYY-MM`, day 1 assumed).
public struct BirthMonth: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int

    public init?(year: Int, month: Int) {
        guard (1...12).contains(month) else { return nil }
        self.year = year
        self.month = month
    }

    /// `2018-03`; nil for anything else.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 2,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let year = Int(parts[0]), let month = Int(parts[1])
        else { return nil }
        self.init(year: year, month: month)
    }

    /// Age in completed years on `date`: a birthday is the first of the birth month.
    public func age(on date: LocalDate) -> Int {
        let years = date.year - year
        return date.month < month ? years - 1 : years
    }

    public var description: String { "\(ASCIIDigits.padded(year, width: 4))-\(ASCIIDigits.padded(month, width: 2))" }

    public static func < (lhs: BirthMonth, rhs: BirthMonth) -> Bool { (lhs.year, lhs.month) < (rhs.year, rhs.month) }
}

/// `sex:`; kept with the person, no rule of the model depends on it yet.
public enum Sex: String, Sendable, Hashable, CaseIterable {
    case female, male
}

/// Mean short-term ventilation by age and activity level (US EPA Exposure Factors Handbook 2011,
/// Table 6-2, males and females combined), converted to m³/h.
public enum AgeVentilationTable {
    /// One row: ages `fromAge` up to the next row's, rates in m³/min in the order sleep,
    /// sedentary, light, moderate, high.
    struct Row {
        let fromAge: Int
        let perMinute: [Double]
    }

    static let rows: [Row] = [
        Row(fromAge: 0, perMinute: [3.0e-3, 3.1e-3, 7.6e-3, 1.4e-2, 2.6e-2]),
        Row(fromAge: 1, perMinute: [4.5e-3, 4.7e-3, 1.2e-2, 2.1e-2, 3.8e-2]),
        Row(fromAge: 2, perMinute: [4.6e-3, 4.8e-3, 1.2e-2, 2.1e-2, 3.9e-2]),
        Row(fromAge: 3, perMinute: [4.3e-3, 4.5e-3, 1.1e-2, 2.1e-2, 3.7e-2]),
        Row(fromAge: 6, perMinute: [4.5e-3, 4.8e-3, 1.1e-2, 2.2e-2, 4.2e-2]),
        Row(fromAge: 11, perMinute: [5.0e-3, 5.4e-3, 1.3e-2, 2.5e-2, 4.9e-2]),
        Row(fromAge: 16, perMinute: [4.9e-3, 5.3e-3, 1.2e-2, 2.6e-2, 4.9e-2]),
        Row(fromAge: 21, perMinute: [4.3e-3, 4.2e-3, 1.2e-2, 2.6e-2, 5.0e-2]),
        Row(fromAge: 31, perMinute: [4.6e-3, 4.3e-3, 1.2e-2, 2.7e-2, 4.9e-2]),
        Row(fromAge: 41, perMinute: [5.0e-3, 4.8e-3, 1.3e-2, 2.8e-2, 5.2e-2]),
        Row(fromAge: 51, perMinute: [5.2e-3, 5.0e-3, 1.3e-2, 2.9e-2, 5.3e-2]),
        Row(fromAge: 61, perMinute: [5.2e-3, 4.9e-3, 1.2e-2, 2.6e-2, 4.7e-2]),
        Row(fromAge: 71, perMinute: [5.3e-3, 5.0e-3, 1.2e-2, 2.5e-2, 4.7e-2]),
        Row(fromAge: 81, perMinute: [5.2e-3, 4.9e-3, 1.2e-2, 2.5e-2, 4.8e-2]),
    ]

    /// The rates of the row for `age` completed years, m³/h (a negative age, a slot before birth, uses the first row).
    public static func rates(age: Int) -> [ActivityLevel: Double] {
        let row = rows.last { $0.fromAge <= age } ?? rows[0]
        return Dictionary(uniqueKeysWithValues: zip(ActivityLevel.allCases, row.perMinute.map { $0 * 60 }))
    }
}

/// The activity level of heart-rate reserve bands (Karvonen's reserve, ACSM's bands, Tanaka's maximum).
public enum HeartRateReserve {
    /// `208 − 0.7 × age` beats/min (Tanaka 2001).
    public static func maxHeartRate(age: Int) -> Double { 208 - 0.7 * Double(age) }

    /// `r = (HR − HRrest) / (HRmax − HRrest)`: below 0.30 sedentary, below 0.40 light, below 0.60
    /// moderate, else high. A heart at or below rest is sedentary (never `sleep`: only sleep records say that).
    public static func level(beatsPerMinute: Double, resting: Double, age: Int) -> ActivityLevel {
        let span = maxHeartRate(age: age) - resting
        guard span > 0 else { return .high }
        let reserve = (beatsPerMinute - resting) / span
        if reserve < 0.30 { return .sedentary }
        if reserve < 0.40 { return .light }
        if reserve < 0.60 { return .moderate }
        return .high
    }

    /// The resting rate assumed when neither the configuration nor Health gives one.
    public static let defaultRestingBeatsPerMinute = 70.0
}

/// What set a slot's activity level, by the largest share of its time (docs/REFERENCE.md §18).
public enum LevelSource: String, Sendable, Hashable, CaseIterable, Codable {
    case schedule, walking, heartRate, sleep
}

/// What a person's body recorded around one slot: the sleep intervals and heart-rate samples that
/// may reach into it (a sample up to 10 minutes before the slot can cover its start).
public struct SlotPhysiology: Sendable, Hashable {
    public var sleep: [SleepInterval]
    /// In time order.
    public var heartRate: [HeartRateSample]
    /// The resting rate for the slot's day: configured, else Health's newest on or before it, else 70.
    public var restingBeatsPerMinute: Double

    public init(sleep: [SleepInterval] = [], heartRate: [HeartRateSample] = [], restingBeatsPerMinute: Double) {
        self.sleep = sleep
        self.heartRate = heartRate.sorted { $0.at < $1.at }
        self.restingBeatsPerMinute = restingBeatsPerMinute
    }

    /// How long a heart-rate sample speaks for, at most: until the next sample, never longer than this.
    public static let heartRateCover: TimeInterval = 600

    /// The resting rate for `date`: the configured one, else the newest Health value dated on or
    /// before that day, else 70.
    public static func restingBeatsPerMinute(
        on date: LocalDate, configured: Double?, health: [RestingHeartRateSample], calendar: DayCalendar
    ) -> Double {
        if let configured { return configured }
        let endOfDay = calendar.start(of: date.adding(days: 1))
        let newest = health.filter { $0.at < endOfDay }.max { $0.at < $1.at }
        return newest?.beatsPerMinute ?? HeartRateReserve.defaultRestingBeatsPerMinute
    }
}

/// How one slot was breathed: the ventilation used and where its level came from.
public struct SlotBreathing: Sendable, Hashable {
    /// `V`, m³/h: the time-weighted mean of the levels' rates over the slot.
    public var ventilation: Double
    /// `f`, the outdoor fraction (§4's, from the schedule raised by walking).
    public var outdoors: Double
    public var levelSource: LevelSource
    /// Seconds of the slot at each level.
    public var secondsByLevel: [ActivityLevel: Double]
    /// Seconds of the slot whose level each record gave (what `levelSource` is the largest of).
    public var secondsBySource: [LevelSource: Double]

    public init(
        ventilation: Double, outdoors: Double, levelSource: LevelSource, secondsByLevel: [ActivityLevel: Double],
        secondsBySource: [LevelSource: Double]? = nil
    ) {
        self.ventilation = ventilation
        self.outdoors = outdoors
        self.levelSource = levelSource
        self.secondsByLevel = secondsByLevel
        self.secondsBySource = secondsBySource ?? [levelSource: ActivityLevel.totalSeconds(secondsByLevel)]
    }

    /// The source of the largest share; ties go to the most specific record: sleep, heart rate,
    /// walking, then the schedule. `fallback` when no second is counted.
    public static func largestSource(_ secondsBySource: [LevelSource: Double], fallback: LevelSource) -> LevelSource {
        let largestShare = secondsBySource.values.max() ?? 0
        let source = [LevelSource.sleep, .heartRate, .walking, .schedule].first {
            secondsBySource[$0, default: 0] == largestShare && largestShare > 0
        }
        return source ?? fallback
    }

    /// `C × V × (f + (1 − f) × F)`, µg (docs/REFERENCE.md §4).
    public func intake(concentration: Double, infiltration: Double) -> Double {
        concentration * ventilation * (outdoors + (1 - outdoors) * infiltration)
    }

    /// `V × (f × C_out + (1 − f) × C_in)` when the indoor value `indoor` is known (the person at home
    /// with a sensor, docs/REFERENCE.md §21), else `intake(concentration:infiltration:)`.
    public func intake(concentration: Double, infiltration: Double, indoor: Double?) -> Double {
        guard let indoor else { return intake(concentration: concentration, infiltration: infiltration) }
        return ventilation * (outdoors * concentration + (1 - outdoors) * indoor)
    }

    /// Splits `[start, end)` into sleep, heart-rate and the rest, and averages the levels' rates by
    /// time. `age` nil (no `born`): heart rate cannot be placed in a band, so that time keeps §4's level.
    public static func of(
        start: Date, end: Date, physiology: SlotPhysiology, age: Int?, rates: [ActivityLevel: Double],
        fallbackLevel: ActivityLevel, fallbackSource: LevelSource, outdoors: Double
    ) -> SlotBreathing {
        let total = end.timeIntervalSince(start)
        let asleep = merged(physiology.sleep.compactMap { clip($0.start, $0.end, to: start, end) })
        var covered: [(start: Date, end: Date, level: ActivityLevel)] = []
        if let age {
            let samples = physiology.heartRate
            for (index, sample) in samples.enumerated() {
                var coverEnd = sample.at.addingTimeInterval(SlotPhysiology.heartRateCover)
                if index + 1 < samples.count { coverEnd = min(coverEnd, samples[index + 1].at) }
                guard let piece = clip(sample.at, coverEnd, to: start, end) else { continue }
                let level = HeartRateReserve.level(
                    beatsPerMinute: sample.beatsPerMinute, resting: physiology.restingBeatsPerMinute, age: age)
                covered += subtract(asleep, from: piece).map { ($0.0, $0.1, level) }
            }
        }
        var seconds: [ActivityLevel: Double] = [:]
        var secondsBySource: [LevelSource: Double] = [:]
        let sleepSeconds = asleep.reduce(0) { $0 + $1.1.timeIntervalSince($1.0) }
        if sleepSeconds > 0 {
            seconds[.sleep, default: 0] += sleepSeconds
            secondsBySource[.sleep] = sleepSeconds
        }
        for part in covered {
            let length = part.end.timeIntervalSince(part.start)
            seconds[part.level, default: 0] += length
            secondsBySource[.heartRate, default: 0] += length
        }
        let rest = total - sleepSeconds - covered.reduce(0) { $0 + $1.end.timeIntervalSince($1.start) }
        if rest > 0 {
            seconds[fallbackLevel, default: 0] += rest
            secondsBySource[fallbackSource, default: 0] += rest
        }
        // One level over the whole slot gives its rate exactly, so a person without Health data
        // gets §4's numbers to the last bit.
        let ventilation =
            seconds.count <= 1
            ? rates[seconds.keys.first ?? fallbackLevel]!
            : ActivityLevel.weightedSum(seconds, rates: rates) / total
        return SlotBreathing(
            ventilation: ventilation, outdoors: outdoors, levelSource: largestSource(secondsBySource, fallback: fallbackSource),
            secondsByLevel: seconds, secondsBySource: secondsBySource)
    }

    private static func clip(_ from: Date, _ to: Date, to start: Date, _ end: Date) -> (Date, Date)? {
        let lower = max(from, start)
        let upper = min(to, end)
        return lower < upper ? (lower, upper) : nil
    }

    /// Overlapping intervals joined, in time order (two sleep records of one night count once).
    private static func merged(_ intervals: [(Date, Date)]) -> [(Date, Date)] {
        var result: [(Date, Date)] = []
        for interval in intervals.sorted(by: { $0.0 < $1.0 }) {
            if let last = result.last, interval.0 <= last.1 {
                result[result.count - 1].1 = max(last.1, interval.1)
            } else {
                result.append(interval)
            }
        }
        return result
    }

    /// `piece` without the (sorted, disjoint) `holes`.
    private static func subtract(_ holes: [(Date, Date)], from piece: (Date, Date)) -> [(Date, Date)] {
        var result: [(Date, Date)] = []
        var cursor = piece.0
        for hole in holes where hole.1 > cursor && hole.0 < piece.1 {
            if hole.0 > cursor { result.append((cursor, hole.0)) }
            cursor = max(cursor, hole.1)
        }
        if cursor < piece.1 { result.append((cursor, piece.1)) }
        return result
    }
}

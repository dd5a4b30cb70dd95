import Foundation

// A slot a person's positions reach into (docs/REFERENCE.md §19): how much of it they cover (τ),
// the time-weighted mean of the air along the track (C_T), and how the tracked time and the rest
// were breathed, for
// `intake = V_T × τ × C_T + V_R × (1 − τ) × C_home × (f + (1 − f) × F)`.

/// The part of a slot that stored positions cover: each position speaks for up to 60 s from its
/// instant, never past the next position nor the slot's end.
public struct TrackCoverage: Sendable, Hashable {
    /// How long one stored position (the last point of its minute) speaks for, at most.
    public static let positionCover: TimeInterval = 60

    /// One position's share of the slot.
    public struct Piece: Sendable, Hashable {
        /// The position's instant.
        public var at: Date
        /// The covered time inside the slot, `start < end`.
        public var start: Date
        public var end: Date

        public var seconds: TimeInterval { end.timeIntervalSince(start) }
    }

    public let slotStart: Date
    public let slotEnd: Date
    /// In time order; positions whose cover misses the slot have none.
    public let pieces: [Piece]

    /// The cover of `positions` (any order; an instant given twice counts once) inside `[slotStart, slotEnd)`.
    /// A position shortly before the slot covers its first seconds, as it would have covered them in the previous slot.
    public init(positions: [Date], slotStart: Date, slotEnd: Date) {
        self.slotStart = slotStart
        self.slotEnd = slotEnd
        // Positions read from the store come in time order, one a minute: no need to sort them again.
        let ordered = zip(positions, positions.dropFirst()).allSatisfy { $0 < $1 }
        let instants = ordered ? positions : Array(Set(positions)).sorted()
        var pieces: [Piece] = []
        for (index, instant) in instants.enumerated() {
            var coverEnd = instant.addingTimeInterval(Self.positionCover)
            if index + 1 < instants.count { coverEnd = min(coverEnd, instants[index + 1]) }
            let start = max(instant, slotStart)
            let end = min(coverEnd, slotEnd)
            if start < end { pieces.append(Piece(at: instant, start: start, end: end)) }
        }
        self.pieces = pieces
    }

    /// Seconds of the slot the positions cover.
    public var trackedSeconds: TimeInterval { pieces.reduce(0) { $0 + $1.seconds } }

    /// τ = tracked seconds / slot seconds, 0…1.
    public var trackedFraction: Double {
        let slotSeconds = slotEnd.timeIntervalSince(slotStart)
        return slotSeconds > 0 ? trackedSeconds / slotSeconds : 0
    }

    /// `C_T`: the mean of each position's value weighted by the time it covers. A position whose
    /// value is unknown is left out of the mean; nil when no covered position has a value.
    public func timeWeightedMean(_ value: (Date) -> Double?) -> Double? {
        var weightedSum = 0.0
        var seconds = 0.0
        for piece in pieces {
            guard let known = value(piece.at) else { continue }
            weightedSum += known * piece.seconds
            seconds += piece.seconds
        }
        return seconds > 0 ? weightedSum / seconds : nil
    }

    /// `timeWeightedMean` of both pollutants at once, each piece's values asked for once, in time order
    /// (the same sums, so the same bits).
    public func timeWeightedMeans(_ values: (Piece) -> DustPair<Double?>) -> DustPair<Double?> {
        var weightedSums = DustPair(repeating: 0.0)
        var seconds = DustPair(repeating: 0.0)
        for piece in pieces {
            let known = values(piece)
            if let fine = known.fineDust {
                weightedSums.fineDust += fine * piece.seconds
                seconds.fineDust += piece.seconds
            }
            if let ultraFine = known.ultraFineDust {
                weightedSums.ultraFineDust += ultraFine * piece.seconds
                seconds.ultraFineDust += piece.seconds
            }
        }
        return DustPair(byPollutant: { seconds[$0] > 0 ? weightedSums[$0] / seconds[$0] : nil })
    }

    /// The slot's time no position covers, in time order.
    public var untrackedIntervals: [(start: Date, end: Date)] {
        var result: [(start: Date, end: Date)] = []
        var cursor = slotStart
        for piece in pieces {
            if piece.start > cursor { result.append((cursor, piece.start)) }
            cursor = max(cursor, piece.end)
        }
        if cursor < slotEnd { result.append((cursor, slotEnd)) }
        return result
    }
}

/// How a tracked slot was breathed: `V_T` over the tracked time, `V_R` and `f` over the rest.
public struct TrackedBreathing: Sendable, Hashable {
    /// τ.
    public var trackedFraction: Double
    /// `V_T`, m³/h: heart rate where known, else the schedule's level raised to at least light.
    public var trackedVentilation: Double
    /// `V_R`, m³/h: the rest of the slot at §4/§18's level, the schedule's without the walking raise
    /// (the track already explains the walk).
    public var restVentilation: Double
    /// `f` of the rest: the schedule's outdoor fraction, not raised by walking.
    public var restOutdoors: Double
    /// Seconds of the tracked time at each level.
    public var trackedSecondsByLevel: [ActivityLevel: Double]
    /// Seconds of the rest at each level.
    public var restSecondsByLevel: [ActivityLevel: Double]
    /// The whole slot as one `SlotBreathing`, for what the outputs say of it (`ventilation`,
    /// `levelSource`): `V` the time-weighted mean of both parts' levels, `f` = τ + (1 − τ) × the
    /// rest's `f` (the tracked time is outdoors), and the source of the largest share of the slot —
    /// the tracked time without heart rate or sleep counts as `walking`. The intake is not computed
    /// from it (`intake(trackedConcentration:homeConcentration:infiltration:)` is).
    public var slot: SlotBreathing

    public init(
        trackedFraction: Double, trackedVentilation: Double, restVentilation: Double, restOutdoors: Double,
        trackedSecondsByLevel: [ActivityLevel: Double], restSecondsByLevel: [ActivityLevel: Double], slot: SlotBreathing
    ) {
        self.trackedFraction = trackedFraction
        self.trackedVentilation = trackedVentilation
        self.restVentilation = restVentilation
        self.restOutdoors = restOutdoors
        self.trackedSecondsByLevel = trackedSecondsByLevel
        self.restSecondsByLevel = restSecondsByLevel
        self.slot = slot
    }

    /// The ventilation of each part; nil when the positions cover none of the slot (τ = 0: §4/§18
    /// apply unchanged). `entry` is the schedule's for the slot's hour; `age` nil (no `born`) leaves
    /// heart rate unused, as in `SlotBreathing`.
    public static func of(
        coverage: TrackCoverage, physiology: SlotPhysiology, age: Int?, rates: [ActivityLevel: Double], entry: ScheduleEntry
    ) -> TrackedBreathing? {
        guard !coverage.pieces.isEmpty else { return nil }
        let walkingLevel = max(entry.activity, .light)
        let tracked = seconds(
            coverage.pieces.map { ($0.start, $0.end) }, physiology: physiology, age: age, rates: rates, fallbackLevel: walkingLevel,
            fallbackSource: .walking, outdoors: 1)
        let rest = seconds(
            coverage.untrackedIntervals, physiology: physiology, age: age, rates: rates, fallbackLevel: entry.activity,
            fallbackSource: .schedule, outdoors: entry.outdoors)
        let trackedFraction = coverage.trackedFraction
        let wholeLevels = tracked.byLevel.merging(rest.byLevel, uniquingKeysWith: +)
        let wholeSources = tracked.bySource.merging(rest.bySource, uniquingKeysWith: +)
        let slot = SlotBreathing(
            ventilation: meanRate(wholeLevels, rates: rates, fallbackLevel: walkingLevel),
            outdoors: trackedFraction + (1 - trackedFraction) * entry.outdoors,
            levelSource: SlotBreathing.largestSource(wholeSources, fallback: .walking), secondsByLevel: wholeLevels,
            secondsBySource: wholeSources)
        return TrackedBreathing(
            trackedFraction: trackedFraction,
            trackedVentilation: meanRate(tracked.byLevel, rates: rates, fallbackLevel: walkingLevel),
            restVentilation: meanRate(rest.byLevel, rates: rates, fallbackLevel: entry.activity),
            restOutdoors: entry.outdoors, trackedSecondsByLevel: tracked.byLevel, restSecondsByLevel: rest.byLevel, slot: slot)
    }

    /// `V_T × τ × C_T + V_R × (1 − τ) × C_home × (f + (1 − f) × F)`, µg. The tracked time is outdoors,
    /// so `C_T` is not reduced by infiltration. `homeConcentration` unknown: unknown, unless the track covers the whole slot.
    /// With `indoor` known (at home, a sensor's value, docs/REFERENCE.md §21) the rest's indoor part
    /// breathes it: `V_R × (1 − τ) × (f × C_home + (1 − f) × C_in)`.
    public func intake(trackedConcentration: Double, homeConcentration: Double?, infiltration: Double, indoor: Double? = nil) -> Double? {
        let trackedPart = trackedVentilation * trackedFraction * trackedConcentration
        guard trackedFraction < 1 else { return trackedPart }
        guard let homeConcentration else { return nil }
        let restPart =
            if let indoor {
                restVentilation * (1 - trackedFraction) * (restOutdoors * homeConcentration + (1 - restOutdoors) * indoor)
            } else {
                restVentilation * (1 - trackedFraction) * homeConcentration * (restOutdoors + (1 - restOutdoors) * infiltration)
            }
        return trackedPart + restPart
    }

    private static func seconds(
        _ intervals: [(start: Date, end: Date)], physiology: SlotPhysiology, age: Int?, rates: [ActivityLevel: Double],
        fallbackLevel: ActivityLevel, fallbackSource: LevelSource, outdoors: Double
    ) -> (byLevel: [ActivityLevel: Double], bySource: [LevelSource: Double]) {
        var byLevel: [ActivityLevel: Double] = [:]
        var bySource: [LevelSource: Double] = [:]
        // Without sleep or usable heart rate each interval is all `fallbackLevel`: the same sums
        // `SlotBreathing.of` would give, interval by interval, without building one per interval.
        if physiology.sleep.isEmpty && (age == nil || physiology.heartRate.isEmpty) {
            var total = 0.0
            for interval in intervals {
                let seconds = interval.end.timeIntervalSince(interval.start)
                if seconds > 0 { total += seconds }
            }
            if total > 0 {
                byLevel[fallbackLevel] = total
                bySource[fallbackSource] = total
            }
            return (byLevel, bySource)
        }
        for interval in intervals {
            let breathing = SlotBreathing.of(
                start: interval.start, end: interval.end, physiology: physiology, age: age, rates: rates, fallbackLevel: fallbackLevel,
                fallbackSource: fallbackSource, outdoors: outdoors)
            byLevel.merge(breathing.secondsByLevel, uniquingKeysWith: +)
            bySource.merge(breathing.secondsBySource, uniquingKeysWith: +)
        }
        return (byLevel, bySource)
    }

    /// The time-weighted mean rate; one level gives its rate exactly, as `SlotBreathing` does.
    private static func meanRate(_ seconds: [ActivityLevel: Double], rates: [ActivityLevel: Double], fallbackLevel: ActivityLevel) -> Double
    {
        let total = ActivityLevel.totalSeconds(seconds)
        guard seconds.count > 1, total > 0 else { return rates[seconds.keys.first ?? fallbackLevel]! }
        return ActivityLevel.weightedSum(seconds, rates: rates) / total
    }
}

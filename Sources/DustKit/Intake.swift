/// How hard a person is breathing; ventilation rises with it.
public enum ActivityLevel: String, Sendable, Hashable, CaseIterable, Comparable, Codable {
    case sleep, sedentary, light, moderate, high

    /// Σ seconds over the levels in `seconds`, added in the levels' order (as `weightedSum`).
    public static func totalSeconds(_ seconds: [ActivityLevel: Double]) -> Double {
        allCases.reduce(0) { $0 + (seconds[$1] ?? 0) }
    }

    /// Σ rate × seconds over the levels in `seconds`, added in the levels' order: a dictionary's own
    /// order changes from process to process, and with it the sum's last bits.
    public static func weightedSum(_ seconds: [ActivityLevel: Double], rates: [ActivityLevel: Double]) -> Double {
        allCases.reduce(0) { sum, level in seconds[level].map { sum + rates[level]! * $0 } ?? sum }
    }

    public static func < (lhs: ActivityLevel, rhs: ActivityLevel) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One part of the daily routine: from `fromHour` (inclusive) to `toHour` (exclusive), local time.
public struct ScheduleEntry: Sendable, Hashable, Codable {
    public var fromHour: Int
    public var toHour: Int
    public var activity: ActivityLevel
    /// Fraction of the time spent outdoors, 0…1.
    public var outdoors: Double
    /// `at: home` (the default) or `away`: whether the indoor part is spent at home, where the home's
    /// own monitor measures the air (docs/REFERENCE.md §21), or somewhere else (an office, a school).
    public var atHome: Bool

    public init(fromHour: Int, toHour: Int, activity: ActivityLevel, outdoors: Double, atHome: Bool = true) {
        self.fromHour = fromHour
        self.toHour = toHour
        self.activity = activity
        self.outdoors = outdoors
        self.atHome = atHome
    }
}

/// Units an intake is expressed in.
public enum IntakeUnit: String, Sendable, Hashable {
    /// Micrograms inhaled (`ventilation`).
    case micrograms = "µg"
    /// The original app's unitless points (`boostcamp`).
    case points = "points"
}

/// Estimates the dose inhaled during one slot from the concentration and what the person was doing.
public protocol IntakeModel: Sendable {
    /// The configuration name: `ventilation`, `boostcamp`.
    var name: String { get }
    /// How a Korean report names it: `호흡량(ventilation)`; the configuration name where Korean has no better word.
    var koreanName: String { get }
    var unit: IntakeUnit { get }
    /// The intake of one pollutant in one slot.
    /// - Parameters:
    ///   - concentration: µg/m³ averaged over the slot.
    ///   - localHour: the hour (0–23, in the configured time zone) at which the slot starts.
    ///   - walkingDistance: metres walked in the slot, from imported activity data, if any.
    func intake(concentration: Double, localHour: Int, walkingDistance: Double?) -> Double
}

extension IntakeModel {
    /// The intake of both pollutants; an unknown concentration gives an unknown intake.
    public func intake(_ concentration: DustPair<Double?>, localHour: Int, walkingDistance: Double?) -> DustPair<Double?> {
        concentration.map { value in
            value.map { intake(concentration: $0, localHour: localHour, walkingDistance: walkingDistance) }
        }
    }
}

/// `intake = C × V(a) × (f + (1 − f) × F)` in µg (docs/REFERENCE.md §4).
///
/// `V(a)` is the ventilation rate of the activity level (m³/h), `f` the outdoor fraction and `F`
/// the indoor infiltration factor. Walking `d` metres in the slot raises `f` to at least
/// `min(1, d / 4800)` and the activity to at least light.
public struct VentilationIntakeModel: IntakeModel {
    /// Adult mean ventilation rates, m³/h (US EPA Exposure Factors Handbook 2011, ch. 6).
    public static let defaultRates: [ActivityLevel: Double] = [
        .sleep: 0.27, .sedentary: 0.26, .light: 0.72, .moderate: 1.6, .high: 3.0,
    ]

    /// The default routine of docs/REFERENCE.md §4.
    public static let defaultSchedule: [ScheduleEntry] = [
        ScheduleEntry(fromHour: 0, toHour: 7, activity: .sleep, outdoors: 0),
        ScheduleEntry(fromHour: 7, toHour: 9, activity: .light, outdoors: 0.5),
        ScheduleEntry(fromHour: 9, toHour: 18, activity: .sedentary, outdoors: 0),
        ScheduleEntry(fromHour: 18, toHour: 19, activity: .light, outdoors: 0.5),
        ScheduleEntry(fromHour: 19, toHour: 23, activity: .sedentary, outdoors: 0),
        ScheduleEntry(fromHour: 23, toHour: 24, activity: .sleep, outdoors: 0),
    ]

    /// Walking this many metres in an hour counts as spending the whole hour outdoors (4.8 km/h).
    public static let outdoorWalkingMetresPerHour = 4800.0

    public let name = "ventilation"
    public let koreanName = "호흡량(ventilation)"
    public let unit = IntakeUnit.micrograms
    public let infiltration: Double
    public let rates: [ActivityLevel: Double]
    /// The schedule entry for each local hour 0…23.
    private let entryByHour: [ScheduleEntry]

    /// Creates the model; `schedule` must cover every hour 0–24 exactly once (see `validate`).
    public init(
        infiltration: Double = 0.7, rates: [ActivityLevel: Double] = defaultRates, schedule: [ScheduleEntry] = defaultSchedule
    ) throws(ConfigurationError) {
        try Self.validate(infiltration: infiltration, rates: rates, schedule: schedule)
        self.infiltration = infiltration
        self.rates = rates
        self.entryByHour = (0..<24).map { hour in schedule.first { $0.fromHour <= hour && hour < $0.toHour }! }
    }

    /// The schedule entry in force at a local hour.
    public func entry(atHour hour: Int) -> ScheduleEntry { entryByHour[((hour % 24) + 24) % 24] }

    public func intake(concentration: Double, localHour: Int, walkingDistance: Double?) -> Double {
        let scheduled = scheduledLevel(atHour: localHour, walkingDistance: walkingDistance)
        return concentration * rates[scheduled.level]! * (scheduled.outdoors + (1 - scheduled.outdoors) * infiltration)
    }

    /// §4's level and outdoor fraction of an hour: the schedule's, raised by walking.
    public func scheduledLevel(
        atHour localHour: Int, walkingDistance: Double?
    ) -> (
        level: ActivityLevel, outdoors: Double, source: LevelSource
    ) {
        let entry = entry(atHour: localHour)
        guard let walkingDistance, walkingDistance > 0 else { return (entry.activity, entry.outdoors, .schedule) }
        let outdoors = max(entry.outdoors, min(1, walkingDistance / Self.outdoorWalkingMetresPerHour))
        return (max(entry.activity, .light), outdoors, .walking)
    }

    static func validate(infiltration: Double, rates: [ActivityLevel: Double], schedule: [ScheduleEntry]) throws(ConfigurationError) {
        guard infiltration.isFinite, (0...1).contains(infiltration) else {
            throw ConfigurationError(key: "intake.infiltration", problem: "must be between 0 and 1, not \(infiltration)")
        }
        for level in ActivityLevel.allCases {
            guard let rate = rates[level], rate.isFinite, rate >= 0 else {
                throw ConfigurationError(key: "intake.ventilation.\(level.rawValue)", problem: "must be a non-negative number of m³/h")
            }
        }
        for entry in schedule {
            guard (0...23).contains(entry.fromHour), (1...24).contains(entry.toHour), entry.fromHour < entry.toHour else {
                throw Self.entryError(entry)
            }
            guard entry.outdoors.isFinite, (0...1).contains(entry.outdoors) else { throw Self.entryError(entry) }
        }
        for hour in 0..<24 {
            let covering = schedule.filter { $0.fromHour <= hour && hour < $0.toHour }.count
            guard covering == 1 else { throw Self.coverageError(hour: hour, entries: covering) }
        }
    }

    private static func entryError(_ entry: ScheduleEntry) -> ConfigurationError {
        ConfigurationError(
            key: "intake.schedule",
            problem: "entry {from: \(entry.fromHour), to: \(entry.toHour)} needs 0 ≤ from < to ≤ 24 and outdoors between 0 and 1")
    }

    private static func coverageError(hour: Int, entries: Int) -> ConfigurationError {
        ConfigurationError(
            key: "intake.schedule",
            problem: entries == 0
                ? "does not cover the hour \(hour):00; the entries must cover 0–24 without gaps"
                : "covers the hour \(hour):00 \(entries) times; the entries must not overlap")
    }
}

/// The original iOS app's formula, kept for comparison: `floor(C × d × 0.036 × 0.01)` points,
/// with `C` the integer concentration and `d` the metres walked in the slot. Less than 500 m
/// (indoors) or no distance gives 0.
public struct BoostcampIntakeModel: IntakeModel {
    public let name = "boostcamp"
    public var koreanName: String { name }
    public let unit = IntakeUnit.points
    /// Below this many metres in an hour the app assumed the person stayed indoors.
    public static let indoorThresholdMetres = 500.0

    public init() {}

    public func intake(concentration: Double, localHour: Int, walkingDistance: Double?) -> Double {
        guard let distance = walkingDistance, distance >= Self.indoorThresholdMetres else { return 0 }
        // Same operand order as the app, so the floating-point result and its floor match.
        return (concentration.rounded(.towardZero) * distance * 0.036 * 0.01).rounded(.down)
    }
}

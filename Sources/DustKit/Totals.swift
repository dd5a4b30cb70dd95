/// One slot as the user sees it: the concentration (from the primary station or a fallback), its
/// source, and the intake computed from it and the activity of that hour.
public struct HourlyExposure: Sendable, Hashable {
    public var slot: Slot
    public var concentration: DustPair<Double?>
    /// The station that supplied each value; nil where the value is unknown.
    public var source: DustPair<String?>
    /// AirKorea's flags on the primary station's reading, if it had any.
    public var flag: DustPair<String?>
    public var intake: DustPair<Double?>
    /// Metres walked in the slot, from imported activity data.
    public var walkingDistance: Double?
    /// The primary station's gases and index for the slot (docs/REFERENCE.md §17); fallbacks fill PM only.
    public var gases: GasReading
    /// The ventilation the intake used and where its level came from (docs/REFERENCE.md §18); nil
    /// for a model that does not breathe (`boostcamp`).
    public var breathing: SlotBreathing?
    /// Where the intake's concentration came from (docs/REFERENCE.md §19); nil when location is not
    /// in use (no national data for the person, no `home`, no track): the home station's value.
    public var place: SlotPlaceSummary?
    /// What the person's indoor sensors measured and whether the dose used it (docs/REFERENCE.md §21);
    /// nil for a person without sensors (every output then as before sensors existed).
    public var indoor: IndoorHour?

    public init(
        slot: Slot, concentration: DustPair<Double?>, source: DustPair<String?>, flag: DustPair<String?>,
        intake: DustPair<Double?>, walkingDistance: Double? = nil, gases: GasReading = .unknown, breathing: SlotBreathing? = nil,
        place: SlotPlaceSummary? = nil, indoor: IndoorHour? = nil
    ) {
        self.indoor = indoor
        self.breathing = breathing
        self.place = place
        self.slot = slot
        self.concentration = concentration
        self.source = source
        self.flag = flag
        self.intake = intake
        self.walkingDistance = walkingDistance
        self.gases = gases
    }
}

/// Totals over a day or a week (docs/REFERENCE.md §5). Every value is unknown (nil) when no hour was measured.
public struct ExposureTotals: Sendable, Hashable {
    /// Slots with a known concentration.
    public var hours: DustPair<Int>
    /// Mean of the known hourly concentrations, µg/m³.
    public var mean: DustPair<Double?>
    public var max: DustPair<Double?>
    /// Sum of the known hourly intakes.
    public var intake: DustPair<Double?>
    /// The grade of the mean.
    public var grade: DustPair<DustGrade?>
    /// Whether the mean is above the WHO 24-hour guideline.
    public var whoExceeded: DustPair<Bool?>

    /// Totals of the given hours; grades use the tables in force on `gradedOn`.
    ///
    /// A week's totals are the totals of its hours: intakes and hours add up to the sums of the
    /// days, and the mean is that of every known hour of the week.
    public init(_ exposures: [HourlyExposure], gradedOn date: LocalDate) {
        let perPollutant = DustPair(byPollutant: { pollutant in
            (exposures.compactMap { $0.concentration[pollutant] }, exposures.compactMap { $0.intake[pollutant] })
        })
        self.hours = perPollutant.map { $0.0.count }
        let mean = perPollutant.map { $0.0.isEmpty ? nil : $0.0.reduce(0, +) / Double($0.0.count) }
        self.mean = mean
        max = perPollutant.map { $0.0.max() }
        intake = perPollutant.map { $0.0.isEmpty ? nil : $0.1.reduce(0, +) }
        grade = DustPair(byPollutant: { pollutant in mean[pollutant].map { DustGrade(concentration: $0, of: pollutant, on: date) } })
        whoExceeded = DustPair(byPollutant: { pollutant in mean[pollutant].map { $0 > pollutant.whoDailyGuideline } })
    }
}

/// A day's totals of the gases and the index (docs/REFERENCE.md §17). Gases are judged hour by hour,
/// so each grade is that of the worst hour, not of the mean.
public struct GasTotals: Sendable, Hashable {
    /// One gas over the hours: how many were measured, their mean and maximum (ppm), the max hour's grade.
    public struct GasTotal: Sendable, Hashable {
        public var hours: Int
        public var mean: Double?
        public var max: Double?
        public var maxGrade: DustGrade?

        public init(hours: Int, mean: Double?, max: Double?, maxGrade: DustGrade?) {
            self.hours = hours
            self.mean = mean
            self.max = max
            self.maxGrade = maxGrade
        }
    }

    /// AirKorea's index over the hours: how many reported it, the mean and maximum, and the grade
    /// AirKorea reported with the maximum hour (the first such hour on a tie).
    public struct IndexTotal: Sendable, Hashable {
        public var hours: Int
        public var mean: Double?
        public var max: Int?
        public var maxGrade: DustGrade?

        public init(hours: Int, mean: Double?, max: Int?, maxGrade: DustGrade?) {
            self.hours = hours
            self.mean = mean
            self.max = max
            self.maxGrade = maxGrade
        }
    }

    public var gases: GasValues<GasTotal>
    public var cai: IndexTotal

    public init(_ hours: [GasReading]) {
        gases = GasValues(byGas: { gas in
            let values = hours.compactMap { $0.ppm[gas] }
            let max = values.max()
            return GasTotal(
                hours: values.count, mean: values.isEmpty ? nil : values.reduce(0, +) / Double(values.count), max: max,
                maxGrade: max.map { DustGrade(ppm: $0, of: gas) })
        })
        let indexed = hours.compactMap { hour in hour.cai.map { (value: $0, grade: hour.caiGrade) } }
        let worst = indexed.max { $0.value < $1.value }
        cai = IndexTotal(
            hours: indexed.count,
            mean: indexed.isEmpty ? nil : Double(indexed.reduce(0) { $0 + $1.value }) / Double(indexed.count),
            max: worst?.value, maxGrade: worst?.grade)
    }

    /// Whether any hour had a gas value or an index.
    public var hasKnownValue: Bool {
        cai.hours > 0 || Gas.allCases.contains { gases[$0].hours > 0 }
    }
}

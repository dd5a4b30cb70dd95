/// One person of the household and what makes their dose theirs (docs/REFERENCE.md §18).
public struct Person: Sendable, Hashable {
    /// The one person an installation without `people:` has, holding §4's settings.
    public static let defaultName = "me"

    public var name: String
    /// Chooses the row of `AgeVentilationTable`; nil: the configured adult rates.
    public var born: BirthMonth?
    public var sex: Sex?
    /// The home station; nil only when no `station.name` is configured either.
    public var station: String?
    /// `F` of §4 for this person's home.
    public var infiltration: Double
    public var schedule: [ScheduleEntry]
    /// Configured beats/min at rest; nil: Health's, else 70.
    public var restingHeartRate: Double?
    /// Where the person lives (`home: {lat, lon}`): the value at home is weighted from the nearest
    /// stations (docs/REFERENCE.md §19); nil: the home station's value.
    public var home: GeoPoint?
    /// The indoor sensors where the person lives (`indoor.sensors[].people`, docs/REFERENCE.md §21), by
    /// name; empty: the indoor air is §4's estimate `F × C_out`.
    public var indoorSensors: [String]

    public init(
        name: String, born: BirthMonth? = nil, sex: Sex? = nil, station: String?, infiltration: Double = 0.7,
        schedule: [ScheduleEntry] = VentilationIntakeModel.defaultSchedule, restingHeartRate: Double? = nil, home: GeoPoint? = nil,
        indoorSensors: [String] = []
    ) {
        self.indoorSensors = indoorSensors
        self.name = name
        self.born = born
        self.sex = sex
        self.station = station
        self.infiltration = infiltration
        self.schedule = schedule
        self.restingHeartRate = restingHeartRate
        self.home = home
    }

    /// Whether `name` can name a person: `[a-z0-9_-]{1,32}`, or Hangul syllables (up to 32).
    public static func isValidName(_ name: String) -> Bool {
        guard (1...32).contains(name.unicodeScalars.count) else { return false }
        let ascii = name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
        let hangul = name.unicodeScalars.allSatisfy { (0xAC00...0xD7A3).contains($0.value) }
        return ascii || hangul
    }
}

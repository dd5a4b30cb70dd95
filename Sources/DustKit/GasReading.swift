/// The four gases AirKorea measures beside PM (docs/REFERENCE.md §17), in the order FineDust shows them.
public enum Gas: String, Sendable, Hashable, CaseIterable, Codable {
    case o3
    case no2
    case co
    case so2

    /// The name on air-quality reports: "O3", "NO2", "CO", "SO2" (ASCII, so every terminal shows it).
    public var displayName: String {
        switch self {
        case .o3: "O3"
        case .no2: "NO2"
        case .co: "CO"
        case .so2: "SO2"
        }
    }

    /// 오존, 이산화질소, 일산화탄소, 아황산가스.
    public var koreanName: String {
        switch self {
        case .o3: "오존"
        case .no2: "이산화질소"
        case .co: "일산화탄소"
        case .so2: "아황산가스"
        }
    }

    /// The hourly values (ppm) taken as a measurement; outside them no instrument in the network
    /// reads, so the value is implausible (docs/REFERENCE.md §17).
    public var plausiblePPM: ClosedRange<Double> {
        switch self {
        case .co: 0...50
        case .o3, .no2, .so2: 0...1
        }
    }

    /// Decimals a person reads the value with: AirKorea publishes CO to 0.1 ppm (new answers to 0.01)
    /// and the others to 0.001.
    public var displayDecimals: Int {
        switch self {
        case .co: 2
        case .o3, .no2, .so2: 3
        }
    }

    /// The upper bounds (ppm, inclusive) of 좋음, 보통 and 나쁨 by the Korean CAI bands of docs/REFERENCE.md §17.
    public var gradeUpperBounds: (good: Double, moderate: Double, bad: Double) {
        switch self {
        case .o3: (0.030, 0.090, 0.150)
        case .no2: (0.030, 0.060, 0.200)
        case .co: (2.00, 9.00, 15.00)
        case .so2: (0.020, 0.050, 0.150)
        }
    }
}

extension DustGrade {
    /// The grade of a gas's 1-hour value (ppm): the first CAI band whose upper bound the value does
    /// not exceed (docs/REFERENCE.md §17).
    ///
    /// Plain `Double` comparison is exact at the edges: a value parsed from AirKorea's decimal text
    /// and the bound written here are each the double nearest their decimal, and that rounding never
    /// reverses an order, so 0.030 is 좋음 and 0.031 보통 for O₃ as the table says.
    public init(ppm: Double, of gas: Gas) {
        let bounds = gas.gradeUpperBounds
        if ppm <= bounds.good {
            self = .good
        } else if ppm <= bounds.moderate {
            self = .moderate
        } else if ppm <= bounds.bad {
            self = .bad
        } else {
            self = .veryBad
        }
    }
}

/// One value per gas, as `DustPair` holds one per particulate pollutant.
public struct GasValues<Value> {
    public var o3: Value
    public var no2: Value
    public var co: Value
    public var so2: Value

    public init(o3: Value, no2: Value, co: Value, so2: Value) {
        self.o3 = o3
        self.no2 = no2
        self.co = co
        self.so2 = so2
    }

    /// The same value for every gas.
    public init(repeating value: Value) {
        self.init(o3: value, no2: value, co: value, so2: value)
    }

    /// Each value computed from its gas.
    public init<E: Error>(byGas make: (Gas) throws(E) -> Value) throws(E) {
        self.init(o3: try make(.o3), no2: try make(.no2), co: try make(.co), so2: try make(.so2))
    }

    /// The value of one gas.
    public subscript(gas: Gas) -> Value {
        get {
            switch gas {
            case .o3: o3
            case .no2: no2
            case .co: co
            case .so2: so2
            }
        }
        set {
            switch gas {
            case .o3: o3 = newValue
            case .no2: no2 = newValue
            case .co: co = newValue
            case .so2: so2 = newValue
            }
        }
    }

    /// Every value transformed by the same function.
    public func map<T, E: Error>(_ transform: (Value) throws(E) -> T) throws(E) -> GasValues<T> {
        GasValues<T>(o3: try transform(o3), no2: try transform(no2), co: try transform(co), so2: try transform(so2))
    }
}

extension GasValues: Sendable where Value: Sendable {}
extension GasValues: Equatable where Value: Equatable {}
extension GasValues: Hashable where Value: Hashable {}

/// One station's gases and integrated index (통합대기환경지수, CAI) for one hour, beside its `DustPair`
/// of PM (docs/REFERENCE.md §17). Unknown is nil, never 0.
public struct GasReading: Hashable, Sendable {
    /// The hourly value in ppm; nil when AirKorea reported `-`, nothing, a flag, or an implausible number.
    public var ppm: GasValues<Double?>
    /// AirKorea's flag (`o3Flag` …), or `HourlyReading.implausibleFlag` for a number no instrument reads.
    public var flag: GasValues<String?>
    /// AirKorea's `khaiValue`, 0–500.
    public var cai: Int?
    /// AirKorea's `khaiGrade`.
    public var caiGrade: DustGrade?
    /// Which elements the response carried: one it left out never erases a stored value.
    public var reported: GasFields

    /// AirKorea's integrated index runs from 0 to 500; anything else is unknown.
    public static let plausibleCAI: ClosedRange<Int> = 0...500

    /// Nothing known, as a stored slot without gases reads back (and as a reading made without gases
    /// says): every element counts as reported, like `HourlyReading`'s PM fields by default.
    public static let unknown = GasReading(ppm: GasValues(repeating: nil), cai: nil, caiGrade: nil)

    /// Nothing known and nothing reported: what the parser starts an item with, so an answer without
    /// gas elements (an old or `ver`-less one) leaves the stored gases alone.
    public static let unreported = GasReading(ppm: GasValues(repeating: nil), cai: nil, caiGrade: nil, reported: [])

    public init(
        ppm: GasValues<Double?>, flag: GasValues<String?> = .init(repeating: nil), cai: Int?, caiGrade: DustGrade?,
        reported: GasFields = .all
    ) {
        self.ppm = ppm
        self.flag = flag
        self.cai = cai
        self.caiGrade = caiGrade
        self.reported = reported
    }

    /// The CAI grade of each known value (docs/REFERENCE.md §17).
    public var grade: GasValues<DustGrade?> {
        GasValues(byGas: { gas in ppm[gas].map { DustGrade(ppm: $0, of: gas) } })
    }

    /// Whether any gas value or the index is known.
    public var hasKnownValue: Bool {
        // As `GasTotals` counts an hour: a grade without its index is not a value to show.
        Gas.allCases.contains { ppm[$0] != nil } || cai != nil
    }
}

/// The gas elements an AirKorea item carried.
public struct GasFields: OptionSet, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The value (`o3Value`) or the flag (`o3Flag`) of one gas.
    public static func value(of gas: Gas) -> GasFields {
        switch gas {
        case .o3: GasFields(rawValue: 1)
        case .no2: GasFields(rawValue: 2)
        case .co: GasFields(rawValue: 4)
        case .so2: GasFields(rawValue: 8)
        }
    }
    /// `khaiValue`.
    public static let cai = GasFields(rawValue: 16)
    /// `khaiGrade`.
    public static let caiGrade = GasFields(rawValue: 32)

    public static let all = GasFields(rawValue: 63)
}

/// PM10 ("fine dust", 미세먼지) and PM2.5 ("ultra-fine dust", 초미세먼지) travelling together as one value.
///
/// Everything FineDust measures or computes comes in this pair: concentrations are
/// `DustPair<Double?>`, hours measured `DustPair<Int>`, grades `DustPair<DustGrade?>`.
public struct DustPair<Value> {
    /// The PM10 value.
    public var fineDust: Value
    /// The PM2.5 value.
    public var ultraFineDust: Value

    /// Creates a pair from its PM10 and PM2.5 values.
    public init(fineDust: Value, ultraFineDust: Value) {
        self.fineDust = fineDust
        self.ultraFineDust = ultraFineDust
    }

    /// Creates a pair whose two values are the same.
    public init(repeating value: Value) {
        self.init(fineDust: value, ultraFineDust: value)
    }

    /// Creates a pair by computing each value from its pollutant.
    public init<E: Error>(byPollutant make: (Pollutant) throws(E) -> Value) throws(E) {
        self.init(fineDust: try make(.pm10), ultraFineDust: try make(.pm25))
    }

    /// The value for one pollutant.
    public subscript(pollutant: Pollutant) -> Value {
        get {
            switch pollutant {
            case .pm10: fineDust
            case .pm25: ultraFineDust
            }
        }
        set {
            switch pollutant {
            case .pm10: fineDust = newValue
            case .pm25: ultraFineDust = newValue
            }
        }
    }

    /// Transforms both values with the same function.
    public func map<T, E: Error>(_ transform: (Value) throws(E) -> T) throws(E) -> DustPair<T> {
        DustPair<T>(fineDust: try transform(fineDust), ultraFineDust: try transform(ultraFineDust))
    }

    /// Pairs each value with the value of the same pollutant in `other`.
    public func zip<Other>(_ other: DustPair<Other>) -> DustPair<(Value, Other)> {
        DustPair<(Value, Other)>(
            fineDust: (fineDust, other.fineDust),
            ultraFineDust: (ultraFineDust, other.ultraFineDust)
        )
    }

    /// Combines two pairs pollutant by pollutant.
    public static func zip<A, B>(_ first: DustPair<A>, _ second: DustPair<B>) -> DustPair<(A, B)>
    where Value == (A, B) {
        first.zip(second)
    }
}

extension DustPair: Sendable where Value: Sendable {}
extension DustPair: Equatable where Value: Equatable {}
extension DustPair: Hashable where Value: Hashable {}

extension DustPair: CustomStringConvertible {
    public var description: String { "PM10 \(fineDust), PM2.5 \(ultraFineDust)" }
}

/// One of the two particulate pollutants FineDust tracks.
public enum Pollutant: String, Sendable, Hashable, CaseIterable, Codable {
    case pm10
    case pm25

    /// The name on air-quality reports: "PM10", "PM2.5".
    public var displayName: String {
        switch self {
        case .pm10: "PM10"
        case .pm25: "PM2.5"
        }
    }

    /// The Korean everyday name: 미세먼지, 초미세먼지.
    public var koreanName: String {
        switch self {
        case .pm10: "미세먼지"
        case .pm25: "초미세먼지"
        }
    }

    /// WHO 2021 air-quality guideline for the 24-hour mean, µg/m³.
    public var whoDailyGuideline: Double {
        switch self {
        case .pm10: 45
        case .pm25: 15
        }
    }

    /// WHO 2021 air-quality guideline for the annual mean, µg/m³.
    public var whoAnnualGuideline: Double {
        switch self {
        case .pm10: 15
        case .pm25: 5
        }
    }
}

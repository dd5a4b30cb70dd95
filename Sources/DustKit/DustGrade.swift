/// AirKorea's four-step air-quality grade (통합대기환경지수 단계).
public enum DustGrade: Int, Sendable, Hashable, Comparable, CaseIterable, Codable {
    case good = 1
    case moderate = 2
    case bad = 3
    case veryBad = 4

    /// The first day AirKorea graded PM2.5 with the stricter table (0–15 / 16–35 / 36–75 / ≥ 76).
    public static let stricterUltraFineDustTableStart = LocalDate(year: 2018, month: 3, day: 27)

    /// The grade AirKorea publishes as a code `"1"`…`"4"`; anything else is unknown.
    public init?(code: String) {
        guard code.utf8.count == 1, let value = Int(code), let grade = DustGrade(rawValue: value) else { return nil }
        self = grade
    }

    /// The grade of a concentration (µg/m³) on a date, by AirKorea's tables.
    ///
    /// Only the integer part counts (AirKorea grades truncated values: 35.9 µg/m³ of PM2.5 is 보통).
    /// Negative concentrations do not occur in valid data and grade as `good`.
    public init(concentration: Double, of pollutant: Pollutant, on date: LocalDate) {
        let value = concentration.rounded(.towardZero)
        let upperBounds: (Double, Double, Double)
        switch pollutant {
        case .pm10:
            upperBounds = (30, 80, 150)
        case .pm25 where date < Self.stricterUltraFineDustTableStart:
            upperBounds = (15, 50, 100)
        case .pm25:
            upperBounds = (15, 35, 75)
        }
        if value <= upperBounds.0 {
            self = .good
        } else if value <= upperBounds.1 {
            self = .moderate
        } else if value <= upperBounds.2 {
            self = .bad
        } else {
            self = .veryBad
        }
    }

    public static func < (lhs: DustGrade, rhs: DustGrade) -> Bool { lhs.rawValue < rhs.rawValue }

    /// 좋음, 보통, 나쁨, 매우나쁨.
    public var koreanName: String {
        switch self {
        case .good: "좋음"
        case .moderate: "보통"
        case .bad: "나쁨"
        case .veryBad: "매우나쁨"
        }
    }

    /// The grade a Korean word names (`koreanName`: 좋음, 보통, 나쁨, 매우나쁨); nil for any other word.
    public init?(koreanName word: some StringProtocol) {
        guard let grade = DustGrade.allCases.first(where: { $0.koreanName == word }) else { return nil }
        self = grade
    }

    /// `나쁨 (bad)`: the Korean name with the English in parentheses, as alerts, reports and forecasts show a grade.
    public var bilingualName: String { "\(koreanName) (\(englishName))" }

    /// good, moderate, bad, very bad.
    public var englishName: String {
        switch self {
        case .good: "good"
        case .moderate: "moderate"
        case .bad: "bad"
        case .veryBad: "very bad"
        }
    }
}

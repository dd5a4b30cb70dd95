import Foundation

/// The 19 regions of AirKorea's (NIER's) daily dust forecast, named as `informGrade` names them.
public enum ForecastRegion: String, Sendable, Hashable, CaseIterable, Codable {
    case seoul = "서울"
    case jeju = "제주"
    case jeonnam = "전남"
    case jeonbuk = "전북"
    case gwangju = "광주"
    case gyeongnam = "경남"
    case gyeongbuk = "경북"
    case ulsan = "울산"
    case daegu = "대구"
    case busan = "부산"
    case chungnam = "충남"
    case chungbuk = "충북"
    case sejong = "세종"
    case daejeon = "대전"
    case yeongdong = "영동"
    case yeongseo = "영서"
    case gyeonggiSouth = "경기남부"
    case gyeonggiNorth = "경기북부"
    case incheon = "인천"

    /// The region's name in English, for `dustctl` and the web page.
    public var englishName: String {
        switch self {
        case .seoul: "Seoul"
        case .jeju: "Jeju"
        case .jeonnam: "South Jeolla"
        case .jeonbuk: "North Jeolla"
        case .gwangju: "Gwangju"
        case .gyeongnam: "South Gyeongsang"
        case .gyeongbuk: "North Gyeongsang"
        case .ulsan: "Ulsan"
        case .daegu: "Daegu"
        case .busan: "Busan"
        case .chungnam: "South Chungcheong"
        case .chungbuk: "North Chungcheong"
        case .sejong: "Sejong"
        case .daejeon: "Daejeon"
        case .yeongdong: "Gangwon East (Yeongdong)"
        case .yeongseo: "Gangwon West (Yeongseo)"
        case .gyeonggiSouth: "Gyeonggi South"
        case .gyeonggiNorth: "Gyeonggi North"
        case .incheon: "Incheon"
        }
    }

    /// The region named `name` (`서울`, `경기북부`, also `강원영동`/`강원영서` as news and the
    /// weekly forecast write them); nil for anything else.
    public init?(name: some StringProtocol) {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        switch trimmed {
        case "강원영동": self = .yeongdong
        case "강원영서": self = .yeongseo
        default:
            guard let region = ForecastRegion(rawValue: trimmed) else { return nil }
            self = region
        }
    }
}

/// A grade as the forecast words it: one of the four grades, or a word FineDust does not know
/// (kept as it came, so a new word is shown and not mistaken for a grade).
public enum ForecastGrade: Sendable, Hashable {
    case known(DustGrade)
    case unknown(String)

    /// `좋음` → 1, `보통` → 2, `나쁨` → 3, `매우나쁨` (also `매우 나쁨`) → 4; any other word is unknown.
    public init(word: some StringProtocol) {
        if let grade = DustGrade(koreanName: String(word.filter { !$0.isWhitespace })) {
            self = .known(grade)
        } else {
            self = .unknown(TerminalSafeText.sanitized(word.trimmingCharacters(in: .whitespaces)))
        }
    }

    /// The grade, when the word was one of the four.
    public var grade: DustGrade? {
        if case .known(let grade) = self { return grade }
        return nil
    }

    /// The word as stored: the Korean grade name, or the unknown word as it came.
    public var word: String {
        switch self {
        case .known(let grade): grade.koreanName
        case .unknown(let word): word
        }
    }
}

/// The regions and grades of one `informGrade` string, e.g. `서울 : 보통,제주 : 좋음,…,인천 : 보통`.
public struct ForecastGrades: Sendable, Hashable {
    /// The grade of each region the string names; a region it does not name is absent.
    public var byRegion: [ForecastRegion: ForecastGrade]
    /// Entries naming no known region (kept for the log, never guessed at).
    public var unrecognized: [String]

    public init(byRegion: [ForecastRegion: ForecastGrade] = [:], unrecognized: [String] = []) {
        self.byRegion = byRegion
        self.unrecognized = unrecognized
    }

    /// Splits `informGrade` at commas into `region : word` entries. White space around the parts
    /// does not matter; an entry without a colon or with an unknown region is unrecognized; a
    /// region named twice keeps its last grade.
    public init(informGrade: some StringProtocol) {
        self.init()
        for entry in informGrade.split(separator: ",", omittingEmptySubsequences: true) {
            let text = entry.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { continue }
            guard let colon = text.firstIndex(of: ":"), let region = ForecastRegion(name: text[..<colon]) else {
                unrecognized.append(TerminalSafeText.sanitized(text))
                continue
            }
            byRegion[region] = ForecastGrade(word: text[text.index(after: colon)...])
        }
    }
}

/// One published forecast: one pollutant, one forecast date, one issue (`dataTime`).
public struct DustForecast: Sendable, Hashable {
    /// PM10 (`informCode` `PM10`) or PM2.5 (`PM25`).
    public var pollutant: Pollutant
    /// When it was published (`dataTime`, KST).
    public var issuedAt: Date
    /// The day it forecasts (`informData`).
    public var forecastDate: LocalDate
    public var grades: ForecastGrades
    /// `informOverall`: the summary sentence, network text made terminal-safe.
    public var overall: String?
    /// `informCause`: why, network text made terminal-safe.
    public var cause: String?

    public init(
        pollutant: Pollutant, issuedAt: Date, forecastDate: LocalDate, grades: ForecastGrades,
        overall: String? = nil, cause: String? = nil
    ) {
        self.pollutant = pollutant
        self.issuedAt = issuedAt
        self.forecastDate = forecastDate
        self.grades = grades
        self.overall = overall.map(TerminalSafeText.sanitized)
        self.cause = cause.map(TerminalSafeText.sanitized)
    }
}

extension Pollutant {
    /// The pollutant of a forecast `informCode` (`PM10`, `PM25`, also `PM2.5`); nil for others (`O3`).
    public init?(informCode: some StringProtocol) {
        switch informCode.trimmingCharacters(in: .whitespaces).uppercased() {
        case "PM10": self = .pm10
        case "PM25", "PM2.5": self = .pm25
        default: return nil
        }
    }

    /// The `InformCode` a forecast request names: `PM10`, `PM25`.
    public var informCode: String {
        switch self {
        case .pm10: "PM10"
        case .pm25: "PM25"
        }
    }
}

/// The forecast's clock: issue times (`dataTime`) and the publication hours.
public enum ForecastIssueTime {
    /// The KST hours at which NIER publishes the forecast (about 05, 11, 17 and 23 KST).
    public static let publicationHours = [5, 11, 17, 23]

    /// The instant of a forecast `dataTime`, in KST.
    ///
    /// Accepted: `2026-11-22 17시 발표` (the current form), the same without ` 발표`, without `시`
    /// (`2026-11-22 17`), with a one-digit hour (`2020-01-01 5시 발표`), or with no space before
    /// the hour; hour `24` is the next day's midnight. Anything else (minutes, another word) is nil:
    /// a time FineDust cannot read for sure is not guessed.
    public static func instant(ofDataTime text: some StringProtocol) -> Date? {
        var rest = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        guard rest.count >= 10, let date = LocalDate(rest.prefix(10)) else { return nil }
        rest = rest.dropFirst(10)
        rest = rest.drop(while: { $0 == " " })
        for suffix in ["발표", " "] where rest.hasSuffix(suffix) {
            rest = rest.dropLast(suffix.count)
        }
        rest = Substring(rest.trimmingCharacters(in: .whitespaces))
        if rest.hasSuffix("시") { rest = rest.dropLast() }
        guard (1...2).contains(rest.count), rest.allSatisfy({ $0.isASCII && $0.isNumber }),
            let hour = Int(rest), (0...24).contains(hour)
        else { return nil }
        return KoreaStandardTime.instant(hour: hour, of: date)
    }

    /// `2026-11-22 17시` — how FineDust shows an issue time.
    public static func label(_ instant: Date) -> String {
        let iso = KoreaStandardTime.iso8601(instant)
        return "\(iso.prefix(10)) \(iso.dropFirst(11).prefix(2))시"
    }
}

/// One region's grade for one day from one stored issue: what `dustctl forecast` and the web show.
public struct RegionalForecast: Sendable, Hashable {
    public var pollutant: Pollutant
    public var region: ForecastRegion
    public var forecastDate: LocalDate
    public var issuedAt: Date
    public var grade: ForecastGrade
    public var overall: String?
    public var cause: String?

    public init(
        pollutant: Pollutant, region: ForecastRegion, forecastDate: LocalDate, issuedAt: Date, grade: ForecastGrade,
        overall: String? = nil, cause: String? = nil
    ) {
        self.pollutant = pollutant
        self.region = region
        self.forecastDate = forecastDate
        self.issuedAt = issuedAt
        self.grade = grade
        self.overall = overall
        self.cause = cause
    }
}

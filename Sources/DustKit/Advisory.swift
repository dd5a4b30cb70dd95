import Foundation

/// What an official advisory (주의보/경보) is issued for (docs/REFERENCE.md §17): each has an
/// AirKorea operation of its own.
public enum AdvisoryPollutant: String, Sendable, Hashable, CaseIterable, Codable {
    case pm10 = "PM10"
    case pm25 = "PM25"
    case o3 = "O3"

    /// The name on air-quality reports: "PM10", "PM2.5", "O3".
    public var displayName: String {
        switch self {
        case .pm10: "PM10"
        case .pm25: "PM2.5"
        case .o3: "O3"
        }
    }

    /// The Korean everyday name: 미세먼지, 초미세먼지, 오존.
    public var koreanName: String {
        switch self {
        case .pm10: "미세먼지"
        case .pm25: "초미세먼지"
        case .o3: "오존"
        }
    }

    /// The data.go.kr service a key must be approved for (활용신청) to read these advisories.
    public var serviceName: String {
        switch self {
        case .pm10, .pm25: "한국환경공단_에어코리아_미세먼지 경보 발령 현황"
        case .o3: "한국환경공단_에어코리아_오존 경보 발령 현황"
        }
    }
}

/// How serious an advisory is: 주의보 (1), 경보 (2), and for ozone 중대경보 (3). A word FineDust does
/// not know has no rank; one that is not Korean words is never echoed (`ServerVocabulary.unknownValue`).
public enum AdvisoryLevel: Sendable, Hashable {
    /// 주의보.
    case watch
    /// 경보.
    case warning
    /// 중대경보 (ozone only).
    case emergency
    /// A word (or number) AirKorea sent that is none of the above, when it is Korean words;
    /// otherwise `ServerVocabulary.unknownValue`.
    case unknown(String)

    /// Reads `issueGbn` (`주의보`, `경보`) or ozone's `issueLvl` (the word, or its number `1`–`3`).
    public init(word: String) {
        switch word.trimmingWhiteSpace {
        case "주의보", "1": self = .watch
        case "경보", "2": self = .warning
        case "중대경보", "3": self = .emergency
        // A Korean word FineDust does not know (해제, 특별경보) is kept: it holds no letter of a key.
        default:
            self = .unknown(word.trimmingWhiteSpace.isEmpty || ServerVocabulary.isKoreanText(word) ? word : ServerVocabulary.unknownValue)
        }
    }

    /// 1 주의보, 2 경보, 3 중대경보; nil when unknown (the alert metric `advisory.level`).
    public var rank: Int? {
        switch self {
        case .watch: 1
        case .warning: 2
        case .emergency: 3
        case .unknown: nil
        }
    }

    /// The Korean word, or the word as it came.
    public var word: String {
        switch self {
        case .watch: "주의보"
        case .warning: "경보"
        case .emergency: "중대경보"
        // A missing level word is shown as such, never as an empty gap in a line.
        case .unknown(let word): word.trimmingWhiteSpace.isEmpty ? "?" : word
        }
    }

    /// A fixed English name: what JSON keys and metric labels carry (`unknown` for any other word, so a
    /// server cannot grow a label set).
    public var name: String {
        switch self {
        case .watch: "watch"
        case .warning: "warning"
        case .emergency: "emergency"
        case .unknown: "unknown"
        }
    }
}

/// The district (시도, as AirKorea's `districtName` and `sidoName` spell it: 서울, 경기, …) and optional
/// 권역 whose advisories concern the user (`advisories.district`, `advisories.area`).
public struct AdvisoryRegion: Sendable, Hashable {
    public var district: String
    /// nil: every 권역 of the district.
    public var area: String?

    /// The 17 시도 as AirKorea's `districtName` and `sidoName` write them.
    public static let districts = [
        "서울", "부산", "대구", "인천", "광주", "대전", "울산", "세종", "경기", "강원", "충북", "충남", "전북", "전남", "경북", "경남", "제주",
    ]

    public init(district: String, area: String? = nil) {
        self.district = district.trimmingWhiteSpace
        let area = area?.trimmingWhiteSpace
        self.area = area?.isEmpty == false ? area : nil
    }
}

/// One official advisory (주의보/경보) as AirKorea published it (docs/REFERENCE.md §17).
public struct Advisory: Sendable, Hashable {
    public var pollutant: AdvisoryPollutant
    /// What identifies the advisory within its operation, so that a revision (a clear time arriving
    /// later) replaces it: the `sn` AirKorea numbers PM advisories with, and for items without one
    /// (ozone's) `key(district:area:issuedAt:)`, which a revision does not change.
    public var key: String
    /// The 시도 (`districtName`).
    public var district: String
    /// The 권역 (`moveName`), e.g. 도심권; nil when AirKorea named none.
    public var area: String?
    public var level: AdvisoryLevel
    public var issuedAt: Date
    /// nil while the advisory is in force.
    public var clearedAt: Date?
    /// The concentration that triggered it (µg/m³, ppm for ozone); nil when not a number.
    public var issueValue: Double?
    /// The concentration at the clear.
    public var clearValue: Double?
    /// The highest concentration while it was in force (ozone's `maxVal`).
    public var maxValue: Double?

    public init(
        pollutant: AdvisoryPollutant, key: String, district: String, area: String?, level: AdvisoryLevel, issuedAt: Date,
        clearedAt: Date? = nil, issueValue: Double? = nil, clearValue: Double? = nil, maxValue: Double? = nil
    ) {
        self.pollutant = pollutant
        self.key = key
        self.district = district
        self.area = area
        self.level = level
        self.issuedAt = issuedAt
        self.clearedAt = clearedAt
        self.issueValue = issueValue
        self.clearValue = clearValue
        self.maxValue = maxValue
    }

    /// The key of an item AirKorea numbered with no `sn` (ozone's): a hash of its pollutant,
    /// district, 권역 and issue time, none of which a later clear changes. A hash, not the text: an
    /// identifier holds nothing a server wrote (docs/ARCHITECTURE.md, "The key never comes back").
    public static func key(pollutant: AdvisoryPollutant, district: String, area: String?, issuedAt: Date) -> String {
        hashedKey(of: "\(pollutant.rawValue) \(district) \(area ?? "-") \(KoreaStandardTime.iso8601(issuedAt))")
    }

    /// `composed` (what FineDust before 0.4 stored as the key: `O3 서울 동남권 2026-06-12T15:00:00+09:00`)
    /// as today's key: its pollutant, `-`, and the 64-bit FNV-1a hash of its UTF-8 bytes in hex
    /// (`O3-9c1f…`). The migration `v14-advisory-keys-hashed` rewrites stored keys with it.
    public static func hashedKey(of composed: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in composed.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let pollutant = composed.prefix { $0 != " " }
        let hex = String(hash, radix: 16)
        return "\(pollutant)-" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// In force at `now`: issued at or before it and not cleared by then.
    public func isActive(at now: Date) -> Bool {
        issuedAt <= now && (clearedAt.map { $0 > now } ?? true)
    }

    /// Whether it concerns `region`: the same district, and, when the user named a 권역, that 권역 or
    /// the whole district (no 권역, or the district's own name as AirKorea writes it for a whole 시도).
    public func concerns(_ region: AdvisoryRegion) -> Bool {
        guard district.trimmingWhiteSpace == region.district else { return false }
        guard let wanted = region.area, let area = area?.trimmingWhiteSpace, !area.isEmpty else { return true }
        return area == wanted || area == region.district
    }
}

/// AirKorea's advisory dates and times as instants: `issueDate` `2026-11-20` with `issueTime` `14:00`
/// (or `14`), a `…Time` carrying its own date (`2026-06-12 15:00`), or a time alone on the item's
/// `dataDate`. `24:00` is midnight at the end of the date.
public enum AdvisoryTime {
    /// The instant, or nil when the texts do not name one for sure.
    public static func instant(date: String?, time: String?, dataDate: String?) -> Date? {
        guard let time = time?.trimmingWhiteSpace, !time.isEmpty else { return nil }
        let parts = time.split(separator: " ", omittingEmptySubsequences: true)
        let day: LocalDate?
        let clock: Substring
        switch parts.count {
        case 2:
            day = LocalDate(parts[0])
            clock = parts[1]
        case 1:
            // A date given and unreadable is no date: never the item's `dataDate` instead.
            let given = date?.trimmingWhiteSpace ?? ""
            day = given.isEmpty ? dataDate.flatMap { LocalDate($0.trimmingWhiteSpace) } : LocalDate(given)
            clock = parts[0]
        default:
            return nil
        }
        guard let day, let minutes = minutes(clock) else { return nil }
        return KoreaStandardTime.instant(hour: 0, of: day).addingTimeInterval(TimeInterval(minutes * 60))
    }

    /// `HH:MM` or `HH` (00–24; 24 only as `24` or `24:00`) as minutes after midnight.
    private static func minutes(_ text: Substring) -> Int? {
        let pieces = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(pieces.count),
            pieces.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let hour = Int(pieces[0]), hour >= 0
        else { return nil }
        let minute = pieces.count == 2 ? Int(pieces[1]) : 0
        guard let minute, (0..<60).contains(minute), hour < 24 || (hour == 24 && minute == 0) else { return nil }
        return hour * 60 + minute
    }
}

/// Which forecast region a monitoring station belongs to: from its `sidoName`, and for 경기 and
/// 강원 from the city (시/군) in its address.
///
/// Sources and decisions (no machine-readable NIER table exists; revisit when one does):
/// - 17 provinces map one to one (서울 → 서울, …), long forms included (`서울특별시`, `경기도`,
///   `강원특별자치도`, `전북특별자치도`, `제주특별자치도`, `세종특별자치시`, …).
/// - 경기북부: 고양, 파주, 김포, 의정부, 양주, 동두천, 포천, 연천, 가평, 남양주, 구리 — the cities
///   north of the Han River. The administrative north (경기도 북부청) leaves 김포 out; FineDust
///   puts it north because it lies north of the Han beside 고양 and 파주 and Gyeonggi's own
///   fine-dust warning zone 북부권 includes it (news1, 2023-04 warnings: "김포·고양·의정부·파주·
///   연천·양주·동두천·포천"). Every other 경기 city is 경기남부.
/// - 강원 영동 (east of the Taebaek ridge): 강릉, 동해, 삼척, 속초, 고성, 양양, and 태백, which the
///   Korea Meteorological Administration's 강원영동 forecast zone includes. Every other 강원 city
///   is 영서.
/// - `forecast.region` overrides all of this; a station the table cannot place asks for it.
public enum ForecastRegionTable {
    /// The 경기 cities (without 시/군) in 경기북부.
    public static let gyeonggiNorthCities: Set<String> = ["고양", "파주", "김포", "의정부", "양주", "동두천", "포천", "연천", "가평", "남양주", "구리"]
    /// The 강원 cities (without 시/군) in 영동.
    public static let yeongdongCities: Set<String> = ["강릉", "동해", "삼척", "속초", "고성", "양양", "태백"]

    /// The region of a station with this `sidoName` and address; the address alone is enough
    /// when it starts with the province.
    public static func region(sido: String?, address: String?) throws(ForecastRegionError) -> ForecastRegion {
        let words = (address ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
        let provinceName = sido.flatMap { $0.isEmpty ? nil : $0 } ?? words.first
        guard let provinceName else { throw .unknownStation(sido: nil) }
        guard let province = Province(name: provinceName) else { throw .unknownStation(sido: provinceName) }
        switch province {
        case .region(let region):
            return region
        case .gyeonggi:
            guard let city = city(in: words) else { throw .cityNeeded(sido: provinceName) }
            return gyeonggiNorthCities.contains(city) ? .gyeonggiNorth : .gyeonggiSouth
        case .gangwon:
            guard let city = city(in: words) else { throw .cityNeeded(sido: provinceName) }
            return yeongdongCities.contains(city) ? .yeongdong : .yeongseo
        }
    }

    /// The first word of an address ending in 시 or 군 (after any province word), without the suffix.
    static func city(in words: [String]) -> String? {
        for word in words where word.count >= 2 && (word.hasSuffix("시") || word.hasSuffix("군")) {
            if Province(name: word) != nil { continue }
            return String(word.dropLast())
        }
        return nil
    }

    private enum Province {
        case region(ForecastRegion)
        case gyeonggi
        case gangwon

        init?(name: String) {
            switch name {
            case "서울", "서울특별시", "서울시": self = .region(.seoul)
            case "부산", "부산광역시", "부산시": self = .region(.busan)
            case "대구", "대구광역시", "대구시": self = .region(.daegu)
            case "인천", "인천광역시", "인천시": self = .region(.incheon)
            case "광주", "광주광역시": self = .region(.gwangju)
            case "대전", "대전광역시", "대전시": self = .region(.daejeon)
            case "울산", "울산광역시", "울산시": self = .region(.ulsan)
            case "세종", "세종특별자치시", "세종시": self = .region(.sejong)
            case "충북", "충청북도": self = .region(.chungbuk)
            case "충남", "충청남도": self = .region(.chungnam)
            case "전북", "전라북도", "전북특별자치도": self = .region(.jeonbuk)
            case "전남", "전라남도": self = .region(.jeonnam)
            case "경북", "경상북도": self = .region(.gyeongbuk)
            case "경남", "경상남도": self = .region(.gyeongnam)
            case "제주", "제주도", "제주특별자치도": self = .region(.jeju)
            case "경기", "경기도": self = .gyeonggi
            case "강원", "강원도", "강원특별자치도": self = .gangwon
            default: return nil
            }
        }
    }
}

/// Why a station's forecast region is not known; each says to set `forecast.region`.
public enum ForecastRegionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The province is missing or not one FineDust knows.
    case unknownStation(sido: String?)
    /// 경기 or 강원 without a city in the station's address.
    case cityNeeded(sido: String)

    public var description: String {
        let choices = ForecastRegion.allCases.map(\.rawValue).joined(separator: ", ")
        switch self {
        case .unknownStation(let sido?):
            return
                "The station's province \"\(TerminalSafeText.sanitized(sido))\" is not one FineDust can map to a forecast region; set forecast.region (or DUSTD_FORECAST_REGION) to one of \(choices)."
        case .unknownStation(nil):
            return
                "FineDust does not know the station's province yet (no poll or station list stored); set forecast.region (or DUSTD_FORECAST_REGION) to one of \(choices), or run dustctl stations sync."
        case .cityNeeded(let sido):
            return
                "The station is in \(TerminalSafeText.sanitized(sido)), whose forecast is split by city, but its address is not known; run dustctl stations sync, or set forecast.region (or DUSTD_FORECAST_REGION) to one of \(choices)."
        }
    }
}

/// One station's PM10 and PM2.5 for one hour, as AirKorea reported it.
///
/// A concentration is `nil` when AirKorea reported `-`, nothing, or a flag such as 통신장애:
/// unknown, never zero.
public struct HourlyReading: Hashable, Sendable {
    /// AirKorea `stationName`, e.g. 종로구.
    public var station: String
    /// The hour the values average.
    public var slot: Slot
    /// The hourly concentration in µg/m³.
    public var concentration: DustPair<Double?>
    /// AirKorea's flag (점검및교정, 장비점검, 자료이상, 통신장애) when one was set.
    public var flag: DustPair<String?>
    /// The 24-hour moving average AirKorea reported with the hour.
    public var average24h: DustPair<Double?>
    /// AirKorea's 24-hour grade (`pm10Grade`, `pm25Grade`).
    public var grade24h: DustPair<DustGrade?>
    /// AirKorea's 1-hour grade (`pm10Grade1h`, `pm25Grade1h`).
    public var grade1h: DustPair<DustGrade?>
    /// Station metadata, when the response carried it.
    public var stationCode: String?
    public var sidoName: String?
    /// The monitoring network (`mangName`), e.g. 도시대기, 도로변대기.
    public var network: String?
    /// Which fields the response carried. A field it left out says nothing, so it never erases a
    /// stored value; an explicit `-`, an empty value or a set flag is AirKorea's revision and does.
    public var reported: DustPair<ReportedFields>
    /// The gases and the integrated index of the same hour (docs/REFERENCE.md §17), with what of them was reported.
    public var gases: GasReading

    /// The flag FineDust sets on a value no instrument can measure (negative, not finite, or above
    /// `HourlyReading.plausibleConcentration`), which is then unknown.
    public static let implausibleFlag = "implausible"
    /// The highest concentration (µg/m³) taken as a measurement; the worst hours on record are near 1,000.
    public static let plausibleConcentration: ClosedRange<Double> = 0...10_000

    public init(
        station: String,
        slot: Slot,
        concentration: DustPair<Double?>,
        flag: DustPair<String?> = .init(repeating: nil),
        average24h: DustPair<Double?> = .init(repeating: nil),
        grade24h: DustPair<DustGrade?> = .init(repeating: nil),
        grade1h: DustPair<DustGrade?> = .init(repeating: nil),
        stationCode: String? = nil,
        sidoName: String? = nil,
        network: String? = nil,
        reported: DustPair<ReportedFields> = .init(repeating: .all),
        gases: GasReading = .unknown
    ) {
        self.station = station
        self.slot = slot
        self.concentration = concentration
        self.flag = flag
        self.average24h = average24h
        self.grade24h = grade24h
        self.grade1h = grade1h
        self.stationCode = stationCode
        self.sidoName = sidoName
        self.network = network
        self.reported = reported
        self.gases = gases
    }
}

/// The fields of one pollutant an AirKorea item carried.
public struct ReportedFields: OptionSet, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The hourly value (`pm10Value`) or its flag (`pm10Flag`).
    public static let value = ReportedFields(rawValue: 1)
    /// The 24-hour average (`pm10Value24`).
    public static let average24h = ReportedFields(rawValue: 2)
    /// The 24-hour grade (`pm10Grade`).
    public static let grade24h = ReportedFields(rawValue: 4)
    /// The 1-hour grade (`pm10Grade1h`).
    public static let grade1h = ReportedFields(rawValue: 8)

    public static let all: ReportedFields = [.value, .average24h, .grade24h, .grade1h]
}

/// A monitoring station from AirKorea's station list.
public struct Station: Hashable, Sendable {
    public var name: String
    public var address: String?
    public var network: String?
    /// Degrees north (AirKorea's `dmX`).
    public var latitude: Double?
    /// Degrees east (AirKorea's `dmY`).
    public var longitude: Double?
    public var code: String?

    public init(
        name: String, address: String? = nil, network: String? = nil, latitude: Double? = nil, longitude: Double? = nil, code: String? = nil
    ) {
        self.name = name
        self.address = address
        self.network = network
        self.latitude = latitude
        self.longitude = longitude
        self.code = code
    }

    /// Whether a position can be where a station stands: both numbers finite, the latitude within
    /// ±90° and the longitude within ±180°, and not 0°/0°, the placeholder of a missing position
    /// (AirKorea's stations are all in Korea, none in the Gulf of Guinea). A list that sent `dmX`
    /// 999 had it ranked first by `stations nearest` (docs/RELIABILITY.md).
    public static func isPlausibleLocation(latitude: Double, longitude: Double) -> Bool {
        latitude.isFinite && longitude.isFinite && (-90...90).contains(latitude) && (-180...180).contains(longitude)
            && !(latitude == 0 && longitude == 0)
    }

    /// Both coordinates present and plausible.
    public var hasPlausibleLocation: Bool {
        guard let latitude, let longitude else { return false }
        return Station.isPlausibleLocation(latitude: latitude, longitude: longitude)
    }
}

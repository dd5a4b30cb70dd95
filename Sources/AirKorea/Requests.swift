import Foundation

/// The AirKorea service key: a secret that is sent, never shown.
///
/// Every textual form of it (`description`, `debugDescription`, string interpolation,
/// `dump`) is `***`; only `AirKoreaEndpoint` reads the real value, to build a URL.
public struct ServiceKey: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    fileprivate let value: String

    /// A key as the user pasted it, surrounding whitespace removed; nil when nothing is left.
    public init?(_ raw: String) {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, !trimmed.contains(where: { $0.isNewline || $0 == " " }) else { return nil }
        self.value = trimmed
    }

    /// The key as it goes on the query string: encoded exactly once.
    ///
    /// data.go.kr shows two forms: "Encoding" (already percent-encoded, contains `%`) and
    /// "Decoding" (raw, may contain `+`, `/`, `=`). A key with `%` is sent as is; any other
    /// key is percent-encoded. Encoding an encoded key twice is the classic cause of code 30.
    var queryValue: String {
        value.contains("%") ? value : percentEncodeQueryValue(value)
    }

    /// `text` with the key, in either form, replaced by `***`: the last line of defence for log output.
    public func redacting(_ text: String) -> String {
        text.replacingOccurrences(of: value, with: "***").replacingOccurrences(of: queryValue, with: "***")
    }

    /// True when `text` contains the key in either form; used to prove logs and files never hold it.
    public func occurs(in text: String) -> Bool {
        text.contains(value) || text.contains(queryValue)
    }

    public var description: String { "***" }
    public var debugDescription: String { "ServiceKey(***)" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// How much history a station request asks for.
public enum DataTerm: String, Sendable, Hashable, CaseIterable {
    /// About 24 hourly rows.
    case daily = "DAILY"
    /// About 740 hourly rows.
    case month = "MONTH"
    /// About 2,200 hourly rows.
    case threeMonths = "3MONTH"
}

/// One AirKorea operation with its parameters (the service key and version are added by `AirKoreaEndpoint`).
public enum AirKoreaRequest: Sendable, Hashable {
    /// `getMsrstnAcctoRltmMesureDnsty`: one station's recent hours.
    case stationRealtime(station: String, term: DataTerm, page: Int = 1, rows: Int = 100)
    /// `getCtprvnRltmMesureDnsty`: every station of a province (`서울`, …) or the nation (`전국`) for the latest hour.
    case provinceRealtime(sido: String, page: Int = 1, rows: Int = 1000)
    /// `MsrstnInfoInqireSvc/getMsrstnList`: monitoring stations, optionally filtered.
    case stationList(address: String? = nil, stationName: String? = nil, page: Int = 1, rows: Int = 1000)

    /// The service and operation path below the base URL.
    public var path: String {
        switch self {
        case .stationRealtime: "ArpltnInforInqireSvc/getMsrstnAcctoRltmMesureDnsty"
        case .provinceRealtime: "ArpltnInforInqireSvc/getCtprvnRltmMesureDnsty"
        case .stationList: "MsrstnInfoInqireSvc/getMsrstnList"
        }
    }

    /// The same request for another page.
    public func page(_ number: Int) -> AirKoreaRequest {
        switch self {
        case let .stationRealtime(station, term, _, rows): .stationRealtime(station: station, term: term, page: number, rows: rows)
        case let .provinceRealtime(sido, _, rows): .provinceRealtime(sido: sido, page: number, rows: rows)
        case let .stationList(address, stationName, _, rows): .stationList(address: address, stationName: stationName, page: number, rows: rows)
        }
    }

    /// The page number asked for.
    public var pageNumber: Int {
        switch self {
        case let .stationRealtime(_, _, page, _), let .provinceRealtime(_, page, _), let .stationList(_, _, page, _): page
        }
    }

    /// The station that the items of a response belong to when they carry no `stationName`.
    public var requestedStation: String? {
        if case let .stationRealtime(station, _, _, _) = self { return station }
        return nil
    }

    /// Query parameters other than the service key, in a stable order.
    func parameters(version: String) -> [(String, String)] {
        switch self {
        case let .stationRealtime(station, term, page, rows):
            [("returnType", "xml"), ("numOfRows", String(rows)), ("pageNo", String(page)),
             ("stationName", station), ("dataTerm", term.rawValue), ("ver", version)]
        case let .provinceRealtime(sido, page, rows):
            [("returnType", "xml"), ("numOfRows", String(rows)), ("pageNo", String(page)),
             ("sidoName", sido), ("ver", version)]
        case let .stationList(address, stationName, page, rows):
            [("returnType", "xml"), ("numOfRows", String(rows)), ("pageNo", String(page)),
             ("addr", address ?? ""), ("stationName", stationName ?? "")]
        }
    }
}

/// Where and how requests go: base URL, API version and the service key.
public struct AirKoreaEndpoint: Sendable {
    /// The production base URL.
    public static let defaultBaseURL = "https://apis.data.go.kr/B552584"

    public let baseURL: String
    public let version: String
    private let serviceKey: ServiceKey

    public init(baseURL: String = AirKoreaEndpoint.defaultBaseURL, version: String = "1.5", serviceKey: ServiceKey) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.version = version
        self.serviceKey = serviceKey
    }

    /// The full URL, with the key encoded exactly once. Never log this; log `redactedURL(for:)`.
    public func url(for request: AirKoreaRequest) -> String {
        urlString(for: request, keyValue: serviceKey.queryValue)
    }

    /// The URL with `serviceKey=***`: safe for logs, errors and the database.
    public func redactedURL(for request: AirKoreaRequest) -> String {
        urlString(for: request, keyValue: "***")
    }

    private func urlString(for request: AirKoreaRequest, keyValue: String) -> String {
        let query = [("serviceKey", keyValue)] + request.parameters(version: version).map { ($0.0, percentEncodeQueryValue($0.1)) }
        return "\(baseURL)/\(request.path)?" + query.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }
}

/// Percent-encodes everything except RFC 3986 unreserved characters, so `+`, `/`, `=` and
/// Korean station names survive every server's query parsing.
func percentEncodeQueryValue(_ value: String) -> String {
    var encoded = ""
    encoded.reserveCapacity(value.utf8.count)
    let hex = Array("0123456789ABCDEF".utf8)
    for byte in value.utf8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "_"), UInt8(ascii: "~"):
            encoded.unicodeScalars.append(Unicode.Scalar(byte))
        default:
            encoded.unicodeScalars.append("%")
            encoded.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
            encoded.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0x0F)]))
        }
    }
    return encoded
}

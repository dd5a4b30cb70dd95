import DustKit
import Foundation

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
    /// `getMinuDustFrcstDspth`: the dust forecasts (`InformCode` PM10 or PM25) issued on `searchDate`.
    case forecast(searchDate: LocalDate, pollutant: Pollutant, page: Int = 1, rows: Int = 100)
    /// `getMinuDustWeekFrcstDspth`: the weekly PM2.5 outlook published on `searchDate` (docs/REFERENCE.md §17).
    case weeklyOutlook(searchDate: LocalDate, page: Int = 1, rows: Int = 10)
    /// `getUlfptcaAlarmInfo` (PM10, PM25) or `getOzAdvsryOccrrncInfo` (O3): the year's advisories (docs/REFERENCE.md §17).
    case advisories(year: Int, pollutant: AdvisoryPollutant, page: Int = 1, rows: Int = 100)

    /// The service and operation path below the base URL.
    public var path: String {
        switch self {
        case .stationRealtime: "ArpltnInforInqireSvc/getMsrstnAcctoRltmMesureDnsty"
        case .provinceRealtime: "ArpltnInforInqireSvc/getCtprvnRltmMesureDnsty"
        case .stationList: "MsrstnInfoInqireSvc/getMsrstnList"
        case .forecast: "ArpltnInforInqireSvc/getMinuDustFrcstDspth"
        case .weeklyOutlook: "ArpltnInforInqireSvc/getMinuDustWeekFrcstDspth"
        case .advisories(_, let pollutant, _, _):
            pollutant == .o3 ? "OzYlwsndOccrrncInforInqireSvc/getOzAdvsryOccrrncInfo" : "UlfptcaAlarmInqireSvc/getUlfptcaAlarmInfo"
        }
    }

    /// The same request for another page.
    public func page(_ number: Int) -> AirKoreaRequest {
        switch self {
        case .stationRealtime(let station, let term, _, let rows): .stationRealtime(station: station, term: term, page: number, rows: rows)
        case .provinceRealtime(let sido, _, let rows): .provinceRealtime(sido: sido, page: number, rows: rows)
        case .stationList(let address, let stationName, _, let rows):
            .stationList(address: address, stationName: stationName, page: number, rows: rows)
        case .forecast(let searchDate, let pollutant, _, let rows):
            .forecast(searchDate: searchDate, pollutant: pollutant, page: number, rows: rows)
        case .weeklyOutlook(let searchDate, _, let rows): .weeklyOutlook(searchDate: searchDate, page: number, rows: rows)
        case .advisories(let year, let pollutant, _, let rows): .advisories(year: year, pollutant: pollutant, page: number, rows: rows)
        }
    }

    /// The page number asked for.
    public var pageNumber: Int {
        switch self {
        case .stationRealtime(_, _, let page, _), .provinceRealtime(_, let page, _), .stationList(_, _, let page, _),
            .forecast(_, _, let page, _), .weeklyOutlook(_, let page, _), .advisories(_, _, let page, _):
            page
        }
    }

    /// Rows asked for per page.
    public var rowsPerPage: Int {
        switch self {
        case .stationRealtime(_, _, _, let rows), .provinceRealtime(_, _, let rows), .stationList(_, _, _, let rows),
            .forecast(_, _, _, let rows), .weeklyOutlook(_, _, let rows), .advisories(_, _, _, let rows):
            rows
        }
    }

    /// How many hours back from now the items of this request's answer may lie: its term (DAILY
    /// ≈ 24 h, MONTH ≈ 31 days, 3MONTH ≈ 92 days) with a day of margin, or a day and the latest hour
    /// for a province's latest hour. Nil for the station list and forecasts, which hold no hours.
    /// An item older than this is not what was asked for and is not stored (docs/RELIABILITY.md).
    public var windowHours: Int? {
        switch self {
        case .stationRealtime(_, let term, _, _):
            switch term {
            case .daily: 48
            case .month: 32 * 24
            case .threeMonths: 93 * 24
            }
        case .provinceRealtime: 48
        case .stationList, .forecast, .weeklyOutlook, .advisories: nil
        }
    }

    /// The most rows this request can legitimately return: the hours of its window (with a day of
    /// margin), or every station in Korea several times over. A `totalCount` beyond it is not believed.
    public var windowRows: Int {
        switch self {
        case .stationRealtime: windowHours ?? 0
        case .provinceRealtime, .stationList: 3000
        // A day holds at most four issues of three forecast days each per pollutant.
        case .forecast: 100
        // One publication a day, one item each.
        case .weeklyOutlook: 10
        // A bad year brings a few hundred advisories across the country.
        case .advisories: 2000
        }
    }

    /// What to do once this request's page came back: ask for the next page, or stop. Paging stops
    /// at the first short page, and never goes past what `totalCount` and the window allow (docs/REFERENCE.md §2).
    public func nextStep(after paging: Paging) -> PageStep {
        let rows = max(rowsPerPage, 1)
        guard paging.itemCount >= rows else { return .complete }
        let claimedPages = paging.totalCount.map { ($0 + rows - 1) / rows } ?? 1
        guard pageNumber < claimedPages else { return .complete }
        let windowPages = (windowRows + rows - 1) / rows
        guard pageNumber < windowPages else {
            return .capped(claimedRows: paging.totalCount ?? 0, windowRows: windowRows, pagesRead: pageNumber)
        }
        return .next(page(pageNumber + 1))
    }

    /// The one paging loop: asks for this page and every following one the rules of `nextStep`
    /// allow, handing each request to `fetch`, which returns the page's paging (or nil to stop).
    /// Returns how paging ended: `.complete`, `.capped` (a `totalCount` beyond the window), or nil
    /// when `fetch` stopped it or the task was cancelled.
    public func fetchPages<Failure: Error>(_ fetch: (AirKoreaRequest) async throws(Failure) -> Paging?) async throws(Failure) -> PageStep? {
        var request = self
        while !Task.isCancelled {
            guard let paging = try await fetch(request) else { return nil }
            let step = request.nextStep(after: paging)
            guard case .next(let following) = step else { return step }
            request = following
        }
        return nil
    }

    /// The station that the items of a response belong to when they carry no `stationName`.
    public var requestedStation: String? {
        if case .stationRealtime(let station, _, _, _) = self { return station }
        return nil
    }

    /// Query parameters other than the service key, in a stable order.
    func parameters(version: String) -> [(String, String)] {
        switch self {
        case .stationRealtime(let station, let term, let page, let rows):
            [
                ("returnType", "xml"), ("numOfRows", String(rows)), ("pageNo", String(page)),
                ("stationName", station), ("dataTerm", term.rawValue), ("ver", version),
            ]
        case .provinceRealtime(let sido, let page, let rows):
            [
                ("returnType", "xml"), ("numOfRows", String(rows)), ("pageNo", String(page)),
                ("sidoName", sido), ("ver", version),
            ]
        case .stationList(let address, let stationName, let page, let rows):
            [
                ("returnType", "xml"), ("numOfRows", String(rows)), ("pageNo", String(page)),
                ("addr", address ?? ""), ("stationName", stationName ?? ""),
            ]
        case .forecast(let searchDate, let pollutant, let page, let rows):
            [
                ("returnType", "xml"), ("numOfRows", String(rows)), ("pageNo", String(page)),
                ("searchDate", searchDate.description), ("InformCode", pollutant.informCode),
            ]
        case .weeklyOutlook(let searchDate, let page, let rows):
            [("returnType", "xml"), ("numOfRows", String(rows)), ("pageNo", String(page)), ("searchDate", searchDate.description)]
        case .advisories(let year, let pollutant, let page, let rows):
            [("returnType", "xml"), ("numOfRows", String(rows)), ("pageNo", String(page)), ("year", String(year))]
                + (pollutant == .o3 ? [] : [("itemCode", pollutant.rawValue)])
        }
    }
}

/// After a page: the next request, or why paging ends.
public enum PageStep: Sendable, Hashable {
    /// Ask for this page next.
    case next(AirKoreaRequest)
    /// Everything was read: a short page, or the last page `totalCount` implies.
    case complete
    /// `totalCount` claims more rows than the request's window can hold; paging stopped there.
    case capped(claimedRows: Int, windowRows: Int, pagesRead: Int)
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

    /// Finds the service key in a text as a reader would see it (see `KeyEchoGuard`).
    public var echoGuard: KeyEchoGuard { serviceKey.echoGuard }

    /// `body` with the service key removed in every encoding (see `ServiceKey.redacting(_:)`).
    public func redacting(_ body: Data) -> Data {
        serviceKey.redacting(body)
    }

    /// `text` with the service key removed in every encoding.
    public func redacting(_ text: String) -> String {
        serviceKey.redacting(text)
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

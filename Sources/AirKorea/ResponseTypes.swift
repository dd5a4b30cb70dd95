import DustKit

/// Bounds that keep hostile or broken input cheap to reject (docs/REFERENCE.md §10).
///
/// Each is set from what AirKorea really sends, with a wide margin, and not higher: everything a
/// body holds up to them is parsed and kept at once. The largest real answers are one station's
/// 3MONTH hours in one page (about 2,200 items, 2.1 MB) and the nation's hour (about 700 items,
/// 0.7 MB). At the old 32 MiB and 200,000 items, an answer just under both took dustd to 326 MB.
public struct ParserLimits: Sendable, Hashable {
    /// Largest body accepted, in bytes: 8 MiB, nearly four times a whole 3MONTH answer.
    public var maxDocumentBytes: Int
    /// Deepest element nesting accepted; real responses are 5 levels deep.
    public var maxDepth: Int
    /// Longest single value accepted, in bytes.
    public var maxFieldBytes: Int
    /// Most items accepted in one response: 10,000, over four times a whole 3MONTH answer (dustd
    /// asks for 1,000 a page at most).
    public var maxItems: Int
    /// Most comments and processing instructions accepted in one response: AirKorea sends none,
    /// and libxml2's reader keeps a run of them in memory until the next tag (a 31.5 MB
    /// answer of `<!---->` held 1.5 GB).
    public var maxComments: Int

    public init(
        maxDocumentBytes: Int = 8 * 1024 * 1024, maxDepth: Int = 16, maxFieldBytes: Int = 4096, maxItems: Int = 10_000,
        maxComments: Int = 100
    ) {
        self.maxDocumentBytes = maxDocumentBytes
        self.maxDepth = maxDepth
        self.maxFieldBytes = maxFieldBytes
        self.maxItems = maxItems
        self.maxComments = maxComments
    }
}

/// Paging information of a response body.
public struct Paging: Sendable, Hashable {
    /// `numOfRows`: the page size asked for.
    public var numOfRows: Int?
    /// `pageNo`: which page this is, from 1.
    public var pageNo: Int?
    /// `totalCount`: the rows of all pages together, as AirKorea reports it.
    public var totalCount: Int?
    /// The `item` elements on this page.
    public var itemCount: Int

    public init(numOfRows: Int? = nil, pageNo: Int? = nil, totalCount: Int? = nil, itemCount: Int = 0) {
        self.numOfRows = numOfRows
        self.pageNo = pageNo
        self.totalCount = totalCount
        self.itemCount = itemCount
    }
}

/// The measurements of one successful response.
public struct MeasurementPage: Sendable, Hashable {
    public var readings: [HourlyReading]
    public var paging: Paging
    /// Items dropped because their `dataTime` was missing or not a valid time.
    public var skippedItems: Int
    /// Values outside their field's vocabulary (`ServerVocabulary`): stored as its `unknownValue`.
    public var unknownValues = 0
    /// Items with a valid `dataTime` dropped because their station's name was outside the
    /// vocabulary (a name is an identity, never replaced); also counted in `unknownValues`.
    public var refusedNameItems = 0
}

extension MeasurementPage {
    /// A page of readings built without a response body: for fakes of `MeasurementAPI`.
    public init(readings: [HourlyReading], paging: Paging, skipped: Int = 0) {
        self.init(readings: readings, paging: paging, skippedItems: skipped)
    }
}

/// The stations of one successful `getMsrstnList` response.
public struct StationPage: Sendable, Hashable {
    public var stations: [Station]
    public var paging: Paging
    /// Values outside their field's vocabulary (`ServerVocabulary`): stored as its `unknownValue`,
    /// or, for a station's name, the station dropped.
    public var unknownValues = 0
}

/// The forecasts of one successful `getMinuDustFrcstDspth` response.
public struct ForecastPage: Sendable, Hashable {
    public var forecasts: [DustForecast]
    public var paging: Paging
    /// Items dropped: another pollutant (`O3`), or an `informCode`, `dataTime` or `informData`
    /// FineDust cannot read for sure.
    public var skippedItems: Int
    /// The HTTP status it came with, when it came over HTTP (`AirKoreaClient` sets it).
    public var httpStatus: Int?
    /// Values outside their field's vocabulary (`ServerVocabulary`).
    public var unknownValues = 0

    public init(forecasts: [DustForecast], paging: Paging, skippedItems: Int = 0, httpStatus: Int? = nil) {
        self.forecasts = forecasts
        self.paging = paging
        self.skippedItems = skippedItems
        self.httpStatus = httpStatus
    }
}

/// The advisories of one successful `getUlfptcaAlarmInfo` or `getOzAdvsryOccrrncInfo` response.
public struct AdvisoryPage: Sendable, Hashable {
    public var advisories: [Advisory]
    public var paging: Paging
    /// Items dropped: an issue or clear time that does not parse, no district, or another pollutant.
    public var skippedItems: Int
    /// The HTTP status it came with, when it came over HTTP (`AirKoreaClient` sets it).
    public var httpStatus: Int?
    /// Values outside their field's vocabulary (`ServerVocabulary`): stored as its `unknownValue`.
    public var unknownValues = 0

    public init(advisories: [Advisory], paging: Paging, skippedItems: Int = 0, httpStatus: Int? = nil) {
        self.advisories = advisories
        self.paging = paging
        self.skippedItems = skippedItems
        self.httpStatus = httpStatus
    }
}

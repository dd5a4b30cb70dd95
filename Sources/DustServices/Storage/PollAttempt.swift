import AirKorea
import Foundation

/// What a request to AirKorea was for: what the attempt record is counted by (the daily forecast
/// quota of docs/REFERENCE.md §14 counts `forecast` and `weeklyOutlook`), whatever its operation text says.
public enum AttemptKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// Hourly measurements: a station's, a province's, or the whole country's.
    case measurement
    /// The air-quality forecast.
    case forecast
    /// AirKorea's list of monitoring stations.
    case stationList
    /// Official advisories (주의보/경보, docs/REFERENCE.md §17): never counted as a measurement poll.
    case advisory
    /// The weekly PM2.5 outlook (docs/REFERENCE.md §17): out of the forecast quota, with 2 calls of its own.
    case weeklyOutlook

    /// The kinds the forecast service's daily cap of 12 calls counts (docs/REFERENCE.md §14).
    public static let forecastService: [AttemptKind] = [.forecast, .weeklyOutlook]

    /// The kind of `request`.
    public init(_ request: AirKoreaRequest) {
        switch request {
        case .stationRealtime, .provinceRealtime: self = .measurement
        case .forecast: self = .forecast
        case .weeklyOutlook: self = .weeklyOutlook
        case .stationList: self = .stationList
        case .advisories: self = .advisory
        }
    }
}

/// One request dustd made to AirKorea, as `dustctl status` shows it.
public struct PollAttempt: Sendable, Hashable {
    /// How long attempts are kept: older ones are forgotten as new ones are recorded.
    public static let retention: TimeInterval = 90 * 86_400

    public enum Outcome: String, Sendable, Hashable, CaseIterable {
        /// The response was stored.
        case ok
        /// A passing fault; retried with backoff.
        case retrying
        /// A key or configuration problem; not retried before the next hourly poll.
        case failed
        /// The daily or per-second quota is used up.
        case quota
        /// dustd was stopped during the request; nothing went wrong.
        case stopped
    }

    public var startedAt: Date
    public var station: String?
    /// What the request was for.
    public var kind: AttemptKind
    /// The operation and its parameters as the log and `dustctl status` name it, e.g.
    /// `station 종로구 DAILY page 1`; for people, never counted.
    public var operation: String
    public var outcome: Outcome
    public var httpStatus: Int?
    public var resultCode: String?
    public var rowsNew: Int
    public var rowsUpdated: Int
    public var durationMilliseconds: Int
    /// What went wrong and what to do, for failures. Never contains the service key.
    public var message: String?

    public init(
        startedAt: Date, station: String?, kind: AttemptKind, operation: String, outcome: Outcome, httpStatus: Int? = nil,
        resultCode: String? = nil, rowsNew: Int = 0, rowsUpdated: Int = 0, durationMilliseconds: Int = 0, message: String? = nil
    ) {
        self.startedAt = startedAt
        self.station = station
        self.kind = kind
        self.operation = operation
        self.outcome = outcome
        self.httpStatus = httpStatus
        self.resultCode = resultCode
        self.rowsNew = rowsNew
        self.rowsUpdated = rowsUpdated
        self.durationMilliseconds = durationMilliseconds
        self.message = message
    }
}

import Foundation

/// One request dustd made to AirKorea, as `dustctl status` shows it.
public struct PollAttempt: Sendable, Hashable {
    /// How long attempts are kept: older ones are forgotten as new ones are recorded.
    public static let retention: TimeInterval = 90 * 86_400

    public enum Outcome: String, Sendable, Hashable {
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
    /// The operation and its parameters, e.g. `getMsrstnAcctoRltmMesureDnsty DAILY page 1`.
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
        startedAt: Date, station: String?, operation: String, outcome: Outcome, httpStatus: Int? = nil,
        resultCode: String? = nil, rowsNew: Int = 0, rowsUpdated: Int = 0, durationMilliseconds: Int = 0, message: String? = nil
    ) {
        self.startedAt = startedAt
        self.station = station
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

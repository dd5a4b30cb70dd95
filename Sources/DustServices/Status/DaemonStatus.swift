import AirKorea
import DustKit
import Foundation

/// What dustd says about itself, written by dustd and read by `dustctl status` and the web API:
/// one record, so the daemon and its readers cannot disagree about a key or a format.
public struct DaemonStatus: Codable, Sendable, Hashable {
    /// What the poll loop is doing.
    public enum State: String, Codable, Sendable, Hashable {
        /// Configuration and database are good; the first poll has not started.
        case starting
        /// Requests are in flight.
        case polling
        /// Waiting for the next scheduled poll.
        case idle
        /// A passing fault; retrying at `nextPollAt`.
        case backingOff
        /// The daily quota is used up until `nextPollAt` (00:00 KST).
        case quotaExhausted
        /// A key or configuration problem; nothing is retried before `nextPollAt`.
        case waitingForNextHour
        /// Stopping after a signal.
        case stopping
        /// Stopped cleanly.
        case stopped
    }

    /// How dustd ran.
    public enum Mode: String, Codable, Sendable, Hashable {
        /// The long-running service.
        case daemon
        /// `dustd --once`: one cycle, then exit.
        case once
    }

    /// A poll that stored its data.
    public struct Success: Codable, Sendable, Hashable {
        public var at: Date
        public var rowsNew: Int
        public var rowsUpdated: Int
        public var requests: Int

        public init(at: Date, rowsNew: Int, rowsUpdated: Int, requests: Int) {
            self.at = at
            self.rowsNew = rowsNew
            self.rowsUpdated = rowsUpdated
            self.requests = requests
        }
    }

    /// A poll that failed: its kind, and a sentence saying what happened and what to do.
    public struct Failure: Codable, Sendable, Hashable {
        public var at: Date
        public var kind: PollFailure.Kind
        public var message: String
        public var resultCode: String?
        public var httpStatus: Int?

        public init(at: Date, failure: PollFailure) {
            self.at = at
            kind = failure.kind
            message = failure.description
            resultCode = failure.resultCode
            httpStatus = failure.httpStatus
        }

        /// What a Korean reader is shown: AirKorea's result code explained in Korean (what to do about the key
        /// is what a household setting up reads most); any other failure's sentence as it was recorded.
        public var koreanMessage: String {
            guard kind == .airKorea, let code = resultCode.flatMap(ResultCode.init(rawValue:)) else { return message }
            return code.koreanExplanation
        }
    }

    /// A SIGHUP reload that was refused; dustd kept its previous configuration.
    public struct RefusedReload: Codable, Sendable, Hashable {
        public var at: Date
        public var reason: String

        public init(at: Date, reason: String) {
            self.at = at
            self.reason = reason
        }
    }

    /// What the forecast fetcher did (docs/REFERENCE.md §14).
    public struct ForecastRun: Codable, Sendable, Hashable {
        /// The last fetch that stored the publication it asked for.
        public var lastSuccessAt: Date?
        /// The newest issue stored for both pollutants.
        public var latestIssue: Date?
        /// When the next fetch is planned.
        public var nextFetchAt: Date?
        /// The last failed fetch; cleared by a success.
        public var lastError: Failure?

        public init(lastSuccessAt: Date? = nil, latestIssue: Date? = nil, nextFetchAt: Date? = nil, lastError: Failure? = nil) {
            self.lastSuccessAt = lastSuccessAt
            self.latestIssue = latestIssue
            self.nextFetchAt = nextFetchAt
            self.lastError = lastError
        }
    }

    /// What the advisory fetcher did (docs/REFERENCE.md §17).
    public struct AdvisoryRun: Codable, Sendable, Hashable {
        /// The last hour the advisories were asked for.
        public var lastFetchAt: Date?
        /// Operations turned off until a reload: the key is not approved for their service.
        public var turnedOff: [TurnedOff]

        public init(lastFetchAt: Date? = nil, turnedOff: [TurnedOff] = []) {
            self.lastFetchAt = lastFetchAt
            self.turnedOff = turnedOff
        }
    }

    /// An advisory operation dustd stopped asking until a reload, and why.
    public struct TurnedOff: Codable, Sendable, Hashable {
        public var pollutant: AdvisoryPollutant
        public var at: Date
        public var resultCode: String?

        public init(pollutant: AdvisoryPollutant, at: Date, resultCode: String?) {
            self.pollutant = pollutant
            self.at = at
            self.resultCode = resultCode
        }

        /// What to do, in one sentence: the service to apply for on data.go.kr.
        public var remedy: String {
            "the service key is not approved for \(pollutant.serviceName) (result \(resultCode ?? "?")): apply for it on data.go.kr "
                + "(마이페이지 → 활용신청), then reload dustd (systemctl reload dustd)"
        }
    }

    public var state: State
    public var mode: Mode
    public var pid: Int32
    /// The machine dustd runs on (`gethostname`): with several dustd on one database (docs/REFERENCE.md §20),
    /// the poller's. nil in records of an older dustd.
    public var host: String?
    public var version: String
    public var station: String
    public var startedAt: Date
    /// Written at every change and at least every `heartbeatSeconds` while dustd runs.
    public var heartbeatAt: Date
    /// How often the heartbeat is written; a reader calls dustd gone when it is twice as old.
    public var heartbeatSeconds: Double
    public var stoppedAt: Date?
    public var nextPollAt: Date?
    public var lastSuccess: Success?
    public var lastError: Failure?
    public var reloadRefused: RefusedReload?
    /// nil until the forecast fetcher first runs (and in records of an older dustd).
    public var forecast: ForecastRun?
    /// nil until the advisory fetcher first runs (and in records of an older dustd).
    public var advisories: AdvisoryRun?

    public init(
        state: State, mode: Mode, pid: Int32, version: String, station: String, startedAt: Date, heartbeatSeconds: Double,
        host: String? = nil
    ) {
        self.state = state
        self.mode = mode
        self.pid = pid
        self.host = host
        self.version = version
        self.station = station
        self.startedAt = startedAt
        self.heartbeatAt = startedAt
        self.heartbeatSeconds = heartbeatSeconds
    }

    /// This machine's name (`gethostname`), as dustd records it in `host`.
    public static var localHost: String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return "" }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The last poll failed (its error is newer than the last success).
    public var lastPollFailed: Bool {
        guard let lastError else { return false }
        return lastSuccess.map { lastError.at > $0.at } ?? true
    }
}

extension DaemonStatus {
    /// The JSON the record is stored as (dates as Unix seconds with their fraction, so two events in
    /// the same second keep their order; keys sorted).
    public func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        // Encoding plain values, dates and strings cannot fail.
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The record from its stored JSON; nil when it is not one (a future or damaged format).
    public static func decoded(_ text: String) -> DaemonStatus? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(DaemonStatus.self, from: Data(text.utf8))
    }
}

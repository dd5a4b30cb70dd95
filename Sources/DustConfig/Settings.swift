import AirKorea
import DustKit
import Foundation

/// Everything `dustd` and `dustctl` are configured with (SPEC §11), validated.
public struct FineDustSettings: Sendable {
    /// Which stations to follow.
    public var station: StationSettings
    public var api: APISettings
    public var poll: PollSettings
    /// The SQLite database (`storage.path`).
    public var storagePath: String
    /// What "a day" means (`timezone`).
    public var calendar: DayCalendar
    /// The intake model selected by `intake.model`, built from the `intake.*` keys.
    public var intakeModel: any IntakeModel
    public var logLevel: LogLevel
    /// The configuration file that was read, if any.
    public var configurationFile: String?
    /// Problems that did not stop loading, one sentence each without a final period: a `DUSTD_…`
    /// variable that is not a setting (probably misspelt), with the nearest real name.
    public var warnings: [String] = []
}

/// `station.*`.
public struct StationSettings: Sendable, Hashable {
    /// The station that drives intake; required by `dustd`.
    public var name: String?
    public var fallbacks: [String]
    public var mode: StationMode
}

/// `station.mode`.
public enum StationMode: String, Sendable, Hashable, CaseIterable {
    /// Poll the configured station(s) only.
    case single
    /// Also archive every station each hour with one 전국 request.
    case nation
}

/// `api.*` (the service key is loaded separately, see `ServiceKeyLoader`).
public struct APISettings: Sendable, Hashable {
    public var baseURL: String
    public var version: String
    public var timeoutSeconds: Double
    public var serviceKeyFile: String?

    public init(baseURL: String = AirKoreaEndpoint.defaultBaseURL, version: String = "1.5", timeoutSeconds: Double = 30, serviceKeyFile: String? = nil) {
        self.baseURL = baseURL
        self.version = version
        self.timeoutSeconds = timeoutSeconds
        self.serviceKeyFile = serviceKeyFile
    }
}

/// `poll.*`.
public struct PollSettings: Sendable, Hashable {
    public var minute: Int
    public var jitterSeconds: Int
    public var intervalSeconds: Int
    public var retryInitialSeconds: Int
    public var retryMaxSeconds: Int

    public init(minute: Int = 20, jitterSeconds: Int = 60, intervalSeconds: Int = 3600, retryInitialSeconds: Int = 30, retryMaxSeconds: Int = 900) {
        self.minute = minute
        self.jitterSeconds = jitterSeconds
        self.intervalSeconds = intervalSeconds
        self.retryInitialSeconds = retryInitialSeconds
        self.retryMaxSeconds = retryMaxSeconds
    }
}

/// `log.level`.
public enum LogLevel: String, Sendable, Hashable, CaseIterable {
    case debug, info, notice, warning, error
}

/// A configuration problem: which key, what is wrong, and where the value came from.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var key: String?
    public var problem: String
    public var source: String?

    public init(key: String?, problem: String, source: String? = nil) {
        self.key = key
        self.problem = problem
        self.source = source
    }

    public var description: String {
        let location = source.map { " (in \($0))" } ?? ""
        if let key { return "Invalid configuration: \(key) \(problem)\(location)." }
        return "Invalid configuration: \(problem)\(location)."
    }
}

import DustKit
import Foundation

/// Everything `dustd` and `dustctl` are configured with (docs/REFERENCE.md §11), validated.
public struct FineDustSettings: Sendable {
    /// Which stations to follow.
    public var station: StationSettings
    public var api: APISettings
    public var poll: PollSettings
    /// The SQLite database (`storage.path`); unused when `postgres` is set.
    public var storagePath: String
    /// `storage.url`: the PostgreSQL database used instead of `storage.path` (docs/REFERENCE.md §20); nil for SQLite.
    public var postgres: PostgresLocation? = nil
    /// `storage.passwordFile`: the file holding the PostgreSQL password (`PostgresPasswordLoader` reads it).
    public var storagePasswordFile: String? = nil
    /// What "a day" means (`timezone`).
    public var calendar: DayCalendar
    /// The intake model selected by `intake.model`, built from the `intake.*` keys.
    public var intakeModel: any IntakeModel
    public var logLevel: LogLevel
    /// `http.*`: the dashboard, API and metrics (docs/REFERENCE.md §13).
    public var http: HTTPSettings
    /// `forecast.*`: AirKorea's dust forecast (docs/REFERENCE.md §14).
    public var forecast = ForecastSettings(enabled: true, region: nil)
    /// `alerts.*`: rules and where their alerts go (docs/REFERENCE.md §14).
    public var alerts = AlertSettings()
    /// `advisories.*`: official advisories (주의보/경보, docs/REFERENCE.md §17).
    public var advisories = AdvisorySettings(enabled: true, district: nil, area: nil)
    /// The configuration file that was read, if any.
    public var configurationFile: String?
    /// Problems that did not stop loading, one sentence each without a final period: a `DUSTD_…`
    /// variable that is not a setting (probably misspelt), with the nearest real name.
    public var warnings: [String] = []
    /// `activity.maxInflatedBytes`: what all the entries read from one export.zip may inflate to.
    public var activityMaxInflatedBytes: Int64 = 64 << 30
    /// `people:` (docs/REFERENCE.md §18), never empty: without the key, one person `me` with
    /// `station.name` and the `intake.*` settings. The first is the default person of every output.
    public var people: [Person] = []
    /// `location.*`: how far a person's position reaches for stations (docs/REFERENCE.md §19).
    public var location = LocationSettings(radiusKilometres: InverseDistanceWeighting.defaultRadiusKilometres)
    /// `retention.*`: how long positions and samples are kept (docs/REFERENCE.md §11).
    public var retention = RetentionSettings(positionsDays: 400, samplesDays: 400)
    /// `indoor.*`: the home's own monitors (docs/REFERENCE.md §21).
    public var indoor = IndoorSettings()
    /// The radius the concentration is weighted within when it can follow people (docs/REFERENCE.md
    /// §19: `station.mode: nation` stores every station's hour); nil when it cannot.
    public var followingRadiusKilometres: Double? { station.mode == .nation ? location.radiusKilometres : nil }

    /// Every station dustd polls, once each: `station.name`, its fallbacks, then each person's home
    /// station; empty when `station.name` is not set.
    public var polledStations: [String] {
        guard let primary = station.name else { return [] }
        var names = [primary]
        for name in station.fallbacks + people.compactMap(\.station) where !names.contains(name) { names.append(name) }
        return names
    }

    /// Points the settings at the SQLite database `path` (dustctl's `--db`), refused when `storage.url`
    /// selects PostgreSQL: the two together would leave it unclear which database a command reads.
    public mutating func useSQLite(at path: String, option: String) throws(ConfigurationError) {
        guard case .sqlite = storage else {
            throw ConfigurationError(
                key: nil,
                problem:
                    "\(option) names an SQLite database but storage.url selects PostgreSQL; drop \(option), or remove storage.url to use SQLite"
            )
        }
        storagePath = path
    }

    /// The person named `name`; nil when no such person is configured.
    public func person(named name: String) -> Person? {
        let given = NameForm.given(name)
        return people.first { $0.name == given }
    }
}

/// `people[].tokenFile`: whose token a file holds.
public struct PersonTokenFile: Sendable, Hashable {
    public var person: String
    public var path: String

    public init(person: String, path: String) {
        self.person = person
        self.path = path
    }
}

/// `retention.*` (docs/REFERENCE.md §11): positions (with the kept places weighed from them) and
/// indoor samples older than this many days are removed, a pass a day.
public struct RetentionSettings: Sendable, Hashable {
    public var positionsDays: Int
    public var samplesDays: Int

    public init(positionsDays: Int, samplesDays: Int) {
        self.positionsDays = positionsDays
        self.samplesDays = samplesDays
    }
}

/// `location.*` (docs/REFERENCE.md §19).
public struct LocationSettings: Sendable, Hashable {
    /// `location.radiusKm`: stations farther than this from a home or a tracked position are not weighted.
    public var radiusKilometres: Double

    public init(radiusKilometres: Double) {
        self.radiusKilometres = radiusKilometres
    }
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

    public init(baseURL: String, version: String, timeoutSeconds: Double, serviceKeyFile: String?) {
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

    public init(minute: Int, jitterSeconds: Int, intervalSeconds: Int, retryInitialSeconds: Int, retryMaxSeconds: Int) {
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

/// `http.*` (docs/REFERENCE.md §13).
public struct HTTPSettings: Sendable, Hashable {
    /// `127.0.0.1:8478`: this machine only.
    public static let defaultListen = "127.0.0.1:8478"

    /// `host:port` (`[::1]:8478` for IPv6); empty when serving is off (`http.listen: off`).
    public var listen: String
    /// The administrator's token file: that token opens everything (docs/REFERENCE.md §13).
    public var tokenFile: String?
    /// Each person's own token file (`people[].tokenFile`), in the order of `people:`: such a token
    /// opens only that person's pages and documents.
    public var personTokenFiles: [PersonTokenFile]
    /// Names besides an IP address, `localhost` and this machine's host name that a web without tokens
    /// answers to (`http.hostNames`, docs/REFERENCE.md §13): a reverse proxy's or a router's name for it.
    public var hostNames: [String]
    /// The addresses of reverse proxies whose `X-Forwarded-For` names the client they forward for
    /// (`http.trustedProxies`, docs/REFERENCE.md §13), so that a stranger's wrong tokens through the
    /// proxy hold back the stranger, not everyone behind it.
    public var trustedProxies: [String]

    public init(
        listen: String, tokenFile: String?, personTokenFiles: [PersonTokenFile] = [], hostNames: [String] = [],
        trustedProxies: [String] = []
    ) {
        self.listen = listen
        self.tokenFile = tokenFile
        self.personTokenFiles = personTokenFiles
        self.hostNames = hostNames
        self.trustedProxies = trustedProxies
    }

    /// Whether any token is configured: then every request but `/healthz` and `/login` needs one.
    public var requiresTokens: Bool { tokenFile != nil || !personTokenFiles.isEmpty }

    /// The host and port to listen on; nil when serving is off.
    public var address: (host: String, port: Int)? { Self.address(listen) }

    /// `host:port` split, or nil when it is not one (or empty).
    public static func address(_ listen: String) -> (host: String, port: Int)? {
        let text = listen.trimmingWhiteSpace
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace }) else { return nil }
        return (host, port)
    }
}

/// `forecast.*` (docs/REFERENCE.md §14).
public struct ForecastSettings: Sendable, Hashable {
    /// Whether dustd fetches forecasts (`forecast.enabled`).
    public var enabled: Bool
    /// The forecast region; nil means "from the station" (`forecast.region`).
    public var region: ForecastRegion?

    public init(enabled: Bool, region: ForecastRegion?) {
        self.enabled = enabled
        self.region = region
    }
}

/// `advisories.*` (docs/REFERENCE.md §17).
public struct AdvisorySettings: Sendable, Hashable {
    /// Whether dustd fetches advisories (`advisories.enabled`).
    public var enabled: Bool
    /// The 시도 whose advisories concern the user; nil means the station's (`advisories.district`).
    public var district: String?
    /// A 권역 of the district; nil means every 권역 (`advisories.area`).
    public var area: String?

    public init(enabled: Bool, district: String?, area: String?) {
        self.enabled = enabled
        self.district = district
        self.area = area
    }

    /// The user's region: the configured district, else the station's province (`sidoName`); nil when neither is known.
    public func region(stationSido: String?) -> AdvisoryRegion? {
        guard let district = district ?? stationSido, !district.trimmingWhiteSpace.isEmpty else { return nil }
        return AdvisoryRegion(district: district, area: area)
    }
}

/// `alerts.*` (docs/REFERENCE.md §14).
public struct AlertSettings: Sendable, Hashable {
    /// `alerts.rules`: each `{when: pm25.grade >= 3}`, optionally `person: NAME` (docs/REFERENCE.md §18).
    public var rules: [AlertRule] = []
    /// `alerts.sinks`: where an alert goes.
    public var sinks: [AlertSinkSetting] = []
    /// `alerts.quietHours`: `{from: 22, to: 7}`, local time; only clearings are sent then.
    public var quietHours: QuietHours?
    /// `alerts.retryInitialSeconds` and `alerts.maxAttempts`: a failed delivery is tried again
    /// after this long, then twice as long each time, up to this many attempts in all.
    public var retryInitialSeconds = 30
    public var maxAttempts = 5
    /// `alerts.clearAfterMinutes`: how long a fired alert's condition must not hold before it clears.
    public var clearAfterMinutes = 60
    /// `alerts.language`: `ko` (the default) or `en`, the language of each alert's title and message.
    public var language = AlertLanguage.ko

    public init() {}
}

/// One entry of `alerts.sinks`.
public enum AlertSinkSetting: Sendable, Hashable {
    /// `{ntfy: https://ntfy.sh/topic, tokenFile: /etc/dustd/ntfy-token}`: an ntfy topic URL; the
    /// access token from the file, or from the systemd credential `ntfy-token`.
    case ntfy(url: String, tokenFile: String?)
    /// `{webhook: https://…}`: a JSON POST (docs/ALERTS.md has the schema).
    case webhook(url: String)
    /// `{command: [/usr/local/bin/notify, --loud], timeoutSeconds: 10}`: run without a shell, the
    /// event in its environment (`FINEDUST_…`).
    case command(arguments: [String], timeoutSeconds: Double)
}

/// Shown as its kind and `scheme://host[:port]` only (`ntfy https://ntfy.sh/…`), in every
/// description and in reflection: the URL's path, query and user info and a command's arguments
/// may be secrets (docs/ALERTS.md).
extension AlertSinkSetting: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        switch self {
        case .ntfy(let url, _): "ntfy \(Self.origin(url))"
        case .webhook(let url): "webhook \(Self.origin(url))"
        case .command(let arguments, _): "command \(TerminalSafeText.sanitized(arguments.first ?? ""))"
        }
    }

    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["sink": description], displayStyle: .enum) }
}

extension AlertSinkSetting {
    /// How the `position`-th sink (from 1) is named in logs, the database and `dustctl alerts
    /// list`: its kind, `scheme://host[:port]` and its place in the list. A URL's path and query
    /// stay out: an ntfy topic is as good as a password, and Slack's or Discord's webhook URLs
    /// carry their secret in the path.
    public func displayName(position: Int) -> String {
        "\(description) (sink \(position))"
    }

    /// `https://ntfy.sh/…`: scheme, host and port, and `/…` when there is more.
    private static func origin(_ url: String) -> String {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host else {
            return "(invalid URL)"
        }
        let port = components.port.map { ":\($0)" } ?? ""
        let more = components.path.isEmpty || components.path == "/" ? "" : "/…"
        return TerminalSafeText.sanitized("\(scheme)://\(host)\(port)\(more)")
    }
}

import DustConfig
import DustKit
import DustServices
import DustWeb
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// The dashboard, API and metrics as one more service of dustd (docs/REFERENCE.md §13), from `http.listen`
/// and `http.tokenFile`.
struct WebFrontEnd {
    /// The token in a token file (`http.tokenFile`, `people[].tokenFile`), read with the service key's
    /// rules; errors name `key`.
    static func token(from path: String, key: String) throws(ConfigurationError) -> BearerToken {
        guard let token = BearerToken(try readSecretFile(path, key: key, role: "the token file")) else {
            throw ConfigurationError(key: key, problem: "names \(path), which holds no token")
        }
        // Ten wrong guesses an address per ten minutes (`LoginThrottle`) leave no chance against 16 characters;
        // a PIN of four falls to a few machines in days.
        guard token.length >= BearerToken.minimumLength else {
            throw ConfigurationError(
                key: key,
                problem: "names \(path), whose token has \(token.length) characters; use at least \(BearerToken.minimumLength) "
                    + "(make one with: umask 077; openssl rand -hex 24 > \(path))")
        }
        return token
    }

    /// The tokens of `http.tokenFile` and each `people[].tokenFile`; two files holding one token are
    /// refused (whose would it be?).
    static func access(from http: HTTPSettings) throws(ConfigurationError) -> WebAccess {
        var files = http.tokenFile.map { [(key: "http.tokenFile", person: String?.none, path: $0)] } ?? []
        files += http.personTokenFiles.map { (key: "people[].tokenFile (\($0.person))", person: $0.person, path: $0.path) }
        var administrator: BearerToken?
        var people: [(name: String, token: BearerToken)] = []
        var seen: [(key: String, token: BearerToken)] = []
        for file in files {
            let token = try token(from: file.path, key: file.key)
            if let same = seen.first(where: { $0.token.isSameToken(as: token) }) {
                throw ConfigurationError(
                    key: file.key,
                    problem: "holds the same token as \(same.key); give each person and the administrator a token of their own")
            }
            seen.append((file.key, token))
            if let person = file.person { people.append((person, token)) } else { administrator = token }
        }
        // The name dustd listens on, when it is one, is a name it is addressed by.
        let listening = http.address.map { [$0.host] } ?? []
        return WebAccess(
            administrator: administrator, people: people, hostNames: WebHostNames(configured: http.hostNames + listening),
            trustedProxies: http.trustedProxies)
    }

    /// The tokens the web opens to, read once for dustd's web and its reloads to compare with; nil
    /// when `http.listen` is off (nothing is served, and no token file is read).
    static func access(for http: HTTPSettings) throws(ConfigurationError) -> WebAccess? {
        http.address == nil ? nil : try access(from: http)
    }

    /// The web service for these settings, or nil when `http.listen` is empty; its `/metrics` renders what
    /// was counted through `metrics` beside the gauges it reads at each scrape.
    static func service(
        settings: FineDustSettings, access: WebAccess?, data: WebData, metrics: PrometheusBackend,
        echoes: any EchoDetector = KeyEchoGuard.none, logger: Logger, endsOnFailure: Bool = false,
        onRunning: @escaping @Sendable () -> Void = {}
    ) -> (any Service)? {
        guard let (host, port) = settings.http.address, let access else { return nil }
        if !isLoopbackHost(host) {
            let protection = access.requiresTokens ? "a token is required" : "set http.tokenFile to require a token"
            logger.notice("Serving the dashboard and API on \(host):\(port), reachable from other machines; \(protection)")
        }
        let url = "http://\(host.contains(":") ? "[\(host)]" : host):\(port)/"
        return Optional(
            WebService(
                application: WebServer(data: data, registry: metrics.registry, access: access, echoes: echoes, logger: logger)
                    .application(host: host, port: port, logger: logger) {
                        logger.info("Serving \(url)")
                        onRunning()
                    },
                url: url, logger: logger, endsOnFailure: endsOnFailure))
    }

    /// What the web reads in a running dustd: the open database and the live configuration.
    static func data(database: DaemonDatabase, live: LiveConfiguration, clock: any WallClock = SystemClock()) -> WebData {
        WebData(
            store: { database.opened },
            settings: {
                let settings = live.snapshot.settings
                return WebData.ReportSettings(
                    stations: StationPreference(primary: settings.station.name ?? "", fallbacks: settings.station.fallbacks),
                    calendar: settings.calendar, intakeModel: settings.intakeModel, databasePath: settings.storage.description,
                    forecastRegion: settings.forecast.region,
                    otherPaths: [settings.configurationFile, settings.api.serviceKeyFile, settings.http.tokenFile].compactMap { $0 }
                        + settings.http.personTokenFiles.map(\.path),
                    advisoryDistrict: settings.advisories.district, advisoryArea: settings.advisories.area, people: settings.people,
                    followingRadiusKilometres: settings.followingRadiusKilometres,
                    askedIndoorSensors: settings.indoor.askedSensorNames)
            }, settingsGeneration: { live.generation }, clock: clock,
            generationReuse: live.snapshot.settings.storage.readsAreRoundTrips ? webGenerationReuseOnPostgres : .zero)
    }

    /// How long the web reuses a data generation it read from PostgreSQL (docs/REFERENCE.md §13, "Answers
    /// kept"): there each read is a round trip, which cost kept answers three quarters of SQLite's rate.
    static let webGenerationReuseOnPostgres: Duration = .seconds(1)
}

/// The dashboard could not be served (the port is taken, the address does not exist).
struct WebServingFailure: Error, CustomStringConvertible {
    var url: String
    var reason: String

    var description: String {
        "The dashboard cannot be served on \(url): \(reason). Another program may hold the port: choose another with --listen HOST:PORT (or http.listen), or stop that program."
    }

    /// Why the server could not start, in words: the system's sentence for a failed call (`Address
    /// already in use`), not NIO's name of the function it failed in.
    static func reason(_ error: any Error) -> String {
        guard let io = error as? IOError else { return "\(error)" }
        return String(cString: strerror(io.errnoCode))
    }
}

/// The web server as a service whose failure (the port is taken, the address does not exist)
/// is logged and leaves polling alone: the web only shows what the poller stores.
struct WebService<Application: ApplicationProtocol>: Service, CustomStringConvertible {
    /// The name the service group logs: the application (its router, the token) stays out of the journal.
    var description: String { "WebService" }

    let application: Application
    let url: String
    let logger: Logger
    /// `dustd --demo`, which does nothing but serve: a failure ends it (`WebServingFailure`).
    var endsOnFailure = false

    func run() async throws {
        do {
            try await application.run()
        } catch is CancellationError {
            return
        } catch {
            let reason = WebServingFailure.reason(error)
            if endsOnFailure { throw WebServingFailure(url: url, reason: reason) }
            logger.error(
                "The dashboard cannot be served on \(url): \(reason); dustd keeps polling. Set http.listen to a free address (or off) and restart dustd."
            )
            // Stay in the group until shutdown, so a web failure does not end dustd.
            try? await gracefulShutdown()
        }
    }
}

import DustConfig
import DustKit
import DustServices
import DustWeb
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// Reloads the configuration and the service key on SIGHUP. A new configuration that is invalid,
/// or that dustd cannot run with (no `station.name`, a person's station not in the synced station
/// list), is refused: dustd keeps running with the old
/// one, logs why, and `dustctl status` shows the refusal until a reload succeeds.
public struct ReloadService: Service, CustomStringConvertible {
    /// The name the service group logs: its fields (the settings, the sinks) stay out of the journal.
    public var description: String { "ReloadService" }

    private let configurationFile: String?
    private let live: LiveConfiguration
    private let board: DaemonStatusBoard
    private let redactor: SecretRedactor
    private let notifier: SystemdNotifier
    private let logger: Logger
    private let environment: [String: String]
    private let clock: any WallClock
    private let stations: @Sendable () async throws -> [Station]
    /// Hands `me`'s stored activity to the first of these people, logging what it moved
    /// (`ActivityService.giveStoredHistoryToFirstPerson(logger:)`).
    private let handOverActivity: @Sendable (_ people: [String]) async throws -> Void
    /// The web's settings and tokens as dustd read them at start, which it serves until it restarts.
    private let webAtStart: (settings: HTTPSettings, access: WebAccess?)
    /// SIGHUP, trapped before dustd says READY (`Daemon`); nil traps it when the service runs.
    private let reloads: UnixSignalsSequence?
    /// Set at SIGTERM or SIGINT (`StopAnnouncement`): a reload under way is then not applied.
    private let stop: DaemonStop

    /// - Parameter environment: the environment dustd started with (it removes the key variable
    ///   from its own environment once read, so children can never inherit it).
    /// - Parameter webAccess: the tokens dustd's web serves with (`WebFrontEnd.access(for:)`), read at start.
    public init(
        configurationFile: String?, live: LiveConfiguration, board: DaemonStatusBoard, redactor: SecretRedactor,
        notifier: SystemdNotifier, logger: Logger, environment: [String: String], webAccess: WebAccess?,
        clock: any WallClock = SystemClock(), stations: @escaping @Sendable () async throws -> [Station] = { [] },
        handOverActivity: @escaping @Sendable (_ people: [String]) async throws -> Void = { _ in },
        reloads: UnixSignalsSequence? = nil, stop: DaemonStop
    ) {
        self.stop = stop
        self.reloads = reloads
        self.handOverActivity = handOverActivity
        self.clock = clock
        self.stations = stations
        webAtStart = (live.snapshot.settings.http, webAccess)
        self.board = board
        self.environment = environment
        self.configurationFile = configurationFile
        self.live = live
        self.redactor = redactor
        self.notifier = notifier
        self.logger = logger
    }

    /// True when `settings` name PostgreSQL and its password, read again now, is one dustd has not
    /// seen (a rotation): it is added to `redactor` at once, so that no log line ever shows it.
    static func newPostgresPassword(_ settings: FineDustSettings, environment: [String: String], redactor: SecretRedactor) -> Bool {
        guard case .postgres(_, let passwordFile) = settings.storage,
            let password = (try? PostgresPasswordLoader(environment: environment).load(passwordFile: passwordFile))?.password,
            !redactor.holds(password)
        else { return false }
        redactor.add(password)
        return true
    }

    public func run() async throws {
        let trapped: UnixSignalsSequence
        if let reloads { trapped = reloads } else { trapped = await UnixSignalsSequence(trapping: .sighup) }
        for await _ in trapped.cancelOnGracefulShutdown() {
            await reload()
        }
    }

    private func reload() async {
        // A SIGHUP after SIGTERM reads nothing: the next start reads the configuration.
        guard !stop.hasBegun else { return }
        notifier.reloading()
        defer { notifier.ready() }
        let old = live.snapshot
        do {
            let settings = try SettingsLoader(environment: environment).load(configurationFile: configurationFile, now: clock.now)
            try settings.checkDaemonCanRun()
            // Unreadable, the list cannot refuse a reload; dustd's start checked it already.
            if let known = try? await stations() { try settings.checkPeopleStations(against: known) }
            for warning in settings.warnings + [settings.api.cleartextWarning].compactMap({ $0 }) { logger.warning("\(warning)") }
            let loaded = try ServiceKeyLoader(environment: environment).load(settings: settings)
            let key = loaded.key
            redactor.add(key)
            switch (old.settings.storage, settings.storage) {
            case (.sqlite(let before), .sqlite(let after)) where before != after:
                logger.warning("storage.path changed to \(after); restart dustd to use it (still writing \(before))")
            case (.postgres(let before, _), .postgres(let after, _)) where before != after:
                logger.warning("storage.url changed to \(after); restart dustd to use it (still writing \(before))")
            case (.sqlite(let before), .postgres(let after, _)):
                logger.warning("storage.url changed to \(after); restart dustd to use it (still writing \(before))")
            case (.postgres(let before, _), .sqlite):
                logger.warning("storage.url changed to none; restart dustd to use it (still writing \(before))")
            default:
                break
            }
            // The web's tokens are read once, at start: a token removed from the configuration, or changed in its
            // file, still opens the web until dustd restarts, which the operator must be told. A token file the
            // next start would refuse (unreadable, too short, shared) refuses the reload now.
            let access = try WebFrontEnd.access(for: settings.http)
            let sameTokens =
                switch (access, webAtStart.access) {
                case (nil, nil): true
                case (let now?, let then?): now.opensTheSame(as: then)
                default: false
                }
            if settings.http != webAtStart.settings || !sameTokens {
                logger.warning(
                    "http.listen, http.tokenFile and people[].tokenFile (and the tokens in them) take effect when dustd restarts; until then the tokens read at start still open the web (systemctl restart dustd)"
                )
            }
            if Self.newPostgresPassword(settings, environment: environment, redactor: redactor) {
                logger.warning(
                    "The PostgreSQL password (storage.passwordFile or the postgres-password credential) changed: dustd keeps using the one it read at start until it restarts (systemctl restart dustd); once the server refuses that one, dustd cannot reach the database"
                )
            }
            if settings.logLevel != old.settings.logLevel {
                logger.notice("log.level changes take effect when dustd restarts")
            }
            // Rules and quiet hours are read at each check; the sinks hold tokens and an HTTP client.
            let (before, after) = (old.settings.alerts, settings.alerts)
            if before.sinks != after.sinks || before.retryInitialSeconds != after.retryInitialSeconds
                || before.maxAttempts != after.maxAttempts || before.language != after.language
            {
                logger.warning(
                    "alerts.sinks, alerts.retryInitialSeconds, alerts.maxAttempts and alerts.language take effect when dustd restarts (the rules and quiet hours changed now)"
                )
            }
            // Walking, heart rate and sleep stored before `people:` was configured were `me`'s: a first person of
            // another name takes them now, as at dustd's start (docs/REFERENCE.md §18). Before, a household that
            // added its people with a reload saw the first person's dose without their walking until a restart.
            let people = settings.people.map(\.name)
            if people != old.settings.people.map(\.name), !stop.hasBegun {
                do {
                    try await handOverActivity(people)
                } catch {
                    logger.warning(
                        "Could not hand stored activity of \(Person.defaultName) to \(people[0]) (dustd tries again when it next starts): \(error)"
                    )
                }
            }
            // A stop that came while the reload waited (for the database's write lock, the hand-over above) ends
            // it here: the next start reads the configuration anyway, and nothing should change under a stop.
            guard !stop.hasBegun else {
                logger.notice("Reload not applied: dustd is stopping (its next start reads the configuration)")
                return
            }
            var applied = settings
            applied.storagePath = old.settings.storagePath
            applied.postgres = old.settings.postgres
            applied.storagePasswordFile = old.settings.storagePasswordFile
            live.replace(.init(settings: applied, key: key))
            logger.notice("Configuration reloaded", metadata: ["key": "\(loaded.source)", "station": "\(settings.station.name ?? "-")"])
            await record(refusal: nil)
        } catch {
            logger.error("Reload refused, keeping the running configuration: \(error)")
            guard !stop.hasBegun else { return }
            await record(refusal: error.statement)
        }
    }

    /// Keeps the refusal where `dustctl status` reads it (cleared by a successful reload).
    private func record(refusal: String?) async {
        await board.update { status in
            status.reloadRefused = refusal.map { DaemonStatus.RefusedReload(at: clock.now, reason: $0) }
        }
    }
}

import AirKorea
import AirKoreaHTTP
import Crypto
import DustConfig
import DustKit
import DustServices
import DustStorage
import DustStore
import DustWeb
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// dustd assembled from valid settings and a key: the database lock, the store, the status
/// record, and either one cycle (`--once`) or the services under systemd. The executable only
/// parses its arguments, loads the settings and the key, and calls `run`.
public struct Daemon: Sendable {
    private let settings: FineDustSettings
    private let key: ServiceKey
    private let keySource: String
    private let keyWarning: String?
    private let configurationFile: String?
    private let environment: [String: String]
    private let redactor: SecretRedactor
    private let logger: Logger
    /// The thread dustd's log lines are written by (none when the caller gave a sink of its own).
    private let logWriter: LogLineWriter?
    private let metrics: PrometheusBackend
    private let clock: any WallClock
    private let pollerLease: any PollerLease

    /// - Parameter metrics: the process's swift-metrics backend: the loops count with it, `/metrics` renders it.
    /// - Parameter clock: the one clock every service of this dustd reads and waits on.
    /// - Parameter pollerLease: who of several dustd on one database polls (docs/REFERENCE.md §20); SQLite's
    ///   is always held, so this dustd runs its poll services as it always has.
    public init(
        settings: FineDustSettings, key: ServiceKeyLoader.Loaded, configurationFile: String?, environment: [String: String],
        metrics: PrometheusBackend, logSink: (@Sendable (String) -> Void)? = nil, clock: any WallClock = SystemClock(),
        pollerLease: any PollerLease = SQLitePollerLease()
    ) {
        self.clock = clock
        self.pollerLease = pollerLease
        self.settings = settings
        self.metrics = metrics
        self.key = key.key
        keySource = key.source.description
        keyWarning = key.warning
        self.configurationFile = configurationFile
        self.environment = environment
        let redactor = SecretRedactor()
        redactor.add(key.key)
        self.redactor = redactor
        // Written by a thread of their own, so a log reader that stops reading never stops dustd (`LogLineWriter`).
        var sink = logSink
        if sink == nil {
            let writer = LogLineWriter()
            logWriter = writer
            sink = { @Sendable line in writer.write(line) }
        } else {
            logWriter = nil
        }
        logger = Self.logger(settings: settings, environment: environment, redactor: redactor, sink: sink)
    }

    /// dustd's logger: one line per event on stderr, journald priorities under systemd, secrets redacted.
    public static func logger(
        settings: FineDustSettings, environment: [String: String], redactor: SecretRedactor = SecretRedactor(),
        sink: (@Sendable (String) -> Void)? = nil
    ) -> Logger {
        let level = level(settings.logLevel)
        return Logger(label: "dustd") { label in
            JournalLogHandler(label: label, level: level, environment: environment, secrets: redactor, sink: sink)
        }
    }

    /// Runs until stopped (or one cycle with `once`); returns the exit status.
    public func run(once: Bool) async -> ExitStatus {
        // The last lines ("dustd stopped") reach a reader that reads; one that does not cannot hold the exit.
        defer { logWriter?.drain(within: 2) }
        // Set at SIGTERM or SIGINT (`StopAnnouncement`); the store's waits for another program's lock end at it.
        let stop = DaemonStop()
        let opened: OpenedDatabase
        switch await openDatabase(stop: stop) {
        case .success(let database): opened = database
        case .failure(let exit): return exit.status
        }
        // The store's connections (PostgreSQL's pool) run in this scope, from before the first
        // read to after the last service has stopped.
        do {
            return try await opened.storage.serving { _ in await run(once: once, opened: opened, stop: stop) }
        } catch {
            logger.critical("dustd stopped unexpectedly: \(error)")
            return .software
        }
    }

    private func run(once: Bool, opened: OpenedDatabase, stop: DaemonStop) async -> ExitStatus {
        let store = opened.storage.store
        let pollerLease = opened.lease
        defer { withExtendedLifetime(opened.lock) {} }
        // A person's home station must be one AirKorea has, once its list is synced.
        do {
            try settings.checkPeopleStations(against: try await store.stations())
        } catch let error as ConfigurationError {
            logger.critical("\(error)")
            return .configuration
        } catch {
            if let fatal = startUpFailure(error, "Could not read the station list to check people's stations") { return fatal }
        }
        // Walking, heart rate and sleep stored before `people:` was configured were `me`'s
        // (docs/REFERENCE.md §18): a first person of another name takes them, once.
        let people = settings.people.map(\.name)
        do {
            try await ActivityService(store: store, calendar: settings.calendar, clock: clock, people: people)
                .giveStoredHistoryToFirstPerson(logger: logger)
        } catch {
            if let fatal = startUpFailure(error, "Could not hand stored activity of \(Person.defaultName) to \(people[0])") { return fatal }
        }
        // A database `dustctl demo` made holds its replayed fixtures, which stay in every report beside what
        // dustd stores: said once, and the demo's mark removed, so that no later replay writes over the hours
        // dustd stored (a replay into it had revised them, exit 0).
        do {
            if try await store.releaseFromDemo() {
                logger.warning(
                    "This database was made by dustctl demo: its replayed hours and the demo household's records stay in the reports beside what dustd stores (for a history of its own, point storage.path at a new file). It is now this installation's: dustctl demo no longer writes into it."
                )
            }
        } catch {
            if let fatal = startUpFailure(error, "Could not read whether dustctl demo made this database") { return fatal }
        }
        logger.notice(
            "dustd starting",
            metadata: [
                "version": "\(FineDustVersion.current)", "station": "\(settings.station.name ?? "-")",
                "fallbacks": "\(settings.station.fallbacks)", "mode": "\(settings.station.mode.rawValue)",
                "database": "\(settings.storage.description)", "key": "\(keySource)",
                "config": "\(settings.configurationFile ?? "defaults")",
            ])
        for warning in [keyWarning, settings.api.cleartextWarning].compactMap({ $0 }) + settings.warnings {
            logger.warning("\(warning)")
        }
        let database = DaemonDatabase(store, lock: opened.lock, logger: logger)
        var initial = DaemonStatus(
            state: .starting, mode: once ? .once : .daemon, pid: getpid(), version: FineDustVersion.current,
            station: settings.station.name ?? "", startedAt: clock.now,
            heartbeatSeconds: PollService.heartbeatSeconds(settings.poll), host: DaemonStatus.localHost)
        // The last success and error outlive a restart: they are history, not this run's state.
        do {
            if let previous = try await store.loadStatus() {
                initial.lastSuccess = previous.lastSuccess
                initial.lastError = previous.lastError
                initial.forecast = previous.forecast
            }
        } catch {
            if let fatal = startUpFailure(error, "Could not read the last status record") { return fatal }
        }
        // `--once` beside a running poller would poll twice and overwrite its status: it polls only
        // when no other dustd does.
        if once, !pollerLease.alwaysHeld {
            do {
                guard try await pollerLease.acquire() else {
                    logger.error("Another dustd polls AirKorea from this database; dustd --once polls only when none does")
                    return .temporaryFailure
                }
            } catch {
                logger.critical("\(error)")
                return ExitStatus(error)
            }
        }
        // A dustd that may not be the poller writes the shared record only once it is (`PollerRole`).
        let board = await DaemonStatusBoard(
            initial, database: database, clock: clock, logger: logger, publishing: once || pollerLease.alwaysHeld)
        let transport = AsyncHTTPTransport()
        let live = LiveConfiguration(settings: settings, key: key)
        let status =
            once
            ? await pollOnce(live: live, store: store, board: board, transport: transport)
            : await serve(live: live, database: database, board: board, transport: transport, lease: pollerLease, stop: stop)
        await transport.shutdown()
        if once { await pollerLease.release() }
        return status
    }

    /// The store dustd writes, the file lock that keeps it the only dustd of an SQLite database,
    /// and the lease that says whether it polls (docs/REFERENCE.md §20).
    private struct OpenedDatabase: Sendable {
        var storage: OpenedStorage
        var lock: DatabaseLock?
        var lease: any PollerLease
    }

    /// Why dustd could not open its database, with the status it exits with (already logged).
    private struct OpeningFailure: Error {
        var status: ExitStatus
    }

    /// SQLite: the file lock first, so a second dustd never writes a byte, then the file, and the
    /// stored texts an older FineDust may have kept with the key in them. PostgreSQL: the password,
    /// the store, and a lease on the database's poller lock; no file lock, several dustd may share it.
    private func openDatabase(stop: DaemonStop) async -> Result<OpenedDatabase, OpeningFailure> {
        var lock: DatabaseLock?
        if case .sqlite(let path) = settings.storage {
            do {
                lock = try DatabaseLock(databasePath: path)
            } catch {
                logger.critical("\(error)")
                switch error {
                case .held: return .failure(OpeningFailure(status: .temporaryFailure))
                case .unavailable, .noAccess: return .failure(OpeningFailure(status: .cannotCreate))
                case .unsafe: return .failure(OpeningFailure(status: .configuration))
                }
            }
        }
        let storage: OpenedStorage
        do {
            storage = try await settings.storage.open(
                .write, environment: environment, logger: logger, warning: { [logger] in logger.warning("\($0)") },
                abandonWaits: { [stop] in stop.interrupts(waitBegunAt: $0) })
        } catch {
            if case .configuration(let error) = error {
                logger.critical("Invalid configuration: \(error)")
            } else {
                logger.critical("\(error)")
            }
            return .failure(OpeningFailure(status: error.exitStatus))
        }
        for secret in storage.secrets { redactor.add(SecretText(secret)) }
        // An older FineDust may have stored a server's echo of this key in any encoding: the guard
        // the client applies to every text it receives looks at every stored text, once per key
        // (`SQLiteStore.withholdKeyEchoes` says why once is enough). That look is as long as the
        // history: systemd is asked to wait for it rather than kill the start and begin it again.
        if let file = storage.store as? SQLiteStore {
            let key = key
            let notifier = SystemdNotifier(environment: environment, echoes: redactor)
            do {
                let withheld = try file.withholdKeyEchoes(
                    key.echoGuard,
                    unlessLookedFor: { salt in
                        key.authenticationCode(of: salt) { Array(HMAC<SHA256>.authenticationCode(for: $1, using: SymmetricKey(data: $0))) }
                    },
                    beforeWholeLook: { [logger] rows in
                        guard rows > 0 else { return }
                        logger.notice("Looking for echoes of the service key in every stored text (\(rows) readings), once for this key")
                        notifier.send(["EXTEND_TIMEOUT_USEC=600000000", "STATUS=Looking for echoes of the service key, once for this key"])
                    })
                if let withheld, withheld > 0 {
                    logger.notice("Withheld \(withheld) stored texts that echoed the service key (written by an older FineDust)")
                }
            } catch {
                if let fatal = startUpFailure(error, "Could not check stored messages for the service key") {
                    return .failure(OpeningFailure(status: fatal))
                }
            }
        }
        return .success(OpenedDatabase(storage: storage, lock: lock, lease: storage.pollerLease ?? pollerLease))
    }

    /// What a failure of a start-up step means: the status to exit with, or nil to carry on.
    ///
    /// The steps before the first poll (the key's echoes withheld, the people's stations checked,
    /// history handed to the first person, the last status read) each read the database. Most of
    /// their failures can pass and are logged, `what` before the failure. A damaged database, or one
    /// that is not FineDust's (`StorageFailure.Kind.unusable`), cannot: polling into it would write
    /// into a file whose pages are already wrong, and `--once` would report success. It ends dustd
    /// with the storage sentence and 65 (docs/REFERENCE.md §6, §7).
    private func startUpFailure(_ error: any Error, _ what: String) -> ExitStatus? {
        let storage = (error as? StorageFailure) ?? (error as? SQLiteFailure).map { StorageFailure($0) }
        if let storage, storage.kind == .unusable {
            logger.critical("\(storage)")
            return ExitStatus(storage)
        }
        logger.error("\(what): \(error)")
        return nil
    }

    /// `--once`: one cycle with backfill; the exit status says how it went.
    private func pollOnce(
        live: LiveConfiguration, store: any FineDustStore, board: DaemonStatusBoard, transport: any HTTPTransport
    ) async -> ExitStatus {
        let snapshot = live.snapshot
        guard let stations = snapshot.stations else { return .configuration }
        await board.update { $0.state = .polling }
        let cycle = snapshot.cycle(store: store, transport: transport, clock: clock, stationList: store)
        let report = await board.keepingHeartbeat { await cycle.run(stations: stations, includeNation: snapshot.includesNation) }
        CycleLog(logger: logger).notices(report.notices)
        let outcome = CycleOutcome(report)
        await board.update { status in
            status.record(outcome, of: report, at: clock.now)
            status.state = .stopped
            status.stoppedAt = clock.now
        }
        guard let failure = report.failure else {
            logger.notice(
                "Poll done", metadata: ["new": "\(report.rowsNew)", "revised": "\(report.rowsUpdated)", "requests": "\(report.requests)"])
            return .ok
        }
        logger.error("\(failure)", metadata: ["kind": "\(failure.kind.rawValue)"])
        return ExitStatus(failure)
    }

    /// The service group under systemd: the poll loop, reloads on SIGHUP, the watchdog.
    private func serve(
        live: LiveConfiguration, database: DaemonDatabase, board: DaemonStatusBoard, transport: any HTTPTransport,
        lease pollerLease: any PollerLease, stop: DaemonStop
    ) async -> ExitStatus {
        let notifier = SystemdNotifier(environment: environment, echoes: redactor)
        // Every request counter at 0 from the start, so a dashboard's rate() has a series before the first event.
        RequestCounters(factory: metrics).declareEveryOutcome()
        let alertSinks: AlertSinks
        do {
            alertSinks = try AlertSinks(settings: settings.alerts, environment: environment, clock: clock)
        } catch {
            logger.critical("Invalid configuration: \(error)")
            return .configuration
        }
        alertSinks.secrets.forEach(redactor.add)
        for warning in alertSinks.warnings { logger.warning("\(warning)") }
        if !settings.alerts.rules.isEmpty, alertSinks.sinks.isEmpty {
            logger.warning("alerts.rules are set but alerts.sinks is empty: alerts are recorded (dustctl alerts list) and sent nowhere")
        }
        let alertPolicy = AlertRetryPolicy(
            maxAttempts: settings.alerts.maxAttempts, initialDelay: .seconds(settings.alerts.retryInitialSeconds))
        let sensorHTTP = AsyncIndoorSensorHTTP()
        // The services that call AirKorea or announce, made afresh whenever this dustd becomes the poller.
        let pollServices: @Sendable () -> PollServices = { [clock, logger, metrics, environment, redactor, stop] in
            let alertTriggers = AsyncStream<Date>.makeStream(bufferingPolicy: .bufferingNewest(1))
            let advisoryTriggers = AsyncStream<Date>.makeStream(bufferingPolicy: .bufferingNewest(1))
            let placeTriggers = AsyncStream<Date>.makeStream(bufferingPolicy: .bufferingNewest(1))
            return PollServices(
                poll: PollService(
                    configuration: live, database: database, board: board, transport: transport, notifier: notifier, clock: clock,
                    logger: logger, metrics: metrics,
                    afterCycle: {
                        alertTriggers.continuation.yield($0)
                        advisoryTriggers.continuation.yield($0)
                        placeTriggers.continuation.yield($0)
                    }, stop: stop),
                alerts: AlertService(
                    live: live, database: database,
                    dispatcher: AlertDispatcher(
                        sinks: alertSinks.sinks, store: AlertStoreOfDatabase(database: database), policy: alertPolicy, clock: clock),
                    triggers: alertTriggers.stream, clock: clock, logger: logger),
                forecast: ForecastService(
                    configuration: live, database: database, board: board, transport: transport, clock: clock, logger: logger,
                    metrics: metrics),
                advisories: AdvisoryService(
                    configuration: live, database: database, board: board, transport: transport, triggers: advisoryTriggers.stream,
                    clock: clock, logger: logger, metrics: metrics),
                places: PlaceKeepingService(live: live, database: database, triggers: placeTriggers.stream, logger: logger),
                indoor: IndoorSamplingService(
                    live: live, database: database, http: sensorHTTP, clock: clock, logger: logger, environment: environment,
                    redactor: redactor))
        }
        // The web's tokens, read once: the web serves with them and a reload compares with them.
        let webAccess: WebAccess?
        do {
            webAccess = try WebFrontEnd.access(for: settings.http)
        } catch {
            logger.critical("Invalid configuration: \(error)")
            await alertSinks.shutdown()
            await sensorHTTP.shutdown()
            return .configuration
        }
        // SIGHUP trapped before READY=1: systemd sends a queued reload the moment it reads READY, and one that
        // came before the trap ended dustd for good (SIGHUP's default; a clean exit to systemd, so no restart).
        // It is ignored from `Dustd.main` until here.
        let reload = ReloadService(
            configurationFile: configurationFile, live: live, board: board, redactor: redactor, notifier: notifier,
            logger: logger, environment: environment, webAccess: webAccess, clock: clock,
            stations: { try await database.current().stations() },
            handOverActivity: { people in
                try await ActivityService(
                    store: database.current(), calendar: live.snapshot.settings.calendar, clock: clock, people: people
                )
                .giveStoredHistoryToFirstPerson(logger: logger)
            }, reloads: await UnixSignalsSequence(trapping: .sighup), stop: stop)
        var services: [any Service]
        if pollerLease.alwaysHeld {
            // SQLite: the one dustd of its database polls, its services in the order they always had.
            let polling = pollServices()
            services = [polling.poll, polling.alerts, reload, polling.forecast, polling.advisories, polling.places, polling.indoor]
        } else {
            // The reload first, so stopped after the poller's services, as with SQLite.
            services = [
                reload,
                PollerRole(
                    lease: pollerLease, board: board, clock: clock, logger: logger, notifier: notifier,
                    retrySeconds: { PollerRole.retryInterval(live.snapshot.settings.poll) }, services: { pollServices().all }, stop: stop),
            ]
        }
        if let web = WebFrontEnd.service(
            settings: settings, access: webAccess, data: WebFrontEnd.data(database: database, live: live),
            metrics: metrics, echoes: redactor, logger: logger)
        {
            services.append(web)
        }
        if let interval = SystemdNotifier.watchdogInterval(environment: environment) {
            services.append(WatchdogService(notifier: notifier, interval: interval, clock: clock))
        }
        services.append(HeapTrimService(trim: HeapTrimService.trimStoreAndHeap { database.opened }))
        // Last, so told first of a stop.
        services.append(StopAnnouncement(stop: stop, notifier: notifier, logger: logger))
        var configuration = ServiceGroupConfiguration(services: services.map { .init(service: $0) }, logger: logger)
        configuration.gracefulShutdownSignals = [.sigterm, .sigint]
        configuration.maximumGracefulShutdownDuration = .seconds(4)
        notifier.ready(status: "Configuration and database ready; first poll starting")
        do {
            try await ServiceGroup(configuration: configuration).run()
            await alertSinks.shutdown()
            await sensorHTTP.shutdown()
        } catch {
            await alertSinks.shutdown()
            await sensorHTTP.shutdown()
            // Only a signal ends dustd normally; anything else is a failure systemd should see.
            logger.critical("dustd stopped unexpectedly: \(error)")
            return .software
        }
        let stoppedAt = clock.now
        // Bounded: a database another program holds locked must not keep dustd past systemd's stop timeout.
        await board.update(within: 3) { status in
            status.state = .stopped
            status.stoppedAt = stoppedAt
            status.nextPollAt = nil
        }
        logger.notice("dustd stopped")
        return .ok
    }

    private static func level(_ level: LogLevel) -> Logger.Level {
        switch level {
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        }
    }
}

/// The services only the poller runs, by name: they start in the order `all` lists them and stop
/// in the reverse.
private struct PollServices {
    var poll: PollService
    var alerts: AlertService
    var forecast: ForecastService
    var advisories: AdvisoryService
    var places: PlaceKeepingService
    var indoor: IndoorSamplingService

    var all: [any Service] { [poll, alerts, forecast, advisories, places, indoor] }
}

extension ActivityService {
    /// `giveStoredHistoryToFirstPerson`, with the line dustd logs when it moved any rows: at its start
    /// and at a reload that changes `people:`.
    func giveStoredHistoryToFirstPerson(logger: Logger) async throws(StorageFailure) {
        let moved = try await giveStoredHistoryToFirstPerson()
        if moved > 0 { logger.notice("Stored activity of \(Person.defaultName) (\(moved) rows) now belongs to \(people[0])") }
    }
}

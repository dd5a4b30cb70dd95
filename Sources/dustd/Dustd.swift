import AirKorea
import ArgumentParser
import DustConfig
import DustDaemon
import AirKoreaHTTP
import DustKit
import DustServices
import DustStore
import Foundation
import Logging
import ServiceLifecycle

/// `dustd`: polls AirKorea every hour and stores what you breathe.
@main
struct Dustd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dustd",
        abstract: "Poll AirKorea every hour and store PM10 and PM2.5 readings for dustctl.",
        discussion: """
            Usually started by systemd (see systemd/dustd.service). Examples:
              dustd --demo                              replay the bundled fixtures, no key or network
              DUSTD_API_SERVICE_KEY=… dustd --once      one poll cycle with backfill, then exit
            """)

    @Option(help: ArgumentHelp("Configuration file (default: $DUSTD_CONFIG, /etc/dustd/dustd.yaml, ./Config/dustd.yaml).", valueName: "path"),
            completion: .file(extensions: ["yaml", "yml"]))
    var config: String?

    @Flag(help: "Run one poll cycle (with backfill), then exit.")
    var once = false

    @Flag(help: "Replay the bundled Fixtures/ into a local database through the real pipeline; no key, no network.")
    var demo = false

    @Option(help: ArgumentHelp("With --demo: the database to fill.", valueName: "path"))
    var demoDatabase = "finedust-demo.sqlite"

    func validate() throws {
        if once && demo { throw ValidationError("--once and --demo exclude each other.") }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let settings: FineDustSettings
        do {
            settings = try SettingsLoader(environment: environment).load(configurationFile: config)
        } catch {
            fail(.configuration, error.description)
        }
        if demo {
            try runDemo(settings)
            return
        }
        do {
            try DaemonConfigurationError.check(settings)
        } catch {
            fail(.configuration, "Invalid configuration: \(error) (\(settings.configurationFile ?? "no configuration file was found"))")
        }
        let redactor = SecretRedactor()
        let loadedKey: ServiceKeyLoader.Loaded
        do {
            loadedKey = try await ServiceKeyLoader(environment: environment).load(settings: settings)
        } catch {
            fail(.configuration, error.description)
        }
        let key = loadedKey.key
        // Read once; erased from the environment block (and /proc/PID/environ) so no child process
        // and no one reading the process's environment can ever see it.
        ProcessEnvironment.erase("DUSTD_API_SERVICE_KEY")
        redactor.add(key)
        let logger = Logger(label: "dustd") { label in
            JournalLogHandler(label: label, level: Self.level(settings.logLevel), secrets: redactor)
        }
        // Taken before the database is opened, so a second dustd never writes a byte.
        let lock: DatabaseLock
        do {
            lock = try DatabaseLock(databasePath: settings.storagePath)
        } catch {
            logger.critical("\(error)")
            switch error {
            case .held: throw ExitCode(Exit.temporaryFailure.rawValue)
            case .unavailable: throw ExitCode(Exit.cannotCreate.rawValue)
            }
        }
        let store: SQLiteStore
        do {
            store = try SQLiteStore(path: settings.storagePath)
        } catch {
            logger.critical("\(error)")
            throw ExitCode(Self.exitStatus(for: error))
        }
        // An older FineDust may have stored a server's echo of this key in any encoding.
        do {
            let scrubbed = try store.scrubStoredText { key.redacting($0) }
            if scrubbed > 0 { logger.notice("Removed the service key from \(scrubbed) stored messages written by an older FineDust") }
        } catch {
            logger.error("Could not check stored messages for the service key: \(error)")
        }
        let notifier = SystemdNotifier()
        let transport = AsyncHTTPTransport()
        let live = LiveConfiguration(settings: settings, key: key)
        logger.notice("dustd starting", metadata: [
            "station": "\(settings.station.name ?? "-")", "fallbacks": "\(settings.station.fallbacks)",
            "mode": "\(settings.station.mode.rawValue)", "database": "\(settings.storagePath)", "key": "\(loadedKey.source)",
            "config": "\(settings.configurationFile ?? "defaults")",
        ])
        if let warning = loadedKey.warning { logger.warning("\(warning)") }
        for warning in settings.warnings + [settings.api.cleartextWarning].compactMap({ $0 }) { logger.warning("\(warning)") }

        if once {
            let status = await pollOnce(live: live, store: store, transport: transport, logger: logger)
            await transport.shutdown()
            withExtendedLifetime(lock) {}
            if status != 0 { throw ExitCode(status) }
            return
        }

        let database = DaemonDatabase(store, logger: logger)
        var services: [any Service] = [
            PollService(configuration: live, database: database, transport: transport, notifier: notifier, logger: logger),
            ReloadService(configurationFile: config, live: live, database: database, redactor: redactor, notifier: notifier,
                          logger: logger, environment: environment),
        ]
        if let interval = SystemdNotifier.watchdogInterval() {
            services.append(WatchdogService(notifier: notifier, interval: interval))
        }
        var groupConfiguration = ServiceGroupConfiguration(services: services.map { .init(service: $0) }, logger: logger)
        groupConfiguration.gracefulShutdownSignals = [.sigterm, .sigint]
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(4)
        let group = ServiceGroup(configuration: groupConfiguration)
        notifier.ready(status: "Configuration and database ready; first poll starting")
        var failure: (any Error)?
        do {
            try await group.run()
        } catch {
            failure = error
        }
        await transport.shutdown()
        withExtendedLifetime(lock) {}
        if let failure {
            // Only a signal ends dustd normally; anything else is a failure systemd should see.
            logger.critical("dustd stopped unexpectedly: \(failure)")
            throw ExitCode(Exit.software.rawValue)
        }
        logger.notice("dustd stopped")
    }

    /// `--once`: one cycle; the exit status says how it went.
    private func pollOnce(live: LiveConfiguration, store: SQLiteStore, transport: any HTTPTransport, logger: Logger) async -> Int32 {
        let snapshot = live.snapshot
        // run() checked station.name before getting here.
        guard let stations = snapshot.stations else { return 78 }
        let poller = snapshot.poller(store: store, transport: transport, clock: SystemClock(), logger: logger)
        let report = await poller.cycle(stations: stations, mode: snapshot.settings.station.mode)
        guard let failure = report.failure else {
            logger.notice("Poll done", metadata: ["new": "\(report.rowsNew)", "revised": "\(report.rowsUpdated)", "requests": "\(report.requests)"])
            return 0
        }
        logger.error("\(failure)")
        switch failure.retryAdvice {
        case .waitForNextHour: return 78  // the key or the configuration needs fixing
        case .retryWithBackoff, .waitUntilMidnightKST, .waitAMinute: return 69  // AirKorea is unavailable for now
        }
    }

    private func runDemo(_ settings: FineDustSettings) throws {
        guard let directory = DemoReplay.locateFixtures(explicit: nil) else {
            fail(.noInput, "Cannot find the bundled Fixtures directory; run dustd --demo from the repository.")
        }
        let calendar = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)
        let store: SQLiteStore
        do { store = try SQLiteStore(path: demoDatabase) } catch { fail(.ioError, error.description) }
        let (outcomes, walked) = try DemoReplay(fixtures: directory, store: store, calendar: calendar).run()
        for (response, outcome) in outcomes {
            switch outcome {
            case let .stored(report): print("stored   \(response.path): \(report.readings) readings, \(report.stored.inserted) new")
            case let .rejected(error): print("rejected \(response.path): \(error)")
            }
        }
        print("stored   \(DemoReplay.activityFile): \(walked) hours of walking")
        let statistics = StatisticsService(readings: store, activity: store, clock: FixedClock(DemoReplay.now), calendar: calendar,
                                           intakeModel: try VentilationIntakeModel(), stations: StationPreference(primary: DemoReplay.station))
        let day = try statistics.day(DemoReplay.lastDay)
        let mean = day.totals.mean.map { $0.map { String(format: "%.1f", $0) } ?? "-" }
        let intake = day.totals.intake.map { $0.map { String(format: "%.1f", $0) } ?? "-" }
        print("\n\(DemoReplay.station) \(DemoReplay.lastDay): PM10 mean \(mean.fineDust) µg/m³, PM2.5 mean \(mean.ultraFineDust) µg/m³; "
              + "intake PM10 \(intake.fineDust) µg, PM2.5 \(intake.ultraFineDust) µg over \(day.totals.hours.fineDust) measured hours.")
        print("Full report: dustctl day \(DemoReplay.lastDay) --db \(demoDatabase) --station \(DemoReplay.station)")
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

    private static func exitStatus(for error: StoreError) -> Int32 {
        switch error {
        case .databaseMissing: 66
        case .corrupt, .schemaTooNew: 65
        default: 74
        }
    }
}

enum Exit: Int32 {
    case noInput = 66
    case software = 70
    case cannotCreate = 73
    case ioError = 74
    case temporaryFailure = 75
    case configuration = 78
}

/// Prints one sentence to stderr and exits with a sysexits status.
func fail(_ status: Exit, _ message: String) -> Never {
    FileHandle.standardError.write(Data("dustd: \(message)\n".utf8))
    exit(status.rawValue)
}

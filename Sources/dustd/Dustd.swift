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
            """,
        version: FineDustVersion.current)

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
        let loadedKey: ServiceKeyLoader.Loaded
        do {
            loadedKey = try await ServiceKeyLoader(environment: environment).load(settings: settings)
        } catch {
            fail(.configuration, error.description)
        }
        // Read once; erased from the environment block (and /proc/PID/environ) so no child process
        // and no one reading the process's environment can ever see it.
        ProcessEnvironment.erase("DUSTD_API_SERVICE_KEY")
        let status = await Daemon(settings: settings, key: loadedKey, configurationFile: config, environment: environment).run(once: once)
        if status != .ok { throw ExitCode(status.rawValue) }
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
}

/// Prints one sentence to stderr and exits with a sysexits status.
func fail(_ status: ExitStatus, _ message: String) -> Never {
    FileHandle.standardError.write(Data("dustd: \(message)\n".utf8))
    exit(status.rawValue)
}

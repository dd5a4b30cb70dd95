import ArgumentParser
import CMalloc
import DustConfig
import DustDaemon
import DustKit
import DustServices
import Foundation
import Metrics

/// `dustd`: polls AirKorea every hour and stores what you breathe.
@main
struct Dustd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dustd",
        abstract: "Poll AirKorea every hour and store PM10 and PM2.5 readings for dustctl.",
        discussion: """
            Usually started by systemd as the service dustd.service
            (`systemctl status dustd`). Examples, the first with the bundled fixtures
            on http://127.0.0.1:8478/ (no key, no network), the second one poll cycle
            with backfill:
              dustd --demo
              DUSTD_API_SERVICE_KEY=… dustd --once
            With `people:` in the configuration, dustd polls every person's home station,
            and the dashboard (a switcher, `/?person=NAME`), the JSON API (`?person=NAME`),
            the metrics (a `person` label on the intake) and the alerts (one for each
            person, or `person:` in a rule) are each person's. At start it hands walking,
            heart rate and sleep stored before `people:` existed (the person `me`'s) to
            the first person, when nobody is named `me`.
            With `indoor.sensors`, dustd also asks the home's own PM monitors
            (AirGradient, PurpleAir, Home Assistant) every `indoor.sampleSeconds`, in a
            task of its own beside the poll, and stores one sample a minute per sensor;
            for the hours a person is at home the measured indoor value replaces the
            estimate (docs/REFERENCE.md §21). Home Assistant's token comes from the
            credential homeassistant-token or `indoor.homeAssistantTokenFile`.
            """,
        version: FineDustVersion.current)

    @Option(
        help: ArgumentHelp("Configuration file (default: $DUSTD_CONFIG, /etc/dustd/dustd.yaml, ./Config/dustd.yaml).", valueName: "path"),
        completion: .file(extensions: ["yaml", "yml"]))
    var config: String?

    @Flag(help: "Run one poll cycle (with backfill), then exit.")
    var once = false

    @Flag(
        help:
            "Replay the bundled Fixtures/ into a local database through the real pipeline, then serve the dashboard on it (http.listen) until stopped; no key, no network."
    )
    var demo = false

    @Option(help: ArgumentHelp("With --demo: the database to fill.", valueName: "path"))
    var demoDatabase = "finedust-demo.sqlite"

    @Option(
        help: ArgumentHelp(
            "With --demo: the bundled responses (default: ./Fixtures, else the installed PREFIX/share/finedust/Fixtures, PREFIX the parent of dustd's directory).",
            valueName: "dir"))
    var fixtures: String?

    @Option(help: ArgumentHelp("With --demo: host:port to serve on (default: http.listen, 127.0.0.1:8478).", valueName: "host:port"))
    var listen: String?

    @Flag(help: "Fetch AirKorea's station list into the database (storage.path), then exit; `dustctl stations sync` runs this.")
    var syncStations = false

    @Flag(help: "Send a test alert to every sink of alerts.sinks once, then exit; `dustctl alerts test` runs this.")
    var testAlerts = false

    func validate() throws {
        if [once, demo, syncStations, testAlerts].filter({ $0 }).count > 1 {
            throw ValidationError("--once, --demo, --sync-stations and --test-alerts exclude each other.")
        }
        if !demo, fixtures != nil || listen != nil { throw ValidationError("--fixtures and --listen go with --demo.") }
        if let listen, HTTPSettings.address(listen) == nil {
            throw ValidationError("--listen must be host:port, e.g. 127.0.0.1:8480 or [::1]:8480.")
        }
    }

    /// ArgumentParser's own `main`, but a usage error (which quotes the argument given) is written made safe.
    static func main() async {
        // A log read through a pipe whose reader went away (`dustd | head`, a logger restarted) must not end the
        // daemon: the write fails with EPIPE and the line is dropped (JournalLogHandler).
        signal(SIGPIPE, SIG_IGN)
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            let message = fullMessage(for: error)
            let status = exitCode(for: error)
            if !message.isEmpty {
                if status.isSuccess {
                    // `--help` and `--version` on a full disk or a closed descriptor: 74, as dustctl says it.
                    if let failed = writeStandardOutput(message + "\n") { exit(withError: ExitCode(failed)) }
                } else {
                    writeStandardError(message + "\n")
                }
            }
            exit(withError: status)
        }
    }

    func run() async throws {
        // A SIGHUP before the daemon traps it (logrotate's `kill -HUP` during start-up) ended dustd for good:
        // SIGHUP's default is to terminate, and systemd takes that for a clean exit, so no restart followed.
        // Ignored until then: the settings are being read for the first time anyway, and systemd's own
        // reload waits for READY, which comes once the trap is set (`Daemon`). The one-shot modes and
        // `--demo` keep the default: a terminal that hangs up ends them.
        if !(once || demo || testAlerts || syncStations) { signal(SIGHUP, SIG_IGN) }
        // glibc gives each thread that meets contention an arena of its own (up to 8 a core), and
        // keeps what was freed in each: with SQLite on GRDB's queues beside the task pool and NIO,
        // dustd's peak RSS under its heaviest work went from 111 to 325 MiB (docs/PERFORMANCE.md,
        // "Liveness"). Two arenas on any machine; `MALLOC_ARENA_MAX` still wins when set.
        if ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil { _ = mallopt(M_ARENA_MAX, 2) }
        let environment = ProcessInfo.processInfo.environment
        let settings: FineDustSettings
        do {
            settings = try SettingsLoader(environment: environment).load(configurationFile: config, now: SystemClock().now)
        } catch {
            fail(.configuration, error.description)
        }
        // The process's one swift-metrics backend: what FineDust counts, and anything a library counts through
        // the global system, lands in the registry /metrics renders.
        let metrics = PrometheusBackend()
        MetricsSystem.bootstrap(metrics)
        if demo {
            try await runDemo(settings, environment: environment, metrics: metrics)
            return
        }
        if testAlerts || syncStations {
            // As in the daemon: no child process and no reader of /proc/PID/environ sees the key.
            EnvironmentEraser.erase("DUSTD_API_SERVICE_KEY")
        }
        if testAlerts {
            try report(await AlertTest(settings: settings, environment: environment).run())
            return
        }
        if syncStations {
            for warning in settings.warnings { writeStandardError("dustd: warning: \(warning).\n") }
            try report(await StationSync(settings: settings, environment: environment).run())
            return
        }
        do {
            try settings.checkDaemonCanRun()
        } catch {
            fail(.configuration, settings.configurationFile == nil ? "\(error) No configuration file was found." : "\(error)")
        }
        let loadedKey: ServiceKeyLoader.Loaded
        do {
            loadedKey = try ServiceKeyLoader(environment: environment).load(settings: settings)
        } catch {
            fail(.configuration, error.description)
        }
        // Read once; erased from the environment block (and /proc/PID/environ) so no child process
        // and no one reading the process's environment can ever see it.
        EnvironmentEraser.erase("DUSTD_API_SERVICE_KEY")
        let status = await Daemon(settings: settings, key: loadedKey, configurationFile: config, environment: environment, metrics: metrics)
            .run(once: once)
        if status != .ok { throw ExitCode(status.rawValue) }
    }

    /// A one-shot mode's lines on stderr and stdout, then its exit status.
    private func report(_ outcome: OneShotOutcome) throws {
        for line in outcome.diagnostics { writeStandardError("dustd: \(line)\n") }
        var unwritten: Int32?
        for line in outcome.output where unwritten == nil {
            unwritten = writeStandardOutput(TerminalSafeText.sanitized(line) + "\n")
        }
        // The one-shot's own failure first (a poll that failed is what the caller needs to know), then the output's.
        if outcome.status != .ok { throw ExitCode(outcome.status.rawValue) }
        if let unwritten { throw ExitCode(unwritten) }
    }

    /// `--demo`: the bundled responses through the real pipeline into a local database, then the
    /// dashboard on them until stopped (`dustctl demo` prints the same data as a report).
    private func runDemo(_ settings: FineDustSettings, environment: [String: String], metrics: PrometheusBackend) async throws {
        guard let directory = DemoReplay.locateFixtures(explicit: fixtures) else {
            fail(
                .noInput,
                fixtures.map { "\($0) holds no FineDust demo fixtures (activity/ and the AirKorea responses)." }
                    ?? "Cannot find the bundled Fixtures directory (./Fixtures or \(DemoReplay.installedFixtures())); name it with --fixtures DIR."
            )
        }
        var settings = settings
        if let listen { settings.http.listen = listen }
        let logger = Daemon.logger(settings: settings, environment: environment)
        let status = await DemoDashboard(databasePath: demoDatabase, settings: settings, logger: logger, metrics: metrics)
            .run(fixtures: directory) { line in
                // Unbuffered: the lines tell a script (or a person) when the dashboard is up.
                let bytes = Array((line + "\n").utf8)
                _ = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            }
        if status != .ok { throw ExitCode(status.rawValue) }
    }
}

/// Prints one sentence to stderr and exits with a sysexits status.
func fail(_ status: ExitStatus, _ message: String) -> Never {
    writeStandardError("dustd: \(message)\n")
    exit(status.rawValue)
}

/// Writes `text` to stdout; nil when written or when the reader of a pipe has gone (it has what it
/// wanted), else says why on stderr and returns 74 (`EX_IOERR`), the status to end with.
func writeStandardOutput(_ text: String) -> Int32? {
    switch writeAll(text.utf8, to: STDOUT_FILENO) {
    case nil, EPIPE?: return nil
    case let code?:
        writeStandardError("dustd: Cannot write the output: \(String(cString: strerror(code))).\n")
        return ExitStatus.ioError.rawValue
    }
}

/// `text` on stderr with what a terminal acts on replaced in each line (`TerminalSafeText`): a
/// configuration's value, a variable, an argument or a server's text quoted in it may hold an escape
/// sequence that would retitle or clear the operator's terminal.
func writeStandardError(_ text: String) {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { TerminalSafeText.sanitized(String($0)) }
    _ = writeAll(lines.joined(separator: "\n").utf8, to: STDERR_FILENO)
}

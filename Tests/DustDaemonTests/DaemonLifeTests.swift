import AirKorea
import DustConfig
import DustDaemon
import DustKit
import DustServices
import DustStore
import FakeAirKorea
import Foundation
import Synchronization
import TestSupport
import Testing

/// A dustd process polling a fake AirKorea every 2 seconds, with its stderr in a file.
final class RunningDustd: Sendable {
    let process: Process
    let directory: TemporaryDirectory
    let server: FakeAirKoreaServer
    let database: String
    let configPath: String
    let stderrPath: String

    /// - Parameter directory: the directory (configuration, database, log) of an earlier run to start
    ///   again on; a new one when nil.
    /// - Parameter reply: answers a request first when it gives an answer (e.g. `FakeReply.advisories(for:)`);
    ///   every other request gets `body`.
    init(
        configuration: String = "station:\n  name: 종로구\n", extraEnvironment: [String: String] = [:], body: Data? = nil,
        directory existing: TemporaryDirectory? = nil, reply: (@Sendable (ReceivedRequest) -> FakeReply?)? = nil
    ) async throws {
        directory = try existing ?? TemporaryDirectory("dustd-life")
        let daily = try body ?? TestFixtures.liveData("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        server = FakeAirKoreaServer { request in reply?(request) ?? .respond(status: 200, body: daily) }
        let baseURL = try await server.start()
        configPath = directory.path("dustd.yaml")
        try configuration.write(toFile: configPath, atomically: true, encoding: .utf8)
        database = directory.path("state/dust.sqlite")
        stderrPath = directory.path("stderr.log")
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process = Process()
        process.executableURL = Executables.url("dustd")
        process.arguments = ["--config", configPath]
        process.environment = [
            "PATH": "/usr/bin:/bin", "DUSTD_API_BASE_URL": baseURL, "DUSTD_STORAGE_PATH": database,
            "DUSTD_API_SERVICE_KEY": testKey, "DUSTD_POLL_INTERVAL_SECONDS": "2", "DUSTD_POLL_JITTER_SECONDS": "0",
            "DUSTD_LOG_LEVEL": "debug", "DUSTD_HTTP_LISTEN": "off",
            // Forecast fetches depend on the time of day (ForecastServiceTests cover them with a fake clock).
            "DUSTD_FORECAST_ENABLED": "false",
        ].merging(extraEnvironment) { $1 }
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        process.standardOutput = FileHandle.nullDevice
        try process.runReaped()
    }

    var logs: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// A test that ends early (a thrown error before `stop()`) must not leave dustd running.
    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// `dustctl status --json` against this dustd's database: the exit status and the document.
    func status() async throws -> (Int32, [String: Any]) {
        let result = try await Executables.run(
            "dustctl", ["status", "--json", "--db", database, "--station", "종로구"],
            environment: ["PATH": "/usr/bin:/bin", "DUSTD_CONFIG": configPath])
        // Empty until dustd has created the database.
        let object = (try? JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))) as? [String: Any] ?? [:]
        return (result.status, object)
    }

    /// `dustctl status` as text.
    func statusText() async throws -> String {
        try await Executables.run(
            "dustctl", ["status", "--db", database, "--station", "종로구"],
            environment: ["PATH": "/usr/bin:/bin", "DUSTD_CONFIG": configPath]
        ).standardOutput
    }

    /// Waits until `condition` holds or 20 s pass.
    /// Waits for `condition`, for at most 120 s: a guard against a hang, not a measure (at a load of 12 a
    /// debug dustd once had not asked for its first hour after 20 s).
    func wait(for condition: () async throws -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        // Once more: on a busy machine this task may not have run again until after the deadline.
        return try await condition()
    }

    /// SIGTERM, then the exit status (SIGKILL after 60 s: a guard against a hang, which a debug dustd
    /// starved at a load of 20 must not meet). A status other than 0 prints the end of dustd's log,
    /// since the directory that held it is removed when the test ends.
    func stop() async throws -> Int32 {
        // Only while it runs: once reaped, its PID may already be another program's (pid_max is 32768 here).
        let pid = process.processIdentifier
        if process.isRunning { kill(pid, SIGTERM) }
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        let killed = process.isRunning
        if killed { kill(pid, SIGKILL) }
        await process.exited()
        await server.stop()
        if process.terminationStatus != 0 || process.terminationReason != .exit {
            let tail = logs.split(separator: "\n", omittingEmptySubsequences: false).suffix(40).joined(separator: "\n")
            print(
                "dustd (PID \(pid)) ended with \(process.terminationReason == .exit ? "exit status" : "signal") "
                    + "\(process.terminationStatus)\(killed ? ", killed after 60 s" : "") after SIGTERM; its log's last lines:\n\(tail)")
        }
        return process.terminationStatus
    }
}

@Suite(
    "dustd's life: the environment, reloads, one daemon per database, a replaced database, a newer schema", .serialized,
    .timeLimit(.minutes(10)))
struct DaemonLifeTests {
    @Test("The key's bytes are gone from /proc/PID/environ once dustd has read it")
    func environmentErased() async throws {
        let dustd = try await RunningDustd(extraEnvironment: ["DUSTD_POLL_MINUT": "5"])
        defer { dustd.directory.remove() }
        #expect(try await dustd.wait { dustd.server.requests.count >= 1 })
        let environ = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(dustd.process.processIdentifier)/environ"))
        let key = try #require(ServiceKey(testKey))
        #expect(!key.occurs(in: environ), "the key is still in the initial environment block")
        #expect(environ.range(of: Data(("DUSTD_API_SERVICE_KEY=" + String(repeating: "*", count: testKey.utf8.count)).utf8)) != nil)
        // A misspelt variable is warned about in the journal, not ignored.
        #expect(dustd.logs.contains("DUSTD_POLL_MINUT"))
        #expect(dustd.logs.contains("DUSTD_POLL_MINUTE"))
        #expect(try await dustd.stop() == 0)
    }

    @Test("A success stamped after the clock (the clock was ahead, or is behind) is said so by dustctl status, not \"0 min ago\"")
    func successAfterTheClock() async throws {
        let dustd = try await RunningDustd()
        defer { dustd.directory.remove() }
        #expect(try await dustd.wait { try await dustd.status().1["lastSuccess"] is [String: Any] })
        #expect(try await dustd.stop() == 0)
        // Two days before the poll, as a Raspberry Pi's clock set back after running ahead would be.
        let earlier = Date().addingTimeInterval(-2 * 86_400)
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "Asia/Seoul")
        format.dateFormat = "yyyy-MM-dd'T'HH:mm"
        let shown = try await Executables.run(
            "dustctl", ["status", "--db", dustd.database, "--station", "종로구", "--now", format.string(from: earlier)],
            environment: ["PATH": "/usr/bin:/bin", "DUSTD_CONFIG": dustd.configPath])
        let line = shown.standardOutput.split(separator: "\n").first { $0.hasPrefix("Last success") }.map(String.init) ?? ""
        #expect(line.contains("after this machine's clock: the clock is or was wrong"), "\(shown.standardOutput)")
        #expect(!line.contains("ago"), "\(line)")
    }

    @Test(
        "A reload that configures people hands the walk stored for me to the first person at once, as a start does (it waited for a restart); a reload that changes no one moves nothing"
    )
    func reloadHandsOverMe() async throws {
        let dustd = try await RunningDustd()
        defer { dustd.directory.remove() }
        #expect(try await dustd.wait { dustd.server.requests.count >= 1 && FileManager.default.fileExists(atPath: dustd.database) })
        // A walk imported while no people: were configured: me's.
        let csv = dustd.directory.path("walk.csv")
        try Data("start,distance_m\n2026-11-20 19:00,800\n2026-11-20 20:00,400\n".utf8).write(to: URL(fileURLWithPath: csv))
        let imported = try await Executables.run(
            "dustctl", ["activity", "import", csv, "--db", dustd.database],
            environment: ["PATH": "/usr/bin:/bin", "DUSTD_CONFIG": dustd.configPath])
        #expect(imported.status == 0, "\(imported.standardError)")
        try "station:\n  name: 종로구\npeople:\n  - name: dad\n  - name: mom\n".write(
            toFile: dustd.configPath, atomically: true, encoding: .utf8)
        kill(dustd.process.processIdentifier, SIGHUP)
        #expect(try await dustd.wait { dustd.logs.contains("Configuration reloaded") })
        #expect(dustd.logs.contains("Stored activity of me (2 rows) now belongs to dad"), "\(dustd.logs)")
        let owners = try await SQLiteStore(path: dustd.database, mode: .readOnly).activitySources().map(\.person)
        #expect(owners == ["dad"])
        // The same people again: no hand-over asked, no line.
        kill(dustd.process.processIdentifier, SIGHUP)
        #expect(try await dustd.wait { dustd.logs.components(separatedBy: "Configuration reloaded").count == 3 })
        #expect(dustd.logs.components(separatedBy: "now belongs to").count == 2)
        #expect(try await dustd.stop() == 0)
    }

    @Test("A reload without station.name is refused: dustd keeps polling, says why, and records the refusal")
    func reloadRefused() async throws {
        let dustd = try await RunningDustd()
        defer { dustd.directory.remove() }
        #expect(try await dustd.wait { dustd.server.requests.count >= 1 })
        try "station:\n  fallbacks: [중구]\n".write(toFile: dustd.configPath, atomically: true, encoding: .utf8)
        kill(dustd.process.processIdentifier, SIGHUP)
        #expect(try await dustd.wait { dustd.logs.contains("Reload refused") })
        let seen = dustd.server.requests.count
        #expect(try await dustd.wait { dustd.server.requests.count > seen }, "dustd stopped polling after the refused reload")
        #expect(dustd.process.isRunning)
        #expect(dustd.logs.contains("station.name is not set"))
        let status = try await SQLiteStore(path: dustd.database, mode: .readOnly).loadStatus()
        #expect(status?.reloadRefused?.reason.contains("station.name is not set") == true)
        let shown = try await Executables.run(
            "dustctl", ["status", "--db", dustd.database, "--station", "종로구"],
            environment: ["PATH": "/usr/bin:/bin", "DUSTD_CONFIG": dustd.configPath])
        #expect(shown.standardOutput.contains("refused, still running the previous configuration: station.name is not set"), "\(shown)")
        // A good configuration again clears the refusal.
        try "station:\n  name: 종로구\n".write(toFile: dustd.configPath, atomically: true, encoding: .utf8)
        kill(dustd.process.processIdentifier, SIGHUP)
        #expect(
            try await dustd.wait {
                let status = try await SQLiteStore(path: dustd.database, mode: .readOnly).loadStatus()
                return status != nil && status?.reloadRefused == nil
            })
        // A token file named (or changed, or removed) is read at start only: the reload says so.
        let tokenFile = dustd.directory.path("http-token")
        #expect(
            FileManager.default.createFile(
                atPath: tokenFile, contents: Data("reload-token-0123456789abcdefghijklmnop\n".utf8), attributes: [.posixPermissions: 0o600])
        )
        try "station:\n  name: 종로구\nhttp:\n  tokenFile: \(tokenFile)\n".write(toFile: dustd.configPath, atomically: true, encoding: .utf8)
        kill(dustd.process.processIdentifier, SIGHUP)
        #expect(
            try await dustd.wait {
                dustd.logs.contains(
                    "http.listen, http.tokenFile and people[].tokenFile (and the tokens in them) take effect when dustd restarts")
            })
        #expect(try await dustd.stop() == 0)
    }

    @Test(
        "With the web on, a reload reads the token files: a token changed in its file is said to wait for a restart, every time; a file the next start would refuse refuses the reload"
    )
    func reloadTokens() async throws {
        let held = try HeldLoopbackPort()
        defer { held.release() }
        let directory = try TemporaryDirectory("dustd-tokens")
        let tokenFile = directory.path("http-token")
        #expect(
            FileManager.default.createFile(
                atPath: tokenFile, contents: Data("reload-token-0123456789abcdefghijklmnop\n".utf8), attributes: [.posixPermissions: 0o600])
        )
        let dustd = try await RunningDustd(
            configuration: "station:\n  name: 종로구\nhttp:\n  tokenFile: \(tokenFile)\n",
            extraEnvironment: ["DUSTD_HTTP_LISTEN": "127.0.0.1:\(held.port)"], directory: directory)
        defer { dustd.directory.remove() }
        #expect(try await dustd.wait { dustd.server.requests.count >= 1 })
        let restart = "http.listen, http.tokenFile and people[].tokenFile (and the tokens in them) take effect when dustd restarts"
        func warnings() -> Int { dustd.logs.components(separatedBy: restart).count - 1 }
        kill(dustd.process.processIdentifier, SIGHUP)
        #expect(try await dustd.wait { dustd.logs.contains("Configuration reloaded") })
        #expect(warnings() == 0, "nothing changed, nothing to say")
        // The token rotated in its file: the running web still takes the old one, and says so at each reload.
        try "rotated-token-0123456789abcdefghijklmnop\n".write(toFile: tokenFile, atomically: false, encoding: .utf8)
        for expected in 1...2 {
            kill(dustd.process.processIdentifier, SIGHUP)
            #expect(try await dustd.wait { warnings() == expected })
        }
        try "1234\n".write(toFile: tokenFile, atomically: false, encoding: .utf8)
        kill(dustd.process.processIdentifier, SIGHUP)
        #expect(try await dustd.wait { dustd.logs.contains("Reload refused") && dustd.logs.contains("whose token has 4 characters") })
        #expect(try await dustd.stop() == 0)
    }

    @Test("Sink secrets stay out of the debug log's service lines and out of a refused reload (journal, status record, dustctl status)")
    func sinkSecretsNeverShown() async throws {
        let configuration = """
            station:
              name: 종로구
            alerts:
              sinks:
                - { webhook: "http://127.0.0.1:9/PASSWORD/SECRETPATH?token=QUERYSECRET" }
            """
        let dustd = try await RunningDustd(configuration: configuration)
        defer { dustd.directory.remove() }
        #expect(try await dustd.wait { dustd.server.requests.count >= 1 })
        // The service group's debug lines are there (log.level is debug), naming the services only.
        #expect(dustd.logs.contains("AlertService"), "\(dustd.logs)")
        try """
        station:
          name: 종로구
        alerts:
          sinks:
            - { webhook: "http://127.0.0.1:9/PASSWORD/SECRETPATH?token=QUERYSECRET" }
            - { ntfy: "ftp://ntfy.sh/PRIVATE_TOPIC" }
        """.write(toFile: dustd.configPath, atomically: true, encoding: .utf8)
        kill(dustd.process.processIdentifier, SIGHUP)
        #expect(try await dustd.wait { dustd.logs.contains("Reload refused") })
        #expect(dustd.logs.contains("alerts.sinks[1].ntfy must be an http or https URL"), "\(dustd.logs)")
        #expect(try await dustd.wait { try await SQLiteStore(path: dustd.database, mode: .readOnly).loadStatus()?.reloadRefused != nil })
        let reason = try #require(try await SQLiteStore(path: dustd.database, mode: .readOnly).loadStatus()?.reloadRefused?.reason)
        // dustctl reading the refused file says why, without the URL; with a valid one it shows the refusal.
        let refusedFile = try await Executables.run(
            "dustctl", ["status", "--db", dustd.database, "--station", "종로구"],
            environment: ["PATH": "/usr/bin:/bin", "DUSTD_CONFIG": dustd.configPath])
        #expect(refusedFile.status == 78 && refusedFile.standardError.contains("alerts.sinks[1].ntfy"), "\(refusedFile)")
        let empty = dustd.directory.path("empty.yaml")
        try "# defaults\n".write(toFile: empty, atomically: true, encoding: .utf8)
        let shown = try await Executables.run(
            "dustctl", ["status", "--db", dustd.database, "--station", "종로구"],
            environment: ["PATH": "/usr/bin:/bin", "DUSTD_CONFIG": empty]
        ).standardOutput
        let json = try await Executables.run(
            "dustctl", ["status", "--json", "--db", dustd.database, "--station", "종로구"],
            environment: ["PATH": "/usr/bin:/bin", "DUSTD_CONFIG": empty]
        ).standardOutput
        #expect(shown.contains("alerts.sinks[1].ntfy"), "\(shown)")
        #expect(json.contains("alerts.sinks[1].ntfy"), "\(json)")
        #expect(try await dustd.stop() == 0)
        for text in [dustd.logs, reason, shown, json, refusedFile.standardError] {
            for secret in ["PASSWORD", "SECRETPATH", "QUERYSECRET", "PRIVATE_TOPIC", "ntfy.sh", "user:"] {
                #expect(!text.contains(secret), "\(secret) in: \(text)")
            }
        }
    }

    @Test("A key file this user may not read says permission denied (as nobody), not that it is not text")
    func unreadableKeyFile() async throws {
        guard geteuid() == 0 else {
            print("skipped: reading as another user needs root to switch users (run the tests as root to check it)")
            return
        }
        let directory = try TemporaryDirectory("unreadable-key")
        defer { directory.remove() }
        chmod(directory.url.path, 0o755)
        let key = directory.path("airkorea-service-key")
        try "\(testKey)\n".write(toFile: key, atomically: false, encoding: .utf8)
        chmod(key, 0o600)
        let config = directory.path("dustd.yaml")
        try "station:\n  name: 종로구\napi:\n  serviceKeyFile: \(key)\n".write(toFile: config, atomically: false, encoding: .utf8)
        chmod(config, 0o644)
        let binary = directory.path("dustd")
        try FileManager.default.copyItem(atPath: Executables.url("dustd").path, toPath: binary)
        chmod(binary, 0o755)
        let once = Process()
        once.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        once.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", binary, "--once", "--config", config]
        once.environment = [
            "PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "DUSTD_STORAGE_PATH": directory.path("state/d.sqlite"),
            "DUSTD_API_BASE_URL": "http://127.0.0.1:9",
        ]
        let errors = Pipe()
        once.standardError = errors
        once.standardOutput = FileHandle.nullDevice
        try once.runReaped()
        let problem = String(decoding: await errors.fileHandleForReading.readUntilEnd(), as: UTF8.self)
        await once.exited()
        #expect(once.terminationStatus == 78, "\(problem)")
        #expect(problem.contains("api.serviceKeyFile names \(key), which cannot be read: Permission denied"), "\(problem)")
        #expect(!problem.contains("not readable"), "\(problem)")
    }

    @Test("Plain http:// to another host is warned about; https and loopback are not")
    func cleartextWarning() throws {
        func api(_ url: String) -> APISettings { APISettings(baseURL: url, version: "1.5", timeoutSeconds: 30, serviceKeyFile: nil) }
        #expect(api("http://apis.data.go.kr/B552584").cleartextWarning?.contains("travels in clear text") == true)
        #expect(api("https://apis.data.go.kr/B552584").cleartextWarning == nil)
        #expect(api("http://127.0.0.1:8080/B552584").cleartextWarning == nil)
        #expect(api("http://localhost/B552584").cleartextWarning == nil)
    }

    @Test("A web port that cannot be bound is logged, and dustd keeps polling")
    func webPortTaken() async throws {
        // Hold a port so dustd cannot listen on it.
        let held = try HeldLoopbackPort()
        defer { held.release() }
        let port = held.port
        let dustd = try await RunningDustd(extraEnvironment: ["DUSTD_HTTP_LISTEN": "127.0.0.1:\(port)"])
        defer { dustd.directory.remove() }
        #expect(try await dustd.wait { dustd.logs.contains("The dashboard cannot be served on http://127.0.0.1:\(port)/") })
        let seen = dustd.server.requests.count
        #expect(try await dustd.wait { dustd.server.requests.count > seen + 1 }, "dustd stopped polling after the web failed")
        #expect(dustd.process.isRunning)
        #expect(try await dustd.stop() == 0)
    }

    @Test("A poll loop that ends without being stopped is an error, never a clean exit")
    func unexpectedEnd() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let empty = directory.path("empty.yaml")
        try "# defaults\n".write(toFile: empty, atomically: true, encoding: .utf8)
        var settings = try SettingsLoader(environment: [:]).load(configurationFile: empty, now: settingsLoadedAt)
        settings.storagePath = directory.path("d.sqlite")
        let store = try SQLiteStore(path: settings.storagePath)
        let database = DaemonDatabase(store, logger: LogCapture().logger())
        let board = await DaemonStatusBoard(
            DaemonStatus(
                state: .starting, mode: .daemon, pid: getpid(), version: "test", station: "",
                startedAt: Date(), heartbeatSeconds: 2), database: database, logger: LogCapture().logger())
        let service = PollService(
            configuration: LiveConfiguration(settings: settings, key: ServiceKey(testKey)!), database: database,
            board: board, transport: UnreachableTransport(), notifier: SystemdNotifier(environment: [:]),
            logger: LogCapture().logger(), stop: DaemonStop())
        await #expect(throws: ConfigurationError.noStation) { try await service.run() }
    }

    @Test("A second dustd on the same database refuses at start, naming the PID that holds it (exit 75)")
    func secondDaemon() async throws {
        let first = try await RunningDustd()
        defer { first.directory.remove() }
        #expect(try await first.wait { first.server.requests.count >= 1 })
        let environment = first.process.environment!
        for arguments in [["--config", first.configPath], ["--config", first.configPath, "--once"]] {
            let second = try await Executables.run("dustd", arguments, environment: environment)
            #expect(second.status == 75, "\(second.standardError)")
            #expect(
                second.standardError.contains(
                    "Another dustd (PID \(first.process.processIdentifier)) is already polling into \(first.database)"))
            #expect(second.standardError.split(separator: "\n").count == 1, "\(second.standardError)")
        }
        #expect(try await first.stop() == 0)
        // Once the first has stopped, the lock is free: the next one gets as far as AirKorea, here a port bound
        // and not listened on. Held, so that no other test's server, started meanwhile, can take it: the
        // stopped server's own port once was, and answered (a loop of full runs, 2026-12-04).
        let nobody = try HeldLoopbackPort(listening: false)
        defer { nobody.release() }
        var unreachable = environment
        unreachable["DUSTD_API_BASE_URL"] = "http://127.0.0.1:\(nobody.port)/B552584"
        let again = try await Executables.run("dustd", ["--config", first.configPath, "--once"], environment: unreachable)
        #expect(again.status == 69, "\(again.standardError)")
        #expect(!again.standardError.contains("Another dustd"))
    }

    @Test(
        "A second dustd on the same database FILE under another name (a symlink, a hard link) is refused, naming the PID (exit 75); a hard-linked database alone is refused too"
    )
    func secondDaemonOtherName() async throws {
        let first = try await RunningDustd()
        defer { first.directory.remove() }
        #expect(try await first.wait { first.server.requests.count >= 1 })
        let symlink = first.directory.path("elsewhere.sqlite")
        try FileManager.default.createSymbolicLink(atPath: symlink, withDestinationPath: first.database)
        let hardLink = first.directory.path("state/same-file.sqlite")
        #expect(link(first.database, hardLink) == 0)
        for path in [symlink, hardLink] {
            var environment = first.process.environment!
            environment["DUSTD_STORAGE_PATH"] = path
            for arguments in [["--config", first.configPath, "--once"], ["--config", first.configPath]] {
                let second = try await Executables.run("dustd", arguments, environment: environment)
                #expect(second.status == 75, "\(path): \(second.standardError)")
                #expect(
                    second.standardError.contains("Another dustd (PID \(first.process.processIdentifier)) is already polling into \(path)"),
                    "\(second.standardError)")
            }
        }
        #expect(try await first.stop() == 0)
        // With no daemon running, the hard link is still two -wal/-shm pairs waiting to happen.
        var environment = first.process.environment!
        environment["DUSTD_STORAGE_PATH"] = first.database
        let alone = try await Executables.run("dustd", ["--config", first.configPath, "--once"], environment: environment)
        #expect(alone.status == 78, "\(alone.standardError)")
        #expect(alone.standardError.contains("has 2 names (hard links)"), "\(alone.standardError)")
    }

    @Test("A database deleted under a running dustd is noticed at the next poll and recreated, not written into the void")
    func databaseDeleted() async throws {
        let dustd = try await RunningDustd()
        defer { dustd.directory.remove() }
        #expect(try await dustd.wait { (try? await SQLiteStore(path: dustd.database, mode: .readOnly).readingCount()) == 24 })
        for suffix in ["", "-wal", "-shm"] { unlink(dustd.database + suffix) }
        #expect(try await dustd.wait { dustd.logs.contains("was deleted or replaced while dustd was running; reopening it") })
        #expect(try await dustd.wait { (try? await SQLiteStore(path: dustd.database, mode: .readOnly).readingCount()) == 24 })
        #expect(try await dustd.stop() == 0)
        #expect(try await SQLiteStore(path: dustd.database, mode: .readOnly).readingCount() == 24)
    }

    @Test("A database from a newer FineDust is refused by dustd and dustctl import before anything is written")
    func newerSchema() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("d.sqlite")
        _ = try SQLiteStore(path: path)
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        sqlite.arguments = [path, "INSERT INTO grdb_migrations VALUES ('v99-from-the-future'); PRAGMA wal_checkpoint(TRUNCATE);"]
        try sqlite.runReaped()
        await sqlite.exited()
        #expect(sqlite.terminationStatus == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let empty = directory.path("empty.yaml")
        try "# defaults\n".write(toFile: empty, atomically: true, encoding: .utf8)
        let environment = [
            "PATH": "/usr/bin:/bin", "DUSTD_CONFIG": empty, "DUSTD_STATION_NAME": "종로구",
            "DUSTD_STORAGE_PATH": path, "DUSTD_API_SERVICE_KEY": testKey, "DUSTD_API_BASE_URL": "http://127.0.0.1:9",
        ]
        let once = try await Executables.run("dustd", ["--once"], environment: environment)
        #expect(once.status == 65, "\(once.standardError)")
        #expect(once.standardError.contains("written by a newer FineDust"))
        let daily = TestFixtures.url("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml").path
        let imported = try await Executables.run("dustctl", ["import", daily, "--db", path], environment: environment)
        #expect(imported.status == 65, "\(imported.standardError)")
        #expect(imported.standardError.contains("written by a newer FineDust"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("A member of dustd's group reads the database after dustd has stopped (as a non-root user)")
    func groupReaderAfterStop() async throws {
        guard geteuid() == 0 else {
            print("skipped: reading as another user needs root to switch users (run the tests as root to check it)")
            return
        }
        let directory = try TemporaryDirectory("group-reader")
        defer { directory.remove() }
        let state = directory.path("state")
        let path = state + "/dust.sqlite"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        do {
            let store = try SQLiteStore(path: path)
            let daily = try TestFixtures.data("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
            try await store.saveReadings(try AirKoreaResponseParser().parseMeasurements(daily).readings)
        }
        // The writer has closed (as when dustd stops): only its files remain.
        // Owner root, group nogroup (65534): the reader is nobody, a member of that group only.
        for file in [directory.url.path, state] + ["", "-wal", "-shm"].map({ path + $0 }) where FileManager.default.fileExists(atPath: file)
        {
            chown(file, 0, 65534)
        }
        chmod(directory.url.path, 0o755)
        chmod(state, 0o750)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"), "the WAL was removed at close")
        #expect(FileManager.default.fileExists(atPath: path + "-shm"), "the shared-memory file was removed at close")
        // Copy dustctl where nobody may run it.
        let binary = directory.path("dustctl")
        try FileManager.default.copyItem(atPath: Executables.url("dustctl").path, toPath: binary)
        chmod(binary, 0o755)
        let config = directory.path("empty.yaml")
        try "# defaults\n".write(toFile: config, atomically: true, encoding: .utf8)
        chmod(config, 0o644)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        reader.arguments = [
            "--reuid=65534", "--regid=65534", "--clear-groups", binary, "hourly", "2026-11-20",
            "--station", "종로구", "--db", path, "--json", "--config", config,
        ]
        reader.environment = ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent"]
        let output = Pipe()
        let errors = Pipe()
        reader.standardOutput = output
        reader.standardError = errors
        try reader.runReaped()
        // Both pipes at once: either may fill while the other is read.
        async let printed = output.fileHandleForReading.readUntilEnd()
        async let said = errors.fileHandleForReading.readUntilEnd()
        let text = String(decoding: await printed, as: UTF8.self)
        let problem = String(decoding: await said, as: UTF8.self)
        await reader.exited()
        #expect(reader.terminationStatus == 0, "\(problem)")
        let rows = try hourlyRowCount(text)
        #expect(rows == 24)
    }
}

private func hourlyRowCount(_ json: String) throws -> Int {
    let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
    return (object?["hourly"] as? [Any])?.count ?? -1
}

/// A transport for tests that must never reach the network.
struct UnreachableTransport: HTTPTransport {
    func get(_ url: String, timeout: Duration, maxBodyBytes: Int) async throws(TransportError) -> HTTPResponse {
        throw .connection("no network in this test")
    }
}

/// A DAILY response whose newest hour ended `hoursAgo` hours before now (24 hours of 종로구).
func recentDay(endingHoursAgo hoursAgo: Int) -> Data {
    let newest = Slot(containing: Date()).advanced(by: -1 - hoursAgo)
    let items = (0..<24).map { back in
        itemXML(dataTime: KoreaStandardTime.dataTime(of: newest.advanced(by: -back)), ["pm10Value": "30", "pm25Value": "12"])
    }
    return responseXML(items)
}

@Suite("dustctl status tells the truth in every state (docs/REFERENCE.md §15)", .serialized, .timeLimit(.minutes(10)))
struct StatusStatesTests {
    @Test("Never run: exit 3, and it says so")
    func neverRun() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("d.sqlite")
        _ = try SQLiteStore(path: db)
        let config = directory.path("empty.yaml")
        try "# defaults\n".write(toFile: config, atomically: true, encoding: .utf8)
        let result = try await Executables.run(
            "dustctl", ["status", "--json", "--db", db, "--station", "종로구"],
            environment: ["PATH": "/usr/bin:/bin", "DUSTD_CONFIG": config])
        #expect(result.status == 3, "\(result.standardError)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(object["daemon"] as? String == "neverRun")
        #expect(object["lastSuccess"] is NSNull)
        #expect(object["state"] is NSNull && object["nextPoll"] is NSNull)
        let text = try await Executables.run(
            "dustctl", ["status", "--db", db, "--station", "종로구"],
            environment: ["PATH": "/usr/bin:/bin", "DUSTD_CONFIG": config]
        ).standardOutput
        #expect(text.contains("dustd         has not run against this database"), "\(text)")
        #expect(!text.contains("Next poll") && !text.contains("still running"), "\(text)")
    }

    @Test("Running with fresh data: exit 0; SIGTERM: stopped, exit 3")
    func runningThenStopped() async throws {
        let dustd = try await RunningDustd(body: recentDay(endingHoursAgo: 0))
        defer { dustd.directory.remove() }
        #expect(try await dustd.wait { try await dustd.status().1["lastSuccess"] is [String: Any] })
        let (code, object) = try await dustd.status()
        #expect(code == 0, "\(object)")
        #expect(object["daemon"] as? String == "running")
        #expect(object["pid"] as? Int == Int(dustd.process.processIdentifier))
        #expect(object["stale"] as? Bool == false)
        // This dustd polls every few seconds: read while its next poll runs, the next one is not planned yet.
        #expect(object["nextPoll"] is String || object["state"] as? String == "polling", "\(object)")
        #expect(try await dustd.statusText().contains("running (PID \(dustd.process.processIdentifier))"))
        #expect(try await dustd.stop() == 0)
        let (stoppedCode, stopped) = try await dustd.status()
        #expect(stoppedCode == 3)
        #expect(stopped["daemon"] as? String == "stopped")
        #expect(stopped["state"] as? String == "stopped")
        #expect(stopped["stoppedAt"] is String)
        #expect(try await dustd.statusText().contains("stopped cleanly"))
    }

    @Test("Data 48 hours old while dustd runs: exit 4, and the real age is shown")
    func staleData() async throws {
        let dustd = try await RunningDustd(body: recentDay(endingHoursAgo: 48))
        defer { dustd.directory.remove() }
        #expect(try await dustd.wait { try await dustd.status().1["lastSuccess"] is [String: Any] })
        let (code, object) = try await dustd.status()
        #expect(code == 4)
        #expect(object["stale"] as? Bool == true)
        let age = try #require(object["dataAgeSeconds"] as? Double)
        #expect(age >= 48 * 3600 && age < 50 * 3600)
        let text = try await dustd.statusText()
        // The fixture's newest hour ended 48 h before the hour it was written in; when the hour turns
        // before dustctl asks (a run at 09:59:59 UTC, under load), that hour ended 49 h ago.
        #expect(["48", "49"].contains { text.contains("newest hour ended \($0) h ago — stale") }, "\(text)")
        #expect(try await dustd.stop() == 0)
    }

    @Test("Killed (SIGKILL): gone without stopping, exit 3")
    func killed() async throws {
        let dustd = try await RunningDustd(body: recentDay(endingHoursAgo: 0))
        defer { dustd.directory.remove() }
        #expect(try await dustd.wait { try await dustd.status().1["lastSuccess"] is [String: Any] })
        kill(dustd.process.processIdentifier, SIGKILL)
        await dustd.process.exited()
        await dustd.server.stop()
        let (code, object) = try await dustd.status()
        #expect(code == 3)
        #expect(object["daemon"] as? String == "gone")
        #expect(try await dustd.statusText().contains("not running: it ended without stopping"))
    }

    @Test("Waiting for the daily quota (22) until 00:00 KST: the heartbeat stays fresh, dustd is running, exit 4")
    func quotaWaitIsRunning() async throws {
        let quota22 = try TestFixtures.data("real/error-oldapi-22-limited-number-of-service-requests-exceeds.xml")
        let dustd = try await RunningDustd(body: quota22)
        defer { dustd.directory.remove() }
        // The poller's state, and the advisory service's three calls at start (PM10, PM2.5, ozone),
        // which run beside the poll and may land after its state is written.
        #expect(
            try await dustd.wait {
                try await dustd.status().1["state"] as? String == "quotaExhausted"
                    && dustd.server.requests.filter { $0.operation != "getMsrstnAcctoRltmMesureDnsty" }.count >= 3
            })
        let asked = dustd.server.requests.count
        // The heartbeat is written every 2 s (poll.intervalSeconds 2) and late after 4 s: watch
        // at least three times that long and at least 10 readings, well inside the wait for 00:00
        // KST. On a loaded machine one `dustctl status` can take over a second, so the watch runs
        // until both are reached (at most a minute) rather than for a fixed 12 s.
        // A heartbeat is late after 4 s, and a debug dustd starved for seconds once wrote one late (two
        // loops of full test runs and a benchmark's fsyncs beside it, load 12). Waiting for the quota,
        // dustd keeps writing it: the watch goes on until the newest reading is fresh (at most 90 s),
        // and a dustd that stopped writing it never gets there.
        let started = Date()
        var seen: [String] = []
        while Date().timeIntervalSince(started) < 12 || seen.count < 10 || seen.last != "running/4",
            Date().timeIntervalSince(started) < 90
        {
            let (code, object) = try await dustd.status()
            seen.append("\(object["daemon"] as? String ?? "?")/\(code)")
            try await Task.sleep(for: .milliseconds(500))
        }
        #expect(seen.count >= 10 && seen.allSatisfy { $0 == "running/4" || $0 == "notResponding/4" }, "\(seen)")
        #expect(seen.last == "running/4", "\(seen)")
        #expect(seen.filter { $0 == "running/4" }.count * 2 > seen.count, "fresh most of the time: \(seen)")
        let (_, object) = try await dustd.status()
        #expect(object["state"] as? String == "quotaExhausted")
        #expect((object["lastError"] as? [String: Any])?["resultCode"] as? String == "22")
        // The next poll is the next 00:00 KST (the quota's reset), not in the past.
        let next = try #require((object["nextPoll"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) })
        #expect(next > Date() && next <= Date().addingTimeInterval(86_400 + 120))
        // Asked until it says so: at a load of 20 one heartbeat can be late, and the line says that instead.
        var text = ""
        let said = try await dustd.wait {
            text = try await dustd.statusText()
            return text.contains("running (PID \(dustd.process.processIdentifier)), waiting for the daily quota to reset (00:00 KST)")
        }
        #expect(said, "\(text)")
        #expect(dustd.server.requests.count == asked, "nothing is asked again before 00:00 KST: \(dustd.server.requests.map(\.operation))")
        #expect(try await dustd.stop() == 0)
    }

    @Test("After a refused reload: running says so; stopped and killed claim no state, no next poll and no \"still running\"")
    func nothingClaimedAfterTheEnd() async throws {
        for ending in ["stopped", "gone"] {
            let dustd = try await RunningDustd(body: recentDay(endingHoursAgo: 0))
            defer { dustd.directory.remove() }
            #expect(try await dustd.wait { try await dustd.status().1["lastSuccess"] is [String: Any] })
            try "station:\n  fallbacks: [중구]\n".write(toFile: dustd.configPath, atomically: true, encoding: .utf8)
            kill(dustd.process.processIdentifier, SIGHUP)
            #expect(try await dustd.wait { try await dustd.status().1["reloadRefused"] is [String: Any] })
            #expect(try await dustd.statusText().contains("refused, still running the previous configuration: station.name is not set"))
            // dustd polls every 2 s here, and while it polls there is no next poll yet: asked until there is.
            #expect(try await dustd.wait { try await dustd.status().1["nextPoll"] is String })
            if ending == "stopped" {
                #expect(try await dustd.stop() == 0)
            } else {
                kill(dustd.process.processIdentifier, SIGKILL)
                await dustd.process.exited()
                await dustd.server.stop()
            }
            let (code, object) = try await dustd.status()
            #expect(code == 3)
            #expect(object["daemon"] as? String == ending)
            #expect(object["state"] as? String == (ending == "stopped" ? "stopped" : nil), "\(object)")
            #expect(object["nextPoll"] is NSNull, "\(object)")
            #expect((object["forecast"] as? [String: Any])?["nextFetch"] is NSNull)
            // The refusal is history: kept, with its time, without claiming anything now.
            #expect(
                (object["reloadRefused"] as? [String: Any])?["reason"] as? String
                    == "station.name is not set, so dustd has nothing to poll; set it in the configuration file or DUSTD_STATION_NAME (find one with dustctl stations) (in \(dustd.configPath))."
            )
            let text = try await dustd.statusText()
            #expect(!text.contains("still running"), "\(text)")
            #expect(!text.contains("Next poll"), "\(text)")
            #expect(!text.contains("idle"), "\(text)")
            #expect(text.contains("Reload        refused at "), "\(text)")
        }
    }

    @Test("A failing poll while running: exit 4, the error's kind and fix")
    func failing() async throws {
        let key30 = try TestFixtures.data("real/error-gateway-30-service-key-not-registered-OpenAPI_ServiceResponse-nonairkorea.xml")
        let dustd = try await RunningDustd(body: key30)
        defer { dustd.directory.remove() }
        #expect(try await dustd.wait { try await dustd.status().1["lastError"] is [String: Any] })
        let (code, object) = try await dustd.status()
        #expect(code == 4)
        // Its next try may have begun (two full runs side by side delayed this read past it).
        #expect(["waitingForNextHour", "polling"].contains(object["state"] as? String), "\(object)")
        let failure = try #require(object["lastError"] as? [String: Any])
        #expect(failure["kind"] as? String == "airKorea")
        #expect((failure["message"] as? String)?.contains("Decoding key") == true)
        #expect(try await dustd.stop() == 0)
    }
}

@Suite("The status record", .timeLimit(.minutes(10)))
struct DaemonStatusTests {
    @Test("A storage failure is recorded and shown as storage, not network")
    func storageKind() {
        // Whole seconds, a quarter and a half: exact in the stored form.
        let started = Date(timeIntervalSince1970: 1_795_188_000.25)
        var status = DaemonStatus(
            state: .backingOff, mode: .daemon, pid: 1, version: "t", station: "종로구", startedAt: started, heartbeatSeconds: 600)
        let full = PollFailure.storage(StorageFailure(SQLiteFailure.diskFull(path: "/var/lib/dustd/dust.sqlite")))
        var report = CycleReport()
        report.failure = full
        status.record(.failed(full), of: report, at: started.addingTimeInterval(0.25))
        let decoded = DaemonStatus.decoded(status.encoded())
        #expect(decoded == status)
        #expect(decoded?.lastError?.kind == .storage)
        #expect(decoded?.lastError?.message.contains("is full") == true)
        #expect(decoded?.lastPollFailed == true)
    }

    @Test("Running needs a live dustd and a heartbeat younger than two intervals; alive with an older one is not responding (exit 4)")
    func health() {
        let now = Date()
        var status = DaemonStatus(
            state: .idle, mode: .daemon, pid: 4242, version: "t", station: "종로구", startedAt: now, heartbeatSeconds: 600)
        status.heartbeatAt = now.addingTimeInterval(-1000)
        status.nextPollAt = now.addingTimeInterval(600)
        let fresh = Slot(containing: now).advanced(by: -1)
        #expect(
            DaemonHealth(status: status, newestSlot: fresh, now: now, processIsDustd: { $0 == 4242 }).nextPoll
                == now.addingTimeInterval(600))
        #expect(DaemonHealth(status: status, newestSlot: fresh, now: now, processIsDustd: { $0 == 4242 }).daemon == .running)
        #expect(DaemonHealth(status: status, newestSlot: fresh, now: now, processIsDustd: { $0 == 4242 }).exitStatus == 0)
        #expect(DaemonHealth(status: status, newestSlot: fresh, now: now, processIsDustd: { _ in false }).daemon == .gone)
        status.heartbeatAt = now.addingTimeInterval(-1300)
        let late = DaemonHealth(status: status, newestSlot: fresh, now: now, processIsDustd: { _ in true })
        #expect(late.daemon == .notResponding)
        #expect(late.exitStatus == 4)
        #expect(late.daemonSummary.hasPrefix("not responding: PID 4242 is alive but last wrote its heartbeat at "))
        // Its last record (idle, a next poll) is no longer vouched for.
        #expect(late.currentState == nil && late.nextPoll == nil)
        #expect(DaemonHealth(status: status, newestSlot: fresh, now: now, processIsDustd: { _ in false }).daemon == .gone)
        #expect(DaemonHealth(status: nil, newestSlot: nil, now: now, processIsDustd: { _ in true }).exitStatus == 3)
    }
}

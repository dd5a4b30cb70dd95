import AirKorea
import DustConfig
import DustDaemon
import DustStore
import FakeAirKorea
import Foundation
import Synchronization
import Testing
import TestSupport

/// A dustd process polling a fake AirKorea every 2 seconds, with its stderr in a file.
final class RunningDustd: Sendable {
    let process: Process
    let directory: TemporaryDirectory
    let server: FakeAirKoreaServer
    let database: String
    let configPath: String
    let stderrPath: String

    init(configuration: String = "station:\n  name: 종로구\n", extraEnvironment: [String: String] = [:]) async throws {
        directory = try TemporaryDirectory("dustd-life")
        let daily = try TestFixtures.data("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        server = FakeAirKoreaServer { _ in .respond(status: 200, body: daily) }
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
            "DUSTD_LOG_LEVEL": "debug",
        ].merging(extraEnvironment) { $1 }
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        process.standardOutput = FileHandle.nullDevice
        try process.run()
    }

    var logs: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Waits until `condition` holds or 20 s pass.
    func wait(for condition: () throws -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if try condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// SIGTERM, then the exit status (SIGKILL after 10 s).
    func stop() async throws -> Int32 {
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        await server.stop()
        return process.terminationStatus
    }
}

@Suite("dustd's life: the environment, reloads, one daemon per database, a replaced database, a newer schema", .serialized)
struct DaemonLifeTests {
    @Test("The key's bytes are gone from /proc/PID/environ once dustd has read it")
    func environmentErased() async throws {
        let dustd = try await RunningDustd(extraEnvironment: ["DUSTD_POLL_MINUT": "5"])
        defer { dustd.directory.remove() }
        #expect(try await dustd.wait { dustd.server.requests.count >= 1 })
        let environ = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(dustd.process.processIdentifier)/environ"))
        let key = try #require(ServiceKey(testKey))
        #expect(!key.occurs(in: environ), "the key is still in the initial environment block")
        #expect(environ.range(of: Data("DUSTD_API_SERVICE_KEY=*****************".utf8)) != nil)
        // A misspelt variable is warned about in the journal, not ignored.
        #expect(dustd.logs.contains("DUSTD_POLL_MINUT"))
        #expect(dustd.logs.contains("DUSTD_POLL_MINUTE"))
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
        let state = try SQLiteStore(path: dustd.database, mode: .readOnly).daemonState()
        #expect(state["reload_refused"]?.contains("station.name is not set") == true)
        let status = try Executables.run("dustctl", ["status", "--db", dustd.database, "--station", "종로구"],
                                         environment: ["PATH": "/usr/bin:/bin", "DUSTD_CONFIG": dustd.configPath])
        #expect(status.standardOutput.contains("refused, still running the previous configuration: station.name is not set"), "\(status)")
        // A good configuration again clears the refusal.
        try "station:\n  name: 종로구\n".write(toFile: dustd.configPath, atomically: true, encoding: .utf8)
        kill(dustd.process.processIdentifier, SIGHUP)
        #expect(try await dustd.wait { try SQLiteStore(path: dustd.database, mode: .readOnly).daemonState()["reload_refused"] == "" })
        #expect(try await dustd.stop() == 0)
    }

    @Test("Plain http:// to another host is warned about; https and loopback are not")
    func cleartextWarning() throws {
        func api(_ url: String) -> APISettings { APISettings(baseURL: url, version: "1.5", timeoutSeconds: 30, serviceKeyFile: nil) }
        #expect(api("http://apis.data.go.kr/B552584").cleartextWarning?.contains("travels in clear text") == true)
        #expect(api("https://apis.data.go.kr/B552584").cleartextWarning == nil)
        #expect(api("http://127.0.0.1:8080/B552584").cleartextWarning == nil)
        #expect(api("http://localhost/B552584").cleartextWarning == nil)
    }

    @Test("A poll loop that ends without being stopped is an error, never a clean exit")
    func unexpectedEnd() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let empty = directory.path("empty.yaml")
        try "# defaults\n".write(toFile: empty, atomically: true, encoding: .utf8)
        var settings = try SettingsLoader(environment: [:]).load(configurationFile: empty)
        settings.storagePath = directory.path("d.sqlite")
        let store = try SQLiteStore(path: settings.storagePath)
        let service = PollService(configuration: LiveConfiguration(settings: settings, key: ServiceKey(testKey)!),
                                  database: DaemonDatabase(store, logger: LogCapture().logger()), transport: UnreachableTransport(),
                                  notifier: SystemdNotifier(environment: [:]), logger: LogCapture().logger())
        await #expect(throws: DaemonConfigurationError.noStation) { try await service.run() }
    }

    @Test("A second dustd on the same database refuses at start, naming the PID that holds it (exit 75)")
    func secondDaemon() async throws {
        let first = try await RunningDustd()
        defer { first.directory.remove() }
        #expect(try await first.wait { first.server.requests.count >= 1 })
        let environment = first.process.environment!
        for arguments in [["--config", first.configPath], ["--config", first.configPath, "--once"]] {
            let second = try Executables.run("dustd", arguments, environment: environment)
            #expect(second.status == 75, "\(second.standardError)")
            #expect(second.standardError.contains("Another dustd (PID \(first.process.processIdentifier)) is already polling into \(first.database)"))
            #expect(second.standardError.split(separator: "\n").count == 1, "\(second.standardError)")
        }
        #expect(try await first.stop() == 0)
        // Once the first has stopped, the lock is free: the next one gets as far as the (now stopped) server.
        let again = try Executables.run("dustd", ["--config", first.configPath, "--once"], environment: environment)
        #expect(again.status == 69, "\(again.standardError)")
        #expect(!again.standardError.contains("Another dustd"))
    }

    @Test("A database deleted under a running dustd is noticed at the next poll and recreated, not written into the void")
    func databaseDeleted() async throws {
        let dustd = try await RunningDustd()
        defer { dustd.directory.remove() }
        #expect(try await dustd.wait { (try? SQLiteStore(path: dustd.database, mode: .readOnly).measurementCount()) == 24 })
        for suffix in ["", "-wal", "-shm"] { unlink(dustd.database + suffix) }
        #expect(try await dustd.wait { dustd.logs.contains("was deleted or replaced while dustd was running; reopening it") })
        #expect(try await dustd.wait { (try? SQLiteStore(path: dustd.database, mode: .readOnly).measurementCount()) == 24 })
        #expect(try await dustd.stop() == 0)
        #expect(try SQLiteStore(path: dustd.database, mode: .readOnly).measurementCount() == 24)
    }

    @Test("A database from a newer FineDust is refused by dustd and dustctl import before anything is written")
    func newerSchema() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("d.sqlite")
        _ = try SQLiteStore(path: path)
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        sqlite.arguments = [path, "INSERT INTO grdb_migrations VALUES ('v99-from-the-future'); PRAGMA wal_checkpoint(TRUNCATE);"]
        try sqlite.run()
        sqlite.waitUntilExit()
        #expect(sqlite.terminationStatus == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let empty = directory.path("empty.yaml")
        try "# defaults\n".write(toFile: empty, atomically: true, encoding: .utf8)
        let environment = ["PATH": "/usr/bin:/bin", "DUSTD_CONFIG": empty, "DUSTD_STATION_NAME": "종로구",
                           "DUSTD_STORAGE_PATH": path, "DUSTD_API_SERVICE_KEY": testKey, "DUSTD_API_BASE_URL": "http://127.0.0.1:9"]
        let once = try Executables.run("dustd", ["--once"], environment: environment)
        #expect(once.status == 65, "\(once.standardError)")
        #expect(once.standardError.contains("written by a newer FineDust"))
        let daily = TestFixtures.url("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml").path
        let imported = try Executables.run("dustctl", ["import", daily, "--db", path], environment: environment)
        #expect(imported.status == 65, "\(imported.standardError)")
        #expect(imported.standardError.contains("written by a newer FineDust"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("A member of dustd's group reads the database after dustd has stopped (as a non-root user)")
    func groupReaderAfterStop() throws {
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
            try store.upsert(try AirKoreaResponseParser().parseMeasurements(daily).readings)
        }
        // The writer has closed (as when dustd stops): only its files remain.
        // Owner root, group nogroup (65534): the reader is nobody, a member of that group only.
        for file in [directory.url.path, state] + ["", "-wal", "-shm"].map({ path + $0 }) where FileManager.default.fileExists(atPath: file) {
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
        reader.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", binary, "hourly", "2026-11-20",
                            "--station", "종로구", "--db", path, "--json", "--config", config]
        reader.environment = ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent"]
        let output = Pipe()
        let errors = Pipe()
        reader.standardOutput = output
        reader.standardError = errors
        try reader.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let problem = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        reader.waitUntilExit()
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

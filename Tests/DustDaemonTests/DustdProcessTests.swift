import DustDaemon
import DustKit
import DustStore
import FakeAirKorea
import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing

/// A datagram socket the test owns, standing in for systemd's `$NOTIFY_SOCKET`.
final class NotifySocket: @unchecked Sendable {
    let path: String
    private let descriptor: Int32

    init(path: String) throws {
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
    }

    /// Every datagram received so far.
    func drain() -> [String] {
        var messages: [String] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { return messages }
            messages.append(String(decoding: buffer[0..<count], as: UTF8.self))
        }
    }

    /// The datagrams received until there are `count` of them, or a second has passed.
    func receive(_ count: Int) -> [String] {
        var messages: [String] = []
        for _ in 0..<50 where messages.count < count {
            messages += drain()
            Thread.sleep(forTimeInterval: 0.02)
        }
        return messages
    }

    deinit { close(descriptor) }
}

@Suite("dustd as a process: notify protocol, SIGTERM, secrets", .serialized, .timeLimit(.minutes(10)))
struct DustdProcessTests {
    /// dustd as systemd starts it, not yet running: `--config` naming 종로구, `$NOTIFY_SOCKET`, journald's
    /// priorities, its stderr to a file (returned), the web off; `environment` adds to or overrides that.
    static func dustd(
        in directory: TemporaryDirectory, baseURL: String, notify: NotifySocket, database: String, environment: [String: String]
    ) throws -> (process: Process, stderrPath: String) {
        let config = directory.path("dustd.yaml")
        try "station:\n  name: 종로구\n".write(toFile: config, atomically: true, encoding: .utf8)
        let stderrPath = directory.path("stderr.log")
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let process = Process()
        process.executableURL = Executables.url("dustd")
        process.arguments = ["--config", config]
        process.environment = [
            "PATH": "/usr/bin:/bin", "NOTIFY_SOCKET": notify.path, "JOURNAL_STREAM": "8:1234", "DUSTD_API_BASE_URL": baseURL,
            "DUSTD_STORAGE_PATH": database, "DUSTD_API_SERVICE_KEY": testKey, "DUSTD_HTTP_LISTEN": "off",
            // Forecast fetches depend on the time of day (ForecastServiceTests cover them with a fake clock).
            "DUSTD_FORECAST_ENABLED": "false",
        ].merging(environment) { $1 }
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        process.standardOutput = FileHandle.nullDevice
        return (process, stderrPath)
    }

    @Test("READY, STATUS and WATCHDOG reach $NOTIFY_SOCKET; SIGTERM during a poll exits 0 within 5 s; the key is nowhere")
    func lifecycle() async throws {
        let directory = try TemporaryDirectory("dustd")
        defer { directory.remove() }
        let daily = try TestFixtures.liveData("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let slowNow = Mutex(false)
        let server = FakeAirKoreaServer { _ in
            slowNow.withLock { $0 } ? .delayed(.seconds(20), .respond(status: 200, body: daily)) : .respond(status: 200, body: daily)
        }
        let baseURL = try await server.start()
        let notify = try NotifySocket(path: directory.path("notify.sock"))
        let db = directory.path("state/dust.sqlite")
        let (process, stderrPath) = try Self.dustd(
            in: directory, baseURL: baseURL, notify: notify, database: db,
            environment: [
                "WATCHDOG_USEC": "400000", "DUSTD_POLL_INTERVAL_SECONDS": "2", "DUSTD_POLL_JITTER_SECONDS": "0", "DUSTD_LOG_LEVEL": "debug",
            ])
        // When dustd ended, stamped by Foundation's own thread that reaps it: the test's tasks share
        // the task pool with the whole suite, and on a loaded machine their polling loop below can
        // run seconds late, which would be counted against dustd.
        let ended = Mutex<Date?>(nil)
        process.terminationHandler = { _ in ended.withLock { $0 = Date() } }
        try process.runReaped()

        // Two polls (start + 2 s later), then make the next one hang and stop dustd in the middle of it.
        var messages: [String] = []
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, server.requests.count < 2 {
            try await Task.sleep(for: .milliseconds(100))
            messages += notify.drain()
        }
        slowNow.withLock { $0 = true }
        let requestsBefore = server.requests.count
        while Date() < deadline, server.requests.count == requestsBefore {
            try await Task.sleep(for: .milliseconds(50))
            // The listener's queue holds ten datagrams and WATCHDOG=1 comes every 200 ms: unread,
            // it would be full before STOPPING=1 is sent.
            messages += notify.drain()
        }
        let stopRequested = Date()
        kill(process.processIdentifier, SIGTERM)
        while process.isRunning, Date().timeIntervalSince(stopRequested) < 10 {
            try await Task.sleep(for: .milliseconds(50))
        }
        messages += notify.drain()
        if process.isRunning { process.terminate() }
        await process.exited()
        // Foundation calls the handler just after `isRunning` turns false.
        let handled = ContinuousClock.now + .seconds(5)
        while ended.withLock({ $0 }) == nil, ContinuousClock.now < handled { try await Task.sleep(for: .milliseconds(10)) }
        let stopSeconds = (ended.withLock { $0 } ?? Date()).timeIntervalSince(stopRequested)

        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        #expect(stopSeconds < 5, "took \(stopSeconds) s to stop: \((try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")")
        #expect(messages.first?.hasPrefix("READY=1") == true, "\(messages)")
        #expect(messages.contains { $0.contains("STATUS=Last poll ok") })
        #expect(messages.contains("WATCHDOG=1"))
        #expect(messages.contains { $0.hasPrefix("STOPPING=1") })

        let store = try SQLiteStore(path: db)
        #expect(try store.integrityCheck() == ["ok"])
        #expect(try await store.readingCount(station: "종로구") == 24)
        let mode = try FileManager.default.attributesOfItem(atPath: db)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o640)

        let logs = try String(contentsOfFile: stderrPath, encoding: .utf8)
        #expect(logs.contains("<5>dustd starting"))
        #expect(logs.contains("<6>Poll done"))
        #expect(!logs.contains(testKey))
        #expect(!logs.contains("TEST%2BKEY"))
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path("state")) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: directory.path("state/\(file)")))
            #expect(bytes.range(of: Data(testKey.utf8)) == nil, "the key is in \(file)")
            #expect(bytes.range(of: Data("TEST%2BKEY".utf8)) == nil, "the encoded key is in \(file)")
        }
        // The key went on the wire encoded exactly once.
        #expect(server.requests.allSatisfy { $0.rawTarget.contains("serviceKey=TEST%2BKEY%2Fabc123def456ghi789jkl012mno345%3D%3D&") })
        await server.stop()
    }

    @Test("A SIGHUP during start-up and one the moment READY=1 arrives: dustd keeps running, reloads, and stops on SIGTERM with 0")
    func reloadAtReady() async throws {
        let directory = try TemporaryDirectory("dustd")
        defer { directory.remove() }
        let daily = try TestFixtures.liveData("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let server = FakeAirKoreaServer { _ in .respond(status: 200, body: daily) }
        let baseURL = try await server.start()
        defer { Task { await server.stop() } }
        let notify = try NotifySocket(path: directory.path("notify.sock"))
        let (process, stderrPath) = try Self.dustd(
            in: directory, baseURL: baseURL, notify: notify, database: directory.path("dust.sqlite"),
            environment: ["DUSTD_ADVISORIES_ENABLED": "false"])
        try process.runReaped()
        // In start-up (its default action ended dustd, a clean exit to systemd: no restart followed): once
        // dustd's main ran, as the kernel's record of ignored signals shows (SIGHUP is bit 0 of SigIgn).
        let ignoring = ContinuousClock.now + .seconds(5)
        func ignoresHangUp() -> Bool {
            guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigIgn:") }),
                let mask = UInt64(line.dropFirst("SigIgn:".count).trimmingCharacters(in: .whitespaces), radix: 16)
            else { return false }
            return mask & 1 == 1
        }
        while !ignoresHangUp(), ContinuousClock.now < ignoring { try await Task.sleep(for: .milliseconds(2)) }
        kill(process.processIdentifier, SIGHUP)
        // The moment READY=1 is read, as systemd sends a queued reload.
        var messages: [String] = []
        // Generous: beside the whole suite on two cores a start can take many seconds.
        let deadline = ContinuousClock.now + .seconds(180)
        while ContinuousClock.now < deadline, !messages.contains(where: { $0.hasPrefix("READY=1") }), process.isRunning {
            messages += notify.drain()
            try await Task.sleep(for: .milliseconds(1))
        }
        kill(process.processIdentifier, SIGHUP)
        #expect(messages.contains { $0.hasPrefix("READY=1") }, "\(messages)")
        let reloaded = ContinuousClock.now + .seconds(120)
        var logs = ""
        while ContinuousClock.now < reloaded, process.isRunning, !logs.contains("Configuration reloaded") {
            try await Task.sleep(for: .milliseconds(50))
            logs = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
        }
        #expect(process.isRunning, "\(logs)")
        #expect(logs.contains("Configuration reloaded"), "\(logs)")
        kill(process.processIdentifier, SIGTERM)
        await process.exited()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    }

    @Test(
        "SIGTERM while a reload waits for another program's write lock: STOPPING=1 at once, the reload not applied, no READY=1 after it, and the wait ended"
    )
    func stopDuringBlockedReload() async throws {
        let directory = try TemporaryDirectory("dustd")
        defer { directory.remove() }
        let daily = try TestFixtures.liveData("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let server = FakeAirKoreaServer { _ in .respond(status: 200, body: daily) }
        let baseURL = try await server.start()
        defer { Task { await server.stop() } }
        let notify = try NotifySocket(path: directory.path("notify.sock"))
        let database = directory.path("dust.sqlite")
        let (process, stderrPath) = try Self.dustd(
            in: directory, baseURL: baseURL, notify: notify, database: database,
            environment: ["DUSTD_ADVISORIES_ENABLED": "false", "DUSTD_POLL_INTERVAL_SECONDS": "2", "DUSTD_POLL_JITTER_SECONDS": "0"])
        try process.runReaped()
        var messages: [(at: ContinuousClock.Instant, text: String)] = []
        func listen() { messages += notify.drain().map { (ContinuousClock.now, $0) } }
        let started = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < started, process.isRunning, !messages.contains(where: { $0.text.contains("STATUS=Last poll ok") }) {
            listen()
            try await Task.sleep(for: .milliseconds(20))
        }
        // Another program takes the write lock (a `dustctl person forget` rewriting the file), and the household
        // adds its first person: the reload hands `me`'s stored activity over, a write that waits for the lock.
        var holding = Configuration()
        holding.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: database, configuration: holding)
        try other.inDatabase { try $0.execute(sql: "BEGIN IMMEDIATE") }
        let config = directory.path("dustd.yaml")
        try (String(contentsOfFile: config, encoding: .utf8) + "people:\n  - { name: dad }\n").write(
            toFile: config, atomically: true, encoding: .utf8)
        kill(process.processIdentifier, SIGHUP)
        let reloading = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < reloading, !messages.contains(where: { $0.text.hasPrefix("RELOADING=1") }) {
            listen()
            try await Task.sleep(for: .milliseconds(10))
        }
        try await Task.sleep(for: .milliseconds(300))
        let stopAt = ContinuousClock.now
        kill(process.processIdentifier, SIGTERM)
        // The lock is held for nine seconds after the signal, then let go. The reload's write, waiting when the signal
        // came, ends then; the stop's own records wait their 2 s and 3 s for the lock (REFERENCE §7), and are dropped.
        var exitedAt: ContinuousClock.Instant?
        while ContinuousClock.now < stopAt + .seconds(9) {
            listen()
            if exitedAt == nil, !process.isRunning { exitedAt = ContinuousClock.now }
            try await Task.sleep(for: .milliseconds(20))
        }
        try other.inDatabase { try $0.execute(sql: "ROLLBACK") }
        let ending = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < ending, process.isRunning {
            listen()
            try await Task.sleep(for: .milliseconds(20))
        }
        listen()
        if process.isRunning { process.terminate() }
        await process.exited()
        let logs = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(logs)")

        let reload = try #require(messages.first { $0.text.hasPrefix("RELOADING=1") })
        #expect(reload.text.contains("\nMONOTONIC_USEC="), "\(reload.text)")
        let stopping = try #require(messages.first { $0.text.hasPrefix("STOPPING=1") }, "\(messages.map(\.text))")
        #expect(stopping.at - stopAt < .seconds(2), "STOPPING=1 came \(stopping.at - stopAt) after SIGTERM")
        let after = messages.drop { !$0.text.hasPrefix("STOPPING=1") }.map(\.text)
        #expect(!after.contains { $0.contains("READY=1") || $0.contains("RELOADING=1") }, "\(after)")
        #expect(logs.contains("Reload not applied: dustd is stopping"), "\(logs)")
        #expect(!logs.contains("Configuration reloaded"), "\(logs)")
        // It waited out the 10 s busy timeout before (and systemd's TimeoutStopSec=10s ends in SIGKILL): now it
        // hears of the stop while it waits, and has exited while the other program still holds the lock.
        let exited = try #require(exitedAt, "dustd still ran 9 s after SIGTERM, waiting for the lock: \(logs)")
        #expect(exited - stopAt < .seconds(8), "dustd exited \(exited - stopAt) after SIGTERM")
    }

    @Test(
        "The first start with a key and stored readings asks systemd for time (EXTEND_TIMEOUT_USEC) before it looks through them and says READY=1; the next start does not look again"
    )
    func keyEchoLookOncePerKey() async throws {
        let directory = try TemporaryDirectory("dustd")
        defer { directory.remove() }
        let database = directory.path("dust.sqlite")
        let hours = (0..<48).map { hour in
            HourlyReading(
                station: "종로구", slot: Slot(startEpochSeconds: 1_795_100_400 + Int64(hour) * 3600),
                concentration: DustPair(fineDust: 30, ultraFineDust: 10))
        }
        _ = try await SQLiteStore(path: database).saveReadings(hours, fetchedAt: Date(timeIntervalSince1970: 1_795_300_000))
        let daily = try TestFixtures.liveData("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let server = FakeAirKoreaServer { _ in .respond(status: 200, body: daily) }
        let baseURL = try await server.start()
        defer { Task { await server.stop() } }
        var starts: [[String]] = []
        for run in 0..<2 {
            let notify = try NotifySocket(path: directory.path("notify\(run).sock"))
            let (process, _) = try Self.dustd(
                in: directory, baseURL: baseURL, notify: notify, database: database, environment: ["DUSTD_ADVISORIES_ENABLED": "false"])
            try process.runReaped()
            var messages: [String] = []
            let deadline = ContinuousClock.now + .seconds(180)
            while ContinuousClock.now < deadline, !messages.contains(where: { $0.hasPrefix("READY=1") }), process.isRunning {
                messages += notify.drain()
                try await Task.sleep(for: .milliseconds(5))
            }
            // The moment READY=1 came, before the service group handles signals: how dustd ends is not this test's.
            kill(process.processIdentifier, SIGTERM)
            await process.exited()
            starts.append(messages.prefix { !$0.hasPrefix("READY=1") } + messages.filter { $0.hasPrefix("READY=1") }.prefix(1))
        }
        #expect(starts[0].count == 2 && starts[0][0].hasPrefix("EXTEND_TIMEOUT_USEC=600000000\n"), "\(starts[0])")
        #expect(starts[0].last?.hasPrefix("READY=1") == true, "\(starts[0])")
        #expect(starts[1].count == 1 && starts[1][0].hasPrefix("READY=1"), "\(starts[1])")
    }

    @Test("The watchdog's interval is half of WATCHDOG_USEC, never under 100 ms, and none for another PID or no value")
    func watchdogInterval() {
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000"]) == .seconds(15))
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "1"]) == .milliseconds(100))
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "\(UInt64.max)"]) != nil)
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "0"]) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"]) == nil)
    }

    @Test("Invalid configuration exits 78 naming the key; a missing key says how to install one")
    func configurationErrors() async throws {
        let directory = try TemporaryDirectory("dustd")
        defer { directory.remove() }
        let empty = directory.path("empty.yaml")
        try "# nothing\n".write(toFile: empty, atomically: true, encoding: .utf8)
        let base = ["PATH": "/usr/bin:/bin", "DUSTD_CONFIG": empty, "DUSTD_STORAGE_PATH": directory.path("d.sqlite")]
        let badMinute = try await Executables.run(
            "dustd", ["--once"], environment: base.merging(["DUSTD_POLL_MINUTE": "75", "DUSTD_STATION_NAME": "종로구"]) { $1 })
        #expect(badMinute.status == 78)
        #expect(badMinute.standardError.contains("poll.minute"))
        let noKey = try await Executables.run("dustd", ["--once"], environment: base.merging(["DUSTD_STATION_NAME": "종로구"]) { $1 })
        #expect(noKey.status == 78)
        #expect(noKey.standardError.contains("airkorea-service-key"))
        let keyFile = directory.path("key")
        try "secret-key-value".write(toFile: keyFile, atomically: true, encoding: .utf8)
        chmod(keyFile, 0o644)
        let readable = try await Executables.run(
            "dustd", ["--once"], environment: base.merging(["DUSTD_STATION_NAME": "종로구", "DUSTD_API_SERVICE_KEY_FILE": keyFile]) { $1 })
        #expect(readable.status == 78)
        #expect(readable.standardError.contains("chmod 600"))
        #expect(!readable.standardError.contains("secret-key-value"))
    }

    @Test("--once against a fake AirKorea stores the day and exits 0; a key error exits 78")
    func once() async throws {
        let directory = try TemporaryDirectory("dustd")
        defer { directory.remove() }
        // Two days back: the newest hour ended at yesterday's midnight, so the data is stale at any hour.
        let daily = try TestFixtures.liveData("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml", daysAgo: 2)
        let server = FakeAirKoreaServer { _ in .respond(status: 200, body: daily) }
        let baseURL = try await server.start()
        let credentials = directory.path("credentials")
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
        try "\(testKey)\n".write(toFile: credentials + "/airkorea-service-key", atomically: true, encoding: .utf8)
        let empty = directory.path("empty.yaml")
        try "# nothing\n".write(toFile: empty, atomically: true, encoding: .utf8)
        let environment = [
            "PATH": "/usr/bin:/bin", "DUSTD_CONFIG": empty, "CREDENTIALS_DIRECTORY": credentials,
            "DUSTD_STATION_NAME": "종로구", "DUSTD_API_BASE_URL": baseURL, "DUSTD_STORAGE_PATH": directory.path("d.sqlite"),
        ]
        let ok = try await Executables.run("dustd", ["--once"], environment: environment)
        #expect(ok.status == 0, "\(ok.standardError)")
        #expect(try await SQLiteStore(path: directory.path("d.sqlite")).readingCount() == 24)
        #expect(ok.standardError.contains("systemd credential"))
        #expect(!ok.standardError.contains(testKey))

        let key30 = try TestFixtures.data("real/error-gateway-30-service-key-not-registered-OpenAPI_ServiceResponse-nonairkorea.xml")
        server.setScript { _ in .respond(status: 200, body: key30) }
        let refused = try await Executables.run("dustd", ["--once"], environment: environment)
        #expect(refused.status == 78)
        #expect(refused.standardError.contains("not registered"))

        // dustd ran by --once is not running now: status says so, and exits 3.
        let status = try await Executables.run("dustctl", ["status", "--json"], environment: environment)
        #expect(status.status == 3, "\(status.standardError)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any])
        #expect(object["daemon"] as? String == "stopped")
        #expect(object["mode"] as? String == "once")
        #expect(object["state"] as? String == "stopped" && object["nextPoll"] is NSNull)
        #expect((object["lastError"] as? [String: Any])?["kind"] as? String == "airKorea")
        #expect(object["rows"] as? Int == 24)
        #expect(object["currentError"] as? Bool == true)
        #expect((object["lastSuccess"] as? [String: Any])?["rowsNew"] as? Int == 24)
        #expect(((object["lastError"] as? [String: Any])?["message"] as? String)?.contains("Decoding key") == true)
        #expect((object["lastError"] as? [String: Any])?["resultCode"] as? String == "30")
        #expect(object["stale"] as? Bool == true)
        let text = try await Executables.run("dustctl", ["status"], environment: environment)
        #expect(text.standardOutput.contains("Last error"))
        // Under a Korean locale the code's meaning and what to do are said in Korean, as the Korean dashboard says them.
        let korean = try await Executables.run(
            "dustctl", ["status"], environment: environment.merging(["LANG": "ko_KR.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""]) { $1 })
        #expect(korean.standardOutput.contains("(에어코리아 응답, 결과 코드 30)"), "\(korean.standardOutput)")
        #expect(korean.standardOutput.contains("등록되지 않은 서비스 키입니다. data.go.kr에 보이는 키를 그대로 쓰세요"), "\(korean.standardOutput)")
        #expect(text.standardOutput.contains("ran once (--once)") && !text.standardOutput.contains("Next poll"), "\(text.standardOutput)")
        #expect(!status.standardOutput.contains(testKey) && !text.standardOutput.contains(testKey))
        server.setScript { _ in .respond(status: 503, body: Data("<html><title>503</title></html>".utf8), contentType: "text/html") }
        #expect(try await Executables.run("dustd", ["--once"], environment: environment).status == 69)
        await server.stop()
    }
    @Test("At start, dustd hands the walking and sleep stored before people: was configured to a first person of another name, once")
    func storedHistoryGoesToFirstPerson() async throws {
        let directory = try TemporaryDirectory("dustd")
        defer { directory.remove() }
        let database = directory.path("d.sqlite")
        // Imported with no people: configured: the records are me's.
        let imported = try await Executables.run(
            "dustctl", ["activity", "import", TestFixtures.url("activity/generated-watch/export.xml").path, "--db", database],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(imported.status == 0, "\(imported.standardError)")
        let daily = try TestFixtures.liveData("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml", daysAgo: 2)
        let server = FakeAirKoreaServer { _ in .respond(status: 200, body: daily) }
        let baseURL = try await server.start()
        let credentials = directory.path("credentials")
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
        try "\(testKey)\n".write(toFile: credentials + "/airkorea-service-key", atomically: true, encoding: .utf8)
        let config = directory.path("dustd.yaml")
        try "station:\n  name: 종로구\npeople:\n  - name: dad\n    born: 1986-05\n  - name: 민지\n    born: 2018-03\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let environment = [
            "PATH": "/usr/bin:/bin", "DUSTD_CONFIG": config, "CREDENTIALS_DIRECTORY": credentials, "DUSTD_API_BASE_URL": baseURL,
            "DUSTD_STORAGE_PATH": database,
        ]
        let once = try await Executables.run("dustd", ["--once"], environment: environment)
        #expect(once.status == 0, "\(once.standardError)")
        // 5 hours of walking (the Watch's and the iPhone's), 128 heart rates, 2 resting rates, 2 sleep intervals.
        #expect(once.standardError.contains("Stored activity of me (137 rows) now belongs to dad"))
        let store = try SQLiteStore(path: database)
        #expect(try await store.physiologySummaries().map { "\($0.person) \($0.source) \($0.heartRateSamples)" } == ["dad health 128"])
        #expect(try await store.activitySources().allSatisfy { $0.person == "dad" })
        let again = try await Executables.run("dustd", ["--once"], environment: environment)
        #expect(again.status == 0 && !again.standardError.contains("now belongs to"))
        await server.stop()
    }

    @Test(
        "dustd on a database dustctl demo made says so once and takes it from the demo: a later replay is refused (exit 73) instead of revising the hours dustd stored"
    )
    func demoDatabaseAdopted() async throws {
        let directory = try TemporaryDirectory("dustd")
        defer { directory.remove() }
        let database = directory.path("d.sqlite")
        let demo = try await Executables.run(
            "dustctl", ["demo", "--db", database, "--fixtures", TestFixtures.url("").path], environment: ["PATH": "/usr/bin:/bin"])
        #expect(demo.status == 0, "\(demo.standardError)")
        let daily = try TestFixtures.liveData("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml", daysAgo: 2)
        let server = FakeAirKoreaServer { _ in .respond(status: 200, body: daily) }
        let baseURL = try await server.start()
        let config = directory.path("dustd.yaml")
        try "station:\n  name: 종로구\n".write(toFile: config, atomically: true, encoding: .utf8)
        let environment = [
            "PATH": "/usr/bin:/bin", "DUSTD_CONFIG": config, "DUSTD_API_SERVICE_KEY": testKey, "DUSTD_API_BASE_URL": baseURL,
            "DUSTD_STORAGE_PATH": database, "DUSTD_FORECAST_ENABLED": "false",
        ]
        let once = try await Executables.run("dustd", ["--once"], environment: environment)
        #expect(once.status == 0, "\(once.standardError)")
        #expect(once.standardError.contains("This database was made by dustctl demo"), "\(once.standardError)")
        let stored = try await SQLiteStore(path: database, mode: .readOnly).readingCount(station: nil)
        let replay = try await Executables.run(
            "dustctl", ["demo", "--db", database, "--fixtures", TestFixtures.url("").path], environment: ["PATH": "/usr/bin:/bin"])
        #expect(replay.status == 73, "\(replay.standardOutput) \(replay.standardError)")
        #expect(try await SQLiteStore(path: database, mode: .readOnly).demoMayWrite() == false)
        #expect(try await SQLiteStore(path: database, mode: .readOnly).readingCount(station: nil) == stored)
        // Said once: the mark is gone.
        let again = try await Executables.run("dustd", ["--once"], environment: environment)
        #expect(again.status == 0 && !again.standardError.contains("made by dustctl demo"), "\(again.standardError)")
        await server.stop()
    }

    @Test("Once the station list is synced, a person's station that is not in it stops dustd with exit 78 naming the person and the fix")
    func personStationNotInList() async throws {
        let directory = try TemporaryDirectory("dustd")
        defer { directory.remove() }
        let database = directory.path("d.sqlite")
        let credentials = directory.path("credentials")
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
        try "\(testKey)\n".write(toFile: credentials + "/airkorea-service-key", atomically: true, encoding: .utf8)
        let config = directory.path("dustd.yaml")
        try "station:\n  name: 소사본동\npeople:\n  - name: dad\n  - name: grandma\n    station: 수원역\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        // No server: dustd must stop before any request.
        let environment = [
            "PATH": "/usr/bin:/bin", "DUSTD_CONFIG": config, "CREDENTIALS_DIRECTORY": credentials,
            "DUSTD_API_BASE_URL": "http://127.0.0.1:9", "DUSTD_STORAGE_PATH": database,
        ]
        let listed = try await Executables.run(
            "dustctl", ["stations", "import", TestFixtures.url("real/msrstn-list-oldapi-bucheon-truncated.xml").path, "--db", database],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(listed.status == 0, "\(listed.standardError)")
        let refused = try await Executables.run("dustd", ["--once"], environment: environment)
        #expect(refused.status == 78)
        #expect(
            refused.standardError.contains(
                "people[1].station (grandma) is \"수원역\", which is not in AirKorea's station list (2 stations synced); "
                    + "find its name with dustctl stations list"), "\(refused.standardError)")
        // A station AirKorea has answered measurements for exists, listed or not (the list above is a truncated one).
        let measured = try await Executables.run(
            "dustctl", ["import", TestFixtures.url("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml").path, "--db", database],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(measured.status == 0, "\(measured.standardError)")
        try "station:\n  name: 소사본동\npeople:\n  - name: dad\n  - name: grandma\n    station: 종로구\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let accepted = try await Executables.run("dustd", ["--once"], environment: environment)
        #expect(accepted.status != 78 && !accepted.standardError.contains("Invalid configuration"), "\(accepted.standardError)")
    }
}

@Suite("dustctl stations", .timeLimit(.minutes(10)))
struct StationsTests {
    @Test("sync pages through the station list from a fake AirKorea; nearest sorts by distance; dmX is the latitude")
    func syncAndNearest() async throws {
        let directory = try TemporaryDirectory("stations")
        defer { directory.remove() }
        let list = try TestFixtures.data("real/msrstn-list-oldapi-bucheon-truncated.xml")
        let server = FakeAirKoreaServer { _ in .respond(status: 200, body: list) }
        let baseURL = try await server.start()
        let empty = directory.path("empty.yaml")
        try "# nothing\n".write(toFile: empty, atomically: true, encoding: .utf8)
        let keyFile = directory.path("key")
        try "\(testKey)\n".write(toFile: keyFile, atomically: true, encoding: .utf8)
        chmod(keyFile, 0o600)
        let environment = [
            "PATH": "/usr/bin:/bin", "DUSTD_CONFIG": empty, "DUSTD_API_BASE_URL": baseURL,
            "DUSTD_API_SERVICE_KEY_FILE": keyFile, "DUSTD_STORAGE_PATH": directory.path("d.sqlite"),
        ]
        let sync = try await Executables.run("dustctl", ["stations", "sync"], environment: environment)
        #expect(sync.status == 0, "\(sync.standardError)")
        #expect(sync.standardOutput.contains("2 stations stored"))
        // totalCount 5 at 1,000 rows a page is one page.
        #expect(server.requests.map(\.operation) == ["getMsrstnList"])
        let nearest = try await Executables.run(
            "dustctl", ["stations", "nearest", "--lat", "37.48", "--lon", "126.80", "--json"], environment: environment)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(nearest.standardOutput.utf8)) as? [[String: Any]])
        #expect(rows.map { $0["name"] as? String } == ["소사본동", "내동"])
        let first = try #require(rows.first?["distanceKm"] as? Double)
        #expect(first < 0.1)
        let second = try #require(rows.last?["distanceKm"] as? Double)
        #expect(abs(second - 5.0) < 0.5, "내동 is about 5 km north-west of 소사본동, got \(second)")
        await server.stop()
    }
}

@Suite("The systemd notify protocol", .timeLimit(.minutes(10)))
struct NotifierTests {
    @Test("A listener that stops reading never blocks the sender (the queue holds ten datagrams)")
    func fullQueueDoesNotBlock() async throws {
        let directory = try TemporaryDirectory("notify")
        defer { directory.remove() }
        let socket = try NotifySocket(path: directory.path("notify.sock"))
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.path])
        // On a blocking socket the eleventh send would wait forever; run it away from the test's
        // thread and give up after 20 s, so a regression fails instead of hanging the suite.
        let finished = Mutex(false)
        let sender = Thread {
            for _ in 0..<100 { notifier.watchdog() }
            finished.withLock { $0 = true }
        }
        sender.start()
        let deadline = Date().addingTimeInterval(20)
        while !finished.withLock({ $0 }), Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(finished.withLock { $0 }, "sending to a full notify socket blocked")
        #expect(socket.drain().count >= 10)
    }
}

@Suite("Log lines", .timeLimit(.minutes(10)))
struct LogLineTests {
    @Test("Outside journald a line starts with its UTC time, written without a date formatter")
    func timestamp() {
        #expect(JournalLogHandler.timestamp(1_795_188_000) == "2026-11-20T15:20:00Z")
        #expect(JournalLogHandler.timestamp(0) == "1970-01-01T00:00:00Z")
    }
}

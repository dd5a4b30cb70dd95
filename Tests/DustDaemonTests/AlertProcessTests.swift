import DustConfig
import DustKit
import DustServices
import DustStore
import FakeAirKorea
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import DustDaemon

/// A one-item AirKorea response for the hour that ended last (KST), so the alert rules see fresh data.
func currentHourResponse(pm25: Int, now: Date = Date()) -> Data {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "Asia/Seoul")!
    let parts = calendar.dateComponents([.year, .month, .day, .hour], from: now)
    var dataTime = String(format: "%04d-%02d-%02d %02d:00", parts.year!, parts.month!, parts.day!, parts.hour!)
    if parts.hour == 0 {
        let yesterday = calendar.dateComponents([.year, .month, .day], from: now.addingTimeInterval(-3600))
        dataTime = String(format: "%04d-%02d-%02d 24:00", yesterday.year!, yesterday.month!, yesterday.day!)
    }
    return Data(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <response><header><resultCode>00</resultCode><resultMsg>NORMAL_CODE</resultMsg></header>
        <body><items><item><stationName>종로구</stationName><dataTime>\(dataTime)</dataTime>
        <pm10Value>40</pm10Value><pm25Value>\(pm25)</pm25Value><pm10Flag/><pm25Flag/></item></items>
        <numOfRows>100</numOfRows><pageNo>1</pageNo><totalCount>1</totalCount></body></response>
        """.utf8)
}

/// `dustctl alerts list` against a dustd's database, as text.
func alertsList(_ dustd: RunningDustd) async throws -> String {
    try await Executables.run(
        "dustctl", ["alerts", "list", "--db", dustd.database, "--config", dustd.configPath],
        environment: ["PATH": "/usr/bin:/bin"]
    ).standardOutput
}

@Suite("Alerts end to end: a real dustd, a loopback ntfy, commands without a shell", .serialized, .timeLimit(.minutes(10)))
struct AlertProcessTests {
    @Test(
        "One ntfy URL and pm25.grade >= 3: exactly one message when the hour turns 나쁨 and one when it clears; the token is sent and never logged"
    )
    func ntfyRisingAndClearing() async throws {
        let receiver = FakeAirKoreaServer { _ in .respond(status: 200, body: Data("{}".utf8), contentType: "application/json") }
        let receiverURL = try await receiver.start().replacingOccurrences(of: "/B552584", with: "/finedust-alerts")
        let tokenDirectory = try TemporaryDirectory("ntfy-token")
        defer { tokenDirectory.remove() }
        let token = "tk_alerttoken0123456789abcdef"
        let tokenFile = tokenDirectory.path("ntfy-token")
        try "\(token)\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        chmod(tokenFile, 0o600)
        let configuration = """
            station:
              name: 종로구
            alerts:
              rules:
                - { when: pm25.grade >= 3 }
              sinks:
                - { ntfy: "\(receiverURL)", tokenFile: "\(tokenFile)" }
              clearAfterMinutes: 0
            """
        let dustd = try await RunningDustd(
            configuration: configuration, extraEnvironment: ["DUSTD_POLL_INTERVAL_SECONDS": "1"],
            body: currentHourResponse(pm25: 80))
        defer { dustd.directory.remove() }
        #expect(try await dustd.wait { receiver.requests.count >= 1 })
        // Three more polls while it stays 나쁨: nothing more.
        let polls = dustd.server.requests.count
        #expect(try await dustd.wait { dustd.server.requests.count >= polls + 3 })
        #expect(receiver.requests.count == 1)
        dustd.server.setScript { _ in .respond(status: 200, body: currentHourResponse(pm25: 10)) }
        #expect(try await dustd.wait { receiver.requests.count >= 2 })
        let after = dustd.server.requests.count
        #expect(try await dustd.wait { dustd.server.requests.count >= after + 3 })
        // Both deliveries recorded before dustd stops: a stop in the middle of an attempt records it failed.
        #expect(try await dustd.wait { try await alertsList(dustd).components(separatedBy: ": delivered (attempt 1)").count == 3 })
        #expect(try await dustd.stop() == 0)
        await receiver.stop()

        let messages = receiver.requests
        #expect(messages.count == 2)
        #expect(messages.map(\.method) == ["POST", "POST"])
        #expect(messages.map(\.path) == ["/finedust-alerts", "/finedust-alerts"])
        // In Korean, the default (alerts.language).
        #expect(String(decoding: messages[0].body, as: UTF8.self) == "종로구: 초미세먼지 매우나쁨. 규칙: pm25.grade >= 3.")
        #expect(String(decoding: messages[1].body, as: UTF8.self) == "종로구: 이제 조건(pm25.grade >= 3)에 해당하지 않습니다. 지금 초미세먼지 좋음.")
        #expect(messages.allSatisfy { $0.headers["authorization"] == "Bearer \(token)" })
        #expect(messages[0].headers["priority"] == "high" && messages[1].headers["priority"] == "default")
        // The Korean title as an RFC 2047 encoded word.
        let title = try #require(messages[0].headers["title"])
        #expect(title == "=?UTF-8?B?\(Data("FineDust: 초미세먼지 매우나쁨".utf8).base64EncodedString())?=")
        #expect(!dustd.logs.contains(token), "the ntfy token reached the log")
        #expect(dustd.logs.contains("Alert fired"))
        let database = try Data(contentsOf: URL(fileURLWithPath: dustd.database))
        #expect(database.range(of: Data(token.utf8)) == nil)

        let list = try await Executables.run(
            "dustctl", ["alerts", "list", "--json", "--db", dustd.database, "--config", dustd.configPath],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(list.status == 0, "\(list.standardError)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(list.standardOutput.utf8)) as? [String: Any])
        let rules = try #require(document["rules"] as? [[String: Any]])
        #expect(rules.first?["when"] as? String == "pm25.grade >= 3" && rules.first?["state"] as? String == "idle")
        let events = try #require(document["events"] as? [[String: Any]])
        #expect(events.map { $0["event"] as? String } == ["cleared", "fired"])
        // Each delivery begins with a record (attempt 0, retrying) and ends with its outcome.
        let records = events.compactMap { $0["deliveries"] as? [[String: Any]] }
        #expect(records.map { $0.map { $0["attempt"] as? Int } } == [[0, 1], [0, 1]])
        let deliveries = records.compactMap(\.last)
        #expect(deliveries.map { $0["outcome"] as? String } == ["delivered", "delivered"])
        #expect(deliveries.allSatisfy { ($0["sink"] as? String)?.hasPrefix("ntfy http://127.0.0.1:") == true })
        #expect(!list.standardOutput.contains(token))
    }

    @Test("Quiet hours hold a rise back (nothing sent, the rule shows as held); when SIGHUP lifts them, it is sent once")
    func quietHoursHoldBack() async throws {
        let receiver = FakeAirKoreaServer { _ in .respond(status: 200, body: Data()) }
        let receiverURL = try await receiver.start().replacingOccurrences(of: "/B552584", with: "/dust")
        let rules = """
            station:
              name: 종로구
            alerts:
              rules: [ { when: pm25.grade >= 3 } ]
              sinks: [ { ntfy: "\(receiverURL)" } ]
            """
        let dustd = try await RunningDustd(
            configuration: rules + "\n  quietHours: { from: 0, to: 24 }\n",
            extraEnvironment: ["DUSTD_POLL_INTERVAL_SECONDS": "1"], body: currentHourResponse(pm25: 60))
        defer { dustd.directory.remove() }
        #expect(try await dustd.wait { dustd.server.requests.count >= 4 })
        #expect(receiver.requests.isEmpty)
        let held = try await Executables.run(
            "dustctl", ["alerts", "list", "--db", dustd.database, "--config", dustd.configPath],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(held.standardOutput.contains("pm25.grade >= 3  holds, held back by quiet hours"), "\(held.standardOutput)")
        try rules.write(toFile: dustd.configPath, atomically: true, encoding: .utf8)
        kill(dustd.process.processIdentifier, SIGHUP)
        #expect(try await dustd.wait { receiver.requests.count >= 1 })
        let after = dustd.server.requests.count
        #expect(try await dustd.wait { dustd.server.requests.count >= after + 3 })
        #expect(try await dustd.stop() == 0)
        await receiver.stop()
        #expect(receiver.requests.count == 1)
        #expect(String(decoding: receiver.requests.first?.body ?? Data(), as: UTF8.self) == "종로구: 초미세먼지 나쁨. 규칙: pm25.grade >= 3.")
    }

    @Test("A failing ntfy server is retried with backoff (1 s, 2 s) while polls go on, then the delivery is recorded as failed")
    func failingSinkRetried() async throws {
        let receiver = FakeAirKoreaServer { _ in .respond(status: 503, body: Data("busy".utf8), contentType: "text/plain") }
        let receiverURL = try await receiver.start().replacingOccurrences(of: "/B552584", with: "/dust")
        let configuration = """
            station:
              name: 종로구
            alerts:
              rules: [ { when: pm25.grade >= 3 } ]
              sinks: [ { ntfy: "\(receiverURL)" } ]
              retryInitialSeconds: 1
              maxAttempts: 3
              language: en
            """
        let dustd = try await RunningDustd(
            configuration: configuration, extraEnvironment: ["DUSTD_POLL_INTERVAL_SECONDS": "1"],
            body: currentHourResponse(pm25: 50))
        defer { dustd.directory.remove() }
        #expect(try await dustd.wait { receiver.requests.count >= 3 })
        let times = receiver.requests.map(\.receivedAt)
        #expect(times.count == 3)
        // alerts.language: en sends the English text.
        #expect(
            receiver.requests.allSatisfy { String(decoding: $0.body, as: UTF8.self) == "PM2.5 나쁨 (bad) at 종로구. Rule: pm25.grade >= 3." })
        if times.count == 3 {
            #expect(times[1].timeIntervalSince(times[0]) >= 0.9 && times[2].timeIntervalSince(times[1]) >= 1.9)
        }
        // Polls went on while the deliveries waited.
        let polled = dustd.server.requests.filter { $0.receivedAt > times[0] && $0.receivedAt < (times.last ?? times[0]) }
        #expect(polled.count >= 1)
        // The third attempt was the last: recorded as failed while dustd still runs, nothing after it.
        let name = "ntfy http://127.0.0.1:\(URL(string: receiverURL)!.port!)/… (sink 1)"
        #expect(try await dustd.wait { try await alertsList(dustd).contains("\(name): failed (attempt 3)") })
        #expect(try await dustd.stop() == 0)
        await receiver.stop()
        #expect(receiver.requests.count == 3)
        let list = try await alertsList(dustd)
        #expect(list.contains("\(name): failed (attempt 3): \(name) answered HTTP 503"), "\(list)")
        #expect(list.contains("pm25.grade >= 3  active"))
    }

    @Test(
        "A delivery waiting for its retry when dustd stops is taken up by the next start: sent once, counted as attempt 2, the rise not repeated"
    )
    func retryResumedAfterRestart() async throws {
        let failing = Mutex(true)
        let receiver = FakeAirKoreaServer { _ in
            failing.withLock { $0 }
                ? .respond(status: 503, body: Data("busy".utf8), contentType: "text/plain")
                : .respond(status: 200, body: Data("ok".utf8), contentType: "text/plain")
        }
        let receiverURL = try await receiver.start().replacingOccurrences(of: "/B552584", with: "/dust")
        let configuration = """
            station:
              name: 종로구
            alerts:
              rules: [ { when: pm25.grade >= 3 } ]
              sinks: [ { ntfy: "\(receiverURL)" } ]
              retryInitialSeconds: 3600
              maxAttempts: 5
            """
        let first = try await RunningDustd(configuration: configuration, body: currentHourResponse(pm25: 50))
        defer { first.directory.remove() }
        // The first attempt fails; the next would come in an hour. dustd stops meanwhile, once the
        // failure is recorded (a stop in the middle of the attempt would record it failed).
        let name = "ntfy http://127.0.0.1:\(URL(string: receiverURL)!.port!)/… (sink 1)"
        #expect(try await first.wait { try await alertsList(first).contains("\(name): retrying (attempt 1)") })
        #expect(try await first.stop() == 0)
        #expect(receiver.requests.count == 1)
        let listed = try await alertsList(first)
        #expect(listed.contains("\(name): retrying (attempt 1)"), "\(listed)")

        // The sink is back; dustd starts again on the same database.
        failing.withLock { $0 = false }
        let second = try await RunningDustd(configuration: configuration, body: currentHourResponse(pm25: 50), directory: first.directory)
        #expect(try await second.wait { receiver.requests.count >= 2 })
        #expect(try await second.wait { second.server.requests.count >= 2 })  // polls went on: the rule still holds
        #expect(try await second.wait { try await alertsList(second).contains("\(name): delivered (attempt 2)") })
        #expect(try await second.stop() == 0)
        await receiver.stop()
        #expect(receiver.requests.count == 2)  // the failed attempt and the resumed one; no second rise
        #expect(second.logs.contains("Resuming an alert delivery"))
        let after = try await Executables.run(
            "dustctl", ["alerts", "list", "--db", second.database, "--config", second.configPath],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(after.standardOutput.contains("\(name): delivered (attempt 2)"), "\(after.standardOutput)")
        #expect(after.standardOutput.components(separatedBy: "fired").count - 1 == 1, "\(after.standardOutput)")
    }

    @Test("The ntfy token from the systemd credential ntfy-token; a token file others may read is refused at start")
    func ntfyCredential() async throws {
        let receiver = FakeAirKoreaServer { _ in .respond(status: 200, body: Data()) }
        let url = try await receiver.start().replacingOccurrences(of: "/B552584", with: "/dust")
        let credentials = try TemporaryDirectory("credentials")
        defer { credentials.remove() }
        try "tk_fromcredential\n".write(toFile: credentials.path(AlertSinks.ntfyCredential), atomically: true, encoding: .utf8)
        var settings = AlertSettings()
        settings.sinks = [.ntfy(url: url, tokenFile: nil)]
        let sinks = try AlertSinks(settings: settings, environment: ["CREDENTIALS_DIRECTORY": credentials.url.path])
        #expect("\(sinks.sinks)".contains("tk_fromcredential") == false)
        try await sinks.sinks[0].deliver(AlertEvent(kind: .test, rule: "", metric: nil, value: nil, station: "종로구", at: Date()))
        await sinks.shutdown()
        await receiver.stop()
        #expect(receiver.requests.first?.headers["authorization"] == "Bearer tk_fromcredential")

        // A credential that is not UTF-8 is refused, naming the credential, not the token (it was dropped in silence,
        // and every alert went out without it).
        try (Data("tk_CRED".utf8) + Data([0xFF, 0x0A])).write(to: credentials.url.appendingPathComponent(AlertSinks.ntfyCredential))
        settings.sinks = [.ntfy(url: url, tokenFile: nil)]
        #expect {
            _ = try AlertSinks(settings: settings, environment: ["CREDENTIALS_DIRECTORY": credentials.url.path])
        } throws: { error in
            "\(error)".contains("(the credential ntfy-token) cannot be read as UTF-8 text") && !"\(error)".contains("tk_CRED")
        }
        // An empty one too: every alert would go without a token.
        try " \n".write(toFile: credentials.path(AlertSinks.ntfyCredential), atomically: true, encoding: .utf8)
        #expect {
            _ = try AlertSinks(settings: settings, environment: ["CREDENTIALS_DIRECTORY": credentials.url.path])
        } throws: { error in
            "\(error)".contains("(the credential ntfy-token) must hold the token alone")
        }
        // A plain-http host whose name only begins like a loopback address is warned of; 127.0.0.1 is not.
        try "tk_fromcredential\n".write(toFile: credentials.path(AlertSinks.ntfyCredential), atomically: true, encoding: .utf8)
        for (host, warned) in [("127.evil.example", true), ("127.0.0.1:8080", false), ("localhost", false), ("10.0.0.5", true)] {
            settings.sinks = [.ntfy(url: "http://\(host)/topic", tokenFile: nil)]
            let checked = try AlertSinks(settings: settings, environment: ["CREDENTIALS_DIRECTORY": credentials.url.path])
            #expect(checked.warnings.contains { $0.contains("sends its access token over plain http") } == warned, "\(host)")
            await checked.shutdown()
        }

        let open = credentials.path("open-token")
        try "tk_world_readable\n".write(toFile: open, atomically: true, encoding: .utf8)
        chmod(open, 0o644)
        settings.sinks = [.ntfy(url: url, tokenFile: open)]
        #expect {
            _ = try AlertSinks(settings: settings, environment: [:])
        } throws: { error in
            "\(error)".contains("other users may read") && !"\(error)".contains("tk_world_readable")
        }
    }

    @Test("A sink that answers 200 and then drips its body, or never ends it, has the alert: delivered at its head, not retried as silent")
    func drippingBody() async throws {
        let receiver = FakeAirKoreaServer { _ in .dripping(every: .milliseconds(500)) }
        let url = try await receiver.start().replacingOccurrences(of: "/B552584", with: "/hook")
        var settings = AlertSettings()
        settings.sinks = [.webhook(url: url)]
        let sinks = try AlertSinks(settings: settings, environment: [:], httpDeadline: .seconds(20))
        let event = AlertEvent(kind: .test, rule: "", metric: nil, value: nil, station: "종로구", at: Date())
        // Delivered before the 20 s deadline, which the body's 100 bytes at a byte each half second would pass.
        try await sinks.sinks[0].deliver(event)
        #expect(receiver.requests.count == 1)
        await sinks.shutdown()
        await receiver.stop()
    }

    @Test("A sink over its limit (429 or 503 with Retry-After) says how long it asked, and the dispatcher waits it; a date counts from now")
    func retryAfter() async throws {
        let replies: [FakeReply] = [
            .respond(status: 429, body: Data("slow down".utf8), contentType: "text/plain", headers: ["Retry-After": "120"]),
            .respond(status: 503, body: Data(), contentType: "text/plain", headers: ["Retry-After": "soon"]),
            .respond(status: 500, body: Data(), contentType: "text/plain", headers: ["Retry-After": "120"]),
        ]
        let next = Mutex(0)
        let receiver = FakeAirKoreaServer { _ in
            next.withLock { index in
                defer { index += 1 }
                return replies[index % replies.count]
            }
        }
        let url = try await receiver.start().replacingOccurrences(of: "/B552584", with: "/hook")
        var settings = AlertSettings()
        settings.sinks = [.webhook(url: url)]
        let sinks = try AlertSinks(settings: settings, environment: [:])
        let event = AlertEvent(kind: .test, rule: "", metric: nil, value: nil, station: "종로구", at: Date())
        var errors: [AlertSinkError] = []
        for _ in replies.indices {
            do throws(AlertSinkError) { try await sinks.sinks[0].deliver(event) } catch { errors.append(error) }
        }
        await sinks.shutdown()
        await receiver.stop()
        #expect(errors.map(\.retryAfter) == [.seconds(120), nil, nil])
        #expect(errors.first?.description.hasSuffix("answered HTTP 429, asking to wait 120 s") == true)
        let now = Date(timeIntervalSince1970: 1_445_412_400)  // 2015-10-21 07:26:40 GMT
        #expect(RetryAfter.seconds("Wed, 21 Oct 2015 07:28:00 GMT", now: now) == 80)
        #expect(RetryAfter.seconds("Wed, 21 Oct 2015 07:00:00 GMT", now: now) == 0)
        #expect(RetryAfter.seconds(" 45 ", now: now) == 45 && RetryAfter.seconds("99999999999", now: now) == 7 * 86_400)
        #expect(RetryAfter.seconds("0000000008", now: now) == 8 && RetryAfter.seconds("000", now: now) == 0)
        #expect(RetryAfter.seconds("-5", now: now) == nil && RetryAfter.seconds("", now: now) == nil)
    }

    @Test("An ntfy token with a control character is refused at start, from its file or the credential, and never quoted")
    func tokenWithControlCharacter() async throws {
        let directory = try TemporaryDirectory("ntfy-token")
        defer { directory.remove() }
        let file = directory.path("token")
        try "tk_Secret\u{01}Token42\n".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        var settings = AlertSettings()
        settings.sinks = [.ntfy(url: "https://ntfy.example/topic", tokenFile: file)]
        #expect {
            _ = try AlertSinks(settings: settings, environment: [:])
        } throws: { error in
            "\(error)".contains("in printable ASCII") && !"\(error)".contains("Secret")
        }
        try "tk_Secret\u{1b}Token42\n".write(toFile: directory.path(AlertSinks.ntfyCredential), atomically: true, encoding: .utf8)
        settings.sinks = [.ntfy(url: "https://ntfy.example/topic", tokenFile: nil)]
        #expect {
            _ = try AlertSinks(settings: settings, environment: ["CREDENTIALS_DIRECTORY": directory.url.path])
        } throws: { error in
            "\(error)".contains("ntfy-token") && !"\(error)".contains("Secret")
        }
    }

    @Test("A sink's failure in words: a refused connection is 'connection refused', not the library's IOError")
    func failuresInWords() async throws {
        // Bound, not listening: a connection to it is refused.
        let refused = try HeldLoopbackPort(listening: false)
        defer { refused.release() }
        var settings = AlertSettings()
        settings.sinks = [.webhook(url: "http://127.0.0.1:\(refused.port)/hook")]
        let sinks = try AlertSinks(settings: settings, environment: [:], httpDeadline: .seconds(20))
        let event = AlertEvent(kind: .test, rule: "", metric: nil, value: nil, station: "종로구", at: Date())
        var said: [String] = []
        for sink in sinks.sinks {
            do throws(AlertSinkError) { try await sink.deliver(event) } catch { said.append("\(error)") }
        }
        await sinks.shutdown()
        #expect(said.count == 1 && said[0].hasSuffix("could not be reached (connection refused)"), "\(said)")
    }

    @Test("A command sink runs without a shell: a hostile station name and arguments arrive as plain text; a hung command is stopped")
    func commandWithoutShell() async throws {
        let directory = try TemporaryDirectory("alert-command")
        defer { directory.remove() }
        let output = directory.path("event.txt")
        let marker = directory.path("pwned")
        let script =
            "import os, sys; open(sys.argv[1], 'w').write(os.environ['FINEDUST_STATION'] + '|' + sys.argv[2] + '|' + os.environ['FINEDUST_EVENT'] + '|' + str('DUSTD_API_SERVICE_KEY' in os.environ))"
        var settings = AlertSettings()
        settings.sinks = [
            .command(arguments: ["/usr/bin/python3", "-c", script, output, "$(touch \(marker)); `touch \(marker)`"], timeoutSeconds: 10)
        ]
        let sinks = try AlertSinks(settings: settings, environment: ["DUSTD_API_SERVICE_KEY": "secret"])
        let station = "종로구\"; touch \(marker); echo \"$(touch \(marker))"
        let event = AlertEvent(id: 1, kind: .fired, rule: "pm25.grade >= 3", metric: .pm25Grade, value: 3, station: station, at: Date())
        try await sinks.sinks[0].deliver(event)
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "\(station)|$(touch \(marker)); `touch \(marker)`|fired|False")
        #expect(!FileManager.default.fileExists(atPath: marker))

        var slow = AlertSettings()
        slow.sinks = [.command(arguments: ["/bin/sleep", "30"], timeoutSeconds: 1)]
        let hung = try AlertSinks(settings: slow, environment: [:])
        let started = Date()
        await #expect(throws: AlertSinkError("command /bin/sleep (sink 1) did not finish within 1 s and was stopped")) {
            try await hung.sinks[0].deliver(event)
        }
        #expect(Date().timeIntervalSince(started) < 15)
        var failing = AlertSettings()
        failing.sinks = [.command(arguments: ["/bin/false"], timeoutSeconds: 5)]
        let fails = try AlertSinks(settings: failing, environment: [:])
        await #expect(throws: AlertSinkError("command /bin/false (sink 1) exited with status 1")) {
            try await fails.sinks[0].deliver(event)
        }
        await sinks.shutdown()
        await hung.shutdown()
        await fails.shutdown()
    }

    /// Waits until `condition` holds (true) or 20 s pass (false): a process that starts or ends is an
    /// event of the kernel this test can only look for.
    static func eventually(_ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    /// Whether a process whose command line contains `marker` is running.
    static func running(_ marker: String) -> Bool {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.contains { entry in
            guard Int(entry) != nil, let line = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(entry)/cmdline")) else { return false }
            return String(decoding: line, as: UTF8.self).replacingOccurrences(of: "\0", with: " ").contains(marker)
        } ?? false
    }

    @Test(
        "A command's process group is stopped with it: a child ignoring SIGTERM is killed, a background helper does not hold the delivery, dustd stopping ends it"
    )
    func commandTeardown() async throws {
        let event = AlertEvent(id: 1, kind: .cleared, rule: "pm25.grade >= 3", metric: .pm25Grade, value: 2, station: "종로구", at: Date())
        func sink(_ arguments: [String], timeout: Double) throws -> AlertSinks {
            var settings = AlertSettings()
            settings.sinks = [.command(arguments: arguments, timeoutSeconds: timeout)]
            return try AlertSinks(settings: settings, environment: [:])
        }
        // A shell that ignores SIGTERM, and its child: both gone 2 s after the timeout.
        let stubborn = try sink(["/bin/sh", "-c", "trap '' TERM; sleep 31.71; true"], timeout: 1)
        var started = Date()
        await #expect(throws: AlertSinkError.self) { try await stubborn.sinks[0].deliver(event) }
        // 1 s, then SIGTERM ignored, SIGKILL 2 s later: bounded, never the 30 s the child wanted.
        #expect(Date().timeIntervalSince(started) < 15)
        #expect(try await Self.eventually { !Self.running("sleep 31.71") }, "a child of the timed-out command is still running")

        // A helper left running in the background: the command itself exited 0, so it is delivered at once.
        let detached = try sink(["/bin/sh", "-c", "sleep 32.45 & exit 0"], timeout: 10)
        started = Date()
        try await detached.sinks[0].deliver(event)
        #expect(Date().timeIntervalSince(started) < 15, "the background helper (32 s) held the delivery up")
        _ = Self.running("sleep 32.45")  // the user's helper; not ours to stop

        // dustd stopping (the task cancelled) stops the command.
        let long = try sink(["/bin/sleep", "33.19"], timeout: 60)
        let task = Task { try await long.sinks[0].deliver(event) }
        #expect(try await Self.eventually { Self.running("sleep 33.19") })
        task.cancel()
        await #expect(throws: AlertSinkError("command /bin/sleep (sink 1) was stopped: dustd is stopping")) { try await task.value }
        #expect(try await Self.eventually { !Self.running("sleep 33.19") })
        for sinks in [stubborn, detached, long] { await sinks.shutdown() }
    }

    @Test(
        "dustctl alerts test: a test event to every sink through dustd; the webhook gets the documented JSON; a failing sink makes it exit 69"
    )
    func alertsTest() async throws {
        let receiver = FakeAirKoreaServer { _ in .respond(status: 204, body: Data()) }
        let hook = try await receiver.start().replacingOccurrences(of: "/B552584", with: "/hook")
        let directory = try TemporaryDirectory("alerts-test")
        defer { directory.remove() }
        let config = directory.path("dustd.yaml")
        try """
        station:
          name: 종로구
        alerts:
          sinks:
            - { webhook: "\(hook)?secret=abc" }
            - { command: [/bin/false] }
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let database = directory.path("dust.sqlite")
        _ = try SQLiteStore(path: database)
        let result = try await Executables.run(
            "dustctl", ["alerts", "test", "--config", config, "--db", database],
            environment: ["PATH": "/usr/bin:/bin"])
        await receiver.stop()
        #expect(result.status == 69, "\(result.standardError)")
        #expect(result.standardOutput == "webhook http://127.0.0.1:\(URL(string: hook)!.port!)/… (sink 1): delivered\n")
        #expect(
            result.standardError.contains("command /bin/false (sink 2): not delivered: command /bin/false (sink 2) exited with status 1"))
        #expect(!result.standardOutput.contains("secret=abc") && !result.standardError.contains("secret=abc"))
        #expect(!result.standardOutput.contains("/hook") && !result.standardError.contains("/hook"), "a webhook's path may be its secret")
        let request = try #require(receiver.requests.first)
        #expect(request.method == "POST" && request.headers["content-type"] == "application/json; charset=utf-8")
        let body = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        #expect(body["event"] as? String == "test" && body["station"] as? String == "종로구")
        #expect(Array(body.keys).sorted() == ["event", "grade", "message", "metric", "rule", "station", "time", "title", "value"])
        // Recorded like any alert.
        let list = try await Executables.run(
            "dustctl", ["alerts", "list", "--config", config, "--db", database], environment: ["PATH": "/usr/bin:/bin"])
        #expect(list.standardOutput.contains("test     FineDust test alert"), "\(list.standardOutput)")
        #expect(
            list.standardOutput.contains(
                "command /bin/false (sink 2): failed (attempt 1): command /bin/false (sink 2) exited with status 1"))
    }
}

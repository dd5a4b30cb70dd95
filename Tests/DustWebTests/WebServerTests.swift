import DustKit
import DustReports
import DustServices
import DustStore
import DustWeb
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Prometheus
import TestSupport
import Testing

/// The demo data (종로구 through 2026-11-20) in a temporary database, and a web server over it.
struct WebRig {
    let directory: TemporaryDirectory
    let store: SQLiteStore
    let configuration: String
    /// The rig's one "now": `dustctl` runs with it, and `source(clock: rig.now.clock)` serves with it.
    let now = PinnedNow()

    init() async throws {
        directory = try TemporaryDirectory("web")
        store = try SQLiteStore(path: directory.path("dust.sqlite"))
        let fixtures = try #require(
            DemoReplay.locateFixtures(explicit: TestFixtures.repositoryRoot.appendingPathComponent("Fixtures").path))
        _ = try await DemoReplay(fixtures: fixtures, store: store, calendar: DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!))
            .run()
        configuration = directory.path("empty.yaml")
        try "# defaults\n".write(toFile: configuration, atomically: true, encoding: .utf8)
    }

    /// A 서울 도심권 PM10 경보 in force from 13:00 of the demo's day (the advisory fixture's, which the demo's
    /// one story leaves out): for the banner, the gauges and the Home Assistant sensors that show one.
    func storeWarningInForce() async throws {
        try await store.saveAdvisories([
            Advisory(
                pollutant: .pm10, key: "87", district: "서울", area: "도심권", level: .warning,
                issuedAt: instant(kst: "2026-11-20T13:00:00"), issueValue: 312)
        ])
    }

    func source(station: String = "종로구", clock: any WallClock = FixedClock(DemoReplay.now)) throws -> WebData {
        let store = self.store
        let settings = WebData.ReportSettings(
            stations: StationPreference(primary: station),
            calendar: DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!),
            intakeModel: try VentilationIntakeModel(), databasePath: store.path)
        return WebData(store: { store }, settings: { settings }, clock: clock, processIsDustd: { _ in false })
    }

    func application(_ source: WebData, token: BearerToken? = nil) -> some ApplicationProtocol {
        Application(router: WebServer(data: source, registry: PrometheusCollectorRegistry(), token: token).router())
    }

    /// `dustctl ARGS --json --db … --station 종로구` from the same database, at the rig's now (unless
    /// `--now` says otherwise).
    func dustctl(_ arguments: [String]) async throws -> ProcessResult {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("DUSTD_") }
        environment["DUSTD_CONFIG"] = configuration
        environment.merge(now.environment) { $1 }
        return try await Executables.run(
            "dustctl", arguments + ["--json", "--db", store.path, "--station", "종로구"], environment: environment)
    }
}

func text(_ response: TestResponse) -> String { String(buffer: response.body) }

@Suite("dustd on the web: the API is dustctl's JSON, the pages are safe, the rules hold", .timeLimit(.minutes(10)))
struct WebServerTests {
    @Test(
        "/api/v1/day, /week and /week/ISO are byte for byte what dustctl --json prints",
        arguments: [
            ("/api/v1/day/2026-11-20", ["day", "2026-11-20"]),
            ("/api/v1/day/2026-11-14", ["day", "2026-11-14"]),
            ("/api/v1/week?end=2026-11-20", ["week", "--end", "2026-11-20"]),
            ("/api/v1/week/2026-W47", ["week", "--iso", "2026-W47"]),
        ])
    func apiEqualsCLI(_ path: String, _ command: [String]) async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let cli = try await rig.dustctl(command)
        #expect(cli.status == 0, "\(cli.standardError)")
        try await rig.application(try rig.source()).test(.router) { client in
            try await client.execute(uri: path, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json; charset=utf-8")
                #expect(text(response) == cli.standardOutput)
            }
        }
    }

    @Test("/api/v1/today and /api/v1/status are what dustctl today and status print, now (status without the database path and PID)")
    func todayAndStatus() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let now = rig.now.date
        let app = rig.application(try rig.source(clock: rig.now.clock))
        let today = try await rig.dustctl(["today"])
        let status = try await rig.dustctl(["status"])
        #expect(status.status == 3)
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/v1/today", method: .get) { response in
                #expect(text(response) == today.standardOutput)
            }
            try await client.execute(uri: "/api/v1/status", method: .get) { response in
                let served = try #require(try JSONSerialization.jsonObject(with: Data(text(response).utf8)) as? [String: Any])
                var printed = try #require(try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any])
                // One instant for both, so even the data's age is the same (the newest hour ended at
                // 2026-11-20 24:00 KST).
                let age = now.timeIntervalSince(instant(kst: "2026-11-21T00:00:00"))
                #expect(served["dataAgeSeconds"] as? Double == age && printed["dataAgeSeconds"] as? Double == age)
                // The web never shows file-system paths or the PID (README, the dashboard section).
                #expect(served["database"] == nil && served["pid"] == nil)
                #expect(printed.removeValue(forKey: "database") as? String == rig.store.path)
                #expect(printed.removeValue(forKey: "pid") is NSNull)
                #expect(NSDictionary(dictionary: served) == NSDictionary(dictionary: printed))
                #expect(served["daemon"] as? String == "neverRun")
            }
        }
    }

    @Test("/healthz: 200 while the last poll is recent and the data fresh, 503 with the reason once the data goes stale")
    func healthz() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        var status = DaemonStatus(
            state: .idle, mode: .daemon, pid: 1, version: "t", station: "종로구",
            startedAt: DemoReplay.now.addingTimeInterval(-3600), heartbeatSeconds: 600)
        status.lastSuccess = .init(at: DemoReplay.now.addingTimeInterval(-600), rowsNew: 1, rowsUpdated: 0, requests: 1)
        try await rig.store.saveStatus(status)
        try await rig.application(try rig.source()).test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok, "\(text(response))")
                #expect(text(response).hasPrefix("ok: newest hour ended 20 min ago"))
            }
        }
        // Four hours later: nothing new since 00:00.
        try await rig.application(try rig.source(clock: FixedClock(DemoReplay.now.addingTimeInterval(4 * 3600)))).test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(text(response) == "unhealthy: the last successful poll was 4 h ago\n", "\(text(response))")
            }
        }
        // A clock two days behind (a Raspberry Pi before NTP): the poll looks recent, the data is ahead of the clock.
        try await rig.application(try rig.source(clock: FixedClock(DemoReplay.now.addingTimeInterval(-48 * 3600)))).test(.router) {
            client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(
                    text(response) == "unhealthy: newest hour ends 47 h after this machine's clock — check the clock (timedatectl)\n",
                    "\(text(response))")
            }
        }
    }

    @Test("A hostile station name renders as text; the page's CSP allows its one style sheet and nothing else")
    func escapingAndPolicy() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        try await rig.application(try rig.source(station: "<script>alert(1)</script>")).test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                let page = text(response)
                #expect(!page.contains("<script"))
                #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
                let policy = try #require(response.headers[.contentSecurityPolicy])
                #expect(policy.hasPrefix("default-src 'none'; style-src 'sha256-"))
                #expect(!policy.contains("unsafe"))
                #expect(response.headers[.xContentTypeOptions] == "nosniff")
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            }
        }
    }

    @Test("Korean by default, English by Accept-Language, ?lang= wins")
    func languages() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        try await rig.application(try rig.source()).test(.router) { client in
            try await client.execute(uri: "/day/2026-11-20", method: .get) { response in
                #expect(text(response).contains("<html lang=\"ko\""))
                #expect(response.headers[.contentLanguage] == "ko")
            }
            try await client.execute(uri: "/day/2026-11-20", method: .get, headers: [.acceptLanguage: "en-US,en;q=0.9,ko;q=0.5"]) {
                response in
                #expect(text(response).contains("<html lang=\"en\""))
            }
            try await client.execute(uri: "/day/2026-11-20?lang=ko", method: .get, headers: [.acceptLanguage: "en"]) { response in
                #expect(text(response).contains("<html lang=\"ko\""))
            }
        }
        // A tag's language is its first subtag: Konkani (`kok`) is neither, so the English listed after it wins.
        #expect(PageLanguage.negotiate(query: nil, acceptLanguage: "kok-IN, en;q=0.8") == .english)
        #expect(PageLanguage.negotiate(query: "en-GB", acceptLanguage: nil) == .english)
        #expect(PageLanguage.negotiate(query: "eng", acceptLanguage: "ko") == .korean)
    }

    @Test("Unknown paths 404, other methods 405, long targets 414, bodies 413, bad dates 404")
    func refusals() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        try await rig.application(try rig.source()).test(.router) { client in
            try await client.execute(uri: "/nothing-here", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/api/v1/day/2026-13-45", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/api/v1/week?end=yesterday", method: .get) { #expect($0.status == .notFound) }
            for method in [HTTPRequest.Method.post, .put, .delete, .patch, .options] {
                try await client.execute(uri: "/api/v1/today", method: method) { response in
                    #expect(response.status == .methodNotAllowed)
                    #expect(response.headers[.allow] == "GET, HEAD")
                }
            }
            try await client.execute(uri: "/day/" + String(repeating: "x", count: 3000), method: .get) { #expect($0.status == .uriTooLong) }
            try await client.execute(uri: "/api/v1/today", method: .get, headers: [.contentLength: "5"], body: ByteBuffer(string: "hello"))
            {
                #expect($0.status == .contentTooLarge)
            }
            try await client.execute(uri: "/api/v1/today", method: .head) { response in
                #expect(response.status == .ok)
                #expect(response.body.readableBytes == 0)
            }
        }
    }

    @Test("On the wire, a HEAD answer says the length its GET's body has and sends none (RFC 9110 §9.3.2)")
    func headLength() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        try await rig.application(try rig.source()).test(.live) { client in
            let paths = [
                "/", "/day/2026-11-20", "/day/2026-13-45", "/api/v1/today", "/api/v1/status", "/healthz", "/metrics",
                "/manifest.webmanifest", "/icon.svg",
            ]
            for path in paths {
                let length = try await client.execute(uri: path, method: .get) { $0.body.readableBytes }
                #expect(length > 0, "\(path)")
                try await client.execute(uri: path, method: .head) { response in
                    #expect(response.headers[.contentLength] == String(length), "\(path)")
                    #expect(response.body.readableBytes == 0, "\(path)")
                }
            }
        }
        // The sign-in page, where tokens are configured.
        let token = try #require(BearerToken("s3cret-token\n"))
        try await rig.application(try rig.source(), token: token).test(.live) { client in
            let length = try await client.execute(uri: "/login", method: .get) { $0.body.readableBytes }
            #expect(length > 0)
            try await client.execute(uri: "/login", method: .head) { response in
                #expect(response.headers[.contentLength] == String(length))
                #expect(response.body.readableBytes == 0)
            }
        }
    }

    @Test("With a token, every path but /healthz needs it; a wrong one is refused as firmly as none")
    func token() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let token = try #require(BearerToken("s3cret-token\n"))
        #expect("\(token)" == "***")
        try await rig.application(try rig.source(), token: token).test(.router) { client in
            for path in ["/", "/api/v1/today", "/metrics", "/api/v1/status"] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .unauthorized)
                    #expect(response.headers[.wwwAuthenticate] == "Bearer realm=\"dustd\"")
                }
                try await client.execute(uri: path, method: .get, headers: [.authorization: "Bearer s3cret-tokem"]) {
                    #expect($0.status == .unauthorized)
                }
                try await client.execute(uri: path, method: .get, headers: [.authorization: "Bearer s3cret-token-and-more"]) {
                    #expect($0.status == .unauthorized)
                }
                try await client.execute(uri: path, method: .get, headers: [.authorization: "Bearer s3cret-token"]) {
                    #expect($0.status == .ok)
                }
            }
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status != .unauthorized) }
        }
        // Without a token configured, none is needed.
        try await rig.application(try rig.source()).test(.router) { client in
            try await client.execute(uri: "/api/v1/today", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test("/metrics: the latest hour, today's intake and the build, in Prometheus text, equal to the database")
    func metrics() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let source = try rig.source()
        let latest = try await #require(
            try rig.store.readings(
                stations: ["종로구"], from: Slot(containing: DemoReplay.now).advanced(by: -24),
                to: Slot(containing: DemoReplay.now)
            ).last)
        let day = try await source.statistics().day(source.statistics().today)
        try await rig.application(source).test(.router) { client in
            try await client.execute(uri: "/metrics", method: .get) { response in
                let body = text(response)
                #expect(response.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
                let pm25 = try #require(latest.concentration.ultraFineDust)
                #expect(
                    body.contains("finedust_concentration_grams_per_cubic_meter{station=\"종로구\",pollutant=\"pm25\"} \(pm25 / 1_000_000)"))
                #expect(body.contains("# TYPE finedust_poll_attempts_total counter") || !body.contains("finedust_poll_attempts_total"))
                #expect(body.contains("finedust_build_info{version=\"\(FineDustVersion.current)\"} 1"))
                #expect(
                    body.contains("finedust_measured_slots_today{station=\"종로구\",pollutant=\"pm10\"} \(Double(day.totals.hours.fineDust))"))
                #expect(body.contains("finedust_data_stale 0"))
            }
        }
    }
}

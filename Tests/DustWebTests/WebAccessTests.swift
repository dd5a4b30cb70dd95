import DustKit
import DustServices
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Prometheus
import Synchronization
import TestSupport
import Testing

@testable import DustWeb

/// Who may see whose data (docs/REFERENCE.md §13): the administrator's token opens everything, a
/// person's own token their pages and documents alone; 404 for the rest, nothing listing others;
/// a browser signs in with a form and a signed cookie.
@Suite("dustd on the web: each person sees only their own", .timeLimit(.minutes(10)))
struct WebAccessTests {
    static let adminToken = "admin-token-0123456789abcdefghijklmnopqrstuv"
    static let dadToken = "dad-token-0123456789abcdefghijklmnopqrstuvwx"
    static let minjiToken = "minji-token-0123456789abcdefghijklmnopqrstuv"

    static var access: WebAccess {
        WebAccess(
            administrator: BearerToken(adminToken),
            people: [("dad", BearerToken(dadToken)!), ("민지", BearerToken(minjiToken)!)])
    }

    func application(
        _ rig: WebRig, access: WebAccess = Self.access, throttle: LoginThrottle = LoginThrottle(),
        monotonicNow: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    )
        throws -> some ApplicationProtocol
    {
        let store = rig.store
        let settings = WebData.ReportSettings(
            stations: StationPreference(primary: "종로구"), calendar: DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!),
            intakeModel: try VentilationIntakeModel(), databasePath: store.path, people: PersonAPITests.people)
        let data = WebData(
            store: { store }, settings: { settings }, clock: FixedClock(DemoReplay.now), processIsDustd: { _ in false },
            monotonicNow: monotonicNow)
        // (The address serves `.live` tests; `.router` ones ignore it.)
        return Application(
            router: WebServer(data: data, registry: PrometheusCollectorRegistry(), access: access, throttle: throttle).router(),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    static func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }
    static let minji = "%EB%AF%BC%EC%A7%80"

    @Test("A person's token opens their own day, week, today and pages; another's, /metrics and /api/v1/status are 404")
    func personToken() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        try await application(rig).test(.router) { client in
            // Their own: with or without ?person=, the same document.
            var own: [String] = []
            for path in ["/api/v1/day/2026-11-20?person=dad", "/api/v1/day/2026-11-20"] {
                try await client.execute(uri: path, method: .get, headers: Self.bearer(Self.dadToken)) { response in
                    #expect(response.status == .ok)
                    own.append(text(response))
                }
            }
            #expect(own.count == 2 && own[0] == own[1])
            // 민지's own token without ?person= gets 민지's, not the first person's.
            try await client.execute(uri: "/api/v1/day/2026-11-20", method: .get, headers: Self.bearer(Self.minjiToken)) { response in
                #expect(response.status == .ok)
                #expect(text(response) != own[0])
            }
            try await client.execute(
                uri: "/api/v1/day/2026-11-20?person=\(Self.minji)", method: .get, headers: Self.bearer(Self.adminToken)
            ) { response in
                #expect(response.status == .ok)
            }
            // Everything of someone else, and what is everyone's, is not there for dad.
            for path in [
                "/api/v1/day/2026-11-20?person=\(Self.minji)", "/api/v1/week?person=\(Self.minji)",
                "/api/v1/week/2026-W47?person=\(Self.minji)",
                "/api/v1/today?person=\(Self.minji)", "/?person=\(Self.minji)", "/day/2026-11-20?person=\(Self.minji)",
                "/week/2026-W47?person=\(Self.minji)", "/metrics", "/api/v1/status",
            ] {
                try await client.execute(uri: path, method: .get, headers: Self.bearer(Self.dadToken)) { response in
                    #expect(response.status == .notFound, "\(path)")
                    // It names at most what was asked: never the configured people.
                    #expect(!text(response).contains("configured") && !text(response).contains("dad"), "\(path): \(text(response))")
                }
            }
            // A name nobody has gets the same answer as 민지: the 404 tells dad nothing of the household.
            var answers: Set<String> = []
            for name in [Self.minji, "mom"] {
                try await client.execute(uri: "/api/v1/today?person=\(name)", method: .get, headers: Self.bearer(Self.dadToken)) {
                    answers.insert(text($0).replacingOccurrences(of: "민지", with: "mom"))
                }
            }
            #expect(answers.count == 1)
            // The administrator sees the metrics and the status.
            for path in ["/metrics", "/api/v1/status"] {
                try await client.execute(uri: path, method: .get, headers: Self.bearer(Self.adminToken)) { #expect($0.status == .ok) }
            }
        }
    }

    @Test("No page shows a person's token another person's name: no switcher, no household table")
    func pagesListNobodyElse() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        try await application(rig).test(.router) { client in
            try await client.execute(uri: "/", method: .get, headers: Self.bearer(Self.dadToken)) { response in
                #expect(text(response).contains("<link rel=\"manifest\" href=\"/manifest.webmanifest\"/>"))
                #expect(response.headers[.contentSecurityPolicy]?.contains("manifest-src 'self'") == true)
            }
            for path in ["/", "/day/2026-11-20", "/week/2026-W47"] {
                try await client.execute(uri: path, method: .get, headers: Self.bearer(Self.dadToken)) { response in
                    #expect(response.status == .ok, "\(path)")
                    #expect(!text(response).contains("민지"), "\(path)")
                    // Whose page it is, named above the station (issue 37), though no switcher is shown.
                    #expect(text(response).contains("<h1><span class=\"who\">dad</span>"), "\(path)")
                }
                // The administrator's page lists both (the switcher, and the week's household), 민지's named and current.
                try await client.execute(uri: path + "?person=\(Self.minji)", method: .get, headers: Self.bearer(Self.adminToken)) {
                    response in
                    #expect(text(response).contains("민지") && text(response).contains("dad"), "\(path)")
                    #expect(text(response).contains("<span class=\"who\">민지</span>"), "\(path)")
                    #expect(text(response).contains("aria-current=\"page\">민지</a>"), "\(path)")
                }
            }
        }
    }

    @Test(
        "Why a poll failed or a reload was refused quotes anyone's settings: the operator's pages say it, a person's say only that it happened"
    )
    func operatorDetailOnly() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let now = DemoReplay.now
        var status = DaemonStatus(
            state: .idle, mode: .daemon, pid: 4242, version: "1.0.0", station: "종로구", startedAt: now.addingTimeInterval(-3600),
            heartbeatSeconds: 600)
        status.heartbeatAt = now.addingTimeInterval(-60)
        status.lastError = .init(
            at: now.addingTimeInterval(-600), failure: .configuration("people[1].station (민지): AirKorea knows no station 남산동"))
        status.reloadRefused = .init(
            at: now.addingTimeInterval(-300), reason: "people[1].restingHeartRate (민지) must be a number from 25 to 250, not \"300\"")
        try await rig.store.saveStatus(status)
        try await application(rig).test(.router) { client in
            for path in ["/", "/day/2026-11-20", "/week/2026-W47"] {
                try await client.execute(uri: path, method: .get, headers: Self.bearer(Self.dadToken)) { response in
                    let page = text(response)
                    #expect(response.status == .ok, "\(path)")
                    #expect(page.contains("class=\"notice"), "\(path): the notices are said")
                    #expect(!page.contains("민지") && !page.contains("restingHeartRate") && !page.contains("남산동"), "\(path)")
                }
                try await client.execute(uri: path, method: .get, headers: Self.bearer(Self.adminToken)) { response in
                    let page = text(response)
                    #expect(page.contains("남산동") && page.contains("restingHeartRate"), "\(path)")
                }
            }
        }
    }

    @Test("A database that cannot be read: the 503 names no path to anyone, and to one without a token not even the database")
    func storageFailureSaysNoPath() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let path = rig.store.path
        let log = rig.directory.path("sqlite3.log")
        let dropped = try await aside {
            try Spawn.run("/usr/bin/sqlite3", [path, "DROP TABLE measurement"], environment: [:], standardOutput: log, standardError: log)
        }
        #expect(dropped == 0)
        try await application(rig).test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(
                    text(response) == "unhealthy: the database cannot be read; dustd's log and dustctl status say why\n",
                    "\(text(response))")
            }
            for token in [Self.adminToken, Self.dadToken] {
                try await client.execute(uri: "/api/v1/today", method: .get, headers: Self.bearer(token)) { response in
                    #expect(response.status == .serviceUnavailable)
                    #expect(
                        !text(response).contains(rig.directory.url.path) && text(response).contains("(path hidden)"), "\(text(response))")
                }
            }
        }
    }

    @Test("Without a token: 401 for every path but /healthz and /login; a browser gets the sign-in form with the 401")
    func anonymous() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        try await application(rig).test(.router) { client in
            for path in ["/", "/api/v1/today", "/api/v1/forecast", "/api/v1/advisories", "/metrics", "/api/v1/status", "/nothing"] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .unauthorized, "\(path)")
                    #expect(response.headers[.wwwAuthenticate] == "Bearer realm=\"dustd\"")
                    #expect(!text(response).contains("종로구"))
                }
                try await client.execute(uri: path, method: .get, headers: Self.bearer("wrong-0123456789abcdefghijklmnopqrstuvwxyz")) {
                    #expect($0.status == .unauthorized)
                }
                // Whatever the method: 401 and nothing else, not the 405 a signed-in client gets.
                for method in [HTTPRequest.Method.options, .post, .delete, .put, HTTPRequest.Method("PROPFIND")!] {
                    try await client.execute(uri: path, method: method) { response in
                        #expect(response.status == .unauthorized, "\(method) \(path)")
                        #expect(response.headers[.allow] == nil)
                    }
                }
            }
            try await client.execute(uri: "/api/v1/today", method: .options, headers: Self.bearer(Self.dadToken)) {
                #expect($0.status == .methodNotAllowed && $0.headers[.allow] == "GET, HEAD")
            }
            // A cookie that is no session's, or a proxy's own Basic credentials, let no one in: 401, not 405.
            for headers: HTTPFields in [[.cookie: "dustd_session=x"], [.authorization: "Basic YWRtaW46YWRtaW4="]] {
                try await client.execute(uri: "/api/v1/today", method: .options, headers: headers) {
                    #expect($0.status == .unauthorized && $0.headers[.allow] == nil)
                }
            }
            // The open paths say which methods they take to anyone.
            try await client.execute(uri: "/healthz", method: .options) { #expect($0.status == .methodNotAllowed) }
            try await client.execute(uri: "/day/2026-11-20", method: .get, headers: [.accept: "text/html,application/xhtml+xml"]) {
                response in
                #expect(response.status == .unauthorized)
                #expect(text(response).contains("<form method=\"post\" action=\"/login\">"))
                #expect(text(response).contains("name=\"next\" value=\"/day/2026-11-20\""))
                #expect(!text(response).contains("종로구"))
            }
            // /healthz says whether dustd is well (here: it never polled) to anyone.
            try await client.execute(uri: "/healthz", method: .get) {
                #expect($0.status == .serviceUnavailable && text($0).hasPrefix("unhealthy"))
            }
            try await client.execute(uri: "/login", method: .get) { #expect($0.status == .ok) }
            // The web app manifest and icon hold no data: a phone adds the dashboard to its home screen before signing in.
            try await client.execute(uri: "/manifest.webmanifest", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/manifest+json")
                let manifest = try #require(try JSONSerialization.jsonObject(with: Data(text(response).utf8)) as? [String: Any])
                #expect(manifest["start_url"] as? String == "/" && manifest["display"] as? String == "standalone")
                #expect((manifest["icons"] as? [[String: Any]])?.first?["src"] as? String == "/icon.svg")
            }
            try await client.execute(uri: "/icon.svg", method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "image/svg+xml")
                #expect(text(response).hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
            }
        }
    }

    /// The form's anti-forgery value and cookie from `GET /login`.
    static func form(_ client: some TestClientProtocol) async throws -> (value: String, cookie: String) {
        try await client.execute(uri: "/login", method: .get) { response in
            let page = text(response)
            let value = try #require(page.firstMatch(of: /name="form" value="([A-Za-z0-9_-]+)"/)?.1)
            let setCookie = try #require(response.headers[values: .setCookie].first { $0.hasPrefix("dustd_form=") })
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict") && setCookie.contains("Path=/login"))
            return (String(value), String(setCookie.prefix { $0 != ";" }))
        }
    }

    static func post(
        _ client: some TestClientProtocol, body: String, cookie: String?, extra: HTTPFields = [:]
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        if let cookie { headers[.cookie] = cookie }
        headers.append(contentsOf: extra)
        return try await client.execute(uri: "/login", method: .post, headers: headers, body: ByteBuffer(string: body)) { $0 }
    }

    @Test("Signing in: the form sets an HttpOnly SameSite=Strict cookie that opens the person's pages and nothing of anyone else's")
    func signIn() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        try await application(rig).test(.router) { client in
            let form = try await Self.form(client)
            let token = Self.minjiToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let response = try await Self.post(
                client, body: "token=\(token)&form=\(form.value)&next=%2Fweek%2F2026-W47", cookie: form.cookie)
            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == "/week/2026-W47")
            let setCookie = try #require(response.headers[values: .setCookie].first { $0.hasPrefix("dustd_session=") })
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict") && setCookie.contains("Path=/"))
            #expect(!setCookie.contains("Secure"), "plain http: a Secure cookie would never come back")
            #expect(!setCookie.contains(Self.minjiToken))
            let session = String(setCookie.prefix { $0 != ";" })
            try await client.execute(uri: "/api/v1/day/2026-11-20", method: .get, headers: [.cookie: session]) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/week/2026-W47", method: .get, headers: [.cookie: session]) { response in
                #expect(response.status == .ok)
                #expect(text(response).contains("action=\"/logout\""), "a signed-in page offers to sign out")
                #expect(!text(response).contains(">dad<"))
            }
            for path in ["/api/v1/day/2026-11-20?person=dad", "/metrics", "/api/v1/status"] {
                try await client.execute(uri: path, method: .get, headers: [.cookie: session]) {
                    #expect($0.status == .notFound, "\(path)")
                }
            }
            // A cookie altered to name dad, or the administrator, opens nothing.
            let parts = session.dropFirst("dustd_session=".count).split(separator: ".").map(String.init)
            for subject in ["p:dad", "*"] {
                let forged = ["v1", SessionCookie.base64URL(Data(subject.utf8)), parts[2], parts[3]].joined(separator: ".")
                try await client.execute(uri: "/api/v1/today", method: .get, headers: [.cookie: "dustd_session=\(forged)"]) {
                    #expect($0.status == .unauthorized)
                }
            }
            // Signing out removes the cookie.
            var headers: HTTPFields = [.cookie: session]
            headers[HTTPField.Name("Sec-Fetch-Site")!] = "same-origin"
            try await client.execute(uri: "/logout", method: .post, headers: headers) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[values: .setCookie].contains { $0.hasPrefix("dustd_session=;") && $0.contains("Max-Age=0") })
            }
            // The cookie itself is ended too: a copy kept elsewhere (another device, a stolen one) opens nothing.
            try await client.execute(uri: "/api/v1/today", method: .get, headers: [.cookie: session]) {
                #expect($0.status == .unauthorized)
            }
            // A token alone has no session to end: posted in a loop by a script, it writes nothing (the data
            // generation, which every kept answer of everyone depends on, stays) and signs no one out.
            let generation = try await rig.store.dataGeneration()
            let before = try await rig.store.sessionRevocations()
            for _ in 0..<5 {
                try await client.execute(uri: "/logout", method: .post, headers: Self.bearer(Self.dadToken)) {
                    #expect($0.status == .seeOther)
                }
            }
            #expect(try await rig.store.dataGeneration() == generation, "no sign-out written for a token")
            #expect(try await rig.store.sessionRevocations() == before)
        }
    }

    @Test("dustctl person signout ends a person's cookies on every device; the other person's and the tokens still open")
    func signOutEverywhere() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        try await application(rig).test(.router) { client in
            var sessions: [String: String] = [:]
            for (name, token) in [("민지", Self.minjiToken), ("dad", Self.dadToken)] {
                let form = try await Self.form(client)
                let response = try await Self.post(
                    client, body: "token=\(token.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&form=\(form.value)",
                    cookie: form.cookie)
                let setCookie = try #require(response.headers[values: .setCookie].first { $0.hasPrefix("dustd_session=") })
                sessions[name] = String(setCookie.prefix { $0 != ";" })
            }
            // As `dustctl person signout 민지` records it, from another process.
            try await rig.store.revokeSessions(of: "p:민지", at: DemoReplay.now.addingTimeInterval(60))
            try await client.execute(uri: "/api/v1/today", method: .get, headers: [.cookie: sessions["민지"]!]) {
                #expect($0.status == .unauthorized)
            }
            try await client.execute(uri: "/api/v1/today", method: .get, headers: [.cookie: sessions["dad"]!]) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/api/v1/today", method: .get, headers: Self.bearer(Self.minjiToken)) {
                #expect($0.status == .ok)
            }
        }
    }

    @Test(
        "A sign-out stamped while the clock was two years ahead locks nobody out once it is set right: the count decides, a sign-in opens"
    )
    func signOutStampedAhead() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let ahead = DemoReplay.now.addingTimeInterval(2 * 365 * 86_400)
        let second = Date(timeIntervalSince1970: DemoReplay.now.timeIntervalSince1970.rounded(.down))
        // Each reading of the monotonic clock two seconds after the last: no sign-in here meets the second's pacing.
        let ticks = Mutex(ContinuousClock.now)
        try await application(
            rig,
            monotonicNow: {
                ticks.withLock {
                    $0 += .seconds(2)
                    return $0
                }
            }
        ).test(.router) { client in
            // dad signed out while the clock was ahead; signed in (a cookie) and out again now, the sign-out is
            // recorded at now, not skipped.
            try await rig.store.revokeSessions(of: "p:dad", at: ahead)
            let signIn = try await Self.form(client)
            let signedIn = try await Self.post(client, body: "token=\(Self.dadToken)&form=\(signIn.value)", cookie: signIn.cookie)
            let cookie = try #require(signedIn.headers[values: .setCookie].first { $0.hasPrefix("dustd_session=") })
            var headers: HTTPFields = [.cookie: String(cookie.prefix { $0 != ";" })]
            headers[HTTPField.Name("Sec-Fetch-Site")!] = "same-origin"
            try await client.execute(uri: "/logout", method: .post, headers: headers) { #expect($0.status == .seeOther) }
            #expect(try await rig.store.sessionRevocations()["p:dad"]?.last == second)
            // Signed out ahead again, then signing in: the cookie opens the pages.
            try await rig.store.revokeSessions(of: "p:dad", at: ahead)
            let form = try await Self.form(client)
            let response = try await Self.post(client, body: "token=\(Self.dadToken)&form=\(form.value)", cookie: form.cookie)
            #expect(response.status == .seeOther)
            let setCookie = try #require(response.headers[values: .setCookie].first { $0.hasPrefix("dustd_session=") })
            let session = String(setCookie.prefix { $0 != ";" })
            try await client.execute(uri: "/api/v1/today", method: .get, headers: [.cookie: session]) { #expect($0.status == .ok) }
            // Three sign-outs counted, none written again for the sign-in: every cookie issued before stays ended.
            #expect(try await rig.store.sessionRevocations()["p:dad"]?.count == 3)
            // A lost phone's cookie, issued while the clock was ahead and stamped 30 s after now (real time has
            // reached it): its time is after the sign-out moved back, but its count is not dad's: refused.
            let lost = try #require(
                SessionCookie(access: Self.access).issue(for: .person("dad"), signOuts: 0, now: DemoReplay.now.addingTimeInterval(30)))
            try await client.execute(uri: "/api/v1/today", method: .get, headers: [.cookie: "dustd_session=\(lost.value)"]) {
                #expect($0.status == .unauthorized)
            }
        }
    }

    @Test(
        "Signing in again in the second of a sign-out opens (a second after it), a sign-out at once still ends that cookie, and one cookie's sign-out posted twice at once counts once"
    )
    func signInAfterSignOut() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let ticks = Mutex(ContinuousClock.now)
        try await application(rig, monotonicNow: { ticks.withLock { $0 } }).test(.router) { client in
            @Sendable func signIn() async throws -> TestResponse {
                let form = try await Self.form(client)
                return try await Self.post(client, body: "token=\(Self.dadToken)&form=\(form.value)", cookie: form.cookie)
            }
            @Sendable func session(_ response: TestResponse) throws -> String {
                #expect(response.status == .seeOther)
                let setCookie = try #require(response.headers[values: .setCookie].first { $0.hasPrefix("dustd_session=") })
                return String(setCookie.prefix { $0 != ";" })
            }
            @Sendable func signOut(_ session: String) async throws {
                var headers: HTTPFields = [.cookie: session]
                headers[HTTPField.Name("Sec-Fetch-Site")!] = "same-origin"
                try await client.execute(uri: "/logout", method: .post, headers: headers) { #expect($0.status == .seeOther) }
            }
            @Sendable func opens(_ session: String) async throws -> Bool {
                try await client.execute(uri: "/api/v1/today", method: .get, headers: [.cookie: session]) { $0.status == .ok }
            }
            let first = try session(try await signIn())
            #expect(try await opens(first))
            try await signOut(first)
            #expect(try await !opens(first))
            // Signing in again at once: 429 for a second, so a loop writes at most one sign-out a second.
            let tooSoon = try await signIn()
            #expect(tooSoon.status == .tooManyRequests && tooSoon.headers[.retryAfter] == "1")
            #expect(String(buffer: tooSoon.body).contains("방금 로그아웃했습니다"), "the form, in the page's language")
            // A second later by the monotonic clock; this web's wall clock stands still (as the demo's does), so
            // the sign-in falls in the second of the sign-out. Before, such a cookie was refused, under a still
            // clock for good.
            ticks.withLock { $0 += .milliseconds(1_100) }
            let second = try session(try await signIn())
            #expect(try await opens(second))
            try await signOut(second)
            #expect(try await !opens(second), "a sign-out in the same second still ends the cookie issued since")
            #expect(try await rig.store.sessionRevocations()["p:dad"]?.count == 2)
            // One cookie's sign-out posted twice at once (a double tap): one sign-out counted, whatever the order.
            ticks.withLock { $0 += .milliseconds(1_100) }
            let third = try session(try await signIn())
            async let one: Void = signOut(third)
            async let other: Void = signOut(third)
            _ = try await (one, other)
            #expect(try await rig.store.sessionRevocations()["p:dad"]?.count == 3)
            ticks.withLock { $0 += .milliseconds(1_100) }
            #expect(try await opens(try session(try await signIn())))
        }
    }

    @Test("A sign-in from another site, without the form's cookie, or with a wrong token is refused; the throttle then answers 429")
    func signInRefusals() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        try await application(rig, throttle: LoginThrottle(perAddress: 3, window: 600)).test(.router) { client in
            let form = try await Self.form(client)
            let body = "token=\(Self.dadToken)&form=\(form.value)"
            var crossSite: HTTPFields = [:]
            crossSite[HTTPField.Name("Origin")!] = "https://evil.example"
            #expect(try await Self.post(client, body: body, cookie: form.cookie, extra: crossSite).status == .forbidden)
            var fetchSite: HTTPFields = [:]
            fetchSite[HTTPField.Name("Sec-Fetch-Site")!] = "cross-site"
            #expect(try await Self.post(client, body: body, cookie: form.cookie, extra: fetchSite).status == .forbidden)
            // A page under no-referrer posts with Origin: null; a browser also says same-origin, which decides.
            var nullOrigin: HTTPFields = [:]
            nullOrigin[HTTPField.Name("Origin")!] = "null"
            #expect(try await Self.post(client, body: body, cookie: form.cookie, extra: nullOrigin).status == .forbidden)
            #expect(try await Self.post(client, body: body, cookie: nil).status == .forbidden)
            #expect(
                try await Self.post(client, body: "token=\(Self.dadToken)&form=\(form.value)x", cookie: form.cookie).status == .forbidden)
            // A form from elsewhere cannot send the browser elsewhere either.
            let away = try await Self.post(client, body: body + "&next=%2F%2Fevil.example%2F", cookie: form.cookie)
            #expect(away.status == .seeOther && away.headers[.location] == "/")
            var sameSite: HTTPFields = [:]
            sameSite[HTTPField.Name("Origin")!] = "null"
            sameSite[HTTPField.Name("Sec-Fetch-Site")!] = "same-origin"
            #expect(try await Self.post(client, body: body, cookie: form.cookie, extra: sameSite).status == .seeOther)
            for _ in 0..<3 {
                let wrong = try await Self.post(client, body: "token=nope&form=\(form.value)", cookie: form.cookie)
                #expect(wrong.status == .unauthorized)
                #expect(text(wrong).contains("role=\"alert\""))
            }
            // The throttle holds even for the right token until the window moves on.
            let throttled = try await Self.post(client, body: body, cookie: form.cookie)
            #expect(throttled.status == .tooManyRequests)
            #expect(Int(throttled.headers[.retryAfter] ?? "") ?? 0 > 500)
            // Behind an https proxy the cookie is Secure.
        }
        try await application(rig).test(.router) { client in
            let form = try await Self.form(client)
            var proxied: HTTPFields = [:]
            proxied[HTTPField.Name("X-Forwarded-Proto")!] = "https"
            let response = try await Self.post(
                client, body: "token=\(Self.dadToken)&form=\(form.value)", cookie: form.cookie, extra: proxied)
            #expect(response.headers[values: .setCookie].contains { $0.hasPrefix("dustd_session=") && $0.contains("Secure") })
        }
    }

    @Test(
        "Wrong tokens in a header are throttled as wrong sign-ins are: 429 before the token is looked at, the right one too; Basic credentials pass"
    )
    func bearerThrottle() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        try await application(rig, throttle: LoginThrottle(perAddress: 3, window: 600)).test(.router) { client in
            // A proxy's own Basic credentials are no guess: the form's cookie still decides (here: none, so 401), uncounted.
            for _ in 0..<4 {
                try await client.execute(uri: "/api/v1/today", method: .get, headers: [.authorization: "Basic ZGFkOnNlY3JldA=="]) {
                    #expect($0.status == .unauthorized)
                }
            }
            // The right token sent twice (or a proxy's beside the client's) is one malformed request, not a guess:
            // 400, uncounted (counted, the right token alone below would meet 429).
            var twice = Self.bearer(Self.dadToken)
            twice.append(HTTPField(name: .authorization, value: "Bearer \(Self.dadToken)"))
            for _ in 0..<4 {
                try await client.execute(uri: "/api/v1/today", method: .get, headers: twice) { #expect($0.status == .badRequest) }
            }
            // An open path tells a guess nothing: not counted either.
            try await client.execute(uri: "/healthz", method: .get, headers: Self.bearer("wrong-token-0")) {
                #expect($0.status != .tooManyRequests)
            }
            try await client.execute(uri: "/api/v1/today", method: .get, headers: Self.bearer(Self.dadToken)) { #expect($0.status == .ok) }
            for guess in 1...3 {
                try await client.execute(uri: "/api/v1/today", method: .get, headers: Self.bearer("wrong-token-\(guess)")) {
                    #expect($0.status == .unauthorized, "guess \(guess)")
                }
            }
            for token in ["wrong-token-4", Self.dadToken] {
                try await client.execute(uri: "/api/v1/today", method: .get, headers: Self.bearer(token)) { response in
                    #expect(response.status == .tooManyRequests)
                    #expect(Int(response.headers[.retryAfter] ?? "") ?? 0 > 500)
                    #expect(!text(response).contains("종로구"))
                }
            }
            // The open paths still answer the held-back address.
            try await client.execute(uri: "/healthz", method: .get, headers: Self.bearer("wrong-token-5")) {
                #expect($0.status != .tooManyRequests && $0.status != .unauthorized)
            }
        }
        // Behind a proxy that sends a Bearer token of its own, a signed-in browser is served by its cookie: the
        // foreign token counts against the one signed in (not the address everyone behind the proxy shares),
        // and once that count is spent it is not even compared.
        try await application(rig, throttle: LoginThrottle(perAddress: 3, window: 600)).test(.router) { client in
            let cookie = try #require(SessionCookie(access: Self.access).issue(for: .person("dad"), signOuts: 0, now: DemoReplay.now)).value
            for attempt in 1...6 {
                var headers = Self.bearer("proxy-jwt-\(attempt)")
                headers[.cookie] = "\(SessionCookie.name)=\(cookie)"
                try await client.execute(uri: "/api/v1/today", method: .get, headers: headers) {
                    #expect($0.status == .ok, "request \(attempt)")
                }
            }
            // The address itself was never counted: the right token alone still opens.
            try await client.execute(uri: "/api/v1/today", method: .get, headers: Self.bearer(Self.dadToken)) { #expect($0.status == .ok) }
        }
    }

    @Test(
        "Behind a trusted proxy, a stranger's wrong tokens hold back the address the proxy forwards for, not everyone behind it"
    )
    func trustedProxy() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        @Sendable func asked(_ token: String, forwardedFor: [String]) -> HTTPFields {
            var headers = Self.bearer(token)
            for entry in forwardedFor { headers.append(HTTPField(name: WebSecurityHeaders.forwardedFor, value: entry)) }
            return headers
        }
        let proxied = WebAccess(
            administrator: BearerToken(Self.adminToken), people: [("dad", BearerToken(Self.dadToken)!)], trustedProxies: ["127.0.0.1"])
        try await application(rig, access: proxied, throttle: LoginThrottle(perAddress: 3, window: 600)).test(.live) { client in
            // A stranger at 192.0.2.1 behind the proxy on this machine guesses; what it writes in the header itself
            // stands left of what the proxy appends, and is not read.
            for guess in 1...3 {
                let headers = asked("wrong-token-\(guess)", forwardedFor: ["203.0.113.\(guess), 192.0.2.1"])
                try await client.execute(uri: "/api/v1/today", method: .get, headers: headers) { #expect($0.status == .unauthorized) }
            }
            try await client.execute(uri: "/api/v1/today", method: .get, headers: asked("wrong-token-4", forwardedFor: ["192.0.2.1"])) {
                #expect($0.status == .tooManyRequests)
            }
            // The household's phone behind the same proxy is not held back; the stranger is, its right token too.
            try await client.execute(uri: "/api/v1/today", method: .get, headers: asked(Self.dadToken, forwardedFor: ["192.0.2.2"])) {
                #expect($0.status == .ok)
            }
            let faking = asked(Self.dadToken, forwardedFor: ["192.0.2.2", "192.0.2.1"])
            try await client.execute(uri: "/api/v1/today", method: .get, headers: faking) { #expect($0.status == .tooManyRequests) }
        }
        // Not trusted (the default): the header is no one's word, every guess counts against the peer.
        try await application(rig, throttle: LoginThrottle(perAddress: 3, window: 600)).test(.live) { client in
            for guess in 1...3 {
                let headers = asked("wrong-token-\(guess)", forwardedFor: ["192.0.2.\(guess)"])
                try await client.execute(uri: "/api/v1/today", method: .get, headers: headers) { #expect($0.status == .unauthorized) }
            }
            try await client.execute(uri: "/api/v1/today", method: .get, headers: asked(Self.dadToken, forwardedFor: ["192.0.2.9"])) {
                #expect($0.status == .tooManyRequests)
            }
        }
    }

    @Test("Whom a request came from: the peer, or the rightmost address a trusted proxy forwards for that is not itself one")
    func clientAddresses() {
        let access = WebAccess(administrator: nil, trustedProxies: ["127.0.0.1", "::1", "10.0.0.2"])
        #expect(access.trustedProxies == ["127.0.0.1", "::1", "10.0.0.2"])
        #expect(access.clientAddress(peer: nil, forwardedFor: ["192.0.2.1"]) == "local")
        #expect(access.clientAddress(peer: "192.0.2.7", forwardedFor: ["192.0.2.1"]) == "192.0.2.7", "not a proxy: its own address")
        #expect(access.clientAddress(peer: "127.0.0.1", forwardedFor: []) == "127.0.0.1")
        #expect(access.clientAddress(peer: "127.0.0.1", forwardedFor: ["192.0.2.1"]) == "192.0.2.1")
        #expect(access.clientAddress(peer: "::ffff:127.0.0.1", forwardedFor: ["192.0.2.1"]) == "192.0.2.1", "a dual-stack socket's peer")
        #expect(access.clientAddress(peer: "::1", forwardedFor: ["2001:DB8::0:1"]) == "2001:db8::1")
        #expect(access.clientAddress(peer: "127.0.0.1", forwardedFor: ["198.51.100.1, 192.0.2.1"]) == "192.0.2.1")
        #expect(
            access.clientAddress(peer: "127.0.0.1", forwardedFor: ["198.51.100.1", "192.0.2.1, 10.0.0.2"]) == "192.0.2.1", "two proxies")
        #expect(access.clientAddress(peer: "127.0.0.1", forwardedFor: ["[2001:db8::5]:443"]) == "2001:db8::5")
        #expect(access.clientAddress(peer: "127.0.0.1", forwardedFor: ["192.0.2.1:5000"]) == "192.0.2.1")
        for unreadable in ["unknown", "", "192.0.2.1, garbage", "evil.example", "192.0.2.999", String(repeating: "1", count: 500)] {
            #expect(access.clientAddress(peer: "127.0.0.1", forwardedFor: [unreadable]) == "127.0.0.1", "\(unreadable)")
        }
        #expect(access.clientAddress(peer: "127.0.0.1", forwardedFor: ["10.0.0.2"]) == "127.0.0.1", "only proxies: the peer")
        #expect(WebAccess(administrator: nil).clientAddress(peer: "127.0.0.1", forwardedFor: ["192.0.2.1"]) == "127.0.0.1")
    }

    @Test(
        "The throttle forgets by time, not by count: 30 addresses guessing in turn are each held back after their tenth; an IPv6 host counts by its /64"
    )
    func throttleManyAddresses() {
        let throttle = LoginThrottle()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var accepted = 0
        for round in 0..<40 {
            for address in 0..<30 {
                let client = "192.0.2.\(address)"
                let at = now.addingTimeInterval(Double(round * 30 + address) / 100)
                guard throttle.retryAfter(address: client, now: at) == nil else { continue }
                accepted += 1
                throttle.recordFailure(address: client, now: at)
            }
        }
        #expect(accepted == 30 * 10)
        // 300 failures from 30 addresses hold back no one else: a household member's sign-in is not a stranger's to end.
        #expect(throttle.retryAfter(address: "192.0.2.200", now: now.addingTimeInterval(13)) == nil)
        let later = now.addingTimeInterval(20)
        for host in 0..<12 {
            let client = "2001:db8:1:2:\(String(host, radix: 16)):0:0:1"
            if throttle.retryAfter(address: client, now: later) == nil {
                throttle.recordFailure(address: client, now: later)
            }
        }
        #expect(throttle.retryAfter(address: "2001:db8:1:2::beef", now: later) != nil)
        #expect(throttle.retryAfter(address: "2001:db8:1:3::1", now: later) == nil)
        #expect(throttle.retryAfter(address: "::ffff:192.0.2.7", now: later) != nil)
        // The window moves on: everyone may try again.
        #expect(throttle.retryAfter(address: "192.0.2.7", now: now.addingTimeInterval(700)) == nil)
        // A table of remembered addresses that is full holds back an address it has not seen, rather than forget one.
        let small = LoginThrottle(maxAddresses: 3)
        for address in 0..<3 { small.recordFailure(address: "198.51.100.\(address)", now: now) }
        #expect(small.retryAfter(address: "198.51.100.9", now: now) != nil)
        #expect(small.retryAfter(address: "198.51.100.9", now: now.addingTimeInterval(601)) == nil)
    }

    @Test("A session cookie: its MAC, its expiry and its token all count")
    func cookieRules() throws {
        let cookie = SessionCookie(access: Self.access)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let (value, expires) = try #require(cookie.issue(for: .person("민지"), signOuts: 0, now: now))
        #expect(expires.timeIntervalSince(now) == SessionCookie.lifetime)
        #expect(cookie.verify(value, now: now)?.principal == .person("민지"))
        #expect(cookie.verify(value, now: now.addingTimeInterval(SessionCookie.lifetime + 1)) == nil)
        var altered = Array(value)
        altered[altered.count - 2] = altered[altered.count - 2] == "A" ? "B" : "A"
        #expect(cookie.verify(String(altered), now: now) == nil)
        // A longer expiry written in by hand fails the MAC.
        let parts = value.split(separator: ".")
        #expect(cookie.verify("\(parts[0]).\(parts[1]).\(Int(parts[2])! + 100).\(parts[3]).\(parts[4])", now: now) == nil)
        // So does a count of sign-outs written in by hand (a signed-out cookie made to look current).
        #expect(cookie.verify("\(parts[0]).\(parts[1]).\(parts[2]).1.\(parts[4])", now: now) == nil)
        // A cookie of an older FineDust (v1, no count) opens as one issued under no sign-out.
        let v1MAC = SessionCookie.base64URL(
            Data(BearerToken(Self.minjiToken)!.authenticationCode(for: "dustd-session-v1|\(parts[1])|\(parts[2])")))
        let v1 = cookie.verify("v1.\(parts[1]).\(parts[2]).\(v1MAC)", now: now)
        #expect(v1?.principal == .person("민지") && v1?.signOuts == 0)
        // A new token for 민지 ends her sessions.
        let rotated = SessionCookie(
            access: WebAccess(administrator: nil, people: [("민지", BearerToken("new-token-0123456789abcdefghijklmnopqrstuvwx")!)]))
        #expect(rotated.verify(value, now: now) == nil)
        // Tokens: the right one, and nothing shorter, longer or different.
        #expect(Self.access.principal(token: Self.dadToken) == .person("dad"))
        #expect(Self.access.principal(token: Self.adminToken) == .everyone)
        for wrong in [String(Self.dadToken.dropLast()), Self.dadToken + "x", Self.dadToken.uppercased(), ""] {
            #expect(Self.access.principal(token: wrong) == nil)
        }
    }

    @Test("A cookie names a person byte for byte: 민지 decomposed, signed with her token, opens nothing (her sign-outs are stored composed)")
    func cookieNameByteForByte() throws {
        let composed = "민지"
        let decomposed = composed.decomposedStringWithCanonicalMapping
        #expect(composed == decomposed && !composed.utf8.elementsEqual(decomposed.utf8))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        // Signed exactly as dustd would sign it, had 민지 been configured decomposed.
        let forged = SessionCookie(access: WebAccess(administrator: nil, people: [(decomposed, BearerToken(Self.minjiToken)!)]))
        let (value, _) = try #require(forged.issue(for: .person(decomposed), signOuts: 0, now: now))
        #expect(SessionCookie(access: Self.access).verify(value, now: now) == nil)
        let (own, _) = try #require(SessionCookie(access: Self.access).issue(for: .person(composed), signOuts: 0, now: now))
        #expect(SessionCookie(access: Self.access).verify(own, now: now)?.principal == .person(composed))
    }

    @Test("A cookie naming nobody takes as long to refuse as one naming a person: the time does not say which names have a token")
    func cookieRefusalTakesAsLong() {
        let cookie = SessionCookie(access: Self.access)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func forged(_ name: String) -> String {
            "v1.\(SessionCookie.base64URL(Data("p:\(name)".utf8))).\(1_800_000_000 + 3600).\(SessionCookie.base64URL(Data(repeating: 7, count: 32)))"
        }
        let (person, nobody) = (forged("dad"), forged("zzz"))
        // Interleaved batches: a refusal without the HMAC took less than half as long as one with it (debug build).
        var (personTimes, nobodyTimes): ([Duration], [Duration]) = ([], [])
        let clock = ContinuousClock()
        for _ in 0..<200 {
            personTimes.append(clock.measure { for _ in 0..<20 { _ = cookie.verify(person, now: now) } })
            nobodyTimes.append(clock.measure { for _ in 0..<20 { _ = cookie.verify(nobody, now: now) } })
        }
        #expect(cookie.verify(person, now: now) == nil && cookie.verify(nobody, now: now) == nil)
        // The first quartile: what a preempted batch adds falls in the upper half.
        let ratio = personTimes.sorted()[50] / nobodyTimes.sorted()[50]
        #expect(ratio > 0.6 && ratio < 1.6, "a person's refusal takes \(ratio)× a nobody's")
    }
}

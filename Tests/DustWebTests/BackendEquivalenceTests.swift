import DustConfig
import DustKit
import DustPostgres
import DustReports
import DustServices
import DustStore
import DustWeb
import Foundation
import Hummingbird
import HummingbirdTesting
import Prometheus
import TestSupport
import Testing

/// The demo's scenario stored twice, in SQLite and in PostgreSQL (docs/REFERENCE.md §20, "One output,
/// two backends"): the AirKorea responses, the synthesized forecasts, advisories, weekly outlook, national
/// archive and station lists, the household's activity (jiho's Watch export and GPX walk, seoa's CSV), an
/// alert with its delivery and a status record; and a `dustctl` configuration for each.
struct BackendPair {
    let directory: TemporaryDirectory
    let sqlite: SQLiteStore
    let postgres: PostgresStore
    let location: PostgresLocation
    /// The demo household's configuration (Fixtures/demo-household.yaml) with each backend's `storage:`.
    let sqliteConfiguration: String
    let postgresConfiguration: String

    init() async throws {
        directory = try TemporaryDirectory("equivalence")
        sqlite = try SQLiteStore(path: directory.path("demo.sqlite"))
        let server = try await PostgresServer.running()
        location = server.location(database: try await server.createDatabase())
        postgres = try await PostgresStore.running(location, password: server.password)
        let fixtures = try #require(DemoReplay.locateFixtures(explicit: TestFixtures.url("").path))
        let calendar = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)
        for store in [sqlite, postgres] as [any FineDustStore] {
            _ = try await DemoReplay(fixtures: fixtures, store: store, calendar: calendar).run()
            try await Self.alertsAndStatus(store)
        }
        let passwordFile = directory.path("postgres-password")
        _ = FileManager.default.createFile(
            atPath: passwordFile, contents: Data((server.password + "\n").utf8), attributes: [.posixPermissions: 0o600])
        let household = try String(contentsOf: fixtures.appendingPathComponent(DemoReplay.householdConfigurationFile), encoding: .utf8)
        sqliteConfiguration = directory.path("sqlite.yaml")
        try (household + "storage:\n  path: \(sqlite.path)\n").write(toFile: sqliteConfiguration, atomically: true, encoding: .utf8)
        postgresConfiguration = directory.path("postgres.yaml")
        let url = "postgresql://\(server.user)@/\(location.database)?host=\(server.socketDirectory)&sslmode=disable"
        try (household + "storage:\n  url: \(url)\n  passwordFile: \(passwordFile)\n")
            .write(toFile: postgresConfiguration, atomically: true, encoding: .utf8)
    }

    /// A pair of the demo's databases for `body`; then its files are removed and the pool closed,
    /// whether `body` threw or not.
    static func with(_ body: (BackendPair) async throws -> Void) async throws {
        let pair = try await BackendPair()
        do {
            try await body(pair)
        } catch {
            await pair.remove()
            throw error
        }
        await pair.remove()
    }

    private func remove() async {
        directory.remove()
        await postgres.close()
    }

    /// What only dustd writes: a fired alert delivered once, a test alert, and a poller's status record.
    private static func alertsAndStatus(_ store: any FineDustStore) async throws {
        let at = Date(timeIntervalSince1970: 1_795_150_000)
        let fired = AlertEvent(
            kind: .fired, rule: "pm25.grade >= 3", metric: .pm25Grade, value: 3, station: "종로구", at: at, people: ["jiho", "seoa"])
        let saved = try #require(try await store.saveAlertTransition(rule: "pm25.grade >= 3", state: .active, event: fired, at: at))
        try await store.recordAlertDelivery(
            AlertDelivery(eventID: saved.id, sink: "ntfy https://ntfy.sh/…", attempt: 1, at: at, outcome: .delivered, detail: nil))
        _ = try await store.saveAlertEvent(
            AlertEvent(kind: .test, rule: "", metric: nil, value: nil, station: "종로구", at: at.addingTimeInterval(60)))
        var status = DaemonStatus(
            state: .idle, mode: .daemon, pid: 4242, version: "1.0", station: "종로구", startedAt: at, heartbeatSeconds: 60,
            host: "elsewhere.example")
        status.heartbeatAt = DemoReplay.now
        status.nextPollAt = DemoReplay.now.addingTimeInterval(600)
        status.lastSuccess = DaemonStatus.Success(at: DemoReplay.now.addingTimeInterval(-60), rowsNew: 3, rowsUpdated: 1, requests: 2)
        try await store.saveStatus(status)
    }

    /// `dustctl ARGS` against each backend, with the demo household's configuration and nothing else.
    func dustctl(_ arguments: [String]) async throws -> (sqlite: ProcessResult, postgres: ProcessResult) {
        func run(_ configuration: String) async throws -> ProcessResult {
            var environment = ProcessInfo.processInfo.environment.filter {
                !$0.key.hasPrefix("DUSTD_") && $0.key != "CREDENTIALS_DIRECTORY"
            }
            environment["DUSTD_CONFIG"] = configuration
            return try await Executables.run("dustctl", arguments, environment: environment)
        }
        return (try await run(sqliteConfiguration), try await run(postgresConfiguration))
    }

    /// The web data dustd would serve over `store`, at the demo's "now".
    func web(_ store: any FineDustStore, database: String) throws -> WebData {
        // dustd --demo's settings (DemoDashboard.reportSettings): the household at 종로구, followed along jiho's walk.
        let settings = WebData.ReportSettings(
            stations: StationPreference(primary: DemoReplay.station), calendar: DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!),
            intakeModel: try VentilationIntakeModel(), databasePath: database, people: DemoReplay.people,
            followingRadiusKilometres: DemoReplay.locationRadiusKilometres)
        return WebData(store: { store }, settings: { settings }, clock: FixedClock(DemoReplay.now), processIsDustd: { _ in false })
    }
}

/// `text` without its `"database":"…"` member, which names where the data is: SQLite's file, PostgreSQL's
/// `USER@HOST:PORT/DB` (docs/REFERENCE.md §20). The one member that differs by design; it must be there.
func withoutDatabase(_ text: String, _ database: String) -> String {
    let member = #""database":"# + JSON.string(database).serialized
    #expect(text.contains(member + ","), "\(text) names no database \(database)")
    return text.replacingOccurrences(of: member + ",", with: "")
}

@Suite(
    "One output, two backends: every dustctl --json document and /api/v1 answer is the same on SQLite and PostgreSQL",
    .enabled(if: PostgresServer.isAvailable, Comment(rawValue: PostgresServer.unavailableReason)), .timeLimit(.minutes(10)))
struct BackendEquivalenceTests {
    /// Each person by name, and nobody named (the first person, jiho).
    static let people: [[String]] = [[], ["--person", "jiho"], ["--person", "seoa"]]

    /// Documents of the demo's past days, the same whatever the wall clock says.
    static let dated: [[String]] =
        people.flatMap { person in
            [
                ["day", "2026-11-20"], ["day", "2026-11-16"], ["hourly", "2026-11-20"], ["week", "--end", "2026-11-20"],
                ["week", "--iso", "2026-W47"], ["export", "--week", "2026-W47", "--format", "csv"],
                ["export", "--week", "2026-W47", "--format", "json"],
                ["export", "--from", "2026-11-01", "--to", "2026-11-20", "--per", "week", "--format", "json"],
            ].map { $0 + person }
        } + [
            ["week", "--end", "2026-11-20", "--everyone"], ["day", "2026-11-20", "--everyone"],
            ["export", "--week", "2026-W47", "--format", "csv", "--everyone"], ["activity", "sources"],
            ["activity", "sources", "--person", "seoa"], ["stations", "list"],
            ["stations", "nearest", "--lat", "37.56", "--lon", "126.98"],
            ["hourly", "2019-02-12", "--station", "강남대로"], ["hourly", "2019-11-28", "--station", "신풍동"],
            ["advisories", "--year", "2026"], ["alerts", "list"], ["alerts", "list", "--last", "1"],
        ]

    /// Documents that read the wall clock (dustctl has no clock to fix): today, the forecast, the advisories
    /// in force, the status. Run on both backends within moments of each other; a minute that turns between
    /// the two runs is told apart from a difference by running the pair again.
    static let clocked: [[String]] = people.map { ["today"] + $0 } + [["forecast"], ["advisories"], ["status"]]

    @Test("Every dustctl --json document is byte for byte the same, but for status's database member")
    func dustctlDocuments() async throws {
        try await BackendPair.with { pair throws in
            for arguments in Self.dated {
                let json = arguments.contains("--format") ? arguments : arguments + ["--json"]
                let (sqlite, postgres) = try await pair.dustctl(json)
                #expect(sqlite.status == 0 && postgres.status == 0, "\(json): \(sqlite.standardError) \(postgres.standardError)")
                #expect(sqlite.standardOutput.count > 2, "\(json) printed nothing")
                #expect(sqlite.standardOutput == postgres.standardOutput, "dustctl \(json.joined(separator: " "))")
                #expect(sqlite.standardError == postgres.standardError, "dustctl \(json.joined(separator: " "))")
            }
            for arguments in Self.clocked {
                var documents: (sqlite: String, postgres: String) = ("", "")
                for _ in 0..<2 {
                    // One instant for both engines (a status's data age counts seconds): long after the demo's.
                    let (sqlite, postgres) = try await pair.dustctl(arguments + ["--json", "--now", "2026-12-01T00:00:00+09:00"])
                    // status answers by the daemon's state (docs/REFERENCE.md, dustctl status): the poller
                    // recorded here stopped beating at the demo's now, long past, so it is not running: 3.
                    let expected: Int32 = arguments == ["status"] ? 3 : 0
                    #expect(
                        sqlite.status == expected && postgres.status == expected,
                        "\(arguments): \(sqlite.status) \(postgres.status) \(sqlite.standardError) \(postgres.standardError)")
                    documents = (sqlite.standardOutput, postgres.standardOutput)
                    if arguments == ["status"] {
                        documents = (
                            withoutDatabase(documents.sqlite, pair.sqlite.path),
                            withoutDatabase(documents.postgres, pair.location.description)
                        )
                    }
                    if documents.sqlite == documents.postgres { break }
                }
                #expect(documents.sqlite.count > 2, "\(arguments) printed nothing")
                #expect(documents.sqlite == documents.postgres, "dustctl \(arguments.joined(separator: " ")) --json")
            }
        }
    }

    /// Every /api/v1 route of the router, for each person and for nobody named.
    static let routes: [String] =
        ["", "?person=jiho", "?person=seoa"].flatMap { query in
            [
                "/api/v1/today", "/api/v1/day/2026-11-20", "/api/v1/day/2026-11-16", "/api/v1/week", "/api/v1/week?end=2026-11-20",
                "/api/v1/week/2026-W47", "/",
                "/day/2026-11-20", "/week/2026-W47",
            ].map { $0 + ($0.contains("?") ? query.replacingOccurrences(of: "?", with: "&") : query) }
        } + ["/api/v1/forecast", "/api/v1/advisories", "/api/v1/status", "/healthz"]

    /// `/api/v1/status` has no `database` member (the web names no file), so it is compared whole too.
    @Test("Every /api/v1 answer (and every page) is byte for byte the same at the demo's now")
    func apiAnswers() async throws {
        try await BackendPair.with { pair throws in
            let backends = [
                try pair.web(pair.sqlite, database: pair.sqlite.path), try pair.web(pair.postgres, database: pair.location.description),
            ]
            var answers: [[String: (status: HTTPResponse.Status, body: String)]] = []
            for data in backends {
                let application = Application(router: WebServer(data: data, registry: PrometheusCollectorRegistry(), token: nil).router())
                let bodies = try await application.test(.router) { client in
                    var bodies: [String: (status: HTTPResponse.Status, body: String)] = [:]
                    for route in Self.routes {
                        bodies[route] = try await client.execute(uri: route, method: .get) { response in
                            (response.status, text(response))
                        }
                    }
                    return bodies
                }
                answers.append(bodies)
            }
            for route in Self.routes {
                let (sqlite, postgres) = (answers[0][route], answers[1][route])
                #expect(sqlite?.status == .ok, "\(route)")
                #expect((sqlite?.body.count ?? 0) > 2, "\(route) answered nothing")
                #expect(sqlite?.status == postgres?.status && sqlite?.body == postgres?.body, "\(route)")
                #expect(postgres?.body.contains(pair.location.description) == false, "\(route) names the database")
            }
        }
    }
}

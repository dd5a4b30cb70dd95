import DustDaemon
import DustKit
import DustServices
import DustStore
import DustWeb
import Foundation
import GRDB
import TestSupport
import Testing

/// `dustd --demo` serves the demo household (docs/REFERENCE.md §6): the web reads both people, whoever
/// the configuration names, and each one's numbers are those `dustctl demo` prints.
@Suite("dustd --demo: the household on the web", .timeLimit(.minutes(10)))
struct DemoDashboardTests {
    @Test("The demo's web settings hold jiho then seoa; ?person= reaches each, their intakes differ, anyone else is refused")
    func household() async throws {
        let directory = try TemporaryDirectory("demo-dashboard")
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.path("demo.sqlite"))
        let calendar = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)
        let fixtures = try #require(DemoReplay.locateFixtures(explicit: TestFixtures.url("").path))
        let replay = try await DemoReplay(fixtures: fixtures, store: store, calendar: calendar).run()
        // What dustd --demo reports it imported, per person: jiho's Watch gave heart rate and sleep too.
        #expect(
            replay.activity.map { "\($0.person)'s \($0.held)" } == [
                "jiho's 14 hours of walking, 1351 heart-rate samples, 50.9 h asleep", "seoa's 14 hours of walking",
                // Issue 23: jiho's walk of 2026-11-20, the track the demo follows (docs/REFERENCE.md §19).
                "jiho's 1 hour of walking, 40 tracked minutes",
            ])
        let settings = DemoDashboard.reportSettings(databasePath: store.path, calendar: calendar, intakeModel: try VentilationIntakeModel())
        #expect(settings.people.map(\.name) == ["jiho", "seoa"])
        #expect(settings.stations.primary == "종로구")
        let data = WebData(store: { store }, settings: { settings }, clock: FixedClock(DemoDashboard.now), processIsDustd: { _ in false })
        let first = try await data.statistics().day(DemoReplay.lastDay)
        let jiho = try await data.statistics(person: "jiho").day(DemoReplay.lastDay)
        let seoa = try await data.statistics(person: "seoa").day(DemoReplay.lastDay)
        #expect(first == jiho)
        // 03:00, asleep indoors at PM10 30 µg/m³: 30 × 0.276 × 0.7 for jiho (38), 30 × 0.27 × 0.7 for seoa (8).
        #expect(abs(jiho.hourly[3].intake.fineDust! - 30 * 0.276 * 0.7) < 1e-9)
        #expect(abs(seoa.hourly[3].intake.fineDust! - 30 * 0.27 * 0.7) < 1e-9)
        #expect(jiho.totals.intake.fineDust != seoa.totals.intake.fineDust)
        // The pages follow jiho along his walk (docs/REFERENCE.md §19): 15:00 is tracked 40 minutes of 60, 13.26 µg
        // (DemoWalkTests computes it); seoa has no track and her hours say nothing of where she was.
        #expect(settings.followingRadiusKilometres == 10)
        #expect(jiho.hourly[15].place?.kind == .track)
        #expect(abs(jiho.hourly[15].intake.fineDust! - 13.260777) < 1e-6)
        #expect(seoa.hourly.allSatisfy { $0.place == nil })
        #expect(throws: UnknownPerson.self) { try data.statistics(person: "me") }
    }
}

@Suite("dustd --demo: a busy port and where the fixtures are", .timeLimit(.minutes(10)))
struct DemoProcessTests {
    @Test(
        "A port another program holds ends dustd --demo with 69 and what to do, never having said it serves; --fixtures names a directory; a wrong one is 66"
    )
    func busyPort() async throws {
        let directory = try TemporaryDirectory("finedust-demo-busy")
        defer { directory.remove() }
        // Hold a loopback port for the length of the test.
        let held = try HeldLoopbackPort()
        defer { held.release() }
        let port = held.port
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("DUSTD_") }
        let configuration = directory.path("empty.yaml")
        try "# defaults\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        environment["DUSTD_CONFIG"] = configuration
        let result = try await Executables.run(
            "dustd",
            [
                "--demo", "--listen", "127.0.0.1:\(port)", "--demo-database", directory.path("demo.sqlite"), "--fixtures",
                TestFixtures.url("").path,
            ], environment: environment)
        #expect(result.status == 69, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.contains("The dashboard cannot be served on http://127.0.0.1:\(port)/"))
        #expect(result.standardOutput.contains("choose another with --listen HOST:PORT"))
        // The system's sentence, not NIO's function name; and no "Serving" said of a port never bound.
        #expect(result.standardOutput.contains("/: Address already in use. Another program"), "\(result.standardOutput)")
        #expect(!result.standardOutput.contains("Serving the dashboard") && !result.standardOutput.contains("bind("))
        let missing = try await Executables.run(
            "dustd", ["--demo", "--fixtures", directory.path("nothing"), "--demo-database", directory.path("d.sqlite")],
            environment: environment)
        #expect(missing.status == 66)
        #expect(missing.standardError.contains("holds no FineDust demo fixtures"))
    }

    @Test(
        "A database that holds what the demo did not write is left alone by dustd --demo and dustctl demo (73); a new or demo-made one is replayed"
    )
    func realDatabaseLeftAlone() async throws {
        let directory = try TemporaryDirectory("finedust-demo-real")
        defer { directory.remove() }
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("DUSTD_") }
        let configuration = directory.path("empty.yaml")
        try "# defaults\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        environment["DUSTD_CONFIG"] = configuration
        environment["LC_ALL"] = "C"
        let real = directory.path("real.sqlite")
        let imported = try await Executables.run(
            "dustctl", ["import", TestFixtures.url("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml").path, "--db", real],
            environment: environment)
        #expect(imported.status == 0, "\(imported.standardError)")
        func contents() throws -> [String] {
            let queue = try DatabaseQueue(path: real)
            return try queue.read { db in
                try String.fetchAll(db, sql: "SELECT slot_start || ' ' || ifnull(pm10, '-') FROM measurement ORDER BY slot_start")
                    + String.fetchAll(db, sql: "SELECT key FROM daemon_state ORDER BY key")
            }
        }
        let before = try contents()
        #expect(before.count == 24)
        let demo = try await Executables.run(
            "dustctl", ["demo", "--db", real, "--fixtures", TestFixtures.url("").path], environment: environment)
        #expect(
            demo.status == 73 && demo.standardError.contains("holds data the demo did not write, so it was left alone"),
            "\(demo.standardError)")
        // A port another holds: were the database replayed, dustd would end at the port (69), not serve.
        let held = try HeldLoopbackPort()
        defer { held.release() }
        let served = try await Executables.run(
            "dustd", ["--demo", "--listen", "127.0.0.1:\(held.port)", "--demo-database", real, "--fixtures", TestFixtures.url("").path],
            environment: environment)
        #expect(
            served.status == 73 && (served.standardOutput + served.standardError).contains("--demo-database"), "\(served.standardOutput)")
        #expect(try contents() == before)
        // A new file, twice: the second replay finds the demo's mark.
        let fresh = directory.path("fresh.sqlite")
        for _ in 0..<2 {
            let again = try await Executables.run(
                "dustctl", ["demo", "--db", fresh, "--fixtures", TestFixtures.url("").path], environment: environment)
            #expect(again.status == 0, "\(again.standardError)")
        }
    }

}

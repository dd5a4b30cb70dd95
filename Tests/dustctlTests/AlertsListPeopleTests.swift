import Foundation
import GRDB
import TestSupport
import Testing

/// docs/REFERENCE.md §18, Alerts: `dustctl alerts list` shows each rule once per person it is about.
@Suite("dustctl alerts list with people", .timeLimit(.minutes(10)))
struct AlertsListPeopleTests {
    func list(_ configuration: String, json: Bool) async throws -> String {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        let imported = try await dustctl("import", fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"), "--db", db)
        #expect(imported.status == 0, "\(imported.standardError)")
        let config = directory.path("dustd.yaml")
        try configuration.write(toFile: config, atomically: true, encoding: .utf8)
        let listed = try await dustctl(["alerts", "list", "--config", config, "--db", db] + (json ? ["--json"] : []))
        #expect(listed.status == 0, "\(listed.standardError)")
        return listed.standardOutput
    }

    static let rules = """
        alerts:
          rules:
            - { when: pm25.grade >= 나쁨 }
            - { when: intake.today.pm25 > 150, person: 민지 }

        """

    @Test("A household: a rule for everyone once per person, a person: rule once, each with person last, aligned by display width")
    func household() async throws {
        let configuration = "station: { name: 종로구 }\npeople:\n  - { name: dad }\n  - { name: 민지 }\n" + Self.rules
        let json = try await list(configuration, json: true)
        #expect(
            json.hasPrefix(
                """
                {"rules":[{"when":"pm25.grade >= 3","state":"idle","person":"dad"},{"when":"pm25.grade >= 3","state":"idle","person":"민지"},\
                {"when":"intake.today.pm25 > 150","state":"idle","person":"민지"}],"sinks":[]
                """))
        let text = try await list(configuration, json: false)
        #expect(
            text.hasPrefix(
                """
                Rules:
                  pm25.grade >= 3 for dad           idle
                  pm25.grade >= 3 for 민지          idle
                  intake.today.pm25 > 150 for 민지  idle

                """))
    }

    @Test(
        "A day's dose that fired is active until its day ends, and said to end with it; from midnight it is idle, a grade's rule still active"
    )
    func daysDoseEndsWithItsDay() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        #expect(try await dustctl("import", fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"), "--db", db).status == 0)
        let firedAt = 1_795_176_000  // 2026-11-20 21:00 KST
        let queue = try DatabaseQueue(path: db)
        try await queue.write { database in
            for rule in ["pm25.grade >= 3 for dad", "intake.today.pm25 > 150 for 민지"] {
                try database.execute(
                    sql: "INSERT INTO alert_state (rule, state, changed_at) VALUES (?, 'active', ?)", arguments: [rule, firedAt])
            }
        }
        try await queue.close()
        let config = directory.path("dustd.yaml")
        try ("station: { name: 종로구 }\npeople:\n  - { name: dad }\n  - { name: 민지 }\n" + Self.rules)
            .write(toFile: config, atomically: true, encoding: .utf8)
        func list(at now: String) async throws -> String {
            let listed = try await dustctl("alerts", "list", "--config", config, "--db", db, "--now", now)
            #expect(listed.status == 0, "\(listed.standardError)")
            return listed.standardOutput
        }
        #expect(
            try await list(at: "2026-11-20T23:59").hasPrefix(
                """
                Rules:
                  pm25.grade >= 3 for dad           active (a clearing follows)
                  pm25.grade >= 3 for 민지          idle
                  intake.today.pm25 > 150 for 민지  active (ends with the day)

                """))
        #expect(
            try await list(at: "2026-11-21T00:30").hasPrefix(
                """
                Rules:
                  pm25.grade >= 3 for dad           active (a clearing follows)
                  pm25.grade >= 3 for 민지          idle
                  intake.today.pm25 > 150 for 민지  idle

                """))
    }

    @Test("Without people the rules are listed as they always were, naming nobody")
    func alone() async throws {
        let configuration = "station: { name: 종로구 }\nalerts:\n  rules:\n    - { when: pm25.grade >= 나쁨 }\n"
        #expect(try await list(configuration, json: true).hasPrefix(#"{"rules":[{"when":"pm25.grade >= 3","state":"idle"}],"sinks":[]"#))
        #expect(try await list(configuration, json: false).hasPrefix("Rules:\n  pm25.grade >= 3  idle\n"))
    }

    @Test("An alert event whose stored value is no grade (1e300, changed by hand) is listed, not a trap")
    func eventValueChangedByHand() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        #expect(try await dustctl("import", fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"), "--db", db).status == 0)
        let queue = try DatabaseQueue(path: db)
        try await queue.write { database in
            try database.execute(
                sql:
                    "INSERT INTO alert_event (at, kind, rule, metric, value, station) VALUES (1795100000, 'fired', 'pm25.grade >= 나쁨', 'pm25.grade', 1e300, '종로구')"
            )
            try database.execute(
                sql:
                    "INSERT INTO alert_event (at, kind, rule, metric, value, station) VALUES (1795100001, 'fired', 'x', 'outlook.high.days', 1e300, '종로구')"
            )
        }
        try queue.close()
        for json in [false, true] {
            let listed = try await dustctl(["alerts", "list", "--db", db, "--station", "종로구"] + (json ? ["--json"] : []))
            #expect(listed.status == 0, "\(listed.standardError)")
        }
        // A sink's name with an escape sequence is shown inert.
        let reopened = try DatabaseQueue(path: db)
        try await reopened.write { database in
            try database.execute(
                sql:
                    "INSERT INTO alert_delivery (event_id, sink, attempt, at, outcome, detail) VALUES (1, char(27) || '[31msink', 1, 1795100000, 'failed', 'x')"
            )
        }
        let listed = try await dustctl(["alerts", "list", "--db", db, "--station", "종로구"])
        #expect(listed.status == 0 && !listed.standardOutput.contains("\u{1b}") && listed.standardOutput.contains("[31msink"))
        // An attempt FineDust never writes (Int.max: the next attempt's `+ 1` trapped dustd at every start) is a damaged row.
        try await reopened.write { database in
            try database.execute(sql: "UPDATE alert_delivery SET attempt = 9223372036854775807, outcome = 'retrying'")
        }
        try reopened.close()
        let damaged = try await dustctl(["alerts", "list", "--db", db, "--station", "종로구"])
        #expect(damaged.status == 65 && damaged.standardError.contains("attempt"), "\(damaged.standardError)")
    }

}

import Foundation
import TestSupport
import Testing

@Suite("dustctl configuration from the environment", .timeLimit(.minutes(10)))
struct EnvironmentTests {
    @Test("A misspelt DUSTD_ variable is a warning with the nearest name; an empty one is exit 78")
    func environmentWarnings() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await demoDatabase(directory)
        let misspelt = try await dustctl(
            "week", "--end", "2026-11-20", "--station", "종로구", "--db", db, environment: ["DUSTD_POLL_MINUT": "5"])
        #expect(misspelt.status == 0)
        #expect(
            misspelt.standardError
                == "dustctl: warning: the environment variable DUSTD_POLL_MINUT is not a FineDust setting and is ignored (did you mean DUSTD_POLL_MINUTE?).\n"
        )
        let empty = try await dustctl("week", "--end", "2026-11-20", "--db", db, environment: ["DUSTD_STATION_NAME": ""])
        #expect(empty.status == 78)
        #expect(empty.standardError.contains("DUSTD_STATION_NAME"))
        #expect(empty.standardError.split(separator: "\n").count == 1)
    }

    @Test("A person born after this month is a warning by the machine's clock, whatever --now explores")
    func birthAheadByTheMachinesClock() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await demoDatabase(directory)
        // Last month in Korea by this machine's clock: never ahead, even if the month turns during the test.
        var korea = Calendar(identifier: .gregorian)
        korea.timeZone = TimeZone(identifier: "Asia/Seoul")!
        let lastMonth = korea.dateComponents([.year, .month], from: korea.date(byAdding: .month, value: -1, to: Date())!)
        let born = String(format: "%04d-%02d", lastMonth.year!, lastMonth.month!)
        let configuration = directory.path("dustd.yaml")
        try "station:\n  name: 종로구\npeople:\n  - name: 하린\n    born: \"\(born)\"\n  - name: baby\n    born: \"2099-12\"\n"
            .write(toFile: configuration, atomically: true, encoding: .utf8)
        let week = try await dustctl(
            "week", "--end", "2026-11-20", "--db", db, "--config", configuration, "--now", "2000-01-01T09:00",
            environment: ["LANG": "C.UTF-8"])
        #expect(week.status == 0)
        let warnings = week.standardError.split(separator: "\n")
        #expect(warnings.count == 1, "\(week.standardError)")
        #expect(warnings.first?.hasPrefix("dustctl: warning: people[1].born (baby) 2099-12 is after this month (") == true)
    }
}

@Suite("dustctl and storage.url: --db beside it, a password in it (docs/REFERENCE.md §20)", .timeLimit(.minutes(10)))
struct StorageURLCommandTests {
    @Test("--db beside DUSTD_STORAGE_URL is exit 78 naming both; a password in the URL is exit 78 and never printed")
    func refusals() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let both = try await dustctl(
            "status", "--db", directory.path("d.sqlite"), environment: ["DUSTD_STORAGE_URL": "postgresql://dustd@db/finedust"])
        #expect(both.status == 78)
        #expect(
            both.standardError
                == "dustctl: Invalid configuration: --db names an SQLite database but storage.url selects PostgreSQL; drop --db, or remove storage.url to use SQLite.\n"
        )
        let password = try await dustctl("status", environment: ["DUSTD_STORAGE_URL": "postgresql://dustd:Zq9Kw7vTp@db/finedust"])
        #expect(password.status == 78)
        #expect(password.standardError.hasPrefix("dustctl: Invalid configuration: storage.url holds a password (USER:PASSWORD@)"))
        #expect(password.standardError.split(separator: "\n").count == 1 && password.standardOutput.isEmpty)
        for fragment in ["Zq9K", "q9Kw", "9Kw7", "Kw7v", "w7vT", "7vTp"] {
            #expect(!password.standardError.contains(fragment))
        }
    }
}

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

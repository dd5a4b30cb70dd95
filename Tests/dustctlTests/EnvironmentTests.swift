import Foundation
import TestSupport
import Testing

@Suite("dustctl configuration from the environment")
struct EnvironmentTests {
    @Test("A misspelt DUSTD_ variable is a warning with the nearest name; an empty one is exit 78")
    func environmentWarnings() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try demoDatabase(directory)
        let misspelt = try dustctl("week", "--end", "2026-11-20", "--station", "종로구", "--db", db, environment: ["DUSTD_POLL_MINUT": "5"])
        #expect(misspelt.status == 0)
        #expect(
            misspelt.standardError
                == "dustctl: warning: the environment variable DUSTD_POLL_MINUT is not a FineDust setting and is ignored (did you mean DUSTD_POLL_MINUTE?).\n"
        )
        let empty = try dustctl("week", "--end", "2026-11-20", "--db", db, environment: ["DUSTD_STATION_NAME": ""])
        #expect(empty.status == 78)
        #expect(empty.standardError.contains("DUSTD_STATION_NAME"))
        #expect(empty.standardError.split(separator: "\n").count == 1)
    }
}

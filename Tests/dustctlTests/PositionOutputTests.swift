import Foundation
import TestSupport
import Testing

@Suite("dustctl activity: tracked minutes and positions (docs/REFERENCE.md §19)", .timeLimit(.minutes(10)))
struct PositionOutputTests {
    @Test("sources appends TRACKED MIN and trackedMinutes; forget says how many positions; without tracks the table is as before")
    func sourcesAndForget() async throws {
        let directory = try TemporaryDirectory("finedust-positions-ctl")
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        let csv = directory.path("walks.csv")
        try Data("start,distance_m\n2026-11-20 18:00,1500\n".utf8).write(to: URL(fileURLWithPath: csv))
        #expect(try await dustctl("activity", "import", csv, "--db", db, "--quiet").status == 0)
        let before = try await dustctl("activity", "sources", "--db", db).standardOutput
        #expect(
            before == """
                SOURCE  FIRST HOUR        LAST HOUR         HOURS    KM
                csv     2026-11-20 18:00  2026-11-20 18:00      1  1.50

                """)

        let route = fixture("activity/route_2024-01-01_8.20am.gpx")
        let imported = try await dustctl("activity", "import", route, "--db", db)
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(
            imported.standardOutput.hasSuffix(", 1 hour touched, 3 tracked minutes, sources: gpx:route_2024-01-01_8.20am.gpx 0.20 km.\n"))
        let json = try await dustctl("activity", "import", route, "--db", db, "--json").standardOutput
        #expect(json.contains(",\"sleepOverlapsMerged\":0,\"trackedMinutes\":3}"))

        let text = try await dustctl("activity", "sources", "--db", db).standardOutput
        #expect(
            text == """
                SOURCE                           FIRST HOUR        LAST HOUR         HOURS    KM  TRACKED MIN
                csv                              2026-11-20 18:00  2026-11-20 18:00      1  1.50            0
                gpx:route_2024-01-01_8.20am.gpx  2024-01-01 08:00  2024-01-01 08:00      1  0.20            3

                """)
        let sources = try await dustctl("activity", "sources", "--db", db, "--json").standardOutput
        #expect(sources.contains("\"person\":\"me\",\"trackedMinutes\":0,\"distanceMetres\":1500}"))
        #expect(sources.contains("\"distance_m\":199.328,\"person\":\"me\",\"trackedMinutes\":3,\"distanceMetres\":199.328}"))

        let forgot = try await dustctl("activity", "forget", "--source", "gpx:route_2024-01-01_8.20am.gpx", "--db", db, "--json")
        #expect(forgot.status == 0, "\(forgot.standardError)")
        #expect(
            forgot.standardOutput
                == "{\"source\":\"gpx:route_2024-01-01_8.20am.gpx\",\"hoursRemoved\":1,\"bodyRecordsRemoved\":0,\"positionsRemoved\":3}\n")
        #expect(try await dustctl("activity", "sources", "--db", db).standardOutput == before)
    }

    @Test("status says what following a person needs once someone has tracks, and nothing before")
    func statusLocationLine() async throws {
        let directory = try TemporaryDirectory("finedust-positions-status")
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        #expect(try await dustctl("import", fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"), "--db", db).status == 0)
        let before = try await dustctl("status", "--db", db, "--station", "종로구").standardOutput
        #expect(!before.contains("Location"))
        #expect(try await dustctl("activity", "import", fixture("activity/route_2024-01-01_8.20am.gpx"), "--db", db, "--quiet").status == 0)
        let after = try await dustctl("status", "--db", db, "--station", "종로구").standardOutput
        #expect(
            after.hasSuffix(
                "Location      following me needs station.mode: nation (every station's hour; now single) and the station list with "
                    + "positions (dustctl stations sync); until then their hours use the home station's values\n"), "\(after)")
    }
}

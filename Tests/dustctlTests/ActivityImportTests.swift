import Foundation
import TestSupport
import Testing

/// `dustctl day --json` as a dictionary.
private func dayDocument(_ db: String) async throws -> [String: Any] {
    let result = try await dustctl("day", "2026-11-20", "--station", "종로구", "--db", db, "--json")
    #expect(result.status == 0, "\(result.standardError)")
    return try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
}

private func pm10Intake(_ document: [String: Any], hour: String) throws -> Double {
    let rows = try #require(document["hourly"] as? [[String: Any]])
    let row = try #require(rows.first { ($0["start"] as? String) == "2026-11-20T\(hour):00:00+09:00" })
    return try #require((row["intake"] as? [String: Any])?["pm10"] as? Double)
}

private func totalPM10Intake(_ document: [String: Any]) throws -> Double {
    try #require((document["intake"] as? [String: Any])?["pm10"] as? Double)
}

/// 0.01° of latitude on FineDust's sphere.
private let hundredthDegree = 6_371_008.8 * 0.01 * Double.pi / 180

@Suite("dustctl activity", .timeLimit(.minutes(10)))
struct DustctlActivityTests {
    @Test("Every file missing (or a directory): 66, as dustctl import says it; one missing beside one unusable: 65")
    func missingFilesExit66() async throws {
        let directory = try TemporaryDirectory("finedust-activity-missing")
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        let missing = try await dustctl("activity", "import", directory.path("nothing.xml"), directory.url.path, "--db", db, "--quiet")
        #expect(missing.status == 66, "\(missing.standardError)")
        let broken = directory.path("broken.csv")
        try Data("start,distance_m\nnot a time,5\n".utf8).write(to: URL(fileURLWithPath: broken))
        let mixed = try await dustctl("activity", "import", directory.path("nothing.xml"), broken, "--db", db, "--quiet")
        #expect(mixed.status == 65, "\(mixed.standardError)")
    }

    @Test("A GPX of a planned route and waypoints only: nothing walked, and the summary says they are not read, in text and JSON")
    func plannedRouteOnly() async throws {
        let directory = try TemporaryDirectory("finedust-activity-route")
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        let gpx = directory.path("plan.gpx")
        try Data(
            """
            <gpx version="1.1" creator="t"><wpt lat="37.57" lon="126.98"/>
            <rte><rtept lat="37.57" lon="126.98"><time>2026-11-20T01:00:00Z</time></rtept>
            <rtept lat="37.58" lon="126.98"><time>2026-11-20T01:20:00Z</time></rtept></rte></gpx>
            """.utf8
        ).write(to: URL(fileURLWithPath: gpx))
        let text = try await dustctl("activity", "import", gpx, "--db", db)
        #expect(text.status == 0, "\(text.standardError)")
        #expect(
            text.standardOutput.contains("3 route points and waypoints not read: they are a plan, not where you went"),
            "\(text.standardOutput)")
        let json = try await dustctl("activity", "import", gpx, "--db", db, "--json")
        #expect(json.standardOutput.contains("\"plannedPointsIgnored\":3"), "\(json.standardOutput)")
    }

    @Test(
        "import export.zip + GPX + CSV, sources, day --json with the merged distance and the hand-computed intake, idempotent re-import, forget"
    )
    func endToEnd() async throws {
        let directory = try TemporaryDirectory("finedust-activity-e2e")
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        #expect(try await dustctl("import", fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"), "--db", db).status == 0)
        let before = try await dayDocument(db)
        #expect((before["walking"] as? [Any])?.isEmpty == true)
        // 12:00 is sedentary indoors by the default schedule: C × 0.26 × 0.7.
        #expect(abs(try pm10Intake(before, hour: "12") - 49 * 0.26 * 0.7) < 1e-9)

        let csv = directory.path("walks.txt")  // the name says nothing; the header does
        try Data("start,distance_m\n2026-11-20 18:00,1500\n2026-11-20 19:00,800\n".utf8).write(to: URL(fileURLWithPath: csv))
        let files = [fixture("activity/generated/export.zip"), fixture("activity/generated/route-strava-evening.gpx"), csv]
        let imported = try await dustctl(["activity", "import"] + files + ["--db", db])
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(imported.standardError.isEmpty)  // not a terminal: no progress bar
        let lines = imported.standardOutput.split(separator: "\n")
        #expect(lines.count == 3)
        // The heart-rate sample is read now (docs/REFERENCE.md §18), no longer skipped.
        #expect(lines[0].contains("Health export (zip), 4 records and 3 route steps used, 2 skipped (1 ActiveEnergyBurned, 1 StepCount)"))
        #expect(lines[0].contains(", 1 heart-rate sample, 3 hours touched"))
        #expect(lines[0].contains("health:Apple Watch 3.60 km"))
        #expect(lines[1].contains("GPX track, 2 track steps used"))
        #expect(lines[2].contains("CSV, 2 rows used, 2 hours touched, sources: csv 2.30 km"))

        let sources = try await dustctl("activity", "sources", "--db", db, "--json")
        let sourceList = try #require(
            (try JSONSerialization.jsonObject(with: Data(sources.standardOutput.utf8)) as? [String: Any])?["sources"] as? [[String: Any]])
        #expect(
            sourceList.map { $0["source"] as? String } == [
                "csv", "gpx:route-strava-evening.gpx", "gpx:route_2026-11-20_12.10pm.gpx",
                "health:Apple Watch", "health:iPhone",
            ])
        #expect(sourceList.map { $0["hours"] as? Int } == [2, 1, 1, 3, 2])
        #expect(sourceList[3]["first"] as? String == "2026-11-20T12:00:00+09:00")
        #expect(sourceList[3]["last"] as? String == "2026-11-20T14:00:00+09:00")
        #expect(sourceList[3]["distance_m"] as? Double == 3600)

        let after = try await dayDocument(db)
        let walking = try #require(after["walking"] as? [[String: Any]])
        #expect(walking.map { $0["start"] as? String } == ["12", "13", "14", "18", "19"].map { "2026-11-20T\($0):00:00+09:00" })
        #expect(
            walking.map { $0["source"] as? String } == [
                "gpx:route_2026-11-20_12.10pm.gpx", "health:iPhone", "health:Apple Watch",
                "gpx:route-strava-evening.gpx", "csv",
            ])
        // The documents write what FineDust computed to 3 decimals (docs/REFERENCE.md §6): within half a millimetre.
        let metres = walking.compactMap { $0["distance_m"] as? Double }
        #expect(walking.compactMap { $0["distanceMetres"] as? Double } == metres)
        #expect(abs(metres[0] - 3 * hundredthDegree) < 5e-4)  // the route's 3335.85 m, not 3335.85 + 2400 + 2011.68
        #expect(abs(metres[1] - 1000.000032) < 5e-4)  // iPhone's 3280.84 ft at 13:40 KST (-0500 in the file) beats the Watch's 600 m
        #expect(metres[2] == 600)
        #expect(abs(metres[3] - 2 * hundredthDegree) < 5e-4)  // Strava 2223.90 m beats the CSV's 1500 m
        #expect(metres[4] == 800)

        // Intake with walking d: light (0.72 m³/h), outdoors max(schedule, d / 4800), infiltration 0.7.
        let noon = 49 * 0.72 * (0.7 + 0.3 * (3 * hundredthDegree / 4800))  // 32.0516 µg
        // Each intake to 3 decimals, as the document writes it.
        #expect(abs(try pm10Intake(after, hour: "12") - noon) <= 5e-4)
        #expect(abs(try pm10Intake(after, hour: "14") - 44 * 0.72 * 0.7375) <= 5e-4)  // 600 m: f = 0.125 → 23.364
        #expect(abs(try pm10Intake(after, hour: "18") - 63 * 0.72 * 0.85) <= 5e-4)  // already light, half outdoors: unchanged
        #expect(abs(try pm10Intake(after, hour: "19") - 66 * 0.72 * 0.75) <= 5e-4)  // 800 m: f = 1/6 → 35.64
        // The day's total grows by exactly the four changed hours: 23.1336 + 17.2490 + 15.356 + 23.628.
        let growth =
            (noon - 49 * 0.182) + (47 * 0.72 * (0.7 + 0.3 * 1000.000032 / 4800) - 47 * 0.182) + (23.364 - 44 * 0.182) + (35.64 - 66 * 0.182)
        #expect(abs(growth - 79.36655462) < 1e-6)
        #expect(abs(try totalPM10Intake(after) - totalPM10Intake(before) - growth) <= 1e-3)

        // The text of `day` names each hour's distance and winning source.
        let text = try await dustctl("day", "2026-11-20", "--station", "종로구", "--db", db).standardOutput
        #expect(text.contains("Walking (the largest source per hour)"))
        #expect(text.contains("12:00–13:00     3.34 km  gpx:route_2026-11-20_12.10pm.gpx"))
        #expect(text.contains("19:00–20:00     0.80 km  csv"))

        // Importing everything again changes nothing.
        let dayJSON = try await dustctl("day", "2026-11-20", "--station", "종로구", "--db", db, "--json").standardOutput
        #expect(try await dustctl(["activity", "import", "--quiet"] + files + ["--db", db]).standardOutput.isEmpty)
        #expect(try await dustctl("day", "2026-11-20", "--station", "종로구", "--db", db, "--json").standardOutput == dayJSON)

        // Forgetting the route: 12:00 falls back to the Watch's 2400 m (f = 0.5): 49 × 0.72 × 0.85.
        let forgot = try await dustctl("activity", "forget", "--source", "gpx:route_2026-11-20_12.10pm.gpx", "--db", db)
        #expect(forgot.status == 0)
        // The route's 4 minutes with a position go with it (docs/REFERENCE.md §19).
        #expect(forgot.standardOutput == "gpx:route_2026-11-20_12.10pm.gpx: 1 hour of walking and 4 positions removed.\n")
        let forgotten = try await dayDocument(db)
        #expect(abs(try pm10Intake(forgotten, hour: "12") - 49 * 0.72 * 0.85) < 1e-9)
        let unknown = try await dustctl("activity", "forget", "--source", "gpx:route_2026-11-20_12.10pm.gpx", "--db", db)
        #expect(unknown.status == 65)
        #expect(unknown.standardError.contains("no activity is stored from the source"))
    }

    @Test("A bad file among good ones stores nothing of its own, the others are imported, exit 65; --json summarises each")
    func badAmongGood() async throws {
        let directory = try TemporaryDirectory("finedust-activity-e2e")
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        let hostile = directory.path("export.xml")
        try Data(
            "<?xml version=\"1.0\"?>\n<!DOCTYPE HealthData [\n<!ENTITY x SYSTEM \"file:///etc/passwd\">\n]>\n<HealthData>&x;</HealthData>\n"
                .utf8
        )
        .write(to: URL(fileURLWithPath: hostile))
        let unknown = directory.path("track.gpx")
        try Data("\u{1B}]0;pwned\u{07}not a track\n".utf8).write(to: URL(fileURLWithPath: unknown))
        let result = try await dustctl(
            "activity", "import", hostile, fixture("activity/generated/route-strava-evening.gpx"), unknown, "--db", db, "--json")
        #expect(result.status == 65)
        #expect(result.standardError.contains("line 3: the document type declares or uses an entity"))
        #expect(result.standardError.contains("not a format FineDust reads"))
        #expect(!result.standardError.contains("\u{1B}"))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let files = try #require(document["files"] as? [[String: Any]])
        #expect(files.map { $0["ok"] as? Bool } == [false, true, false])
        #expect(files[1]["trackSteps"] as? Int == 2)
        #expect(document["failed"] as? Int == 2)
        let sources = try await dustctl("activity", "sources", "--db", db)
        #expect(sources.standardOutput.contains("gpx:route-strava-evening.gpx"))
        #expect(sources.standardOutput.split(separator: "\n").count == 2)
    }
}

@Suite("dustctl activity import summaries", .timeLimit(.minutes(10)))
struct ActivitySummaryTextTests {
    @Test(
        "The text summary counts same-second steps as steps, real jumps as GPS jumps, and says how many points had no time or an absurd date"
    )
    func summaryCounts() async throws {
        let directory = try TemporaryDirectory("finedust-activity-summary")
        defer { directory.remove() }
        let gpx = directory.path("route.gpx")
        try Data(
            """
            <gpx version="1.1"><trk><trkseg>
            <trkpt lat="37.5665" lon="126.978"><time>2026-11-20T03:20:00Z</time></trkpt>
            <trkpt lat="37.5665016" lon="126.978"><time>2026-11-20T03:20:01Z</time></trkpt>
            <trkpt lat="37.5665038" lon="126.978"><time>2026-11-20T03:20:01Z</time></trkpt>
            <trkpt lat="37.5665100" lon="126.978"></trkpt>
            <trkpt lat="37.5665100" lon="126.978"><time>9999-12-31T00:00:00Z</time></trkpt>
            <trkpt lat="37.6665038" lon="126.978"><time>2026-11-20T03:20:02Z</time></trkpt>
            </trkseg></trk></gpx>
            """.utf8
        ).write(to: URL(fileURLWithPath: gpx))
        let result = try await dustctl("activity", "import", gpx, "--db", directory.path("db.sqlite"))
        #expect(result.status == 0, "\(result.standardError)")
        #expect(
            result.standardOutput
                == "route.gpx: GPX track, 2 track steps used, 1 GPS jump dropped, 1 track point without a time ignored, "
                .replacingOccurrences(of: "route.gpx", with: gpx)
                + "1 dated before 2000 or in the future skipped, 1 hour touched, 1 tracked minute, sources: gpx:route.gpx 0.00 km.\n")
        let json = try await dustctl("activity", "import", gpx, "--db", directory.path("db.sqlite"), "--json")
        let file = try #require(
            ((try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])?["files"] as? [[String: Any]])?
                .first)
        #expect(file["trackSteps"] as? Int == 2 && file["gpsJumpsDropped"] as? Int == 1)
        #expect(file["pointsWithoutTime"] as? Int == 1 && file["datedOutsidePeriod"] as? Int == 1 && file["recordsDropped"] as? Int == 0)
    }
}

import DustActivity
import DustKit
import DustServices
import DustStore
import Foundation
import TestSupport
import Testing

private func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

/// An activity service over an empty memory store, importing as of 2026-11-21T00:00:00Z.
private func bench(_ limits: ActivityReaderLimits = ActivityReaderLimits()) -> (SQLiteStore, ActivityService) {
    let store = SQLiteStore.scratch()
    return (store, ActivityService(store: store, calendar: seoul, clock: FixedClock(utc("2026-11-21T00:00:00Z")), limits: limits))
}

/// `lat,lon` of each stored position of `me`, by minute and source, as `minute source lat,lon`.
private func stored(_ store: SQLiteStore) async throws -> [String] {
    let formatter = ISO8601DateFormatter()
    return try await store.positions(person: Person.defaultName, from: utc("2000-01-01T00:00:00Z"), to: utc("2030-01-01T00:00:00Z")).map {
        "\(formatter.string(from: $0.point.at)) \($0.source) \($0.point.position.latitude),\($0.point.position.longitude)"
    }
}

private func gpx(_ points: String) -> String {
    "<gpx version=\"1.1\"><trk><trkseg>\n" + points + "\n</trkseg></trk></gpx>\n"
}

@Suite("Positions from tracks (docs/REFERENCE.md §19)", .timeLimit(.minutes(10)))
struct PositionImportTests {
    @Test("A GPX track keeps one position per minute, the minute's start and its point's exact coordinates")
    func gpxFixture() async throws {
        let (store, service) = bench()
        let summary = try await service.importFile(atPath: TestFixtures.url("activity/route_2024-01-01_8.20am.gpx").path)
        #expect(summary.trackedMinutes == 3)
        await #expect(
            try stored(store) == [
                "2023-12-31T23:20:00Z gpx:route_2024-01-01_8.20am.gpx 37.57,126.98",
                "2023-12-31T23:21:00Z gpx:route_2024-01-01_8.20am.gpx 37.571,126.98",
                "2023-12-31T23:22:00Z gpx:route_2024-01-01_8.20am.gpx 37.571,126.981",
            ])
        await #expect(
            try store.positionSummaries() == [
                PositionSummary(
                    person: Person.defaultName, source: "gpx:route_2024-01-01_8.20am.gpx", first: utc("2023-12-31T23:20:00Z"),
                    last: utc("2023-12-31T23:22:00Z"), minutes: 3)
            ])
    }

    @Test("The export's workout route is kept under its file's name, with the heart rate and sleep of the same import")
    func exportRoute() async throws {
        let (store, service) = bench()
        let summary = try await service.importFile(atPath: TestFixtures.url("activity/generated-watch/export.zip").path)
        #expect(summary.trackedMinutes == 4)
        #expect(summary.heartRateSamples > 0)
        await #expect(
            try stored(store) == [
                "2026-11-20T03:10:00Z gpx:route_2026-11-20_12.10pm.gpx 37.57,127.0",
                "2026-11-20T03:20:00Z gpx:route_2026-11-20_12.10pm.gpx 37.58,127.0",
                "2026-11-20T03:30:00Z gpx:route_2026-11-20_12.10pm.gpx 37.59,127.0",
                "2026-11-20T03:40:00Z gpx:route_2026-11-20_12.10pm.gpx 37.6,127.0",
            ])
        // Importing it again changes nothing; forgetting the route removes its four positions and its walking.
        _ = try await service.importFile(atPath: TestFixtures.url("activity/generated-watch/export.zip").path)
        #expect(try await stored(store).count == 4)
        let removed = try await service.forget(person: nil, source: "gpx:route_2026-11-20_12.10pm.gpx")
        #expect(removed == ForgottenActivity(walkingHours: 1, bodyRecords: 0, positions: 4))
        #expect(try await stored(store).isEmpty)
    }

    @Test("A file's name whose escapes pass 256 bytes names its walking and its positions alike; forgetting it removes both")
    func longEscapedName() async throws {
        let (store, service) = bench()
        let directory = try TemporaryDirectory("finedust-positions")
        defer { directory.remove() }
        // 70 ESC bytes are 280 bytes once escaped (`\x1B` each): the source keeps the first 256.
        let file = directory.path(String(repeating: "\u{1B}", count: 70) + ".gpx")
        try Data(contentsOf: TestFixtures.url("activity/route_2024-01-01_8.20am.gpx")).write(to: URL(fileURLWithPath: file))
        _ = try await service.importFile(atPath: file)
        let source = "gpx:" + String(repeating: "\\x1B", count: 64)
        #expect(try await store.activitySources().map(\.source) == [source])
        #expect(try await store.positionSummaries().map(\.source) == [source])
        let removed = try await service.forget(person: nil, source: source)
        #expect(removed == ForgottenActivity(walkingHours: 1, bodyRecords: 0, positions: 3))
        #expect(try await stored(store).isEmpty)
    }

    @Test("Two tracks of one file name (route.gpx in two folders) walked at different times both stay: a track replaces only what it has")
    func oneNameTwoWalks() async throws {
        let (store, service) = bench()
        let directory = try TemporaryDirectory("finedust-positions")
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: directory.path("a"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.path("b"), withIntermediateDirectories: true)
        // a: 10:00–10:02 KST; b: 08:00–08:02 and 12:00–12:02 KST, its envelope around a's walk.
        func points(_ hour: Int) -> String {
            let formatter = ISO8601DateFormatter()
            return (0...2).map { minute in
                let at = instant(kst: "2026-11-20T\(String(format: "%02d", hour)):0\(minute):00")
                return "<trkpt lat=\"37.57\(minute)\" lon=\"126.98\"><time>\(formatter.string(from: at))</time></trkpt>"
            }.joined(separator: "\n")
        }
        try Data(gpx(points(10)).utf8).write(to: URL(fileURLWithPath: directory.path("a/route.gpx")))
        try Data(gpx(points(8) + "\n</trkseg><trkseg>\n" + points(12)).utf8).write(to: URL(fileURLWithPath: directory.path("b/route.gpx")))
        _ = try await service.importFile(atPath: directory.path("a/route.gpx"))
        _ = try await service.importFile(atPath: directory.path("b/route.gpx"))
        let minutes = try await stored(store).map { String($0.prefix(16)) }
        #expect(
            minutes == [
                "2026-11-19T23:00", "2026-11-19T23:01", "2026-11-19T23:02", "2026-11-20T01:00", "2026-11-20T01:01",
                "2026-11-20T01:02", "2026-11-20T03:00", "2026-11-20T03:01", "2026-11-20T03:02",
            ])
        let walked = try await store.activitySources()
        #expect(walked.map(\.source) == ["gpx:route.gpx"])
        #expect(walked.first?.slots == 3, "08:00, 10:00 and 12:00 each walked")
        // Importing either again changes nothing.
        _ = try await service.importFile(atPath: directory.path("a/route.gpx"))
        #expect(try await stored(store).count == 9)
        #expect(try await store.activitySources().first?.slots == 3)
    }

    @Test("The last point of each minute is kept; a point a GPS jump lands on is no position; points without time give none")
    func jumpsAndMinutes() async throws {
        let (store, service) = bench()
        let path = try TemporaryDirectory("finedust-positions")
        defer { path.remove() }
        let file = path.path("walk.gpx")
        // 0.001° of latitude is 111 m: 12:00:00 → 12:00:50 walks, 12:01:00 jumps 11 km in 10 s (dropped), 12:01:10 jumps back
        // (dropped), 12:02:30 walks on from there; a point without time is ignored.
        try Data(
            gpx(
                """
                <trkpt lat="37.5700" lon="126.98"><time>2026-11-20T03:00:00Z</time></trkpt>
                <trkpt lat="37.5701" lon="126.98"><time>2026-11-20T03:00:20Z</time></trkpt>
                <trkpt lat="37.5705" lon="126.98"><time>2026-11-20T03:00:50Z</time></trkpt>
                <trkpt lat="37.6700" lon="126.98"><time>2026-11-20T03:01:00Z</time></trkpt>
                <trkpt lat="37.5706" lon="126.98"><time>2026-11-20T03:01:10Z</time></trkpt>
                <trkpt lat="37.5900" lon="126.98"></trkpt>
                <trkpt lat="37.5712" lon="126.98"><time>2026-11-20T03:02:30Z</time></trkpt>
                """
            ).utf8
        ).write(to: URL(fileURLWithPath: file))
        let summary = try await service.importFile(atPath: file)
        #expect(summary.jumpsDropped == 2 && summary.pointsWithoutTime == 1)
        #expect(summary.trackedMinutes == 2)
        await #expect(
            try stored(store) == [
                "2026-11-20T03:00:00Z gpx:walk.gpx 37.5705,126.98",
                "2026-11-20T03:02:00Z gpx:walk.gpx 37.5712,126.98",
            ])
    }

    @Test("A track with no time keeps no position; a track abroad keeps its positions; a CSV keeps none")
    func noTimeAbroadAndCSV() async throws {
        let (store, service) = bench()
        let directory = try TemporaryDirectory("finedust-positions")
        defer { directory.remove() }
        let untimed = directory.path("untimed.gpx")
        try Data(gpx("<trkpt lat=\"37.57\" lon=\"126.98\"/><trkpt lat=\"37.58\" lon=\"126.98\"/>").utf8).write(
            to: URL(fileURLWithPath: untimed))
        #expect(try await service.importFile(atPath: untimed).trackedMinutes == 0)
        let paris = directory.path("paris.gpx")
        try Data(
            gpx(
                """
                <trkpt lat="48.8566" lon="2.3522"><time>2026-11-19T12:00:05Z</time></trkpt>
                <trkpt lat="48.8570" lon="2.3522"><time>2026-11-19T12:01:05Z</time></trkpt>
                """
            ).utf8
        ).write(to: URL(fileURLWithPath: paris))
        #expect(try await service.importFile(atPath: paris).trackedMinutes == 2)
        let csv = directory.path("walks.csv")
        try Data("start,distance_m\n2026-11-20 18:00,1500\n".utf8).write(to: URL(fileURLWithPath: csv))
        #expect(try await service.importFile(atPath: csv).trackedMinutes == 0)
        await #expect(
            try stored(store) == [
                "2026-11-19T12:00:00Z gpx:paris.gpx 48.8566,2.3522", "2026-11-19T12:01:00Z gpx:paris.gpx 48.857,2.3522",
            ])
    }

    @Test("A file whose tracks give more minutes than the limit is refused and stores nothing")
    func tooManyMinutes() async throws {
        let (store, service) = bench(ActivityReaderLimits(maxTrackedMinutes: 2))
        await #expect(throws: ActivityImportFailure.file(.tooManyTrackedMinutes(limit: 2))) {
            _ = try await service.importFile(atPath: TestFixtures.url("activity/route_2024-01-01_8.20am.gpx").path)
        }
        #expect(try await store.positionSummaries().isEmpty)
        #expect(try await store.activitySources().isEmpty)
    }
}

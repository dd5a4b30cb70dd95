import DustActivity
import DustKit
import DustServices
import DustStore
import Foundation
import TestSupport
import Testing

/// A fresh database and the activity service over it.
private struct ImportBench {
    let directory: TemporaryDirectory
    let store = SQLiteStore.scratch()
    let service: ActivityService

    init() throws {
        directory = try TemporaryDirectory("finedust-activity")
        // 2026-11-21T00:00:00Z: after the fixtures' 2026-11-20, so none of their instants is in the future.
        service = ActivityService(store: store, calendar: seoul, clock: FixedClock(Date(timeIntervalSince1970: 1_795_219_200)))
    }

    func write(_ name: String, _ text: String) throws -> String {
        let path = directory.path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Every stored row: source → slot → metres.
    func stored() async throws -> [String: [Slot: Double]] {
        var result: [String: [Slot: Double]] = [:]
        for source in try await store.activitySources() {
            result[source.source] = try await store.activity(source: source.source)
        }
        return result
    }
}

private func utc(_ text: String) -> Slot { Slot(containing: ISO8601DateFormatter().date(from: text)!) }
private let hundredthDegree = 6_371_008.8 * 0.01 * Double.pi / 180

@Suite("Activity import", .timeLimit(.minutes(10)))
struct ActivityImportTests {
    @Test("export.zip + a GPX + a CSV: stored per source and slot; a slot's distance is the largest source, never the sum")
    func mergedBySource() async throws {
        let bench = try ImportBench()
        defer { bench.directory.remove() }
        let zip = try await bench.service.importFile(atPath: TestFixtures.url("activity/generated/export.zip").path)
        #expect(zip.format == .healthZip)
        #expect(zip.recordsUsed == 4 && zip.trackSteps == 3)
        #expect(zip.slotsTouched == 3)
        #expect(zip.sources == ["gpx:route_2026-11-20_12.10pm.gpx", "health:Apple Watch", "health:iPhone"])
        let gpx = try await bench.service.importFile(atPath: TestFixtures.url("activity/generated/route-strava-evening.gpx").path)
        #expect(gpx.format == .gpx && gpx.trackSteps == 2 && gpx.recordsUsed == 0)
        let csv = try await bench.service.importFile(
            atPath: try bench.write("walks.data", "start,distance_m\n2026-11-20 18:00,1500\n2026-11-20 19:00,800\n"))
        #expect(csv.format == .csv && csv.recordsUsed == 2)

        let noon = utc("2026-11-20T03:00:00Z")
        let one = utc("2026-11-20T04:00:00Z")
        let two = utc("2026-11-20T05:00:00Z")
        let six = utc("2026-11-20T09:00:00Z")
        let seven = utc("2026-11-20T10:00:00Z")
        let merged = try await bench.store.walking(from: noon, to: seven.advanced(by: 1))
        #expect(abs(merged[noon]!.metres - 3 * hundredthDegree) < 1e-6)  // route 3335.85 > Watch 2400 > iPhone 2011.68
        #expect(merged[noon]!.source == "gpx:route_2026-11-20_12.10pm.gpx")
        #expect(abs(merged[one]!.metres - 1000.000032) < 1e-6 && merged[one]!.source == "health:iPhone")  // iPhone 1000 m > Watch 600 m
        #expect(merged[two] == SlotWalking(metres: 600, source: "health:Apple Watch"))
        // 2223.90 > CSV 1500
        #expect(abs(merged[six]!.metres - 2 * hundredthDegree) < 1e-6 && merged[six]!.source == "gpx:route-strava-evening.gpx")
        #expect(merged[seven] == SlotWalking(metres: 800, source: "csv"))
        #expect(merged.count == 5)
    }

    @Test("Importing the same files again changes nothing")
    func idempotent() async throws {
        let bench = try ImportBench()
        defer { bench.directory.remove() }
        let files = [
            TestFixtures.url("activity/generated/export.zip").path, TestFixtures.url("activity/generated/export.xml").path,
            TestFixtures.url("activity/generated/route-strava-evening.gpx").path,
        ]
        for file in files { _ = try await bench.service.importFile(atPath: file) }
        let first = try await bench.stored()
        for file in files { _ = try await bench.service.importFile(atPath: file) }
        #expect(try await bench.stored() == first)
        #expect(first["health:Apple Watch"]?.count == 3)
        #expect(try await bench.store.activitySources().map(\.slots) == [1, 1, 3, 2])
    }

    @Test("A shorter export replaces its source's rows over the span it covers and keeps older history")
    func shorterExport() async throws {
        let bench = try ImportBench()
        defer { bench.directory.remove() }
        func record(_ start: String, _ end: String, _ metres: Int) -> String {
            "<Record type=\"HKQuantityTypeIdentifierDistanceWalkingRunning\" sourceName=\"iPhone\" unit=\"m\" value=\"\(metres)\" startDate=\"\(start)\" endDate=\"\(end)\"/>\n"
        }
        let long =
            "<HealthData>\n" + record("2026-11-01 08:00:00 +0900", "2026-11-01 08:10:00 +0900", 700)
            + record("2026-11-10 08:00:00 +0900", "2026-11-10 08:10:00 +0900", 500)
            + record("2026-11-12 08:00:00 +0900", "2026-11-12 08:10:00 +0900", 900) + "</HealthData>\n"
        _ = try await bench.service.importFile(atPath: try bench.write("long.xml", long))
        // The new export starts on 11-10 and no longer holds the 11-12 record (deleted in Health).
        let short =
            "<HealthData>\n" + record("2026-11-10 08:00:00 +0900", "2026-11-10 08:10:00 +0900", 550)
            + record("2026-11-13 08:00:00 +0900", "2026-11-13 08:10:00 +0900", 300) + "</HealthData>\n"
        _ = try await bench.service.importFile(atPath: try bench.write("short.xml", short))
        await #expect(
            try bench.stored() == [
                "health:iPhone": [
                    utc("2026-10-31T23:00:00Z"): 700,  // before the new span: kept
                    utc("2026-11-09T23:00:00Z"): 550,  // replaced
                    utc("2026-11-12T23:00:00Z"): 300,  // new; 11-12's 900 m inside the span is gone
                ]
            ])
    }

    @Test("forget removes one source and leaves the others; an unknown source is an error naming the stored ones")
    func forget() async throws {
        let bench = try ImportBench()
        defer { bench.directory.remove() }
        _ = try await bench.service.importFile(atPath: TestFixtures.url("activity/generated/export.zip").path)
        #expect(
            try await bench.service.forget(person: nil, source: "health:Apple Watch") == ForgottenActivity(walkingHours: 3, bodyRecords: 0))
        #expect(try await bench.store.activitySources().map(\.source) == ["gpx:route_2026-11-20_12.10pm.gpx", "health:iPhone"])
        let one = utc("2026-11-20T04:00:00Z")
        let two = utc("2026-11-20T05:00:00Z")
        #expect(try await bench.store.walking(from: two, to: two.advanced(by: 1)).mapValues(\.metres) == [:])  // only the Watch had 14:00
        await #expect(abs(try bench.store.walking(from: one, to: two).mapValues(\.metres)[one]! - 1000.000032) < 1e-6)
        await #expect {
            try await bench.service.forget(person: nil, source: "health:Apple Watch")
        } throws: { error in
            // The export's one heart-rate sample is stored too, as the source health (docs/REFERENCE.md §18).
            (error as? UnknownActivitySource)?.known == ["gpx:route_2026-11-20_12.10pm.gpx", "health", "health:iPhone"]
        }
    }

    @Test(
        "A hostile or broken file is a typed error and stores nothing",
        arguments: [
            (
                "entity.xml",
                "<?xml version=\"1.0\"?>\n<!DOCTYPE HealthData [\n<!ENTITY xxe SYSTEM \"file:///etc/passwd\">\n]>\n<HealthData>&xxe;</HealthData>\n"
            ),
            ("external.xml", "<?xml version=\"1.0\"?>\n<!DOCTYPE HealthData SYSTEM \"http://example.com/x.dtd\">\n<HealthData/>\n"),
            (
                "bad-late.xml",
                "<HealthData>\n<Record type=\"HKQuantityTypeIdentifierDistanceWalkingRunning\" sourceName=\"iPhone\" unit=\"m\" value=\"5\" startDate=\"2026-11-20 08:00:00 +0900\" endDate=\"2026-11-20 08:10:00 +0900\"/>\n<Record type=\"HKQuantityTypeIdentifierDistanceWalkingRunning\" sourceName=\"iPhone\" unit=\"furlong\" value=\"5\" startDate=\"2026-11-20 09:00:00 +0900\" endDate=\"2026-11-20 09:10:00 +0900\"/>\n</HealthData>\n"
            ),
            (
                "cut.gpx",
                "<gpx version=\"1.1\"><trk><trkseg><trkpt lat=\"37.5\" lon=\"127\"><time>2026-11-20T00:00:00Z</time></trkpt><trkpt lat=\"37.51\" lon=\"127\"><time>2026-11-20T00:10:00Z</time></trkpt>"
            ),
            ("bad.csv", "start,distance_m\n2026-11-20 08:00,100\n2026-11-20 09:00,-1\n"),
            ("notes.csv", "shopping list\n"),
        ])
    func nothingStored(name: String, content: String) async throws {
        let bench = try ImportBench()
        defer { bench.directory.remove() }
        await #expect(throws: ActivityImportFailure.self) { try await bench.service.importFile(atPath: try bench.write(name, content)) }
        #expect(try await bench.store.activitySources().isEmpty)
    }

    @Test("A hostile zip (an entry named ../../x, a truncated zip) stores nothing, not even its good entries")
    func hostileZip() async throws {
        let bench = try ImportBench()
        defer { bench.directory.remove() }
        let bytes = try TestFixtures.data("activity/generated/export.zip")
        let cut = bench.directory.path("cut.zip")
        try bytes.prefix(bytes.count - 40).write(to: URL(fileURLWithPath: cut))
        await #expect {
            try await bench.service.importFile(atPath: cut)
        } throws: { error in
            guard case .file(.unreadableZip) = error as? ActivityImportFailure else { return false }
            return true
        }
        // The fixture with its route renamed to climb out: ZIP names are the same length, so patch them.
        var patched = [UInt8](bytes)
        let name = Array("apple_health_export/workout-routes/route_2026-11-20_12.10pm.gpx".utf8)
        let evil = Array("apple_health_export/workout-routes/../../../../../../../abx.gpx".utf8)
        #expect(name.count == evil.count)
        var replaced = 0
        var index = 0
        while index <= patched.count - name.count {
            if Array(patched[index..<(index + name.count)]) == name {
                patched.replaceSubrange(index..<(index + name.count), with: evil)
                replaced += 1
                index += name.count
            } else {
                index += 1
            }
        }
        #expect(replaced == 2)
        let evilPath = bench.directory.path("evil.zip")
        try Data(patched).write(to: URL(fileURLWithPath: evilPath))
        await #expect(throws: ActivityImportFailure.file(.unsafeZipEntry(name: String(decoding: evil, as: UTF8.self)))) {
            try await bench.service.importFile(atPath: evilPath)
        }
        #expect(try await bench.store.activitySources().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: "/abx.gpx"))
    }

    @Test("A broken workout route among a zip's routes is named with its fault, nothing stored; a zip-wide bound stays the zip's")
    func brokenRouteNamed() async throws {
        let bench = try ImportBench()
        defer { bench.directory.remove() }
        let export = [UInt8](try TestFixtures.data("activity/generated/export.xml"))
        let route = [UInt8](try TestFixtures.data("activity/generated/route-strava-evening.gpx"))
        let broken = Array(String(decoding: route, as: UTF8.self).replacingOccurrences(of: "lat=", with: "lag=").utf8)
        let path = try makeZip(
            [
                ("apple_health_export/export.xml", export),
                ("apple_health_export/workout-routes/route_2026-11-19_6.00pm.gpx", route),
                ("apple_health_export/workout-routes/route_2026-11-20_7.05am.gpx", broken),
            ], in: bench.directory)
        await #expect {
            try await bench.service.importFile(atPath: path)
        } throws: { error in
            guard case .file(.inWorkoutRoute(let named, .invalidTrackPoint)) = error as? ActivityImportFailure else { return false }
            let sentence = String(describing: error)
            let route = "apple_health_export/workout-routes/route_2026-11-20_7.05am.gpx"
            return named == route && sentence.contains("the workout route \"\(route)\" in the zip: line ")
                && sentence.contains("a track point has no lat")
        }
        #expect(try await bench.store.activitySources().isEmpty)

        // A bound of the whole zip stays the zip's, whichever route reached it; a route's own fault is named once.
        let budget = ActivityFileError.zipArchiveTooLarge(.inflatedBytes(1 << 20))
        #expect(ActivityFileError.naming(route: "r.gpx", budget) == budget)
        let named = ActivityFileError.naming(route: "a/r\u{1B}.gpx", .notAGPXFile(root: "kml"))
        #expect(named == .inWorkoutRoute(path: "a/r\u{FFFD}.gpx", .notAGPXFile(root: "kml")))
        #expect(ActivityFileError.naming(route: "b.gpx", named) == named)
    }

    @Test("A FIFO or a directory is refused at once, never waited on; a missing file names the system's reason")
    func notRegular() async throws {
        let bench = try ImportBench()
        defer { bench.directory.remove() }
        let fifo = bench.directory.path("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        await #expect(throws: ActivityImportFailure.cannotOpen(reason: "not a regular file")) {
            try await bench.service.importFile(atPath: fifo)
        }
        await #expect(throws: ActivityImportFailure.cannotOpen(reason: "not a regular file")) {
            try await bench.service.importFile(atPath: bench.directory.url.path)
        }
        await #expect(throws: ActivityImportFailure.cannotOpen(reason: "No such file or directory")) {
            try await bench.service.importFile(atPath: bench.directory.path("absent.zip"))
        }
    }

    @Test("CSV rows stored before v4 become the source csv, and a CSV import still replaces only its own hours")
    func csvSource() async throws {
        let bench = try ImportBench()
        defer { bench.directory.remove() }
        _ = try await bench.service.importFile(
            atPath: try bench.write("first.csv", "start,distance_m\n2026-11-20 08:00,1000\n2026-11-20 09:00,400\n"))
        _ = try await bench.service.importFile(atPath: try bench.write("second.csv", "start,distance_m\n2026-11-20 09:00,450\n"))
        #expect(try await bench.stored() == ["csv": [utc("2026-11-19T23:00:00Z"): 1000, utc("2026-11-20T00:00:00Z"): 450]])
    }
}

@Suite("Activity import bounds", .timeLimit(.minutes(10)))
struct ActivityImportBoundsTests {
    @Test("A file giving distance to more (source, hour) pairs than the bound is refused, nothing stored, memory held at the bound")
    func tooManySourceHours() async throws {
        let directory = try TemporaryDirectory("finedust-activity")
        defer { directory.remove() }
        let store = SQLiteStore.scratch()
        let service = ActivityService(store: store, calendar: seoul, limits: ActivityReaderLimits(maxSourceSlots: 5))
        // Six sources, one hour each.
        var xml = "<HealthData>\n"
        for index in 0..<6 {
            xml +=
                "<Record type=\"HKQuantityTypeIdentifierDistanceWalkingRunning\" sourceName=\"phone \(index)\" unit=\"m\" value=\"10\" startDate=\"2026-11-20 08:00:00 +0900\" endDate=\"2026-11-20 08:10:00 +0900\"/>\n"
        }
        let path = directory.path("many.xml")
        try Data((xml + "</HealthData>\n").utf8).write(to: URL(fileURLWithPath: path))
        await #expect(throws: ActivityImportFailure.file(.tooManySourceHours(limit: 5))) { try await service.importFile(atPath: path) }
        #expect(try await store.activitySources().isEmpty)
        // Five fit.
        let five = directory.path("five.xml")
        try Data((xml.components(separatedBy: "\n").prefix(6).joined(separator: "\n") + "\n</HealthData>\n").utf8).write(
            to: URL(fileURLWithPath: five))
        #expect(try await service.importFile(atPath: five).sources.count == 5)
    }
}

extension ActivityImportBoundsTests {
    @Test("An export with more distinct sourceNames than the bound is refused, nothing stored; a zip's routes are not Health sources")
    func tooManyHealthSources() async throws {
        let directory = try TemporaryDirectory("finedust-activity")
        defer { directory.remove() }
        let store = SQLiteStore.scratch()
        let service = ActivityService(store: store, calendar: seoul, limits: ActivityReaderLimits(maxHealthSources: 4))
        // Five sources, the fifth in the last record: the four before it are not stored either.
        var xml = "<HealthData>\n"
        for index in 0..<5 {
            xml +=
                "<Record type=\"HKQuantityTypeIdentifierDistanceWalkingRunning\" sourceName=\"phone \(index)\" unit=\"m\" value=\"10\" startDate=\"2026-11-20 08:00:00 +0900\" endDate=\"2026-11-20 08:10:00 +0900\"/>\n"
        }
        let path = directory.path("many.xml")
        try Data((xml + "</HealthData>\n").utf8).write(to: URL(fileURLWithPath: path))
        await #expect(throws: ActivityImportFailure.file(.tooManyHealthSources(limit: 4))) { try await service.importFile(atPath: path) }
        #expect(try await store.activitySources().isEmpty)
        // Four fit.
        let four = directory.path("four.xml")
        try Data((xml.components(separatedBy: "\n").prefix(5).joined(separator: "\n") + "\n</HealthData>\n").utf8).write(
            to: URL(fileURLWithPath: four))
        #expect(try await service.importFile(atPath: four).sources.count == 4)
    }
}

extension ActivityImportTests {
    @Test(
        "The import's clock decides what is in the future: records two days after it, in year 1, or 150 km at one instant are skipped, counted, and not stored"
    )
    func implausibleRecordsAreCounted() async throws {
        let bench = try ImportBench()  // now: 2026-11-21T00:00:00Z
        defer { bench.directory.remove() }
        func record(_ value: String, _ start: String, _ end: String) -> String {
            "<Record type=\"HKQuantityTypeIdentifierDistanceWalkingRunning\" sourceName=\"Apple Watch\" unit=\"km\" value=\"\(value)\" startDate=\"\(start)\" endDate=\"\(end)\"/>\n"
        }
        let xml =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"ko_KR\">\n"
            + record("0.5", "2026-11-20 08:00:00 +0900", "2026-11-20 08:10:00 +0900")
            + record("0.5", "2026-11-23 08:00:00 +0900", "2026-11-23 08:10:00 +0900")  // 47 hours after now
            + record("0.5", "0001-01-01 08:00:00 +0900", "0001-01-01 08:10:00 +0900")
            + record("150", "2026-11-20 09:00:00 +0900", "2026-11-20 09:00:00 +0900")  // once stored as 223 km in an hour
            + "</HealthData>\n"
        let summary = try await bench.service.importFile(atPath: try bench.write("export.xml", xml))
        #expect(summary.recordsUsed == 1)
        #expect(summary.datedOutsidePeriod == 2)
        #expect(summary.recordsDropped == 1)
        #expect(try await bench.stored() == ["health:Apple Watch": [utc("2026-11-19T23:00:00Z"): 500]])
    }
}

import DustKit
import DustServices
import DustStore
import Foundation
import TestSupport
import Testing

private let korea = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)
private let now = Date(timeIntervalSince1970: 1_795_219_200)  // 2026-11-21 09:00 KST
private let eight = Slot(startEpochSeconds: 1_795_129_200)  // 2026-11-20 08:00 KST

private func at(_ minutes: Double) -> Date { eight.start.addingTimeInterval(minutes * 60) }

@Suite("Importing for a person (docs/REFERENCE.md §18)", .timeLimit(.minutes(10)))
struct PersonImportTests {
    let store = SQLiteStore.scratch()
    var service: ActivityService {
        ActivityService(store: store, calendar: korea, clock: FixedClock(now), people: ["dad", "민지"])
    }

    @Test("A CSV is stored as the named person's walking; without a name, the first person's")
    func walkingForPerson() async throws {
        let directory = try TemporaryDirectory("finedust-person")
        defer { directory.remove() }
        let path = directory.path("walks.csv")
        try Data("start,distance_m\n2026-11-20 08:00,1500\n".utf8).write(to: URL(fileURLWithPath: path))
        _ = try await service.importFile(atPath: path, person: "민지")
        #expect(try await store.activity(person: "민지", source: "csv") == [eight: 1500])
        #expect(try await store.activity(person: "dad", source: "csv").isEmpty)
        _ = try await service.importFile(atPath: path)
        #expect(try await store.activity(person: "dad", source: "csv") == [eight: 1500])
    }

    @Test("A person and a file named in a Mac's decomposed Hangul are stored as the configured person and one source")
    func decomposedNames() async throws {
        let directory = try TemporaryDirectory("finedust-person")
        defer { directory.remove() }
        let walk = "산책.gpx"
        let decomposed = directory.path(walk.decomposedStringWithCanonicalMapping)
        let composed = directory.path(walk)
        for path in [decomposed, composed] {
            try FileManager.default.copyItem(atPath: TestFixtures.url("activity/demo-walk-jongno-2026-11-20.gpx").path, toPath: path)
        }
        let minji = "민지".decomposedStringWithCanonicalMapping
        #expect(try service.person(minji).utf8.elementsEqual("민지".utf8))
        _ = try await service.importFile(atPath: decomposed, person: minji)
        _ = try await service.importFile(atPath: composed, person: "민지")
        // One person and one source, in the bytes the configuration and every query use.
        let tracks = try await store.positionSummaries()
        #expect(tracks.count == 1 && tracks.map(\.minutes) == [40], "\(tracks)")
        #expect(tracks.allSatisfy { $0.person.utf8.elementsEqual("민지".utf8) && $0.source.utf8.elementsEqual("gpx:산책.gpx".utf8) })
        let walking = try await store.activitySources()
        #expect(walking.count == 1 && walking.allSatisfy { $0.person.utf8.elementsEqual("민지".utf8) })
        // Forgotten by the name as typed on a Mac, too.
        let forgotten = try await service.forget(person: minji, source: "gpx:산책.gpx".decomposedStringWithCanonicalMapping)
        #expect(forgotten.positions == 40 && forgotten.walkingHours == walking[0].slots)
        #expect(try await store.positionSummaries().isEmpty)
        #expect(try await store.activitySources().isEmpty)
    }

    @Test("Rows an older FineDust stored under a decomposed person or source are reached by the person's export and removal")
    func decomposedRowsStoredBefore() async throws {
        let (minji, source) = ("민지".decomposedStringWithCanonicalMapping, "gpx:산책.gpx".decomposedStringWithCanonicalMapping)
        try await store.saveActivity(
            [ActivitySourceBatch(person: minji, source: source, distances: [eight: 800], replacing: nil)], importedAt: now)
        try await store.saveActivity(
            [ActivitySourceBatch(person: "민지", source: "csv", distances: [eight: 300], replacing: nil)], importedAt: now)
        // A Latin name a Mac decomposed too: café as e and U+0301.
        try await store.saveActivity(
            [ActivitySourceBatch(person: minji, source: "gpx:cafe\u{301}.gpx", distances: [eight: 500], replacing: nil)], importedAt: now)
        #expect(try await store.personRecords("민지").walking.count == 3)
        // `activity forget` by the names as `activity sources` shows them (composed) reaches the old rows.
        #expect(try await service.forget(person: "민지", source: "gpx:산책.gpx").walkingHours == 1)
        #expect(try await service.forget(person: "민지", source: "gpx:caf\u{E9}.gpx").walkingHours == 1)
        try await store.saveActivity(
            [ActivitySourceBatch(person: minji, source: source, distances: [eight: 800], replacing: nil)], importedAt: now)
        let removal = try await store.forgetPerson("민지")
        #expect(removal[.walking] == 2)
        #expect(try await store.activitySources().isEmpty)
    }

    @Test("A person who is not configured is refused, naming the configured ones, and nothing is read or stored")
    func unknownPerson() async throws {
        let export = TestFixtures.url("activity/generated-watch/export.zip").path
        await #expect(throws: ActivityImportFailure.unknownPerson(UnknownPerson(name: "mom", configured: ["dad", "민지"]))) {
            _ = try await service.importFile(atPath: export, person: "mom")
        }
        #expect(
            UnknownPerson(name: "mom", configured: ["dad", "민지"]).description
                == "no person \"mom\" is configured; configured people: dad, 민지")
        #expect(try await store.physiologySummaries().isEmpty)
        #expect(try await store.activitySources().isEmpty)
    }

    @Test("A Watch export stores the person's walking, heart rate, resting rates and sleep together, as the source health")
    func watchExport() async throws {
        let export = TestFixtures.url("activity/generated-watch/export.zip").path
        let summary = try await service.importFile(atPath: export, person: "민지")
        #expect(summary.heartRateSamples == 128 && summary.restingRates == 2 && summary.sleepIntervals == 2)
        // Asleep 23:20–02:10 and 02:14–06:40 KST: 170 + 266 minutes; the InBed and Awake records are not sleep.
        #expect(summary.asleepSeconds == (170 + 266) * 60 && summary.notAsleepRecords == 2)
        await #expect(
            try store.physiologySummaries() == [
                PhysiologySummary(
                    person: "민지", source: "health", first: instant("2026-11-18T15:00:12Z"), last: instant("2026-11-20T11:43:00Z"),
                    heartRateSamples: 128, restingRates: 2, sleepIntervals: 2, asleepSeconds: (170 + 266) * 60)
            ])
        #expect(try await store.activitySources().map { "\($0.person) \($0.source)" }.allSatisfy { $0.hasPrefix("민지 ") })
        let night = try await store.physiology(person: "민지", from: instant("2026-11-19T15:00:00Z"), to: instant("2026-11-19T16:00:00Z"))
        #expect(night.sleep == [SleepInterval(start: instant("2026-11-19T14:20:00Z"), end: instant("2026-11-19T17:10:00Z"))])
        await #expect(
            try store.physiology(person: "dad", from: instant("2026-11-19T00:00:00Z"), to: instant("2026-11-21T00:00:00Z"))
                == StoredPhysiology())

        // The same export again replaces, never doubles; the bare export.xml holds the same records.
        _ = try await service.importFile(atPath: TestFixtures.url("activity/generated-watch/export.xml").path, person: "민지")
        #expect(try await store.physiologySummaries().map(\.heartRateSamples) == [128])
    }

    @Test(
        "Heart rate outside 25–250 is dropped; sleep ending before it starts dropped, over 24 h clipped, overlapping merged; each counted")
    func badValues() async throws {
        let directory = try TemporaryDirectory("finedust-person")
        defer { directory.remove() }
        let path = directory.path("export.xml")
        func record(_ type: String, _ start: String, _ end: String, _ value: String, unit: String? = "count/min") -> String {
            let unitText = unit.map { " unit=\"\($0)\"" } ?? ""
            return
                #" <Record type="\#(type)" sourceName="Apple Watch"\#(unitText) startDate="\#(start)" endDate="\#(end)" value="\#(value)"/>"#
        }
        func heart(_ value: Int, minute: Int) -> String {
            let time = String(format: "2026-11-20 08:%02d:00 +0900", minute)
            return record("HKQuantityTypeIdentifierHeartRate", time, time, String(value))
        }
        func sleep(_ start: String, _ end: String, _ value: String = "AsleepCore") -> String {
            record("HKCategoryTypeIdentifierSleepAnalysis", start, end, "HKCategoryValueSleepAnalysis" + value, unit: nil)
        }
        let lines =
            [24, 25, 120, 250, 251].enumerated().map { heart($0.element, minute: $0.offset) } + [
                record("HKQuantityTypeIdentifierRestingHeartRate", "2026-11-20 00:00:05 +0900", "2026-11-20 23:59:00 +0900", "58"),
                record("HKQuantityTypeIdentifierRestingHeartRate", "2026-11-19 00:00:05 +0900", "2026-11-19 23:59:00 +0900", "0"),
                sleep("2026-11-19 22:00:00 +0900", "2026-11-20 03:00:00 +0900"),
                sleep("2026-11-20 02:00:00 +0900", "2026-11-20 06:00:00 +0900"),  // overlaps: merged into 22:00–06:00
                sleep("2026-11-20 07:10:00 +0900", "2026-11-20 07:05:00 +0900"),  // ends before it starts
                sleep("2026-11-20 09:00:00 +0900", "2026-11-21 15:00:00 +0900"),  // 30 h: clipped to 24
                sleep("2026-11-20 07:00:00 +0900", "2026-11-20 07:30:00 +0900", "InBed"),  // not sleep
            ]
        let xml =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"ko_KR\">\n" + lines.joined(separator: "\n")
            + "\n</HealthData>\n"
        try Data(xml.utf8).write(to: URL(fileURLWithPath: path))
        let summary = try await service.importFile(atPath: path, person: "dad")
        #expect(summary.heartRateSamples == 3 && summary.restingRates == 1 && summary.heartRateOutOfRange == 3)
        #expect(summary.sleepIntervals == 2 && summary.sleepDropped == 1 && summary.sleepClipped == 1 && summary.sleepOverlapsMerged == 1)
        #expect(summary.notAsleepRecords == 1)
        let stored = try await store.physiology(person: "dad", from: instant("2026-11-19T12:00:00Z"), to: instant("2026-11-21T12:00:00Z"))
        #expect(stored.heartRate.map(\.beatsPerMinute) == [25, 120, 250])
        #expect(
            stored.sleep == [
                SleepInterval(start: instant("2026-11-19T13:00:00Z"), end: instant("2026-11-19T21:00:00Z")),
                SleepInterval(start: instant("2026-11-20T00:00:00Z"), end: instant("2026-11-21T00:00:00Z")),
            ])
    }

    @Test("forget for a person removes their walking and body records only; me's history goes to the first person once")
    func forgetAndAdopt() async throws {
        try await store.saveCSVWalking([eight: 700], importedAt: now)  // stored before people: was configured
        #expect(try await service.giveStoredHistoryToFirstPerson() == 1)
        #expect(try await service.giveStoredHistoryToFirstPerson() == 0)
        #expect(try await store.walking(person: "dad", from: eight, to: eight.advanced(by: 1))[eight]?.metres == 700)
        _ = try await service.importFile(atPath: TestFixtures.url("activity/generated-watch/export.xml").path, person: "민지")
        // 128 heart rates, 2 resting rates and 2 sleep intervals of the source health; the walking stays.
        #expect(try await service.forget(person: "민지", source: "health") == ForgottenActivity(walkingHours: 0, bodyRecords: 132))
        #expect(try await store.physiologySummaries().isEmpty)
        // The Watch's 12:00, 13:00 and 14:00 and the iPhone's 12:00 and 13:00.
        #expect(try await service.forget(person: "민지", source: nil) == ForgottenActivity(walkingHours: 5, bodyRecords: 0))
        await #expect(throws: UnknownActivitySource.self) { _ = try await service.forget(person: "민지", source: nil) }
        #expect(try await store.walking(person: "dad", from: eight, to: eight.advanced(by: 1)).count == 1)
    }
}

private func instant(_ iso: String) -> Date { ISO8601DateFormatter().date(from: iso)! }

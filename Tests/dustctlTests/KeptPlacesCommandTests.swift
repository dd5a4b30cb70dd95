import DustKit
import DustServices
import DustStore
import Foundation
import TestSupport
import Testing

@Suite("dustctl activity import keeps the weighed hours of the tracks it stores (docs/REFERENCE.md §19)", .timeLimit(.minutes(10)))
struct KeptPlacesCommandTests {
    @Test("after jiho's walk is imported again, his 2026-11-20 is kept hour by hour, and day --json says what the unkept database says")
    func importKeepsPlaces() async throws {
        let directory = try TemporaryDirectory("finedust-kept-places")
        defer { directory.remove() }
        let household = TestFixtures.url(DemoReplay.householdConfigurationFile).path
        // Two demo databases: one as the demo leaves it (nothing kept), one where the walk is imported again.
        let unkept = try await demoDatabase(directory)
        let keptDirectory = try TemporaryDirectory("finedust-kept-places-2")
        defer { keptDirectory.remove() }
        let kept = try await demoDatabase(keptDirectory)
        let walk = TestFixtures.url(DemoReplay.walkFile).path
        let imported = try await dustctl("activity", "import", walk, "--person", "jiho", "--config", household, "--db", kept, "--quiet")
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(imported.standardError.isEmpty)

        let store = try SQLiteStore(path: kept, mode: .readOnly)
        let calendar = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)
        let slots = calendar.slots(of: DemoReplay.lastDay)
        let inputs = SlotPlace.inputs(radiusKilometres: DemoReplay.locationRadiusKilometres, home: nil)
        // Every hour of the day 종로구 reported, one place each; 15:00 holds the walk's 40 positions.
        let (places, hours) = try await DemoReplay.keptPlacesOfLastDay("jiho", in: store)
        #expect(places.map(\.slot) == hours)
        let fifteen = try #require(places.first { $0.slot == slots[15] })
        #expect(SlotPlace(bytes: fifteen.bytes, slot: fifteen.slot)?.track.positions.count == 40)

        // dustctl import of a revised 23:00 (PM10 45 → 95) forgets that hour's places and keeps it again at once.
        let generation = try await store.placeGeneration()
        let daily = try String(contentsOf: TestFixtures.url("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"), encoding: .utf8)
        let revised = directory.path("revised.xml")
        try daily.replacingOccurrences(of: "<pm10Value>45</pm10Value>", with: "<pm10Value>95</pm10Value>")
            .write(toFile: revised, atomically: true, encoding: .utf8)
        let reimported = try await dustctl("import", revised, "--config", household, "--db", kept)
        #expect(
            reimported.status == 0 && reimported.standardOutput.contains("1 revised"),
            "\(reimported.standardOutput)\(reimported.standardError)")
        #expect(try await store.placeGeneration() > generation)
        let again = try await DemoReplay.keptPlacesOfLastDay("jiho", in: store).places
        #expect(again.map(\.slot) == hours)
        // The same readings into the unkept database, without the household's configuration: nothing is kept there.
        #expect(try await dustctl("import", revised, "--db", unkept).status == 0)
        await #expect(
            try SQLiteStore(path: unkept, mode: .readOnly).slotPlaces(person: "jiho", inputs: inputs, from: slots[0], to: slots[23]).isEmpty
        )

        for arguments in [["day", "2026-11-20", "--person", "jiho", "--json"], ["week", "--end", "2026-11-20", "--everyone", "--json"]] {
            let read = try await dustctl(arguments + ["--config", household, "--db", kept])
            let weighed = try await dustctl(arguments + ["--config", household, "--db", unkept])
            #expect(read.status == 0 && weighed.status == 0, "\(read.standardError)\(weighed.standardError)")
            #expect(read.standardOutput.replacingOccurrences(of: kept, with: unkept) == weighed.standardOutput, "\(arguments)")
            if arguments[0] == "day" { #expect(read.standardOutput.contains("\"kind\":\"track\"")) }
        }
    }

    @Test("Without people: the walk imported as me's is kept at once, and day --json says what weighing it afresh says")
    func importKeepsMe() async throws {
        let directory = try TemporaryDirectory("finedust-kept-me")
        defer { directory.remove() }
        // An installation without `people:`: its one person is `me`. The same walk into two demo
        // databases, one imported where location follows no one (nothing kept), read the same way.
        let nation = directory.path("nation.yaml")
        try "station:\n  name: 종로구\n  mode: nation\n".write(toFile: nation, atomically: true, encoding: .utf8)
        let single = directory.path("single.yaml")
        try "station:\n  name: 종로구\n".write(toFile: single, atomically: true, encoding: .utf8)
        let keptDirectory = try TemporaryDirectory("finedust-kept-me-2")
        defer { keptDirectory.remove() }
        let (kept, unkept) = (try await demoDatabase(keptDirectory), try await demoDatabase(directory))
        let walk = TestFixtures.url(DemoReplay.walkFile).path
        for (config, db) in [(nation, kept), (single, unkept)] {
            let imported = try await dustctl("activity", "import", walk, "--config", config, "--db", db, "--quiet")
            #expect(imported.status == 0 && imported.standardError.isEmpty, "\(imported.standardError)")
        }

        let (places, hours) = try await DemoReplay.keptPlacesOfLastDay("me", in: SQLiteStore(path: kept, mode: .readOnly))
        #expect(!hours.isEmpty)
        #expect(places.map(\.slot) == hours)
        #expect(try await DemoReplay.keptPlacesOfLastDay("me", in: SQLiteStore(path: unkept, mode: .readOnly)).places.isEmpty)

        let read = try await dustctl("day", "2026-11-20", "--json", "--config", nation, "--db", kept)
        let weighed = try await dustctl("day", "2026-11-20", "--json", "--config", nation, "--db", unkept)
        #expect(read.status == 0 && weighed.status == 0, "\(read.standardError)\(weighed.standardError)")
        #expect(read.standardOutput.contains("\"kind\":\"track\""))
        #expect(read.standardOutput.replacingOccurrences(of: kept, with: unkept) == weighed.standardOutput)
    }
}

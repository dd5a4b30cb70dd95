import DustKit
import DustServices
import Foundation
import GRDB
import TestSupport
import Testing

@testable import DustStore

private let eight = Slot(startEpochSeconds: 1_795_129_200)  // 2026-11-20 08:00 KST
private let imported = Date(timeIntervalSince1970: 1_795_219_200)

/// Two people's records of every kind: dad's and 민지's, each hour of `hours` walked, a heart rate
/// each minute of the first hour, a resting rate, a night's sleep, positions and kept places.
private func seed(_ store: any FineDustStore, hours: Int = 3) async throws {
    for (person, metres) in [("dad", 800.0), ("민지", 300.0)] {
        let slots = (0..<hours).map { eight.advanced(by: $0) }
        let start = eight.start
        try await store.saveImport(
            walking: [
                ActivitySourceBatch(
                    person: person, source: "gpx:walk.gpx", distances: Dictionary(uniqueKeysWithValues: slots.map { ($0, metres) }),
                    replacing: nil)
            ],
            body: [
                PhysiologyBatch(
                    person: person, source: "health",
                    heartRate: HeartRateSeries(
                        (0..<60).map { HeartRateSample(at: start.addingTimeInterval(Double($0) * 60), beatsPerMinute: 80) }),
                    restingHeartRate: [RestingHeartRateSample(at: start, beatsPerMinute: 58)],
                    sleep: [SleepInterval(start: start.addingTimeInterval(-8 * 3600), end: start.addingTimeInterval(-3600))])
            ],
            positions: [
                PositionBatch(
                    person: person, source: "gpx:walk.gpx",
                    minutes: TrackMinutes(
                        (0..<(hours * 60)).map {
                            TrackPoint(at: start.addingTimeInterval(Double($0) * 60), latitude: 37.57, longitude: 126.98)
                        }),
                    replacing: nil)
            ], importedAt: imported)
        let generation = try await store.placeGeneration()
        #expect(
            try await store.keepSlotPlaces(
                slots.map { KeptSlotPlace(slot: $0, bytes: [1]) }, person: person, inputs: "v1", generation: generation))
        _ = try await store.saveAlertTransition(
            rule: "intake.today.pm25 >= 100 for \(person)", state: .active,
            event: AlertEvent(
                kind: .fired, rule: "intake.today.pm25 >= 100", metric: .intakeTodayPM25, value: 120, station: "종로구", at: start,
                people: [person]),
            at: start)
    }
    // An event about both: it stays the other's when one is forgotten.
    _ = try await store.saveAlertEvent(
        AlertEvent(
            kind: .fired, rule: "pm25.grade >= 3", metric: .pm25Grade, value: 3, station: "종로구", at: eight.start, people: ["dad", "민지"]))
}

@Suite("A person's data as a whole: export, forget, retention, on every engine", .timeLimit(.minutes(10)))
struct PersonDataContractTests {
    @Test("person export holds every record of theirs and none of anyone else's", arguments: Backend.allCases)
    func export(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            try await seed(store)
            let dad = try await store.personRecords("dad")
            #expect(dad.walking.count == 3 && dad.walking.allSatisfy { $0.metres == 800 })
            #expect(dad.heartRate.count == 60 && dad.restingHeartRate.count == 1 && dad.sleep.count == 1)
            #expect(dad.positions.count == 180 && dad.positions.first?.minute == eight.startEpochSeconds)
            #expect(dad.alerts.map(\.rule) == ["intake.today.pm25 >= 100 for dad", "pm25.grade >= 3 for dad, 민지"])
            #expect(try await store.personRecords("mom") == PersonRecords())
        }
    }

    @Test(
        "person forget removes every row of theirs in every table, in one go, and says how many; the other person keeps all of theirs",
        arguments: Backend.allCases)
    func forget(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            try await seed(store)
            let before = try await store.personRecords("민지")
            let removal = try await store.forgetPerson("dad")
            #expect(
                removal.counts == [
                    .walking: 3, .heartRate: 60, .restingHeartRate: 1, .sleep: 1, .positions: 180, .keptPlaces: 3, .alertStates: 1,
                    .alertEvents: 2,
                ])
            #expect(removal.summary.hasPrefix("3 walking slots, 60 heart-rate samples"))
            #expect(try await store.personRecords("dad") == PersonRecords())
            #expect(try await store.slotPlaces(person: "dad", inputs: "v1", from: eight, to: eight.advanced(by: 3)).isEmpty)
            #expect(try await store.alertStates().keys.sorted() == ["intake.today.pm25 >= 100 for 민지"])
            // 민지's records are all there; the shared event now names her alone.
            var after = try await store.personRecords("민지")
            #expect(after.alerts.map(\.rule) == ["intake.today.pm25 >= 100 for 민지", "pm25.grade >= 3 for 민지"])
            after.alerts = before.alerts
            #expect(after == before)
            #expect(try await store.slotPlaces(person: "민지", inputs: "v1", from: eight, to: eight.advanced(by: 3)).count == 3)
            #expect(try await store.forgetPerson("dad").total == 0)
        }
    }

    @Test("A forgotten person's records leave no bytes in the SQLite file: not in a free page, not in a page's unused space")
    func forgetLeavesNoBytes() async throws {
        let directory = try TemporaryDirectory("finedust-forget")
        defer { directory.remove() }
        let path = directory.path("forget.sqlite")
        let store = try SQLiteStore(path: path)
        try await seed(store)
        // A source name no other row holds, in a heart-rate series of a day: pages of their own.
        let marker = "watch-of-dad-7f3a9c2e"
        let start = eight.start
        try await store.saveImport(
            walking: [],
            body: [
                PhysiologyBatch(
                    person: "dad", source: marker,
                    heartRate: HeartRateSeries(
                        (0..<1440).map { HeartRateSample(at: start.addingTimeInterval(Double($0) * 60), beatsPerMinute: 70) }),
                    restingHeartRate: [], sleep: [])
            ], positions: [], importedAt: imported)
        func fileHolds(_ text: String) throws -> Bool {
            _ = try store.pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            return bytes.range(of: Data(text.utf8)) != nil
        }
        #expect(try fileHolds(marker))
        #expect(try await store.forgetPerson("dad")[.heartRate] == 60 + 1440)
        #expect(try !fileHolds(marker), "the forgotten source's bytes are still in the file")
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test(
        "Retention removes positions before the cutoff and the kept places of those hours, every person's, nothing else",
        arguments: Backend.allCases)
    func retention(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            try await seed(store)
            // Kept for a day, counted back from 2026-11-21 09:30.
            let retention = Retention(keeping: 86_400, at: eight.start.addingTimeInterval(86_400 + 90 * 60))
            // No hour of AirKorea's stored: nothing vouches for the clock, nothing goes.
            #expect(try await store.prunePositions(retention).total == 0)
            // The next day's 09:00–10:00 is stored, so the clock is believed: the cutoff is 09:30, the 90
            // minutes before go, and the places of 08:00 and 09:00 (whose positions they were, and
            // 09:29's reaches 09:30).
            _ = try await store.saveReadings(
                [HourlyReading(station: "종로구", slot: eight.advanced(by: 25), concentration: DustPair(fineDust: 40, ultraFineDust: 20))],
                fetchedAt: imported)
            let removal = try await store.prunePositions(retention)
            #expect(removal[.positions] == 180)
            #expect(removal[.keptPlaces] == 4)
            for person in ["dad", "민지"] {
                let records = try await store.personRecords(person)
                #expect(records.positions.count == 90)
                #expect(records.positions.first?.minute == eight.startEpochSeconds + 90 * 60)
                #expect(records.walking.count == 3 && records.heartRate.count == 60)
                #expect(
                    try await store.slotPlaces(person: person, inputs: "v1", from: eight, to: eight.advanced(by: 3)).map(\.slot) == [
                        eight.advanced(by: 2)
                    ])
            }
            #expect(try await store.prunePositions(retention).total == 0)
        }
    }

    @Test(
        "A clock two years ahead removes no position the stored hours call recent: the cutoff counts back from AirKorea's newest hour",
        arguments: Backend.allCases)
    func retentionClockAhead(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            try await seed(store)
            // The newest stored hour is 10:00–11:00, the positions 08:00–11:00; a Pi's clock is two years
            // ahead, and 400 days counted from it would take them all.
            _ = try await store.saveReadings(
                [HourlyReading(station: "종로구", slot: eight.advanced(by: 2), concentration: DustPair(fineDust: 40, ultraFineDust: 20))],
                fetchedAt: imported)
            let ahead = eight.start.addingTimeInterval(2 * 365 * 86_400)
            #expect(try await store.prunePositions(Retention(days: 400, at: ahead)).total == 0)
            for person in ["dad", "민지"] { #expect(try await store.personRecords(person).positions.count == 180) }
            // The same pass on a clock that agrees with the data keeps them as well; a retention of two
            // hours from the newest hour's end (11:00) removes 08:00–09:00 (60 minutes) and its place only.
            let removal = try await store.prunePositions(Retention(keeping: 2 * 3600, at: ahead))
            #expect(removal[.positions] == 120)
            #expect(try await store.personRecords("dad").positions.first?.minute == eight.startEpochSeconds + 3600)
        }
    }
}

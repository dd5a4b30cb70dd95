import DustKit
import DustServices
import Foundation
import GRDB
import TestSupport
import Testing

@testable import DustStore

private let eight = Slot(startEpochSeconds: 1_795_129_200)  // 2026-11-20 08:00 KST
private let imported = Date(timeIntervalSince1970: 1_795_219_200)

private func at(_ minutes: Double) -> Date { eight.start.addingTimeInterval(minutes * 60) }

@Suite("Storage per person (docs/REFERENCE.md §18)", .timeLimit(.minutes(10)))
struct PeopleStoreTests {
    @Test("v11 gives the walking stored before it to me, times kept, and creates the physiology tables")
    func migration() async throws {
        let directory = try TemporaryDirectory("finedust-v11")
        defer { directory.remove() }
        let path = directory.path("db.sqlite")
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v10-weekly-outlook")
        try await queue.write { db in
            try db.execute(
                sql: "INSERT INTO activity_source (source, slot_start, distance_m, imported_at) VALUES (?, ?, ?, ?)",
                arguments: ["health:iPhone", eight.startEpochSeconds, 1200, 1_795_000_000])
        }
        try queue.close()

        let store = try SQLiteStore(path: path)
        #expect(
            try await store.activitySources() == [
                ActivitySourceSummary(person: "me", source: "health:iPhone", firstSlot: eight, lastSlot: eight, slots: 1, metres: 1200)
            ])
        #expect(try await store.walking(person: "me", from: eight, to: eight.advanced(by: 1))[eight]?.metres == 1200)
        let tables = try store.synchronousRead { db in
            try ["heart_rate", "resting_heart_rate", "sleep_interval"].filter { try db.tableExists($0) }
        }
        #expect(tables.count == 3)
    }

    @Test(
        "A sign-out counts once per count it expects: two at once from one cookie are one; without a count, each is one",
        arguments: Backend.allCases)
    func signOutsCounted(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            // No row yet is a count of 0: the first insert is the sign-out, a second expecting 0 meets the conflict.
            try await store.revokeSessions(of: "p:dad", at: imported, ifCount: 0)
            try await store.revokeSessions(of: "p:dad", at: imported, ifCount: 0)
            #expect(try await store.sessionRevocations()["p:dad"]?.count == 1)
            try await store.revokeSessions(of: "p:dad", at: imported.addingTimeInterval(5), ifCount: 1)
            try await store.revokeSessions(of: "p:dad", at: imported.addingTimeInterval(9), ifCount: 1)
            let dad = try #require(try await store.sessionRevocations()["p:dad"])
            #expect(dad.count == 2 && dad.last == imported.addingTimeInterval(5), "the stale one wrote nothing")
            // dustctl person signout: one more whatever the count.
            try await store.revokeSessions(of: "p:dad", at: imported.addingTimeInterval(20))
            try await store.revokeSessions(of: "p:dad", at: imported.addingTimeInterval(21))
            #expect(try await store.sessionRevocations()["p:dad"]?.count == 4)
            #expect(try await store.sessionRevocations()["p:민지"] == nil)
        }
    }

    @Test("Walking is kept per person: one's import, sources and forget never touch another's", arguments: Backend.allCases)
    func walkingPerPerson(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            let nine = eight.advanced(by: 1)
            try await store.saveActivity(
                [
                    ActivitySourceBatch(person: "dad", source: "health:iPhone", distances: [eight: 1000], replacing: eight...eight),
                    ActivitySourceBatch(
                        person: "민지", source: "health:iPhone", distances: [eight: 300, nine: 200], replacing: eight...nine),
                ], importedAt: imported)
            #expect(try await store.walking(person: "dad", from: eight, to: nine.advanced(by: 1)).mapValues(\.metres) == [eight: 1000])
            #expect(
                try await store.walking(person: "민지", from: eight, to: nine.advanced(by: 1)).mapValues(\.metres) == [eight: 300, nine: 200])
            #expect(try await store.walking(from: eight, to: nine.advanced(by: 1)).isEmpty)  // me has none
            #expect(
                try await store.activitySources().map { "\($0.person) \($0.source) \($0.slots)" } == [
                    "dad health:iPhone 1", "민지 health:iPhone 2",
                ])
            // 민지's shorter re-import replaces her rows over its span only, and not dad's.
            try await store.saveActivity(
                [ActivitySourceBatch(person: "민지", source: "health:iPhone", distances: [nine: 250], replacing: nine...nine)],
                importedAt: imported)
            #expect(
                try await store.walking(person: "민지", from: eight, to: nine.advanced(by: 1)).mapValues(\.metres) == [eight: 300, nine: 250])
            #expect(try await store.forgetActivity(person: "민지", source: nil) == 2)
            #expect(try await store.forgetActivity(person: "민지", source: nil) == 0)
            #expect(try await store.walking(person: "dad", from: eight, to: nine).mapValues(\.metres) == [eight: 1000])
        }
    }

    @Test(
        "Heart rate, resting rates and sleep: saved per person, read for a span, replaced over a re-import's span",
        arguments: Backend.allCases)
    func physiology(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            let batch = PhysiologyBatch(
                person: "dad", source: "health:Apple Watch",
                heartRate: HeartRateSeries([-20, -5, 10, 30, 70].map { HeartRateSample(at: at($0), beatsPerMinute: 100 + $0) }),
                restingHeartRate: [
                    RestingHeartRateSample(at: at(-2 * 24 * 60), beatsPerMinute: 61),
                    RestingHeartRateSample(at: at(-24 * 60), beatsPerMinute: 62),
                    RestingHeartRateSample(at: at(20), beatsPerMinute: 63),
                ],
                sleep: [SleepInterval(start: at(-8 * 60), end: at(15)), SleepInterval(start: at(50), end: at(65))])
            batch.span.map { #expect($0 == at(-2 * 24 * 60)...at(70)) }
            for _ in 0..<2 { try await store.saveImport(walking: [], body: [batch], importedAt: imported) }
            try await store.saveImport(
                walking: [],
                body: [
                    PhysiologyBatch(
                        person: "민지", source: "health:iPhone", heartRate: HeartRateSeries([HeartRateSample(at: at(10), beatsPerMinute: 90)])
                    )
                ],
                importedAt: imported)

            let slot = try await store.physiology(person: "dad", from: eight.start, to: eight.end)
            // From 10 minutes before the slot (−5 may cover its start; −20 cannot), up to its end.
            #expect(slot.heartRate == [-5, 10, 30].map { HeartRateSample(at: at($0), beatsPerMinute: 100 + $0) })
            // The newest resting rate on or before the start, then those inside.
            #expect(slot.restingHeartRate.map(\.beatsPerMinute) == [62, 63])
            #expect(slot.sleep == [SleepInterval(start: at(-8 * 60), end: at(15)), SleepInterval(start: at(50), end: at(65))])
            #expect(try await store.physiology(person: "민지", from: eight.start, to: eight.end).heartRate.map(\.beatsPerMinute) == [90])
            #expect(
                try await store.physiologySummaries() == [
                    PhysiologySummary(
                        person: "dad", source: "health:Apple Watch", first: at(-2 * 24 * 60), last: at(70), heartRateSamples: 5,
                        restingRates: 3, sleepIntervals: 2, asleepSeconds: (8 * 60 + 15 + 15) * 60),
                    PhysiologySummary(
                        person: "민지", source: "health:iPhone", first: at(10), last: at(10), heartRateSamples: 1, restingRates: 0,
                        sleepIntervals: 0, asleepSeconds: 0),
                ])

            // A re-import covering 0…40 minutes replaces the Watch's records there and keeps the rest.
            try await store.saveImport(
                walking: [],
                body: [
                    PhysiologyBatch(
                        person: "dad", source: "health:Apple Watch",
                        heartRate: HeartRateSeries([HeartRateSample(at: at(25), beatsPerMinute: 140)]),
                        replacing: at(0)...at(40))
                ], importedAt: imported)
            #expect(
                try await store.physiology(person: "dad", from: eight.start, to: eight.end).heartRate.map(\.beatsPerMinute) == [95, 140])
            #expect(try await store.forgetPhysiology(person: "dad", source: "health:iPhone") == 0)
            // 4 heart rates; 3 resting and 2 sleep: the re-import held none of those kinds, so it replaced none.
            #expect(try await store.forgetPhysiology(person: "dad", source: nil) == 9)
            #expect(try await store.physiologySummaries().map(\.person) == ["민지"])
        }
    }

    @Test(
        "A second device's export replaces only the kinds it holds, and a night it holds replaces every stored night it overlaps",
        arguments: Backend.allCases)
    func secondExport(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            let source = PhysiologyBatch.healthSource
            // The Watch: heart rate every 10 minutes for a day, and the night 23:00 (the day before) to 07:00.
            var watch = PhysiologyBatch(
                person: "dad", source: source,
                heartRate: HeartRateSeries(
                    stride(from: -8 * 60, to: 16 * 60, by: 10).map { HeartRateSample(at: at($0), beatsPerMinute: 70) }),
                sleep: [SleepInterval(start: at(-9 * 60), end: at(-60))])
            watch.replacing = watch.span
            try await store.saveImport(walking: [], body: [watch], importedAt: imported)
            // Another phone's export: a chest strap's heart rate from 22:00 the day before to 09:00, no sleep at all.
            var strap = PhysiologyBatch(
                person: "dad", source: source,
                heartRate: HeartRateSeries([-10 * 60, 0, 60].map { HeartRateSample(at: at($0), beatsPerMinute: 120) }))
            strap.replacing = strap.span
            try await store.saveImport(walking: [], body: [strap], importedAt: imported)
            let day = try await store.physiology(person: "dad", from: at(-10 * 60), to: at(16 * 60))
            // The night stays (it was removed with every kind over the strap's span before, though the strap held no sleep).
            #expect(day.sleep == [SleepInterval(start: at(-9 * 60), end: at(-60))])
            #expect(day.heartRate.filter { $0.beatsPerMinute == 120 }.count == 3)
            // Sleep Cycle's night from 00:30 (the day before) to 07:00 overlaps the Watch's, begun earlier: it replaces it, not
            // beside it (a night read as 14.5 hours asleep).
            var cycle = PhysiologyBatch(person: "dad", source: source, sleep: [SleepInterval(start: at(-7 * 60 - 30), end: at(-60))])
            cycle.replacing = cycle.span
            try await store.saveImport(walking: [], body: [cycle], importedAt: imported)
            #expect(
                try await store.physiology(person: "dad", from: at(-10 * 60), to: at(16 * 60)).sleep == [
                    SleepInterval(start: at(-7 * 60 - 30), end: at(-60))
                ])
        }
    }

    @Test("movePerson hands me's rows to the first person once, and never onto someone who has rows", arguments: Backend.allCases)
    func move(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            try await store.saveCSVWalking([eight: 500], importedAt: imported)
            try await store.saveImport(
                walking: [],
                body: [PhysiologyBatch(person: "me", source: "health:Apple Watch", sleep: [SleepInterval(start: at(0), end: at(30))])],
                importedAt: imported)
            try await store.saveActivity(
                [ActivitySourceBatch(person: "kid", source: "csv", distances: [eight: 100], replacing: nil)], importedAt: imported)
            #expect(try await store.movePerson(from: "me", to: "kid") == 0)
            #expect(try await store.movePerson(from: "me", to: "dad") == 2)
            #expect(try await store.movePerson(from: "me", to: "dad") == 0)
            #expect(try await store.walking(person: "dad", from: eight, to: eight.advanced(by: 1))[eight]?.metres == 500)
            #expect(try await store.physiology(person: "dad", from: eight.start, to: eight.end).sleep.count == 1)
            #expect(try await store.activitySources().map(\.person) == ["dad", "kid"])
        }
    }
}

import DustKit
import DustServices
import Foundation
import TestSupport
import Testing

private let korea = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)
private let now = Date(timeIntervalSince1970: 1_795_219_200)  // 2026-11-21 09:00 KST
private let eight = Slot(startEpochSeconds: 1_795_129_200)  // 2026-11-20 08:00 KST

private func at(_ minutes: Double) -> Date { eight.start.addingTimeInterval(minutes * 60) }

@Suite("Importing for a person (docs/REFERENCE.md §18)")
struct PersonImportTests {
    let store = MemoryStore()
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
        #expect(try store.activity(person: "민지", source: "csv") == [eight: 1500])
        #expect(try store.activity(person: "dad", source: "csv").isEmpty)
        _ = try await service.importFile(atPath: path)
        #expect(try store.activity(person: "dad", source: "csv") == [eight: 1500])
    }

    @Test("A person who is not configured is refused, naming the configured ones, and nothing is stored")
    func unknownPerson() async throws {
        await #expect(throws: ActivityImportFailure.unknownPerson(UnknownPerson(name: "mom", configured: ["dad", "민지"]))) {
            _ = try await service.importPhysiology([PhysiologyRecords(source: "health:Apple Watch")], person: "mom")
        }
        #expect(
            UnknownPerson(name: "mom", configured: ["dad", "민지"]).description
                == "no person \"mom\" is configured; configured people: dad, 민지")
        #expect(try store.physiologySummaries().isEmpty)
    }

    @Test(
        "Heart rate outside 25–250 is dropped; sleep ending before it starts dropped, over 24 h clipped, overlapping joined; each counted")
    func badValues() async throws {
        let records = PhysiologyRecords(
            source: "health:Apple Watch",
            heartRate: [24, 25, 120, 250, 251].enumerated().map { HeartRateSample(at: at(Double($0.offset)), beatsPerMinute: $0.element) },
            restingHeartRate: [
                RestingHeartRateSample(at: at(0), beatsPerMinute: 58), RestingHeartRateSample(at: at(1), beatsPerMinute: 0),
            ],
            sleep: [
                SleepInterval(start: at(-600), end: at(-300)), SleepInterval(start: at(-400), end: at(-200)),  // overlap: joined
                SleepInterval(start: at(10), end: at(5)),  // ends before it starts
                SleepInterval(start: at(100), end: at(100 + 30 * 60)),  // 30 h: clipped to 24
            ])
        let summary = try await service.importPhysiology([records], person: "dad")
        #expect(summary.heartRateSamples == 3 && summary.restingRates == 1 && summary.heartRateDropped == 3)
        #expect(summary.sleepIntervals == 2 && summary.sleepDropped == 1 && summary.sleepClipped == 1 && summary.sleepOverlapsJoined == 1)
        let stored = try store.physiology(person: "dad", from: at(-600), to: at(2000))
        #expect(stored.heartRate.map(\.beatsPerMinute) == [25, 120, 250])
        #expect(stored.sleep == [SleepInterval(start: at(-600), end: at(-200)), SleepInterval(start: at(100), end: at(100 + 24 * 60))])
    }

    @Test("forget for a person removes their walking and body records only; me's history goes to the first person once")
    func forgetAndAdopt() async throws {
        try await store.saveCSVWalking([eight: 700], importedAt: now)  // stored before people: was configured
        #expect(try await service.giveStoredHistoryToFirstPerson() == 1)
        #expect(try await service.giveStoredHistoryToFirstPerson() == 0)
        #expect(try store.walking(person: "dad", from: eight, to: eight.advanced(by: 1))[eight]?.metres == 700)
        _ = try await service.importPhysiology(
            [PhysiologyRecords(source: "health:Apple Watch", heartRate: [HeartRateSample(at: at(5), beatsPerMinute: 90)])], person: "민지")
        #expect(try await service.forget(person: "민지", source: nil) == 1)
        await #expect(throws: UnknownActivitySource.self) { _ = try await service.forget(person: "민지", source: nil) }
        #expect(try store.walking(person: "dad", from: eight, to: eight.advanced(by: 1)).count == 1)
    }
}

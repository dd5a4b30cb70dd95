import DustKit
import DustServices
import Foundation
import TestSupport
import Testing

@Suite("StatisticsService per person (docs/REFERENCE.md §18)", .timeLimit(.minutes(10)))
struct PersonStatisticsTests {
    /// 2026-11-20 at `hour` KST.
    func slot(_ hour: Int) -> Slot { Scratch.slot(november20, hour: hour) }

    func service(_ scratch: Scratch, _ person: Person) throws -> StatisticsService {
        StatisticsService(
            readings: scratch.store, activity: scratch.store, clock: FixedClock(DemoReplay.now), calendar: seoul,
            intakeModel: try VentilationIntakeModel(), stations: StationPreference(primary: "종로구"), physiology: scratch.store
        ).forPerson(person)
    }

    @Test("A child of 8 and an adult of 40 on the same 종로구 hours: each their age's rates")
    func childAndAdult() async throws {
        let scratch = try Scratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let child = try await service(scratch, Person(name: "민지", born: BirthMonth("2018-03"), station: "종로구")).day(november20)
        let adult = try await service(scratch, Person(name: "dad", born: BirthMonth("1986-01"), station: "종로구")).day(november20)
        // 10:00 (58 µg/m³) is sedentary indoors: 6–10 breathe 4.8E-03 m³/min, 31–40 4.3E-03; F = 0.7.
        #expect(abs(child.hourly[10].intake.fineDust! - 58 * 0.288 * 0.7) < 1e-9)
        #expect(abs(adult.hourly[10].intake.fineDust! - 58 * 0.258 * 0.7) < 1e-9)
        // 07:00 (40 µg/m³) is light, half outdoors: 1.1E-02 and 1.2E-02 m³/min.
        #expect(abs(child.hourly[7].intake.fineDust! - 40 * 0.66 * 0.85) < 1e-9)
        #expect(abs(adult.hourly[7].intake.fineDust! - 40 * 0.72 * 0.85) < 1e-9)
        // 02:00 (33 µg/m³) asleep: 4.5E-03 and 4.6E-03 m³/min.
        #expect(abs(child.hourly[2].intake.fineDust! - 33 * 0.27 * 0.7) < 1e-9)
        #expect(abs(adult.hourly[2].intake.fineDust! - 33 * 0.276 * 0.7) < 1e-9)
        #expect(child.person == "민지" && adult.person == "dad")
    }

    @Test("The adult's Watch: half of 10:00 asleep, half at 150 bpm (high); 11:00 covered every 10 minutes at 120 bpm (moderate)")
    func heartRateAndSleep() async throws {
        let scratch = try Scratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let ten = slot(10).start
        func at(_ minutes: Double) -> Date { ten.addingTimeInterval(minutes * 60) }
        try await scratch.store.saveImport(
            walking: [],
            body: [
                PhysiologyBatch(
                    person: "dad", source: "health:Apple Watch",
                    heartRate: HeartRateSeries(
                        [30, 40, 50].map { HeartRateSample(at: at($0), beatsPerMinute: 150) }
                            + [60, 70, 80, 90, 100, 110].map { HeartRateSample(at: at($0), beatsPerMinute: 120) }),
                    restingHeartRate: [RestingHeartRateSample(at: at(-180), beatsPerMinute: 60)],
                    sleep: [SleepInterval(start: at(0), end: at(30))])
            ], importedAt: DemoReplay.now)
        let day = try await service(scratch, Person(name: "dad", born: BirthMonth("1986-01"), station: "종로구")).day(november20)
        // Age 40: HRmax 180, rest 60 (Health). r(150) = 0.75 → high 2.94; r(120) = 0.5 → moderate 1.62; sleep 0.276.
        let tenHour = day.hourly[10].breathing!
        #expect(abs(tenHour.ventilation - (0.276 + 2.94) / 2) < 1e-12 && tenHour.levelSource == .sleep)
        #expect(abs(day.hourly[10].intake.fineDust! - 58 * 1.608 * 0.7) < 1e-9)
        let elevenHour = day.hourly[11].breathing!
        #expect(abs(elevenHour.ventilation - 1.62) < 1e-12 && elevenHour.levelSource == .heartRate)
        #expect(abs(day.hourly[11].intake.fineDust! - 55 * 1.62 * 0.7) < 1e-9)
        // The configured resting rate wins over Health's: rest 90 makes 120 bpm r = 0.33, light (0.72).
        var calm = Person(name: "dad", born: BirthMonth("1986-01"), station: "종로구")
        calm.restingHeartRate = 90
        let configured = try await service(scratch, calm).day(november20)
        #expect(abs(configured.hourly[11].breathing!.ventilation - 0.72) < 1e-12)
        // Someone else's records do not reach another person: the child's 10:00 is the schedule's.
        let child = try await service(scratch, Person(name: "민지", born: BirthMonth("2018-03"), station: "종로구")).day(november20)
        #expect(child.hourly[10].breathing?.levelSource == .schedule)
    }

    @Test("A person's own station and infiltration: 중구's readings, F = 0.4")
    func ownStation() async throws {
        let scratch = try Scratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let service = try service(scratch, Person(name: "grandma", station: "중구", infiltration: 0.4))
        #expect(service.stations == StationPreference(primary: "중구", fallbacks: ["종로구"]))
        let day = try await service.day(november20)
        // 중구 has no readings stored, so 종로구 fills every hour; 10:00 sedentary: 58 × 0.26 × 0.4.
        #expect(day.station == "중구" && day.hourly[10].source.fineDust == "종로구")
        #expect(abs(day.hourly[10].intake.fineDust! - 58 * 0.26 * 0.4) < 1e-9)
    }

    @Test("The household's days, read with one query, are each person's own days")
    func household() async throws {
        let scratch = try Scratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        try await scratch.store.saveActivity(
            [ActivitySourceBatch(person: "민지", source: "csv", distances: [slot(16): 2400], replacing: nil)], importedAt: DemoReplay.now)
        let people = [
            Person(name: "dad", born: BirthMonth("1986-01"), station: "종로구"),
            Person(name: "민지", born: BirthMonth("2018-03"), station: "중구", infiltration: 0.4),
        ]
        let base = try service(scratch, Person(name: "me", station: "종로구"))
        let together = try await base.household(people, from: november20.adding(days: -6), through: november20)
        #expect(together.count == 2)
        for (person, days) in zip(people, together) {
            #expect(days == (try await base.forPerson(person).days(from: november20.adding(days: -6), through: november20)))
        }
        // 민지 walked 2.4 km at 16:00 (50 µg/m³): light, f = 0.5, F = 0.4: 50 × 0.66 × (0.5 + 0.5 × 0.4).
        #expect(abs(together[1][6].hourly[16].intake.fineDust! - 50 * 0.66 * 0.7) < 1e-9)
        #expect(together[1][6].hourly[16].breathing?.levelSource == .walking)
        #expect(together[0][6].hourly[16].breathing?.levelSource == .schedule)
    }
}

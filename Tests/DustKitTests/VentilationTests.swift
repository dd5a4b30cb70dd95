import DustKit
import Foundation
import Testing

/// 2026-11-26 in Korea, at `hour:minute`.
private func kst(_ hour: Int, _ minute: Int = 0, day: Int = 26) -> Date {
    KoreaStandardTime.instant(hour: hour, of: LocalDate(year: 2026, month: 11, day: day)).addingTimeInterval(Double(minute * 60))
}

private let adultRates = AgeVentilationTable.rates(age: 40)

@Suite("Ventilation by age (docs/REFERENCE.md §18)", .timeLimit(.minutes(10)))
struct AgeVentilationTests {
    @Test("age is counted in completed years from the first of the birth month")
    func birthdayMonth() {
        let born = BirthMonth("2018-03")!
        #expect(born.age(on: LocalDate(year: 2029, month: 2, day: 28)) == 10)
        #expect(born.age(on: LocalDate(year: 2029, month: 3, day: 1)) == 11)
        #expect(BirthMonth("2018-3") == nil && BirthMonth("2018-13") == nil && BirthMonth("18-03") == nil)
    }

    @Test("the row changes when the birthday month crosses 6–10 into 11–15: light 0.66 → 0.78 m³/h")
    func rowAtBirthday() {
        let born = BirthMonth("2018-03")!
        let february = AgeVentilationTable.rates(age: born.age(on: LocalDate(year: 2029, month: 2, day: 28)))
        let march = AgeVentilationTable.rates(age: born.age(on: LocalDate(year: 2029, month: 3, day: 1)))
        #expect(abs(february[.light]! - 0.66) < 1e-12)
        #expect(abs(march[.light]! - 0.78) < 1e-12)
        #expect(abs(march[.sleep]! - 0.30) < 1e-12)
    }

    @Test("the first and last rows: a baby sleeps at 0.18 m³/h, a person of 90 at 0.312")
    func ends() {
        #expect(abs(AgeVentilationTable.rates(age: 0)[.sleep]! - 0.18) < 1e-12)
        #expect(abs(AgeVentilationTable.rates(age: 90)[.sleep]! - 0.312) < 1e-12)
        #expect(abs(AgeVentilationTable.rates(age: 40)[.high]! - 2.94) < 1e-12)
    }
}

@Suite("A slot's ventilation from sleep, heart rate and the schedule (docs/REFERENCE.md §18)", .timeLimit(.minutes(10)))
struct SlotBreathingTests {
    /// Age 40: HRmax 180; resting 60 gives a reserve span of 120 beats.
    private func halfAsleepHalfHeartRate(_ beats: Double) -> SlotBreathing {
        let physiology = SlotPhysiology(
            sleep: [SleepInterval(start: kst(23, 0, day: 25), end: kst(0, 30))],
            heartRate: [30, 40, 50].map { HeartRateSample(at: kst(0, $0), beatsPerMinute: beats) },
            restingBeatsPerMinute: 60)
        return SlotBreathing.of(
            start: kst(0), end: kst(1), physiology: physiology, age: 40, rates: adultRates,
            fallbackLevel: .sleep, fallbackSource: .schedule, outdoors: 0)
    }

    @Test("half asleep (0.276) and half at heart rate: the time-weighted mean in each band")
    func halfAndHalf() {
        // r = (80 − 60) / 120 = 0.17, (100 − 60) / 120 = 0.33, (120 − 60) / 120 = 0.5, (150 − 60) / 120 = 0.75
        let expected: [(Double, ActivityLevel, Double)] = [
            (80, .sedentary, (0.276 + 0.258) / 2), (100, .light, (0.276 + 0.72) / 2),
            (120, .moderate, (0.276 + 1.62) / 2), (150, .high, (0.276 + 2.94) / 2),
        ]
        for (beats, level, ventilation) in expected {
            let slot = halfAsleepHalfHeartRate(beats)
            #expect(abs(slot.ventilation - ventilation) < 1e-12, "\(beats) bpm")
            #expect(slot.secondsByLevel == [.sleep: 1800, level: 1800])
            #expect(slot.levelSource == .sleep)  // a tie goes to sleep
        }
    }

    @Test("a sample covers until the next one, at most 10 minutes: 10 minutes apart cover the hour, 20 minutes apart half")
    func tenMinuteCover() {
        func slot(every minutes: Int) -> SlotBreathing {
            let samples = stride(from: 0, to: 60, by: minutes).map { HeartRateSample(at: kst(10, $0), beatsPerMinute: 120) }
            return SlotBreathing.of(
                start: kst(10), end: kst(11), physiology: SlotPhysiology(heartRate: samples, restingBeatsPerMinute: 60), age: 40,
                rates: adultRates, fallbackLevel: .sedentary, fallbackSource: .schedule, outdoors: 0)
        }
        let tight = slot(every: 10)
        #expect(abs(tight.ventilation - 1.62) < 1e-12)
        #expect(tight.secondsByLevel == [.moderate: 3600] && tight.levelSource == .heartRate)
        let sparse = slot(every: 20)
        #expect(abs(sparse.ventilation - (1.62 + 0.258) / 2) < 1e-12)
        #expect(sparse.secondsByLevel == [.moderate: 1800, .sedentary: 1800] && sparse.levelSource == .heartRate)
    }

    @Test("a sample 5 minutes before the slot covers its first 5 minutes")
    func sampleBeforeSlot() {
        let slot = SlotBreathing.of(
            start: kst(10), end: kst(11),
            physiology: SlotPhysiology(heartRate: [HeartRateSample(at: kst(9, 55), beatsPerMinute: 150)], restingBeatsPerMinute: 60),
            age: 40, rates: adultRates, fallbackLevel: .sedentary, fallbackSource: .schedule, outdoors: 0)
        #expect(slot.secondsByLevel == [.high: 300, .sedentary: 3300] && slot.levelSource == .schedule)
        #expect(abs(slot.ventilation - (2.94 * 300 + 0.258 * 3300) / 3600) < 1e-12)
    }

    @Test("no born: heart rate is not banded, sleep still counts; no records: exactly the level's rate")
    func withoutAge() {
        let physiology = SlotPhysiology(
            sleep: [SleepInterval(start: kst(10, 45), end: kst(11, 30))],
            heartRate: [HeartRateSample(at: kst(10), beatsPerMinute: 150)], restingBeatsPerMinute: 60)
        let rates = VentilationIntakeModel.defaultRates
        let slot = SlotBreathing.of(
            start: kst(10), end: kst(11), physiology: physiology, age: nil, rates: rates, fallbackLevel: .light,
            fallbackSource: .walking, outdoors: 0.25)
        #expect(slot.secondsByLevel == [.sleep: 900, .light: 2700] && slot.levelSource == .walking)
        #expect(abs(slot.ventilation - (0.27 * 900 + 0.72 * 2700) / 3600) < 1e-12)
        let plain = SlotBreathing.of(
            start: kst(10), end: kst(11), physiology: SlotPhysiology(restingBeatsPerMinute: 70), age: nil, rates: rates,
            fallbackLevel: .light, fallbackSource: .schedule, outdoors: 0.5)
        #expect(plain.ventilation == 0.72 && plain.levelSource == .schedule)
        // §4: C × V × (f + (1 − f) × F) = 40 × 0.72 × (0.5 + 0.5 × 0.7)
        #expect(plain.intake(concentration: 40, infiltration: 0.7) == 40 * 0.72 * (0.5 + 0.5 * 0.7))
    }

    @Test("resting rate: configured 60 bands 100 bpm as light; Health's newest on or before the day, 80, as sedentary")
    func restingRate() {
        let calendar = DayCalendar(timeZone: KoreaStandardTime.timeZone)
        let health = [
            RestingHeartRateSample(at: kst(7, 0, day: 24), beatsPerMinute: 75),
            RestingHeartRateSample(at: kst(7, 0, day: 26), beatsPerMinute: 80),
            RestingHeartRateSample(at: kst(7, 0, day: 27), beatsPerMinute: 50),
        ]
        let day = LocalDate(year: 2026, month: 11, day: 26)
        let fromHealth = SlotPhysiology.restingBeatsPerMinute(on: day, configured: nil, health: health, calendar: calendar)
        let configured = SlotPhysiology.restingBeatsPerMinute(on: day, configured: 60, health: health, calendar: calendar)
        #expect(fromHealth == 80 && configured == 60)
        #expect(SlotPhysiology.restingBeatsPerMinute(on: day.adding(days: -3), configured: nil, health: health, calendar: calendar) == 70)
        // (100 − 60) / (180 − 60) = 0.33 → light; (100 − 80) / (180 − 80) = 0.2 → sedentary
        #expect(HeartRateReserve.level(beatsPerMinute: 100, resting: configured, age: 40) == .light)
        #expect(HeartRateReserve.level(beatsPerMinute: 100, resting: fromHealth, age: 40) == .sedentary)
    }

    @Test("a child of 8 and an adult of 40 at the same sedentary hour of 40 µg/m³ indoors: 8.064 and 7.224 µg")
    func childAndAdult() {
        let today = LocalDate(year: 2026, month: 11, day: 26)
        func intake(born: String) -> Double {
            let age = BirthMonth(born)!.age(on: today)
            let slot = SlotBreathing.of(
                start: kst(10), end: kst(11), physiology: SlotPhysiology(restingBeatsPerMinute: 70), age: age,
                rates: AgeVentilationTable.rates(age: age), fallbackLevel: .sedentary, fallbackSource: .schedule, outdoors: 0)
            return slot.intake(concentration: 40, infiltration: 0.7)
        }
        #expect(abs(intake(born: "2018-03") - 40 * 0.288 * 0.7) < 1e-12)  // 6–10: 4.8E-03 m³/min
        #expect(abs(intake(born: "1986-01") - 40 * 0.258 * 0.7) < 1e-12)  // 31–40: 4.3E-03 m³/min
    }

    @Test("A slot's mean rate adds its levels in their order, whatever order its dictionary holds them in")
    func levelsInTheirOrder() {
        // Three levels whose products, added in different orders, differ in the last bits.
        let seconds: [(ActivityLevel, Double)] = [(.sleep, 1873.6), (.light, 118.6), (.high, 69.5)]
        let products = seconds.map { adultRates[$0.0]! * $0.1 }
        #expect(
            Set([
                (products[0] + products[1]) + products[2], (products[2] + products[1]) + products[0],
                (products[1] + products[2]) + products[0],
            ]).count > 1)
        let expected = (products[0] + products[1]) + products[2]
        var sums = Set<Double>()
        // The same entries in dictionaries of other sizes and insertion orders iterate in other orders.
        for capacity in [0, 3, 7, 16, 64, 333] {
            for order in [seconds, seconds.reversed(), [seconds[1], seconds[2], seconds[0]]] {
                var dictionary = [ActivityLevel: Double](minimumCapacity: capacity)
                for (level, value) in order { dictionary[level] = value }
                sums.insert(ActivityLevel.weightedSum(dictionary, rates: adultRates))
            }
        }
        #expect(sums == [expected])
    }
}

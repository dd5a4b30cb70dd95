import DustKit
import Foundation
import Testing

@Suite("Indoor air: a slot's value from a home's monitors, and the dose (docs/REFERENCE.md §21)", .timeLimit(.minutes(10)))
struct IndoorAirTests {
    /// 2026-11-20 10:00 KST.
    let slot = Slot(containing: KoreaStandardTime.instant(hour: 10, of: LocalDate(year: 2026, month: 11, day: 20)))

    func minute(_ offset: Int) -> Date { slot.start.addingTimeInterval(TimeInterval(offset * 60)) }

    func sample(
        _ sensor: String, _ offset: Int, pm25: Double?, pm10: Double? = nil, hold: Int = IndoorSample.sampledHoldSeconds
    )
        -> IndoorSample
    {
        IndoorSample(sensor: sensor, at: minute(offset), value: DustPair(fineDust: pm10, ultraFineDust: pm25), holdSeconds: hold)
    }

    @Test("Every minute: 40 minutes at 10 µg/m³ and 20 at 20 give 13.333, the whole hour covered")
    func timeWeighted() throws {
        let samples = (0..<60).map { sample("living-room", $0, pm25: $0 < 40 ? 10 : 20, pm10: 15) }
        let value = try #require(IndoorSlotValue.of(slot, samples: samples))
        #expect(abs(value.value.ultraFineDust! - (40 * 10 + 20 * 20) / 60.0) < 1e-12)
        #expect(value.value.fineDust == 15 && value.minutesCovered == 60 && value.sensors == ["living-room"])
    }

    @Test("A sample holds at most 5 minutes: one every 10 minutes covers 30 of 60, just enough; one at :00 alone is too little")
    func holdsFiveMinutes() throws {
        let sparse = stride(from: 0, to: 60, by: 10).map { sample("a", $0, pm25: Double($0)) }
        let value = try #require(IndoorSlotValue.of(slot, samples: sparse))
        #expect(value.minutesCovered == 30)
        // Each value holds 5 minutes: (0 + 10 + 20 + 30 + 40 + 50) × 5 / 30.
        #expect(abs(value.value.ultraFineDust! - 25) < 1e-12)
        let lone = try #require(IndoorSlotValue.of(slot, samples: [sample("a", 0, pm25: 12)]))
        #expect(lone.minutesCovered == 5 && lone.value.ultraFineDust == nil)
        // A sample of the previous slot holds into this one only for what is left of its 5 minutes.
        let before = try #require(IndoorSlotValue.of(slot, samples: [sample("a", -2, pm25: 12)]))
        #expect(before.minutesCovered == 3)
    }

    @Test(
        "A Home Assistant state holds until the next change, at most 60 minutes: a state 30 minutes before the hour covers its first half")
    func stateHolds() throws {
        let value = try #require(IndoorSlotValue.of(slot, samples: [sample("ha", -30, pm25: 8, hold: IndoorSample.stateHoldSeconds)]))
        #expect(value.minutesCovered == 30 && value.value.ultraFineDust == 8)
        // The next change ends it: 8 from :00 to :20, then 14 to the end (held at most an hour).
        let changed = try #require(
            IndoorSlotValue.of(
                slot,
                samples: [
                    sample("ha", -30, pm25: 8, hold: IndoorSample.stateHoldSeconds),
                    sample("ha", 20, pm25: 14, hold: IndoorSample.stateHoldSeconds),
                ]))
        #expect(changed.minutesCovered == 60)
        #expect(abs(changed.value.ultraFineDust! - (20 * 8 + 40 * 14) / 60.0) < 1e-12)
    }

    @Test("Two sensors: averaged minute by minute, then over the hour")
    func twoSensors() throws {
        let samples = (0..<60).map { sample("a", $0, pm25: 10) } + (0..<30).map { sample("b", $0, pm25: 30) }
        let value = try #require(IndoorSlotValue.of(slot, samples: samples))
        // b's last sample (minute 29) holds 5 minutes, to 29–33: minutes 0–33 average 20, 34–59 are a's 10.
        #expect(abs(value.value.ultraFineDust! - (34 * 20 + 26 * 10) / 60.0) < 1e-12)
        #expect(value.sensors == ["a", "b"])
    }

    @Test("Plausible: finite, not negative, at most 1,000 µg/m³")
    func plausible() {
        #expect(IndoorSample.plausible(12.5) == 12.5 && IndoorSample.plausible(0) == 0 && IndoorSample.plausible(1000) == 1000)
        for bad in [-1, .nan, .infinity, 1e308, 1000.5] { #expect(IndoorSample.plausible(bad) == nil) }
        // Negative zero is zero, and printed so (the metrics wrote `-0.0`).
        #expect(IndoorSample.plausible(-0.0)?.sign == .plus)
    }

    @Test("PurpleAir: channels that agree are averaged; |A − B| > 5 and > 70 % of their mean is unknown")
    func purpleAirAgreement() {
        #expect(PurpleAirChannels.agreed(10, 12) == (11, false))
        #expect(PurpleAirChannels.agreed(2, 6) == (4, false))  // 4 apart: within 5 µg/m³
        #expect(PurpleAirChannels.agreed(100, 160) == (130, false))  // 60 apart, 46 % of 130
        let split = PurpleAirChannels.agreed(10, 30)  // 20 apart, 100 % of 20
        #expect(split.value == nil && split.disagreed)
        #expect(PurpleAirChannels.agreed(7, nil) == (7, false))  // a single-laser sensor
        #expect(PurpleAirChannels.agreed(7, .nan).value == nil)
    }

    @Test("EPA 2021: 0.524 × cf1 − 0.0862 × RH + 5.75, never below 0")
    func epa2021() {
        #expect(abs(PurpleAirChannels.epa2021(cf1: 20, humidity: 50) - 11.92) < 1e-12)
        #expect(PurpleAirChannels.epa2021(cf1: 0, humidity: 100) == 0)
    }

    @Test("The dose at home: V × (f × C_out + (1 − f) × C_in) replaces C_out × V × (f + (1 − f) × F)")
    func dose() throws {
        let sedentary = SlotBreathing(ventilation: 0.26, outdoors: 0, levelSource: .schedule, secondsByLevel: [.sedentary: 3600])
        #expect(abs(sedentary.intake(concentration: 50, infiltration: 0.7, indoor: nil) - 50 * 0.26 * 0.7) < 1e-12)
        #expect(abs(sedentary.intake(concentration: 50, infiltration: 0.7, indoor: 10) - 0.26 * 10) < 1e-12)
        let commute = SlotBreathing(ventilation: 0.72, outdoors: 0.5, levelSource: .schedule, secondsByLevel: [.light: 3600])
        #expect(abs(commute.intake(concentration: 50, infiltration: 0.7, indoor: 10) - 0.72 * (0.5 * 50 + 0.5 * 10)) < 1e-12)
        // Tracked: the tracked quarter stays §19's; the rest's indoor part breathes the sensor's value.
        let tracked = TrackedBreathing(
            trackedFraction: 0.25, trackedVentilation: 1.6, restVentilation: 0.26, restOutdoors: 0, trackedSecondsByLevel: [:],
            restSecondsByLevel: [:], slot: sedentary)
        let intake = try #require(tracked.intake(trackedConcentration: 80, homeConcentration: 50, infiltration: 0.7, indoor: 10))
        #expect(abs(intake - (1.6 * 0.25 * 80 + 0.26 * 0.75 * 10)) < 1e-12)
        let estimated = try #require(tracked.intake(trackedConcentration: 80, homeConcentration: 50, infiltration: 0.7))
        #expect(abs(estimated - (1.6 * 0.25 * 80 + 0.26 * 0.75 * 50 * 0.7)) < 1e-12)
    }
}

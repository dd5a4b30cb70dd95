import DustKit
import Foundation
import Testing

/// 2026-11-20 in Korea, at `hour:minute:second`.
private func kst(_ hour: Int, _ minute: Int = 0, _ second: Int = 0) -> Date {
    KoreaStandardTime.instant(hour: hour, of: LocalDate(year: 2026, month: 11, day: 20)).addingTimeInterval(Double(minute * 60 + second))
}

/// §4's adult rates: sedentary 0.26, light 0.72, moderate 1.6 m³/h.
private let rates = VentilationIntakeModel.defaultRates
/// §4's default schedule at 10:00: sedentary, indoors (f = 0).
private let tenOClock = VentilationIntakeModel.defaultSchedule[2]

/// The first half of 10:00–11:00 walked: one position a minute, 10:00 … 10:29, each covering 60 s.
private let firstHalf = TrackCoverage(positions: (0..<30).map { kst(10, $0) }, slotStart: kst(10), slotEnd: kst(11))

@Suite("The tracked part of a slot: τ and C_T (docs/REFERENCE.md §19)", .timeLimit(.minutes(10)))
struct TrackCoverageTests {
    @Test("30 positions a minute apart cover 1,800 of 3,600 seconds: τ = 0.5")
    func halfTracked() {
        #expect(firstHalf.trackedSeconds == 1800)
        #expect(firstHalf.trackedFraction == 0.5)
        #expect(firstHalf.untrackedIntervals.map(\.start) == [kst(10, 30)])
        #expect(firstHalf.untrackedIntervals.map(\.end) == [kst(11)])
    }

    @Test("a position covers up to 60 s, never past the next position nor the slot's end")
    func coverLimits() {
        // 10:00:00 → 10:00:40 (the next position): 40 s; 10:00:40 → 10:01:40: 60 s;
        // 10:20:00 → 10:21:00: 60 s; 10:59:30 → 11:00:00 (the slot's end): 30 s; 09:59:45 covers 10:00:00 → 10:00:00: nothing,
        // because the next position is at 10:00:00. Tracked: 40 + 60 + 60 + 30 = 190 s; τ = 190 / 3600.
        let coverage = TrackCoverage(
            positions: [kst(10, 59, 30), kst(10, 0, 40), kst(10), kst(10, 20), kst(9, 59, 45)], slotStart: kst(10), slotEnd: kst(11))
        #expect(coverage.pieces.map(\.seconds) == [40, 60, 60, 30])
        #expect(coverage.trackedSeconds == 190)
        #expect(abs(coverage.trackedFraction - 190.0 / 3600) < 1e-15)
        // A position 20 s before the slot, with none after it for a while, covers the slot's first 40 s.
        let early = TrackCoverage(positions: [kst(9, 59, 40)], slotStart: kst(10), slotEnd: kst(11))
        #expect(early.trackedSeconds == 40)
    }

    @Test("C_T is the mean of the positions' values weighted by the seconds each covers")
    func timeWeightedMean() {
        // 10:00:00 covers 40 s at 30 µg/m³, 10:00:40 covers 60 s at 60 µg/m³:
        // C_T = (40 × 30 + 60 × 60) / (40 + 60) = (1200 + 3600) / 100 = 48.
        let coverage = TrackCoverage(positions: [kst(10), kst(10, 0, 40)], slotStart: kst(10), slotEnd: kst(11))
        let values = [kst(10): 30.0, kst(10, 0, 40): 60.0]
        #expect(coverage.timeWeightedMean { values[$0] } == 48)
        // A position without a value is left out of the mean; none at all: unknown.
        #expect(coverage.timeWeightedMean { $0 == kst(10) ? 30 : nil } == 30)
        #expect(coverage.timeWeightedMean { _ in nil } == nil)
    }

    @Test("no position in the slot: τ = 0, and there is no tracked breathing (§4/§18 apply unchanged)")
    func untracked() {
        let coverage = TrackCoverage(positions: [kst(8), kst(12)], slotStart: kst(10), slotEnd: kst(11))
        #expect(coverage.trackedFraction == 0)
        let breathing = TrackedBreathing.of(
            coverage: coverage, physiology: SlotPhysiology(restingBeatsPerMinute: 70), age: nil, rates: rates, entry: tenOClock)
        #expect(breathing == nil)
    }
}

@Suite(
    "A tracked slot's intake: V_T × τ × C_T + V_R × (1 − τ) × C_home × (f + (1 − f) × F) (docs/REFERENCE.md §19)", .timeLimit(.minutes(10)))
struct TrackedSlotIntakeTests {
    /// C_T = 40 µg/m³ along the track, C_home = 20 µg/m³, F = 0.7.
    private func intake(_ breathing: TrackedBreathing) -> Double {
        breathing.intake(trackedConcentration: 40, homeConcentration: 20, infiltration: 0.7)!
    }

    @Test("τ = 0.5 without heart rate: the tracked half at light (0.72), the rest at the schedule's sedentary (0.26)")
    func halfWithoutHeartRate() throws {
        // 0.72 × 0.5 × 40 + 0.26 × 0.5 × 20 × (0 + 1 × 0.7) = 14.4 + 1.82 = 16.22 µg
        let breathing = try #require(
            TrackedBreathing.of(
                coverage: firstHalf, physiology: SlotPhysiology(restingBeatsPerMinute: 70), age: nil, rates: rates, entry: tenOClock))
        #expect(breathing.trackedFraction == 0.5)
        #expect(breathing.trackedVentilation == 0.72)
        #expect(breathing.restVentilation == 0.26)
        #expect(abs(intake(breathing) - 16.22) < 1e-12)
    }

    @Test("τ = 0.5 with heart rate: the tracked half at the heart's level (moderate, 1.6)")
    func halfWithHeartRate() throws {
        // Age 40: HRmax = 208 − 0.7 × 40 = 180; rest 60; r = (120 − 60) / (180 − 60) = 0.5 → moderate, 1.6 m³/h.
        // Samples at 10:00, 10:10 and 10:20 cover 10:00–10:30 (10 minutes each), exactly the tracked half.
        // 1.6 × 0.5 × 40 + 0.26 × 0.5 × 20 × 0.7 = 32 + 1.82 = 33.82 µg
        let physiology = SlotPhysiology(
            heartRate: [0, 10, 20].map { HeartRateSample(at: kst(10, $0), beatsPerMinute: 120) }, restingBeatsPerMinute: 60)
        let breathing = try #require(
            TrackedBreathing.of(coverage: firstHalf, physiology: physiology, age: 40, rates: rates, entry: tenOClock))
        #expect(breathing.trackedVentilation == 1.6)
        #expect(breathing.trackedSecondsByLevel == [.moderate: 1800])
        #expect(breathing.restVentilation == 0.26)
        #expect(abs(intake(breathing) - 33.82) < 1e-12)
    }

    @Test("the walking raise is not applied to the rest of a tracked slot: V_R and f stay the schedule's")
    func noWalkingRaiseOnTheRest() throws {
        // Had the walk raised the rest as §4 does for an untracked slot (2.4 km walked: f = max(0, 2400 / 4800) = 0.5, light),
        // the rest would be 0.72 × 0.5 × 20 × (0.5 + 0.5 × 0.7) = 6.12 µg. Tracked, it is 0.26 × 0.5 × 20 × 0.7 = 1.82 µg.
        let raised = try VentilationIntakeModel().scheduledLevel(atHour: 10, walkingDistance: 2400)
        #expect(raised.level == .light && raised.outdoors == 0.5)
        let breathing = try #require(
            TrackedBreathing.of(
                coverage: firstHalf, physiology: SlotPhysiology(restingBeatsPerMinute: 70), age: nil, rates: rates, entry: tenOClock))
        #expect(breathing.restVentilation == 0.26)
        #expect(breathing.restOutdoors == 0)
        #expect(breathing.restSecondsByLevel == [.sedentary: 1800])
        let rest = breathing.intake(trackedConcentration: 0, homeConcentration: 20, infiltration: 0.7)!
        #expect(abs(rest - 1.82) < 1e-12)
    }

    @Test("what the outputs say of a tracked slot: V the mean of both halves, f = τ + (1 − τ) f, the largest share's source")
    func wholeSlot() throws {
        // Without heart rate: 1800 s light (tracked, counted as walking) and 1800 s sedentary (the schedule):
        // V = (0.72 × 1800 + 0.26 × 1800) / 3600 = 0.49 m³/h; f = 0.5 + 0.5 × 0 = 0.5; walking and the schedule
        // tie at 1800 s and the tie goes to the more specific record, walking.
        let walked = try #require(
            TrackedBreathing.of(
                coverage: firstHalf, physiology: SlotPhysiology(restingBeatsPerMinute: 70), age: nil, rates: rates, entry: tenOClock))
        #expect(abs(walked.slot.ventilation - 0.49) < 1e-12)
        #expect(walked.slot.outdoors == 0.5)
        #expect(walked.slot.levelSource == .walking)
        #expect(walked.slot.secondsByLevel == [.light: 1800, .sedentary: 1800])
        #expect(walked.slot.secondsBySource == [.walking: 1800, .schedule: 1800])
        // With heart rate over the tracked half (moderate, 1.6): V = (1.6 + 0.26) / 2 = 0.93, source heart rate.
        let physiology = SlotPhysiology(
            heartRate: [0, 10, 20].map { HeartRateSample(at: kst(10, $0), beatsPerMinute: 120) }, restingBeatsPerMinute: 60)
        let ran = try #require(TrackedBreathing.of(coverage: firstHalf, physiology: physiology, age: 40, rates: rates, entry: tenOClock))
        #expect(abs(ran.slot.ventilation - 0.93) < 1e-12)
        #expect(ran.slot.levelSource == .heartRate)
        // Tracked 20 minutes of the hour: the schedule's 40 minutes are the larger share.
        let third = TrackCoverage(positions: (0..<20).map { kst(10, $0) }, slotStart: kst(10), slotEnd: kst(11))
        let strolled = try #require(
            TrackedBreathing.of(
                coverage: third, physiology: SlotPhysiology(restingBeatsPerMinute: 70), age: nil, rates: rates, entry: tenOClock))
        #expect(strolled.slot.levelSource == .schedule)
    }

    @Test("the home value unknown: unknown, unless the track covers the whole slot")
    func unknownHome() throws {
        let half = try #require(
            TrackedBreathing.of(
                coverage: firstHalf, physiology: SlotPhysiology(restingBeatsPerMinute: 70), age: nil, rates: rates, entry: tenOClock))
        #expect(half.intake(trackedConcentration: 40, homeConcentration: nil, infiltration: 0.7) == nil)
        // 60 positions cover the hour: τ = 1, intake = 0.72 × 1 × 40 = 28.8 µg.
        let whole = TrackCoverage(positions: (0..<60).map { kst(10, $0) }, slotStart: kst(10), slotEnd: kst(11))
        let breathing = try #require(
            TrackedBreathing.of(
                coverage: whole, physiology: SlotPhysiology(restingBeatsPerMinute: 70), age: nil, rates: rates, entry: tenOClock))
        #expect(breathing.trackedFraction == 1)
        #expect(abs(breathing.intake(trackedConcentration: 40, homeConcentration: nil, infiltration: 0.7)! - 28.8) < 1e-12)
    }
}

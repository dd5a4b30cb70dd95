import DustKit
import Foundation
import TestSupport
import Testing

@testable import DustActivity

@Suite("SlotApportioner", .timeLimit(.minutes(10)))
struct SlotApportionerTests {
    @Test("1,000 m from 08:50 to 09:10 gives 500 m to each hour")
    func acrossTheHour() {
        let sample = DistanceSample(
            source: "health:Apple Watch", start: instant("2024-01-01T08:50:00+09:00"),
            end: instant("2024-01-01T09:10:00+09:00"), metres: 1000)
        var apportioner = SlotApportioner()
        apportioner.add(sample)
        #expect(
            apportioner.metresBySource == [
                "health:Apple Watch": [
                    slot("2023-12-31T23:00:00Z"): 500,
                    slot("2024-01-01T00:00:00Z"): 500,
                ]
            ])
    }

    @Test("A sample over three hours splits by minutes: 10 + 60 + 20 of 90 minutes")
    func threeHours() {
        // 900 m from 08:50 to 10:20 KST: 10 min → 100 m, 60 min → 600 m, 20 min → 200 m.
        let shares = SlotApportioner.shares(
            of: DistanceSample(
                source: "csv", start: instant("2024-01-01T08:50:00+09:00"),
                end: instant("2024-01-01T10:20:00+09:00"), metres: 900))
        #expect(shares.map(\.slot) == [slot("2023-12-31T23:00:00Z"), slot("2024-01-01T00:00:00Z"), slot("2024-01-01T01:00:00Z")])
        #expect(shares.map(\.metres) == [100, 600, 200])
    }

    @Test("A sample inside one hour gives it all; a lone zero-length sample gives nothing; ending on the hour gives the next nothing")
    func insideOneHour() {
        var apportioner = SlotApportioner()
        apportioner.add(
            DistanceSample(source: "a", start: instant("2024-01-01T08:20:00+09:00"), end: instant("2024-01-01T08:30:00+09:00"), metres: 650)
        )
        apportioner.add(
            DistanceSample(source: "b", start: instant("2024-01-01T08:59:59+09:00"), end: instant("2024-01-01T08:59:59+09:00"), metres: 3))
        apportioner.add(
            DistanceSample(source: "c", start: instant("2024-01-01T08:30:00+09:00"), end: instant("2024-01-01T09:00:00+09:00"), metres: 400)
        )
        let hour = slot("2023-12-31T23:00:00Z")
        // "b" walked 3 m in no time, at an instant no timed step of its covers: no walk (issue 36).
        #expect(apportioner.metresBySource == ["a": [hour: 650], "c": [hour: 400]])
        #expect(apportioner.resolved().corrections.instantSteps == 1)
    }

    // MARK: - What one source can have walked (docs/REFERENCE.md §12)

    private static let start = instant("2024-01-01T08:00:00Z")

    /// A walk of `steps` one-second steps of `metres` each, from `start`.
    private static func walk(_ source: String, steps: Int, metres: Double, from start: Date = start) -> [DistanceSample] {
        (0..<steps).map { step in
            DistanceSample(
                source: source, start: start.addingTimeInterval(Double(step)), end: start.addingTimeInterval(Double(step + 1)),
                metres: metres)
        }
    }

    @Test("100,000 steps at one instant, 29 m apart, after a timed minute: at most 30 m/s over that minute, the rest cut and counted")
    func manyStepsAtOneInstant() {
        var apportioner = SlotApportioner()
        for sample in Self.walk("gpx:jump.gpx", steps: 60, metres: 1.4) { apportioner.add(sample) }
        let instant = Self.start.addingTimeInterval(60)
        for _ in 0..<100_000 { apportioner.add(DistanceSample(source: "gpx:jump.gpx", start: instant, end: instant, metres: 29)) }
        let (metres, corrections) = apportioner.resolved()
        let hour = slot("2024-01-01T08:00:00Z")
        #expect(abs((metres["gpx:jump.gpx"]?[hour] ?? 0) - 30 * 60) < 1e-9)
        #expect(abs(corrections.tooFastMetres - (60 * 1.4 + 2_900_000 - 1800)) < 1e-3)
        // The 100,000 are held as at most `gatherAt` instants (one once gathered), the minute's 60 steps each.
        #expect(apportioner.held <= 60 + SlotSteps.gatherAt)
    }

    @Test("Steps of no duration away from any timed step of their source are dropped, however many")
    func instantsAlone() {
        var apportioner = SlotApportioner()
        let instant = Self.start.addingTimeInterval(1800)
        for _ in 0..<100_000 { apportioner.add(DistanceSample(source: "gpx:still.gpx", start: instant, end: instant, metres: 29)) }
        for sample in Self.walk("gpx:still.gpx", steps: 60, metres: 1.4) { apportioner.add(sample) }
        let (metres, corrections) = apportioner.resolved()
        #expect(abs((metres["gpx:still.gpx"]?[slot("2024-01-01T08:00:00Z")] ?? 0) - 84) < 1e-9)
        #expect(corrections.instantSteps == 100_000)
        #expect(corrections.instantMetres == 2_900_000)
    }

    @Test("A walk repeated in 50 segments, or every record twice (an export restored over itself), is walked once")
    func coveredTwice() {
        var repeated = SlotApportioner()
        let once = Self.walk("gpx:walk.gpx", steps: 1200, metres: 1.5)
        for _ in 0..<50 { for sample in once { repeated.add(sample) } }
        let hour = slot("2024-01-01T08:00:00Z")
        let (metres, corrections) = repeated.resolved()
        #expect(abs((metres["gpx:walk.gpx"]?[hour] ?? 0) - 1800) < 1e-6)
        #expect(abs(corrections.overlappingMetres - 49 * 1800) < 1e-3)

        // Ten-minute records, each stored twice in a row and once more at the end of the file.
        var doubled = SlotApportioner()
        let records = (0..<6).map { index in
            DistanceSample(
                source: "health:Apple Watch", start: Self.start.addingTimeInterval(Double(index) * 600),
                end: Self.start.addingTimeInterval(Double(index + 1) * 600), metres: 570)
        }
        for record in records {
            doubled.add(record)
            doubled.add(record)
        }
        for record in records { doubled.add(record) }
        #expect(abs((doubled.metresBySource["health:Apple Watch"]?[hour] ?? 0) - 3420) < 1e-6)
    }

    @Test("Records twice in a row at different paces: each stretch at its own pace, not an average of its neighbours")
    func doubledPaces() {
        var apportioner = SlotApportioner()
        let fast = DistanceSample(source: "s", start: Self.start, end: Self.start.addingTimeInterval(10), metres: 100)
        let still = DistanceSample(source: "s", start: Self.start.addingTimeInterval(10), end: Self.start.addingTimeInterval(20), metres: 0)
        for sample in [fast, fast, still, still] { apportioner.add(sample) }
        let (metres, corrections) = apportioner.resolved()
        #expect(abs((metres["s"]?[slot("2024-01-01T08:00:00Z")] ?? 0) - 100) < 1e-9)
        #expect(abs(corrections.overlappingMetres - 100) < 1e-9)
    }

    @Test("Overlapping records at different paces keep the faster pace where they overlap, not the sum")
    func overlappingPaces() {
        var apportioner = SlotApportioner()
        // 08:00–08:30 at 1 m/s (1,800 m), and 08:15–08:45 at 2 m/s (3,600 m): 08:00–08:15 900 m, then the
        // faster pace where they overlap and after, 08:15–08:45 3,600 m: 4,500 m, not 5,400.
        apportioner.add(
            DistanceSample(source: "s", start: Self.start, end: Self.start.addingTimeInterval(1800), metres: 1800))
        apportioner.add(
            DistanceSample(
                source: "s", start: Self.start.addingTimeInterval(900), end: Self.start.addingTimeInterval(2700), metres: 3600))
        let (metres, corrections) = apportioner.resolved()
        #expect(abs((metres["s"]?[slot("2024-01-01T08:00:00Z")] ?? 0) - 4500) < 1e-9)
        #expect(abs(corrections.overlappingMetres - 900) < 1e-9)
    }

    @Test("1,000 records of 100 km over one hour are one hour of 100 km; 1,000 of 200 km over ten minutes, at most 30 m/s")
    func thousandRecords() {
        var apportioner = SlotApportioner()
        for _ in 0..<1000 {
            apportioner.add(
                DistanceSample(source: "health:x", start: Self.start, end: Self.start.addingTimeInterval(3600), metres: 100_000))
            // Not believable alone (the readers drop such a record); here to prove the hour's bound.
            apportioner.add(DistanceSample(source: "health:y", start: Self.start, end: Self.start.addingTimeInterval(600), metres: 200_000))
        }
        let hour = slot("2024-01-01T08:00:00Z")
        #expect(abs((apportioner.metresBySource["health:x"]?[hour] ?? 0) - 100_000) < 1e-6)
        #expect(apportioner.metresBySource["health:y"]?[hour] == 18_000)
    }

    @Test("A clean walk keeps, to the last bit, the sum in the order its steps came")
    func cleanWalkUnchanged() {
        var apportioner = SlotApportioner()
        let steps = (0..<3600).map { index in
            DistanceSample(
                source: "gpx:w.gpx", start: Self.start.addingTimeInterval(Double(index)),
                end: Self.start.addingTimeInterval(Double(index + 1)),
                metres: 1.0 + Double(index % 7) * 0.1)
        }
        var expected = 0.0
        for step in steps {
            apportioner.add(step)
            expected += step.metres
        }
        // Same-second points (no duration) between steps, as Apple's routes have.
        let shared = Self.start.addingTimeInterval(100)
        apportioner.add(DistanceSample(source: "gpx:w.gpx", start: shared, end: shared, metres: 2))
        expected += 2
        let (metres, corrections) = apportioner.resolved()
        #expect(metres["gpx:w.gpx"]?[slot("2024-01-01T08:00:00Z")] == expected)
        #expect(corrections.isEmpty)
    }

    // MARK: - A 1 Hz track held as its minutes (docs/REFERENCE.md §12)

    /// `seconds` one-second steps from `start`, each second's metres varying (0.9 to 1.5 m).
    private static func track(_ source: String, seconds: Int, from start: Date = start) -> [DistanceSample] {
        (0..<seconds).map { (second: Int) -> DistanceSample in
            let metres: Double = 0.9 + Double((second * 7) % 13) * 0.05
            return DistanceSample(
                source: source, start: start.addingTimeInterval(Double(second)), end: start.addingTimeInterval(Double(second + 1)),
                metres: metres)
        }
    }

    @Test("Two hours of 1 Hz steps are held as their 120 minutes once the track moves on, each hour's sum to the last bit")
    func secondsGatheredIntoMinutes() {
        var apportioner = SlotApportioner()
        var expected: [Slot: Double] = [:]
        for sample in Self.track("gpx:year.gpx", seconds: 7201) {
            apportioner.add(sample)
            expected[Slot(containing: sample.start), default: 0] += sample.metres
        }
        // Two whole hours, one step each minute, and the third hour's first second, not yet gathered.
        #expect(apportioner.held == 121)
        let (metres, corrections) = apportioner.resolved()
        #expect(metres["gpx:year.gpx"] == expected)
        #expect(corrections.isEmpty)
    }

    @Test("A 1 Hz track at changing paces imported twice, after itself or each second twice in a row, is walked once")
    func gatheredCopiesWalkedOnce() {
        let once = Self.track("gpx:twice.gpx", seconds: 7200)
        var once1 = SlotApportioner()
        for sample in once { once1.add(sample) }
        let single = once1.resolved().metresBySource["gpx:twice.gpx"] ?? [:]
        #expect(single.count == 2)

        var after = SlotApportioner()
        for sample in once + once { after.add(sample) }
        var inRow = SlotApportioner()
        for sample in once {
            inRow.add(sample)
            inRow.add(sample)
        }
        for (name, apportioner) in [("after itself", after), ("twice in a row", inRow)] {
            let (metres, corrections) = apportioner.resolved()
            for (slot, walked) in single {
                #expect(abs((metres["gpx:twice.gpx"]?[slot] ?? 0) - walked) < 1e-6, "\(name)")
            }
            #expect(abs(corrections.overlappingMetres - single.values.reduce(0, +)) < 1e-6, "\(name)")
            // 14,400 steps held as their minutes: 2 × 60 in the hour left, at most twice that in the last.
            #expect(apportioner.held <= 2 * 60 + 2 * (2 * 60 + SlotSteps.gatherAt), "\(name)")
        }
    }

    @Test("Two overlapping 1 Hz tracks at 1 and 2 m/s: the faster pace where they overlap, as with two records")
    func gatheredPaces() {
        var apportioner = SlotApportioner()
        // As `overlappingPaces`, one step a second: 08:00–08:30 at 1 m/s, 08:15–08:45 at 2 m/s.
        for second in 0..<1800 {
            let from = Self.start.addingTimeInterval(Double(second))
            apportioner.add(DistanceSample(source: "s", start: from, end: from.addingTimeInterval(1), metres: 1))
        }
        for second in 900..<2700 {
            let from = Self.start.addingTimeInterval(Double(second))
            apportioner.add(DistanceSample(source: "s", start: from, end: from.addingTimeInterval(1), metres: 2))
        }
        let (metres, corrections) = apportioner.resolved()
        #expect(abs((metres["s"]?[slot("2024-01-01T08:00:00Z")] ?? 0) - 4500) < 1e-6)
        #expect(abs(corrections.overlappingMetres - 900) < 1e-6)
        #expect(apportioner.held <= 30 + 30 + SlotSteps.gatherAt)
    }

    @Test("A slot of 64 steps keeps each step's pace: two walks of 32 s alternating 1 and 3 m in opposite phase are 96 m")
    func sixtyFourExact() {
        var apportioner = SlotApportioner()
        for phase in 0..<2 {
            for second in 0..<32 {
                let from = Self.start.addingTimeInterval(Double(second))
                let metres: Double = (second + phase).isMultiple(of: 2) ? 1 : 3
                apportioner.add(DistanceSample(source: "s", start: from, end: from.addingTimeInterval(1), metres: metres))
            }
        }
        #expect(apportioner.held == 64)
        #expect(apportioner.metresBySource["s"]?[slot("2024-01-01T08:00:00Z")] == 96)
    }

    @Test("100,000 steps ending at one instant and 100,000 going on from it, in one minute and across minutes: walked once each")
    func manyEndingAtOneInstant() {
        let at = { (seconds: Double) in Self.start.addingTimeInterval(seconds) }
        var apportioner = SlotApportioner()
        for _ in 0..<100_000 { apportioner.add(DistanceSample(source: "s", start: at(0), end: at(59), metres: 59)) }
        for _ in 0..<100_000 { apportioner.add(DistanceSample(source: "s", start: at(59), end: at(60), metres: 1)) }
        // Ending in minute 50, where steps beginning at the same instant cannot go on from them.
        for _ in 0..<100_000 { apportioner.add(DistanceSample(source: "s", start: at(60), end: at(3000), metres: 2940)) }
        for _ in 0..<100_000 { apportioner.add(DistanceSample(source: "s", start: at(3000), end: at(3001), metres: 1)) }
        let (metres, corrections) = apportioner.resolved()
        #expect(abs((metres["s"]?[slot("2024-01-01T08:00:00Z")] ?? 0) - 3001) < 1e-6)
        #expect(abs(corrections.overlappingMetres - 99_999 * 3001) < 1)
    }

    @Test("Steps that do not follow each other are held each at its own pace, and a copy of them is walked once")
    func ungatherable() {
        var apportioner = SlotApportioner()
        // 1,800 steps of a second with a second's gap after each: nothing to gather.
        let steps = (0..<1800).map { index in
            DistanceSample(
                source: "gaps", start: Self.start.addingTimeInterval(Double(2 * index)),
                end: Self.start.addingTimeInterval(Double(2 * index + 1)), metres: index.isMultiple(of: 2) ? 1 : 3)
        }
        for sample in steps + steps { apportioner.add(sample) }
        #expect(apportioner.held == 3600)
        let (metres, corrections) = apportioner.resolved()
        #expect(metres["gaps"]?[slot("2024-01-01T08:00:00Z")] == 3600)
        #expect(corrections.overlappingMetres == 3600)
    }

    // MARK: - Steps overlapping many times over, folded into minutes (docs/REFERENCE.md §12)

    @Test("5,000 records of 100 m, 7 days each, 7 s apart: walked once over the time covered (105.79 m), each slot folded to its minutes")
    func overlappingWeekLongRecords() {
        var apportioner = SlotApportioner()
        let count = 5000
        for index in 0..<count {
            let from = Self.start.addingTimeInterval(Double(7 * index))
            apportioner.add(DistanceSample(source: "health:W", start: from, end: from.addingTimeInterval(7 * 86_400), metres: 100))
        }
        let (metres, corrections) = apportioner.resolved()
        let slots = metres["health:W"] ?? [:]
        // One pace everywhere, so the union of the records at it: 604,800 + 4,999 × 7 seconds.
        let covered = 604_800.0 + Double(count - 1) * 7
        #expect(abs(slots.values.reduce(0, +) - 100 * covered / 604_800) < 1e-6)
        #expect(abs(corrections.overlappingMetres - (100 * Double(count) - 100 * covered / 604_800)) < 1e-6)
        #expect(corrections.tooFastMetres == 0)
        // 845,000 steps of 16 bytes came; a folded slot holds its 60 minutes. The seven hours at either end,
        // which fewer of the records reach, fold only past `foldAt` steps.
        #expect(slots.count == 178)
        #expect(apportioner.held <= 178 * 60 + 14 * SlotSteps.foldAt)
    }

    @Test(
        "Past the steps an apportioner may hold, steps that cannot be gathered are folded: a walk alone to the last bit, with its copy at each minute's pace"
    )
    func foldedPastTheBudget() {
        var apportioner = SlotApportioner(maxHeldSteps: 0)
        // 1,800 steps of a second with a second's gap after each, at 1 and 3 m/s in turn: nothing to gather.
        let steps = (0..<1800).map { index in
            DistanceSample(
                source: "gaps", start: Self.start.addingTimeInterval(Double(2 * index)),
                end: Self.start.addingTimeInterval(Double(2 * index + 1)), metres: index.isMultiple(of: 2) ? 1 : 3)
        }
        for sample in steps + steps { apportioner.add(sample) }
        // 60 minutes, and what came since the last gathering (never more than twice `gatherAt`).
        #expect(apportioner.held <= 60 + 2 * SlotSteps.gatherAt)
        let (metres, corrections) = apportioner.resolved()
        // Covered twice, walked once at each minute's faster pace: 3 m/s over its 30 seconds covered (90 m),
        // 5,400 m of the 7,200 (held step by step, the walk once, 3,600 m; a minute's pace is coarser).
        #expect(metres["gaps"]?[slot("2024-01-01T08:00:00Z")] == 5400)
        #expect(corrections.overlappingMetres == 1800)
        // Alone, the walk is kept to the last bit.
        var once = SlotApportioner(maxHeldSteps: 0)
        for sample in steps { once.add(sample) }
        #expect(once.metresBySource["gaps"]?[slot("2024-01-01T08:00:00Z")] == 3600)
        #expect(once.resolved().corrections.isEmpty)
    }

    @Test("Folded, records overlapping at two paces keep the faster one where they overlap, and instants count only in seconds covered")
    func foldedPaces() {
        let at = { (seconds: Double) in Self.start.addingTimeInterval(seconds) }
        var apportioner = SlotApportioner(maxHeldSteps: 0)
        // 100 copies each of minutes 0–30 at 1 m/s and 20–40 at 2 m/s: 20 × 60 + 20 × 120 = 3,600 m.
        for _ in 0..<100 {
            apportioner.add(DistanceSample(source: "s", start: at(0), end: at(1800), metres: 1800))
            apportioner.add(DistanceSample(source: "s", start: at(1200), end: at(2400), metres: 2400))
        }
        apportioner.add(DistanceSample(source: "s", start: at(600), end: at(600), metres: 5))
        apportioner.add(DistanceSample(source: "s", start: at(3000), end: at(3000), metres: 7))
        #expect(apportioner.held <= 60 + 2 * SlotSteps.gatherAt + 2)
        let (metres, corrections) = apportioner.resolved()
        #expect(metres["s"]?[slot("2024-01-01T08:00:00Z")] == 3605)
        #expect(corrections.instantSteps == 1)
        #expect(corrections.instantMetres == 7)
        #expect(corrections.overlappingMetres == 100 * 4200 - 3600)
    }

    @Test("Across New York's DST change (2026-03-08) the split is by absolute time: 500 m and 500 m")
    func daylightSavingTime() throws {
        // 01:50 EST (-0500) is 06:50Z; 03:10 EDT (-0400) is 07:10Z: 20 minutes, though the local
        // clock shows 1 h 20 min. Slots are UTC hours, so the change does not move the split.
        let xml = healthExport(distanceRecord(value: "1", start: "2026-03-08 01:50:00 -0500", end: "2026-03-08 03:10:00 -0400"))
        let samples = try readHealth(xml).samples
        #expect(samples.count == 1)
        #expect(samples[0].end.timeIntervalSince(samples[0].start) == 1200)
        var apportioner = SlotApportioner()
        for item in samples { apportioner.add(item) }
        let early = slot("2026-03-08T06:00:00Z")
        let late = slot("2026-03-08T07:00:00Z")
        #expect(apportioner.metresBySource["health:Apple Watch"] == [early: 500, late: 500])
        let newYork = DayCalendar(timeZone: try #require(TimeZone(identifier: "America/New_York")))
        let day = newYork.slots(of: LocalDate(year: 2026, month: 3, day: 8))
        #expect(day.count == 23)
        #expect(day.contains(early) && day.contains(late))
        #expect(newYork.hour(of: early) == 1 && newYork.hour(of: late) == 3)
    }

    @Test("Sources sharing a slot are kept apart, never summed: the store takes the largest")
    func sourcesKeptApart() {
        let eight = slot("2023-12-31T23:00:00Z")
        let nine = slot("2024-01-01T00:00:00Z")
        var apportioner = SlotApportioner()
        apportioner.add(
            DistanceSample(
                source: "health:iPhone", start: instant("2023-12-31T23:30:00Z"), end: instant("2024-01-01T00:30:00Z"), metres: 1300))
        apportioner.add(
            DistanceSample(
                source: "health:Apple Watch", start: instant("2023-12-31T23:10:00Z"), end: instant("2023-12-31T23:20:00Z"), metres: 800))
        apportioner.add(
            DistanceSample(
                source: "gpx:route_2024-01-01_8.20am.gpx", start: instant("2023-12-31T23:40:00Z"), end: instant("2023-12-31T23:50:00Z"),
                metres: 199.3))
        #expect(
            apportioner.metresBySource == [
                "health:iPhone": [eight: 650, nine: 650], "health:Apple Watch": [eight: 800],
                "gpx:route_2024-01-01_8.20am.gpx": [eight: 199.3],
            ])
        #expect(apportioner.entries == 4)
    }
}

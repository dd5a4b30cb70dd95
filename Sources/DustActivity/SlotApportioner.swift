import DustKit
import Foundation

/// Splits distance samples across the hourly slots they span, each source apart (docs/REFERENCE.md §12):
/// the store merges them, a slot's distance being the largest of its sources.
///
/// A sample gives each slot (a whole UTC hour) the share of its metres that its time in that
/// slot is of its whole duration; a sample inside one slot gives that slot everything. Slots are
/// absolute hours, so a local DST change never alters a split.
///
/// Within one source, a slot holds only the walking physics allows (docs/REFERENCE.md §12, "What one
/// source can have walked"): time covered twice is walked once (an export restored over itself holds
/// each record twice; a track can repeat a segment), at the higher of the two paces; a step of no
/// duration counts only at an instant the source's timed steps cover (100,000 points at one instant
/// are no walk); and the whole is at most `DistanceSample.maxSpeed` over the time covered, a union
/// of intervals, not a sum. What these take away is counted (`WalkingCorrections`). A source whose
/// steps follow each other, as a real walk's do, keeps exactly the sum it always had.
public struct SlotApportioner: Sendable {
    /// (source, slot) pairs held, at most `maxEntries`; a share that would add one more is dropped
    /// and `overflowed` set, so a hostile file cannot grow memory without bound.
    public private(set) var entries = 0
    public let maxEntries: Int
    public private(set) var overflowed = false
    private var slotsBySource: [String: [Slot: SlotSteps]] = [:]
    /// The slot each source's last share went to: when a source moves on, the slot it leaves is
    /// gathered (`SlotSteps.gather()`), so a year of 1 Hz tracks holds minutes, not seconds.
    private var lastSlotBySource: [String: Slot] = [:]

    /// Steps held over every source and slot (a folded slot's minutes counting one each).
    private var heldSteps = 0
    /// Past this many steps held, a slot that gathering leaves with more than `SlotSteps.gatherAt` is
    /// folded into its minutes (`SlotSteps`), so records overlapping each other many times over cannot
    /// hold 16 bytes for each hour of each record: a year of 1 Hz tracks holds about 530,000.
    public let maxHeldSteps: Int

    /// `maxEntries` bounds memory: 20 years of hours from five sources is under a million.
    public init(maxEntries: Int = Int.max, maxHeldSteps: Int = 1 << 20) {
        self.maxEntries = maxEntries
        self.maxHeldSteps = maxHeldSteps
    }

    /// Adds a sample's shares to its source's slots.
    public mutating func add(_ sample: DistanceSample) {
        let start = sample.start.timeIntervalSince1970
        let end = sample.end.timeIntervalSince1970
        for share in Self.shares(of: sample) {
            if slotsBySource[sample.source]?[share.slot] == nil {
                guard entries < maxEntries else {
                    overflowed = true
                    continue
                }
                entries += 1
            }
            let slotStart = share.slot.start.timeIntervalSince1970
            let from = max(start, slotStart) - slotStart
            let to = min(end, share.slot.end.timeIntervalSince1970) - slotStart
            let tight = heldSteps > maxHeldSteps
            heldSteps += slotsBySource[sample.source, default: [:]][share.slot, default: SlotSteps()].add(
                from: from, to: to, metres: share.metres, tight: tight)
            if let left = lastSlotBySource.updateValue(share.slot, forKey: sample.source), left != share.slot {
                heldSteps += slotsBySource[sample.source]?[left]?.gather(tight: tight) ?? 0
            }
        }
    }

    /// Steps and instants held over every source and slot (for the tests of the gathering).
    var held: Int { slotsBySource.values.reduce(0) { $0 + $1.values.reduce(0) { $0 + $1.held.steps + $1.held.instants } } }

    /// Metres per source, per slot, as physics allows.
    public var metresBySource: [String: [Slot: Double]] { resolved().metresBySource }

    /// Metres per source and slot, and what the rules took away.
    public func resolved() -> (metresBySource: [String: [Slot: Double]], corrections: WalkingCorrections) {
        var corrections = WalkingCorrections()
        var result: [String: [Slot: Double]] = [:]
        for (source, slots) in slotsBySource {
            var metres: [Slot: Double] = [:]
            for (slot, steps) in slots {
                let walked = steps.resolved(&corrections)
                if walked > 0 { metres[slot] = walked }
            }
            if !metres.isEmpty { result[source] = metres }
        }
        return (result, corrections)
    }

    /// Each slot a sample spans with its share of the metres, in time order. The last share is
    /// the remainder, so the shares always add up to the sample's metres.
    public static func shares(of sample: DistanceSample) -> [(slot: Slot, metres: Double)] {
        let duration = sample.end.timeIntervalSince(sample.start)
        let first = Slot(containing: sample.start)
        guard duration > 0, first.end < sample.end else { return [(first, sample.metres)] }
        var shares: [(slot: Slot, metres: Double)] = []
        var given = 0.0
        var slot = first
        while slot.end < sample.end {
            let seconds = slot.end.timeIntervalSince(max(slot.start, sample.start))
            let metres = sample.metres * seconds / duration
            shares.append((slot, metres))
            given += metres
            slot = slot.advanced(by: 1)
        }
        shares.append((slot, max(0, sample.metres - given)))
        return shares
    }
}

/// What the rules of one source's walking took away in an import, for its summary.
public struct WalkingCorrections: Sendable, Hashable {
    /// Metres of time one source covered twice (or more), walked once.
    public var overlappingMetres = 0.0
    /// Steps of no duration at an instant no timed step of their source covers, and their metres.
    public var instantSteps = 0
    public var instantMetres = 0.0
    /// Metres above `DistanceSample.maxSpeed` over the time a source covered in an hour.
    public var tooFastMetres = 0.0

    public init() {}

    /// Nothing was taken away.
    public var isEmpty: Bool { overlappingMetres == 0 && instantSteps == 0 && tooFastMetres == 0 }
}

/// One source's steps within one slot, as seconds from the slot's start (16 bytes a step), the sum in
/// the order they came, and the steps of no duration.
///
/// A slot holding more than `gatherAt` steps gathers them (docs/REFERENCE.md §12): steps that follow
/// each other (one begins where another ends) and begin in the same minute of the hour become one
/// step of their metres, and steps of no duration at the same instant one instant. A 1 Hz track's
/// hour (3,600 steps) is then 60 steps, a year of it 8 MB, not 500. What a gathered step loses is
/// only its seconds' own paces, which count where a source covers time twice (the faster pace
/// wins, now per minute); the sum, the time covered and the instants covered are unchanged, so a
/// clean walk keeps its sum to the last bit, and a track imported twice, gathered the same way both
/// times, is still walked once.
///
/// A slot whose steps no gathering joins, records overlapping each other many times over (a hundred
/// thousand 7-day records of one source each touch 169 hours), is folded: when gathering more than
/// `foldAt` steps (an hour of one-second steps) leaves more than half of them, or, once the apportioner
/// holds more than `SlotApportioner.maxHeldSteps` steps over all its slots, more than `gatherAt`. Its
/// steps, and every later one as it comes, go into its minutes (`MinuteCover`): the seconds covered and
/// the fastest pace among the steps covering them, 960 bytes a slot however many steps come. Time
/// covered twice is still walked once, at the minute's fastest pace, never more than the steps' sum,
/// and at most `DistanceSample.maxSpeed` over the seconds covered; a step of no duration counts in a
/// second covered. No real file folds a slot.
struct SlotSteps: Sendable {
    /// A timed step: from `start` to `end` seconds into the slot.
    struct Step: Sendable {
        var start: Float32
        var end: Float32
        var metres: Double
    }

    /// Steps of no duration at one instant, `count` of them.
    struct Instant: Sendable {
        var at: Float32
        var count: UInt32
        var metres: Double
    }

    /// At most this many steps (or instants) are held exactly, each at its own pace.
    static let gatherAt = 64
    /// A slot's steps are folded into minutes rather than held past this many, an hour of one-second
    /// steps (a 1 Hz track with every other point gone, imported twice, holds as many).
    static let foldAt = 3600

    /// One minute of a folded slot: bit `k` of `seconds` is its second `k`, covered when a step
    /// covers that second's middle; `pace` is the fastest (m/s) of the steps covering any of them.
    struct MinuteCover: Sendable {
        var seconds: UInt64 = 0
        var pace: Double = 0
    }

    /// Empty until the slot is folded, then its 60 minutes.
    private var minutes: [MinuteCover] = []
    /// The metres of the timed steps folded.
    private var foldedMetres = 0.0
    /// The fastest pace of the folded steps covering every second of the slot, if any did.
    private var wholePace: Double?

    private var steps: [Step] = []
    private var instants: [Instant] = []
    /// How many the last gathering left: the next waits for twice as many, so steps that cannot be
    /// gathered (none follows another) cost amortised O(log n) each, not a gathering per step.
    private var gatheredSteps = 0
    private var gatheredInstants = 0
    /// Every step's metres summed as they came: a clean slot's distance, to the last bit what it
    /// was before these rules.
    private var sum = 0.0

    /// Adds a step from `start` to `end` seconds into the slot, returning how many more steps it holds
    /// (fewer when a gathering or folding took place); `tight`, its apportioner holds many (`fold`).
    @discardableResult
    mutating func add(from start: Double, to end: Double, metres: Double, tight: Bool = false) -> Int {
        sum += metres
        if end > start {
            let step = Step(start: Float32(start), end: Float32(end), metres: metres)
            guard minutes.isEmpty else {
                fold(step)
                return 0
            }
            let before = steps.count
            steps.append(step)
            // Past `foldAt`, at once: a slot never holds more than an hour of one-second steps.
            if steps.count > max(Self.gatherAt, min(2 * gatheredSteps, Self.foldAt)) { gatherSteps(tight: tight) }
            return steps.count + minutes.count - before
        } else {
            instants.append(Instant(at: Float32(start), count: 1, metres: metres))
            if instants.count > max(Self.gatherAt, 2 * gatheredInstants) { gatherInstants() }
            return 0
        }
    }

    /// Its source has moved on to another slot: gathers what has grown by a quarter since the last
    /// gathering (a source going back and forth between two slots does not sort either every time).
    /// Returns how many more steps it holds (never more).
    @discardableResult
    mutating func gather(tight: Bool = false) -> Int {
        let before = steps.count + minutes.count
        if steps.count > max(Self.gatherAt, gatheredSteps + gatheredSteps / 4) { gatherSteps(tight: tight) }
        if instants.count > max(Self.gatherAt, gatheredInstants + gatheredInstants / 4) { gatherInstants() }
        return steps.count + minutes.count - before
    }

    /// The number of steps and instants held: what the gathering keeps small (for the tests).
    var held: (steps: Int, instants: Int) { (steps.count + minutes.count, instants.count) }

    /// Steps that follow each other and begin in the same minute, one step; each goes on from the
    /// last gathered step whose end is where it begins (ordered by start, so copies of a track
    /// gather into copies). The result is held in an array of its own size.
    /// Folds the slot (`fold`) when the gathering of more than `foldAt` steps leaves more than half of
    /// them, or, `tight`, more than `gatherAt`.
    private mutating func gatherSteps(tight: Bool) {
        let before = steps.count
        steps = Self.gathering(steps)
        gatheredSteps = steps.count
        if (before > Self.foldAt && steps.count > Self.foldAt / 2) || (tight && steps.count > Self.gatherAt) {
            minutes = Array(repeating: MinuteCover(), count: 60)
            for step in steps { fold(step) }
            steps = []
            gatheredSteps = 0
        }
    }

    /// Adds a step to the folded minutes: the seconds whose middle it covers, at its pace.
    private mutating func fold(_ step: Step) {
        foldedMetres += step.metres
        let (start, end) = (Double(step.start), Double(step.end))
        let pace = step.metres / (end - start)
        // Seconds first...last, those with start <= k + 0.5 < end.
        let first = max(0, Int((start - 0.5).rounded(.up)))
        let last = min(3599, Int((end - 0.5).rounded(.up)) - 1)
        guard first <= last else { return }
        // A step over the whole hour (a long record's middle hours), in O(1).
        if first == 0, last == 3599 {
            wholePace = max(wholePace ?? 0, pace)
            return
        }
        for minute in (first / 60)...(last / 60) {
            let from = max(first, minute * 60) - minute * 60
            let to = min(last, minute * 60 + 59) - minute * 60
            let bits = ((UInt64(1) << UInt64(to - from + 1)) - 1) << UInt64(from)
            minutes[minute].seconds |= bits
            minutes[minute].pace = max(minutes[minute].pace, pace)
        }
    }

    /// A folded slot's metres under the rules, as `resolved` says.
    private func resolvedFolded(_ corrections: inout WalkingCorrections) -> Double {
        var covered = 0.0
        var timed = 0.0
        for minute in minutes {
            let seconds = wholePace == nil ? Double(minute.seconds.nonzeroBitCount) : 60
            covered += seconds
            timed += max(minute.pace, wholePace ?? 0) * seconds
        }
        let walked = min(timed, foldedMetres)
        var total = walked
        var loose = 0
        for instant in instants {
            let second = min(3599, max(0, Int(instant.at)))
            if wholePace != nil || minutes[second / 60].seconds & (UInt64(1) << UInt64(second % 60)) != 0 {
                total += instant.metres
            } else {
                loose += Int(instant.count)
                corrections.instantSteps += Int(instant.count)
                corrections.instantMetres += instant.metres
            }
        }
        let cap = DistanceSample.maxSpeed * covered
        // Nothing taken away: the sum in the order the steps came, to the last bit.
        if walked == foldedMetres, loose == 0, sum <= cap { return sum }
        corrections.overlappingMetres += foldedMetres - walked
        if total > cap {
            corrections.tooFastMetres += total - cap
            total = cap
        }
        return total
    }

    /// `steps` gathered, ordered by start.
    private static func gathering(_ steps: [Step]) -> [Step] {
        /// Where a gathered step ends and the minute it began in: what a step must begin at to go on from it.
        struct Open: Hashable {
            var end: Float32
            var minute: Float32
        }
        let ordered = steps.sorted { ($0.start, $0.end) < ($1.start, $1.end) }
        var gathered: [Step] = []
        // The gathered steps open to one more, by where they end: found and taken in O(1), however
        // many a hostile file makes end at one instant.
        var open: [Open: [Int]] = [:]
        for step in ordered {
            let minute = (step.start / 60).rounded(.down)
            if let taken = open[Open(end: step.start, minute: minute)]?.popLast() {
                gathered[taken].end = step.end
                gathered[taken].metres += step.metres
                open[Open(end: step.end, minute: minute), default: []].append(taken)
            } else {
                open[Open(end: step.end, minute: minute), default: []].append(gathered.count)
                gathered.append(step)
            }
        }
        return gathered.withUnsafeBufferPointer { Array($0) }
    }

    /// Steps of no duration at the same instant, one.
    private mutating func gatherInstants() {
        var gathered: [Instant] = []
        for instant in instants.sorted(by: { $0.at < $1.at }) {
            if let last = gathered.last, last.at == instant.at, last.count < UInt32.max - instant.count {
                gathered[gathered.count - 1].count += instant.count
                gathered[gathered.count - 1].metres += instant.metres
            } else {
                gathered.append(instant)
            }
        }
        instants = gathered.withUnsafeBufferPointer { Array($0) }
        gatheredInstants = instants.count
    }

    /// The slot's metres under the rules, adding what they took away to `corrections`.
    func resolved(_ corrections: inout WalkingCorrections) -> Double {
        guard minutes.isEmpty else { return resolvedFolded(&corrections) }
        // A slot gathered once is gathered whole: copies of a track gather alike, whenever each was.
        let ordered =
            gatheredSteps > 0 ? Self.gathering(steps) : steps.sorted { ($0.start, $0.end) < ($1.start, $1.end) }
        // The time covered, as disjoint intervals (a union, not a sum).
        var union: [(start: Float32, end: Float32)] = []
        var disjoint = true
        for step in ordered {
            if let last = union.last, step.start <= last.end {
                if step.start < last.end { disjoint = false }
                union[union.count - 1].end = max(last.end, step.end)
            } else {
                union.append((step.start, step.end))
            }
        }
        let covered = union.reduce(0.0) { $0 + Double($1.end - $1.start) }
        var inside = 0.0
        var loose = 0
        var looseMetres = 0.0
        for instant in instants {
            if Self.covers(union, instant.at) {
                inside += instant.metres
            } else {
                loose += Int(instant.count)
                looseMetres += instant.metres
            }
        }
        let cap = DistanceSample.maxSpeed * covered
        if disjoint, loose == 0, sum <= cap { return sum }

        let timed = steps.reduce(0) { $0 + $1.metres }
        var walked = disjoint ? timed : Self.fastestPace(ordered)
        corrections.overlappingMetres += max(0, timed - walked)
        walked += inside
        corrections.instantSteps += loose
        corrections.instantMetres += looseMetres
        if walked > cap {
            corrections.tooFastMetres += walked - cap
            walked = cap
        }
        return walked
    }

    /// Whether `instant` lies in one of `union`'s intervals (ends included), by binary search.
    private static func covers(_ union: [(start: Float32, end: Float32)], _ instant: Float32) -> Bool {
        var low = 0
        var high = union.count
        while low < high {
            let middle = (low + high) / 2
            if union[middle].end < instant { low = middle + 1 } else { high = middle }
        }
        return low < union.count && union[low].start <= instant
    }

    /// The metres of `steps` (ordered by start) with time covered by several walked once, at the
    /// fastest pace among them: a sweep over the steps' ends, those in progress in a heap by pace.
    static func fastestPace(_ steps: [Step]) -> Double {
        let bounds = Array(Set(steps.flatMap { [$0.start, $0.end] })).sorted()
        guard bounds.count > 1 else { return 0 }
        var heap = PaceHeap()
        var next = 0
        var walked = 0.0
        for index in 0..<(bounds.count - 1) {
            let (from, to) = (bounds[index], bounds[index + 1])
            while next < steps.count, steps[next].start <= from {
                let step = steps[next]
                heap.push(pace: step.metres / Double(step.end - step.start), end: step.end)
                next += 1
            }
            heap.dropEnded(by: from)
            if let pace = heap.fastest { walked += pace * Double(to - from) }
        }
        return walked
    }
}

/// Steps in progress by pace, fastest on top; one that has ended leaves when it reaches the top.
private struct PaceHeap {
    private var items: [(pace: Double, end: Float32)] = []

    var fastest: Double? { items.first?.pace }

    mutating func push(pace: Double, end: Float32) {
        items.append((pace, end))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].pace > items[parent].pace else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes steps ended at or before `instant` from the top until the fastest is still going.
    mutating func dropEnded(by instant: Float32) {
        while let top = items.first, top.end <= instant {
            items.swapAt(0, items.count - 1)
            items.removeLast()
            var parent = 0
            while true {
                let (left, right) = (2 * parent + 1, 2 * parent + 2)
                var largest = parent
                if left < items.count, items[left].pace > items[largest].pace { largest = left }
                if right < items.count, items[right].pace > items[largest].pace { largest = right }
                guard largest != parent else { break }
                items.swapAt(parent, largest)
                parent = largest
            }
        }
    }
}

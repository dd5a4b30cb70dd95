import DustKit
import Foundation

/// A person's indoor samples over a range, walked slot by slot in time order (docs/REFERENCE.md §21).
struct IndoorAirCursor {
    /// Every sample of the person's sensors that may hold into the range, in time order.
    private let samples: [IndoorSample]
    private var first = 0

    init(_ samples: [IndoorSample]) {
        self.samples = samples.sorted { ($0.at, $0.sensor) < ($1.at, $1.sensor) }
    }

    /// How far before a slot a sample may hold into it: the longest hold (a Home Assistant state's).
    static let lookBehind = TimeInterval(IndoorSample.stateHoldSeconds)

    /// The slot's indoor value; slots come in time order.
    mutating func value(_ slot: Slot) -> IndoorSlotValue? {
        let earliest = slot.start.addingTimeInterval(-Self.lookBehind)
        while first < samples.count, samples[first].at < earliest { first += 1 }
        var last = first
        while last < samples.count, samples[last].at < slot.end { last += 1 }
        guard first < last else { return nil }
        return IndoorSlotValue.of(slot, samples: Array(samples[first..<last]))
    }
}

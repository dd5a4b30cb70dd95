import DustKit
import Foundation

/// A person's indoor samples over a range, walked slot by slot in time order (docs/REFERENCE.md §21):
/// each sensor's series read once, each slot computed in place without an allocation.
struct IndoorAirCursor {
    private let series: [IndoorSeries]
    private var starts: [Int]
    private var bins = MinuteBins()

    init(_ series: [IndoorSeries]) {
        self.series = series
        starts = [Int](repeating: 0, count: series.count)
    }

    /// How far before a slot a sample may hold into it: the longest hold (a Home Assistant state's).
    static let lookBehind = TimeInterval(IndoorSample.stateHoldSeconds)

    /// The slot's indoor value; slots come in time order.
    mutating func value(_ slot: Slot) -> IndoorSlotValue? {
        IndoorSlotValue.of(slot, series: series, starts: &starts, bins: &bins)
    }
}

import DustKit
import Foundation

/// Splits distance samples across the hourly slots they span, each source apart (docs/REFERENCE.md §12):
/// the store merges them, a slot's distance being the largest of its sources.
///
/// A sample gives each slot (a whole UTC hour) the share of its metres that its time in that
/// slot is of its whole duration; a sample inside one slot, or of zero length, gives that slot
/// everything. Slots are absolute hours, so a local DST change never alters a split.
public struct SlotApportioner: Sendable {
    /// Metres per source, per slot, summed over the samples added.
    public private(set) var metresBySource: [String: [Slot: Double]] = [:]
    /// (source, slot) pairs held, at most `maxEntries`; a share that would add one more is dropped
    /// and `overflowed` set, so a hostile file cannot grow memory without bound.
    public private(set) var entries = 0
    public let maxEntries: Int
    public private(set) var overflowed = false

    /// `maxEntries` bounds memory: 20 years of hours from five sources is under a million.
    public init(maxEntries: Int = Int.max) {
        self.maxEntries = maxEntries
    }

    /// Adds a sample's shares to its source's slots.
    public mutating func add(_ sample: DistanceSample) {
        for share in Self.shares(of: sample) {
            if metresBySource[sample.source]?[share.slot] == nil {
                guard entries < maxEntries else {
                    overflowed = true
                    continue
                }
                entries += 1
            }
            metresBySource[sample.source, default: [:]][share.slot, default: 0] += share.metres
        }
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

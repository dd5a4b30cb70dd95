import Foundation

/// Heart-rate samples in 8 bytes each: the second since `SupportedPeriod.earliestInstant` and the
/// rate in hundredths of a beat per minute, packed into one integer (Health writes whole seconds).
/// Two million samples take 16 MB, where an array of `HeartRateSample` takes 32; they are kept in
/// chunks of 65,536, so growing never copies them all into a buffer twice the size, and sorted in
/// place (a heap sort) when they did not arrive in time order.
public struct HeartRateSeries: Sendable, Hashable, RandomAccessCollection {
    private static let chunkShift = 16
    private static let chunkSize = 1 << chunkShift
    private var chunks: [[UInt64]] = []
    public private(set) var endIndex = 0
    /// Whether every sample appended so far came at or after the one before (equal instants by rate).
    private var isInOrder = true

    public init() {}

    /// The samples `append` keeps, in the order given.
    public init(_ samples: some Sequence<HeartRateSample>) {
        for sample in samples { append(sample) }
    }

    public var startIndex: Int { 0 }

    public subscript(position: Int) -> HeartRateSample {
        let value = packed(at: position)
        return HeartRateSample(
            at: CompactInstant.date(UInt32(truncatingIfNeeded: value >> 16)),
            beatsPerMinute: Double(UInt16(truncatingIfNeeded: value)) / 100)
    }

    /// Bytes the samples occupy, for the memory bound (docs/REFERENCE.md §12).
    public var storageBytes: Int { chunks.reduce(0) { $0 + $1.capacity } * MemoryLayout<UInt64>.stride }

    /// Appends a sample within `HeartRateSample.plausibleBeatsPerMinute` dated from
    /// `SupportedPeriod.earliestInstant` to 2136 (one outside is left out); the rate is kept to a
    /// hundredth of a beat per minute.
    public mutating func append(_ sample: HeartRateSample) {
        guard let instant = CompactInstant(sample.at), HeartRateSample.plausibleBeatsPerMinute.contains(sample.beatsPerMinute) else {
            return
        }
        let value = UInt64(instant.offset) << 16 | UInt64((sample.beatsPerMinute * 100).rounded())
        if endIndex > 0, value < packed(at: endIndex - 1) { isInOrder = false }
        if endIndex & (Self.chunkSize - 1) == 0 {
            var chunk: [UInt64] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(value)
        endIndex += 1
    }

    /// Puts the samples in time order (equal instants by rate), in place.
    public mutating func sort() {
        guard !isInOrder else { return }
        for end in stride(from: endIndex / 2 - 1, through: 0, by: -1) { siftDown(end, limit: endIndex) }
        for end in stride(from: endIndex - 1, to: 0, by: -1) {
            swap(0, end)
            siftDown(0, limit: end)
        }
        isInOrder = true
    }

    /// Sorts, then keeps of the samples of one second the last (the highest rate): the one a store
    /// keeps of rows of one key, so that what an import says it stored is what it stored.
    public mutating func removeRepeatedSeconds() {
        sort()
        var kept = 0
        for index in 0..<endIndex {
            let value = packed(at: index)
            if index + 1 < endIndex, packed(at: index + 1) >> 16 == value >> 16 { continue }
            chunks[kept >> Self.chunkShift][kept & (Self.chunkSize - 1)] = value
            kept += 1
        }
        guard kept < endIndex else { return }
        endIndex = kept
        chunks.removeLast(chunks.count - (kept + Self.chunkSize - 1) >> Self.chunkShift)
        if let last = chunks.indices.last { chunks[last].removeLast(chunks[last].count - (kept - last << Self.chunkShift)) }
    }

    private func packed(at position: Int) -> UInt64 {
        chunks[position >> Self.chunkShift][position & (Self.chunkSize - 1)]
    }

    private mutating func swap(_ first: Int, _ second: Int) {
        let value = packed(at: first)
        chunks[first >> Self.chunkShift][first & (Self.chunkSize - 1)] = packed(at: second)
        chunks[second >> Self.chunkShift][second & (Self.chunkSize - 1)] = value
    }

    /// Moves the value at `root` down the max-heap of the first `limit` positions.
    private mutating func siftDown(_ root: Int, limit: Int) {
        var parent = root
        while 2 * parent + 1 < limit {
            var child = 2 * parent + 1
            if child + 1 < limit, packed(at: child) < packed(at: child + 1) { child += 1 }
            guard packed(at: parent) < packed(at: child) else { return }
            swap(parent, child)
            parent = child
        }
    }
}

/// An instant from `SupportedPeriod.earliestInstant` on, in whole seconds that fit 32 bits (to 2136).
public struct CompactInstant: Sendable, Hashable {
    public let offset: UInt32

    private static let base = Int64(SupportedPeriod.earliestInstant.timeIntervalSince1970)

    public init?(_ date: Date) {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, abs(seconds) < 1e15, let offset = UInt32(exactly: Int64(seconds) - Self.base) else { return nil }
        self.offset = offset
    }

    public static func date(_ offset: UInt32) -> Date { Date(timeIntervalSince1970: TimeInterval(base + Int64(offset))) }
}

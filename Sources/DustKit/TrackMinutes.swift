import Foundation

/// Where a track was at one instant: for a kept minute (`TrackMinutes`), the minute's start and the
/// last position recorded in it.
public struct TrackPoint: Sendable, Hashable {
    public var at: Date
    /// Kept to 1e-7 degrees (about a centimetre).
    public var position: GeoPoint

    public init(at: Date, position: GeoPoint) {
        self.at = at
        self.position = position
    }

    public init(at: Date, latitude: Double, longitude: Double) {
        self.init(at: at, position: GeoPoint(latitude: latitude, longitude: longitude))
    }
}

/// One track's positions, at most one per minute: the last point of each minute, in 12 bytes (the
/// minute as a `CompactInstant` offset, latitude and longitude in 1e-7 degrees), so a year of 1 Hz
/// points keeps its 525,600 minutes in 6 MB and never holds the raw points (docs/REFERENCE.md §19).
/// Points arriving in time order replace the minute they share with the one before; points out of
/// order (a later segment going back) are appended and merged when the minutes double, and by `sort`.
public struct TrackMinutes: Sendable, Hashable, RandomAccessCollection {
    private struct Entry: Sendable, Hashable {
        var minute: UInt32
        var latitude: Int32
        var longitude: Int32
    }

    private static let scale = 1e7
    private var entries: [Entry] = []
    /// Whether every entry's minute is after the one before.
    private var isInOrder = true
    /// The count after the last merge: out of order, entries are merged when it doubles.
    private var mergedCount = 0

    public init() {}

    /// The minutes `append` keeps from `points`, in the order given.
    public init(_ points: some Sequence<TrackPoint>) {
        for point in points { append(point) }
        sort()
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { entries.count }

    public subscript(position: Int) -> TrackPoint {
        let entry = entries[position]
        return TrackPoint(
            at: CompactInstant.date(entry.minute), latitude: Double(entry.latitude) / Self.scale,
            longitude: Double(entry.longitude) / Self.scale)
    }

    /// Bytes the minutes occupy, for the memory bound (docs/REFERENCE.md §12).
    public var storageBytes: Int { entries.capacity * MemoryLayout<Entry>.stride }

    /// Keeps `point` as its minute's position, replacing an earlier point of that minute when they
    /// arrive in order. A point outside -90…90 / -180…180 or dated outside `CompactInstant` is left out.
    public mutating func append(_ point: TrackPoint) {
        guard let instant = CompactInstant(point.at), (-90...90).contains(point.position.latitude),
            (-180...180).contains(point.position.longitude)
        else { return }
        let entry = Entry(
            minute: instant.offset - instant.offset % 60, latitude: Int32((point.position.latitude * Self.scale).rounded()),
            longitude: Int32((point.position.longitude * Self.scale).rounded()))
        if let last = entries.last {
            if last.minute == entry.minute {
                entries[entries.count - 1] = entry
                return
            }
            if entry.minute < last.minute { isInOrder = false }
        }
        entries.append(entry)
        if !isInOrder, entries.count >= Swift.max(4096, 2 * mergedCount) { sort() }
    }

    /// Puts the minutes in time order, keeping for each minute the point appended last.
    public mutating func sort() {
        guard !isInOrder else { return }
        // Stable: of the entries of one minute, the last appended stays last.
        let sorted = entries.enumerated().sorted { ($0.element.minute, $0.offset) < ($1.element.minute, $1.offset) }
        var merged: [Entry] = []
        merged.reserveCapacity(sorted.count)
        for (_, entry) in sorted {
            if merged.last?.minute == entry.minute { merged[merged.count - 1] = entry } else { merged.append(entry) }
        }
        entries = merged
        isInOrder = true
        mergedCount = entries.count
    }

    /// From the first to the last minute's start; nil when empty. Assumes `sort()` ran.
    public var span: ClosedRange<Date>? {
        guard let first = entries.first, let last = entries.last else { return nil }
        return CompactInstant.date(first.minute)...CompactInstant.date(last.minute)
    }
}

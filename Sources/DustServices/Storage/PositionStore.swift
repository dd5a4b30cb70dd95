import DustKit
import Foundation

/// The read side of where people were: the positions their tracks kept (docs/REFERENCE.md §19).
public protocol PositionReadStore: Sendable {
    /// `person`'s positions whose minute starts in `[from, to)`, of every source, in time order
    /// (one minute's positions of several sources by source name).
    func positions(person: String, from: Date, to: Date) async throws(StorageFailure) -> [StoredTrackPoint]
    /// `person`'s positions whose minute starts in `[from, to)`, one a minute (where sources share a
    /// minute, the first source's by name), in time order, each at its minute's start: what the
    /// weighting reads (docs/REFERENCE.md §19), without the person and source of every row.
    func trackPoints(person: String, from: Date, to: Date) async throws(StorageFailure) -> [TrackPoint]
}

extension PositionReadStore {
    /// `trackPoints` from the whole positions, for a store without a leaner query.
    public func trackPoints(person: String, from: Date, to: Date) async throws(StorageFailure) -> [TrackPoint] {
        var points: [TrackPoint] = []
        for stored in try await positions(person: person, from: from, to: to) where stored.point.at != points.last?.at {
            points.append(stored.point)
        }
        return points
    }
}

/// Where the positions of GPX tracks and workout routes are kept, per person, source and minute.
/// They are saved with the walking of the file they came from (`PhysiologyStore.saveImport`).
public protocol PositionStore: PositionReadStore {
    /// What is stored, per person and source, by person then source.
    func positionSummaries() async throws(StorageFailure) -> [PositionSummary]
    /// Removes `person`'s positions of `source` (nil: every source); returns the positions removed.
    func forgetPositions(person: String, source: String?) async throws(StorageFailure) -> Int
}

/// One person's position in one minute, as one source recorded it: the last point of the minute.
public struct StoredTrackPoint: Sendable, Hashable {
    public var person: String
    /// `gpx:<file name>`, as the walking of the same track.
    public var source: String
    /// The minute's start and its position.
    public var point: TrackPoint

    public init(person: String, source: String, point: TrackPoint) {
        self.person = person
        self.source = source
        self.point = point
    }
}

/// The positions of one source of one imported file.
public struct PositionBatch: Sendable, Hashable {
    public var person: String
    public var source: String
    public var minutes: TrackMinutes
    /// The minutes whose stored positions of this person and source the file replaces (deleted
    /// before `minutes` are written); nil to overwrite only the minutes in the batch.
    public var replacing: ClosedRange<Date>?

    public init(person: String, source: String, minutes: TrackMinutes, replacing: ClosedRange<Date>?) {
        self.person = person
        self.source = source
        self.minutes = minutes
        self.replacing = replacing
    }
}

extension PositionBatch {
    /// The instants whose hours' kept places (docs/REFERENCE.md §19) the batch changes: the span it
    /// replaces and the span of its own minutes, each to a position's cover past its end. A store
    /// forgets the person's places of the hours from the one holding each lower bound through the
    /// one holding each upper bound.
    public var changedSpans: [ClosedRange<Date>] {
        var spans: [ClosedRange<Date>] = []
        if let replacing { spans.append(replacing.lowerBound...replacing.upperBound.addingTimeInterval(TrackCoverage.positionCover)) }
        // Minutes out of order (a later segment going back) are possible: the span is their least to their greatest.
        if let first = minutes.lazy.map(\.at).min(), let last = minutes.lazy.map(\.at).max() {
            spans.append(first...last.addingTimeInterval(TrackCoverage.positionCover))
        }
        return spans
    }
}

/// How many minutes one source of one person has a position for, and from when to when.
public struct PositionSummary: Sendable, Hashable {
    public var person: String
    public var source: String
    /// The first and last minute's start.
    public var first: Date
    public var last: Date
    public var minutes: Int

    public init(person: String, source: String, first: Date, last: Date, minutes: Int) {
        self.person = person
        self.source = source
        self.first = first
        self.last = last
        self.minutes = minutes
    }
}

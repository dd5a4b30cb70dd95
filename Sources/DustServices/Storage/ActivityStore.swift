import DustKit
import Foundation

/// The read side of the activity store: the walking that reports and alerts use.
public protocol ActivityReadStore: Sendable {
    /// Per slot starting in `[from, to)`: the largest of `person`'s sources' distances and that
    /// source (never their sum; on a tie, the source whose name sorts first; docs/REFERENCE.md §12).
    func walking(person: String, from: Slot, to: Slot) async throws(StorageFailure) -> [Slot: SlotWalking]
    /// The walking of `me`, the one person of an installation without `people:` (docs/REFERENCE.md §18).
    func walking(from: Slot, to: Slot) async throws(StorageFailure) -> [Slot: SlotWalking]
}

/// Where imported walking distances are kept, per source (`health:…`, `gpx:…`, `csv`).
public protocol ActivityStore: ActivityReadStore {
    /// Stores every source of one imported file in one transaction (all or nothing): for each
    /// batch, its source's rows within `replacing` are deleted first, then its distances written.
    /// Other sources are never touched.
    func saveActivity(_ batches: [ActivitySourceBatch], importedAt: Date) async throws(StorageFailure)
    /// What is stored, per person and source, ordered by person, then source name.
    func activitySources() async throws(StorageFailure) -> [ActivitySourceSummary]
    /// Removes `person`'s distances of `source` (nil: of every source); returns the slots removed
    /// (0: nothing to remove).
    func forgetActivity(person: String, source: String?) async throws(StorageFailure) -> Int
    /// Removes `me`'s distances of `source`.
    func forgetActivity(source: String) async throws(StorageFailure) -> Int
    /// Gives every walking distance, heart-rate sample, resting rate, sleep interval and position of `from`
    /// to `to`, in one transaction, when `to` has none of them yet; returns the rows moved (0 when
    /// `from` has none or `to` already has some). What dustd and dustctl do when the first
    /// configured person is not `me` but rows of `me` are stored (docs/REFERENCE.md §18).
    func movePerson(from: String, to: String) async throws(StorageFailure) -> Int
}

/// The distances of one source from one imported file (docs/REFERENCE.md §12).
public struct ActivitySourceBatch: Sendable, Hashable {
    /// The source name under which distances from a CSV file are stored.
    public static let csvSource = "csv"

    /// Whose walking it is (docs/REFERENCE.md §18).
    public var person: String
    /// `health:<sourceName>`, `gpx:<file name>` or `csv`.
    public var source: String
    /// Metres per slot.
    public var distances: [Slot: Double]
    /// The slots whose stored rows of this source the file replaces (deleted before `distances`
    /// are written); nil to overwrite only the slots in `distances`.
    public var replacing: ClosedRange<Slot>?

    public init(person: String = Person.defaultName, source: String, distances: [Slot: Double], replacing: ClosedRange<Slot>?) {
        self.person = person
        self.source = source
        self.distances = distances
        self.replacing = replacing
    }
}

/// The walking distance of one slot: the largest of its sources, and which source that was.
public struct SlotWalking: Sendable, Hashable {
    public var metres: Double
    public var source: String

    public init(metres: Double, source: String) {
        self.metres = metres
        self.source = source
    }
}

/// What is stored of one source of one person.
public struct ActivitySourceSummary: Sendable, Hashable {
    public var person: String
    public var source: String
    public var firstSlot: Slot
    public var lastSlot: Slot
    /// Slots with a stored distance.
    public var slots: Int
    /// Sum of the source's stored distances, metres.
    public var metres: Double

    public init(person: String = Person.defaultName, source: String, firstSlot: Slot, lastSlot: Slot, slots: Int, metres: Double) {
        self.person = person
        self.source = source
        self.firstSlot = firstSlot
        self.lastSlot = lastSlot
        self.slots = slots
        self.metres = metres
    }
}

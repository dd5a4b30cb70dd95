import DustKit
import Foundation

/// Where official advisories (주의보/경보, docs/REFERENCE.md §17) are kept and read back, with the
/// requests that fetched them.
public protocol AdvisoryStore: AttemptStore {
    /// Stores the advisories of a response in one transaction, one per pollutant and key: the same
    /// advisory stored again changes nothing, a revision (a clear time arriving later, a corrected
    /// value) replaces it. Returns how many were new or changed.
    func saveAdvisories(_ advisories: [Advisory], fetchedAt: Date) async throws(StorageFailure) -> Int
    /// The advisories issued in `[start, end)`, and any issued earlier that were still in force at
    /// `start`, newest issue first.
    func advisories(from start: Date, to end: Date) async throws(StorageFailure) -> [Advisory]
    /// The advisories in force at `now` (issued by then, not cleared by then), newest issue first.
    func activeAdvisories(at now: Date) async throws(StorageFailure) -> [Advisory]
}

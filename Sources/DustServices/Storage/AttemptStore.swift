import Foundation

/// Where every request to AirKorea is recorded: what `dustctl status` lists, and what the daily
/// forecast quota is counted from.
public protocol AttemptStore: Sendable {
    /// Records one request (and forgets those older than the retention).
    func recordAttempt(_ attempt: PollAttempt) async throws(StorageFailure)
    /// Requests of `kind` recorded since `start` (for `forecast`, the quota count of
    /// docs/REFERENCE.md §14).
    func attemptCount(kind: AttemptKind, since start: Date) async throws(StorageFailure) -> Int
}

/// What a poll cycle reads and writes: the readings, the newest slot per station, and a record of
/// every request.
public protocol PollStore: ReadingStore, AttemptStore {}

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

extension AttemptStore {
    /// Records one request, returning the storage failure instead of throwing it: a full disk must
    /// not stop a poll or a fetch, so every caller reports the failure and goes on.
    func recordAttemptReportingFailure(_ attempt: PollAttempt) async -> StorageFailure? {
        do {
            try await recordAttempt(attempt)
            return nil
        } catch {
            return error
        }
    }
}

/// What a poll cycle reads and writes: the readings, the newest slot per station, and a record of
/// every request.
public protocol PollStore: ReadingStore, AttemptStore {}

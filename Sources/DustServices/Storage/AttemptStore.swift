import DustKit
import Foundation

/// Where every request to AirKorea is recorded: what `dustctl status` lists, and what the daily
/// forecast quota is counted from.
public protocol AttemptStore: Sendable {
    /// Records one request (and forgets those past `PollAttempt.retention`, counted as `Retention` says).
    func recordAttempt(_ attempt: PollAttempt) async throws(StorageFailure)
    /// Requests of `kind` recorded from `start` until before `end` (for `forecast`, the day's quota
    /// count of docs/REFERENCE.md §14, `end` the next midnight: a call stamped later, by a clock that
    /// was ahead when it was made, must not spend today's calls).
    func attemptCount(kind: AttemptKind, since start: Date, before end: Date) async throws(StorageFailure) -> Int
}

extension AttemptStore {
    /// The forecast service's calls of each kind in the Korean day of `now`, the quota's count
    /// (docs/REFERENCE.md §14): what dustd plans with and `dustctl status` shows.
    public func forecastCallsToday(at now: Date) async throws(StorageFailure) -> [AttemptKind: Int] {
        let start = KoreaStandardTime.startOfDay(containing: now)
        let end = KoreaStandardTime.nextMidnight(after: now)
        var calls: [AttemptKind: Int] = [:]
        for kind in AttemptKind.forecastService { calls[kind] = try await attemptCount(kind: kind, since: start, before: end) }
        return calls
    }

    /// Requests of `kind` recorded since `start`, however late.
    public func attemptCount(kind: AttemptKind, since start: Date) async throws(StorageFailure) -> Int {
        try await attemptCount(kind: kind, since: start, before: .distantFuture)
    }

    /// Records one request, returning the storage failure instead of throwing it: a full disk must
    /// not stop a poll or a fetch, so every caller reports the failure and goes on.
    ///
    /// A stopped request's record is written outside the stop's cancellation, which a PostgreSQL store
    /// obeys by giving its connection up (SQLite finishes a write it has begun), and waited for 2 s at
    /// most, inside systemd's stop timeout.
    func recordAttemptReportingFailure(_ attempt: PollAttempt) async -> StorageFailure? {
        guard Task.isCancelled else { return await recordReportingFailure(attempt) }
        return await finishedWithin(seconds: 2) { await self.recordReportingFailure(attempt) }
            ?? StorageFailure(
                kind: .io,
                description: "The request's record was not written within 2 s of the stop; it is written if dustd lives long enough.")
    }

    private func recordReportingFailure(_ attempt: PollAttempt) async -> StorageFailure? {
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

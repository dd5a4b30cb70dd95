import AirKorea
import Foundation

/// A request to AirKorea under way: when it started and what it asked, so that the poll cycle and
/// the forecast fetch record their attempts alike.
struct AttemptStart {
    let request: AirKoreaRequest
    let station: String?
    let startedAt: Date
    private let instant = ContinuousClock.now

    init(_ request: AirKoreaRequest, station: String?, at now: Date) {
        self.request = request
        self.station = station
        self.startedAt = now
    }

    /// The attempt as it ended: with `failure`'s HTTP status, result code and sentence, or result
    /// code `00` when there is none; its duration measured until now.
    func attempt(
        _ outcome: PollAttempt.Outcome, failure: PollFailure? = nil, httpStatus: Int? = nil, rowsNew: Int = 0, rowsUpdated: Int = 0
    ) -> PollAttempt {
        PollAttempt(
            startedAt: startedAt, station: station, kind: AttemptKind(request), operation: PollCycle.describe(request), outcome: outcome,
            httpStatus: httpStatus ?? failure?.httpStatus, resultCode: failure == nil ? "00" : failure?.resultCode,
            rowsNew: rowsNew, rowsUpdated: rowsUpdated,
            durationMilliseconds: Int((ContinuousClock.now - instant) / .milliseconds(1)), message: failure?.description)
    }
}

import DustServices
import Foundation

extension DaemonStatus {
    /// Notes a cycle's outcome: a success or an error, with its time.
    public mutating func record(_ outcome: CycleOutcome, of report: CycleReport, at now: Date) {
        switch outcome {
        case .succeeded:
            lastSuccess = Success(at: now, rowsNew: report.rowsNew, rowsUpdated: report.rowsUpdated, requests: report.requests)
        case .failed(let failure):
            lastError = Failure(at: now, failure: failure)
        case .stopped:
            break
        }
    }
}

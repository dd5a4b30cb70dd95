import DustKit
import DustServices
import Foundation
import Logging

/// Turns what a cycle noticed and what the state machine decided into journal lines: one place
/// for the daemon's words, shared by the loop and `--once`.
struct CycleLog {
    let logger: Logger

    func notices(_ notices: [CycleNotice]) {
        for notice in notices {
            switch notice {
            case let .backfilling(station, term, newest):
                logger.info("Backfilling \(station) with \(term.rawValue)", metadata: ["latest": "\(newest.map { "\($0)" } ?? "none")"])
            case let .fetched(operation, readings, new, revised, duplicates):
                logger.debug("Fetched \(operation)", metadata: [
                    "rows": "\(readings)", "new": "\(new)", "revised": "\(revised)", "duplicates": "\(duplicates)",
                ])
            case let .futureItems(operation, count):
                logger.warning("Ignored \(count) items of \(operation) stamped more than an hour from now; AirKorea's clock or this machine's is wrong")
            case let .outOfPeriodItems(operation, count):
                logger.warning("Ignored \(count) items of \(operation) stamped before \(SupportedPeriod.firstDate); no station measured them")
            case let .outsideWindowItems(operation, count, hours):
                logger.warning("Ignored \(count) items of \(operation) older than the \(hours) hours it asked for; AirKorea sent more than the request covers")
            case let .pagingCapped(operation, claimed, window, pages):
                logger.warning("AirKorea claims \(claimed) rows for \(operation); stopped after \(pages) pages, all that \(window) rows can fill")
            case let .attemptNotRecorded(failure):
                logger.error("Could not record the poll attempt: \(failure)")
            case let .newestSlotUnknown(station, failure):
                logger.error("Cannot read the newest hour of \(station): \(failure)")
            }
        }
    }

    func announcements(_ announcements: [PollAnnouncement], report: CycleReport) {
        for announcement in announcements {
            switch announcement {
            case let .pollDone(next):
                logger.info("Poll done", metadata: ["new": "\(report.rowsNew)", "revised": "\(report.rowsUpdated)",
                                                    "requests": "\(report.requests)", "next": "\(iso(next))"])
            case .recovered:
                logger.notice("Polling is back to normal")
            case let .retrying(failure, at):
                logger.warning("Poll failed: \(failure)", metadata: ["kind": "\(failure.kind.rawValue)", "retry": "\(iso(at))"])
            case let .problem(failure, next):
                logger.error("\(failure)", metadata: ["kind": "\(failure.kind.rawValue)", "next": "\(iso(next))"])
            case let .problemAgain(failure):
                logger.debug("Still failing: \(failure)")
            case let .quotaExhausted(failure, until):
                logger.error("\(failure)", metadata: ["resume": "\(iso(until))"])
            case let .perSecondLimit(failure, at):
                logger.warning("\(failure)", metadata: ["retry": "\(iso(at))"])
            }
        }
    }

    private func iso(_ date: Date) -> String { KoreaStandardTime.iso8601(date) }
}

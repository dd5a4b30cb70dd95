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
            case .backfilling(let station, let term, let newest):
                logger.info("Backfilling \(station) with \(term.rawValue)", metadata: ["latest": "\(newest.map { "\($0)" } ?? "none")"])
            case .fetched(let operation, let readings, let new, let revised, let duplicates):
                logger.debug(
                    "Fetched \(operation)",
                    metadata: [
                        "rows": "\(readings)", "new": "\(new)", "revised": "\(revised)", "duplicates": "\(duplicates)",
                    ])
            case .futureItems(let operation, let count):
                logger.warning(
                    "Ignored \(count) items of \(operation) stamped more than an hour from now; AirKorea's clock or this machine's is wrong"
                )
            case .unknownValues(let operation, let count):
                logger.warning(
                    "Stored \(count) values of \(operation) as (unknown value): outside what AirKorea's field holds (a flag, a name in Korean)",
                    metadata: ["unknown": "\(count)"])
            case .outOfPeriodItems(let operation, let count):
                logger.warning(
                    "Ignored \(count) items of \(operation) stamped before \(SupportedPeriod.firstDate); no station measured them")
            case .outsideWindowItems(let operation, let count, let hours):
                logger.warning(
                    "Ignored \(count) items of \(operation) older than the \(hours) hours it asked for; AirKorea sent more than the request covers"
                )
            case .otherStationItems(let operation, let count, let asked):
                logger.warning(
                    "Ignored \(count) items of \(operation) naming other stations than \(asked), the one asked for; only the nation's answer stores every station"
                )
            case .pagingCapped(let operation, let claimed, let window, let pages):
                logger.warning(
                    "AirKorea claims \(claimed) rows for \(operation); stopped after \(pages) pages, all that \(window) rows can fill")
            case .attemptNotRecorded(let failure):
                logger.error("Could not record the poll attempt: \(failure)")
            case .newestSlotUnknown(let station, let failure):
                logger.error("Cannot read the newest hour of \(station): \(failure)")
            }
        }
    }

    func announcements(_ announcements: [PollAnnouncement], report: CycleReport) {
        for announcement in announcements {
            switch announcement {
            case .pollDone(let next):
                logger.info(
                    "Poll done",
                    metadata: [
                        "new": "\(report.rowsNew)", "revised": "\(report.rowsUpdated)",
                        "requests": "\(report.requests)", "next": "\(iso(next))",
                    ])
            case .recovered:
                logger.notice("Polling is back to normal")
            case .retrying(let failure, let at):
                logger.warning("Poll failed: \(failure)", metadata: ["kind": "\(failure.kind.rawValue)", "retry": "\(iso(at))"])
            case .problem(let failure, let next):
                logger.error("\(failure)", metadata: ["kind": "\(failure.kind.rawValue)", "next": "\(iso(next))"])
            case .problemAgain(let failure):
                logger.debug("Still failing: \(failure)")
            case .quotaExhausted(let failure, let until):
                logger.error("\(failure)", metadata: ["resume": "\(iso(until))"])
            case .perSecondLimit(let failure, let at):
                logger.warning("\(failure)", metadata: ["retry": "\(iso(at))"])
            }
        }
    }

    private func iso(_ date: Date) -> String { KoreaStandardTime.iso8601(date) }
}

import AirKorea
import DustConfig
import DustKit
import DustServices
import DustStore
import Foundation
import Logging

/// What one poll cycle achieved.
public struct CycleReport: Sendable {
    public var rowsNew = 0
    public var rowsUpdated = 0
    public var requests = 0
    /// The first failure that decides what happens next, if any.
    public var failure: FetchError?

    public var succeeded: Bool { failure == nil }
}

/// One poll cycle: for the primary station and each fallback, fetch what is missing (DAILY, or
/// MONTH after a gap, every page), store each response in its own transaction, and record every
/// request; in nation mode also archive every station with one 전국 request.
public struct Poller: Sendable {
    private let client: AirKoreaClient
    private let store: SQLiteStore
    private let ingest: IngestService
    private let planner: PollPlanner
    private let clock: any WallClock
    private let logger: Logger

    public init(client: AirKoreaClient, store: SQLiteStore, planner: PollPlanner, clock: any WallClock, logger: Logger) {
        self.client = client
        self.store = store
        self.ingest = IngestService(store: store, clock: clock)
        self.planner = planner
        self.clock = clock
        self.logger = logger
    }

    public func cycle(stations: StationPreference, mode: StationMode) async -> CycleReport {
        var report = CycleReport()
        for station in stations.all {
            let latest: Slot?
            do {
                latest = try store.latestSlot(station: station, endingBy: clock.now)
            } catch {
                logger.error("Cannot read the database: \(error)")
                latest = nil
            }
            let term = planner.backfillTerm(latest: latest, now: clock.now)
            if term != .daily {
                logger.info("Backfilling \(station) with \(term.rawValue)", metadata: ["latest": "\(latest.map { "\($0)" } ?? "none")"])
            }
            let request = AirKoreaRequest.stationRealtime(station: station, term: term, page: 1, rows: planner.rowsPerPage(term))
            let outcome = await fetchAllPages(request, station: station, into: &report)
            if case let .failure(error) = outcome {
                report.failure = report.failure ?? error
                // A key or quota problem affects every request: stop here instead of repeating it.
                if error.retryAdvice != .retryWithBackoff { return report }
            }
        }
        if mode == .nation {
            _ = await fetchAllPages(.provinceRealtime(sido: "전국", page: 1, rows: 1000), station: nil, into: &report)
        }
        return report
    }

    private func fetchAllPages(_ first: AirKoreaRequest, station: String?, into report: inout CycleReport) async -> Result<Void, FetchError> {
        var request = first
        while !Task.isCancelled {
            let paging: Paging
            switch await fetch(request, station: station, into: &report) {
            case let .success(received): paging = received
            case let .failure(error): return .failure(error)
            }
            switch request.nextStep(after: paging) {
            case let .next(following):
                request = following
            case .complete:
                return .success(())
            case let .capped(claimed, window, pages):
                // A lying totalCount must not spend the day's quota (500 calls) in one cycle.
                logger.warning("AirKorea claims \(claimed) rows for \(Self.describe(first)); stopped after \(pages) pages, all that \(window) rows can fill")
                return .success(())
            }
        }
        return .success(())
    }

    /// One request: fetch, ingest, record.
    private func fetch(_ request: AirKoreaRequest, station: String?, into report: inout CycleReport) async -> Result<Paging, FetchError> {
        let started = clock.now
        let startInstant = ContinuousClock.now
        report.requests += 1
        let operation = Self.describe(request)
        func milliseconds() -> Int {
            let elapsed = ContinuousClock.now - startInstant
            return Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        }
        do {
            let fetched = try await client.measurements(request)
            let stored: IngestReport
            do {
                stored = try ingest.store(fetched.page)
            } catch {
                logger.error("Could not store \(operation): \(error)")
                record(PollAttempt(startedAt: started, station: station, operation: operation, outcome: .retrying,
                                   httpStatus: fetched.httpStatus, resultCode: "00", durationMilliseconds: milliseconds(),
                                   message: error.description))
                return .failure(.transport(.connection("the database refused the batch: \(error)")))
            }
            report.rowsNew += stored.stored.inserted
            report.rowsUpdated += stored.stored.updated
            record(PollAttempt(startedAt: started, station: station, operation: operation, outcome: .ok,
                               httpStatus: fetched.httpStatus, resultCode: "00", rowsNew: stored.stored.inserted,
                               rowsUpdated: stored.stored.updated, durationMilliseconds: milliseconds()))
            logger.debug("Fetched \(operation)", metadata: [
                "rows": "\(stored.readings)", "new": "\(stored.stored.inserted)", "revised": "\(stored.stored.updated)",
                "duplicates": "\(stored.duplicateItems)",
            ])
            if stored.futureItems > 0 {
                logger.warning("Ignored \(stored.futureItems) items of \(operation) stamped more than an hour from now; AirKorea's clock or this machine's is wrong")
            }
            return .success(fetched.page.paging)
        } catch {
            let outcome: PollAttempt.Outcome = switch error.retryAdvice {
            case .retryWithBackoff: .retrying
            case .waitForNextHour: .failed
            case .waitUntilMidnightKST, .waitAMinute: .quota
            }
            record(PollAttempt(startedAt: started, station: station, operation: operation, outcome: outcome,
                               httpStatus: error.httpStatus, resultCode: error.resultCode, durationMilliseconds: milliseconds(),
                               message: error.description))
            return .failure(error)
        }
    }

    private func record(_ attempt: PollAttempt) {
        do {
            try store.record(attempt)
        } catch {
            // A full disk must not stop polling; the failure is in the journal instead.
            logger.error("Could not record the poll attempt: \(error)")
        }
    }

    static func describe(_ request: AirKoreaRequest) -> String {
        switch request {
        case let .stationRealtime(station, term, page, _): "station \(station) \(term.rawValue) page \(page)"
        case let .provinceRealtime(sido, page, _): "province \(sido) page \(page)"
        case let .stationList(_, _, page, _): "station list page \(page)"
        }
    }
}

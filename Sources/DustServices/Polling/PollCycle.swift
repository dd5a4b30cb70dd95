import AirKorea
import DustKit
import Foundation

/// How much history to ask AirKorea for, given the newest stored slot (docs/REFERENCE.md §7).
public enum BackfillPlan {
    /// DAILY when at most a day is missing, MONTH up to a month (and on an empty database), 3MONTH beyond.
    public static func term(newest: Slot?, now: Date) -> DataTerm {
        guard let newest else { return .month }
        let gap = now.timeIntervalSince(newest.end)
        if gap <= 24 * 3600 { return .daily }
        if gap <= 30 * 86_400 { return .month }
        return .threeMonths
    }

    /// Rows per page: DAILY fits one small page; longer terms page by 1,000.
    public static func rowsPerPage(_ term: DataTerm) -> Int {
        term == .daily ? 100 : 1000
    }
}

/// Something the daemon should know about a cycle besides its counts: it decides what to log.
public enum CycleNotice: Sendable, Hashable {
    /// A station is behind by more than a day and gets a longer term.
    case backfilling(station: String, term: DataTerm, newest: Slot?)
    /// A page was stored.
    case fetched(operation: String, readings: Int, new: Int, revised: Int, duplicates: Int)
    /// Items stamped more than an hour ahead were ignored.
    case futureItems(operation: String, count: Int)
    /// Values outside their field's vocabulary were stored as `(unknown value)` (or their item dropped).
    case unknownValues(operation: String, count: Int)
    /// Items stamped before 2000-01-01 were ignored.
    case outOfPeriodItems(operation: String, count: Int)
    /// Items older than the request's window (`windowHours` back) were ignored.
    case outsideWindowItems(operation: String, count: Int, windowHours: Int)
    /// Items of other stations than the one a station's request asked for were ignored.
    case otherStationItems(operation: String, count: Int, asked: String)
    /// `totalCount` claimed more rows than the request's window holds; paging stopped there.
    case pagingCapped(operation: String, claimedRows: Int, windowRows: Int, pagesRead: Int)
    /// The database would not take the record of a request (polling goes on).
    case attemptNotRecorded(StorageFailure)
    /// The newest stored slot could not be read: the cycle stopped before asking AirKorea.
    case newestSlotUnknown(station: String, StorageFailure)
}

/// What one poll cycle did.
public struct CycleReport: Sendable {
    public var rowsNew = 0
    public var rowsUpdated = 0
    public var requests = 0
    /// The first failure that decides what happens next, if any.
    public var failure: PollFailure?
    /// The cycle was cancelled (dustd is stopping) before it finished.
    public var stopped = false
    public var notices: [CycleNotice] = []
    /// The failure of the station being polled that every further request would meet (a key, quota or
    /// storage problem), if any; a station AirKorea returned no hour for is that station's alone and is
    /// not one: the others (the fallbacks, the households' stations, the nation) are still polled.
    var stopsTheCycle: PollFailure?

    public init() {}

    /// Everything asked for was fetched and stored.
    public var succeeded: Bool { failure == nil && !stopped }
}

/// One poll cycle: for the primary station and each fallback, fetch what is missing (DAILY, or
/// longer after a gap, every page the window allows), store each response in its own
/// transaction, and record every request; optionally also archive every station with one 전국
/// request.
public struct PollCycle: Sendable {
    private let source: any MeasurementAPI
    private let store: any PollStore
    private let ingest: IngestService
    private let clock: any WallClock
    /// Where the names suggested for a station AirKorea does not know come from.
    private let stationList: (any StationStore)?

    public init(source: any MeasurementAPI, store: any PollStore, clock: any WallClock, stationList: (any StationStore)? = nil) {
        self.source = source
        self.store = store
        self.stationList = stationList
        self.ingest = IngestService(store: store, clock: clock)
        self.clock = clock
    }

    public func run(stations: StationPreference, includeNation: Bool) async -> CycleReport {
        var report = CycleReport()
        for station in stations.all {
            let newest: Slot?
            do {
                newest = try await store.newestSlot(station: station, endingBy: clock.now)
            } catch {
                // Without the newest stored hour the term cannot be chosen: a station taken for empty
                // would be backfilled with a MONTH request every poll while the database cannot be
                // read (a lock held for minutes, a row changed by hand). No request is sent.
                report.notices.append(.newestSlotUnknown(station: station, error))
                let failure = PollFailure.storage(error)
                report.failure = report.failure ?? failure
                report.stopsTheCycle = failure
                return report
            }
            let term = BackfillPlan.term(newest: newest, now: clock.now)
            if term != .daily { report.notices.append(.backfilling(station: station, term: term, newest: newest)) }
            let request = AirKoreaRequest.stationRealtime(station: station, term: term, page: 1, rows: BackfillPlan.rowsPerPage(term))
            await fetchAllPages(request, station: station, newest: newest, into: &report)
            if report.stopped { return report }
            // A key, quota or storage problem affects every request: stop here instead of repeating it.
            if report.stopsTheCycle != nil { return report }
        }
        if includeNation {
            await fetchAllPages(.provinceRealtime(sido: "전국", page: 1, rows: 1000), station: nil, into: &report)
        }
        return report
    }

    private func fetchAllPages(_ first: AirKoreaRequest, station: String?, newest: Slot? = nil, into report: inout CycleReport) async {
        let end = await first.fetchPages { request in await fetch(request, station: station, newest: newest, into: &report) }
        // Cancelled before its first request or between two pages (`fetchPages` asks nothing more of a cancelled
        // task, and says so with no step): a stop, not a poll that worked. Counted as one, it set the last
        // success and announced "Polling is back to normal" while AirKorea was failing.
        if end == nil, Task.isCancelled, report.failure == nil {
            report.stopped = true
            return
        }
        if case .capped(let claimed, let window, let pages) = end {
            // A lying totalCount must not spend the day's quota (500 calls) in one cycle.
            report.notices.append(
                .pagingCapped(operation: Self.describe(first), claimedRows: claimed, windowRows: window, pagesRead: pages))
        }
    }

    /// One request: fetch, ingest, record. Nil when the cycle must not go on with this request.
    private func fetch(_ request: AirKoreaRequest, station: String?, newest: Slot?, into report: inout CycleReport) async -> Paging? {
        let started = AttemptStart(request, station: station, at: clock.now)
        report.requests += 1
        let operation = Self.describe(request)
        let fetched: FetchedPage
        do {
            fetched = try await source.measurements(request)
        } catch {
            // A stop in the middle of a request is the operator's doing, not a network failure.
            if Task.isCancelled {
                report.stopped = true
                await record(started.attempt(.stopped), into: &report)
                return nil
            }
            let failure = PollFailure.fetch(error)
            report.failure = report.failure ?? failure
            if failure.retryAdvice != .retryWithBackoff { report.stopsTheCycle = failure }
            await record(started.attempt(Self.outcome(of: failure), failure: failure), into: &report)
            return nil
        }
        let stored: IngestReport
        do {
            stored = try await ingest.store(fetched.page, windowHours: request.windowHours, onlyStation: request.requestedStation)
        } catch {
            // Stopped while storing: SQLite finishes the write under way, PostgreSQL gives the
            // connection up and the server rolls it back. A stop either way, not a storage failure
            // (which the next poller would have shown as the last error); the hours are fetched again.
            if Task.isCancelled {
                report.stopped = true
                await record(started.attempt(.stopped, httpStatus: fetched.httpStatus), into: &report)
                return nil
            }
            let failure = PollFailure.storage(error)
            report.failure = report.failure ?? failure
            report.stopsTheCycle = failure
            await record(started.attempt(.retrying, failure: failure, httpStatus: fetched.httpStatus), into: &report)
            return nil
        }
        // No hour at all for a station on the first page: AirKorea has no station by that name.
        if case .stationRealtime(let name, _, 1, _) = request, fetched.page.paging.itemCount == 0,
            (fetched.page.paging.totalCount ?? 0) == 0
        {
            let known = (try? await stationList?.stations().map(\.name)) ?? []
            let failure = PollFailure.configuration(
                newest.map { StationNames.noLongerAnswered(name, newest: $0) } ?? StationNames.unknownToAirKorea(name, known: known))
            report.failure = report.failure ?? failure
            await record(started.attempt(.failed, failure: failure, httpStatus: fetched.httpStatus), into: &report)
            return nil
        }
        report.rowsNew += stored.stored.inserted
        report.rowsUpdated += stored.stored.updated
        await record(
            started.attempt(.ok, httpStatus: fetched.httpStatus, rowsNew: stored.stored.inserted, rowsUpdated: stored.stored.updated),
            into: &report)
        report.notices.append(
            .fetched(
                operation: operation, readings: stored.readings, new: stored.stored.inserted,
                revised: stored.stored.updated, duplicates: stored.duplicateItems))
        if stored.futureItems > 0 { report.notices.append(.futureItems(operation: operation, count: stored.futureItems)) }
        if stored.unknownValues > 0 { report.notices.append(.unknownValues(operation: operation, count: stored.unknownValues)) }
        if stored.outOfPeriodItems > 0 { report.notices.append(.outOfPeriodItems(operation: operation, count: stored.outOfPeriodItems)) }
        if stored.outsideWindowItems > 0, let hours = request.windowHours {
            report.notices.append(.outsideWindowItems(operation: operation, count: stored.outsideWindowItems, windowHours: hours))
        }
        if stored.otherStationItems > 0, let asked = request.requestedStation {
            report.notices.append(.otherStationItems(operation: operation, count: stored.otherStationItems, asked: asked))
        }
        if Task.isCancelled {
            report.stopped = true
            return nil
        }
        return fetched.page.paging
    }

    private func record(_ attempt: PollAttempt, into report: inout CycleReport) async {
        // A full disk must not stop polling; the daemon logs it instead.
        if let failure = await store.recordAttemptReportingFailure(attempt) { report.notices.append(.attemptNotRecorded(failure)) }
    }

    static func outcome(of failure: PollFailure) -> PollAttempt.Outcome {
        switch failure.retryAdvice {
        case .retryWithBackoff: .retrying
        case .waitForNextHour: .failed
        case .waitUntilMidnightKST, .waitAMinute: .quota
        }
    }

    /// How a request is named in logs and records, e.g. `station 종로구 DAILY page 1`.
    public static func describe(_ request: AirKoreaRequest) -> String {
        switch request {
        case .stationRealtime(let station, let term, let page, _): "station \(station) \(term.rawValue) page \(page)"
        case .provinceRealtime(let sido, let page, _): "province \(sido) page \(page)"
        case .stationList(_, _, let page, _): "station list page \(page)"
        case .forecast(let searchDate, let pollutant, let page, _): "forecast \(pollutant.informCode) \(searchDate) page \(page)"
        case .weeklyOutlook(let searchDate, let page, _): "\(WeeklyOutlookFetch.operationPrefix)\(searchDate) page \(page)"
        case .advisories(let year, let pollutant, let page, _): "advisories \(pollutant.rawValue) \(year) page \(page)"
        }
    }
}

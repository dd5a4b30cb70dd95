import AirKorea
import DustKit
import Foundation

/// Where the weekly outlook comes from. `AirKoreaClient` is the production source.
public protocol WeeklyOutlookAPI: Sendable {
    /// Fetches one page of the weekly outlook (`AirKoreaRequest.weeklyOutlook`).
    func weeklyOutlooks(_ request: AirKoreaRequest) async throws(FetchError) -> WeeklyOutlookPage
}

extension AirKoreaClient: WeeklyOutlookAPI {}

/// What fetching the weekly outlook once did.
public struct WeeklyOutlookFetchReport: Sendable {
    /// Requests sent: 1, or 0 when dustd was stopping before it.
    public var requests = 0
    /// Whether a publication new or changed in the database came with the answer.
    public var stored = false
    /// Items the parser skipped (an unreadable `presnatnDt`, no readable day).
    public var skippedItems = 0
    /// The newest publication the answer held.
    public var newestPublication: LocalDate?
    public var failure: PollFailure?
    /// dustd is stopping; the fetch was cut short.
    public var stopped = false
    /// The database would not take the record of the request.
    public var unrecordedAttempts: [StorageFailure] = []
    /// Conditions withheld because beside the forecast's stored sentences they showed the key.
    public var textsWithheld = 0

    public init() {}

    /// The answer held the publication of `day` (or a newer one).
    public func fetched(_ day: LocalDate) -> Bool {
        failure == nil && !stopped && (newestPublication.map { $0 >= day } ?? false)
    }
}

/// Fetches the weekly outlook published on a day — one request —, stores every publication the
/// answer holds, and records the request as a forecast attempt (it counts toward the daily cap of
/// docs/REFERENCE.md §14) with its own operation, `weekly outlook 2026-11-22 page 1`.
public struct WeeklyOutlookFetch: Sendable {
    /// How every weekly outlook attempt's operation begins, as logs and `dustctl status` show it; the
    /// cap counts the attempt's kind (`weeklyOutlook`), never this text.
    public static let operationPrefix = "weekly outlook "

    private let source: any WeeklyOutlookAPI
    private let store: any ForecastStore
    private let clock: any WallClock
    private let echoes: any EchoDetector

    /// - Parameter echoes: the service key's guard (dustd's): the parser checked the conditions alone,
    ///   but `dustctl forecast --json` prints them after the forecast's sentences, so they are checked
    ///   beside the stored ones, in either order, before they are stored.
    public init(source: any WeeklyOutlookAPI, store: any ForecastStore, clock: any WallClock, echoes: any EchoDetector = KeyEchoGuard.none)
    {
        self.source = source
        self.store = store
        self.clock = clock
        self.echoes = echoes
    }

    /// Fetches the outlook published on `searchDate`.
    public func run(searchDate: LocalDate) async -> WeeklyOutlookFetchReport {
        var report = WeeklyOutlookFetchReport()
        guard !Task.isCancelled else {
            report.stopped = true
            return report
        }
        let request = AirKoreaRequest.weeklyOutlook(searchDate: searchDate)
        let started = AttemptStart(request, station: nil, at: clock.now)
        report.requests = 1
        let page: WeeklyOutlookPage
        do {
            page = try await source.weeklyOutlooks(request)
        } catch {
            if Task.isCancelled {
                report.stopped = true
                await record(started.attempt(.stopped), into: &report)
                return report
            }
            let failure = PollFailure.fetch(error)
            report.failure = failure
            await record(started.attempt(PollCycle.outcome(of: failure), failure: failure), into: &report)
            return report
        }
        // No publication dated more than a day ahead (ForecastFetch.futureTolerance): dropped and counted.
        let latestPossible = KoreaStandardTime.date(containing: clock.now.addingTimeInterval(ForecastFetch.futureTolerance))
        let published = page.outlooks.filter { $0.publishedOn <= latestPossible }
        report.skippedItems = page.skippedItems + page.outlooks.count - published.count
        let shown = await store.textsShown(from: searchDate)
        let outlooks = published.map { outlook in
            guard let conditions = outlook.conditions, !shown.isEmpty,
                echoes.echoes((shown + [conditions]).joined(separator: "\n"))
                    || echoes.echoes(([conditions] + shown).joined(separator: "\n"))
            else { return outlook }
            report.textsWithheld += 1
            var withheld = outlook
            withheld.conditions = KeyEchoGuard.withheldText
            return withheld
        }
        do {
            var changed = 0
            for outlook in outlooks {
                if try await store.saveWeeklyOutlook(outlook, fetchedAt: clock.now) { changed += 1 }
            }
            report.stored = changed > 0
            report.newestPublication = outlooks.map(\.publishedOn).max()
            await record(started.attempt(.ok, httpStatus: page.httpStatus, rowsNew: changed), into: &report)
        } catch {
            let failure = PollFailure.storage(error)
            report.failure = failure
            await record(started.attempt(.retrying, failure: failure, httpStatus: page.httpStatus), into: &report)
        }
        return report
    }

    private func record(_ attempt: PollAttempt, into report: inout WeeklyOutlookFetchReport) async {
        if let failure = await store.recordAttemptReportingFailure(attempt) { report.unrecordedAttempts.append(failure) }
    }
}

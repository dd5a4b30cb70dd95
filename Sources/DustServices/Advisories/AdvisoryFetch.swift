import AirKorea
import DustKit
import Foundation

/// Where advisories come from. `AirKoreaClient` is the production source.
public protocol AdvisoryAPI: Sendable {
    /// Fetches one page of advisories (`AirKoreaRequest.advisories`).
    func advisories(_ request: AirKoreaRequest) async throws(FetchError) -> AdvisoryPage
}

extension AirKoreaClient: AdvisoryAPI {}

/// How one advisory operation ended.
public enum AdvisoryOutcome: Sendable, Hashable {
    /// The answer was stored: advisories new or changed, items skipped.
    case stored(changed: Int, skipped: Int)
    /// The key is not approved for the operation's service (result 20 or 12, or 30 while the
    /// measurements work): the operation stays off until a reload.
    case notApproved(PollFailure)
    /// Anything else (a transport failure, a passing AirKorea error, the database): tried again at the next hour.
    case failed(PollFailure)
}

/// What fetching the advisories did.
public struct AdvisoryFetchReport: Sendable {
    /// Each operation asked, in order, with how it ended.
    public var outcomes: [(pollutant: AdvisoryPollutant, outcome: AdvisoryOutcome)] = []
    /// Every request, as recorded (also when the database would not take the record): what the counters count.
    public var attempts: [PollAttempt] = []
    /// dustd is stopping; the fetch was cut short.
    public var stopped = false
    /// The database would not take the record of a request (fetching goes on).
    public var unrecordedAttempts: [StorageFailure] = []

    public init() {}
}

/// Fetches the year's advisories of each operation asked for — one request each, 1,000 rows, which
/// hold a year — stores them, and records each request as an attempt of the kind `advisory`, which no
/// measurement count or quota includes (docs/REFERENCE.md §17).
public struct AdvisoryFetch: Sendable {
    /// Rows asked for: more than a bad year's advisories across the country, so one request a year.
    public static let rows = 1000

    private let source: any AdvisoryAPI
    private let store: any AdvisoryStore
    private let clock: any WallClock

    public init(source: any AdvisoryAPI, store: any AdvisoryStore, clock: any WallClock) {
        self.source = source
        self.store = store
        self.clock = clock
    }

    /// The most pages of one operation and year read: a year of more than 5,000 advisories would be
    /// unheard of, and a server that claims more cannot keep dustd asking.
    public static let maxPages = 5

    /// Fetches the advisories of `years` (this year, and last year while one issued then is still
    /// open, so its clear is seen) of `pollutants`' operations, every page of each.
    /// - Parameter measurementsWork: the key works for the measurements, so a gateway 30 (key not
    ///   registered) from an advisory service means that service only.
    public func run(years: [Int], pollutants: [AdvisoryPollutant], measurementsWork: Bool) async -> AdvisoryFetchReport {
        var report = AdvisoryFetchReport()
        for year in years {
            for pollutant in pollutants {
                guard !Task.isCancelled else {
                    report.stopped = true
                    return report
                }
                await fetch(.advisories(year: year, pollutant: pollutant, rows: Self.rows), pollutant, measurementsWork, into: &report)
                if report.stopped { return report }
            }
        }
        return report
    }

    /// Whether `error` says the key is not approved for the service that answered.
    public static func meansNotApproved(_ error: FetchError, measurementsWork: Bool) -> Bool {
        guard case .response(.service(let code, _, _), _) = error else { return false }
        switch code {
        case .accessDenied, .noSuchService: return true
        case .serviceKeyNotRegistered: return measurementsWork
        default: return false
        }
    }

    private func fetch(
        _ request: AirKoreaRequest, _ pollutant: AdvisoryPollutant, _ measurementsWork: Bool, into report: inout AdvisoryFetchReport
    ) async {
        let started = AttemptStart(request, station: nil, at: clock.now)
        let page: AdvisoryPage
        do {
            page = try await source.advisories(request)
        } catch {
            if Task.isCancelled {
                report.stopped = true
                await record(started.attempt(.stopped), into: &report)
                return
            }
            let failure = PollFailure.fetch(error)
            let notApproved = Self.meansNotApproved(error, measurementsWork: measurementsWork)
            report.outcomes.append((pollutant, notApproved ? .notApproved(failure) : .failed(failure)))
            await record(started.attempt(notApproved ? .failed : PollCycle.outcome(of: failure), failure: failure), into: &report)
            return
        }
        // Only the pollutant asked for, and nothing issued more than a day ahead (ForecastFetch.futureTolerance):
        // dropped and counted as skipped.
        let latestPossible = clock.now.addingTimeInterval(ForecastFetch.futureTolerance)
        let advisories = page.advisories.filter { $0.pollutant == pollutant && $0.issuedAt <= latestPossible }
        let skipped = page.skippedItems + page.advisories.count - advisories.count
        do {
            let changed = try await store.saveAdvisories(advisories, fetchedAt: clock.now)
            report.outcomes.append((pollutant, .stored(changed: changed, skipped: skipped)))
            await record(started.attempt(.ok, httpStatus: page.httpStatus, rowsNew: changed), into: &report)
            // A year that does not fit one page (AirKorea's totalCount says so) is read to its end.
            let number = request.pageNumber
            if let total = page.paging.totalCount, number * Self.rows < total, page.paging.itemCount > 0, number < Self.maxPages {
                await fetch(request.page(number + 1), pollutant, measurementsWork, into: &report)
            }
        } catch {
            let failure = PollFailure.storage(error)
            report.outcomes.append((pollutant, .failed(failure)))
            await record(started.attempt(.retrying, failure: failure, httpStatus: page.httpStatus), into: &report)
        }
    }

    private func record(_ attempt: PollAttempt, into report: inout AdvisoryFetchReport) async {
        report.attempts.append(attempt)
        if let failure = await store.recordAttemptReportingFailure(attempt) { report.unrecordedAttempts.append(failure) }
    }
}

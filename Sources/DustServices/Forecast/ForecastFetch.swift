import AirKorea
import DustKit
import Foundation

/// What fetching one publication did.
public struct ForecastFetchReport: Sendable {
    /// Requests sent (each counts against the quota, failed or not).
    public var requests = 0
    /// Issues (pollutant, issue, date) new or changed in the database.
    public var issuesStored = 0
    /// Items the parser skipped (another pollutant, an unreadable time or date).
    public var skippedItems = 0
    /// Sentences withheld because beside the publication's other pollutant's, or beside those stored
    /// from earlier publications for the same days, they showed the key.
    public var textsWithheld = 0
    /// Items issued more than a day after the fetch (`ForecastFetch.futureTolerance`): dropped, as
    /// no forecast is published ahead, and a date far ahead would pass for the newest for good.
    public var futureItems = 0
    /// The newest issue each pollutant's answer held.
    public var newestIssue: [Pollutant: Date] = [:]
    /// The first failure, if any.
    public var failure: PollFailure?
    /// dustd is stopping; the fetch was cut short.
    public var stopped = false
    /// The database would not take the record of a request (fetching goes on).
    public var unrecordedAttempts: [StorageFailure] = []

    public init() {}

    /// Both pollutants answered with the publication (or a newer one).
    public func fetched(_ publication: Date) -> Bool {
        failure == nil && !stopped && Pollutant.allCases.allSatisfy { (newestIssue[$0] ?? .distantPast) >= publication }
    }
}

/// Fetches one forecast publication — PM10 then PM25, one request each — stores every issue the
/// answers hold, and records each request like a poll attempt (kind `forecast`, operation `forecast PM10 …`).
public struct ForecastFetch: Sendable {
    private let source: any ForecastAPI
    private let store: any ForecastStore
    private let clock: any WallClock
    private let echoes: any EchoDetector

    /// - Parameter echoes: the service key's guard (dustd's): each answer's texts were checked alone
    ///   by the parser, but `dustctl forecast` prints the PM10 and PM2.5 sentences of a publication,
    ///   and of the earlier publications still in use, side by side: an answer's are checked beside
    ///   the first answer's and the stored ones before they are stored.
    public init(source: any ForecastAPI, store: any ForecastStore, clock: any WallClock, echoes: any EchoDetector = KeyEchoGuard.none) {
        self.source = source
        self.store = store
        self.clock = clock
        self.echoes = echoes
    }

    /// Fetches `searchDate`'s forecasts of both pollutants.
    public func run(searchDate: LocalDate) async -> ForecastFetchReport {
        var report = ForecastFetchReport()
        // The sentences already stored for the days this publication forecasts: an outlook shows
        // today's and tomorrow's, each from the newest issue that has it, so an earlier publication's
        // sentences are printed beside this one's (`dustctl forecast --json`, `today`'s
        // `forecastTomorrow`), and are checked beside them too.
        var earlierTexts = await store.textsShown(from: searchDate)
        for pollutant in Pollutant.allCases {
            guard !Task.isCancelled else {
                report.stopped = true
                return report
            }
            await fetch(
                .forecast(searchDate: searchDate, pollutant: pollutant), pollutant: pollutant, earlierTexts: &earlierTexts, into: &report)
            if report.failure != nil || report.stopped { return report }
        }
        return report
    }

    /// `forecasts` with their sentences withheld when, beside `earlier` (the publication's other
    /// pollutant, stored already) in either order, they would show the key; counted in `report`.
    private func withholdingComposedEchoes(
        _ forecasts: [DustForecast], beside earlier: [String], into report: inout ForecastFetchReport
    ) -> [DustForecast] {
        let texts = forecasts.flatMap { [$0.overall, $0.cause].compactMap { $0 } }
        guard !texts.isEmpty, !earlier.isEmpty,
            echoes.echoes((earlier + texts).joined(separator: "\n")) || echoes.echoes((texts + earlier).joined(separator: "\n"))
        else { return forecasts }
        report.textsWithheld += texts.count
        return forecasts.map { forecast in
            var withheld = forecast
            withheld.overall = forecast.overall.map { _ in KeyEchoGuard.withheldText }
            withheld.cause = forecast.cause.map { _ in KeyEchoGuard.withheldText }
            return withheld
        }
    }

    private func fetch(
        _ request: AirKoreaRequest, pollutant: Pollutant, earlierTexts: inout [String], into report: inout ForecastFetchReport
    ) async {
        let started = AttemptStart(request, station: nil, at: clock.now)
        report.requests += 1
        let page: ForecastPage
        do {
            page = try await source.forecasts(request)
        } catch {
            if Task.isCancelled {
                report.stopped = true
                await record(started.attempt(.stopped), into: &report)
                return
            }
            let failure = PollFailure.fetch(error)
            report.failure = failure
            await record(started.attempt(PollCycle.outcome(of: failure), failure: failure), into: &report)
            return
        }
        // Only the pollutant asked for counts, whatever a confused server sends; nothing from the future.
        let ofPollutant = page.forecasts.filter { $0.pollutant == pollutant }
        let latestPossible = clock.now.addingTimeInterval(Self.futureTolerance)
        let forecasts = withholdingComposedEchoes(
            ofPollutant.filter { $0.issuedAt <= latestPossible }, beside: earlierTexts, into: &report)
        earlierTexts += forecasts.flatMap { [$0.overall, $0.cause].compactMap { $0 } }
        report.skippedItems += page.skippedItems + (page.forecasts.count - ofPollutant.count)
        report.futureItems += ofPollutant.count - forecasts.count
        do {
            let stored = try await store.saveForecasts(forecasts, fetchedAt: clock.now)
            report.issuesStored += stored
            if let newest = forecasts.map(\.issuedAt).max() { report.newestIssue[pollutant] = newest }
            await record(started.attempt(.ok, httpStatus: page.httpStatus, rowsNew: stored), into: &report)
        } catch {
            let failure = PollFailure.storage(error)
            report.failure = failure
            await record(started.attempt(.retrying, failure: failure, httpStatus: page.httpStatus), into: &report)
        }
    }

    /// How far after the fetch an item may say it was issued, for a clock a little behind the server's.
    public static let futureTolerance: TimeInterval = 86_400

    private func record(_ attempt: PollAttempt, into report: inout ForecastFetchReport) async {
        if let failure = await store.recordAttemptReportingFailure(attempt) { report.unrecordedAttempts.append(failure) }
    }
}

extension ForecastStore {
    /// The free texts an outlook may print beside a new publication's (docs/REFERENCE.md §14, §17):
    /// the distinct sentences of the newest stored issues for `first` and the two days after it, of
    /// either pollutant, in any region, and the newest weekly outlook's conditions. None when the
    /// database cannot say: the fetch goes on, and the outputs' own doors still check what they print.
    func textsShown(from first: LocalDate) async -> [String] {
        var texts: [String] = []
        for pollutant in Pollutant.allCases {
            for offset in 0...2 {
                for region in ForecastRegion.allCases {
                    guard let stored = try? await forecast(pollutant: pollutant, date: first.adding(days: offset), region: region)
                    else { continue }
                    for text in [stored.overall, stored.cause].compactMap({ $0 }) where !texts.contains(text) { texts.append(text) }
                }
            }
        }
        if let conditions = (try? await newestWeeklyOutlook())?.conditions, !texts.contains(conditions) { texts.append(conditions) }
        return texts.filter { $0 != KeyEchoGuard.withheldText }
    }
}

import AirKorea
import DustConfig
import DustKit
import DustServices
import Foundation
import Logging
import Metrics
import ServiceLifecycle

/// Fetches AirKorea's dust forecast after each publication (docs/REFERENCE.md §14), and the weekly outlook once
/// a day (§17), beside `PollService` in the service group: its own loop, so a forecast request never delays
/// an hourly poll, and one loop for both, so the calls it counts are never spent twice.
/// `ForecastPlanner` decides when (12 calls a KST day at most, retries and the catch-up included); the calls
/// already made today are counted from the attempt record, so a restart does not reset the quota.
public struct ForecastService: Service, CustomStringConvertible {
    /// The name the service group logs: its fields (the settings, the sinks) stay out of the journal.
    public var description: String { "ForecastService" }

    private let configuration: LiveConfiguration
    private let database: DaemonDatabase
    private let board: DaemonStatusBoard
    private let transport: any HTTPTransport
    private let clock: any WallClock
    private let logger: Logger
    private let counters: RequestCounters
    private let planner = ForecastPlanner()

    /// - Parameter metrics: the swift-metrics factory every forecast request is counted with (`RequestCounters`).
    public init(
        configuration: LiveConfiguration, database: DaemonDatabase, board: DaemonStatusBoard, transport: any HTTPTransport,
        clock: any WallClock = SystemClock(), logger: Logger, metrics: any MetricsFactory = NOOPMetricsHandler.instance
    ) {
        self.configuration = configuration
        self.database = database
        self.board = board
        self.transport = transport
        self.clock = clock
        self.logger = logger
        counters = RequestCounters(factory: metrics)
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await loop()
        }
    }

    private func loop() async {
        var failure: ForecastPlanner.Failure?
        /// The publication `failure` is about: a new publication starts its backoff afresh.
        var failedPublication: Date?
        var lastProblem: String?
        /// The weekly outlook's last failure, for its backoff.
        var outlookFailure: ForecastPlanner.Failure?
        /// The configuration the failures were met with: a reload (a renewed key, another api.baseURL) starts
        /// both backoffs afresh, as it makes the poll ask at once.
        var generation = configuration.generation
        while !Task.isCancelled {
            if configuration.generation != generation {
                generation = configuration.generation
                (failure, failedPublication, outlookFailure) = (nil, nil, nil)
            }
            let snapshot = configuration.snapshot
            guard snapshot.settings.forecast.enabled else {
                guard await pauseUnplanned() else { return }
                continue
            }
            let now = clock.now
            let store: any FineDustStore
            let latest: Date?
            var decision: ForecastPlanner.Decision
            let outlookDecision: ForecastPlanner.OutlookDecision
            do {
                store = try database.current()
                // The cap counts every kind of the forecast service (docs/REFERENCE.md §14), as
                // `dustctl status` does; the outlook's own 2 count its kind.
                let callsByKind = try await store.forecastCallsToday(at: now)
                let calls = callsByKind.values.reduce(0, +)
                let outlookCalls = callsByKind[.weeklyOutlook] ?? 0
                var newest: [Date?] = []
                for pollutant in Pollutant.allCases {
                    newest.append(try await store.newestForecastIssue(pollutant: pollutant, notAfter: now))
                }
                latest = newest.contains(where: { $0 == nil }) ? nil : newest.compactMap { $0 }.min()
                decision = planner.decide(
                    now: now, lastFetched: latest, callsToday: calls, outlookCallsToday: outlookCalls, failure: failure)
                outlookDecision = planner.decideOutlook(
                    now: now, lastPublished: try await store.newestWeeklyOutlook()?.publishedOn, callsToday: calls,
                    outlookCallsToday: outlookCalls, failure: outlookFailure)
                lastProblem = nil
            } catch {
                // Said once, not every step: the poll loop reports the same database in its own words.
                let problem = "\(error)"
                if problem != lastProblem { logger.error("Forecast: cannot read the database: \(problem)") }
                lastProblem = problem
                guard await pauseUnplanned() else { return }
                continue
            }
            // The daily forecast first when both are due: its publication supersedes, the outlook waits a moment.
            if case .wait = decision, case .fetch(let searchDate) = outlookDecision {
                await fetchOutlook(searchDate: searchDate, store: store, snapshot: snapshot, failure: &outlookFailure)
                continue
            }
            // The next forecast call is the earlier of the two: what the status shows and the loop waits for.
            if case .wait(let until) = decision, case .wait(let outlookUntil) = outlookDecision, outlookUntil < until {
                decision = .wait(until: outlookUntil)
            }
            switch decision {
            case .wait(let until):
                if board.current.forecast?.nextFetchAt != until || board.current.forecast?.latestIssue != latest {
                    await board.update { status in
                        var run = status.forecast ?? DaemonStatus.ForecastRun()
                        run.nextFetchAt = until
                        run.latestIssue = latest
                        status.forecast = run
                    }
                }
                guard await board.pause(until: until) else { return }
            case .fetch(let publication, let searchDate):
                let label = ForecastIssueTime.label(publication)
                let forecastStore = CountingForecastStore(store, counters: counters)
                let source = AirKoreaClient(api: snapshot.settings.api, key: snapshot.key, transport: transport)
                let report = await ForecastFetch(source: source, store: forecastStore, clock: clock, echoes: snapshot.key.echoGuard)
                    .run(searchDate: searchDate)
                if report.stopped { return }
                for unrecorded in report.unrecordedAttempts {
                    logger.error("Forecast: could not record a request: \(unrecorded)")
                }
                let finished = clock.now
                let previousAttempts = failedPublication == publication ? failure?.attempts ?? 0 : 0
                failedPublication = publication
                var runError: DaemonStatus.Failure?
                if report.fetched(publication) {
                    failure = nil
                    logger.notice(
                        "Forecast \(label) 발표 stored",
                        metadata: [
                            "issues": "\(report.issuesStored)", "requests": "\(report.requests)", "skipped": "\(report.skippedItems)",
                            "future": "\(report.futureItems)", "withheld": "\(report.textsWithheld)",
                        ])
                } else if let fetchFailure = report.failure {
                    failure = ForecastPlanner.Failure(at: finished, attempts: previousAttempts + 1, advice: fetchFailure.retryAdvice)
                    runError = DaemonStatus.Failure(at: finished, failure: fetchFailure)
                    logger.error("Forecast \(label) 발표 not fetched: \(fetchFailure)", metadata: ["kind": "\(fetchFailure.kind.rawValue)"])
                } else {
                    // The answer came, without the publication: AirKorea is late. Retried within the day's cap.
                    failure = ForecastPlanner.Failure(at: finished, attempts: previousAttempts + 1, advice: .retryWithBackoff)
                    logger.notice(
                        "Forecast \(label) 발표 is not published yet; trying again later within the daily cap of \(ForecastPlanner.dailyCallCap) calls"
                    )
                }
                await board.update { status in
                    var run = status.forecast ?? DaemonStatus.ForecastRun()
                    if runError == nil, failure == nil { run.lastSuccessAt = finished }
                    run.lastError = runError ?? (failure == nil ? nil : run.lastError)
                    status.forecast = run
                }
            }
        }
    }

    /// Fetches the weekly outlook once and says what came of it, in the journal and in `failure`.
    private func fetchOutlook(
        searchDate: LocalDate, store: any FineDustStore, snapshot: LiveConfiguration.Snapshot, failure: inout ForecastPlanner.Failure?
    ) async {
        let source = AirKoreaClient(api: snapshot.settings.api, key: snapshot.key, transport: transport)
        let report = await WeeklyOutlookFetch(
            source: source, store: CountingForecastStore(store, counters: counters), clock: clock, echoes: snapshot.key.echoGuard
        )
        .run(searchDate: searchDate)
        if report.stopped { return }
        for unrecorded in report.unrecordedAttempts {
            logger.error("Weekly outlook: could not record a request: \(unrecorded)")
        }
        let finished = clock.now
        // A failure of another day's outlook starts no backoff today.
        let attempts = failure.flatMap { KoreaStandardTime.date(containing: $0.at) == searchDate ? $0.attempts : nil } ?? 0
        if report.fetched(searchDate) {
            failure = nil
            logger.notice(
                "Weekly outlook of \(searchDate) stored", metadata: ["changed": "\(report.stored)", "skipped": "\(report.skippedItems)"])
        } else if let fetchFailure = report.failure {
            failure = ForecastPlanner.Failure(at: finished, attempts: attempts + 1, advice: fetchFailure.retryAdvice)
            logger.error(
                "Weekly outlook of \(searchDate) not fetched: \(fetchFailure)", metadata: ["kind": "\(fetchFailure.kind.rawValue)"])
        } else {
            // The answer came without today's publication: AirKorea is late. Retried within the outlook's 2 calls.
            failure = ForecastPlanner.Failure(at: finished, attempts: attempts + 1, advice: .retryWithBackoff)
            logger.notice(
                "Weekly outlook of \(searchDate) is not published yet; trying again later within its \(ForecastPlanner.outlookReserve) calls a day"
            )
        }
    }

    /// A wait with nothing planned (forecasts disabled, the database unreadable): until the next look
    /// at the settings and the clock (`DaemonStatusBoard.pause`, whose heartbeat keeps dustd's record
    /// fresh as the poll loop's does); false when cancelled.
    private func pauseUnplanned() async -> Bool {
        await board.pause(until: .distantFuture)
    }
}

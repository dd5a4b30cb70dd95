import AirKorea
import DustConfig
import DustKit
import DustServices
import Foundation
import Logging
import Metrics
import ServiceLifecycle

/// Fetches the official advisories (주의보/경보, docs/REFERENCE.md §17) once an hour, after the measurement
/// poll: PM10, PM2.5 and ozone, one request each. Its own task, woken by `PollService`'s `afterCycle`,
/// so it never delays a poll; its requests are attempts of the kind `advisory`, so they never count as
/// measurement polls or make them look failing. An operation whose service the key is not approved for
/// is turned off until a reload (one log line, and a line in `dustctl status`); any other failure is
/// logged once and tried again at the next hour.
public struct AdvisoryService: Service, CustomStringConvertible {
    /// The name the service group logs: its fields stay out of the journal.
    public var description: String { "AdvisoryService" }

    /// What the loop remembers between polls.
    struct LoopState {
        /// The settings' generation the turned-off operations belong to: a reload turns them back on.
        var generation = 0
        var turnedOff: [AdvisoryPollutant: DaemonStatus.TurnedOff] = [:]
        /// The hour (seconds since 1970 / 3600) of the last fetch: one fetch an hour.
        var lastFetchHour: Int64?
        /// The failure said last, so that the same failure is logged once, not every hour.
        var lastProblem: String?
    }

    private let configuration: LiveConfiguration
    private let database: DaemonDatabase
    private let board: DaemonStatusBoard
    private let transport: any HTTPTransport
    private let triggers: AsyncStream<Date>
    private let clock: any WallClock
    private let logger: Logger
    private let counters: RequestCounters

    /// - Parameter triggers: one element after each poll (`PollService`'s `afterCycle`).
    /// - Parameter metrics: the swift-metrics factory every advisory request is counted with (`RequestCounters`).
    public init(
        configuration: LiveConfiguration, database: DaemonDatabase, board: DaemonStatusBoard, transport: any HTTPTransport,
        triggers: AsyncStream<Date>, clock: any WallClock = SystemClock(), logger: Logger,
        metrics: any MetricsFactory = NOOPMetricsHandler.instance
    ) {
        self.configuration = configuration
        self.database = database
        self.board = board
        self.transport = transport
        self.triggers = triggers
        self.clock = clock
        self.logger = logger
        counters = RequestCounters(factory: metrics)
    }

    public func run() async throws {
        var loop = LoopState(generation: configuration.generation)
        for await _ in triggers.cancelOnGracefulShutdown() {
            await step(&loop)
        }
    }

    /// After a poll: fetches the operations still on, unless this hour's fetch was made.
    func step(_ loop: inout LoopState) async {
        // The generation before the settings: a reload landing between the two reads then counts as
        // a reload again at the next step, while the other order would clear what was turned off
        // under the new generation and ask with the old key.
        let generation = configuration.generation
        let snapshot = configuration.snapshot
        if generation != loop.generation {
            loop.generation = generation
            if !loop.turnedOff.isEmpty {
                loop.turnedOff = [:]
                logger.notice("Advisories: the configuration was reloaded; asking every advisory service again")
                await publish(loop, fetchedAt: board.current.advisories?.lastFetchAt)
            }
        }
        guard snapshot.settings.advisories.enabled else { return }
        let now = clock.now
        let hour = Int64((now.timeIntervalSince1970 / 3600).rounded(.down))
        let pending = AdvisoryPollutant.allCases.filter { loop.turnedOff[$0] == nil }
        guard loop.lastFetchHour != hour, !pending.isEmpty else { return }
        loop.lastFetchHour = hour
        let store: any FineDustStore
        do {
            store = try database.current()
        } catch {
            say("Advisories: cannot open the database: \(error)", &loop)
            return
        }
        let status = board.current
        let measurementsWork = status.lastSuccess != nil && !status.lastPollFailed
        let source = AirKoreaClient(api: snapshot.settings.api, key: snapshot.key, transport: transport)
        let report = await AdvisoryFetch(source: source, store: store, clock: clock).run(
            years: await Self.years(at: now, store: store), pollutants: pending, measurementsWork: measurementsWork)
        report.attempts.forEach(counters.count)
        for unrecorded in report.unrecordedAttempts {
            logger.error("Advisories: could not record a request: \(unrecorded)")
        }
        if report.stopped { return }
        var problems: [String] = []
        var changed = 0
        var skipped = 0
        for (pollutant, outcome) in report.outcomes {
            switch outcome {
            case .stored(let new, let skippedItems):
                changed += new
                skipped += skippedItems
            case .notApproved(let failure):
                let off = DaemonStatus.TurnedOff(pollutant: pollutant, at: clock.now, resultCode: failure.resultCode)
                loop.turnedOff[pollutant] = off
                logger.error("Advisories \(pollutant.displayName) turned off until a reload: \(off.remedy)")
            case .failed(let failure):
                problems.append("\(pollutant.displayName): \(failure)")
            }
        }
        if changed > 0 || skipped > 0 {
            logger.info("Advisories stored", metadata: ["changed": "\(changed)", "skipped": "\(skipped)"])
        }
        if problems.isEmpty {
            loop.lastProblem = nil
        } else {
            say("Advisories not fetched, trying again at the next hour: " + problems.joined(separator: "; "), &loop)
        }
        await publish(loop, fetchedAt: now)
    }

    /// This KST year, after last year in the first week of January and while an advisory of last
    /// year's list is still open: one issued on 31 December and cleared on 1 January is cleared only in
    /// last year's answer, and one still in force when dustd starts in January (none stored yet, or
    /// dustd down over midnight) is in last year's list alone. An advisory's list is the year of the
    /// second before its issue: AirKorea stamps 31 December's midnight `24:00`, in that year's list.
    public static func years(at now: Date, store: any AdvisoryStore) async -> [Int] {
        let today = KoreaStandardTime.date(containing: now)
        let open = (try? await store.activeAdvisories(at: now)) ?? []
        let openFromLastYear = open.contains { KoreaStandardTime.date(containing: $0.issuedAt.addingTimeInterval(-1)).year < today.year }
        return openFromLastYear || (today.month == 1 && today.day <= 7) ? [today.year - 1, today.year] : [today.year]
    }

    /// Logs a failure once: the same sentence the next hour says nothing new.
    private func say(_ problem: String, _ loop: inout LoopState) {
        if problem != loop.lastProblem { logger.warning("\(problem)") }
        loop.lastProblem = problem
    }

    private func publish(_ loop: LoopState, fetchedAt: Date?) async {
        let run = DaemonStatus.AdvisoryRun(
            lastFetchAt: fetchedAt, turnedOff: AdvisoryPollutant.allCases.compactMap { loop.turnedOff[$0] })
        guard board.current.advisories != run else { return }
        await board.update { $0.advisories = run }
    }
}

import AirKorea
import DustConfig
import DustKit
import DustServices
import Foundation
import Logging
import Metrics
import ServiceLifecycle

/// The hourly poll loop as a swift-service-lifecycle `Service`: waits, runs a `PollCycle`, lets
/// `PollStateMachine` decide what comes next, and tells the journal, systemd and the status record.
public struct PollService: Service, CustomStringConvertible {
    /// The name the service group logs: its fields (the settings, the sinks) stay out of the journal.
    public var description: String { "PollService" }

    private let configuration: LiveConfiguration
    private let database: DaemonDatabase
    private let board: DaemonStatusBoard
    private let transport: any HTTPTransport
    private let notifier: SystemdNotifier
    private let clock: any WallClock
    private let logger: Logger
    private let jitter: @Sendable () -> Double
    private let counters: RequestCounters
    private let afterCycle: (@Sendable (Date) -> Void)?
    /// Set at SIGTERM or SIGINT (`StopAnnouncement`): no cycle starts once it is.
    private let stop: DaemonStop

    /// - Parameter metrics: the swift-metrics factory every request is counted with (`RequestCounters`).
    /// - Parameter afterCycle: called after each poll with its end time, and each hour of a longer wait (the
    ///   alert, advisory and place-keeping services' trigger).
    public init(
        configuration: LiveConfiguration, database: DaemonDatabase, board: DaemonStatusBoard, transport: any HTTPTransport,
        notifier: SystemdNotifier, clock: any WallClock = SystemClock(), logger: Logger,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
        metrics: any MetricsFactory = NOOPMetricsHandler.instance, afterCycle: (@Sendable (Date) -> Void)? = nil,
        stop: DaemonStop
    ) {
        self.stop = stop
        counters = RequestCounters(factory: metrics)
        self.afterCycle = afterCycle
        self.configuration = configuration
        self.database = database
        self.board = board
        self.transport = transport
        self.notifier = notifier
        self.clock = clock
        self.logger = logger
        self.jitter = jitter
    }

    /// How often the status heartbeat is written while dustd waits or polls: a reader calls dustd
    /// not responding when the heartbeat is twice as old, so this stays well under the poll interval.
    public static func heartbeatSeconds(_ poll: PollSettings) -> Double {
        Double(min(poll.intervalSeconds, 600))
    }

    public func run() async throws {
        // `StopAnnouncement` says STOPPING=1 at the signal; the loop starts no cycle from then on, and the
        // one under way is cancelled when the group reaches this service.
        try await cancelWhenGracefulShutdown {
            try await loop()
        }
        // The loop returns only when stopped; the record says so until dustd writes `stopped`.
        await board.update(within: 2) { $0.state = .stopping }
    }

    /// Returns only when cancelled (shutdown); anything else that ends the loop is an error, so
    /// dustd exits non-zero and systemd's `Restart=on-failure` brings it back.
    private func loop() async throws {
        var loop = PollLoopState.start(at: clock.now)
        // What the last cycle asked with: a reload that changes it (a key renewed after code 30, a station
        // name corrected) polls at once instead of after the wait the old one earned.
        var polledWith: PollInputs?
        // When `afterCycle` was last called: a wait longer than an hour calls it again each hour.
        var lastAfterCycle: Date?
        while !Task.isCancelled {
            // Stopping: no new cycle. The loop waits to be told (the service group takes a service that ends
            // before it is told for a failure).
            if stop.hasBegun {
                try? await gracefulShutdown()
                return
            }
            let snapshot = configuration.snapshot
            let machine = PollStateMachine(planner: PollPlanner(poll: snapshot.settings.poll))
            switch machine.wake(loop, now: clock.now) {
            case .stop:
                return
            case .wait(let remaining) where polledWith.map({ $0 != PollInputs(snapshot) }) == true:
                logger.notice("The reload changed the service key or the stations: polling now instead of waiting \(Int(remaining)) s")
            case .wait(let remaining):
                // A wait longer than an hour (the quota until 00:01 KST, a long backoff) still gives the alert rules
                // and the advisories, which do not wait for new measurements, their hour.
                lastAfterCycle = hourlyAfterCycle(
                    since: lastAfterCycle, wake: clock.now.addingTimeInterval(remaining), poll: snapshot.settings.poll)
                // Whatever the wait (the next hour, a backoff, the quota until 00:01 KST), the
                // heartbeat is written during it (`DaemonStatusBoard.pause`), and the loop looks
                // again at least every 30 s.
                guard await board.pause(until: clock.now.addingTimeInterval(remaining)) else { return }
                continue
            case .clockWentBack(let remaining):
                logger.warning("The system clock went back; polling now instead of waiting \(Int(remaining)) s")
            case .pollNow:
                break
            }
            // The stop may have come during the wait.
            if stop.hasBegun { continue }
            guard let stations = snapshot.stations else {
                // Start-up and reload both refuse a configuration without station.name.
                throw ConfigurationError.noStation
            }
            polledWith = PollInputs(snapshot)
            await board.update { status in
                status.state = .polling
                // Polling now: the planned time is past, and the next one is not known yet.
                status.nextPollAt = nil
            }
            // The status write above may have waited for another program's lock while the stop came.
            if stop.hasBegun { continue }
            let report: CycleReport
            do throws(StorageFailure) {
                let opened = try database.current()
                let store = CountingPollStore(opened, counters: counters)
                let cycle = snapshot.cycle(store: store, transport: transport, clock: clock, stationList: opened)
                report = await board.keepingHeartbeat {
                    await cycle.run(stations: stations, includeNation: snapshot.includesNation)
                }
            } catch {
                var failed = CycleReport()
                failed.failure = .storage(error)
                report = failed
            }
            CycleLog(logger: logger).notices(report.notices)
            let outcome = CycleOutcome(report)
            let now = clock.now
            let (next, announcements) = machine.after(outcome, in: loop, now: now, jitter: jitter())
            loop = next
            CycleLog(logger: logger).announcements(announcements, report: report)
            await board.update { status in
                status.state = loop.state.published
                status.nextPollAt = loop.state.wakeTime
                status.record(outcome, of: report, at: now)
            }
            notifier.status(await statusLine(loop.state, outcome, at: now, primary: stations.primary))
            afterCycle?(now)
            lastAfterCycle = now
        }
    }

    /// How long a wait goes before `afterCycle` is called with no poll: an hour, the alert rules' and the
    /// advisories' own rhythm.
    static let afterCycleSeconds: TimeInterval = 3600

    /// Calls `afterCycle` when an hour has passed since it was last called (`since`, nil before the first
    /// cycle: nothing to follow yet) and the wait is a long one; returns when it was last called. A wait is long
    /// when the poll it ends in (`wake`) comes later than the next hour's poll could (an hour, the jitter and
    /// ten minutes for the cycle after `last`): an hourly wait whose jitter came out later than the last one's
    /// ends a little over an hour after it, and the poll's own call follows at once. A clock set back starts
    /// the hour again.
    private func hourlyAfterCycle(since last: Date?, wake: Date, poll: PollSettings) -> Date? {
        guard let last, let afterCycle else { return last }
        let now = clock.now
        if now < last { return now }
        let longest = Self.afterCycleSeconds + Double(poll.jitterSeconds) + 600
        guard wake.timeIntervalSince(last) > longest, now.timeIntervalSince(last) >= Self.afterCycleSeconds else { return last }
        afterCycle(now)
        return now
    }

    /// The line `systemctl status dustd` shows.
    private func statusLine(_ state: PollState, _ outcome: CycleOutcome, at now: Date, primary: String) async -> String {
        var line =
            switch outcome {
            case .succeeded: "Last poll ok at \(clockTime(now))"
            case .failed: "Last poll failed at \(clockTime(now))"
            case .stopped: "Stopping"
            }
        if let newest = try? await database.opened.newestSlot(station: primary, endingBy: now) {
            line += "; latest hour for \(primary) ends \(String(KoreaStandardTime.iso8601(newest.end).prefix(10))) \(clockTime(newest.end))"
        }
        if let wake = state.wakeTime { line += "; next poll \(clockTime(wake))" }
        return line
    }

    private func clockTime(_ date: Date) -> String {
        String(KoreaStandardTime.iso8601(date).dropFirst(11).prefix(5)) + " KST"
    }
}

/// What a poll cycle asks AirKorea with: the key and the stations.
private struct PollInputs: Equatable {
    var key: ServiceKey
    var stations: StationPreference?
    var nation: Bool

    init(_ snapshot: LiveConfiguration.Snapshot) {
        key = snapshot.key
        stations = snapshot.stations
        nation = snapshot.includesNation
    }
}

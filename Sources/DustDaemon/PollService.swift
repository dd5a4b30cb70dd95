import AirKorea
import DustConfig
import DustKit
import DustServices
import DustStore
import DustWeb
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Current settings and key, replaced on SIGHUP; readers always see a consistent pair.
public final class LiveConfiguration: Sendable {
    public struct Snapshot: Sendable {
        public var settings: FineDustSettings
        public var key: ServiceKey
    }

    private let current: Mutex<Snapshot>

    public init(settings: FineDustSettings, key: ServiceKey) {
        current = Mutex(Snapshot(settings: settings, key: key))
    }

    public var snapshot: Snapshot { current.withLock { $0 } }

    public func replace(_ snapshot: Snapshot) { current.withLock { $0 = snapshot } }
}

extension LiveConfiguration.Snapshot {
    /// The primary station and its fallbacks; nil when `station.name` is not set.
    public var stations: StationPreference? {
        settings.station.name.map { StationPreference(primary: $0, fallbacks: settings.station.fallbacks) }
    }

    /// A poll cycle for these settings and this key.
    public func cycle(store: any PollStore, transport: any HTTPTransport, clock: any WallClock) -> PollCycle {
        PollCycle(source: AirKoreaClient(api: settings.api, key: key, transport: transport), store: store, clock: clock)
    }

    /// Whether a cycle also archives every station (`station.mode: nation`).
    public var includesNation: Bool { settings.station.mode == .nation }
}

/// A configuration dustd cannot run with.
public enum DaemonConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `station.name` is not set: there is nothing to poll.
    case noStation

    public var description: String {
        switch self {
        case .noStation: "station.name is not set, so dustd has nothing to poll; set it in the configuration file or DUSTD_STATION_NAME (find one with dustctl stations)"
        }
    }

    /// Checks that `settings` can run the daemon, beyond being valid.
    public static func check(_ settings: FineDustSettings) throws(DaemonConfigurationError) {
        guard settings.station.name != nil else { throw .noStation }
    }
}

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
    private let sleepStep: Duration
    private let metrics: PollMetrics?
    private let afterCycle: (@Sendable (Date) -> Void)?

    /// - Parameter metrics: counts every request for `/metrics`.
    /// - Parameter afterCycle: called after each poll with its end time (the alert service's trigger).
    /// - Parameter sleepStep: how often a waiting loop looks at the wall clock again (tests shorten it).
    public init(configuration: LiveConfiguration, database: DaemonDatabase, board: DaemonStatusBoard, transport: any HTTPTransport,
                notifier: SystemdNotifier, clock: any WallClock = SystemClock(), logger: Logger,
                jitter: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }, sleepStep: Duration = .seconds(30),
                metrics: PollMetrics? = nil, afterCycle: (@Sendable (Date) -> Void)? = nil) {
        self.metrics = metrics
        self.afterCycle = afterCycle
        self.configuration = configuration
        self.database = database
        self.board = board
        self.transport = transport
        self.notifier = notifier
        self.clock = clock
        self.logger = logger
        self.jitter = jitter
        self.sleepStep = sleepStep
    }

    /// How often the status heartbeat is written while dustd waits or polls: a reader calls dustd
    /// not responding when the heartbeat is twice as old, so this stays well under the poll interval.
    public static func heartbeatSeconds(_ poll: PollSettings) -> Double {
        Double(min(poll.intervalSeconds, 600))
    }

    public func run() async throws {
        try await withGracefulShutdownHandler {
            try await cancelWhenGracefulShutdown {
                try await loop()
            }
        } onGracefulShutdown: {
            logger.info("Stopping: finishing the current write, then exiting")
            notifier.stopping(status: "Stopping")
            board.update { $0.state = .stopping }
        }
    }

    /// Returns only when cancelled (shutdown); anything else that ends the loop is an error, so
    /// dustd exits non-zero and systemd's `Restart=on-failure` brings it back.
    private func loop() async throws {
        var loop = PollLoopState.start(at: clock.now)
        while !Task.isCancelled {
            let snapshot = configuration.snapshot
            let machine = PollStateMachine(planner: PollPlanner(poll: snapshot.settings.poll))
            switch machine.wake(loop, now: clock.now) {
            case .stop:
                return
            case let .wait(remaining):
                // Whatever the wait (the next hour, a backoff, the quota until 00:00 KST), the
                // heartbeat is written at each step of it.
                guard await pause(seconds: remaining) else { return }
                continue
            case let .clockWentBack(remaining):
                logger.warning("The system clock went back; polling now instead of waiting \(Int(remaining)) s")
            case .pollNow:
                break
            }
            guard let stations = snapshot.stations else {
                // Start-up and reload both refuse a configuration without station.name.
                throw DaemonConfigurationError.noStation
            }
            board.update { status in
                status.state = .polling
                // Polling now: the planned time is past, and the next one is not known yet.
                status.nextPollAt = nil
            }
            let report: CycleReport
            do {
                let opened = try database.current()
                let store: any PollStore = metrics.map { MeasuredPollStore(opened, metrics: $0) } ?? opened
                let cycle = snapshot.cycle(store: store, transport: transport, clock: clock)
                report = await board.keepingHeartbeat {
                    await cycle.run(stations: stations, includeNation: snapshot.includesNation)
                }
            } catch {
                var failed = CycleReport()
                failed.failure = .storage(StorageFailure(error))
                report = failed
            }
            CycleLog(logger: logger).notices(report.notices)
            let outcome = CycleOutcome(report)
            let now = clock.now
            let (next, announcements) = machine.after(outcome, in: loop, now: now, jitter: jitter())
            loop = next
            CycleLog(logger: logger).announcements(announcements, report: report)
            board.update { status in
                status.state = loop.state.published
                status.nextPollAt = loop.state.wakeTime
                status.record(outcome, of: report, at: now)
            }
            notifier.status(statusLine(loop.state, outcome, at: now, primary: stations.primary))
            afterCycle?(now)
        }
    }

    /// One step of a wait, the heartbeat written after it when due (`DaemonStatusBoard.pause`);
    /// false when cancelled (shutdown).
    private func pause(seconds: TimeInterval) async -> Bool {
        await board.pause(seconds: seconds, step: sleepStep)
    }

    /// The line `systemctl status dustd` shows.
    private func statusLine(_ state: PollState, _ outcome: CycleOutcome, at now: Date, primary: String) -> String {
        var line = switch outcome {
        case .succeeded: "Last poll ok at \(clockTime(now))"
        case .failed: "Last poll failed at \(clockTime(now))"
        case .stopped: "Stopping"
        }
        if let newest = try? database.opened.newestSlot(station: primary, endingBy: now) {
            line += "; latest hour for \(primary) ends \(String(KoreaStandardTime.iso8601(newest.end).prefix(10))) \(clockTime(newest.end))"
        }
        if let wake = state.wakeTime { line += "; next poll \(clockTime(wake))" }
        return line
    }

    private func clockTime(_ date: Date) -> String {
        String(KoreaStandardTime.iso8601(date).dropFirst(11).prefix(5)) + " KST"
    }
}

extension DaemonStatus {
    /// Notes a cycle's outcome: a success or an error, with its time.
    public mutating func record(_ outcome: CycleOutcome, of report: CycleReport, at now: Date) {
        switch outcome {
        case .succeeded:
            lastSuccess = Success(at: now, rowsNew: report.rowsNew, rowsUpdated: report.rowsUpdated, requests: report.requests)
        case let .failed(failure):
            lastError = Failure(at: now, failure: failure)
        case .stopped:
            break
        }
    }
}

extension Duration {
    /// The duration in seconds, with its fraction.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// Sends `WATCHDOG=1` at half of `$WATCHDOG_USEC` until shutdown.
public struct WatchdogService: Service, CustomStringConvertible {
    /// The name the service group logs: its fields (the settings, the sinks) stay out of the journal.
    public var description: String { "WatchdogService" }

    private let notifier: SystemdNotifier
    private let interval: Duration

    public init(notifier: SystemdNotifier, interval: Duration) {
        self.notifier = notifier
        self.interval = interval
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                notifier.watchdog()
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
    }
}

import AirKorea
import DustConfig
import DustKit
import DustServices
import DustStore
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// What the poller is doing. One value, so the states cannot disagree.
public enum PollState: Sendable, Hashable, CustomStringConvertible {
    /// Waiting for the next scheduled poll.
    case idle(nextPoll: Date)
    /// Requests in flight.
    case fetching(since: Date)
    /// A passing fault; the next try is at `until` (retry number `attempt`).
    case backingOff(until: Date, attempt: Int)
    /// The daily quota is used up until `until` (00:00 KST).
    case quotaExhausted(until: Date)
    /// A key or configuration problem; nothing is retried before `until`, the next scheduled poll.
    case waitingForNextHour(until: Date)

    /// When the poller acts next.
    public var wakeTime: Date? {
        switch self {
        case let .idle(date), let .backingOff(date, _), let .quotaExhausted(date), let .waitingForNextHour(date): date
        case .fetching: nil
        }
    }

    public var description: String {
        switch self {
        case .idle: "idle"
        case .fetching: "fetching"
        case let .backingOff(_, attempt): "backing off (retry \(attempt))"
        case .quotaExhausted: "quota exhausted"
        case .waitingForNextHour: "waiting for the next hour"
        }
    }
}

/// Current settings and key, replaced on SIGHUP; readers always see a consistent pair.
public final class LiveConfiguration: Sendable {
    public struct Snapshot: Sendable {
        public var settings: FineDustSettings
        public var key: ServiceKey
    }

    private let current: Mutex<Snapshot>
    private let refusal = Mutex<String?>(nil)

    public init(settings: FineDustSettings, key: ServiceKey) {
        current = Mutex(Snapshot(settings: settings, key: key))
    }

    public var snapshot: Snapshot { current.withLock { $0 } }

    public func replace(_ snapshot: Snapshot) { current.withLock { $0 = snapshot } }

    /// Why the last reload was refused, until one succeeds.
    public var reloadRefusal: String? {
        get { refusal.withLock { $0 } }
        set { refusal.withLock { $0 = newValue } }
    }
}

extension LiveConfiguration.Snapshot {
    /// The primary station and its fallbacks; nil when `station.name` is not set.
    public var stations: StationPreference? {
        settings.station.name.map { StationPreference(primary: $0, fallbacks: settings.station.fallbacks) }
    }

    /// A poller for these settings and this key.
    public func poller(store: SQLiteStore, transport: any HTTPTransport, clock: any WallClock, logger: Logger) -> Poller {
        Poller(client: AirKoreaClient(api: settings.api, key: key, transport: transport), store: store,
               planner: PollPlanner(poll: settings.poll), clock: clock, logger: logger)
    }
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

/// The hourly poll loop as a swift-service-lifecycle `Service`.
public struct PollService: Service {
    private let configuration: LiveConfiguration
    private let database: DaemonDatabase
    private let transport: any HTTPTransport
    private let notifier: SystemdNotifier
    private let clock: any WallClock
    private let logger: Logger
    private let jitter: @Sendable () -> Double
    private let sleepStep: Duration

    /// - Parameter sleepStep: how often a waiting loop looks at the wall clock again (tests shorten it).
    public init(configuration: LiveConfiguration, database: DaemonDatabase, transport: any HTTPTransport, notifier: SystemdNotifier,
                clock: any WallClock = SystemClock(), logger: Logger, jitter: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
                sleepStep: Duration = .seconds(30)) {
        self.configuration = configuration
        self.database = database
        self.transport = transport
        self.notifier = notifier
        self.clock = clock
        self.logger = logger
        self.jitter = jitter
        self.sleepStep = sleepStep
    }

    public func run() async throws {
        try await withGracefulShutdownHandler {
            try await cancelWhenGracefulShutdown {
                try await loop()
            }
        } onGracefulShutdown: {
            logger.info("Stopping: finishing the current write, then exiting")
            notifier.stopping(status: "Stopping")
        }
    }

    /// Returns only when cancelled (shutdown); anything else that ends the loop is an error, so
    /// dustd exits non-zero and systemd's `Restart=on-failure` brings it back.
    private func loop() async throws {
        var state = PollState.idle(nextPoll: clock.now)  // poll (and backfill) right away
        var consecutiveFailures = 0
        var lastReportedProblem: String?
        while !Task.isCancelled {
            guard let wake = state.wakeTime, await sleep(until: wake, longest: longestWait(state)) else { return }
            let snapshot = configuration.snapshot
            guard let stations = snapshot.stations else {
                // Start-up and reload both refuse a configuration without station.name.
                throw DaemonConfigurationError.noStation
            }
            let planner = PollPlanner(poll: snapshot.settings.poll)
            let store: SQLiteStore
            do {
                store = try database.current()
            } catch {
                consecutiveFailures += 1
                let retryAt = clock.now.addingTimeInterval(planner.retryDelay(attempt: consecutiveFailures, jitter: jitter()))
                state = .backingOff(until: retryAt, attempt: consecutiveFailures)
                logger.error("Cannot reopen the database: \(error)", metadata: ["retry": "\(iso(retryAt))"])
                notifier.status("Cannot open the database; retrying at \(clockTime(retryAt))")
                continue
            }
            let poller = snapshot.poller(store: store, transport: transport, clock: clock, logger: logger)

            state = .fetching(since: clock.now)
            let report = await poller.cycle(stations: stations, mode: snapshot.settings.station.mode)
            if Task.isCancelled { return }

            let now = clock.now
            let scheduled = planner.nextPoll(after: now, jitter: jitter())
            switch report.failure {
            case nil:
                consecutiveFailures = 0
                if lastReportedProblem != nil { logger.notice("AirKorea answers again; polling is back to normal") }
                lastReportedProblem = nil
                state = .idle(nextPoll: scheduled)
                logger.info("Poll done", metadata: ["new": "\(report.rowsNew)", "revised": "\(report.rowsUpdated)",
                                                    "requests": "\(report.requests)", "next": "\(iso(scheduled))"])
            case let failure?:
                consecutiveFailures += 1
                switch failure.retryAdvice {
                case .retryWithBackoff:
                    let retryAt = now.addingTimeInterval(planner.retryDelay(attempt: consecutiveFailures, jitter: jitter()))
                    state = retryAt < scheduled ? .backingOff(until: retryAt, attempt: consecutiveFailures) : .idle(nextPoll: scheduled)
                    logger.warning("Poll failed: \(failure)", metadata: ["retry": "\(iso(state.wakeTime ?? scheduled))"])
                case .waitForNextHour:
                    state = .waitingForNextHour(until: scheduled)
                    // Logged once with its fix; repeating it every hour would bury everything else.
                    if lastReportedProblem != failure.description {
                        logger.error("\(failure)", metadata: ["next": "\(iso(scheduled))"])
                    } else {
                        logger.debug("Still failing: \(failure)")
                    }
                case .waitUntilMidnightKST:
                    state = .quotaExhausted(until: planner.quotaReset(after: now))
                    logger.error("\(failure)", metadata: ["resume": "\(iso(state.wakeTime!))"])
                case .waitAMinute:
                    state = .backingOff(until: now.addingTimeInterval(60), attempt: consecutiveFailures)
                    logger.warning("\(failure)")
                }
                lastReportedProblem = failure.description
            }
            publish(state: state, report: report, primary: stations.primary, store: store)
        }
    }

    /// The longest a state can legitimately wait; a longer remaining wait means the wall clock
    /// was set back, and dustd polls now instead of stalling for the size of the jump.
    private func longestWait(_ state: PollState) -> TimeInterval {
        let poll = configuration.snapshot.settings.poll
        switch state {
        case .quotaExhausted: return 86_400 + 120
        default: return TimeInterval(poll.intervalSeconds + poll.jitterSeconds + poll.retryMaxSeconds) + 60
        }
    }

    /// Sleeps until a wall-clock time in short steps, so a clock change or a reload is noticed;
    /// false when cancelled (shutdown). A clock set forward wakes it at once; one set back by more
    /// than `longest` ends the wait (the slots come from AirKorea's `dataTime`, not from this clock,
    /// so an early poll can neither duplicate nor mis-date anything).
    private func sleep(until wake: Date, longest: TimeInterval) async -> Bool {
        let step = Double(sleepStep.components.seconds) + Double(sleepStep.components.attoseconds) / 1e18
        while !Task.isCancelled {
            let remaining = wake.timeIntervalSince(clock.now)
            if remaining <= 0 { return true }
            if remaining > longest {
                logger.warning("The system clock went back; polling now instead of waiting \(Int(remaining)) s")
                return true
            }
            do {
                try await Task.sleep(for: .milliseconds(Int64(min(remaining, step) * 1000)))
            } catch {
                return false
            }
        }
        return false
    }

    private func publish(state: PollState, report: CycleReport, primary: String, store: SQLiteStore) {
        var status = report.succeeded
            ? "Last poll ok at \(clockTime(clock.now)): \(report.rowsNew) new, \(report.rowsUpdated) revised"
            : "Last poll failed at \(clockTime(clock.now)) (\(state))"
        if let latest = try? store.latestSlot(station: primary, endingBy: clock.now) {
            status += "; latest hour for \(primary) ends \(String(iso(latest.end).prefix(10))) \(clockTime(latest.end))"
        }
        if let wake = state.wakeTime { status += "; next poll \(clockTime(wake))" }
        notifier.status(status)
        do {
            try store.setDaemonState([
                "state": state.description,
                "next_poll": wake(state),
                "status": status,
                "pid": String(getpid()),
                "reload_refused": configuration.reloadRefusal ?? "",
            ], at: clock.now)
        } catch {
            logger.error("Could not record the daemon state: \(error)")
        }
    }

    private func wake(_ state: PollState) -> String { state.wakeTime.map(iso) ?? "" }

    private func iso(_ date: Date) -> String { KoreaStandardTime.iso8601(date) }

    private func clockTime(_ date: Date) -> String {
        let text = KoreaStandardTime.iso8601(date)
        return String(text.dropFirst(11).prefix(5)) + " KST"
    }
}

/// Sends `WATCHDOG=1` at half of `$WATCHDOG_USEC` until shutdown.
public struct WatchdogService: Service {
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

import DustConfig
import DustServices
import Foundation
import Logging
import ServiceLifecycle

/// The services that call AirKorea or announce (the poll, the forecast, the advisories, the alerts),
/// run only while this dustd holds the `PollerLease` (docs/REFERENCE.md §20). Without the lease it
/// tries again every `retrySeconds` and meanwhile writes no shared status; when the lease is lost it
/// stops those services and goes back to trying.
public struct PollerRole: Service, CustomStringConvertible {
    /// The name the service group logs.
    public var description: String { "PollerRole" }

    private let lease: any PollerLease
    private let board: DaemonStatusBoard
    private let clock: any WallClock
    private let logger: Logger
    private let host: String
    private let pid: Int32
    private let retrySeconds: @Sendable () -> TimeInterval
    private let makeServices: @Sendable () -> [any Service]
    private let notifier: SystemdNotifier
    /// Set at SIGTERM or SIGINT (`StopAnnouncement`): the lease is not taken once it is.
    private let stop: DaemonStop

    /// - Parameter notifier: tells systemd (`STATUS=`) whether this dustd polls.
    /// - Parameter retrySeconds: how long to wait between two tries (`retryInterval(_:)` of the settings in force).
    /// - Parameter services: makes the poller's services afresh at every takeover (a service's trigger
    ///   streams end with it, so a stopped one cannot run again).
    public init(
        lease: any PollerLease, board: DaemonStatusBoard, clock: any WallClock = SystemClock(), logger: Logger,
        host: String = DaemonStatus.localHost, pid: Int32 = getpid(), notifier: SystemdNotifier = SystemdNotifier(environment: [:]),
        retrySeconds: @escaping @Sendable () -> TimeInterval, services: @escaping @Sendable () -> [any Service], stop: DaemonStop
    ) {
        self.stop = stop
        self.notifier = notifier
        self.lease = lease
        self.board = board
        self.clock = clock
        self.logger = logger
        self.host = host
        self.pid = pid
        self.retrySeconds = retrySeconds
        makeServices = services
    }

    /// How often a dustd that does not poll tries to: every poll interval, at most 30 s, so it takes
    /// over well within one interval of the poller's death.
    public static func retryInterval(_ poll: PollSettings) -> TimeInterval {
        min(Double(poll.intervalSeconds), 30)
    }

    public func run() async throws {
        do {
            try await alternate()
        } catch {
            await board.stopPublishing()
            await lease.release()
            throw error
        }
        // Stopped while polling: the shared record says so before another dustd can take over and
        // write its own; what dustd records after this stays here.
        if board.isPublishing {
            let stoppedAt = clock.now
            await board.update(within: 3) { status in
                status.state = .stopped
                status.stoppedAt = stoppedAt
                status.nextPollAt = nil
            }
            await board.stopPublishing()
        }
        await lease.release()
    }

    /// Polls while holding the lease, tries to take it while not; returns at shutdown.
    private func alternate() async throws {
        /// What the journal was last told: true this dustd polls, false another does.
        var told: Bool?
        var lastProblem: String?
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            // Stopping: the lease is not taken (a dustd that is going away must not poll, nor keep a healthy
            // one from taking over). The role waits to be told, as the service group expects.
            if stop.hasBegun {
                try? await gracefulShutdown()
                return
            }
            let interval = retrySeconds()
            var held = false
            do {
                held = try await lease.acquire()
                lastProblem = nil
            } catch {
                // Said once while it lasts: a server down for an hour is one line, not 120.
                if lastProblem != error.description {
                    logger.error("Could not learn whether another dustd polls AirKorea (retrying every \(Int(interval)) s): \(error)")
                    lastProblem = error.description
                }
            }
            if held {
                logger.notice("This dustd now polls AirKorea (host \(host), PID \(pid))")
                notifier.status("This dustd polls AirKorea; first poll starting")
                told = true
                await board.startPublishing()
                guard try await runUntilLost() else { return }
                logger.warning(
                    "This dustd lost the right to poll AirKorea (its database session ended); it stopped polling and tries again in \(Int(interval)) s"
                )
                // The others, waiting already, have their turn first; who wins then polls.
                told = nil
            } else if told != false, lastProblem == nil {
                logger.notice("Another dustd polls AirKorea; this one serves and imports (retrying every \(Int(interval)) s)")
                notifier.status("Another dustd polls AirKorea; this one serves and imports")
                told = false
            }
            do {
                try await cancelWhenGracefulShutdown { [clock] in try await clock.sleep(until: clock.now.addingTimeInterval(interval)) }
            } catch {
                return
            }
        }
    }

    private enum Ending: Sendable {
        case lost
        case serviceEnded
    }

    /// Runs the poller's services until the lease is lost (true: they were stopped, a write under way
    /// rolled back) or they all ended at shutdown (false). A service's error ends dustd.
    private func runUntilLost() async throws -> Bool {
        let services = makeServices()
        return try await withThrowingTaskGroup(of: Ending.self) { group in
            for service in services {
                group.addTask { [logger] in
                    defer { logger.debug("Poller service ended", metadata: ["service": "\(type(of: service))"]) }
                    try await service.run()
                    return .serviceEnded
                }
            }
            group.addTask { [lease] in
                await lease.lost()
                return .lost
            }
            var running = services.count
            while let ending = try await group.next() {
                switch ending {
                case .lost:
                    logger.debug("The poller lease ended; stopping the poller's services")
                    let stopped = Task.isCancelled
                    // The new poller's record must not be overwritten by this one's last words.
                    if !stopped { await board.stopPublishing() }
                    group.cancelAll()
                    // What the services say while cancelled ends nothing more.
                    while (try? await group.next()) != nil {}
                    return !stopped
                case .serviceEnded:
                    running -= 1
                    if running == 0 {
                        group.cancelAll()
                        return false
                    }
                }
            }
            return false
        }
    }
}

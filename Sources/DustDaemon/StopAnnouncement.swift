import Logging
import ServiceLifecycle
import Synchronization

/// That dustd has begun to stop (SIGTERM, SIGINT): set by `StopAnnouncement` at the signal itself, and
/// asked by the services that would otherwise start new work while others finish theirs.
public final class DaemonStop: Sendable {
    private let begun = Atomic<Bool>(false)
    private let begunAt = Mutex<ContinuousClock.Instant?>(nil)

    public init() {}

    /// Whether the stop has begun.
    public var hasBegun: Bool { begun.load(ordering: .acquiring) }

    public func begin() {
        begunAt.withLock { $0 = $0 ?? ContinuousClock.now }
        begun.store(true, ordering: .releasing)
    }

    /// Whether a wait for another program's lock that began at `waitBegan` was under way when the stop came,
    /// and so ends (`SQLiteStore`'s `abandonWaits`); the waits of the stop's own records begin after it.
    public func interrupts(waitBegunAt waitBegan: ContinuousClock.Instant) -> Bool {
        begunAt.withLock { stop in stop.map { waitBegan <= $0 } ?? false }
    }
}

/// The first service the group tells of a stop: swift-service-lifecycle tells them in the reverse of their
/// order, and waits for each, so this one is listed last. It says `STOPPING=1` to systemd and marks the
/// stop at the signal. Before, the poll loop heard of the stop last, after every other service had
/// finished: a reload waiting 10 s for another program's write lock kept dustd polling (and applying the
/// reload, and saying `READY=1`) for 29 s after SIGTERM, past systemd's `TimeoutStopSec`.
public struct StopAnnouncement: Service, CustomStringConvertible {
    /// The name the service group logs.
    public var description: String { "StopAnnouncement" }

    private let stop: DaemonStop
    private let notifier: SystemdNotifier
    private let logger: Logger

    public init(stop: DaemonStop, notifier: SystemdNotifier, logger: Logger) {
        self.stop = stop
        self.notifier = notifier
        self.logger = logger
    }

    public func run() async {
        // Returns when the group begins to stop; throws only when cancelled, which is a stop too.
        try? await gracefulShutdown()
        stop.begin()
        logger.info("Stopping: finishing the current write, then exiting")
        notifier.stopping(status: "Stopping")
    }
}

import DustServices
import ServiceLifecycle

/// Sends `WATCHDOG=1` at half of `$WATCHDOG_USEC` until shutdown.
public struct WatchdogService: Service, CustomStringConvertible {
    /// The name the service group logs: its fields (the settings, the sinks) stay out of the journal.
    public var description: String { "WatchdogService" }

    private let notifier: SystemdNotifier
    private let interval: Duration
    private let clock: any WallClock

    public init(notifier: SystemdNotifier, interval: Duration, clock: any WallClock = SystemClock()) {
        self.notifier = notifier
        self.interval = interval
        self.clock = clock
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                notifier.watchdog()
                do { try await clock.sleep(for: interval) } catch { return }
            }
        }
    }
}

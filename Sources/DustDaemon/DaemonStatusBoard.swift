import DustServices
import Foundation
import Logging
import Synchronization

/// dustd's status record, shared by its services and written through to the database at every
/// change (docs/REFERENCE.md §15): `dustctl status` and the web API read what this holds.
public final class DaemonStatusBoard: Sendable {
    private let status: Mutex<DaemonStatus>
    private let database: DaemonDatabase
    private let clock: any WallClock
    private let logger: Logger

    public init(_ initial: DaemonStatus, database: DaemonDatabase, clock: any WallClock = SystemClock(), logger: Logger) {
        status = Mutex(initial)
        self.database = database
        self.clock = clock
        self.logger = logger
        publish(initial)
    }

    /// The record as it stands.
    public var current: DaemonStatus { status.withLock { $0 } }

    /// Changes the record, stamps the heartbeat and writes it.
    public func update(_ change: (inout DaemonStatus) -> Void) {
        let now = clock.now
        let updated = status.withLock { record in
            change(&record)
            record.heartbeatAt = now
            return record
        }
        publish(updated)
    }

    /// Writes the heartbeat alone: dustd is alive, even in a long wait.
    public func heartbeat() {
        update { _ in }
    }

    /// The longest a waiting loop sleeps before it looks at the wall clock and the settings again, so a
    /// clock set forward or back, or a reload (SIGHUP replaces the settings the loop reads), is seen
    /// within half a minute however long the wait.
    public static let lookAgainSeconds: TimeInterval = 30

    /// When the heartbeat is next due: an interval after the last write. The interval is the record's,
    /// fixed at start, so a reload that changes `poll.intervalSeconds` cannot make writer and readers
    /// (`DaemonHealth.lateAfter`, twice the interval) disagree.
    public var nextHeartbeat: Date {
        let record = current
        return record.heartbeatAt.addingTimeInterval(max(record.heartbeatSeconds, 0.001))
    }

    /// Writes the heartbeat when the last write is an interval old (or in the future: the clock
    /// went back). Every wait in dustd calls this when it wakes.
    public func heartbeatIfDue() {
        let now = clock.now
        let due = status.withLock { record in
            let age = now.timeIntervalSince(record.heartbeatAt)
            return age >= record.heartbeatSeconds || age < 0
        }
        if due { heartbeat() }
    }

    /// A wait as every waiting loop of dustd takes it: one sleep until `wake`, the heartbeat or the
    /// next look at the clock, whichever comes first, then the heartbeat written if it is due. The
    /// caller looks at the time again and calls this again while it still has to wait. False when
    /// cancelled (shutdown).
    public func pause(until wake: Date) async -> Bool {
        heartbeatIfDue()
        let deadline = min(wake, nextHeartbeat, clock.now.addingTimeInterval(Self.lookAgainSeconds))
        do {
            try await clock.sleep(until: deadline)
        } catch {
            return false
        }
        heartbeatIfDue()
        return true
    }

    /// Runs `work` (a poll cycle: requests that may each wait for their timeout) while the
    /// heartbeat keeps being written, so a slow server is not mistaken for a hung dustd.
    public func keepingHeartbeat<Result: Sendable>(_ work: () async -> Result) async -> Result {
        await withTaskGroup(of: Void.self, returning: Result.self) { group in
            group.addTask { [self] in
                while !Task.isCancelled {
                    heartbeatIfDue()
                    do { try await clock.sleep(until: nextHeartbeat) } catch { return }
                }
            }
            let result = await work()
            group.cancelAll()
            return result
        }
    }

    private func publish(_ record: DaemonStatus) {
        do {
            try database.opened.saveStatus(record)
        } catch {
            // A full disk must not stop polling; the journal has it instead.
            logger.error("Could not record dustd's status: \(error)")
        }
    }
}

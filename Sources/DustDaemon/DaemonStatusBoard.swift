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

    /// The longest a waiting loop may sleep between two looks at `heartbeatIfDue`: half the
    /// heartbeat interval, so the heartbeat is never older than 1.5 intervals while readers allow 2
    /// (`DaemonHealth.lateAfter`). The interval is the record's, fixed at start, so a reload that
    /// changes `poll.intervalSeconds` cannot make writer and readers disagree.
    public var heartbeatStep: Duration {
        .milliseconds(Int64(max(current.heartbeatSeconds, 0.002) * 500))
    }

    /// Writes the heartbeat when the last write is an interval old (or in the future: the clock
    /// went back). Every wait in dustd calls this after each step.
    public func heartbeatIfDue() {
        let now = clock.now
        let due = status.withLock { record in
            let age = now.timeIntervalSince(record.heartbeatAt)
            return age >= record.heartbeatSeconds || age < 0
        }
        if due { heartbeat() }
    }

    /// One step of a wait, as every waiting loop of dustd takes it: sleeps `seconds`, but at most
    /// `step` and `heartbeatStep` (so a clock change, a reload or a heartbeat is never late), then
    /// writes the heartbeat if it is due. False when cancelled (shutdown).
    public func pause(seconds: TimeInterval, step: Duration) async -> Bool {
        let longest = min(step.seconds, heartbeatStep.seconds)
        do {
            try await Task.sleep(for: .milliseconds(Int64(max(min(seconds, longest), 0.001) * 1000)))
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
            let step = heartbeatStep
            group.addTask { [self] in
                while !Task.isCancelled {
                    do { try await Task.sleep(for: step) } catch { return }
                    heartbeatIfDue()
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

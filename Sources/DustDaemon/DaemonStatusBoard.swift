import DustKit
import DustServices
import Foundation
import Logging
import Synchronization

/// dustd's status record, shared by its services and written through to the database at every
/// change (docs/REFERENCE.md §15): `dustctl status` and the web API read what this holds.
public final class DaemonStatusBoard: Sendable {
    /// A change waiting for the write under way to finish.
    private struct Waiter {
        var change: UInt64
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var record: DaemonStatus
        /// The number of the record's last change.
        var change: UInt64 = 0
        /// True while one caller writes; the others wait for it.
        var writing = false
        var waiting: [Waiter] = []
        /// False while another dustd polls (docs/REFERENCE.md §20): the record is kept here and the
        /// shared one, the poller's, is left alone.
        var publishing = true
    }

    private let state: Mutex<State>
    private let database: DaemonDatabase
    private let clock: any WallClock
    private let logger: Logger

    /// Writes `initial` before returning, so `dustctl status` sees the daemon from its first moment.
    /// - Parameter publishing: false for a dustd that does not poll yet (`PollerRole`): nothing is
    ///   written until `startPublishing()`.
    public init(
        _ initial: DaemonStatus, database: DaemonDatabase, clock: any WallClock = SystemClock(), logger: Logger, publishing: Bool = true
    ) async {
        state = Mutex(State(record: initial, publishing: publishing))
        self.database = database
        self.clock = clock
        self.logger = logger
        await publish(change: 0)
    }

    /// True while this board writes the shared record.
    public var isPublishing: Bool { state.withLock { $0.publishing } }

    /// This dustd became the poller: its record, with the history the last poller left (the last
    /// success and error, the forecast and advisory runs), becomes the shared one.
    public func startPublishing() async {
        let previous: DaemonStatus?
        do {
            previous = try await database.opened.loadStatus()
        } catch {
            logger.error("Could not read the last poller's status record: \(error)")
            previous = nil
        }
        state.withLock { $0.publishing = true }
        await update { status in
            status.state = .starting
            status.nextPollAt = nil
            status.stoppedAt = nil
            if let previous {
                status.lastSuccess = previous.lastSuccess
                status.lastError = previous.lastError
                status.forecast = previous.forecast
                status.advisories = previous.advisories
            }
        }
    }

    /// This dustd no longer polls: from now on its record stays here.
    public func stopPublishing() async {
        state.withLock { $0.publishing = false }
    }

    /// The record as it stands.
    public var current: DaemonStatus { state.withLock { $0.record } }

    /// Changes the record, stamps the heartbeat and writes it.
    public func update(_ change: (inout DaemonStatus) -> Void) async {
        let now = clock.now
        let number = state.withLock { state in
            change(&state.record)
            state.record.heartbeatAt = now
            state.change += 1
            return state.change
        }
        await publish(change: number)
    }

    /// `update`, waited for `seconds` at most: what dustd records while it stops. Another program
    /// holding the database's write lock (a `sqlite3` session left open, `dustctl person forget`
    /// rewriting the file) made each such write wait its full busy timeout, one after another, past
    /// systemd's `TimeoutStopSec=10s` and into a SIGKILL. The write goes on without the wait, and is
    /// abandoned unwritten (never half-written) if dustd exits first. The wait is real time (it is
    /// systemd's), and a cancelled caller (a stop under way) still waits for it: the record is what the
    /// stop is for. False when it was not done in time.
    @discardableResult
    public func update(within seconds: Double, _ change: @escaping @Sendable (inout DaemonStatus) -> Void) async -> Bool {
        let written = await finishedWithin(seconds: seconds) { [self] in await update { change(&$0) } } != nil
        if !written {
            logger.warning("dustd's status was not recorded within \(Int(seconds)) s: another program holds the database's write lock")
        }
        return written
    }

    /// Writes the heartbeat alone: dustd is alive, even in a long wait.
    public func heartbeat() async {
        await update { _ in }
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
    public func heartbeatIfDue() async {
        let now = clock.now
        let due = state.withLock { state in
            let age = now.timeIntervalSince(state.record.heartbeatAt)
            return age >= state.record.heartbeatSeconds || age < 0
        }
        if due { await heartbeat() }
    }

    /// A wait as every waiting loop of dustd takes it: one sleep until `wake`, the heartbeat or the
    /// next look at the clock, whichever comes first, then the heartbeat written if it is due. The
    /// caller looks at the time again and calls this again while it still has to wait. False when
    /// cancelled (shutdown).
    public func pause(until wake: Date) async -> Bool {
        await heartbeatIfDue()
        let deadline = min(wake, nextHeartbeat, clock.now.addingTimeInterval(Self.lookAgainSeconds))
        do {
            try await clock.sleep(until: deadline)
        } catch {
            return false
        }
        await heartbeatIfDue()
        return true
    }

    /// Runs `work` (a poll cycle: requests that may each wait for their timeout) while the
    /// heartbeat keeps being written, so a slow server is not mistaken for a hung dustd.
    public func keepingHeartbeat<Result: Sendable>(_ work: () async -> Result) async -> Result {
        await withTaskGroup(of: Void.self, returning: Result.self) { group in
            group.addTask { [self] in
                while !Task.isCancelled {
                    await heartbeatIfDue()
                    do { try await clock.sleep(until: nextHeartbeat, atMost: Self.lookAgainSeconds) } catch { return }
                }
            }
            let result = await work()
            group.cancelAll()
            return result
        }
    }

    /// Returns once the store holds change `change` or a later one. The services update the board
    /// concurrently, so one caller at a time writes, and always the newest record: the others wait
    /// for it (their change is in what it writes), and no older record can land after a newer one,
    /// however slowly the store answers.
    private func publish(change: UInt64) async {
        guard isPublishing else { return }
        let writes = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let queued = state.withLock { state in
                guard state.writing else {
                    state.writing = true
                    return false
                }
                state.waiting.append(Waiter(change: change, continuation: continuation))
                return true
            }
            if !queued { continuation.resume(returning: true) }
        }
        guard writes else { return }
        while true {
            let (record, number, publishing) = state.withLock { ($0.record, $0.change, $0.publishing) }
            do {
                if publishing { try await database.opened.saveStatus(record) }
            } catch {
                // A full disk must not stop polling; the journal has it instead.
                logger.error("Could not record dustd's status: \(error)")
            }
            let (finished, written) = state.withLock { state in
                let written = state.waiting.filter { $0.change <= number }
                state.waiting.removeAll { $0.change <= number }
                let finished = state.change == number
                if finished { state.writing = false }
                return (finished, written)
            }
            for waiter in written { waiter.continuation.resume(returning: false) }
            if finished { return }
        }
    }
}

import DustServices
import Foundation
import Logging
import Synchronization

/// dustd's status record, shared by its services and written through to the database at every
/// change (SPEC §15): `dustctl status` and the web API read what this holds.
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

    private func publish(_ record: DaemonStatus) {
        do {
            try database.opened.saveStatus(record)
        } catch {
            // A full disk must not stop polling; the journal has it instead.
            logger.error("Could not record dustd's status: \(error)")
        }
    }
}

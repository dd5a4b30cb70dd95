/// The right to poll AirKorea among several dustd on one database (docs/REFERENCE.md §20): exactly
/// one holds it at a time; the others serve the web and API and keep trying.
public protocol PollerLease: Sendable {
    /// True when no other dustd can ever hold it (SQLite's file lock already makes this dustd the
    /// only one): dustd then runs its poll services directly, as it always has.
    var alwaysHeld: Bool { get }

    /// Tries once, without waiting: true when this dustd holds the lease now (also when it already
    /// did), false when another dustd holds it. Throws when the database cannot be asked.
    func acquire() async throws(StorageFailure) -> Bool

    /// Returns when the lease this dustd holds is lost (the session that held it ended), at once
    /// when it holds none, and when the calling task is cancelled.
    func lost() async

    /// Gives the lease up, so another dustd takes over without waiting for a session to end.
    func release() async
}

extension PollerLease {
    public var alwaysHeld: Bool { false }
}

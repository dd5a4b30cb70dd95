import Foundation

/// Where the daemon's status is kept.
public protocol DaemonStatusStore: Sendable {
    /// Replaces the stored status.
    func saveStatus(_ status: DaemonStatus) async throws(StorageFailure)
    /// The status dustd last wrote; nil when it never ran against this database.
    func loadStatus() async throws(StorageFailure) -> DaemonStatus?
}

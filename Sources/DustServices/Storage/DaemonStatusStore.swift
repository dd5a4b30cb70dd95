import Foundation

/// Where the daemon's status is kept.
public protocol DaemonStatusStore: Sendable {
    func saveStatus(_ status: DaemonStatus) throws(StorageFailure)
    /// The status dustd last wrote; nil when it never ran against this database.
    func loadStatus() throws(StorageFailure) -> DaemonStatus?
}

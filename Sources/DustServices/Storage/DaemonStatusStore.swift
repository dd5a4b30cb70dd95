import Foundation

/// Where the daemon's status is kept.
public protocol DaemonStatusStore: Sendable {
    /// Replaces the stored status.
    func saveStatus(_ status: DaemonStatus) async throws(StorageFailure)
    /// The status dustd last wrote; nil when it never ran against this database.
    func loadStatus() async throws(StorageFailure) -> DaemonStatus?
    /// Claims the database for the demo (`dustctl demo`, `dustd --demo`) at `time`: true when the demo
    /// made it (its mark) or it holds nothing yet, which is then marked, in one transaction; false when
    /// it holds what the demo did not write (readings, stations, a household's data, dustd's status),
    /// which a replay would overwrite and mix with the demo's.
    func claimForDemo(at time: Date) async throws(StorageFailure) -> Bool
    /// What `claimForDemo` would answer, read without writing (nor migrating): asked of an existing
    /// file before the demo opens it to write, so a household's database is not even upgraded.
    func demoMayWrite() async throws(StorageFailure) -> Bool
    /// Removes the demo's mark (`claimForDemo`): dustd, polling into a database the demo made, makes it
    /// a household's, which no replay may then write over. True when there was a mark.
    func releaseFromDemo() async throws(StorageFailure) -> Bool
}

/// A copy of the whole database, made while others read and write it (`dustctl backup`,
/// docs/REFERENCE.md §15, "Backups").
public protocol BackupStore: Sendable {
    /// Writes a consistent copy of every table into the empty file at `path` (made by the caller, so
    /// that its mode and place are the caller's): as of one moment, whatever is being written meanwhile.
    func backUp(into path: String) async throws(StorageFailure)
}

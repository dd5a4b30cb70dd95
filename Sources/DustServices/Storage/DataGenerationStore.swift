/// How far the database has been written (docs/REFERENCE.md §13, "Answers kept"): a number that
/// every committed write raises in its own transaction, on every engine and from every process (a
/// `dustctl import`, a second dustd on PostgreSQL). Two equal readings saw the same stored data, so
/// what was computed from the first may be served for the second.
public protocol DataGenerationStore: Sendable {
    /// The number now.
    func dataGeneration() async throws(StorageFailure) -> Int64
}

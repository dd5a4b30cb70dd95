import DustServices
import Synchronization

extension PersonDataStore {
    /// Every record stored for `person`, each table in its key's order, held whole: what the
    /// contract tests compare (an export writes them as they come).
    public func personRecords(_ person: String) async throws(StorageFailure) -> PersonRecords {
        let collected = Mutex(PersonRecords())
        try await forEachPersonRecord(person) { record in collected.withLock { $0.append(record) } }
        return collected.withLock { $0 }
    }
}

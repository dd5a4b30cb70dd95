import DustKit
import DustServices
import Foundation

extension ActivityStore {
    /// Stores walking distances as the import of a CSV file does: source `csv`, each slot given
    /// replaced, other slots kept.
    public func saveCSVWalking(_ distances: [Slot: Double], importedAt: Date = Date()) async throws(StorageFailure) {
        try await saveActivity(
            [ActivitySourceBatch(source: ActivitySourceBatch.csvSource, distances: distances, replacing: nil)], importedAt: importedAt)
    }
}

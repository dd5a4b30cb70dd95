import DustKit
import Foundation

/// What a poll cycle reads and writes besides the readings: the newest slot per station, and a
/// record of every request.
public protocol PollStore: ReadingStore {
    /// The newest stored slot of `station` that ended by `now`; a future slot never counts.
    func newestSlot(station: String, endingBy now: Date) throws(StorageFailure) -> Slot?
    /// Records one request to AirKorea.
    func recordAttempt(_ attempt: PollAttempt) throws(StorageFailure)
}

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

extension DemoReplay {
    /// `person`'s places kept on the demo's last day (2026-11-20) for a person without `home` at the
    /// demo's radius, and the hours the demo's station reported that day: once the day is kept, one
    /// place for each of those hours (docs/REFERENCE.md §19).
    public static func keptPlacesOfLastDay(
        _ person: String, in store: some SlotPlaceStore & ReadingStore
    ) async throws(StorageFailure) -> (places: [KeptSlotPlace], reported: [Slot]) {
        let slots = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!).slots(of: lastDay)
        let end = slots[slots.count - 1].advanced(by: 1)
        let inputs = SlotPlace.inputs(radiusKilometres: locationRadiusKilometres, home: nil)
        return (
            try await store.slotPlaces(person: person, inputs: inputs, from: slots[0], to: end),
            try await store.readings(stations: [station], from: slots[0], to: end).map(\.slot)
        )
    }
}

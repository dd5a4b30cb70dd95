import DustKit
import Foundation

/// Where each person's weighed hours are kept (docs/REFERENCE.md §19): per person and slot, what the
/// weighting found from their positions, the stations and the stations' values (`SlotPlace`, stored
/// as its bytes), so a year of reports is not weighed again on every read.
///
/// Every write that can change a kept place removes it in the same transaction and raises the
/// generation: new readings remove their slots' places, a person's new or forgotten positions that
/// person's, a station list that moves a station every place. A place computed from what was stored
/// at one generation is kept only while the generation has not moved, so a weighing that raced a
/// write never keeps what the write made stale.
public protocol SlotPlaceStore: Sendable {
    /// The generation now: it only grows.
    func placeGeneration() async throws(StorageFailure) -> Int64
    /// `person`'s kept places for slots starting in `[from, to)` that were computed with `inputs`, by slot.
    func slotPlaces(person: String, inputs: String, from: Slot, to: Slot) async throws(StorageFailure) -> [KeptSlotPlace]
    /// Keeps `places` of `person`, computed with `inputs` from what was stored at `generation`,
    /// replacing what is kept for their slots; keeps nothing and returns false when a write has
    /// raised the generation since.
    func keepSlotPlaces(
        _ places: [KeptSlotPlace], person: String, inputs: String, generation: Int64
    ) async throws(StorageFailure) -> Bool
}

/// One kept place: its slot and `SlotPlace`'s bytes.
public struct KeptSlotPlace: Sendable, Hashable {
    public var slot: Slot
    public var bytes: [UInt8]

    public init(slot: Slot, bytes: [UInt8]) {
        self.slot = slot
        self.bytes = bytes
    }
}

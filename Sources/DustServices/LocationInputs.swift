import DustKit
import Foundation

/// What following a person needs (docs/REFERENCE.md §19): their stored positions, where the
/// stations stand, and how far a station may be to count.
public struct LocationInputs: Sendable {
    public var positions: any PositionReadStore
    /// Where the stations stand; read only for a person with `home` or positions in the range.
    public var stationList: any StationStore
    public var radiusKilometres: Double
    /// Where weighed hours are kept: a report reads them instead of weighing them again, and
    /// `StatisticsService.keepPlaces` keeps them. nil weighs every hour at each read.
    public var places: (any SlotPlaceStore)?

    public init(
        positions: any PositionReadStore, stationList: any StationStore, radiusKilometres: Double, places: (any SlotPlaceStore)? = nil
    ) {
        self.positions = positions
        self.stationList = stationList
        self.radiusKilometres = radiusKilometres
        self.places = places
    }
}

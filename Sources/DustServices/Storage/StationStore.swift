import DustKit
import Foundation

/// Where AirKorea's station list is kept: names, addresses and coordinates.
public protocol StationStore: Sendable {
    /// Stores stations in one transaction; a field a station does not carry keeps its stored value.
    func saveStations(_ stations: [Station], at time: Date) async throws(StorageFailure)
    /// Stations seen in measurements or the station list, by name.
    func stations() async throws(StorageFailure) -> [Station]
    /// The names of the stations with at least one stored hour, by name.
    func stationsWithReadings() async throws(StorageFailure) -> [String]
}

extension Station {
    /// Whether storing this station over the stored position (nil, nil when none) places it anew
    /// or moves it: a field it does not carry keeps its stored value (`saveStations`). Every kept
    /// place is weighed again then (docs/REFERENCE.md §19).
    public func moves(fromLatitude latitude: Double?, longitude: Double?) -> Bool {
        (self.latitude ?? latitude) != latitude || (self.longitude ?? longitude) != longitude
    }
}

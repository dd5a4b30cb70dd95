import DustKit
import Foundation

/// Where AirKorea's station list is kept: names, addresses and coordinates.
public protocol StationStore: Sendable {
    /// Stores stations in one transaction; a field a station does not carry keeps its stored value.
    func saveStations(_ stations: [Station], at time: Date) async throws(StorageFailure)
    /// Stations seen in measurements or the station list, by name.
    func stations() async throws(StorageFailure) -> [Station]
}

import DustConfig
import DustKit

/// A configuration dustd cannot run with.
public enum DaemonConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `station.name` is not set: there is nothing to poll.
    case noStation
    /// `people[index].station` names a station AirKorea's synced list does not hold (docs/REFERENCE.md §18).
    case unknownPersonStation(index: Int, person: String, station: String, listed: Int)

    public var description: String {
        switch self {
        case .noStation:
            "station.name is not set, so dustd has nothing to poll; set it in the configuration file or DUSTD_STATION_NAME (find one with dustctl stations)"
        case .unknownPersonStation(let index, let person, let station, let listed):
            "people[\(index)].station (\(TerminalSafeText.sanitized(person))) is \"\(TerminalSafeText.sanitized(station))\", "
                + "which is not in AirKorea's station list (\(listed) stations synced); find its name with "
                + "dustctl stations list or dustctl stations nearest --lat LAT --lon LON"
        }
    }

    /// Checks that `settings` can run the daemon, beyond being valid.
    public static func check(_ settings: FineDustSettings) throws(DaemonConfigurationError) {
        guard settings.station.name != nil else { throw .noStation }
    }

    /// Checks every person's own `station` against the station list `stations sync` stored (the
    /// stations with an address or a position; one only seen in measurements does not count).
    /// Before a sync there is no list to check against, and nothing is refused.
    public static func check(_ settings: FineDustSettings, stations: [Station]) throws(DaemonConfigurationError) {
        let listed = Set(stations.filter { $0.address != nil || $0.latitude != nil }.map(\.name))
        guard !listed.isEmpty else { return }
        for (index, person) in settings.people.enumerated() {
            if let station = person.station, !listed.contains(station) {
                throw .unknownPersonStation(index: index, person: person.name, station: station, listed: listed.count)
            }
        }
    }
}

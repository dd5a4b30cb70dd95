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

    /// Checks every person's own `station` against the stations AirKorea is known to have: those of
    /// the list `stations sync` stored (with an address or a position) and those it has already
    /// answered measurements for. Before a sync there is no list to check against, and nothing is
    /// refused.
    public static func check(_ settings: FineDustSettings, stations: [Station]) throws(DaemonConfigurationError) {
        let listed = stations.filter { $0.address != nil || $0.latitude != nil }.count
        guard listed > 0 else { return }
        let known = Set(stations.map(\.name))
        for (index, person) in settings.people.enumerated() {
            if let station = person.station, !known.contains(station) {
                throw .unknownPersonStation(index: index, person: person.name, station: station, listed: listed)
            }
        }
    }
}

import DustKit

extension ConfigurationError {
    /// `station.name` is not set: dustd has nothing to poll.
    public static let noStation = ConfigurationError(
        key: "station.name",
        problem:
            "is not set, so dustd has nothing to poll; set it in the configuration file or DUSTD_STATION_NAME (find one with dustctl stations)"
    )
}

extension FineDustSettings {
    /// Checks that these settings can run dustd, beyond being valid: there is a station to poll.
    public func checkDaemonCanRun() throws(ConfigurationError) {
        guard station.name != nil else {
            var error = ConfigurationError.noStation
            error.source = configurationFile
            throw error
        }
    }

    /// Checks every person's own `station` against the stations AirKorea is known to have: those of
    /// the list `stations sync` stored (with an address or a position) and those it has already
    /// answered measurements for (docs/REFERENCE.md §18). Before a sync there is no list to check
    /// against, and nothing is refused.
    public func checkPeopleStations(against stations: [Station]) throws(ConfigurationError) {
        let listed = stations.filter { $0.address != nil || $0.latitude != nil }.count
        guard listed > 0 else { return }
        let known = Set(stations.map(\.name))
        for (index, person) in people.enumerated() {
            if let station = person.station, !known.contains(station) {
                throw ConfigurationError(
                    key: "people[\(index)].station",
                    problem: "(\(TerminalSafeText.sanitized(person.name))) is \"\(TerminalSafeText.shown(station, characters: 80))\", "
                        + "which is not in AirKorea's station list (\(listed) stations synced); find its name with "
                        + "dustctl stations list or dustctl stations nearest --lat LAT --lon LON",
                    source: configurationFile)
            }
        }
    }
}

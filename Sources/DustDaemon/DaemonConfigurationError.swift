import DustConfig

/// A configuration dustd cannot run with.
public enum DaemonConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `station.name` is not set: there is nothing to poll.
    case noStation

    public var description: String {
        switch self {
        case .noStation:
            "station.name is not set, so dustd has nothing to poll; set it in the configuration file or DUSTD_STATION_NAME (find one with dustctl stations)"
        }
    }

    /// Checks that `settings` can run the daemon, beyond being valid.
    public static func check(_ settings: FineDustSettings) throws(DaemonConfigurationError) {
        guard settings.station.name != nil else { throw .noStation }
    }
}

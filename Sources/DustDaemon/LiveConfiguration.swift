import AirKorea
import DustConfig
import DustServices
import Synchronization

/// Current settings and key, replaced on SIGHUP; readers always see a consistent pair.
public final class LiveConfiguration: Sendable {
    public struct Snapshot: Sendable {
        public var settings: FineDustSettings
        public var key: ServiceKey

        public init(settings: FineDustSettings, key: ServiceKey) {
            self.settings = settings
            self.key = key
        }
    }

    private let current: Mutex<Snapshot>
    private let replacements = Atomic<Int>(0)

    public init(settings: FineDustSettings, key: ServiceKey) {
        current = Mutex(Snapshot(settings: settings, key: key))
    }

    public var snapshot: Snapshot { current.withLock { $0 } }

    public func replace(_ snapshot: Snapshot) {
        current.withLock { $0 = snapshot }
        replacements.add(1, ordering: .releasing)
    }

    /// How many times the settings were replaced (each SIGHUP reload): what a service compares to
    /// learn that a reload happened (an advisory operation turned off comes back on).
    public var generation: Int { replacements.load(ordering: .acquiring) }
}

extension LiveConfiguration.Snapshot {
    /// The stations polled: the primary, its fallbacks and every person's home station
    /// (docs/REFERENCE.md §18); nil when `station.name` is not set.
    public var stations: StationPreference? {
        settings.station.name.map { StationPreference(primary: $0, fallbacks: Array(settings.polledStations.dropFirst())) }
    }

    /// A poll cycle for these settings and this key.
    /// `stationList` gives the names suggested for a station AirKorea does not know.
    public func cycle(
        store: any PollStore, transport: any HTTPTransport, clock: any WallClock, stationList: (any StationStore)? = nil
    ) -> PollCycle {
        PollCycle(
            source: AirKoreaClient(api: settings.api, key: key, transport: transport), store: store, clock: clock, stationList: stationList)
    }

    /// Whether a cycle also archives every station (`station.mode: nation`).
    public var includesNation: Bool { settings.station.mode == .nation }
}

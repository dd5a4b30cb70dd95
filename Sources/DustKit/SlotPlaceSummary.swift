import Foundation

/// What the outputs say of a slot's place (`where`, docs/REFERENCE.md §19): where the person's
/// concentration came from (the home station, the value weighted at home, or their track for part of
/// the slot), the stations used and why a value fell back. `SlotPlace` (DustServices) is the weighting
/// itself, kept as `KeptSlotPlace`; this is its summary, made afresh at each read.
public struct SlotPlaceSummary: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case homeStation = "home-station"
        case home
        case track
    }

    /// A station the slot's value was weighted from, at its nearest to the person in the slot.
    public struct UsedStation: Sendable, Hashable {
        public var station: String
        public var kilometres: Double

        public init(station: String, kilometres: Double) {
            self.station = station
            self.kilometres = kilometres
        }
    }

    public var kind: Kind
    /// τ: the share of the slot the track covers; 0 unless `kind` is `track`.
    public var trackedFraction: Double
    /// Per pollutant, the stations used (at home, or at any tracked position), nearest first.
    public var stations: DustPair<[UsedStation]>
    /// Why a weighted value was sought and not found (at home, or at some tracked position).
    public var fallback: WeightingFallback?

    public init(
        kind: Kind, trackedFraction: Double = 0, stations: DustPair<[UsedStation]> = DustPair(repeating: []),
        fallback: WeightingFallback? = nil
    ) {
        self.kind = kind
        self.trackedFraction = trackedFraction
        self.stations = stations
        self.fallback = fallback
    }

    /// The home station's value, as without §19.
    public static let homeStation = SlotPlaceSummary(kind: .homeStation)

    /// The nearest station used for any pollutant, for `dustctl day`'s mark.
    public var nearest: UsedStation? {
        (stations.fineDust + stations.ultraFineDust).min { ($0.kilometres, $0.station) < ($1.kilometres, $1.station) }
    }
}

extension [SlotPlaceSummary.UsedStation] {
    /// Adds the stations of one weighting, keeping each station's nearest distance, nearest first.
    mutating func include(_ weighted: [WeightedStation]) {
        for station in weighted {
            if let index = firstIndex(where: { $0.station == station.station }) {
                self[index].kilometres = Swift.min(self[index].kilometres, station.distanceKilometres)
            } else {
                append(SlotPlaceSummary.UsedStation(station: station.station, kilometres: station.distanceKilometres))
            }
        }
        sort { ($0.kilometres, $0.station) < ($1.kilometres, $1.station) }
    }
}

extension SlotPlaceSummary {
    /// Collects, per pollutant, the stations a set of weightings used; public for the services.
    public static func stations(_ weightings: DustPair<[WeightedValue]>) -> DustPair<[UsedStation]> {
        weightings.map { values in
            var used: [UsedStation] = []
            for value in values { used.include(value.stations) }
            return used
        }
    }
}

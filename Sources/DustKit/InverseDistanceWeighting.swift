import Foundation

// The value of one pollutant in one slot at a place where no station stands: the nearest stations'
// values weighted by the inverse square of their distance (docs/REFERENCE.md §19).

/// A place on Earth in degrees: a person's home or a tracked position.
public struct GeoPoint: Sendable, Hashable {
    /// Degrees north.
    public var latitude: Double
    /// Degrees east.
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// The great-circle distance to `other` in kilometres (the one distance rule, `GreatCircle`).
    public func kilometres(to other: GeoPoint) -> Double {
        GreatCircle.kilometres(latitude1: latitude, longitude1: longitude, latitude2: other.latitude, longitude2: other.longitude)
    }
}

/// A station that may inform the value at a point: where it stands (nil: the station list has no
/// position for it) and its value for the slot and pollutant (nil: unknown).
public struct WeightingCandidate: Sendable, Hashable {
    public var station: String
    public var location: GeoPoint?
    public var value: Double?

    public init(station: String, location: GeoPoint?, value: Double?) {
        self.station = station
        self.location = location
        self.value = value
    }
}

/// A station that went into a weighted value, with what it contributed.
public struct WeightedStation: Sendable, Hashable {
    public var station: String
    /// From the point, km.
    public var distanceKilometres: Double
    /// Its concentration for the slot and pollutant.
    public var value: Double
    /// `1 / max(d, 0.1 km)²`.
    public var weight: Double

    public init(station: String, distanceKilometres: Double, value: Double, weight: Double) {
        self.station = station
        self.distanceKilometres = distanceKilometres
        self.value = value
        self.weight = weight
    }
}

/// Why a point has no weighted value; the slot then takes the home value and says which of these
/// it was (docs/REFERENCE.md §19).
public enum WeightingFallback: String, Sendable, Hashable, CaseIterable {
    /// No station has a row for the slot: the national archive lacks that hour (or `station.mode` is not `nation`).
    case noNationalData = "no-national-data"
    /// Stations have rows, but the station list places none of them (not synced, or no coordinates).
    case noStationPositions = "no-station-positions"
    /// No station with a known value stands within `location.radiusKm`.
    case noStationWithinRadius = "no-station-within-radius"
}

/// The value at a point, or why there is none.
public struct WeightedValue: Sendable, Hashable {
    /// What the weighting found.
    public enum Outcome: Sendable, Hashable {
        /// `C = Σ wᵢCᵢ / Σ wᵢ` over `stations`, nearest first.
        case weighted(value: Double, stations: [WeightedStation])
        /// No value: the caller falls back to the home value, for this reason.
        case fallback(WeightingFallback)
    }

    public var outcome: Outcome
    /// Candidates left out because the station list holds no plausible position for them.
    public var stationsWithoutCoordinates: Int

    public init(outcome: Outcome, stationsWithoutCoordinates: Int) {
        self.outcome = outcome
        self.stationsWithoutCoordinates = stationsWithoutCoordinates
    }

    /// The weighted concentration; nil when there is none.
    public var value: Double? {
        if case .weighted(let value, _) = outcome { return value }
        return nil
    }

    /// The stations used, nearest first; empty when there is no weighted value.
    public var stations: [WeightedStation] {
        if case .weighted(_, let stations) = outcome { return stations }
        return []
    }
}

/// Inverse-distance weighting from the nearest stations (docs/REFERENCE.md §19).
public enum InverseDistanceWeighting {
    /// How many stations are weighted at most.
    public static let nearestCount = 3
    /// Closer than this, a station counts as this far: a point on top of a station takes (almost)
    /// its value instead of dividing by zero.
    public static let minimumDistanceKilometres = 0.1
    /// `location.radiusKm` when the configuration leaves it out.
    public static let defaultRadiusKilometres = 10.0

    /// The value at `point` from the `nearestCount` nearest candidates with a known value within
    /// `radiusKilometres` (a station exactly at the radius counts). Equal distances are ordered by
    /// station name, so the same inputs always choose the same stations. `candidates` are every
    /// station with a row for the slot, so that an empty list can say the hour has no national data.
    public static func value(at point: GeoPoint, candidates: [WeightingCandidate], radiusKilometres: Double) -> WeightedValue {
        var withoutCoordinates = 0
        var reachable: [(station: String, distance: Double, value: Double)] = []
        for candidate in candidates {
            guard let location = candidate.location,
                Station.isPlausibleLocation(latitude: location.latitude, longitude: location.longitude)
            else {
                withoutCoordinates += 1
                continue
            }
            guard let value = candidate.value, value.isFinite else { continue }
            let distance = point.kilometres(to: location)
            if distance <= radiusKilometres { reachable.append((candidate.station, distance, value)) }
        }
        let nearest = reachable.sorted { ($0.distance, $0.station) < ($1.distance, $1.station) }.prefix(nearestCount)
        guard !nearest.isEmpty else {
            let reason: WeightingFallback =
                candidates.isEmpty ? .noNationalData : withoutCoordinates == candidates.count ? .noStationPositions : .noStationWithinRadius
            return WeightedValue(outcome: .fallback(reason), stationsWithoutCoordinates: withoutCoordinates)
        }
        let stations = nearest.map { weightedStation($0.station, distanceKilometres: $0.distance, value: $0.value) }
        let value = stations.reduce(0) { $0 + $1.weight * $1.value } / stations.reduce(0) { $0 + $1.weight }
        return WeightedValue(outcome: .weighted(value: value, stations: stations), stationsWithoutCoordinates: withoutCoordinates)
    }

    /// `wᵢ = 1 / max(dᵢ, 0.1 km)²`.
    static func weight(distanceKilometres: Double) -> Double {
        let floored = max(distanceKilometres, minimumDistanceKilometres)
        return 1 / (floored * floored)
    }

    static func weightedStation(_ station: String, distanceKilometres: Double, value: Double) -> WeightedStation {
        WeightedStation(
            station: station, distanceKilometres: distanceKilometres, value: value, weight: weight(distanceKilometres: distanceKilometres))
    }
}

/// `C_home` of one slot and pollutant (docs/REFERENCE.md §19): the weighted value at the person's
/// `home`, else the home station's value.
public struct HomeValue: Sendable, Hashable {
    /// µg/m³; nil when unknown.
    public var concentration: Double?
    /// The weighting at home; nil when the person has no `home`.
    public var weighted: WeightedValue?

    /// Weighs `candidates` at `home`; without `home`, or when the weighting falls back, the home
    /// station's value (with §5's fallbacks already applied by the caller).
    public init(home: GeoPoint?, homeStationValue: Double?, candidates: [WeightingCandidate], radiusKilometres: Double) {
        guard let home else {
            self.init(concentration: homeStationValue, weighted: nil)
            return
        }
        let weighted = InverseDistanceWeighting.value(at: home, candidates: candidates, radiusKilometres: radiusKilometres)
        self.init(concentration: weighted.value ?? homeStationValue, weighted: weighted)
    }

    public init(concentration: Double?, weighted: WeightedValue?) {
        self.concentration = concentration
        self.weighted = weighted
    }

    /// Whether the value is the weighted one at home (`where: home`) rather than the home station's (`home-station`).
    public var isWeightedAtHome: Bool { weighted?.value != nil }

    /// Why a configured `home` fell back to the home station's value; nil without `home` or when weighted.
    public var fallback: WeightingFallback? {
        if case .fallback(let reason)? = weighted?.outcome { return reason }
        return nil
    }
}

import DustKit
import Foundation

/// Where the synced station list places each station, for weighting the national archive's values
/// at a home or a tracked position (docs/REFERENCE.md §19).
public struct StationPositions: Sendable {
    private let locationByName: [String: GeoPoint]

    /// Keeps the stations with a plausible position; the others are left out of every weighting
    /// (and counted there, when their readings name them).
    public init(stations: [Station]) {
        var locations: [String: GeoPoint] = [:]
        for station in stations where station.hasPlausibleLocation {
            locations[station.name] = GeoPoint(latitude: station.latitude!, longitude: station.longitude!)
        }
        locationByName = locations
    }

    /// How many stations have a position.
    public var count: Int { locationByName.count }

    /// The position of `station`; nil when the list holds none.
    public func location(of station: String) -> GeoPoint? { locationByName[station] }

    /// The candidates for `slot`, per pollutant: one per station of `readings` that holds that
    /// slot (the national archive's rows; other slots are ignored), with its position from the list
    /// and its value for the pollutant. A station read twice for the slot counts once, its first row.
    public func candidates(readings: [HourlyReading], slot: Slot) -> DustPair<[WeightingCandidate]> {
        var seen: Set<String> = []
        var rows: [HourlyReading] = []
        for reading in readings where reading.slot == slot && seen.insert(reading.station).inserted {
            rows.append(reading)
        }
        return DustPair(byPollutant: { pollutant in
            rows.map { row in
                WeightingCandidate(station: row.station, location: locationByName[row.station], value: row.concentration[pollutant])
            }
        })
    }

    /// The stations that may stand within `kilometres` of any of `points`, by name: those inside the
    /// points' bounding box widened by the radius (a cheap filter; the weighting measures each
    /// distance). Empty without points.
    public func names(near points: [GeoPoint], withinKilometres kilometres: Double) -> [String] {
        guard let first = points.first else { return [] }
        var south = first.latitude
        var north = first.latitude
        var west = first.longitude
        var east = first.longitude
        for point in points.dropFirst() {
            south = min(south, point.latitude)
            north = max(north, point.latitude)
            west = min(west, point.longitude)
            east = max(east, point.longitude)
        }
        // On the sphere of the distance helper (R = 6,371.0088 km): a great circle of length d changes
        // latitude by at most d / R, and longitude by at most asin(sin(d / R) / cos φ) at the latitude φ
        // nearest a pole it reaches. Each margin is widened by a part in a million, so that rounding
        // never leaves out a station inside the radius.
        let angle = kilometres / (GreatCircle.earthRadiusMetres / 1000)
        let degrees = 180 / Double.pi * (1 + 1e-6)
        let latitudeMargin = angle * degrees
        let widest = max(abs(south), abs(north)) + latitudeMargin
        let sine = widest >= 90 ? 1 : min(1, sin(min(angle, Double.pi / 2)) / cos(widest * Double.pi / 180))
        let longitudeMargin = sine >= 1 ? 360 : asin(sine) * degrees
        return locationByName.filter { _, location in
            location.latitude >= south - latitudeMargin && location.latitude <= north + latitudeMargin
                && location.longitude >= west - longitudeMargin && location.longitude <= east + longitudeMargin
        }
        .keys.sorted()
    }
}

import Foundation

/// Distance along the Earth's surface: the haversine formula on a sphere of the IUGG mean radius
/// (docs/REFERENCE.md §6, §12 and §19), the one rule for a walked GPS step, the nearest station and
/// the stations weighted at a point.
public enum GreatCircle {
    /// Mean Earth radius R1 of the IUGG, metres: 6,371.0088 km.
    public static let earthRadiusMetres = 6_371_008.8

    /// The great-circle distance in metres between two points given in degrees.
    ///
    /// `asin` is fed at most 1, so rounding near the antipode (or latitudes beyond ±90°) never
    /// yields NaN: the distance is then at most half the circumference.
    public static func metres(latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double) -> Double {
        metres(
            latitude1: latitude1, longitude1: longitude1, cosineOfLatitude1: cosine(ofLatitude: latitude1), latitude2: latitude2,
            longitude2: longitude2, cosineOfLatitude2: cosine(ofLatitude: latitude2))
    }

    /// The same distance with each latitude's cosine already known (`cosine(ofLatitude:)`): one point
    /// measured against many stations computes each cosine once, and gets exactly the same metres.
    public static func metres(
        latitude1: Double, longitude1: Double, cosineOfLatitude1: Double, latitude2: Double, longitude2: Double, cosineOfLatitude2: Double
    ) -> Double {
        let radians = Double.pi / 180
        let deltaPhi = (latitude2 - latitude1) * radians
        let deltaLambda = (longitude2 - longitude1) * radians
        let sinPhi = sin(deltaPhi / 2)
        let sinLambda = sin(deltaLambda / 2)
        let a = sinPhi * sinPhi + cosineOfLatitude1 * cosineOfLatitude2 * sinLambda * sinLambda
        return 2 * earthRadiusMetres * asin(min(1, a.squareRoot()))
    }

    /// cos φ of a latitude in degrees, as the haversine uses it.
    public static func cosine(ofLatitude latitude: Double) -> Double { cos(latitude * (Double.pi / 180)) }

    /// The same distance in kilometres.
    public static func kilometres(latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double) -> Double {
        metres(latitude1: latitude1, longitude1: longitude1, latitude2: latitude2, longitude2: longitude2) / 1000
    }
}

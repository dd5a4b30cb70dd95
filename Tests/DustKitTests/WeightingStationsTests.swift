import DustKit
import Foundation
import TestSupport
import Testing

@Suite("Weighting many points against prepared stations (docs/REFERENCE.md §19)", .timeLimit(.minutes(10)))
struct WeightingStationsTests {
    /// Names whose order by `<` differs from their order of creation, Korean and Latin mixed.
    private static let namePool = ["중구", "종로구", "용산구", "마포구", "a", "B", "서울측정소010", "서울측정소009", "z", "강남구", "Z1", "ㄱ"]

    @Test("the prepared weighting returns exactly (==) what the reference returns: value, stations, distances, fallback")
    func sameAsReference() {
        var random = SeededGenerator(seed: 23)
        var weighted = 0
        var fallbacks = Set<WeightingFallback>()
        for sample in 0..<400 {
            // Most sets around 서울; every fourth astride the 180th meridian, where longitudes wrap.
            let centre = sample % 4 == 3 ? GeoPoint(latitude: 64.8, longitude: 179.95) : GeoPoint(latitude: 37.55, longitude: 126.99)
            let count = Int.random(in: 0...40, using: &random)
            let names = (0..<count).map { index in "\(Self.namePool[index % Self.namePool.count])\(index / Self.namePool.count)" }
                .shuffled(using: &random)
            // Stations within ~25 km of 서울's centre; some share a place (equal distances go by name),
            // some have no position or the 0°/0° placeholder.
            var locations: [GeoPoint?] = []
            for index in 0..<count {
                switch Int.random(in: 0..<20, using: &random) {
                case 0: locations.append(nil)
                case 1: locations.append(GeoPoint(latitude: 0, longitude: 0))
                case 2...3 where index > 0: locations.append(locations[Int.random(in: 0..<index, using: &random)])
                default:
                    locations.append(Self.around(centre, latitude: 0.22, longitude: 0.28, random: &random))
                }
            }
            let stations = WeightingStations(names: names, locations: locations)
            var readings = stations.readings()
            // Several slots on the same stations: rows and values missing at random, reused readings.
            for _ in 0..<3 {
                stations.clear(&readings)
                var candidates = DustPair<[WeightingCandidate]>(repeating: [])
                for index in (0..<count).shuffled(using: &random) where Int.random(in: 0..<6, using: &random) > 0 {
                    let values = DustPair(byPollutant: { _ in Self.randomValue(&random) })
                    stations.record(index, values: values, in: &readings)
                    for pollutant in Pollutant.allCases {
                        candidates[pollutant].append(
                            WeightingCandidate(station: names[index], location: locations[index], value: values[pollutant]))
                    }
                }
                var previous: DustPair<WeightingStations.Nearest>?
                for _ in 0..<12 {
                    let point = Self.randomPoint(locations: locations, centre: centre, random: &random)
                    let radius = [0.5, 2, 5, 10, 30].randomElement(using: &random)!
                    let nearest = stations.nearest(to: point, readings: readings, radiusKilometres: radius)
                    // Starting from the stations found for the previous point changes nothing.
                    let hinted = stations.nearest(to: point, readings: readings, radiusKilometres: radius, near: previous)
                    previous = nearest
                    for pollutant in Pollutant.allCases {
                        #expect(
                            stations.weightedValue(hinted[pollutant], pollutant: pollutant, readings: readings)
                                == stations.weightedValue(nearest[pollutant], pollutant: pollutant, readings: readings))
                        let reference = InverseDistanceWeighting.value(
                            at: point, candidates: candidates[pollutant], radiusKilometres: radius)
                        let fast = stations.weightedValue(nearest[pollutant], pollutant: pollutant, readings: readings)
                        #expect(fast == reference, "point \(point), radius \(radius), \(pollutant)")
                        #expect(nearest[pollutant].value == reference.value)
                        if reference.value != nil { weighted += 1 }
                        if case .fallback(let reason) = reference.outcome { fallbacks.insert(reason) }
                    }
                }
            }
        }
        // The samples reach every outcome.
        #expect(weighted > 5_000)
        #expect(fallbacks == Set(WeightingFallback.allCases))
    }

    @Test("equal distances go to the first name, as in the reference")
    func tiesByName() {
        let place = GeoPoint(latitude: 37.56, longitude: 126.99)
        let names = ["중구", "B", "a", "종로구"]
        let stations = WeightingStations(names: names, locations: Array(repeating: place, count: 4))
        var readings = stations.readings()
        for index in names.indices {
            stations.record(index, values: DustPair(fineDust: Double(10 * index), ultraFineDust: nil), in: &readings)
        }
        let point = GeoPoint(latitude: 37.57, longitude: 126.99)
        let nearest = stations.nearest(to: point, readings: readings, radiusKilometres: 10)
        // "B" < "a" < "종로구" < "중구" by Swift's String order; the fourth is left out.
        #expect((0..<nearest.fineDust.count).map { names[nearest.fineDust.index($0)] } == ["B", "a", "종로구"])
        #expect(nearest.ultraFineDust.count == 0)
        #expect(nearest.ultraFineDust.fallback == .noStationWithinRadius)
    }

    private static func randomValue(_ random: inout SeededGenerator) -> Double? {
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1: nil
        case 2: Int.random(in: 0..<4, using: &random) == 0 ? .infinity : Double(Int.random(in: 0...200, using: &random))
        default: Double(Int.random(in: 0...200, using: &random))
        }
    }

    /// On a station, near one, or anywhere around (sometimes far from every station).
    /// A point within the given degrees of `centre`, its longitude wrapped into −180…180.
    private static func around(_ centre: GeoPoint, latitude: Double, longitude: Double, random: inout SeededGenerator) -> GeoPoint {
        var east = centre.longitude + Double.random(in: -longitude...longitude, using: &random)
        if east > 180 { east -= 360 }
        return GeoPoint(latitude: centre.latitude + Double.random(in: -latitude...latitude, using: &random), longitude: east)
    }

    private static func randomPoint(locations: [GeoPoint?], centre: GeoPoint, random: inout SeededGenerator) -> GeoPoint {
        let placed = locations.compactMap { $0 }
        switch Int.random(in: 0..<6, using: &random) {
        case 0 where !placed.isEmpty: return placed.randomElement(using: &random)!
        case 1 where !placed.isEmpty:
            let station = placed.randomElement(using: &random)!
            return GeoPoint(
                latitude: station.latitude + Double.random(in: -0.001...0.001, using: &random),
                longitude: station.longitude + Double.random(in: -0.001...0.001, using: &random))
        case 2: return GeoPoint(latitude: 35.18, longitude: 129.08)
        default: return around(centre, latitude: 0.3, longitude: 0.35, random: &random)
        }
    }
}

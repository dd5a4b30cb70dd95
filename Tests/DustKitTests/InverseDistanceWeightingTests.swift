import DustKit
import Foundation
import Testing

// Station positions used below (degrees north, degrees east), as the station list gives them:
// 종로구 37.572025/127.005028, 중구 37.564263/126.974676, 용산구 37.540033/127.004850, and a fourth,
// 마포구, placed at 37.555580/126.905597 (west of the others). The distances in the comments are
// haversine distances with R = 6,371.0088 km, worked out by hand to the digits shown.
private let jongno = GeoPoint(latitude: 37.572025, longitude: 127.005028)
private let junggu = GeoPoint(latitude: 37.564263, longitude: 126.974676)
private let yongsan = GeoPoint(latitude: 37.540033, longitude: 127.004850)
private let mapo = GeoPoint(latitude: 37.555580, longitude: 126.905597)

/// A point in 중구's east, between the three stations.
private let between = GeoPoint(latitude: 37.560, longitude: 126.990)

private func candidates(
    jongno jongnoValue: Double? = 30, junggu jungguValue: Double? = 40, yongsan yongsanValue: Double? = 50, mapo mapoValue: Double? = nil
) -> [WeightingCandidate] {
    var list = [
        WeightingCandidate(station: "종로구", location: jongno, value: jongnoValue),
        WeightingCandidate(station: "중구", location: junggu, value: jungguValue),
        WeightingCandidate(station: "용산구", location: yongsan, value: yongsanValue),
    ]
    if let mapoValue { list.append(WeightingCandidate(station: "마포구", location: mapo, value: mapoValue)) }
    return list
}

@Suite("Inverse-distance weighting (docs/REFERENCE.md §19)", .timeLimit(.minutes(10)))
struct InverseDistanceWeightingTests {
    @Test("between three stations: C = Σ wᵢCᵢ / Σ wᵢ with wᵢ = 1/dᵢ², nearest first")
    func betweenThree() {
        // d(중구) = 1.431475 km → w = 1 / 1.431475² = 0.488014
        // d(종로구) = 1.882108 km → w = 1 / 1.882108² = 0.282300
        // d(용산구) = 2.577458 km → w = 1 / 2.577458² = 0.150528
        // C = (0.488014 × 40 + 0.282300 × 30 + 0.150528 × 50) / (0.488014 + 0.282300 + 0.150528)
        //   = (19.520567 + 8.469002 + 7.526392) / 0.920842 = 35.515961 / 0.920842 = 38.569003
        let weighted = InverseDistanceWeighting.value(at: between, candidates: candidates(), radiusKilometres: 10)
        #expect(weighted.stations.map(\.station) == ["중구", "종로구", "용산구"])
        let distances = weighted.stations.map(\.distanceKilometres)
        for (distance, expected) in zip(distances, [1.431475, 1.882108, 2.577458]) { #expect(abs(distance - expected) < 5e-7) }
        #expect(abs(weighted.stations[0].weight - 0.488014) < 5e-7)
        #expect(abs(weighted.value! - 38.569003) < 5e-7)
        #expect(weighted.stationsWithoutCoordinates == 0)
    }

    @Test("on top of a station: the 0.1 km floor gives it weight 100, and the value is almost its own")
    func onTopOfAStation() {
        // d(종로구) = 0 → w = 1 / 0.1² = 100; d(중구) = 2.810904 → 0.126563; d(용산구) = 3.557388 → 0.079020
        // C = (100 × 30 + 0.126563 × 40 + 0.079020 × 50) / 100.205583 = 3009.013538 / 100.205583 = 30.028402
        let weighted = InverseDistanceWeighting.value(at: jongno, candidates: candidates(), radiusKilometres: 10)
        #expect(weighted.stations.first?.station == "종로구")
        #expect(weighted.stations.first?.distanceKilometres == 0)
        #expect(abs(weighted.stations[0].weight - 100) < 1e-9)
        #expect(abs(weighted.value! - 30.028402) < 5e-7)
        #expect(weighted.value!.isFinite)
    }

    @Test("a station without a value for the slot is skipped and the next nearest takes its place")
    func stationWithoutValue() {
        // 중구 (1.431475 km) has no value: the three are 종로구, 용산구 and 마포구 (d = 7.456228 → w = 0.017987).
        // C = (0.282300 × 30 + 0.150528 × 50 + 0.017987 × 60) / (0.282300 + 0.150528 + 0.017987)
        //   = (8.469002 + 7.526392 + 1.079227) / 0.450815 = 17.074621 / 0.450815 = 37.875005
        let weighted = InverseDistanceWeighting.value(at: between, candidates: candidates(junggu: nil, mapo: 60), radiusKilometres: 10)
        #expect(weighted.stations.map(\.station) == ["종로구", "용산구", "마포구"])
        #expect(abs(weighted.value! - 37.875005) < 5e-7)
    }

    @Test("a fourth station farther than the third is ignored, whatever its value")
    func fourthIgnored() {
        // 마포구 at 7.456228 km is within 10 km but fourth: C stays 38.569003 (the three-station value).
        let weighted = InverseDistanceWeighting.value(at: between, candidates: candidates(mapo: 500), radiusKilometres: 10)
        #expect(weighted.stations.map(\.station) == ["중구", "종로구", "용산구"])
        #expect(abs(weighted.value! - 38.569003) < 5e-7)
    }

    @Test("nothing within the radius: no value, and the outcome says so")
    func nothingWithinRadius() {
        // The nearest, 중구, is 1.431475 km away; a 1 km radius holds none.
        let near = InverseDistanceWeighting.value(at: between, candidates: candidates(), radiusKilometres: 1)
        #expect(near.outcome == .fallback(.noStationWithinRadius))
        #expect(near.value == nil && near.stations.isEmpty)
        // A walk in 부산 (35.1796/129.0756) is about 325 km from 서울's stations.
        let busan = InverseDistanceWeighting.value(
            at: GeoPoint(latitude: 35.1796, longitude: 129.0756), candidates: candidates(), radiusKilometres: 10)
        #expect(busan.outcome == .fallback(.noStationWithinRadius))
        // A station without a value counts for nothing, even when it is the only one in reach.
        let unknown = InverseDistanceWeighting.value(at: between, candidates: candidates(junggu: nil), radiusKilometres: 1.5)
        #expect(unknown.outcome == .fallback(.noStationWithinRadius))
    }

    @Test("home between two stations: with only two within the radius, k = 2")
    func homeBetweenTwo() {
        // Home at 37.568/126.990, radius 3 km: d(종로구) = 1.398056, d(중구) = 1.413116, d(용산구) = 3.374090 (outside).
        // w(종로구) = 1 / 1.398056² = 0.511624, w(중구) = 1 / 1.413116² = 0.500777
        // C = (0.511624 × 30 + 0.500777 × 40) / (0.511624 + 0.500777) = (15.348725 + 20.031090) / 1.012401 = 35.379816 / 1.012401 = 34.946430
        let home = GeoPoint(latitude: 37.568, longitude: 126.990)
        let weighted = InverseDistanceWeighting.value(at: home, candidates: candidates(), radiusKilometres: 3)
        #expect(weighted.stations.map(\.station) == ["종로구", "중구"])
        #expect(abs(weighted.value! - 34.946430) < 5e-7)
    }

    @Test("stations without a position (none, or the 0°/0° placeholder) are left out and counted")
    func withoutCoordinates() {
        var list = candidates()
        list.append(WeightingCandidate(station: "위치없음", location: nil, value: 999))
        list.append(WeightingCandidate(station: "기니만", location: GeoPoint(latitude: 0, longitude: 0), value: 999))
        let weighted = InverseDistanceWeighting.value(at: between, candidates: list, radiusKilometres: 10)
        #expect(weighted.stationsWithoutCoordinates == 2)
        #expect(abs(weighted.value! - 38.569003) < 5e-7)
    }

    @Test("no rows for the slot, or no row with a position: the fallback says which")
    func whyNoValue() {
        let noData = InverseDistanceWeighting.value(at: between, candidates: [], radiusKilometres: 10)
        #expect(noData.outcome == .fallback(.noNationalData))
        let unplaced = candidates().map { WeightingCandidate(station: $0.station, location: nil, value: $0.value) }
        let noPositions = InverseDistanceWeighting.value(at: between, candidates: unplaced, radiusKilometres: 10)
        #expect(noPositions.outcome == .fallback(.noStationPositions))
        #expect(noPositions.stationsWithoutCoordinates == 3)
        #expect(WeightingFallback.allCases.map(\.rawValue) == ["no-national-data", "no-station-positions", "no-station-within-radius"])
    }

    @Test("equal distances are ordered by station name, so the third place is always the same station")
    func tiesByName() {
        // On one parallel, 0.01° east and west of the point are exactly as far (the haversine is symmetric in Δλ).
        let point = GeoPoint(latitude: 37.5, longitude: 127.0)
        let list = [
            WeightingCandidate(station: "나", location: GeoPoint(latitude: 37.5, longitude: 127.01), value: 10),
            WeightingCandidate(station: "가", location: GeoPoint(latitude: 37.5, longitude: 126.99), value: 20),
            WeightingCandidate(station: "다", location: GeoPoint(latitude: 37.5, longitude: 127.001), value: 30),
            WeightingCandidate(station: "라", location: GeoPoint(latitude: 37.5, longitude: 127.002), value: 40),
        ]
        for order in [list, list.reversed()] {
            let weighted = InverseDistanceWeighting.value(at: point, candidates: order, radiusKilometres: 10)
            #expect(weighted.stations.map(\.station) == ["다", "라", "가"])
        }
    }
}

@Suite("The value at home, C_home (docs/REFERENCE.md §19)", .timeLimit(.minutes(10)))
struct HomeValueTests {
    private let home = GeoPoint(latitude: 37.568, longitude: 126.990)

    @Test("with home: the weighted value (34.946430, as in the two-station case); without: the home station's, 30")
    func weightedOrStation() {
        let weighted = HomeValue(home: home, homeStationValue: 30, candidates: candidates(), radiusKilometres: 3)
        #expect(weighted.isWeightedAtHome && weighted.fallback == nil)
        #expect(abs(weighted.concentration! - 34.946430) < 5e-7)
        let station = HomeValue(home: nil, homeStationValue: 30, candidates: candidates(), radiusKilometres: 3)
        #expect(station == HomeValue(concentration: 30, weighted: nil))
        #expect(!station.isWeightedAtHome && station.fallback == nil)
    }

    @Test("home with nothing to weigh: the home station's value, and the reason")
    func fallsBack() {
        let farAway = HomeValue(home: home, homeStationValue: 30, candidates: candidates(), radiusKilometres: 1)
        #expect(farAway.concentration == 30 && !farAway.isWeightedAtHome && farAway.fallback == .noStationWithinRadius)
        let noData = HomeValue(home: home, homeStationValue: nil, candidates: [], radiusKilometres: 10)
        #expect(noData.concentration == nil && noData.fallback == .noNationalData)
    }
}

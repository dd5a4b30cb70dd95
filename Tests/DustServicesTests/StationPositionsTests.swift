import DustKit
import DustServices
import Foundation
import Testing

@Suite("The national archive's rows as weighting candidates (docs/REFERENCE.md §19)", .timeLimit(.minutes(10)))
struct StationPositionsTests {
    private let eight = Slot(containing: KoreaStandardTime.instant(hour: 8, of: LocalDate(year: 2026, month: 11, day: 20)))
    private let nine = Slot(containing: KoreaStandardTime.instant(hour: 9, of: LocalDate(year: 2026, month: 11, day: 20)))

    private let positions = StationPositions(stations: [
        Station(name: "종로구", latitude: 37.572025, longitude: 127.005028),
        Station(name: "중구", latitude: 37.564263, longitude: 126.974676),
        Station(name: "용산구", latitude: 37.540033, longitude: 127.004850),
        Station(name: "위도999", latitude: 999, longitude: 127.0),
        Station(name: "좌표없음"),
    ])

    private func reading(_ station: String, _ slot: Slot, pm10: Double?, pm25: Double?) -> HourlyReading {
        HourlyReading(station: station, slot: slot, concentration: DustPair(fineDust: pm10, ultraFineDust: pm25))
    }

    @Test("names(near:) keeps a station inside the radius at its edge, due east or north, and leaves out one just beyond")
    func nearAtTheEdge() {
        let point = GeoPoint(latitude: 37.5, longitude: 127.0)
        // A degree on the distance helper's sphere: 111.195 km of latitude, that times cos φ of longitude.
        let kilometresPerDegree = GreatCircle.earthRadiusMetres / 1000 * Double.pi / 180
        let east = 9.995 / (kilometresPerDegree * cos(37.5 * Double.pi / 180))
        let stations = StationPositions(stations: [
            Station(name: "east-inside", latitude: 37.5, longitude: 127.0 + east),
            Station(name: "north-inside", latitude: 37.5 + 9.999 / kilometresPerDegree, longitude: 127.0),
            Station(name: "north-outside", latitude: 37.5 + 10.2 / kilometresPerDegree, longitude: 127.0),
            Station(name: "east-outside", latitude: 37.5, longitude: 127.0 + east * 1.02),
        ])
        func kilometres(_ name: String) -> Double {
            let location = stations.location(of: name)!
            return GreatCircle.metres(
                latitude1: point.latitude, longitude1: point.longitude, latitude2: location.latitude, longitude2: location.longitude) / 1000
        }
        // Inside the radius by the one distance helper; the filter before used 111.4 km a degree of
        // longitude (more than the sphere's 111.195) and left "east-inside" out.
        #expect(kilometres("east-inside") < 10 && kilometres("north-inside") < 10)
        #expect(kilometres("east-outside") > 10 && kilometres("north-outside") > 10)
        #expect(stations.names(near: [point], withinKilometres: 10) == ["east-inside", "north-inside"])
    }

    @Test("only plausible positions are kept: 3 of 5 stations")
    func plausiblePositions() {
        #expect(positions.count == 3)
        #expect(positions.location(of: "중구") == GeoPoint(latitude: 37.564263, longitude: 126.974676))
        #expect(positions.location(of: "위도999") == nil && positions.location(of: "좌표없음") == nil)
    }

    @Test("one candidate per station of the slot, each pollutant with its own value; other slots ignored")
    func candidatesOfOneSlot() {
        let readings = [
            reading("종로구", eight, pm10: 30, pm25: 15), reading("중구", eight, pm10: 40, pm25: nil),
            reading("용산구", eight, pm10: 50, pm25: 25), reading("종로구", nine, pm10: 900, pm25: 900),
            reading("좌표없음", eight, pm10: 70, pm25: 35), reading("종로구", eight, pm10: 999, pm25: 999),
        ]
        let candidates = positions.candidates(readings: readings, slot: eight)
        #expect(candidates.fineDust.map(\.station) == ["종로구", "중구", "용산구", "좌표없음"])
        #expect(candidates.fineDust.map(\.value) == [30, 40, 50, 70])
        #expect(candidates.ultraFineDust.map(\.value) == [15, nil, 25, 35])
        #expect(candidates.fineDust[3].location == nil)
        // PM2.5 at 37.560/126.990: 중구 has no value, 좌표없음 no position (counted):
        // w(종로구) = 1 / 1.882108² = 0.282300, w(용산구) = 1 / 2.577458² = 0.150528;
        // C = (0.282300 × 15 + 0.150528 × 25) / 0.432828 = (4.234501 + 3.763196) / 0.432828 = 18.477776
        let weighted = InverseDistanceWeighting.value(
            at: GeoPoint(latitude: 37.560, longitude: 126.990), candidates: candidates.ultraFineDust, radiusKilometres: 10)
        #expect(weighted.stations.map(\.station) == ["종로구", "용산구"])
        #expect(weighted.stationsWithoutCoordinates == 1)
        #expect(abs(weighted.value! - 18.477776) < 5e-7)
    }

    @Test("no national data for the slot: no candidates, so nothing is weighted")
    func noDataForTheSlot() {
        let candidates = positions.candidates(readings: [reading("종로구", nine, pm10: 30, pm25: 15)], slot: eight)
        #expect(candidates.fineDust.isEmpty && candidates.ultraFineDust.isEmpty)
    }
}

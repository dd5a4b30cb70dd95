import DustKit
import DustServices
import DustWeb
import Foundation
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

/// The dashboard's day marks the hours that followed the person's track (docs/REFERENCE.md §19).
@Suite("dustd on the web: tracked hours on the day page", .timeLimit(.minutes(10)))
struct LocationDashboardTests {
    @Test("A walk 10:00–10:30 between 종로구, 중구 and 용산구: the day's 10:00 row says tracked 50% near 중구, the API's hour says where")
    func trackedHour() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let seoul = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)
        let ten = seoul.slots(of: LocalDate(year: 2026, month: 11, day: 20))[10]
        try await rig.store.saveStations(
            [
                Station(name: "종로구", address: "서울 종로구", latitude: 37.572025, longitude: 127.005028),
                Station(name: "중구", address: "서울 중구", latitude: 37.564263, longitude: 126.974676),
                Station(name: "용산구", address: "서울 용산구", latitude: 37.540033, longitude: 127.004850),
            ], at: DemoReplay.now)
        _ = try await rig.store.saveReadings(
            [
                HourlyReading(station: "중구", slot: ten, concentration: DustPair(fineDust: 40, ultraFineDust: 20)),
                HourlyReading(station: "용산구", slot: ten, concentration: DustPair(fineDust: 50, ultraFineDust: 25)),
            ], fetchedAt: DemoReplay.now)
        let minutes = TrackMinutes(
            (0..<30).map { TrackPoint(at: ten.start.addingTimeInterval(Double($0) * 60), latitude: 37.560, longitude: 126.990) })
        // 14:00–14:15 in Bangkok: no station within 10 km, the home's air stands in.
        let bangkok = TrackMinutes(
            (0..<15).map { TrackPoint(at: ten.start.addingTimeInterval(4 * 3600 + Double($0) * 60), latitude: 13.75, longitude: 100.5) })
        try await rig.store.saveImport(
            walking: [], body: [],
            positions: [
                PositionBatch(person: "me", source: "gpx:walk.gpx", minutes: minutes, replacing: nil),
                PositionBatch(person: "me", source: "gpx:bangkok.gpx", minutes: bangkok, replacing: nil),
            ],
            importedAt: DemoReplay.now)
        let store = rig.store
        let settings = WebData.ReportSettings(
            stations: StationPreference(primary: "종로구"), calendar: seoul, intakeModel: try VentilationIntakeModel(),
            databasePath: store.path, followingRadiusKilometres: 10)
        let data = WebData(store: { store }, settings: { settings }, clock: FixedClock(DemoReplay.now), processIsDustd: { _ in false })
        let (page, api) = try await rig.application(data).test(.router) { client in
            (
                try await client.execute(uri: "/day/2026-11-20", method: .get) { text($0) },
                try await client.execute(uri: "/api/v1/day/2026-11-20", method: .get) { text($0) }
            )
        }
        // p is 1.431475 km from 중구, the nearest of the three.
        #expect(page.contains("이동 경로 50% · 중구 1.4 km"))  // the page speaks Korean first
        #expect(page.contains("이동 경로 25% · 가까운 측정소 없음: 집의 공기"), "\(page)")
        #expect(
            api.contains("\"where\":{\"kind\":\"track\",\"trackedFraction\":0.5,\"stations\":{\"pm10\":[{\"station\":\"중구\",\"km\":1.43"))
        // Hours without a position keep the home station's value and say so.
        #expect(
            api.contains(
                "\"where\":{\"kind\":\"home-station\",\"trackedFraction\":0,\"stations\":{\"pm10\":[],\"pm25\":[]},\"fallback\":null}"))
    }
}

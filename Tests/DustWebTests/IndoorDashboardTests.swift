import DustKit
import DustServices
import DustWeb
import Foundation
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@Suite("The dashboard's indoor chart (docs/REFERENCE.md §21)", .timeLimit(.minutes(10)))
struct IndoorDashboardTests {
    func data(_ rig: WebRig, sensors: [String]) throws -> WebData {
        let store = rig.store
        let settings = WebData.ReportSettings(
            stations: StationPreference(primary: "종로구"), calendar: DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!),
            intakeModel: try VentilationIntakeModel(), databasePath: store.path,
            people: [Person(name: "me", station: "종로구", indoorSensors: sensors)])
        return WebData(store: { store }, settings: { settings }, clock: FixedClock(DemoReplay.now), processIsDustd: { _ in false })
    }

    func page(_ data: WebData, _ path: String) async throws -> String {
        let application = Application(router: WebServer(data: data, registry: .init(), token: nil).router())
        return try await application.test(.router) { client in try await client.execute(uri: path, method: .get) { text($0) } }
    }

    @Test("A person with a monitor: per hour the monitor's PM2.5 and the outdoor's, each the API's number; without one, no card")
    func chart() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let day = LocalDate(year: 2026, month: 11, day: 20)
        let evening = KoreaStandardTime.instant(hour: 19, of: day)
        // A purifier switched on at 19:00: 25 µg/m³ falling by one a minute for the hour.
        try await rig.store.saveIndoor(
            samples: (0..<60).map {
                IndoorSample(
                    sensor: "living-room", at: evening.addingTimeInterval(Double($0) * 60),
                    value: DustPair(fineDust: nil, ultraFineDust: 25 - Double($0) / 4))
            }, states: [])
        let withMonitor = try await page(try data(rig, sensors: ["living-room"]), "/day/2026-11-20")
        #expect(withMonitor.contains("<section class=\"card indoor\">"))
        let hour = try #require(withMonitor.range(of: "data-indoor-hour=\"2026-11-20T19:00:00+09:00\" data-indoor-pm25=\""))
        let attributes = withMonitor[hour.upperBound...].prefix(80)
        // Mean of 25 − m/4 for m = 0…59: 17.625; outdoors 19:00–20:00 is 36.
        #expect(attributes.hasPrefix("17.625\" data-outdoor-pm25=\"36\" data-indoor-source=\"sensor\""), "\(attributes)")
        let api = try await page(try data(rig, sensors: ["living-room"]), "/api/v1/day/2026-11-20")
        #expect(
            api.contains(
                #""indoor":{"pm25":17.625,"pm10":null,"minutes":60,"sensors":["living-room"],"atHome":true},"indoorSource":"sensor""#))
        let without = try await page(try data(rig, sensors: []), "/day/2026-11-20")
        #expect(!without.contains("card indoor") && !without.contains("indoor-hour"))
    }
}

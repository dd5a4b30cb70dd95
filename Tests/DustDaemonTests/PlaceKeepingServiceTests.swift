import AirKorea
import DustConfig
import DustKit
import DustServices
import Foundation
import TestSupport
import Testing

@testable import DustDaemon

@Suite("dustd keeps the weighed hours of the people it follows after each poll (docs/REFERENCE.md §19)")
struct PlaceKeepingServiceTests {
    /// jiho's home, by 광화문.
    static let home = GeoPoint(latitude: 37.5759, longitude: 126.9769)

    /// The demo's household and data (its national archive, station list and jiho's walk) in a fresh
    /// store, and dustd's settings for it: `station.mode: nation` follows them, `single` does not.
    static func rig(mode: StationMode) async throws -> (store: MemoryStore, service: PlaceKeepingService) {
        let store = MemoryStore()
        let fixtures = try #require(DemoReplay.locateFixtures(explicit: TestFixtures.url("").path))
        _ = try await DemoReplay(fixtures: fixtures, store: store, calendar: DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!))
            .run()
        var settings = try SettingsLoader(environment: [:], workingDirectory: "/nonexistent").load(configurationFile: nil)
        settings.station.name = DemoReplay.station
        settings.station.mode = mode
        settings.people = DemoReplay.people
        settings.people[0].home = home
        let service = PlaceKeepingService(
            live: LiveConfiguration(settings: settings, key: ServiceKey(testKey)!),
            database: DaemonDatabase(store, logger: LogCapture().logger()), triggers: AsyncStream { nil },
            logger: LogCapture().logger())
        return (store, service)
    }

    @Test("nation mode: the first pass keeps every hour of the year 종로구 reported for jiho (who has a home), the next only what is new")
    func keepsWhatIsMissing() async throws {
        let (store, service) = try await Self.rig(mode: .nation)
        let calendar = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)
        let first = calendar.slots(of: DemoReplay.lastDay.adding(days: 1 - SlotPlace.daysKept))[0]
        let year = (first, calendar.slots(of: DemoReplay.lastDay).last!.advanced(by: 1))
        let reported = Set(try store.readings(stations: [DemoReplay.station], from: year.0, to: year.1).map(\.slot))
        // jiho has a home (and a walk), seoa neither: only jiho is followed, every hour 종로구 reported.
        let kept = await service.keep(at: DemoReplay.now)
        #expect(kept == reported.count, "\(kept) kept, \(reported.count) reported")
        let inputs = SlotPlace.inputs(radiusKilometres: 10, home: Self.home)
        #expect(Set(try store.slotPlaces(person: "jiho", inputs: inputs, from: year.0, to: year.1).map(\.slot)) == reported)
        #expect(
            try store.slotPlaces(person: "seoa", inputs: SlotPlace.inputs(radiusKilometres: 10, home: nil), from: year.0, to: year.1)
                .isEmpty)
        #expect(await service.keep(at: DemoReplay.now) == 0)
        // A revised hour is weighed again, and only it.
        let fifteen = calendar.slots(of: DemoReplay.lastDay)[15]
        _ = try store.saveReadings(
            [HourlyReading(station: "중구", slot: fifteen, concentration: DustPair(fineDust: 99, ultraFineDust: 50))],
            fetchedAt: DemoReplay.now)
        #expect(await service.keep(at: DemoReplay.now) == 1)
    }

    @Test("single mode follows no one: nothing is weighed or kept")
    func singleModeKeepsNothing() async throws {
        let (store, service) = try await Self.rig(mode: .single)
        #expect(await service.keep(at: DemoReplay.now) == 0)
        let day = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!).slots(of: DemoReplay.lastDay)
        let inputs = SlotPlace.inputs(radiusKilometres: 10, home: Self.home)
        #expect(try store.slotPlaces(person: "jiho", inputs: inputs, from: day[0], to: day[day.count - 1].advanced(by: 1)).isEmpty)
    }
}

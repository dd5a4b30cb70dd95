import DustConfig
import DustKit
import DustServices
import DustStore
import Foundation
import TestSupport
import Testing

/// The guarantee of docs/REFERENCE.md §18: without `people:`, and with one person holding the same
/// settings, every number is today's, to the last bit.
/// 2026-11-20 12:00 KST.
private let noon = Slot(startEpochSeconds: 1_795_143_600)

@Suite("People: no people: gives exactly today's numbers", .timeLimit(.minutes(10)))
struct PeopleRegressionTests: SettingsFileTests {
    let november20 = LocalDate(year: 2026, month: 11, day: 20)

    func store() async throws -> SQLiteStore {
        let store = SQLiteStore.scratch()
        _ = try await IngestService(store: store).ingest(
            try TestFixtures.data("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"), requestedStation: "종로구")
        try await store.saveCSVWalking([noon: 3000], importedAt: DemoReplay.now)
        return store
    }

    /// The statistics dustctl built before people existed: `station.*` and the intake model, no person, no body records.
    func today(_ settings: FineDustSettings, store: SQLiteStore) -> StatisticsService {
        StatisticsService(
            readings: store, activity: store, clock: FixedClock(DemoReplay.now), calendar: settings.calendar,
            intakeModel: settings.intakeModel,
            stations: StationPreference(primary: settings.station.name!, fallbacks: settings.station.fallbacks))
    }

    @Test("No people:, and one person with the same settings: the same day and week as before, hour by hour")
    func sameNumbers() async throws {
        let base = "station:\n  name: 종로구\nintake:\n  infiltration: 0.7\n"
        let withoutPeople = try load(base)
        let onePerson = try load(base + "people:\n  - { name: me, station: 종로구, infiltration: 0.7 }\n")
        #expect(withoutPeople.people == onePerson.people)
        let store = try await store()
        let before = today(withoutPeople, store: store)
        let noPeople = before.forPerson(withoutPeople.people[0])
        let configured = StatisticsService(
            readings: store, activity: store, clock: FixedClock(DemoReplay.now), calendar: onePerson.calendar,
            intakeModel: onePerson.intakeModel, stations: StationPreference(primary: "종로구"), physiology: store,
            person: onePerson.people[0])
        let expected = try await before.day(november20)
        #expect(abs(expected.totals.intake.fineDust! - (266.71 - 49 * 0.182 + 49 * 0.639)) < 1e-9)
        for service in [noPeople, configured] {
            let day = try await service.day(november20)
            #expect(day == expected)
            #expect(day.hourly.map(\.intake) == expected.hourly.map(\.intake))
            #expect(try await service.rollingWeek(endingOn: november20) == (try await before.rollingWeek(endingOn: november20)))
        }
        #expect(expected.person == "me" && expected.hourly[12].breathing?.levelSource == .walking)
        #expect(
            expected.hourly[3].breathing
                == SlotBreathing(ventilation: 0.27, outdoors: 0, levelSource: .schedule, secondsByLevel: [.sleep: 3600]))
    }
}

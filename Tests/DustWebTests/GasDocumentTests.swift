import DustKit
import DustReports
import DustServices
import DustStore
import Foundation
import TestSupport
import Testing

/// `gases` in the day documents (docs/REFERENCE.md §17): last, after `forecastTomorrow` too.
@Suite("The gases member of the day documents", .timeLimit(.minutes(10)))
struct GasDocumentTests {
    @Test("today's document: forecastTomorrow, then gases, last; a week's days have no gases")
    func gasesLastAfterForecast() async throws {
        let store = SQLiteStore.scratch()
        let calendar = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)
        let date = LocalDate(year: 2026, month: 11, day: 20)
        let slot = calendar.slots(of: date)[9]
        _ = try await store.saveReadings(
            [
                HourlyReading(
                    station: "종로구", slot: slot, concentration: DustPair(fineDust: 40, ultraFineDust: 20),
                    gases: GasReading(ppm: GasValues(o3: 0.031, no2: nil, co: 0.4, so2: 0.003), cai: 55, caiGrade: .moderate))
            ], fetchedAt: DemoReplay.now)
        let statistics = StatisticsService(
            readings: store, activity: store, clock: FixedClock(DemoReplay.now), calendar: calendar,
            intakeModel: try VentilationIntakeModel(), stations: StationPreference(primary: "종로구"))
        let day = try await statistics.day(date)
        let document = ReportJSON.day(day, calendar: calendar, forecastTomorrow: .null).serialized
        let hour =
            #"{"start":"2026-11-20T09:00:00+09:00","o3":0.031,"no2":null,"co":0.4,"so2":0.003,"#
            + #""grade":{"o3":2,"no2":null,"co":1,"so2":1},"flags":{"o3":null,"no2":null,"co":null,"so2":null},"cai":55,"caiGrade":2}"#
        #expect(
            document.hasSuffix(
                #","forecastTomorrow":null,"gases":{"latest":"# + hour + #","totals":{"o3":{"hours":1,"mean":0.031,"max":0.031,"grade":2},"#
                    + #""no2":{"hours":0,"mean":null,"max":null,"grade":null},"co":{"hours":1,"mean":0.4,"max":0.4,"grade":1},"#
                    + #""so2":{"hours":1,"mean":0.003,"max":0.003,"grade":1},"cai":{"hours":1,"mean":55,"max":55,"grade":2}},"#
                    + #""hourly":["# + hour + "]}}"))
        let week = ReportJSON.week(try await statistics.rollingWeek(endingOn: date), station: "종로구", calendar: calendar).serialized
        #expect(!week.contains("gases"))
    }
}

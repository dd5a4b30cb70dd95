import DustKit
import DustReports
import DustServices
import Foundation
import TestSupport
import Testing

@Suite("The dose with a home's own monitor (docs/REFERENCE.md §21)", .timeLimit(.minutes(10)))
struct IndoorStatisticsTests {
    func slot(_ hour: Int) -> Slot { Scratch.slot(november20, hour: hour) }

    func service(_ scratch: Scratch, _ person: Person) throws -> StatisticsService {
        StatisticsService(
            store: scratch.store, clock: FixedClock(DemoReplay.now), calendar: seoul, intakeModel: try VentilationIntakeModel(),
            stations: StationPreference(primary: "종로구"), followingRadiusKilometres: nil
        ).forPerson(person)
    }

    /// The living-room monitor: 10:00–11:00 each minute PM2.5 9, PM10 20 (a purifier on); 20:00 only
    /// 20 minutes (too few to count).
    func storeSamples(_ scratch: Scratch) async throws {
        let ten = (0..<60).map { minute in
            IndoorSample(
                sensor: "living-room", at: slot(10).start.addingTimeInterval(TimeInterval(minute * 60)),
                value: DustPair(fineDust: 20, ultraFineDust: 9))
        }
        let twenty = (0..<20).map { minute in
            IndoorSample(
                sensor: "living-room", at: slot(20).start.addingTimeInterval(TimeInterval(minute * 60)),
                value: DustPair(fineDust: 30, ultraFineDust: 15))
        }
        try await scratch.store.saveIndoor(samples: ten + twenty, states: [])
    }

    @Test("At home at 10:00 (sedentary, indoors): 0.26 × 20 for PM10 where the estimate was 58 × 0.26 × 0.7")
    func replacesEstimate() async throws {
        let scratch = try Scratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        try await storeSamples(scratch)
        let day = try await service(scratch, Person(name: "jiho", station: "종로구", indoorSensors: ["living-room"])).day(november20)
        let ten = day.hourly[10]
        #expect(abs(ten.intake.fineDust! - 0.26 * 20) < 1e-9)
        #expect(abs(ten.intake.ultraFineDust! - 0.26 * 9) < 1e-9)
        let indoor = try #require(ten.indoor)
        #expect(indoor.source == .sensor && indoor.atHome && indoor.measured?.minutesCovered == 60)
        #expect(abs(indoor.estimatedIntake.fineDust! - 58 * 0.26 * 0.7) < 1e-9)
        // 20:00 has 20 samples, the last holding to minute 23: 24 < 30, so §4's estimate stands.
        let twenty = try #require(day.hourly[20].indoor)
        #expect(twenty.source == .infiltration && twenty.measured?.minutesCovered == 24 && twenty.measured?.value.fineDust == nil)
        #expect(abs(day.hourly[20].intake.fineDust! - 60 * 0.26 * 0.7) < 1e-9)
        // The day: the measured ratio 20/58 and 9/30 (one hour) beside F, and the change of the dose
        // (PM2.5: 0.26 × 9 − 30 × 0.26 × 0.7 = −3.12).
        let summary = try #require(day.indoor)
        #expect(abs(summary.ratio.fineDust! - 20.0 / 58) < 1e-12 && summary.infiltration == 0.7 && summary.sensorHours == 1)
        #expect(abs(summary.intakeChange.fineDust! - (0.26 * 20 - 58 * 0.26 * 0.7)) < 1e-9)
        let json = ReportJSON.day(day, calendar: seoul).serialized
        #expect(
            json.contains(#""indoor":{"pm25":9,"pm10":20,"minutes":60,"sensors":["living-room"],"atHome":true},"indoorSource":"sensor""#))
        #expect(
            json.hasSuffix(
                #""indoor":{"ratio":{"pm10":0.345,"pm25":0.3},"infiltration":0.7,"sensorHours":1,"intakeChange":{"pm10":-5.356,"pm25":-3.12}}}"#
            ))
    }

    @Test("Away (at: away 9–18, the office): the monitor at home changes nothing in those hours")
    func away() async throws {
        let scratch = try Scratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        try await storeSamples(scratch)
        var schedule = VentilationIntakeModel.defaultSchedule
        schedule[2].atHome = false
        let day = try await service(scratch, Person(name: "jiho", station: "종로구", schedule: schedule, indoorSensors: ["living-room"]))
            .day(november20)
        let ten = try #require(day.hourly[10].indoor)
        #expect(ten.source == .infiltration && !ten.atHome && ten.measured?.value.fineDust == 20)
        #expect(abs(day.hourly[10].intake.fineDust! - 58 * 0.26 * 0.7) < 1e-9)
        #expect(day.indoor?.ratio.fineDust == nil && day.indoor?.intakeChange.fineDust == nil)
    }

    @Test("A sensor of someone else's home, or none: every output byte-identical to a database without samples")
    func withoutSensorsUnchanged() async throws {
        let plain = try Scratch()
        try await plain.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let withSamples = try Scratch()
        try await withSamples.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        try await storeSamples(withSamples)
        for person in [Person(name: "seoa", station: "종로구"), Person(name: "seoa", station: "종로구", indoorSensors: ["bedroom"])] {
            let before = try await service(plain, Person(name: "seoa", station: "종로구")).day(november20)
            let after = try await service(withSamples, person).day(november20)
            if person.indoorSensors.isEmpty {
                #expect(ReportJSON.day(after, calendar: seoul).serialized == ReportJSON.day(before, calendar: seoul).serialized)
                #expect(after.indoor == nil && after.hourly.allSatisfy { $0.indoor == nil })
            } else {
                // A sensor with no sample: the intakes are the estimate's, the hours say so.
                #expect(after.hourly.map(\.intake) == before.hourly.map(\.intake))
                #expect(after.hourly.allSatisfy { $0.indoor?.source == .infiltration && $0.indoor?.measured == nil })
            }
        }
    }
}

@Suite("The indoor.pm25 alert (docs/REFERENCE.md §21)", .timeLimit(.minutes(10)))
struct IndoorAlertTests {
    @Test("indoor.pm25 > 15 fires for the person whose home monitor read 24 µg/m³ in the latest hour, not for the other")
    func fires() async throws {
        let scratch = try Scratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let eleven = Scratch.slot(november20, hour: 22)
        try await scratch.store.saveIndoor(
            samples: (0..<60).map { minute in
                IndoorSample(
                    sensor: "living-room", at: eleven.start.addingTimeInterval(TimeInterval(minute * 60)),
                    value: DustPair(fineDust: nil, ultraFineDust: 24))
            }, states: [])
        let now = eleven.end.addingTimeInterval(20 * 60)
        let people = [
            Person(name: "jiho", station: "종로구", indoorSensors: ["living-room"]), Person(name: "seoa", station: "종로구"),
        ]
        let monitor = AlertMonitor(
            rules: [try AlertRule(parsing: "indoor.pm25 > 15")], quietHours: nil, store: scratch.store,
            statistics: StatisticsService(
                store: scratch.store, clock: FixedClock(now), calendar: seoul, intakeModel: try VentilationIntakeModel(),
                stations: StationPreference(primary: "종로구"), followingRadiusKilometres: nil),
            people: people)
        let events = try await monitor.evaluate(at: now)
        #expect(events.count == 1 && events[0].people == ["jiho"] && events[0].value == 24)
        #expect(
            events[0].message(in: .en).contains("indoor PM2.5 24.0 µg/m³ (ventilate or run the purifier)"), "\(events[0].message(in: .en))")
        #expect(throws: AlertRuleError.self) { try AlertRule(parsing: "indoor.pm25 > 나쁨") }
    }

    @Test("indoor.pm25 reads the monitor's hours, not the hours AirKorea published: 50 µg/m³ after midnight with no outdoor hour fires")
    func firesWithoutOutdoorHours() async throws {
        let scratch = try Scratch()
        // AirKorea's newest hour is 2026-11-20 23:00–24:00; the monitor read 50 from 00:00 to 02:39 on the 21st.
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let midnight = Scratch.slot(november20, hour: 23).end
        try await scratch.store.saveIndoor(
            samples: (0..<160).map { minute in
                IndoorSample(
                    sensor: "living-room", at: midnight.addingTimeInterval(TimeInterval(minute * 60)),
                    value: DustPair(fineDust: nil, ultraFineDust: 50))
            }, states: [])
        let people = [Person(name: "jiho", station: "종로구", indoorSensors: ["living-room"])]
        func monitor(_ now: Date) throws -> AlertMonitor {
            AlertMonitor(
                rules: [try AlertRule(parsing: "indoor.pm25 > 35")], quietHours: nil, store: scratch.store,
                statistics: StatisticsService(
                    store: scratch.store, clock: FixedClock(now), calendar: seoul, intakeModel: try VentilationIntakeModel(),
                    stations: StationPreference(primary: "종로구"), followingRadiusKilometres: nil),
                people: people)
        }
        let now = midnight.addingTimeInterval(160 * 60)
        let inputs = try await monitor(now).householdInputs(at: now)
        // 02:00–03:00 has 40 minutes (to 02:39 and its hold), the latest hour with a value.
        #expect(inputs.first?.inputs.values[.indoorPM25] == 50)
        let events = try await monitor(now).evaluate(at: now)
        #expect(events.count == 1 && events[0].value == 50, "\(events)")
        // Three hours after the monitor's last hour ended, the value is unknown: nothing fires or clears on it.
        let later = midnight.addingTimeInterval(6 * 3600)
        #expect(try await monitor(later).householdInputs(at: later).first?.inputs.values[.indoorPM25] == nil)
    }
}

import DustKit
import DustServices
import Foundation
import TestSupport
import Testing

@Suite(
    "Alerts per person (docs/REFERENCE.md §18): intake is each person's, the air's change is told once per home station",
    .timeLimit(.minutes(10)))
struct PersonAlertTests {
    static let dad = Person(name: "dad", born: BirthMonth("1986-01"), station: "종로구")
    static let minji = Person(name: "민지", born: BirthMonth("2018-03"), station: "종로구")

    /// 2026-11-20 08:05 KST: the latest hour is 07:00–08:00.
    static let eightOFive = AlertTests.at(8)

    /// Stores PM10 `pm10` and PM2.5 `pm25` at `station` for the hour starting at `hour`.
    static func store(pm10: Double, pm25: Double, hour: Int, station: String = "종로구", in scratch: Scratch) async throws {
        _ = try await scratch.store.saveReadings(
            [
                HourlyReading(
                    station: station, slot: Scratch.slot(november20, hour: hour),
                    concentration: DustPair(fineDust: pm10, ultraFineDust: pm25))
            ], fetchedAt: AlertTests.at(hour + 1))
    }

    static func monitor(_ scratch: Scratch, rules: [AlertRule], people: [Person], now: Date) throws -> AlertMonitor {
        AlertMonitor(
            rules: rules, quietHours: nil, store: scratch.store,
            statistics: StatisticsService(
                readings: scratch.store, activity: scratch.store, clock: FixedClock(now), calendar: seoul,
                intakeModel: try VentilationIntakeModel(), stations: StationPreference(primary: "종로구"), physiology: scratch.store),
            people: people)
    }

    static func rule(_ text: String, person: String? = nil) throws -> AlertRule {
        var rule = try AlertRule(parsing: text)
        rule.person = person
        return rule
    }

    @Test(
        "A child of 8 and an adult of 40 on 종로구: the intake rule fires for the adult only, the grade rule once naming both, a person: rule for that person only"
    )
    func childAndAdult() async throws {
        let scratch = try Scratch()
        // 07:00 is light, half outdoors (f = 0.5, so f + (1 − f) × 0.7 = 0.85) under the default schedule.
        try await Self.store(pm10: 40, pm25: 100, hour: 7, in: scratch)
        let rules = [
            try Self.rule("pm25.grade >= 3"), try Self.rule("intake.today.pm25 > 60"), try Self.rule("pm10.grade >= 보통", person: "민지"),
        ]
        let monitor = try Self.monitor(scratch, rules: rules, people: [Self.dad, Self.minji], now: Self.eightOFive)
        let inputs = try await monitor.householdInputs(at: Self.eightOFive)
        // Light: 31–40 breathe 1.2E-02 m³/min (0.72 m³/h), 6–10 1.1E-02 (0.66): 100 × 0.72 × 0.85 and 100 × 0.66 × 0.85.
        #expect(inputs.map(\.person) == ["dad", "민지"])
        #expect(abs(inputs[0].inputs.values[.intakeTodayPM25]! - 61.2) < 1e-9)
        #expect(abs(inputs[1].inputs.values[.intakeTodayPM25]! - 56.1) < 1e-9)
        #expect(inputs.allSatisfy { $0.inputs.values[.pm25Grade] == 4 && $0.inputs.values[.pm10Grade] == 2 })

        let events = try await monitor.evaluate(at: Self.eightOFive)
        #expect(events.map(\.rule) == ["pm25.grade >= 3", "intake.today.pm25 > 60", "pm10.grade >= 2"])
        #expect(events.map(\.people) == [["dad", "민지"], ["dad"], ["민지"]])
        #expect(events[0].title(in: .en) == "FineDust: PM2.5 매우나쁨 (very bad) for dad, 민지")
        #expect(events[0].message(in: .en) == "PM2.5 매우나쁨 (very bad) at 종로구 for dad, 민지. Rule: pm25.grade >= 3.")
        #expect(events[1].message(in: .en) == "PM2.5 intake today 61.2 µg at 종로구 for dad. Rule: intake.today.pm25 > 60.")
        #expect(events[2].title(in: .en) == "FineDust: PM10 보통 (moderate) for 민지")
        await #expect(
            try scratch.store.alertStates() == [
                "pm25.grade >= 3 for dad": .active, "pm25.grade >= 3 for 민지": .active, "intake.today.pm25 > 60 for dad": .active,
                "pm10.grade >= 2 for 민지": .active,
            ])
        #expect(try await scratch.store.recentAlertEvents(limit: 10).count == 3, "one event per announcement, not per person")

        // 08:00 (light again) brings PM2.5 20 (보통): the grade clears once for both; 민지's intake passes 60 an
        // hour after dad's, 56.1 + 20 × 0.66 × 0.85 = 67.32, and she is told then; dad, still above, hears nothing more.
        try await Self.store(pm10: 40, pm25: 20, hour: 8, in: scratch)
        let nine = AlertTests.at(9)
        let later = try await Self.monitor(scratch, rules: rules, people: [Self.dad, Self.minji], now: nine).evaluate(at: nine)
        #expect(later.map(\.kind) == [.cleared, .fired])
        #expect(later[0].message(in: .en) == "No longer pm25.grade >= 3 at 종로구 for dad, 민지: now PM2.5 보통 (moderate).")
        #expect(later[1].people == ["민지"] && abs(later[1].value! - 67.32) < 1e-9)
    }

    @Test("Two home stations: the grade rule is told once per station, each naming its own people")
    func twoStations() async throws {
        let scratch = try Scratch()
        try await Self.store(pm10: 40, pm25: 100, hour: 7, in: scratch)
        try await Self.store(pm10: 40, pm25: 50, hour: 7, station: "중구", in: scratch)
        let grandma = Person(name: "grandma", station: "중구")
        let monitor = try Self.monitor(
            scratch, rules: [try Self.rule("pm25.grade >= 3")], people: [Self.dad, grandma, Self.minji], now: Self.eightOFive)
        let events = try await monitor.evaluate(at: Self.eightOFive)
        // 100 µg/m³ is 매우나쁨 (4) at 종로구, 50 is 나쁨 (3) at 중구.
        #expect(events.map(\.station) == ["종로구", "중구"])
        #expect(events.map(\.people) == [["dad", "민지"], ["grandma"]])
        #expect(events.map(\.value) == [4, 3])
    }

    @Test(
        "me's state keeps the key it had before people existed: adding a child after an upgrade neither repeats me's alert nor forgets it; the child's is her own"
    )
    func restartKeepsMeKey() async throws {
        let scratch = try Scratch()
        try await Self.store(pm10: 40, pm25: 100, hour: 7, in: scratch)
        let rule = try Self.rule("pm25.grade >= 3")
        // Before people existed: the one person me, no names anywhere.
        let before = AlertMonitor(
            rules: [rule], quietHours: nil, store: scratch.store,
            statistics: scratch.statistics(model: try VentilationIntakeModel(), now: Self.eightOFive))
        let first = try await before.evaluate(at: Self.eightOFive)
        #expect(first.map(\.people) == [[]] && first[0].message(in: .en) == "PM2.5 매우나쁨 (very bad) at 종로구. Rule: pm25.grade >= 3.")
        #expect(try await scratch.store.alertStates() == ["pm25.grade >= 3": .active])

        // The upgrade: the same installation, now read as `people: [me]` — a restart repeats nothing.
        let me = Person(name: "me", station: "종로구")
        let nine = AlertTests.at(8, minute: 35)
        #expect(try await Self.monitor(scratch, rules: [rule], people: [me], now: nine).evaluate(at: nine).isEmpty)

        // A child is added: only she is told, by name; me's state is the old key, still active.
        let household = [me, Self.minji]
        let added = try await Self.monitor(scratch, rules: [rule], people: household, now: nine).evaluate(at: nine)
        #expect(added.map(\.people) == [["민지"]])
        #expect(try await scratch.store.alertStates() == ["pm25.grade >= 3": .active, "pm25.grade >= 3 for 민지": .active])
        // Restarted again: nothing repeats; when the air clears, one clearing names both.
        #expect(try await Self.monitor(scratch, rules: [rule], people: household, now: nine).evaluate(at: nine).isEmpty)
        try await Self.store(pm10: 40, pm25: 20, hour: 8, in: scratch)
        let ten = AlertTests.at(9)
        let cleared = try await Self.monitor(scratch, rules: [rule], people: household, now: ten).evaluate(at: ten)
        #expect(cleared.map(\.kind) == [.cleared] && cleared.map(\.people) == [["me", "민지"]])
        #expect(try await scratch.store.alertStates() == ["pm25.grade >= 3": .idle, "pm25.grade >= 3 for 민지": .idle])
        // The events read back with whom they named.
        let stored = try await scratch.store.recentAlertEvents(limit: 5).map(\.event)
        #expect(stored.map(\.recordedRule) == ["pm25.grade >= 3 for me, 민지", "pm25.grade >= 3 for 민지", "pm25.grade >= 3"])
    }

    @Test("A recorded rule reads back into the rule and its people; a rule alone names nobody")
    func recordedRule() {
        #expect(AlertEvent.parse(recordedRule: "intake.today.pm25 > 300 for dad, 민지") == ("intake.today.pm25 > 300", ["dad", "민지"]))
        #expect(AlertEvent.parse(recordedRule: "pm25.grade >= 3") == ("pm25.grade >= 3", []))
        #expect(AlertStateKey(rule: "pm25.grade >= 3", person: "me").description == "pm25.grade >= 3")
        #expect(AlertStateKey(rule: "pm25.grade >= 3", person: "민지").description == "pm25.grade >= 3 for 민지")
    }

    @Test("A rule's retries are resumed per the people its event named: one person's clearing does not replace another's alert")
    func resumptionPerPeople() {
        let at = AlertTests.at(8)
        let dadFired = AlertEvent(
            id: 1, kind: .fired, rule: "intake.today.pm25 > 60", metric: .intakeTodayPM25, value: 61.2, station: "종로구", at: at,
            people: ["dad"])
        var minjiCleared = dadFired
        minjiCleared.id = 2
        minjiCleared.kind = .cleared
        minjiCleared.people = ["민지"]
        let pending = AlertResumption.pending(
            in: [(minjiCleared, []), (dadFired, [])], rules: ["intake.today.pm25 > 60"], sinks: ["fake"], now: at)
        #expect(pending.map(\.event.id) == [1, 2])
    }
}

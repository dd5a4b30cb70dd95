import DustConfig
import DustKit
import Foundation
import TestSupport
import Testing

@Suite("Configuration: a rule's person: (docs/REFERENCE.md §18)", .timeLimit(.minutes(10)))
struct PersonAlertSettingsTests: SettingsFileTests {
    let household = "station: { name: 종로구 }\npeople:\n  - { name: dad, born: 1986-01 }\n  - { name: 민지, born: 2018-03 }\n"

    @Test("person: narrows a rule to one configured person; without it the rule is everyone's, and the rule's text is unchanged")
    func personKey() throws {
        let settings = try load(
            household + "alerts:\n  rules:\n    - { when: intake.today.pm25 > 300, person: 민지 }\n    - { when: pm25.grade >= 나쁨 }\n")
        #expect(settings.alerts.rules.map(\.person) == ["민지", nil])
        #expect(settings.alerts.rules.map(\.description) == ["intake.today.pm25 > 300", "pm25.grade >= 3"])
        #expect(settings.alerts.rules[0].applies(to: "민지") && !settings.alerts.rules[0].applies(to: "dad"))
        #expect(settings.alerts.rules[1].applies(to: "dad") && settings.alerts.rules[1].applies(to: "민지"))
        // Without people: the one person is me, and person: me names them.
        let alone = try load("station: { name: 종로구 }\nalerts:\n  rules:\n    - { when: pm25.grade >= 3, person: me }\n")
        #expect(alone.alerts.rules.map(\.person) == ["me"])
    }

    @Test("A person nobody is configured as is an error naming the rule and the configured people")
    func unknownPerson() {
        #expect(
            problem(household + "alerts:\n  rules:\n    - { when: pm25.grade >= 3 }\n    - { when: pm25.grade >= 4, person: mom }\n")
                .contains("alerts.rules[1].person (mom) is not a configured person; configured people: dad, 민지"))
        #expect(
            problem("station: { name: 종로구 }\nalerts:\n  rules:\n    - { when: pm25.grade >= 3, person: dad }\n")
                .contains("alerts.rules[0].person (dad) is not a configured person; configured people: me"))
    }

    @Test("The same condition twice for one person is refused; once for each of two people is two rules")
    func duplicates() throws {
        #expect(
            problem(household + "alerts:\n  rules:\n    - { when: pm25.grade >= 3 }\n    - { when: pm25.grade >= 나쁨, person: dad }\n")
                .contains("alerts.rules[1] is the same rule as alerts.rules[0] (pm25.grade >= 3), which is already every person's"))
        #expect(
            problem(household + "alerts:\n  rules:\n    - { when: pm25.grade >= 3, person: dad }\n    - { when: pm25.grade >= 3 }\n")
                .contains("alerts.rules[1] is the same rule as alerts.rules[0] (pm25.grade >= 3)"))
        let two = try load(
            household + "alerts:\n  rules:\n    - { when: pm25.grade >= 3, person: dad }\n    - { when: pm25.grade >= 3, person: 민지 }\n")
        #expect(two.alerts.rules.map(\.person) == ["dad", "민지"])
    }

    @Test("One condition of whole values written two ways (> 2 beside >= 3, < 3 beside <= 2) is warned of; other thresholds are not")
    func sameConditionTwoWays() throws {
        let both = try load(
            household + "alerts:\n  rules:\n    - { when: pm25.grade >= 3 }\n    - { when: pm25.grade > 2, person: dad }\n"
                + "    - { when: advisory.level < 2 }\n    - { when: advisory.level <= 1 }\n    - { when: intake.today.pm25 > 2 }\n"
                + "    - { when: intake.today.pm25 >= 3 }\n    - { when: pm10.grade == 4 }\n    - { when: pm10.grade >= 4 }\n")
        #expect(
            both.warnings == [
                "alerts.rules[1] (pm25.grade > 2) is the same condition as alerts.rules[0] (pm25.grade >= 3): the values are whole, so every episode is announced twice; remove one",
                "alerts.rules[3] (advisory.level <= 1) is the same condition as alerts.rules[2] (advisory.level < 2): the values are whole, so every episode is announced twice; remove one",
                "alerts.rules[7] (pm10.grade >= 4) is the same condition as alerts.rules[6] (pm10.grade == 4): the values are whole, so every episode is announced twice; remove one",
            ])
        // The stored identity is the rule as written: an upgrade neither repeats nor forgets an alert.
        #expect(both.alerts.rules[1].description == "pm25.grade > 2")
        let apart = try load(
            household + "alerts:\n  rules:\n    - { when: pm25.grade >= 3, person: dad }\n    - { when: pm25.grade > 2, person: 민지 }\n")
        #expect(apart.warnings.isEmpty)
    }
}

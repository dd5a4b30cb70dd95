import DustConfig
import DustKit
import Foundation
import TestSupport
import Testing

@Suite("Configuration: people (docs/REFERENCE.md §18)", .timeLimit(.minutes(10)))
struct PeopleSettingsTests: SettingsFileTests {
    @Test("No people: one person me with station.name and the intake settings; dustd polls the station and its fallbacks")
    func defaultPerson() throws {
        let settings = try load("station:\n  name: 종로구\n  fallbacks: [중구]\nintake:\n  infiltration: 0.5\n")
        #expect(settings.people == [Person(name: "me", station: "종로구", infiltration: 0.5)])
        #expect(settings.polledStations == ["종로구", "중구"])
    }

    @Test("Each person takes what they leave out from station.* and intake.*; the union of stations is polled once each")
    func household() throws {
        let settings = try load(
            """
            station:
              name: 종로구
              fallbacks: [중구]
            intake:
              infiltration: 0.6
            people:
              - { name: dad, born: 1986-01, sex: male, restingHeartRate: 58 }
              - name: 민지
                born: 2018-03
                station: 용산구
                infiltration: 0.4
                schedule:
                  - { from: 0, to: 8, activity: sleep }
                  - { from: 8, to: 24, activity: light, outdoors: 0.25 }
              - { name: grandma, station: 중구 }
            """)
        #expect(settings.people.map(\.name) == ["dad", "민지", "grandma"])
        #expect(
            settings.people[0]
                == Person(
                    name: "dad", born: BirthMonth(year: 1986, month: 1), sex: .male, station: "종로구", infiltration: 0.6, restingHeartRate: 58
                ))
        #expect(settings.people[1].station == "용산구" && settings.people[1].infiltration == 0.4 && settings.people[1].schedule.count == 2)
        #expect(settings.people[2].born == nil && settings.people[2].schedule == VentilationIntakeModel.defaultSchedule)
        #expect(settings.polledStations == ["종로구", "중구", "용산구"])
        #expect(settings.person(named: "민지")?.born == BirthMonth(year: 2018, month: 3))
    }

    @Test("A household is at most 32 people and 32 monitors: a generated list of a thousand is refused, naming the key")
    func householdBounded() throws {
        func people(_ count: Int) -> String { "people:\n" + (0..<count).map { "  - name: p\($0)\n" }.joined() }
        #expect(try load(people(32)).people.count == 32)
        let refused = problem(people(33))
        #expect(refused.contains("people") && refused.contains("lists 33 people") && refused.contains("at most 32"), "\(refused)")
        func sensors(_ count: Int) -> String {
            "indoor:\n  sensors:\n" + (0..<count).map { "    - { name: s\($0), kind: import }\n" }.joined()
        }
        #expect(try load(sensors(32)).indoor.sensors.count == 32)
        let tooMany = problem(sensors(1_000))
        #expect(tooMany.contains("indoor.sensors") && tooMany.contains("lists 1000 sensors"), "\(tooMany)")
    }

    @Test("A birth month after this month is a warning, not an error: a Raspberry Pi's clock behind must not stop dustd")
    func bornAfterThisMonth() throws {
        let people = [
            Person(name: "dad", born: BirthMonth(year: 1986, month: 1), station: nil),
            Person(name: "baby", born: BirthMonth(year: 2026, month: 12), station: nil),
        ]
        // On a clock a week behind (still November), the December baby is a warning naming the entry.
        #expect(
            SettingsLoader.birthsAhead(people, today: LocalDate(year: 2026, month: 11, day: 29)) == [
                "people[1].born (baby) 2026-12 is after this month (2026-11 in Korea): until then FineDust counts a newborn's breathing; check the year, or this machine's clock"
            ])
        #expect(SettingsLoader.birthsAhead(people, today: LocalDate(year: 2026, month: 12, day: 1)).isEmpty)
        // At 1970 (a Pi with no time yet) both are ahead, and the settings still load.
        #expect(SettingsLoader.birthsAhead(people, today: LocalDate(year: 1970, month: 1, day: 1)).count == 2)
        #expect(try load("people:\n  - { name: baby, born: 2100-12 }\n").people[0].born == BirthMonth(year: 2100, month: 12))
    }

    @Test("Errors name the person and the key")
    func errors() {
        #expect(problem("people:\n  - { name: a }\n  - { name: a }\n").contains("people[1].name (a) is already the name of people[0]"))
        #expect(problem("people:\n  - { name: Dad }\n").contains("people[0].name must be 1 to 32 of a-z"))
        #expect(
            problem("people:\n  - { name: dad, born: 2999-01 }\n").contains(
                "people[0].born (dad) must be a month YYYY-MM from 1900-01 to 2100-12"))
        #expect(problem("people:\n  - { name: dad, born: 1899-12 }\n").contains("people[0].born (dad) must be a month"))
        #expect(problem("people:\n  - { name: dad, sex: other }\n").contains("people[0].sex (dad) must be one of female, male"))
        #expect(problem("people:\n  - { born: 1990-01 }\n").contains("people[0].name is missing"))
        #expect(
            problem("people:\n  - { name: kid, schedule: [{ from: 0, to: 12, activity: sleep }] }\n").contains(
                "people[0].schedule (kid) does not cover the hour 12:00"))
        #expect(Person.isValidName("민지") && Person.isValidName("a_b-9") && !Person.isValidName(String(repeating: "a", count: 33)))
    }
}

@Suite("Configuration: who may see whose data (docs/REFERENCE.md §13, §11 retention)", .timeLimit(.minutes(10)))
struct AccessSettingsTests {
    @Test("people[].tokenFile names each person's token file in order; retention.* defaults to 400 days and takes a file's value")
    func tokensAndRetention() throws {
        let settings = try PeopleSettingsTests().load(
            """
            http:
              tokenFile: /etc/dustd/http-token
            retention:
              positionsDays: 30
            people:
              - { name: dad, tokenFile: /etc/dustd/dad-token }
              - { name: 민지 }
              - { name: grandma, tokenFile: /etc/dustd/grandma-token }
            """)
        #expect(
            settings.http.personTokenFiles == [
                PersonTokenFile(person: "dad", path: "/etc/dustd/dad-token"),
                PersonTokenFile(person: "grandma", path: "/etc/dustd/grandma-token"),
            ])
        #expect(settings.http.requiresTokens)
        #expect(settings.retention == RetentionSettings(positionsDays: 30, samplesDays: 400))
        let defaults = try PeopleSettingsTests().load("people:\n  - { name: dad }\n")
        #expect(defaults.retention == RetentionSettings(positionsDays: 400, samplesDays: 400))
        #expect(!defaults.http.requiresTokens && defaults.http.personTokenFiles.isEmpty)
        #expect(PeopleSettingsTests().problem("retention:\n  positionsDays: 0\n").contains("retention.positionsDays"))
    }
}

import DustConfig
import DustKit
import Foundation
import TestSupport
import Testing

@Suite("Configuration: indoor sensors (docs/REFERENCE.md §21)", .timeLimit(.minutes(10)))
struct IndoorSettingsTests: SettingsFileTests {
    let household = """
        station:
          name: 종로구
        people:
          - name: jiho
            schedule:
              - { from: 0, to: 9, activity: sleep }
              - { from: 9, to: 18, activity: sedentary, at: away }
              - { from: 18, to: 24, activity: sedentary }
          - name: seoa

        """

    @Test("Three kinds and an import sensor; each person learns the sensors where they live; at: away")
    func sensors() throws {
        let settings = try load(
            household + """
                indoor:
                  sampleSeconds: 30
                  homeAssistantTokenFile: /etc/finedust/ha-token
                  sensors:
                    - {name: living-room, kind: airgradient, url: "http://192.168.0.40/"}
                    - {name: bedroom, kind: purpleair, url: "http://192.168.0.41", correction: epa-2021, people: [jiho]}
                    - {name: study, kind: homeassistant, url: "http://homeassistant.local:8123", entity: sensor.study_pm10, pollutant: pm10}
                    - {name: old-monitor, kind: import, people: [seoa]}
                """)
        #expect(settings.indoor.sampleSeconds == 30 && settings.indoor.homeAssistantTokenFile == "/etc/finedust/ha-token")
        #expect(settings.indoor.sensors.map(\.name) == ["living-room", "bedroom", "study", "old-monitor"])
        #expect(settings.indoor.sensors[0].url == "http://192.168.0.40")
        #expect(settings.indoor.sensors[1].correction == .epa2021 && settings.indoor.sensors[2].pollutant == .pm10)
        #expect(settings.indoor.sensors[3].kind == .imported && settings.indoor.sensors[3].url == nil)
        #expect(settings.person(named: "jiho")?.indoorSensors == ["living-room", "bedroom", "study"])
        #expect(settings.person(named: "seoa")?.indoorSensors == ["living-room", "study", "old-monitor"])
        #expect(settings.person(named: "jiho")?.schedule.map(\.atHome) == [true, false, true])
    }

    @Test("Without indoor: no sensors, every schedule entry at home, a person's sensors empty")
    func none() throws {
        let settings = try load(household)
        #expect(settings.indoor == IndoorSettings() && settings.people.allSatisfy { $0.indoorSensors.isEmpty })
    }

    @Test("Each mistake is named with the sensor and the fix")
    func mistakes() {
        let cases: [(String, String)] = [
            ("{name: Living Room, kind: airgradient, url: \"http://a\"}", "indoor.sensors[0].name must be 1 to 32 of a-z, 0-9, _ and -"),
            ("{name: a, kind: awair, url: \"http://a\"}", "must be one of airgradient, purpleair, homeassistant, import, not \"awair\""),
            ("{name: a, kind: airgradient}", "indoor.sensors[0].url (a) is missing: where the monitor answers"),
            ("{name: a, kind: airgradient, url: \"http://user:pw@host\"}", "with nothing after it"),
            ("{name: a, kind: airgradient, url: \"http://host/measures/current\"}", "with nothing after it"),
            ("{name: a, kind: airgradient, url: \"ftp://host\"}", "must be http://HOST or http://HOST:PORT"),
            ("{name: a, kind: homeassistant, url: \"http://ha:8123\"}", "indoor.sensors[0].entity (a) is missing"),
            ("{name: a, kind: homeassistant, url: \"http://ha:8123\", entity: light.kitchen}", "must be a sensor entity"),
            ("{name: a, kind: airgradient, url: \"http://a\", correction: epa-2021}", "is only for a purpleair sensor"),
            ("{name: a, kind: import, url: \"http://a\"}", "an import sensor is not asked"),
            ("{name: a, kind: import, people: [minji]}", "names minji, who is not a configured person; configured people: jiho, seoa"),
            (
                "{name: a, kind: import, people: []}",
                "(a) is an empty list: name who lives where it stands, or leave people out for everyone"
            ),
        ]
        for (sensor, expected) in cases {
            let message = problem(household + "indoor:\n  sensors:\n    - \(sensor)\n")
            #expect(message.contains(expected), "\(sensor): \(message)")
        }
        let twice = problem(household + "indoor:\n  sensors:\n    - {name: a, kind: import}\n    - {name: a, kind: import}\n")
        #expect(twice.contains("indoor.sensors[1].name (a) is already the name of indoor.sensors[0]"), "\(twice)")
        #expect(problem(household + "indoor:\n  sampleSeconds: 5\n").contains("indoor.sampleSeconds"))
    }
}

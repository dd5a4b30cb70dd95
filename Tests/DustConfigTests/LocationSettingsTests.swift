import DustConfig
import DustKit
import Foundation
import TestSupport
import Testing

@Suite("Configuration: a person's home and location.radiusKm (docs/REFERENCE.md §19)", .timeLimit(.minutes(10)))
struct LocationSettingsTests {
    func load(_ yaml: String, environment: [String: String] = [:]) throws -> FineDustSettings {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dustd.yaml")
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return try SettingsLoader(environment: environment).load(configurationFile: path, now: settingsLoadedAt)
    }

    func problem(_ yaml: String, environment: [String: String] = [:]) -> String {
        do {
            _ = try load(yaml, environment: environment)
            return "loaded"
        } catch {
            return "\(error)"
        }
    }

    @Test("home is kept with the person; without it, none (the home station's value, as before)")
    func home() throws {
        let settings = try load(
            """
            station:
              name: 종로구
            people:
              - { name: dad, home: { lat: 37.568, lon: 126.99 } }
              - name: 민지
                home:
                  lat: -33.8688
                  lon: 151.2093
              - { name: grandma }
            """)
        #expect(settings.people[0].home == GeoPoint(latitude: 37.568, longitude: 126.99))
        #expect(settings.people[1].home == GeoPoint(latitude: -33.8688, longitude: 151.2093))
        #expect(settings.people[2].home == nil)
        #expect(try load("station:\n  name: 종로구\n").people == [Person(name: "me", station: "종로구", infiltration: 0.7)])
    }

    @Test("home errors name the person and the key")
    func homeErrors() {
        #expect(
            problem("people:\n  - { name: dad, home: { lat: 91, lon: 127 } }\n").contains(
                "people[0].home.lat (dad) must be a number from -90 to 90, not \"91\""))
        #expect(
            problem("people:\n  - { name: a }\n  - { name: 민지, home: { lat: 37.5, lon: -180.5 } }\n").contains(
                "people[1].home.lon (민지) must be a number from -180 to 180"))
        #expect(
            problem("people:\n  - { name: dad, home: { lat: .nan, lon: 127 } }\n").contains("people[0].home.lat (dad) must be a number"))
        #expect(problem("people:\n  - { name: dad, home: { lat: 37.5 } }\n").contains("people[0].home.lon (dad) is missing"))
        #expect(
            problem("people:\n  - { name: dad, home: { lat: 37.5, lng: 127 } }\n").contains(
                "people[0].home (dad) has a field lng that is not one of lat, lon"))
        #expect(problem("people:\n  - { name: dad, home: 37.5 }\n").contains("people[0].home (dad) must be a mapping {lat, lon}"))
    }

    @Test("location.radiusKm: 10 when left out; above 0 and at most 100, from the file or DUSTD_LOCATION_RADIUS_KM")
    func radius() throws {
        #expect(try load("station:\n  name: 종로구\n").location.radiusKilometres == 10)
        #expect(try load("location:\n  radiusKm: 2.5\n").location.radiusKilometres == 2.5)
        #expect(try load("location:\n  radiusKm: 100\n").location.radiusKilometres == 100)
        #expect(try load("", environment: ["DUSTD_LOCATION_RADIUS_KM": "4"]).location.radiusKilometres == 4)
        for bad in ["0", "-1", "100.5", "inf", "ten"] {
            #expect(
                problem("location:\n  radiusKm: \(bad)\n").contains(
                    "location.radiusKm must be a number above 0 and at most 100, not \"\(bad)\""))
        }
    }
}

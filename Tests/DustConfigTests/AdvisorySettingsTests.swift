import DustConfig
import DustKit
import Foundation
import TestSupport
import Testing

@Suite("Configuration: advisories.enabled, advisories.district and advisories.area", .timeLimit(.minutes(10)))
struct AdvisorySettingsTests {
    func load(_ yaml: String, environment: [String: String] = [:]) throws -> FineDustSettings {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dustd.yaml")
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return try SettingsLoader(environment: environment).load(configurationFile: path, now: settingsLoadedAt)
    }

    @Test("Defaults: enabled, the station's district, every 권역; the shipped file says the same")
    func defaults() throws {
        let settings = try load("station:\n  name: 종로구\n")
        #expect(settings.advisories == AdvisorySettings(enabled: true, district: nil, area: nil))
        #expect(settings.advisories.region(stationSido: "서울") == AdvisoryRegion(district: "서울"))
        #expect(settings.advisories.region(stationSido: nil) == nil)
        let shipped = try SettingsLoader(environment: [:]).load(
            configurationFile: TestFixtures.repositoryRoot.appendingPathComponent("Config/dustd.yaml").path, now: settingsLoadedAt)
        #expect(shipped.advisories == AdvisorySettings(enabled: true, district: nil, area: nil))
    }

    @Test("From the file, and DUSTD_ADVISORIES_… override it; the configured district wins over the station's")
    func fileAndEnvironment() throws {
        let fromFile = try load("advisories:\n  enabled: false\n  district: 경기\n  area: 남부권\n")
        #expect(fromFile.advisories == AdvisorySettings(enabled: false, district: "경기", area: "남부권"))
        #expect(fromFile.advisories.region(stationSido: "서울") == AdvisoryRegion(district: "경기", area: "남부권"))
        let fromEnvironment = try load(
            "advisories:\n  district: 경기\n",
            environment: ["DUSTD_ADVISORIES_DISTRICT": "서울", "DUSTD_ADVISORIES_AREA": "도심권", "DUSTD_ADVISORIES_ENABLED": "true"])
        #expect(fromEnvironment.advisories == AdvisorySettings(enabled: true, district: "서울", area: "도심권"))
    }

    @Test("A district that is not one of the 17 names the key, the line and the choices")
    func invalidDistrict() throws {
        do {
            _ = try load("advisories:\n  district: 서울특별시\n")
            Issue.record("서울특별시 is not how AirKorea writes the district")
        } catch let error as ConfigurationError {
            #expect(error.key == "advisories.district")
            #expect(error.description.contains("서울, 부산"))
            #expect(error.description.contains("line 2"))
        }
    }

    @Test("A 권역 with a control character is refused")
    func controlCharacter() throws {
        #expect(throws: ConfigurationError.self) { _ = try load("advisories:\n  area: \"도심\\u001b권\"\n") }
    }
}

import DustConfig
import DustKit
import Foundation
import TestSupport
import Testing

@Suite("Configuration: forecast.enabled and forecast.region", .timeLimit(.minutes(10)))
struct ForecastSettingsTests {
    func load(_ yaml: String, environment: [String: String] = [:]) throws -> FineDustSettings {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dustd.yaml")
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return try SettingsLoader(environment: environment).load(configurationFile: path, now: settingsLoadedAt)
    }

    @Test("Defaults: enabled, region from the station")
    func defaults() throws {
        let settings = try load("station:\n  name: 종로구\n")
        #expect(settings.forecast == ForecastSettings(enabled: true, region: nil))
        let shipped = try SettingsLoader(environment: [:]).load(
            configurationFile: TestFixtures.repositoryRoot.appendingPathComponent("Config/dustd.yaml").path, now: settingsLoadedAt)
        #expect(shipped.forecast == ForecastSettings(enabled: true, region: nil))
    }

    @Test("From the file, and DUSTD_FORECAST_REGION / DUSTD_FORECAST_ENABLED override it")
    func fileAndEnvironment() throws {
        let fromFile = try load("forecast:\n  enabled: false\n  region: 경기북부\n")
        #expect(fromFile.forecast == ForecastSettings(enabled: false, region: .gyeonggiNorth))
        let fromEnvironment = try load(
            "forecast:\n  region: 경기북부\n", environment: ["DUSTD_FORECAST_REGION": "강원영동", "DUSTD_FORECAST_ENABLED": "true"])
        #expect(fromEnvironment.forecast == ForecastSettings(enabled: true, region: .yeongdong))
    }

    @Test("A region that is not one of the 19 names the key and the choices")
    func invalidRegion() throws {
        do {
            _ = try load("forecast:\n  region: 경기\n")
            Issue.record("경기 is not a forecast region")
        } catch let error as ConfigurationError {
            #expect(error.key == "forecast.region")
            #expect(error.description.contains("경기북부"))
            #expect(error.description.contains("line 2"))
        }
    }
}

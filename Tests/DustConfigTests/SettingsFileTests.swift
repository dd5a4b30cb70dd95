import DustConfig
import Foundation
import TestSupport

/// A suite that loads settings from a YAML text written to a file of its own, as dustd and dustctl
/// read `dustd.yaml`, with no `DUSTD_…` variable.
protocol SettingsFileTests {}

extension SettingsFileTests {
    func load(_ yaml: String) throws -> FineDustSettings {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dustd.yaml")
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return try SettingsLoader(environment: [:]).load(configurationFile: path, now: settingsLoadedAt)
    }

    /// The error loading `yaml` gives, as printed; "loaded" when it loads.
    func problem(_ yaml: String) -> String {
        do {
            _ = try load(yaml)
            return "loaded"
        } catch {
            return "\(error)"
        }
    }
}

import DustKit
import Foundation
import TestSupport
import Testing

@testable import DustConfig

@Suite("Declared keys: one declaration per key, documented in Config/dustd.yaml", .timeLimit(.minutes(10)))
struct DeclaredKeysTests {
    let shippedPath = TestFixtures.repositoryRoot.appendingPathComponent("Config/dustd.yaml").path

    @Test("Config/dustd.yaml holds every declared key and nothing else")
    func documentedKeys() throws {
        // Reading the file already refuses a key that is not declared.
        let documented = Set(try ConfigurationFile(reading: shippedPath).values.keys)
        let declared = Set(SettingKey.all.map(\.name))
        #expect(declared.subtracting(documented).isEmpty, "not documented: \(declared.subtracting(documented).sorted())")
        #expect(documented.subtracting(declared).isEmpty, "documented but not declared: \(documented.subtracting(declared).sorted())")
    }

    @Test("Each value in Config/dustd.yaml is its key's declared default; a key without one shows a valid example")
    func documentedDefaults() throws {
        let file = try ConfigurationFile(reading: shippedPath)
        for key in SettingKey.all {
            let node = try #require(file.values[key.name], "\(key.name) is not documented")
            // Decoding checks the example of a key without a default, such as station.name.
            let isDefault = try key.isDefault(node)
            #expect(isDefault || !key.hasDefault, "Config/dustd.yaml shows \(key.name) with a value other than its declared default")
        }
    }

    @Test("Names and their environment variables are unique")
    func uniqueNames() {
        let names = SettingKey.all.map(\.name)
        #expect(Set(names).count == names.count)
        let variables = names.map(SettingsLoader.environmentVariable(for:))
        #expect(Set(variables).count == variables.count)
        #expect(SettingsLoader.keysByVariable.count == names.count)
    }

    @Test("With no file and no variables, every setting is the declared default the shipped file documents")
    func defaultsApplied() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let empty = directory.path("dustd.yaml")
        try "# nothing but comments\n".write(toFile: empty, atomically: false, encoding: .utf8)
        let defaults = try SettingsLoader(environment: [:]).load(configurationFile: empty, now: settingsLoadedAt)
        let shipped = try SettingsLoader(environment: [:]).load(configurationFile: shippedPath, now: settingsLoadedAt)
        #expect(defaults.station.name == nil)
        #expect(defaults.station.fallbacks == shipped.station.fallbacks && defaults.station.mode == shipped.station.mode)
        #expect(defaults.api == shipped.api)
        #expect(defaults.poll == shipped.poll)
        #expect(defaults.storagePath == shipped.storagePath)
        #expect(defaults.calendar.timeZone.identifier == shipped.calendar.timeZone.identifier)
        #expect(defaults.logLevel == shipped.logLevel)
        #expect(defaults.http == shipped.http)
        #expect(defaults.alerts == shipped.alerts && defaults.alerts == AlertSettings())
        let model = try #require(defaults.intakeModel as? VentilationIntakeModel)
        let shippedModel = try #require(shipped.intakeModel as? VentilationIntakeModel)
        #expect(model.infiltration == shippedModel.infiltration && model.rates == shippedModel.rates)
        #expect((0..<24).map(model.entry(atHour:)) == (0..<24).map(shippedModel.entry(atHour:)))
    }
}

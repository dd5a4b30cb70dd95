import Configuration
import DustKit
import Foundation
import Yams

/// The `DUSTD_…` variables (through swift-configuration) and the configuration file's values.
struct SettingSources {
    /// `EnvironmentVariablesProvider` with the `dustd` prefix, which maps `poll.minute` to
    /// `DUSTD_POLL_MINUTE`; nil when no setting's variable is set.
    let environment: (any ConfigProvider)?
    let file: ConfigurationFile?

    /// The key's value from its variable, else from the file, and where it came from; nil when neither sets it.
    func value<Value>(of key: String, _ shape: ValueShape<Value>) throws(ConfigurationError) -> (Value, ValueOrigin)? {
        if let environment, let form = shape.fromEnvironment, let found = try environmentValue(of: key, form, in: environment) {
            return found
        }
        guard let file, let node = file.values[key] else { return nil }
        do throws(ValueProblem) {
            return try shape.fromFile(node).map { ($0, .file(path: file.path, line: node.mark?.line)) }
        } catch {
            throw ConfigurationError(
                key: key + error.path, problem: error.problem,
                source: ValueOrigin.file(path: file.path, line: error.line ?? node.mark?.line).source)
        }
    }

    /// The value of the variable swift-configuration reads for `key`, and that variable's name.
    private func environmentValue<Value>(
        of key: String, _ form: EnvironmentForm<Value>, in environment: any ConfigProvider
    ) throws(ConfigurationError) -> (Value, ValueOrigin)? {
        let type: ConfigType =
            switch form {
            case .text: .string
            case .list: .stringArray
            }
        let lookup: LookupResult
        do {
            lookup = try environment.value(forKey: AbsoluteConfigKey(ConfigKey(key)), type: type)
        } catch {
            throw ConfigurationError(
                key: key, problem: "cannot be read: \(error)",
                source: "environment variable \(SettingsLoader.environmentVariable(for: key))")
        }
        let origin = ValueOrigin.environment(variable: lookup.encodedKey)
        do throws(ValueProblem) {
            switch (form, lookup.value?.content) {
            case (.text(let parse), .string(let text)?):
                return (try parse(text.trimmingWhiteSpace), origin)
            case (.list(let parse), .stringArray(let items)?):
                return (try parse(items), origin)
            default:
                return nil
            }
        } catch {
            throw ConfigurationError(key: key + error.path, problem: error.problem, source: origin.source)
        }
    }
}

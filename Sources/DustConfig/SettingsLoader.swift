import Configuration
import DustKit
import Foundation
import Yams

/// Reads `FineDustSettings` from a YAML file and `DUSTD_…` environment variables (which win).
///
/// The keys, their defaults and their checks are declared once, in `SettingKey.all`. The file is
/// read with Yams, each key's YAML node decoded by the key's shape (so `intake.schedule` arrives
/// as a list of mappings, not text); the variables are read through swift-configuration's
/// `EnvironmentVariablesProvider`, which also names the variable behind each key.
public struct SettingsLoader: Sendable {
    /// Where dustd and dustctl look when no `--config` is given, after `$DUSTD_CONFIG`.
    public static let systemConfigurationFile = "/etc/dustd/dustd.yaml"
    public static let localConfigurationFile = "Config/dustd.yaml"
    public static let defaultStoragePath = "/var/lib/dustd/dust.sqlite"

    private let environment: [String: String]
    private let workingDirectory: String

    /// `environment` needs only the `DUSTD_…` variables (the default reads just those).
    public init(
        environment: [String: String] = EnvironmentVariables.read(prefixed: "DUSTD_"),
        workingDirectory: String = FileManager.default.currentDirectoryPath
    ) {
        self.environment = environment
        self.workingDirectory = workingDirectory
    }

    /// The configuration file to read: `explicit`, else `$DUSTD_CONFIG`, else `/etc/dustd/dustd.yaml`,
    /// else `./Config/dustd.yaml`; nil when none exists (defaults and environment only).
    public func configurationFile(explicit: String?) -> String? {
        if let explicit { return explicit }
        if let fromEnvironment = environment["DUSTD_CONFIG"], !fromEnvironment.isEmpty { return fromEnvironment }
        for candidate in [Self.systemConfigurationFile, (workingDirectory as NSString).appendingPathComponent(Self.localConfigurationFile)]
        where FileManager.default.fileExists(atPath: candidate) {
            return candidate
        }
        return nil
    }

    /// Loads and validates the settings; `warnings` lists `DUSTD_…` variables that are not settings,
    /// and each person born after the month of `now` in Korea (`birthsAhead`): `now` is the caller's
    /// clock, since the warning speaks of this machine's.
    public func load(configurationFile explicit: String?, now: Date) throws(ConfigurationError) -> FineDustSettings {
        let (warnings, settingVariables) = try checkEnvironment()
        let path = configurationFile(explicit: explicit)
        let sources = SettingSources(
            // Without a setting's variable there is nothing to find, and asking the provider costs
            // a key encoding per key (about 0.2 ms for every dustctl command).
            environment: settingVariables ? EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: "dustd") : nil,
            file: try path.map { path throws(ConfigurationError) in try ConfigurationFile(reading: path) })
        var values = SettingValues()
        var origins: [String: ValueOrigin] = [:]
        for key in SettingKey.all {
            origins[key.name] = try key.resolve(&values, sources)
        }
        var settings = try values.settings(origins: origins, configurationFile: path)
        settings.warnings = warnings + settings.warnings + Self.birthsAhead(settings.people, today: KoreaStandardTime.date(containing: now))
        return settings
    }

    /// A warning for each person born after the month of `today`: a mistyped year, or this machine's
    /// clock behind. The settings stay valid (a person younger than a year breathes as a newborn).
    public static func birthsAhead(_ people: [Person], today: LocalDate) -> [String] {
        let month = BirthMonth(year: today.year, month: today.month)!
        return people.enumerated().compactMap { index, person in
            guard let born = person.born, month < born else { return nil }
            return
                "people[\(index)].born (\(person.name)) \(born) is after this month (\(month) in Korea): until then FineDust counts a newborn's breathing; check the year, or this machine's clock"
        }
    }

    // MARK: - Environment

    /// The environment variable swift-configuration reads for `key`, e.g. `DUSTD_API_BASE_URL` for
    /// `api.baseURL`. Asked of the provider itself (its name encoder is internal), so a message
    /// never names a variable the provider does not read.
    static func environmentVariable(for key: String) -> String {
        let provider = EnvironmentVariablesProvider(environmentVariables: [:]).prefixKeys(with: "dustd")
        // Only a value that fails to parse makes the lookup throw, and an empty environment has none.
        let lookup = try? provider.value(forKey: AbsoluteConfigKey(ConfigKey(key)), type: .string)
        return lookup?.encodedKey ?? "DUSTD_" + key.uppercased().replacingOccurrences(of: ".", with: "_")
    }

    /// Every key by the variable that sets it (a test checks that no two keys share one).
    static let keysByVariable: [String: SettingKey] = Dictionary(SettingKey.all.map { (environmentVariable(for: $0.name), $0) }) {
        first, _ in first
    }

    /// `DUSTD_…` variables that are read but are not settings: the file to read, and the service key
    /// (which `ServiceKeyLoader` reads as `api.serviceKey` through the same provider).
    static let otherVariables: Set<String> = ["DUSTD_CONFIG", environmentVariable(for: "api.serviceKey")]

    /// Refuses a setting's variable that is set but empty (it would silently hide the file's
    /// value) or that cannot hold its key's value, and returns a warning with a suggestion for
    /// each `DUSTD_…` variable nobody reads, and whether any setting's variable is set.
    private func checkEnvironment() throws(ConfigurationError) -> (warnings: [String], settingVariables: Bool) {
        var warnings: [String] = []
        var settingVariables = false
        // DUSTD_CONFIG is skipped before otherVariables is asked: naming the key's variable sets
        // up swift-configuration (0.1 ms), which the usual environment never needs.
        for (name, value) in environment.sorted(by: { $0.key < $1.key })
        where name.hasPrefix("DUSTD_") && name != "DUSTD_CONFIG" && !Self.otherVariables.contains(name) {
            if let key = Self.keysByVariable[name] {
                settingVariables = true
                guard key.settableFromEnvironment else {
                    throw ConfigurationError(
                        key: key.name,
                        problem:
                            "cannot come from an environment variable: it is a list of entries, which only the configuration file can hold; unset the variable and write \(key.name) in the file",
                        source: "environment variable \(name)")
                }
                guard !value.trimmingWhiteSpace.isEmpty else {
                    throw ConfigurationError(
                        key: key.name,
                        problem: "is empty; give it a value, or unset the variable to use the configuration file or the default",
                        source: "environment variable \(name)")
                }
            } else {
                let known = Self.keysByVariable.keys.sorted() + Self.otherVariables.sorted()
                let suggestion = SpellingDistance.nearest(to: name, among: known).map { " (did you mean \($0)?)" } ?? ""
                warnings.append("the environment variable \(name) is not a FineDust setting and is ignored\(suggestion)")
            }
        }
        return (warnings, settingVariables)
    }
}

// MARK: - The file

/// A configuration file's YAML node for each key it sets.
///
/// Yams composes the file with `Resolver.basic`, which has no rules: its default resolver compiles
/// seven `NSRegularExpression`s (loading ICU's regex engine: over a millisecond of every dustctl
/// command, even for a file of comments) and matches them against every scalar, to type values
/// that each key's `ValueShape` interprets anyway.
struct ConfigurationFile {
    /// The largest configuration file read: a household's, comments and all, is a few KiB.
    static let maxBytes = 1 << 20

    let path: String
    /// The node of every key the file sets, by dotted name.
    let values: [String: Node]

    /// Reads the file, refusing one that others may write, one that is not YAML, and unknown keys.
    init(reading path: String, keys: [SettingKey] = SettingKey.all) throws(ConfigurationError) {
        let file: OpenedFile
        switch OpenedFile.open(path) {
        case .success(let opened): file = opened
        case .failure(let failure):
            throw ConfigurationError(key: nil, problem: "the configuration file \(path) cannot be read: \(failure.reason)")
        }
        if let problem = FilePermissions(role: "the configuration file", path: path).othersCanChange(file.status) {
            file.discard()
            throw ConfigurationError(key: nil, problem: problem)
        }
        let text: String
        switch file.readText(limit: Self.maxBytes) {
        case .success(let read): text = read
        case .failure(let failure): throw ConfigurationError(key: nil, problem: "the configuration file \(path) \(failure.problem)")
        }
        let root: Node?
        do {
            // No constructor rules either: the shapes read the nodes, nothing builds Swift values from them.
            root = try Yams.compose(yaml: text, .basic, Constructor([:], [:], [:]), .utf8)
        } catch {
            throw ConfigurationError(key: nil, problem: "the file is not valid YAML: \(yamlProblem(error))", source: path)
        }
        self.path = path
        var values: [String: Node] = [:]
        if let root {
            guard case .mapping = root else {
                throw ConfigurationError(key: nil, problem: "the file must be a mapping of keys such as station: and poll:", source: path)
            }
            try Self.collect(root, under: [], into: &values, keys: Dictionary(uniqueKeysWithValues: keys.map { ($0.name, $0) }), file: path)
        }
        self.values = values
    }

    /// Walks the mappings that group keys (`poll:`, `intake.ventilation:`) down to the keys, whose
    /// nodes are kept whole for their shapes to decode.
    private static func collect(
        _ node: Node, under path: [String], into values: inout [String: Node],
        keys: [String: SettingKey], file: String
    ) throws(ConfigurationError) {
        guard case .mapping(let mapping) = node else { return }
        for (keyNode, valueNode) in mapping {
            let place = ValueOrigin.file(path: file, line: keyNode.mark?.line).source
            guard let name = keyNode.scalar?.string else {
                throw ConfigurationError(
                    key: path.isEmpty ? nil : path.joined(separator: "."), problem: "has a key that is not text", source: place)
            }
            let key = (path + [name]).joined(separator: ".")
            if keys[key] != nil {
                values[key] = valueNode
                continue
            }
            let members = keys.keys.filter { $0.hasPrefix(key + ".") }.sorted()
            guard !members.isEmpty else {
                let suggestion = SpellingDistance.nearest(to: key, among: keys.keys.sorted()).map { " (did you mean \($0)?)" } ?? ""
                throw ConfigurationError(key: key, problem: "is not a FineDust setting\(suggestion)", source: place)
            }
            switch valueNode {
            case .mapping:
                try collect(valueNode, under: path + [name], into: &values, keys: keys, file: file)
            case .scalar(let scalar) where scalar.text == nil:
                continue  // `poll:` with nothing under it
            default:
                throw ConfigurationError(
                    key: key,
                    problem:
                        "is not a FineDust setting but a group of them (\(members.joined(separator: ", "))); write those under \(name):",
                    source: place)
            }
        }
    }
}

/// Yams' error description spans lines (the problem, then the offending line and a caret):
/// this is the problem and where it is, on one line.
private func yamlProblem(_ error: any Error) -> String {
    let problem: String
    var line: Int?
    var column: Int?
    switch error as? YamlError {
    case .scanner(_, let description, let mark, _), .parser(_, let description, let mark, _), .composer(_, let description, let mark, _):
        (problem, line, column) = (description, mark.line, mark.column)
    case .duplicatedKeysInMapping(let duplicates, let context):
        (problem, line, column) = (
            "\(duplicates.joined(separator: ", ")) appears twice in one mapping", context.mark.line, context.mark.column
        )
    case .reader(let description, let offset, _, let yaml):
        // The reader reports a character offset: count the line ends before it.
        problem = description
        line = offset.map { yaml.prefix($0).reduce(1) { $1.isNewline ? $0 + 1 : $0 } }
    default:
        problem = String(describing: error)
    }
    let place = line.map { line in " at line \(line)" + (column.map { ", column \($0)" } ?? "") } ?? ""
    return problem.split(whereSeparator: \.isNewline).joined(separator: " ") + place
}

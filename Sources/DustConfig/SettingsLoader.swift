import AirKorea
import Configuration
import DustKit
import Foundation
import Yams

/// Reads `FineDustSettings` from a YAML file and `DUSTD_…` environment variables (which win).
///
/// The file is parsed with Yams and handed to swift-configuration as an in-memory provider,
/// because swift-configuration's YAML provider cannot hold `intake.schedule` (a list of maps).
/// Every value is read as text and validated here, so an error names the key and the problem.
public struct SettingsLoader: Sendable {
    /// Where dustd and dustctl look when no `--config` is given, after `$DUSTD_CONFIG`.
    public static let systemConfigurationFile = "/etc/dustd/dustd.yaml"
    public static let localConfigurationFile = "Config/dustd.yaml"
    public static let defaultStoragePath = "/var/lib/dustd/dust.sqlite"

    private let environment: [String: String]
    private let workingDirectory: String

    public init(environment: [String: String] = ProcessInfo.processInfo.environment,
                workingDirectory: String = FileManager.default.currentDirectoryPath) {
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

    /// Loads and validates the settings; `warnings` lists `DUSTD_…` variables that are not settings.
    public func load(configurationFile explicit: String?) throws(ConfigurationError) -> FineDustSettings {
        let warnings = try checkEnvironment()
        let file = configurationFile(explicit: explicit)
        var fileValues: [AbsoluteConfigKey: ConfigValue] = [:]
        if let file {
            fileValues = try Self.readYAML(at: file)
        }
        let reader = ConfigReader(providers: [
            EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: "dustd"),
            InMemoryProvider(name: file ?? "defaults", values: fileValues),
        ])
        var settings = try SettingsParser(reader: reader, environment: environment, file: file).parse()
        settings.warnings = warnings
        return settings
    }

    // MARK: - Environment

    /// The environment variable swift-configuration reads for `key`, e.g. `DUSTD_API_BASE_URL` for
    /// `api.baseURL`. Asked of the provider itself (its name encoder is internal), so an error
    /// never names a variable the provider does not read.
    static func environmentVariable(for key: String) -> String {
        let provider = EnvironmentVariablesProvider(environmentVariables: [:]).prefixKeys(with: "dustd")
        // Only a value that fails to parse makes the lookup throw, and an empty environment has none.
        let lookup = try? provider.value(forKey: AbsoluteConfigKey(ConfigKey(key)), type: .string)
        return lookup?.encodedKey ?? "DUSTD_" + key.uppercased().replacingOccurrences(of: ".", with: "_")
    }

    /// Every setting's variable, mapped to its key.
    static let settingVariables: [String: String] = Dictionary(uniqueKeysWithValues: knownKeys.keys.map { (environmentVariable(for: $0), $0) })

    /// `DUSTD_…` variables that are read but are not settings: the file to read, and the service key
    /// (which `ServiceKeyLoader` reads as `api.serviceKey` through the same provider).
    static let otherVariables: Set<String> = ["DUSTD_CONFIG", environmentVariable(for: "api.serviceKey")]

    /// Refuses a setting's variable that is set but empty (it would silently hide the file's
    /// value), and returns a warning with a suggestion for each `DUSTD_…` variable nobody reads.
    private func checkEnvironment() throws(ConfigurationError) -> [String] {
        var warnings: [String] = []
        let known = Self.settingVariables.keys.sorted() + Self.otherVariables.sorted()
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) where name.hasPrefix("DUSTD_") {
            if let key = Self.settingVariables[name] {
                guard !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                    throw ConfigurationError(key: key, problem: "is empty; give it a value, or unset the variable to use the configuration file or the default",
                                             source: "environment variable \(name)")
                }
            } else if !Self.otherVariables.contains(name) {
                let suggestion = nearest(to: name, among: known).map { " (did you mean \($0)?)" } ?? ""
                warnings.append("the environment variable \(name) is not a FineDust setting and is ignored\(suggestion)")
            }
        }
        return warnings
    }

    // MARK: - YAML

    /// The keys a configuration file may hold, and their shape.
    enum KeyShape {
        case scalar
        case list
        case schedule
    }

    static let knownKeys: [String: KeyShape] = [
        "station.name": .scalar, "station.fallbacks": .list, "station.mode": .scalar,
        "api.baseURL": .scalar, "api.version": .scalar, "api.timeoutSeconds": .scalar, "api.serviceKeyFile": .scalar,
        "poll.minute": .scalar, "poll.jitterSeconds": .scalar, "poll.intervalSeconds": .scalar,
        "poll.retryInitialSeconds": .scalar, "poll.retryMaxSeconds": .scalar,
        "storage.path": .scalar, "timezone": .scalar,
        "intake.model": .scalar, "intake.infiltration": .scalar, "intake.schedule": .schedule,
        "intake.ventilation.sleep": .scalar, "intake.ventilation.sedentary": .scalar, "intake.ventilation.light": .scalar,
        "intake.ventilation.moderate": .scalar, "intake.ventilation.high": .scalar,
        "log.level": .scalar,
    ]

    /// Reads a YAML configuration file into flat dotted keys, refusing unknown keys and files
    /// that others may write.
    static func readYAML(at path: String) throws(ConfigurationError) -> [AbsoluteConfigKey: ConfigValue] {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw ConfigurationError(key: nil, problem: "the configuration file \(path) cannot be read: \(String(cString: strerror(errno)))")
        }
        if let problem = FilePermissions(role: "the configuration file", path: path).othersCanChange(status) {
            throw ConfigurationError(key: nil, problem: problem)
        }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError(key: nil, problem: "the configuration file \(path) is not readable UTF-8 text")
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw ConfigurationError(key: nil, problem: "the file is not valid YAML: \(yamlProblem(error))", source: path)
        }
        guard let root else { return [:] }
        guard case .mapping = root else {
            throw ConfigurationError(key: nil, problem: "the file must be a mapping of keys such as station: and poll:", source: path)
        }
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        try flatten(root, path: [], into: &values, file: path)
        return values
    }

    private static func flatten(_ node: Node, path: [String], into values: inout [AbsoluteConfigKey: ConfigValue], file: String) throws(ConfigurationError) {
        let key = path.joined(separator: ".")
        if let mapping = node.mapping, knownKeys[key] == nil {
            for (keyNode, valueNode) in mapping {
                guard let name = keyNode.scalar?.string else {
                    throw ConfigurationError(key: key, problem: "has a key that is not text", source: file)
                }
                try flatten(valueNode, path: path + [name], into: &values, file: file)
            }
            return
        }
        guard let shape = knownKeys[key] else {
            let suggestion = nearest(to: key, among: knownKeys.keys.sorted()).map { " (did you mean \($0)?)" } ?? ""
            throw ConfigurationError(key: key, problem: "is not a FineDust setting\(suggestion)", source: file)
        }
        let absolute = AbsoluteConfigKey(path)
        switch (shape, node) {
        case (_, .scalar(let scalar)) where scalar.tag.rawValue == Tag.Name.null.rawValue || (scalar.string == "" && scalar.style == .plain):
            return  // `key:` with no value means "use the default"
        case (.scalar, .scalar(let scalar)):
            values[absolute] = ConfigValue(.string(scalar.string), isSecret: false)
        case (.list, .scalar(let scalar)):
            values[absolute] = ConfigValue(.stringArray([scalar.string]), isSecret: false)
        case (.list, .sequence(let sequence)):
            var items: [String] = []
            for item in sequence {
                guard let text = item.scalar?.string else { throw ConfigurationError(key: key, problem: "must be a list of names", source: file) }
                items.append(text)
            }
            values[absolute] = ConfigValue(.stringArray(items), isSecret: false)
        case (.schedule, .sequence(let sequence)):
            var entries: [String] = []
            for (index, item) in sequence.enumerated() {
                guard let mapping = item.mapping else {
                    throw ConfigurationError(key: "\(key)[\(index)]", problem: "must be a mapping with from, to, activity and outdoors", source: file)
                }
                var fields: [String: String] = [:]
                for (name, value) in mapping {
                    guard let name = name.scalar?.string, let value = value.scalar?.string else {
                        throw ConfigurationError(key: "\(key)[\(index)]", problem: "must map from, to, activity and outdoors to single values", source: file)
                    }
                    fields[name] = value
                }
                let unknown = Set(fields.keys).subtracting(["from", "to", "activity", "outdoors"])
                guard unknown.isEmpty else {
                    throw ConfigurationError(key: "\(key)[\(index)]", problem: "has unknown fields \(unknown.sorted().joined(separator: ", ")) (expected from, to, activity, outdoors)", source: file)
                }
                guard let from = fields["from"], let to = fields["to"], let activity = fields["activity"] else {
                    throw ConfigurationError(key: "\(key)[\(index)]", problem: "needs from, to and activity", source: file)
                }
                entries.append("\(from)-\(to) \(activity) \(fields["outdoors"] ?? "0")")
            }
            values[absolute] = ConfigValue(.string(entries.joined(separator: ", ")), isSecret: false)
        case (.scalar, _):
            throw ConfigurationError(key: key, problem: "must be a single value, not a list or a mapping", source: file)
        case (.list, _):
            throw ConfigurationError(key: key, problem: "must be a list of names", source: file)
        case (.schedule, _):
            throw ConfigurationError(key: key, problem: "must be a list of {from, to, activity, outdoors} entries", source: file)
        }
    }
}

/// Yams' error description spans lines (the problem, then the offending line and a caret):
/// this is the problem and where it is, on one line.
private func yamlProblem(_ error: any Error) -> String {
    let problem: String
    var line: Int?, column: Int?
    switch error as? YamlError {
    case let .scanner(_, description, mark, _), let .parser(_, description, mark, _), let .composer(_, description, mark, _):
        (problem, line, column) = (description, mark.line, mark.column)
    case let .duplicatedKeysInMapping(duplicates, context):
        (problem, line, column) = ("\(duplicates.joined(separator: ", ")) appears twice in one mapping", context.mark.line, context.mark.column)
    case let .reader(description, offset, _, yaml):
        // The reader reports a character offset: count the line ends before it.
        problem = description
        line = offset.map { yaml.prefix($0).reduce(1) { $1.isNewline ? $0 + 1 : $0 } }
    default:
        problem = String(describing: error)
    }
    let place = line.map { line in " at line \(line)" + (column.map { ", column \($0)" } ?? "") } ?? ""
    return problem.split(whereSeparator: \.isNewline).joined(separator: " ") + place
}

/// The candidate closest to a misspelt name, for "did you mean"; the first of equally close ones.
func nearest(to name: String, among candidates: [String]) -> String? {
    candidates.min { editDistance($0, name) < editDistance($1, name) }
}

/// Levenshtein distance, for "did you mean" suggestions on misspelt keys.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.lowercased()), b = Array(b.lowercased())
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}

/// Turns the text values of a `ConfigReader` into validated settings.
struct SettingsParser {
    let reader: ConfigReader
    let environment: [String: String]
    let file: String?

    func parse() throws(ConfigurationError) -> FineDustSettings {
        let stationName = text("station.name")
        let fallbacks = (reader.stringArray(forKey: "station.fallbacks") ?? []).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let mode = try choice("station.mode", default: StationMode.single)
        let baseURL = text("api.baseURL") ?? AirKoreaEndpoint.defaultBaseURL
        guard let url = URL(string: baseURL), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw error("api.baseURL", "must be an http or https URL, not \"\(baseURL)\"")
        }
        let api = APISettings(
            baseURL: baseURL,
            version: text("api.version") ?? "1.5",
            timeoutSeconds: try number("api.timeoutSeconds", default: 30, in: 1...600),
            serviceKeyFile: text("api.serviceKeyFile"))
        let poll = PollSettings(
            minute: try integer("poll.minute", default: 20, in: 0...59),
            jitterSeconds: try integer("poll.jitterSeconds", default: 60, in: 0...3000),
            intervalSeconds: try integer("poll.intervalSeconds", default: 3600, in: 1...86_400),
            retryInitialSeconds: try integer("poll.retryInitialSeconds", default: 30, in: 1...86_400),
            retryMaxSeconds: try integer("poll.retryMaxSeconds", default: 900, in: 1...86_400))
        guard poll.retryMaxSeconds >= poll.retryInitialSeconds else {
            throw error("poll.retryMaxSeconds", "must be at least poll.retryInitialSeconds (\(poll.retryInitialSeconds))")
        }
        let zoneName = text("timezone") ?? "Asia/Seoul"
        guard let zone = TimeZone(identifier: zoneName) else {
            throw error("timezone", "must be an IANA time zone such as Asia/Seoul, not \"\(zoneName)\"")
        }
        let storagePath = text("storage.path") ?? SettingsLoader.defaultStoragePath
        return FineDustSettings(
            station: StationSettings(name: stationName, fallbacks: fallbacks, mode: mode),
            api: api, poll: poll, storagePath: storagePath, calendar: DayCalendar(timeZone: zone),
            intakeModel: try intakeModel(), logLevel: try choice("log.level", default: LogLevel.info),
            configurationFile: file)
    }

    private func intakeModel() throws(ConfigurationError) -> any IntakeModel {
        let name = text("intake.model") ?? "ventilation"
        switch name {
        case "boostcamp":
            return BoostcampIntakeModel()
        case "ventilation":
            var rates = VentilationIntakeModel.defaultRates
            for level in ActivityLevel.allCases {
                rates[level] = try number("intake.ventilation.\(level.rawValue)", default: rates[level]!, in: 0...100)
            }
            let schedule = try text("intake.schedule").map { text throws(ConfigurationError) in try parseSchedule(text) }
                ?? VentilationIntakeModel.defaultSchedule
            let infiltration = try number("intake.infiltration", default: 0.7, in: 0...1)
            do {
                return try VentilationIntakeModel(infiltration: infiltration, rates: rates, schedule: schedule)
            } catch {
                throw ConfigurationError(key: nil, problem: error.description, source: source(of: "intake.schedule"))
            }
        default:
            throw error("intake.model", "must be ventilation or boostcamp, not \"\(name)\"")
        }
    }

    /// `from-to activity outdoors` entries separated by commas, e.g. `0-7 sleep 0, 7-9 light 0.5`.
    private func parseSchedule(_ text: String) throws(ConfigurationError) -> [ScheduleEntry] {
        var entries: [ScheduleEntry] = []
        for part in text.split(separator: ",") {
            let words = part.split(separator: " ", omittingEmptySubsequences: true)
            let hours = words.first?.split(separator: "-") ?? []
            guard words.count == 3, hours.count == 2,
                  let from = Self.hour(hours[0]), let to = Self.hour(hours[1]),
                  let activity = ActivityLevel(rawValue: String(words[1])),
                  let outdoors = Double(words[2])
            else {
                let levels = ActivityLevel.allCases.map(\.rawValue).joined(separator: ", ")
                throw error("intake.schedule", "has an entry \"\(part.trimmingCharacters(in: .whitespaces))\" that is not {from: 0–23, to: 1–24, activity: one of \(levels), outdoors: 0–1}")
            }
            entries.append(ScheduleEntry(fromHour: from, toHour: to, activity: activity, outdoors: outdoors))
        }
        return entries
    }

    /// `7`, `07` or `07:00`.
    private static func hour(_ text: Substring) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let hourPart = trimmed.hasSuffix(":00") ? String(trimmed.dropLast(3)) : trimmed
        return Int(hourPart)
    }

    // MARK: - Typed reads with key-naming errors

    private func text(_ key: String) -> String? {
        guard let value = reader.string(forKey: ConfigKey(key))?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return value
    }

    private func integer(_ key: String, default defaultValue: Int, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let raw = text(key) else { return defaultValue }
        guard let value = Int(raw), range.contains(value) else {
            throw error(key, "must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(raw)\"")
        }
        return value
    }

    private func number(_ key: String, default defaultValue: Double, in range: ClosedRange<Double>) throws(ConfigurationError) -> Double {
        guard let raw = text(key) else { return defaultValue }
        guard let value = Double(raw), value.isFinite, range.contains(value) else {
            throw error(key, "must be a number from \(range.lowerBound.formatted()) to \(range.upperBound.formatted()), not \"\(raw)\"")
        }
        return value
    }

    private func choice<Choice: RawRepresentable & CaseIterable>(_ key: String, default defaultValue: Choice) throws(ConfigurationError) -> Choice
    where Choice.RawValue == String {
        guard let raw = text(key) else { return defaultValue }
        guard let value = Choice(rawValue: raw.lowercased()) else {
            throw error(key, "must be one of \(Choice.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(raw)\"")
        }
        return value
    }

    private func error(_ key: String, _ problem: String) -> ConfigurationError {
        ConfigurationError(key: key, problem: problem, source: source(of: key))
    }

    /// Where a key's value came from: the environment variable, or the file.
    private func source(of key: String) -> String? {
        let variable = SettingsLoader.environmentVariable(for: key)
        if environment[variable] != nil { return "environment variable \(variable)" }
        return file
    }
}

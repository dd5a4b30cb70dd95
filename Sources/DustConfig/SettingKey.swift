import AirKorea
import Configuration
import DustKit
import Foundation
import Yams

/// One configuration key (docs/REFERENCE.md §11): its name, how its value is written and checked, its default,
/// and the field of `SettingValues` it sets.
///
/// `SettingKey.all` is the only list of keys: the file, the `DUSTD_…` variables, the error
/// messages and the test of the shipped `Config/dustd.yaml` all go by it.
struct SettingKey: Sendable {
    /// The dotted name, e.g. `poll.minute`.
    let name: String
    /// Whether a `DUSTD_…` variable can hold the value (a list of mappings cannot).
    let settableFromEnvironment: Bool
    /// False for a key that is unset unless configured (`station.name`, `api.serviceKeyFile`).
    let hasDefault: Bool
    /// Sets the key's field from the environment, else the file, else the default.
    let resolve: @Sendable (inout SettingValues, SettingSources) throws(ConfigurationError) -> ValueOrigin
    /// Whether a YAML node holds the declared default (checks that `Config/dustd.yaml` documents it).
    let isDefault: @Sendable (Node) throws(ValueProblem) -> Bool

    /// A key whose field is optional; `default` nil means unset unless configured.
    init<Value: Equatable>(
        _ name: String, _ shape: ValueShape<Value>, default defaultValue: Value?,
        _ field: WritableKeyPath<SettingValues, Value?> & Sendable
    ) {
        self.init(name, shape, defaultValue) { values, value in values[keyPath: field] = value }
    }

    /// A key that always has a value.
    init<Value: Equatable>(
        _ name: String, _ shape: ValueShape<Value>, default defaultValue: Value,
        _ field: WritableKeyPath<SettingValues, Value> & Sendable
    ) {
        self.init(name, shape, defaultValue) { values, value in
            if let value { values[keyPath: field] = value }
        }
    }

    private init<Value: Equatable>(
        _ name: String, _ shape: ValueShape<Value>, _ defaultValue: Value?,
        write: @escaping @Sendable (inout SettingValues, Value?) -> Void
    ) {
        self.name = name
        settableFromEnvironment = shape.fromEnvironment != nil
        hasDefault = defaultValue != nil
        resolve = { values, sources throws(ConfigurationError) in
            guard case (let value, let origin)? = try sources.value(of: name, shape) else {
                write(&values, defaultValue)
                return .defaultValue
            }
            write(&values, value)
            return origin
        }
        isDefault = { node throws(ValueProblem) in try shape.fromFile(node) == defaultValue }
    }
}

extension SettingKey {
    /// Every key, in the order of docs/REFERENCE.md §11 and `Config/dustd.yaml`. Adding a key is one line here,
    /// one field in `SettingValues` (or the public settings) and one documented line in the YAML.
    static let all: [SettingKey] = [
        SettingKey("station.name", .displayText, default: nil, \.station.name),
        SettingKey("station.fallbacks", .list(of: .displayText), default: [], \.station.fallbacks),
        SettingKey("station.mode", .choice, default: StationMode.single, \.station.mode),
        SettingKey("api.baseURL", .webAddress, default: AirKoreaEndpoint.defaultBaseURL, \.api.baseURL),
        SettingKey("api.version", .text, default: "1.5", \.api.version),
        SettingKey("api.timeoutSeconds", .number(in: 1...600), default: 30, \.api.timeoutSeconds),
        SettingKey("api.serviceKeyFile", .text, default: nil, \.api.serviceKeyFile),
        SettingKey("poll.minute", .integer(in: 0...59), default: 20, \.poll.minute),
        SettingKey("poll.jitterSeconds", .integer(in: 0...3000), default: 60, \.poll.jitterSeconds),
        SettingKey("poll.intervalSeconds", .integer(in: 1...86_400), default: 3600, \.poll.intervalSeconds),
        SettingKey("poll.retryInitialSeconds", .integer(in: 1...86_400), default: 30, \.poll.retryInitialSeconds),
        SettingKey("poll.retryMaxSeconds", .integer(in: 1...86_400), default: 900, \.poll.retryMaxSeconds),
        SettingKey("storage.path", .text, default: SettingsLoader.defaultStoragePath, \.storagePath),
        // The zone database always has Asia/Seoul; AirKorea's fixed +09:00 is the same clock.
        SettingKey("timezone", .timeZone, default: TimeZone(identifier: "Asia/Seoul") ?? KoreaStandardTime.timeZone, \.timeZone),
        SettingKey("intake.model", .intakeModel, default: .ventilation, \.intakeModel),
        SettingKey("intake.infiltration", .number(in: 0...1), default: 0.7, \.infiltration),
        SettingKey(
            "intake.ventilation.sleep", .number(in: 0...100), default: VentilationIntakeModel.defaultRates[.sleep],
            \.ventilationRates[.sleep]),
        SettingKey(
            "intake.ventilation.sedentary", .number(in: 0...100), default: VentilationIntakeModel.defaultRates[.sedentary],
            \.ventilationRates[.sedentary]),
        SettingKey(
            "intake.ventilation.light", .number(in: 0...100), default: VentilationIntakeModel.defaultRates[.light],
            \.ventilationRates[.light]),
        SettingKey(
            "intake.ventilation.moderate", .number(in: 0...100), default: VentilationIntakeModel.defaultRates[.moderate],
            \.ventilationRates[.moderate]),
        SettingKey(
            "intake.ventilation.high", .number(in: 0...100), default: VentilationIntakeModel.defaultRates[.high], \.ventilationRates[.high]),
        SettingKey("intake.schedule", .list(of: .scheduleEntry), default: VentilationIntakeModel.defaultSchedule, \.schedule),
        SettingKey("log.level", .choice, default: LogLevel.info, \.logLevel),
        SettingKey("http.listen", .listenAddress, default: HTTPSettings.defaultListen, \.http.listen),
        SettingKey("http.tokenFile", .text, default: nil, \.http.tokenFile),
        SettingKey("forecast.enabled", .boolean, default: true, \.forecast.enabled),
        SettingKey("forecast.region", .forecastRegion, default: nil, \.forecast.region),
        SettingKey("alerts.rules", .list(of: .alertRule), default: [], \.alerts.rules),
        SettingKey("alerts.sinks", .list(of: .alertSink), default: [], \.alerts.sinks),
        SettingKey("alerts.quietHours", .quietHours, default: nil, \.alerts.quietHours),
        SettingKey("alerts.retryInitialSeconds", .integer(in: 1...86_400), default: 30, \.alerts.retryInitialSeconds),
        SettingKey("alerts.maxAttempts", .integer(in: 1...20), default: 5, \.alerts.maxAttempts),
        SettingKey("activity.maxInflatedBytes", .integer(in: (1 << 20)...(1 << 50)), default: 64 << 30, \.activityMaxInflatedBytes),
    ]
}

// MARK: - Shapes of FineDust's own values

/// `intake.model`.
enum IntakeModelName: String, Sendable, CaseIterable {
    case ventilation, boostcamp
}

extension ValueShape where Value == IntakeModelName {
    /// `ventilation` or `boostcamp`.
    static var intakeModel: ValueShape {
        .scalar { text throws(ValueProblem) in
            guard let name = IntakeModelName(rawValue: text.lowercased()) else {
                throw ValueProblem("must be ventilation or boostcamp, not \"\(text)\"")
            }
            return name
        }
    }
}

extension ValueShape where Value == ScheduleEntry {
    /// `{from, to, activity, outdoors}`: local hours, an activity level, and the fraction of the
    /// time spent outdoors (0 when left out).
    static var scheduleEntry: ValueShape {
        .record(["from", "to", "activity", "outdoors"]) { fields throws(ValueProblem) in
            let from = try fields.required("from", .hour(in: 0...23))
            let to = try fields.required("to", .hour(in: 1...24))
            guard from < to else {
                throw ValueProblem("must be later than from (\(from))").inside(".to")
            }
            return ScheduleEntry(
                fromHour: from, toHour: to, activity: try fields.required("activity", .choice),
                outdoors: try fields.optional("outdoors", .number(in: 0...1)) ?? 0)
        }
    }
}

extension ValueShape where Value == String {
    /// `host:port` to serve on, or `off` (stored as empty) to serve nothing.
    static var listenAddress: ValueShape {
        .scalar { text throws(ValueProblem) in
            if ["off", "none", "disabled"].contains(text.lowercased()) { return "" }
            guard HTTPSettings.address(text) != nil else {
                throw ValueProblem("must be host:port such as 127.0.0.1:8478 (or off), not \"\(text)\"")
            }
            return text
        }
    }
}

extension ValueShape where Value == Bool {
    /// `true`/`false` (also `yes`/`no`, `on`/`off`), in any letter case.
    static var boolean: ValueShape {
        .scalar { text throws(ValueProblem) in
            switch text.lowercased() {
            case "true", "yes", "on": return true
            case "false", "no", "off": return false
            default: throw ValueProblem("must be true or false, not \"\(text)\"")
            }
        }
    }
}

extension ValueShape where Value == ForecastRegion {
    /// One of the 19 forecast regions as AirKorea names them (`서울`, `경기북부`, `영동`, …; also `강원영동`).
    static var forecastRegion: ValueShape {
        .scalar { text throws(ValueProblem) in
            guard let region = ForecastRegion(name: text) else {
                throw ValueProblem(
                    "must be one of the forecast regions \(ForecastRegion.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(TerminalSafeText.sanitized(text))\""
                )
            }
            return region
        }
    }
}

extension ValueShape where Value == AlertRule {
    /// `{when: pm25.grade >= 3}`, or the condition alone.
    static var alertRule: ValueShape {
        let condition = ValueShape.scalar { text throws(ValueProblem) in
            do throws(AlertRuleError) {
                return try AlertRule(parsing: text)
            } catch {
                throw ValueProblem(error.description)
            }
        }
        let record = ValueShape.record(["when"]) { fields throws(ValueProblem) in try fields.required("when", condition) }
        return ValueShape(
            fromFile: { node throws(ValueProblem) in
                if case .mapping = node { return try record.fromFile(node) }
                return try condition.fromFile(node)
            }, fromEnvironment: nil)
    }
}

extension ValueShape where Value == AlertSinkSetting {
    /// `{ntfy: URL, tokenFile: PATH}`, `{webhook: URL}` or `{command: [argv…], timeoutSeconds: N}`.
    static var alertSink: ValueShape {
        .record(["ntfy", "webhook", "command", "tokenFile", "timeoutSeconds"]) { fields throws(ValueProblem) in
            let kinds = ["ntfy", "webhook", "command"].filter { fields.nodes[$0] != nil }
            guard kinds.count == 1 else {
                throw ValueProblem("must name exactly one of ntfy, webhook or command")
            }
            if kinds != ["ntfy"], fields.nodes["tokenFile"] != nil {
                throw ValueProblem("has a tokenFile, which only an ntfy sink uses")
            }
            if kinds != ["command"], fields.nodes["timeoutSeconds"] != nil {
                throw ValueProblem("has a timeoutSeconds, which only a command sink uses")
            }
            switch kinds[0] {
            case "ntfy":
                return .ntfy(url: try fields.required("ntfy", .secretWebAddress), tokenFile: try fields.optional("tokenFile", .text))
            case "webhook":
                return .webhook(url: try fields.required("webhook", .secretWebAddress))
            default:
                let arguments = try fields.required("command", .list(of: .text))
                guard let program = arguments.first, program.hasPrefix("/") else {
                    throw ValueProblem("must start with the program's absolute path (it runs without a shell or PATH)").inside(".command")
                }
                return .command(arguments: arguments, timeoutSeconds: try fields.optional("timeoutSeconds", .number(in: 1...300)) ?? 10)
            }
        }
    }
}

extension ValueShape where Value == QuietHours {
    /// `{from: 22, to: 7}`: local hours, wrapping midnight.
    /// `quietHours:` with nothing after it is the default, none.
    static var quietHours: ValueShape {
        let record = ValueShape.record(["from", "to"]) { fields throws(ValueProblem) in
            QuietHours(fromHour: try fields.required("from", .hour(in: 0...23)), toHour: try fields.required("to", .hour(in: 0...24)))
        }
        return ValueShape(
            fromFile: { node throws(ValueProblem) in
                if case .scalar(let scalar) = node, scalar.text == nil { return nil }
                return try record.fromFile(node)
            }, fromEnvironment: nil)
    }
}

// MARK: - Reading

/// Every key's value while the settings are read. Each key of `SettingKey.all` sets its field
/// (to the declared default when neither the environment nor the file gives a value) before
/// `settings(origins:configurationFile:)` checks them together; the initial values below are
/// placeholders that no key leaves in place.
struct SettingValues {
    var station = StationSettings(name: nil, fallbacks: [], mode: .single)
    var api = APISettings(baseURL: "", version: "", timeoutSeconds: 0, serviceKeyFile: nil)
    var poll = PollSettings(minute: 0, jitterSeconds: 0, intervalSeconds: 0, retryInitialSeconds: 0, retryMaxSeconds: 0)
    var storagePath = ""
    var timeZone = TimeZone.gmt
    var intakeModel = IntakeModelName.ventilation
    var infiltration = 0.0
    var ventilationRates: [ActivityLevel: Double] = [:]
    var schedule: [ScheduleEntry] = []
    var logLevel = LogLevel.info
    var http = HTTPSettings(listen: "", tokenFile: nil)
    var forecast = ForecastSettings(enabled: true, region: nil)
    var alerts = AlertSettings()
    var activityMaxInflatedBytes = 0

    /// The settings, after the checks that involve more than one key.
    func settings(origins: [String: ValueOrigin], configurationFile: String?) throws(ConfigurationError) -> FineDustSettings {
        // One rule, one state: the same condition twice would announce everything twice.
        var firstIndex: [String: Int] = [:]
        for (index, rule) in alerts.rules.enumerated() {
            if let first = firstIndex[rule.description] {
                throw ConfigurationError(
                    key: "alerts.rules[\(index)]", problem: "is the same rule as alerts.rules[\(first)] (\(rule.description))",
                    source: origins["alerts.rules"]?.source)
            }
            firstIndex[rule.description] = index
        }
        guard poll.retryMaxSeconds >= poll.retryInitialSeconds else {
            // Blame the key that was set: when the maximum is its default, the first delay is too long.
            if origins["poll.retryMaxSeconds"] == .defaultValue {
                throw ConfigurationError(
                    key: "poll.retryInitialSeconds", problem: "must be at most poll.retryMaxSeconds (\(poll.retryMaxSeconds))",
                    source: origins["poll.retryInitialSeconds"]?.source)
            }
            throw ConfigurationError(
                key: "poll.retryMaxSeconds", problem: "must be at least poll.retryInitialSeconds (\(poll.retryInitialSeconds))",
                source: origins["poll.retryMaxSeconds"]?.source)
        }
        let ventilation: VentilationIntakeModel
        do {
            ventilation = try VentilationIntakeModel(infiltration: infiltration, rates: ventilationRates, schedule: schedule)
        } catch {
            // Each value is in range by now, so what is left is the schedule's coverage of the day.
            throw ConfigurationError(key: nil, problem: error.description, source: origins["intake.schedule"]?.source)
        }
        let intake: any IntakeModel =
            switch intakeModel {
            case .ventilation: ventilation
            case .boostcamp: BoostcampIntakeModel()
            }
        return FineDustSettings(
            station: station, api: api, poll: poll, storagePath: storagePath, calendar: DayCalendar(timeZone: timeZone),
            intakeModel: intake, logLevel: logLevel, http: http, forecast: forecast, alerts: alerts, configurationFile: configurationFile,
            activityMaxInflatedBytes: Int64(activityMaxInflatedBytes))
    }
}

/// Where a key's value came from, so an error says where to fix it.
enum ValueOrigin: Sendable, Hashable {
    case environment(variable: String)
    case file(path: String, line: Int?)
    case defaultValue

    /// The `source` of a `ConfigurationError` about the value.
    var source: String? {
        switch self {
        case .environment(let variable): "environment variable \(variable)"
        case .file(let path, let line): line.map { "\(path), line \($0)" } ?? path
        case .defaultValue: nil
        }
    }
}

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

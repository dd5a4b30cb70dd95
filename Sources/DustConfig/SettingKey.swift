import AirKorea
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
        SettingKey("storage.url", .postgresURL, default: nil, \.postgres),
        SettingKey("storage.passwordFile", .text, default: nil, \.storagePasswordFile),
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
        SettingKey("people", .list(of: .person), default: [], \.people),
        SettingKey("log.level", .choice, default: LogLevel.info, \.logLevel),
        SettingKey("http.listen", .listenAddress, default: HTTPSettings.defaultListen, \.http.listen),
        SettingKey("http.tokenFile", .text, default: nil, \.http.tokenFile),
        SettingKey("http.hostNames", .list(of: .hostName), default: [], \.http.hostNames),
        SettingKey("http.trustedProxies", .list(of: .ipAddress), default: [], \.http.trustedProxies),
        SettingKey("indoor.sampleSeconds", .integer(in: 10...3600), default: 60, \.indoor.sampleSeconds),
        SettingKey("indoor.homeAssistantTokenFile", .text, default: nil, \.indoor.homeAssistantTokenFile),
        SettingKey("indoor.sensors", .list(of: .indoorSensor), default: [], \.indoor.sensors),
        SettingKey("retention.positionsDays", .integer(in: 1...36_500), default: 400, \.retention.positionsDays),
        SettingKey("retention.samplesDays", .integer(in: 1...36_500), default: 400, \.retention.samplesDays),
        SettingKey("forecast.enabled", .boolean, default: true, \.forecast.enabled),
        SettingKey("forecast.region", .forecastRegion, default: nil, \.forecast.region),
        SettingKey("advisories.enabled", .boolean, default: true, \.advisories.enabled),
        SettingKey("advisories.district", .advisoryDistrict, default: nil, \.advisories.district),
        SettingKey("advisories.area", .displayText, default: nil, \.advisories.area),
        SettingKey("alerts.rules", .list(of: .alertRule), default: [], \.alerts.rules),
        SettingKey("alerts.sinks", .list(of: .alertSink), default: [], \.alerts.sinks),
        SettingKey("alerts.quietHours", .quietHours, default: nil, \.alerts.quietHours),
        SettingKey("alerts.retryInitialSeconds", .integer(in: 1...86_400), default: 30, \.alerts.retryInitialSeconds),
        SettingKey("alerts.maxAttempts", .integer(in: 1...20), default: 5, \.alerts.maxAttempts),
        SettingKey("alerts.clearAfterMinutes", .integer(in: 0...1440), default: 60, \.alerts.clearAfterMinutes),
        SettingKey("alerts.language", .choice, default: AlertLanguage.ko, \.alerts.language),
        SettingKey("activity.maxInflatedBytes", .integer(in: (1 << 20)...(1 << 50)), default: 64 << 30, \.activityMaxInflatedBytes),
        SettingKey(
            "location.radiusKm", .positiveNumber(atMost: 100), default: InverseDistanceWeighting.defaultRadiusKilometres,
            \.location.radiusKilometres),
    ]
}

import DustKit
import Foundation

/// `indoor.*` (docs/REFERENCE.md §21): the home's own monitors and how often dustd asks them.
public struct IndoorSettings: Sendable, Hashable {
    /// `indoor.sampleSeconds`: how often each sensor is asked (10–3600).
    public var sampleSeconds: Int
    /// `indoor.homeAssistantTokenFile`: the file holding Home Assistant's long-lived access token.
    public var homeAssistantTokenFile: String?
    public var sensors: [IndoorSensorSettings]

    public init(sampleSeconds: Int = 60, homeAssistantTokenFile: String? = nil, sensors: [IndoorSensorSettings] = []) {
        self.sampleSeconds = sampleSeconds
        self.homeAssistantTokenFile = homeAssistantTokenFile
        self.sensors = sensors
    }

    /// The sensors dustd asks: every kind but `import`, whose samples come only from files. Only
    /// these have a state of dustd's (a problem, the last answer) to show.
    public var askedSensorNames: Set<String> { Set(sensors.filter { $0.kind != .imported }.map(\.name)) }

    /// The systemd credential that holds Home Assistant's token (`LoadCredential=homeassistant-token:…`).
    public static let tokenCredential = "homeassistant-token"

    /// Home Assistant's token: the credential, else `homeAssistantTokenFile`; nil when neither is set
    /// up. Errors name the credential or the key, never the token.
    public func homeAssistantToken(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigurationError) -> PostgresPasswordLoader.Loaded {
        try PostgresPasswordLoader.load(
            credential: Self.tokenCredential, file: homeAssistantTokenFile, key: "indoor.homeAssistantTokenFile",
            role: "the token file", noun: "token", fallback: "using indoor.homeAssistantTokenFile", environment: environment)
    }
}

/// What kind of monitor a sensor is, and so how dustd asks it.
public enum IndoorSensorKind: String, Sendable, Hashable, CaseIterable {
    /// AirGradient's local server: `GET /measures/current`.
    case airgradient
    /// PurpleAir's local JSON: `GET /json`.
    case purpleair
    /// Home Assistant's REST API: `GET /api/states/ENTITY`.
    case homeassistant
    /// Samples come only from `dustctl indoor import` (a monitor with an export and no local API).
    case imported = "import"
}

/// PurpleAir's optional correction.
public enum PurpleAirCorrection: String, Sendable, Hashable, CaseIterable {
    /// EPA's US-wide correction (Barkjohn et al. 2021).
    case epa2021 = "epa-2021"
}

/// One entry of `indoor.sensors`.
public struct IndoorSensorSettings: Sendable, Hashable {
    /// `[a-z0-9_-]{1,32}`.
    public var name: String
    public var kind: IndoorSensorKind
    /// `http://HOST[:PORT]`: where the monitor (or Home Assistant) answers; nil for `import`.
    public var url: String?
    /// Home Assistant's entity, `sensor.…`.
    public var entity: String?
    /// What a Home Assistant entity measures (`pm25` unless told); the other kinds give both.
    public var pollutant: Pollutant
    public var correction: PurpleAirCorrection?
    /// Who lives where the sensor stands; nil: every person.
    public var people: [String]?

    public init(
        name: String, kind: IndoorSensorKind, url: String? = nil, entity: String? = nil, pollutant: Pollutant = .pm25,
        correction: PurpleAirCorrection? = nil, people: [String]? = nil
    ) {
        self.name = name
        self.kind = kind
        self.url = url
        self.entity = entity
        self.pollutant = pollutant
        self.correction = correction
        self.people = people
    }

    /// Whether `name` can name a sensor: `[a-z0-9_-]{1,32}`.
    public static func isValidName(_ name: String) -> Bool {
        (1...32).contains(name.unicodeScalars.count)
            && name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
    }
}

extension ValueShape where Value == IndoorSensorSettings {
    /// `{name, kind, url, entity, pollutant, correction, people}`; a problem names the sensor.
    static var indoorSensor: ValueShape {
        .record(["name", "kind", "url", "entity", "pollutant", "correction", "people"]) { fields throws(ValueProblem) in
            let name = try fields.required("name", .sensorName)
            do throws(ValueProblem) {
                let kind: IndoorSensorKind = try fields.required("kind", .choice)
                let url = try fields.optional("url", .sensorAddress)
                let entity = try fields.optional("entity", .homeAssistantEntity)
                switch kind {
                case .imported:
                    guard url == nil else { throw ValueProblem("is set, but an import sensor is not asked; remove it").inside(".url") }
                default:
                    guard url != nil else {
                        throw ValueProblem("is missing: where the monitor answers, e.g. http://192.168.0.40").inside(".url")
                    }
                }
                if kind == .homeassistant {
                    guard entity != nil else {
                        throw ValueProblem("is missing: the Home Assistant entity, e.g. sensor.living_room_pm25").inside(".entity")
                    }
                } else {
                    guard entity == nil else { throw ValueProblem("is only for a homeassistant sensor").inside(".entity") }
                    guard fields.nodes["pollutant"] == nil else {
                        throw ValueProblem("is only for a homeassistant sensor").inside(".pollutant")
                    }
                }
                let correction: PurpleAirCorrection? = try fields.optional("correction", .choice)
                if correction != nil, kind != .purpleair {
                    throw ValueProblem("is only for a purpleair sensor").inside(".correction")
                }
                return IndoorSensorSettings(
                    name: name, kind: kind, url: url, entity: entity, pollutant: try fields.optional("pollutant", .choice) ?? .pm25,
                    correction: correction, people: try fields.optional("people", .list(of: .personName)))
            } catch {
                var named = error
                named.problem = "(\(name)) " + error.problem
                throw named
            }
        }
    }
}

extension ValueShape where Value == String {
    /// `[a-z0-9_-]{1,32}`: a sensor's name, used on the command line, in metrics and in the database.
    static var sensorName: ValueShape {
        .scalar { text throws(ValueProblem) in
            guard IndoorSensorSettings.isValidName(text) else {
                throw ValueProblem("must be 1 to 32 of a-z, 0-9, _ and -, not \(ValueProblem.quoted(text))")
            }
            return text
        }
    }

    /// `http://HOST[:PORT]` (or https) with nothing after the host: dustd adds the documented path.
    static var sensorAddress: ValueShape {
        .scalar { text throws(ValueProblem) in
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), let host = url.host,
                !host.isEmpty, hasValidPort(url, written: text)
            else { throw ValueProblem("must be http://HOST or http://HOST:PORT, not \(ValueProblem.quoted(text))") }
            guard url.user == nil, url.password == nil, url.query == nil, url.fragment == nil, ["", "/"].contains(url.path) else {
                throw ValueProblem(
                    "must be http://HOST or http://HOST:PORT with nothing after it (dustd adds the path; a token goes in a file), not \(ValueProblem.quoted(text))"
                )
            }
            return text.hasSuffix("/") ? String(text.dropLast()) : text
        }
    }

    /// `sensor.` followed by `[a-z0-9_]`: a Home Assistant entity id.
    static var homeAssistantEntity: ValueShape {
        .scalar { text throws(ValueProblem) in
            let id = text.unicodeScalars
            guard text.hasPrefix("sensor."), id.count > 7, id.count <= 255,
                id.dropFirst(7).allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" })
            else {
                throw ValueProblem("must be a sensor entity such as sensor.living_room_pm25, not \(ValueProblem.quoted(text))")
            }
            return text
        }
    }
}

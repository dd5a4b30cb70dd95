import DustKit
import Foundation

extension SettingValues {
    /// The settings, after the checks that involve more than one key.
    func settings(origins: [String: ValueOrigin], configurationFile: String?) throws(ConfigurationError) -> FineDustSettings {
        // One rule, one state per person: the same condition twice for one person would announce
        // everything twice. A rule for everyone covers each person's rule of the same condition.
        var earlier: [(index: Int, rule: AlertRule)] = []
        var warnings: [String] = []
        for (index, rule) in alerts.rules.enumerated() {
            if let first = earlier.first(where: { $0.rule.description == rule.description && Self.overlap($0.rule, rule) }) {
                let whom = first.rule.person == nil && rule.person != nil ? ", which is already every person's" : ""
                throw ConfigurationError(
                    key: "alerts.rules[\(index)]",
                    problem: "is the same rule as alerts.rules[\(first.index)] (\(rule.description))\(whom)",
                    source: origins["alerts.rules"]?.source)
            }
            // The same condition written two ways (`> 2`, `>= 3` of a grade): each episode announced twice.
            // A warning, not a refusal: a configuration an older FineDust accepted still starts.
            if let first = earlier.first(where: { $0.rule.condition == rule.condition && Self.overlap($0.rule, rule) }) {
                warnings.append(
                    "alerts.rules[\(index)] (\(rule.description)) is the same condition as alerts.rules[\(first.index)] "
                        + "(\(first.rule.description)): the values are whole, so every episode is announced twice; remove one")
            }
            earlier.append((index, rule))
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
        try checkStorage(origins: origins)
        let ventilation: VentilationIntakeModel
        do {
            ventilation = try VentilationIntakeModel(infiltration: infiltration, rates: ventilationRates, schedule: schedule)
        } catch var error {
            // Each value is in range by now, so what is left is the schedule's coverage of the day.
            error.source = origins["intake.schedule"]?.source
            throw error
        }
        let intake: any IntakeModel =
            switch intakeModel {
            case .ventilation: ventilation
            case .boostcamp: BoostcampIntakeModel()
            }
        var http = http
        var people = try household(source: origins["people"]?.source, personTokens: &http.personTokenFiles)
        try placeSensors(in: &people, source: origins["indoor.sensors"]?.source)
        for (index, rule) in alerts.rules.enumerated() {
            if let name = rule.person, !people.contains(where: { $0.name == name }) {
                throw ConfigurationError(
                    key: "alerts.rules[\(index)].person",
                    problem:
                        "(\(TerminalSafeText.sanitized(name))) is not a configured person; configured people: \(people.map(\.name).joined(separator: ", "))",
                    source: origins["alerts.rules"]?.source)
            }
        }
        var settings = FineDustSettings(
            station: station, api: api, poll: poll, storagePath: storagePath, postgres: postgres,
            storagePasswordFile: storagePasswordFile, calendar: DayCalendar(timeZone: timeZone),
            intakeModel: intake, logLevel: logLevel, http: http, forecast: forecast, alerts: alerts, advisories: advisories,
            configurationFile: configurationFile,
            activityMaxInflatedBytes: Int64(activityMaxInflatedBytes),
            people: people, location: location, retention: retention, indoor: indoor)
        settings.warnings += warnings
        return settings
    }

    /// One database: `storage.path` and `storage.url` are not both set, and a password file belongs to a URL.
    private func checkStorage(origins: [String: ValueOrigin]) throws(ConfigurationError) {
        let placed = { (key: String) in origins[key]?.source.map { " (in \($0))" } ?? "" }
        if postgres != nil, let pathOrigin = origins["storage.path"], pathOrigin != .defaultValue {
            throw ConfigurationError(
                key: nil,
                problem:
                    "storage.path\(placed("storage.path")) and storage.url\(placed("storage.url")) are both set; keep one: remove storage.path (or leave it empty) to use PostgreSQL, or remove storage.url to use SQLite"
            )
        }
        if postgres == nil, storagePasswordFile != nil {
            throw ConfigurationError(
                key: "storage.passwordFile",
                problem:
                    "is set but storage.url is not; the password is for a PostgreSQL database: set storage.url, or remove storage.passwordFile",
                source: origins["storage.passwordFile"]?.source)
        }
    }

    /// Each sensor's people exist, each name is one sensor's, and each person learns the sensors
    /// where they live (every sensor without `people`).
    private func placeSensors(in people: inout [Person], source: String?) throws(ConfigurationError) {
        guard indoor.sensors.count <= Self.mostSensors else {
            throw ConfigurationError(
                key: "indoor.sensors",
                problem: "lists \(indoor.sensors.count) sensors; FineDust asks at most \(Self.mostSensors) (each is asked every minute)",
                source: source)
        }
        var firstIndex: [String: Int] = [:]
        for (index, sensor) in indoor.sensors.enumerated() {
            if let first = firstIndex[sensor.name] {
                throw ConfigurationError(
                    key: "indoor.sensors[\(index)].name",
                    problem: "(\(sensor.name)) is already the name of indoor.sensors[\(first)]; names must be unique", source: source)
            }
            firstIndex[sensor.name] = index
            if sensor.people?.isEmpty == true {
                // A sensor counted for nobody: sampled and stored, in no one's dose, on no page.
                throw ConfigurationError(
                    key: "indoor.sensors[\(index)].people",
                    problem: "(\(sensor.name)) is an empty list: name who lives where it stands, or leave people out for everyone",
                    source: source)
            }
            for name in sensor.people ?? [] where !people.contains(where: { $0.name == name }) {
                throw ConfigurationError(
                    key: "indoor.sensors[\(index)].people",
                    problem:
                        "(\(sensor.name)) names \(name), who is not a configured person; configured people: \(people.map(\.name).joined(separator: ", "))",
                    source: source)
            }
            for index in people.indices where sensor.people?.contains(people[index].name) ?? true {
                people[index].indoorSensors.append(sensor.name)
            }
        }
    }

    /// Whether two rules are about at least one common person.
    private static func overlap(_ one: AlertRule, _ other: AlertRule) -> Bool {
        one.person == nil || other.person == nil || one.person == other.person
    }

    /// The most people `people:` may list: a household, with room for a shared house. A week of 1,000
    /// (a generated file) held 160 KB a person for `week --everyone`, and eight of the web's household
    /// pages at once took dustd to 602 MB, past the unit's `MemoryMax=`.
    static let mostPeople = 32
    /// The most monitors `indoor.sensors` may list; each is asked every minute.
    static let mostSensors = 32

    /// `people:` with each person's left-out keys taken from `station.name` and `intake.*`; without
    /// `people:`, the one person `me` holding exactly those settings (docs/REFERENCE.md §18).
    private func household(source: String?, personTokens: inout [PersonTokenFile]) throws(ConfigurationError) -> [Person] {
        guard !people.isEmpty else {
            return [Person(name: Person.defaultName, station: station.name, infiltration: infiltration, schedule: schedule)]
        }
        guard people.count <= Self.mostPeople else {
            throw ConfigurationError(
                key: "people",
                problem: "lists \(people.count) people; FineDust keeps a household of at most \(Self.mostPeople) (each person's day, week "
                    + "and page are computed from their own hours)",
                source: source)
        }
        var firstIndex: [String: Int] = [:]
        var household: [Person] = []
        for (index, entry) in people.enumerated() {
            if let first = firstIndex[entry.name] {
                throw ConfigurationError(
                    key: "people[\(index)].name", problem: "(\(entry.name)) is already the name of people[\(first)]; names must be unique",
                    source: source)
            }
            firstIndex[entry.name] = index
            let person = Person(
                name: entry.name, born: entry.born, sex: entry.sex, station: entry.station ?? station.name,
                infiltration: entry.infiltration ?? infiltration, schedule: entry.schedule ?? schedule,
                restingHeartRate: entry.restingHeartRate, home: entry.home)
            if entry.schedule != nil {
                do {
                    _ = try VentilationIntakeModel(infiltration: person.infiltration, rates: ventilationRates, schedule: person.schedule)
                } catch {
                    throw ConfigurationError(key: "people[\(index)].schedule", problem: "(\(entry.name)) \(error.problem)", source: source)
                }
            }
            household.append(person)
            if let file = entry.tokenFile { personTokens.append(PersonTokenFile(person: entry.name, path: file)) }
        }
        return household
    }
}

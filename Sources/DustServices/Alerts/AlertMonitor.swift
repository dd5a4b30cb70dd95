import DustKit
import Foundation

/// One announcement: a rule fired or cleared (or a test from `dustctl alerts test`).
public struct AlertEvent: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, Codable {
        case fired, cleared, test
    }

    /// The id the store gave it (deliveries are recorded against it); 0 before it is stored.
    public var id: Int64
    public var kind: Kind
    /// The rule as written, normalised (`pm25.grade >= 3`); empty for a test.
    public var rule: String
    public var metric: AlertMetric?
    public var value: Double?
    public var station: String
    public var at: Date
    /// Whom it concerns, in the configured order, when the household has more than one person
    /// (docs/REFERENCE.md §18); empty otherwise, and then nothing names anyone.
    public var people: [String]

    public init(
        id: Int64 = 0, kind: Kind, rule: String, metric: AlertMetric?, value: Double?, station: String, at: Date,
        people: [String] = []
    ) {
        self.id = id
        self.kind = kind
        self.rule = rule
        self.metric = metric
        self.value = value
        self.station = station
        self.at = at
        self.people = people
    }

    /// The rule and whom it concerns as one text, `pm25.grade >= 3 for dad, 민지` (the rule alone
    /// when it names nobody): how the event is recorded, and what a newer event of the same rule
    /// and people replaces.
    public var recordedRule: String {
        people.isEmpty ? rule : "\(rule) for \(people.joined(separator: ", "))"
    }

    /// Splits a `recordedRule` back into the rule and the people (a rule's text never holds ` for `).
    public static func parse(recordedRule: String) -> (rule: String, people: [String]) {
        guard let range = recordedRule.range(of: " for ") else { return (recordedRule, []) }
        let names = recordedRule[range.upperBound...].components(separatedBy: ", ")
        return (String(recordedRule[..<range.lowerBound]), names)
    }

    /// One line for a phone, in Korean and English: `PM2.5 나쁨 (bad) at 종로구 — rule pm25.grade >= 3`.
    public var title: String {
        switch kind {
        case .test: "FineDust test alert"
        case .fired: "FineDust: \(what)\(forWhom)"
        case .cleared: "FineDust: cleared, \(what)\(forWhom)"
        }
    }

    /// The message body.
    public var message: String {
        switch kind {
        case .test:
            return "A test from dustctl alerts test (\(station)). If you read this, the alert reaches you."
        case .fired:
            return "\(what) at \(station)\(forWhom). Rule: \(rule)."
        case .cleared:
            return "No longer \(rule) at \(station)\(forWhom): now \(what)."
        }
    }

    /// ` for dad, 민지`; empty when the event names nobody.
    private var forWhom: String { people.isEmpty ? "" : " for \(people.joined(separator: ", "))" }

    /// `PM2.5 나쁨 (bad)`, `PM10 intake today 412.5 µg`, `tomorrow's PM2.5 forecast 나쁨 (bad)`.
    private var what: String {
        guard let metric else { return "test" }
        let subject = metric.subjectName
        let valueText: String
        if metric.isGrade, let value, let grade = DustGrade(rawValue: Int(value)) {
            valueText = grade.bilingualName
        } else if let value {
            valueText = fixedDecimals(value, 1) + (metric.isGrade ? "" : " µg")
        } else {
            valueText = "unknown"
        }
        switch metric {
        case .pm10Grade, .pm25Grade, .o3Grade, .no2Grade, .coGrade, .so2Grade, .khaiGrade: return "\(subject) \(valueText)"
        case .forecastTomorrowPM10, .forecastTomorrowPM25: return "tomorrow's \(subject) forecast \(valueText)"
        case .intakeTodayPM10, .intakeTodayPM25: return "\(subject) intake today \(valueText)"
        case .outlookHighDays:
            return "\(value.map { String(Int($0)) } ?? "unknown") of the weekly outlook's days 높음 (high) for \(subject)"
        case .advisoryLevel:
            let level = value.flatMap { Int(exactly: $0) }
            return level.map { $0 == 0 ? "no advisory in force" : "advisory \(Self.advisoryWords[$0, default: String($0)]) in force" }
                ?? "advisory unknown"
        }
    }
}

extension AlertEvent {
    /// The advisory levels' words (`advisory.level`).
    fileprivate static let advisoryWords = [1: "주의보 (watch)", 2: "경보 (warning)", 3: "중대경보 (emergency)"]
}

/// The values alert rules are checked against, at one instant; nil is unknown.
public struct AlertInputs: Sendable, Hashable {
    public var station: String
    public var values: [AlertMetric: Double]

    public init(station: String, values: [AlertMetric: Double]) {
        self.station = station
        self.values = values
    }
}

/// Tomorrow's forecast grades for the configured region, and the weekly outlook's 높음 days, when stored.
public protocol TomorrowForecastReader: Sendable {
    func tomorrowGrades(at now: Date) async throws(StorageFailure) -> DustPair<DustGrade?>
    /// The days of the weekly outlook marked 높음 for the region (docs/REFERENCE.md §17); nil when none is stored.
    func outlookHighDays(at now: Date) async throws(StorageFailure) -> Int?
}

/// The stored forecast for the station's region (or `forecast.region`), as the alerts see it: an
/// unknown region or an unknown grade word is no value, not a failure.
public struct StoredTomorrowForecast: TomorrowForecastReader {
    private let reader: ForecastReader
    private let station: String?
    private let region: ForecastRegion?

    public init(reader: ForecastReader, station: String?, region: ForecastRegion?) {
        self.reader = reader
        self.station = station
        self.region = region
    }

    public func tomorrowGrades(at now: Date) async throws(StorageFailure) -> DustPair<DustGrade?> {
        do {
            let outlook = try await reader.outlook(station: station, override: region, now: now)
            return outlook.tomorrowGrades.map { forecast -> DustGrade? in
                guard case .known(let grade)? = forecast?.grade else { return nil }
                return grade
            }
        } catch {
            switch error {
            case .region: return DustPair(repeating: nil)
            case .storage(let failure): throw failure
            }
        }
    }

    public func outlookHighDays(at now: Date) async throws(StorageFailure) -> Int? {
        do {
            let outlook = try await reader.outlook(station: station, override: region, now: now)
            return outlook.weekly?.highDays(for: outlook.region)
        } catch {
            switch error {
            case .region: return nil
            case .storage(let failure): throw failure
            }
        }
    }
}

/// One attempt to hand an event to a sink.
public struct AlertDelivery: Sendable, Hashable {
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// The sink took it.
        case delivered
        /// It failed; another attempt follows.
        case retrying
        /// It failed for the last time.
        case failed
    }

    public var eventID: Int64
    /// The sink's description (`ntfy https://ntfy.sh/…`, never a token).
    public var sink: String
    public var attempt: Int
    public var at: Date
    public var outcome: Outcome
    public var detail: String?

    public init(eventID: Int64, sink: String, attempt: Int, at: Date, outcome: Outcome, detail: String?) {
        self.eventID = eventID
        self.sink = sink
        self.attempt = attempt
        self.at = at
        self.outcome = outcome
        self.detail = detail
    }
}

/// The forecast and the advisories as one home station sees them: its forecast region, its
/// district (unless the configuration names one for the household).
public struct AlertRegionalReaders: Sendable {
    public var forecast: (any TomorrowForecastReader)?
    public var advisories: (any AdvisoryLevelReader)?

    public init(forecast: (any TomorrowForecastReader)?, advisories: (any AdvisoryLevelReader)?) {
        self.forecast = forecast
        self.advisories = advisories
    }
}

/// Checks the rules after each poll: computes the inputs from the stored data, moves each rule
/// through `AlertState.next` for each person it is about, stores the transitions and returns what
/// to announce.
///
/// Per person (docs/REFERENCE.md §18): `intake.today.*` is that person's own dose; every other
/// metric is about the air at their home station (its forecast region, its district). Each
/// (rule, person) has its own state under `AlertStateKey`, but one evaluation announces one change
/// of the air once: the people of one home station whose state moves the same way on the same
/// value share one event that names them all, so a household on one station gets one message per
/// change, not one per person.
public struct AlertMonitor: Sendable {
    private let rules: [AlertRule]
    private let quietHours: QuietHours?
    private let store: any AlertStore
    private let statistics: StatisticsService
    private let forecast: (any TomorrowForecastReader)?
    private let advisories: (any AdvisoryLevelReader)?
    private let people: [Person]
    private let regional: (@Sendable (_ station: String) -> AlertRegionalReaders)?

    /// - Parameters:
    ///   - people: the household, in the configured order; empty: the one person of `statistics`
    ///     (`me`), with `forecast` and `advisories`.
    ///   - regional: the forecast and advisories of a home station; nil: `forecast` and `advisories`
    ///     for every station.
    public init(
        rules: [AlertRule], quietHours: QuietHours?, store: any AlertStore, statistics: StatisticsService,
        forecast: (any TomorrowForecastReader)? = nil, advisories: (any AdvisoryLevelReader)? = nil,
        people: [Person] = [], regional: (@Sendable (_ station: String) -> AlertRegionalReaders)? = nil
    ) {
        self.advisories = advisories
        self.rules = rules
        self.quietHours = quietHours
        self.store = store
        self.statistics = statistics
        self.forecast = forecast
        self.people = people
        self.regional = regional
    }

    /// The values at `now` for the person of `statistics`: the latest hour's grades when that hour
    /// is under 3 hours old (older data is unknown, not "good"; at 00:20 the latest hour is
    /// yesterday's 23–24), today's intake, tomorrow's forecast.
    public func inputs(at now: Date) async throws(StorageFailure) -> AlertInputs {
        let today = statistics.calendar.date(containing: now)
        let days = try await statistics.days(from: today.adding(days: -1), through: today)
        return try await inputs(days, at: now, readers: AlertRegionalReaders(forecast: forecast, advisories: advisories))
    }

    /// Each person's values at `now`, by name, in the order of `people` (the one person of
    /// `statistics` when no people were given). The forecast and advisories are read once per home
    /// station.
    public func householdInputs(at now: Date) async throws(StorageFailure) -> [(person: String, inputs: AlertInputs)] {
        guard !people.isEmpty else { return [(statistics.person.name, try await inputs(at: now))] }
        let today = statistics.calendar.date(containing: now)
        let days = try await statistics.household(people, from: today.adding(days: -1), through: today)
        var readersOfStation: [String: AlertRegionalReaders] = [:]
        var result: [(person: String, inputs: AlertInputs)] = []
        for (person, personDays) in zip(people, days) {
            let station = personDays[1].station
            let readers =
                readersOfStation[station] ?? regional?(station) ?? AlertRegionalReaders(forecast: forecast, advisories: advisories)
            readersOfStation[station] = readers
            result.append((person.name, try await inputs(personDays, at: now, readers: readers)))
        }
        return result
    }

    /// The values of yesterday's and today's reports (`days`), the forecast and the advisory level.
    private func inputs(_ days: [DayReport], at now: Date, readers: AlertRegionalReaders) async throws(StorageFailure) -> AlertInputs {
        let calendar = statistics.calendar
        let day = days[1]
        var values: [AlertMetric: Double] = [:]
        if let latest = day.latest ?? days[0].latest, now.timeIntervalSince(latest.slot.end) < DaemonHealth.staleAfter {
            let date = calendar.date(containing: latest.slot.start)
            for (metric, pollutant) in [(AlertMetric.pm10Grade, Pollutant.pm10), (.pm25Grade, .pm25)] {
                if let concentration = latest.concentration[pollutant] {
                    values[metric] = Double(DustGrade(concentration: concentration, of: pollutant, on: date).rawValue)
                }
            }
        }
        // The gases' hour may differ from PM's: each metric reads the latest hour that had gases (docs/REFERENCE.md §17).
        if let latest = day.latestGases ?? days[0].latestGases, now.timeIntervalSince(latest.slot.end) < DaemonHealth.staleAfter {
            let grades = latest.gases.grade
            for metric in [AlertMetric.o3Grade, .no2Grade, .coGrade, .so2Grade] {
                if let gas = metric.gas, let grade = grades[gas] { values[metric] = Double(grade.rawValue) }
            }
            if let grade = latest.gases.caiGrade { values[.khaiGrade] = Double(grade.rawValue) }
        }
        if let intake = day.totals.intake.fineDust { values[.intakeTodayPM10] = intake }
        if let intake = day.totals.intake.ultraFineDust { values[.intakeTodayPM25] = intake }
        if let forecast = readers.forecast {
            let tomorrow = try await forecast.tomorrowGrades(at: now)
            if let grade = tomorrow.fineDust { values[.forecastTomorrowPM10] = Double(grade.rawValue) }
            if let grade = tomorrow.ultraFineDust { values[.forecastTomorrowPM25] = Double(grade.rawValue) }
            if let days = try await forecast.outlookHighDays(at: now) { values[.outlookHighDays] = Double(days) }
        }
        if let level = try await readers.advisories?.level(at: now) { values[.advisoryLevel] = Double(level) }
        return AlertInputs(station: day.station, values: values)
    }

    /// Evaluates every rule for every person it is about at `now`; returns the stored events to
    /// deliver, in rule order, then in the order of the people.
    public func evaluate(at now: Date) async throws(StorageFailure) -> [AlertEvent] {
        try await evaluate(householdInputs(at: now), at: now)
    }

    /// Evaluates every rule against given inputs, for the one person of `statistics` (or the first
    /// of `people`).
    public func evaluate(_ inputs: AlertInputs, at now: Date) async throws(StorageFailure) -> [AlertEvent] {
        try await evaluate([(people.first?.name ?? statistics.person.name, inputs)], at: now)
    }

    /// Evaluates every rule against each person's inputs. Events name their people only when the
    /// household has more than one person, so one person's announcements read as they always did.
    public func evaluate(_ household: [(person: String, inputs: AlertInputs)], at now: Date) async throws(StorageFailure) -> [AlertEvent] {
        var states = try await store.alertStates()
        let hour = statistics.calendar.hour(of: Slot(containing: now))
        let quiet = quietHours?.contains(hour: hour) ?? false
        let namesPeople = max(people.count, household.count) > 1
        var events: [AlertEvent] = []
        var seen: Set<AlertStateKey> = []
        for rule in rules {
            // A rule written twice (`pm25.grade >= 3` and `pm25.grade >= 나쁨`, or once for everyone
            // and once for one person) is one rule per person: the settings refuse that, and this is
            // the second line of defence.
            var moves: [Move] = []
            for (person, inputs) in household where rule.applies(to: person) {
                let key = AlertStateKey(rule: rule.description, person: person)
                guard seen.insert(key).inserted else { continue }
                let current = states[key.description] ?? .idle
                let value = inputs.values[rule.metric]
                let (state, edge) = current.next(holds: value.map(rule.holds), quiet: quiet)
                guard state != current || edge != nil else { continue }
                states[key.description] = state
                moves.append(Move(key: key, state: state, edge: edge, value: value, station: inputs.station))
            }
            for group in Self.announcements(moves, sharing: !rule.metric.isIntake) {
                let event = group[0].edge.map { edge in
                    AlertEvent(
                        kind: edge == .fired ? .fired : .cleared, rule: rule.description, metric: rule.metric, value: group[0].value,
                        station: group[0].station, at: now, people: namesPeople ? group.map(\.key.person) : [])
                }
                // The first person's transition carries the event; the others' are stored beside it.
                for (index, move) in group.enumerated() {
                    let announced = index == 0 ? event : nil
                    if let stored = try await store.saveAlertTransition(
                        rule: move.key.description, state: move.state, event: announced, at: now)
                    {
                        events.append(stored)
                    }
                }
            }
        }
        return events
    }

    /// One person's state change under one rule.
    private struct Move {
        var key: AlertStateKey
        var state: AlertState
        var edge: AlertEdge?
        var value: Double?
        var station: String
    }

    /// The moves grouped into announcements, in the order of their first person: with `sharing`
    /// (the air's metrics), the moves of one station to the same state on the same value are one;
    /// otherwise (a person's own intake) each is its own.
    private static func announcements(_ moves: [Move], sharing: Bool) -> [[Move]] {
        var groups: [[Move]] = []
        for move in moves {
            if sharing,
                let index = groups.firstIndex(where: { group in
                    let first = group[0]
                    return first.station == move.station && first.state == move.state && first.edge == move.edge
                        && first.value == move.value
                })
            {
                groups[index].append(move)
            } else {
                groups.append([move])
            }
        }
        return groups
    }
}

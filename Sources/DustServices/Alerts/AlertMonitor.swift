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

    public init(id: Int64 = 0, kind: Kind, rule: String, metric: AlertMetric?, value: Double?, station: String, at: Date) {
        self.id = id
        self.kind = kind
        self.rule = rule
        self.metric = metric
        self.value = value
        self.station = station
        self.at = at
    }

    /// One line for a phone, in Korean and English: `PM2.5 나쁨 (bad) at 종로구 — rule pm25.grade >= 3`.
    public var title: String {
        switch kind {
        case .test: "FineDust test alert"
        case .fired: "FineDust: \(what)"
        case .cleared: "FineDust: cleared, \(what)"
        }
    }

    /// The message body.
    public var message: String {
        switch kind {
        case .test:
            return "A test from dustctl alerts test (\(station)). If you read this, the alert reaches you."
        case .fired:
            return "\(what) at \(station). Rule: \(rule)."
        case .cleared:
            return "No longer \(rule) at \(station): now \(what)."
        }
    }

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

/// Checks the rules after each poll: computes the inputs from the stored data, moves each rule
/// through `AlertState.next`, stores the transitions and returns what to announce.
public struct AlertMonitor: Sendable {
    private let rules: [AlertRule]
    private let quietHours: QuietHours?
    private let store: any AlertStore
    private let statistics: StatisticsService
    private let forecast: (any TomorrowForecastReader)?
    private let advisories: (any AdvisoryLevelReader)?

    public init(
        rules: [AlertRule], quietHours: QuietHours?, store: any AlertStore, statistics: StatisticsService,
        forecast: (any TomorrowForecastReader)? = nil, advisories: (any AdvisoryLevelReader)? = nil
    ) {
        self.advisories = advisories
        self.rules = rules
        self.quietHours = quietHours
        self.store = store
        self.statistics = statistics
        self.forecast = forecast
    }

    /// The values at `now`: the latest hour's grades when that hour is under 3 hours old (older
    /// data is unknown, not "good"; at 00:20 the latest hour is yesterday's 23–24), today's
    /// intake, tomorrow's forecast.
    public func inputs(at now: Date) async throws(StorageFailure) -> AlertInputs {
        let calendar = statistics.calendar
        let today = calendar.date(containing: now)
        let days = try await statistics.days(from: today.adding(days: -1), through: today)
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
        if let forecast {
            let tomorrow = try await forecast.tomorrowGrades(at: now)
            if let grade = tomorrow.fineDust { values[.forecastTomorrowPM10] = Double(grade.rawValue) }
            if let grade = tomorrow.ultraFineDust { values[.forecastTomorrowPM25] = Double(grade.rawValue) }
            if let days = try await forecast.outlookHighDays(at: now) { values[.outlookHighDays] = Double(days) }
        }
        if let level = try await advisories?.level(at: now) { values[.advisoryLevel] = Double(level) }
        return AlertInputs(station: day.station, values: values)
    }

    /// Evaluates every rule at `now`; returns the stored events to deliver, in rule order.
    public func evaluate(at now: Date) async throws(StorageFailure) -> [AlertEvent] {
        try await evaluate(try await inputs(at: now), at: now)
    }

    /// Evaluates every rule against given inputs.
    public func evaluate(_ inputs: AlertInputs, at now: Date) async throws(StorageFailure) -> [AlertEvent] {
        var states = try await store.alertStates()
        let hour = statistics.calendar.hour(of: Slot(containing: now))
        let quiet = quietHours?.contains(hour: hour) ?? false
        var events: [AlertEvent] = []
        var seen: Set<String> = []
        // A rule written twice (`pm25.grade >= 3` and `pm25.grade >= 나쁨`) is one rule: the
        // settings refuse that, and this is the second line of defence.
        for rule in rules where seen.insert(rule.description).inserted {
            let key = rule.description
            let current = states[key] ?? .idle
            let value = inputs.values[rule.metric]
            let (state, edge) = current.next(holds: value.map(rule.holds), quiet: quiet)
            guard state != current || edge != nil else { continue }
            let event = edge.map { edge in
                AlertEvent(
                    kind: edge == .fired ? .fired : .cleared, rule: key, metric: rule.metric, value: value,
                    station: inputs.station, at: now)
            }
            states[key] = state
            if let stored = try await store.saveAlertTransition(rule: key, state: state, event: event, at: now) {
                events.append(stored)
            }
        }
        return events
    }
}

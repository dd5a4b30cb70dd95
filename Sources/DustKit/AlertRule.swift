import Foundation

/// What an alert rule watches (docs/REFERENCE.md §14): the latest hour's grade, tomorrow's forecast grade,
/// today's intake so far; the latest gas hour's grades and index grade, and the days of the weekly
/// outlook marked 높음, and the official advisory in force (§17).
public enum AlertMetric: String, Sendable, Hashable, CaseIterable, Codable {
    case pm10Grade = "pm10.grade"
    case pm25Grade = "pm25.grade"
    case forecastTomorrowPM10 = "forecast.tomorrow.pm10"
    case forecastTomorrowPM25 = "forecast.tomorrow.pm25"
    case intakeTodayPM10 = "intake.today.pm10"
    case intakeTodayPM25 = "intake.today.pm25"
    // The weekly outlook (docs/REFERENCE.md §17): how many of its four days are 높음 for the region (PM2.5).
    case outlookHighDays = "outlook.high.days"
    // The latest hour's gas grades by the CAI bands and AirKorea's index grade (docs/REFERENCE.md §17).
    case o3Grade = "o3.grade"
    case no2Grade = "no2.grade"
    case coGrade = "co.grade"
    case so2Grade = "so2.grade"
    case khaiGrade = "khai.grade"

    /// The most serious advisory in force for the user's district: 0 none, 1 주의보, 2 경보, 3 중대경보.
    case advisoryLevel = "advisory.level"

    /// The person's indoor PM2.5 in µg/m³ (docs/REFERENCE.md §21): the latest hour their home's monitors
    /// covered, e.g. "ventilate or run the purifier".
    case indoorPM25 = "indoor.pm25"

    /// Whether the metric is a person's own dose rather than the air where they live (docs/REFERENCE.md §18).
    public var isIntake: Bool { self == .intakeTodayPM10 || self == .intakeTodayPM25 }

    /// Whether each person has a value of their own (their dose, their home's monitors), so that one
    /// announcement is never shared between people as the air of one station is.
    public var isPersonal: Bool { isIntake || self == .indoorPM25 }

    /// Whether values are grades 1–4 (and a threshold may be written as a grade word).
    public var isGrade: Bool {
        self != .intakeTodayPM10 && self != .intakeTodayPM25 && self != .outlookHighDays && self != .advisoryLevel && self != .indoorPM25
    }

    /// The particulate pollutant the metric is about; nil for a gas, the index and the advisory level
    /// (which is about all of them).
    public var pollutant: Pollutant? {
        switch self {
        case .pm10Grade, .forecastTomorrowPM10, .intakeTodayPM10: .pm10
        case .pm25Grade, .forecastTomorrowPM25, .intakeTodayPM25, .indoorPM25: .pm25
        case .outlookHighDays: .pm25
        case .o3Grade, .no2Grade, .coGrade, .so2Grade, .khaiGrade, .advisoryLevel: nil
        }
    }

    /// The gas a `….grade` metric watches; nil for every other metric.
    public var gas: Gas? {
        switch self {
        case .o3Grade: .o3
        case .no2Grade: .no2
        case .coGrade: .co
        case .so2Grade: .so2
        default: nil
        }
    }

    /// What an announcement names: `PM2.5`, `O3`, `CAI`.
    public var subjectName: String {
        if let pollutant { return pollutant.displayName }
        if let gas { return gas.displayName }
        return self == .advisoryLevel ? "advisory" : "CAI"
    }

    /// What the metric watches, as a Korean reader names it: 초미세먼지, 오존, 통합대기환경지수, 주의보·경보.
    public var koreanSubjectName: String {
        if let pollutant { return pollutant.koreanName }
        if let gas { return gas.koreanName }
        return self == .advisoryLevel ? "주의보·경보" : "통합대기환경지수"
    }
}

/// The language of the alerts dustd sends (`alerts.language`): Korean, as the dashboard speaks first, or English.
public enum AlertLanguage: String, Sendable, Hashable, CaseIterable {
    case ko
    case en
}

/// `>=`, `>`, `<=`, `<`, `==`, `!=`.
public enum AlertComparison: String, Sendable, Hashable, CaseIterable, Codable {
    case atLeast = ">="
    case above = ">"
    case atMost = "<="
    case below = "<"
    case equal = "=="
    case notEqual = "!="

    func holds(_ value: Double, _ threshold: Double) -> Bool {
        switch self {
        case .atLeast: value >= threshold
        case .above: value > threshold
        case .atMost: value <= threshold
        case .below: value < threshold
        case .equal: value == threshold
        case .notEqual: value != threshold
        }
    }
}

/// One rule, `{when: pm25.grade >= 3}`: a metric, a comparison and a threshold. A grade threshold
/// may be a number (1–4) or a grade word (좋음/보통/나쁨/매우나쁨, good/moderate/bad/verybad).
/// `person:` narrows it to one person of the household (docs/REFERENCE.md §18); without it the rule
/// is everyone's.
public struct AlertRule: Sendable, Hashable, Codable, CustomStringConvertible {
    public var metric: AlertMetric
    public var comparison: AlertComparison
    public var threshold: Double
    /// The one person the rule is about; nil: every person.
    public var person: String?

    public init(metric: AlertMetric, comparison: AlertComparison, threshold: Double, person: String? = nil) {
        self.metric = metric
        self.comparison = comparison
        self.threshold = threshold
        self.person = person
    }

    /// A day's dose past a threshold (`intake.today.pm25 > 50`): it only grows through the day, so it
    /// stops holding when the day turns, which is no news. Its clearing is silent (`AlertMonitor`) and
    /// its alert is news of its day alone: retries end when the day does (`AlertService`).
    public var isNewsOfItsDay: Bool { metric.isIntake && (comparison == .above || comparison == .atLeast) }

    /// Parses `pm25.grade >= 3`; the error says what is wrong in one sentence.
    public init(parsing text: String) throws(AlertRuleError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        // Two-character operators first, so `>=` is not read as `>` followed by `=3`.
        let operators = AlertComparison.allCases.sorted { $0.rawValue.count > $1.rawValue.count }
        guard let (comparison, range) = operators.lazy.compactMap({ op in trimmed.range(of: op.rawValue).map { (op, $0) } }).first else {
            throw AlertRuleError("\"\(text)\" has no comparison; write e.g. pm25.grade >= 3")
        }
        let name = trimmed[..<range.lowerBound].trimmingCharacters(in: .whitespaces).lowercased()
        let value = trimmed[range.upperBound...].trimmingCharacters(in: .whitespaces)
        // `cai.grade` is the index's name everywhere else (JSON, metrics, the page); the rule keeps
        // its stored name `khai.grade`, so an existing rule neither repeats nor forgets an alert.
        guard let metric = AlertMetric(rawValue: name == "cai.grade" ? AlertMetric.khaiGrade.rawValue : name) else {
            let known = AlertMetric.allCases.map(\.rawValue).joined(separator: ", ")
            throw AlertRuleError("\"\(name)\" is not something an alert can watch (\(known))")
        }
        let threshold: Double
        if metric == .advisoryLevel {
            let rank = Double(value).map { Int(exactly: $0) } ?? AdvisoryLevel(word: value).rank
            guard let rank, (0...3).contains(rank) else {
                throw AlertRuleError("an advisory level is 0 (none), 1 (주의보), 2 (경보) or 3 (중대경보), not \(value)")
            }
            threshold = Double(rank)
        } else if let number = Double(value), number.isFinite {
            threshold = number
        } else if metric.isGrade, let grade = DustGrade(word: value) {
            threshold = Double(grade.rawValue)
        } else {
            let expected =
                metric.isGrade
                ? "grade (1–4 or 좋음/보통/나쁨/매우나쁨)"
                : metric == .outlookHighDays ? "number of days (0–4)" : metric == .indoorPM25 ? "number of µg/m³" : "number of µg"
            throw AlertRuleError("\"\(value)\" is not a \(expected)")
        }
        if metric.isGrade, !(1...4).contains(threshold) || threshold != threshold.rounded() {
            throw AlertRuleError("a grade is 1, 2, 3 or 4, not \(value)")
        }
        self.init(metric: metric, comparison: comparison, threshold: threshold)
    }

    /// Whether the condition holds for a value.
    public func holds(_ value: Double) -> Bool { comparison.holds(value, threshold) }

    /// The condition in one spelling for a metric of a few whole values (a grade 1–4, an advisory level 0–3, a
    /// count of days 0–4): the values it holds for, so `pm25.grade > 2`, `>= 3` and `> 2.5` are one condition,
    /// and so are `== 4` and `>= 4`. Two rules of one condition would announce every episode twice; the rule's
    /// `description` (its stored identity) is left as written. Any other metric's condition is its description.
    public var condition: String {
        let values: ClosedRange<Int>
        switch metric {
        case _ where metric.isGrade: values = 1...4
        case .advisoryLevel: values = 0...3
        case .outlookHighDays: values = 0...4
        default: return description
        }
        return "\(metric.rawValue) in \(values.filter { holds(Double($0)) })"
    }

    /// Whether the rule is about `person`: its own person, or everyone.
    public func applies(to person: String) -> Bool { self.person.map { $0 == person } ?? true }

    /// `pm25.grade >= 3`: the condition as written in the configuration, normalised (without the
    /// person); with the person, its identity in the database (a rule edited is a new rule).
    public var description: String {
        // `Int(exactly:)`: a threshold of 1e20 (a rule "switched off" with a huge number) trapped
        // `Int(_:)` and stopped dustd at start, at a reload and at the first check, and every dustctl.
        let number = Int(exactly: threshold).map(String.init) ?? String(threshold)
        return "\(metric.rawValue) \(comparison.rawValue) \(number)"
    }
}

/// The key a (rule, person) pair's state is stored under: the rule's text for `me` (exactly the key
/// an installation without `people:` always used, so an upgrade neither repeats nor forgets an
/// alert), `pm25.grade >= 3 for 민지` for anyone else. Names never hold a space, so the key reads back.
public struct AlertStateKey: Sendable, Hashable, CustomStringConvertible {
    public var rule: String
    public var person: String

    public init(rule: String, person: String) {
        self.rule = rule
        self.person = person
    }

    public var description: String { person == Person.defaultName ? rule : "\(rule) for \(person)" }
}

public struct AlertRuleError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension DustGrade {
    /// A grade named in Korean or English: 좋음, 보통, 나쁨, 매우나쁨 / good, moderate, bad, verybad.
    public init?(word: String) {
        let key = word.lowercased().filter { !$0.isWhitespace && $0 != "_" && $0 != "-" }
        guard
            let grade = DustGrade.allCases.first(where: { grade in
                [grade.koreanName, grade.englishName.filter { !$0.isWhitespace }].contains(key)
            })
        else { return nil }
        self = grade
    }
}

/// Local hours when only clearings are delivered, e.g. 22 to 7 (wrapping midnight). `from == to`
/// means no quiet hours.
public struct QuietHours: Sendable, Hashable, Codable {
    public var fromHour: Int
    public var toHour: Int

    public init(fromHour: Int, toHour: Int) {
        self.fromHour = fromHour
        self.toHour = toHour
    }

    /// `to` may be 24 (the end of the day); `{from: 0, to: 24}` is the whole day.
    public func contains(hour: Int) -> Bool {
        if fromHour == toHour { return false }
        return fromHour < toHour ? (fromHour..<toHour).contains(hour) : hour >= fromHour || hour < toHour
    }

    /// Whether `instant` falls in the quiet hours, by its local hour where `calendar` reckons them.
    public func contains(_ instant: Date, calendar: DayCalendar) -> Bool { contains(hour: calendar.hour(at: instant)) }
}

/// Where one rule stands. `held`: the condition holds but began in quiet hours, so nothing was
/// sent yet; it is announced when they end if it still holds, and forgotten if it clears first.
public enum AlertState: String, Sendable, Hashable, Codable {
    case idle, held, active
}

/// A rule's state as stored, with the instant it last changed.
public struct StoredAlertState: Sendable, Hashable {
    public var state: AlertState
    public var changedAt: Date

    public init(_ state: AlertState, changedAt: Date) {
        self.state = state
        self.changedAt = changedAt
    }
}

extension AlertRule {
    /// The state `stored` stands for at `now`. A day's dose (`isNewsOfItsDay`) held or fired on an
    /// earlier day than `now`'s is idle: that day, and its news, are over, and today's dose starts
    /// again from nothing. Without this, a rule that fired yesterday stayed active until the new day's
    /// dose was known and under its threshold, so a day whose first hour was already over it was
    /// never announced (docs/ALERTS.md, "People").
    public func state(_ stored: StoredAlertState?, at now: Date, calendar: DayCalendar) -> AlertState {
        guard let stored else { return .idle }
        guard isNewsOfItsDay, stored.state != .idle,
            calendar.date(containing: stored.changedAt) < calendar.date(containing: now)
        else { return stored.state }
        return .idle
    }
}

/// What an evaluation announces.
public enum AlertEdge: String, Sendable, Hashable, Codable {
    case fired, cleared
}

extension AlertState {
    /// The pure transition: a rule's state, the metric's current value (nil: unknown, which
    /// changes nothing — a missing hour neither fires nor clears), and whether it is quiet time.
    /// Fires once on the rising edge, once on clearing, never repeats while the condition holds;
    /// in quiet hours only a clearing is announced.
    public func next(holds: Bool?, quiet: Bool) -> (state: AlertState, edge: AlertEdge?) {
        guard let holds else { return (self, nil) }
        switch (self, holds) {
        case (.idle, true), (.held, true):
            return quiet ? (.held, nil) : (.active, .fired)
        case (.idle, false), (.held, false):
            return (.idle, nil)
        case (.active, true):
            return (.active, nil)
        case (.active, false):
            return (.idle, .cleared)
        }
    }
}

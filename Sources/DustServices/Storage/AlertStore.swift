import DustKit
import Foundation

/// Where rule states, events and deliveries are kept, so a restart neither repeats nor forgets an
/// alert.
public protocol AlertStore: Sendable {
    /// The state of every rule seen before, by rule text, with the instant it last changed.
    func storedAlertStates() async throws(StorageFailure) -> [String: StoredAlertState]
    /// Saves a rule's new state and, when there is one, the event it announced, in one
    /// transaction; returns the event with its id.
    func saveAlertTransition(rule: String, state: AlertState, event: AlertEvent?, at: Date) async throws(StorageFailure) -> AlertEvent?
    /// Stores an event outside any rule (a test); returns it with its id.
    func saveAlertEvent(_ event: AlertEvent) async throws(StorageFailure) -> AlertEvent
    /// Records one delivery attempt of an event to a sink.
    func recordAlertDelivery(_ delivery: AlertDelivery) async throws(StorageFailure)
    /// The newest events, newest first, each with its deliveries.
    func recentAlertEvents(limit: Int) async throws(StorageFailure) -> [(event: AlertEvent, deliveries: [AlertDelivery])]
}

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

    /// One line for a phone: `FineDust: 초미세먼지 나쁨 (dad, 민지)`, or in English `FineDust: PM2.5 나쁨 (bad) for dad, 민지`.
    public func title(in language: AlertLanguage) -> String {
        switch (kind, language) {
        case (.test, .ko): "FineDust 시험 알림"
        case (.test, .en): "FineDust test alert"
        case (.fired, .ko): "FineDust: \(koreanWhat)\(forWhomKorean)"
        case (.fired, .en): "FineDust: \(what)\(forWhom)"
        case (.cleared, .ko): "FineDust: 해제, \(koreanWhat)\(forWhomKorean)"
        case (.cleared, .en): "FineDust: cleared, \(what)\(forWhom)"
        }
    }

    /// The message body.
    public func message(in language: AlertLanguage) -> String {
        switch (kind, language) {
        case (.test, .ko):
            "dustctl alerts test가 보낸 시험 알림입니다 (\(station)). 이 글이 보이면 알림이 닿습니다."
        case (.test, .en):
            "A test from dustctl alerts test (\(station)). If you read this, the alert reaches you."
        case (.fired, .ko):
            "\(station)\(forWhomKorean): \(koreanWhat). 규칙: \(rule)."
        case (.fired, .en):
            "\(what) at \(station)\(forWhom). Rule: \(rule)."
        case (.cleared, .ko):
            "\(station)\(forWhomKorean): 이제 조건(\(rule))에 해당하지 않습니다. 지금 \(koreanWhat)."
        case (.cleared, .en):
            "No longer \(rule) at \(station)\(forWhom): now \(what)."
        }
    }

    /// ` for dad, 민지`; empty when the event names nobody.
    private var forWhom: String { people.isEmpty ? "" : " for \(people.joined(separator: ", "))" }
    /// ` (dad, 민지)`; empty when the event names nobody.
    private var forWhomKorean: String { people.isEmpty ? "" : " (\(people.joined(separator: ", ")))" }

    /// The value as its unit says it: `412.5 µg`, `52.0 µg/m³`; nil for a grade or an unknown value.
    private var amount: String? {
        guard let metric, let value, !metric.isGrade else { return nil }
        return fixedDecimals(value, 1) + (metric == .indoorPM25 ? " µg/m³" : " µg")
    }

    /// The grade a grade metric's value stands for.
    private var grade: DustGrade? {
        guard let metric, metric.isGrade, let value, let whole = Int(exactly: value) else { return nil }
        return DustGrade(rawValue: whole)
    }

    /// `PM2.5 나쁨 (bad)`, `PM10 intake today 412.5 µg`, `tomorrow's PM2.5 forecast 나쁨 (bad)`.
    private var what: String {
        guard let metric else { return "test" }
        let subject = metric.subjectName
        let valueText = grade?.bilingualName ?? amount ?? (value.map { fixedDecimals($0, 1) } ?? "unknown")
        switch metric {
        case .pm10Grade, .pm25Grade, .o3Grade, .no2Grade, .coGrade, .so2Grade, .khaiGrade: return "\(subject) \(valueText)"
        case .forecastTomorrowPM10, .forecastTomorrowPM25: return "tomorrow's \(subject) forecast \(valueText)"
        case .intakeTodayPM10, .intakeTodayPM25: return "\(subject) intake today \(valueText)"
        // What to do, only while it holds: a clearing says the air is back, not to open the window.
        case .indoorPM25: return "indoor \(subject) \(valueText)" + (kind == .fired ? " (ventilate or run the purifier)" : "")
        case .outlookHighDays:
            return
                "\(value.flatMap { Int(exactly: $0) }.map(String.init) ?? "unknown") of the weekly outlook's days 높음 (high) for \(subject)"
        case .advisoryLevel:
            let level = value.flatMap { Int(exactly: $0) }
            return level.map { $0 == 0 ? "no advisory in force" : "advisory \(Self.advisoryWords[$0, default: String($0)]) in force" }
                ?? "advisory unknown"
        }
    }

    /// `초미세먼지 나쁨`, `오늘 미세먼지 흡입량 412.5 µg`, `내일 초미세먼지 예보 나쁨`.
    private var koreanWhat: String {
        guard let metric else { return "시험" }
        let subject = metric.koreanSubjectName
        let valueText = grade?.koreanName ?? amount ?? (value.map { fixedDecimals($0, 1) } ?? "알 수 없음")
        switch metric {
        case .pm10Grade, .pm25Grade, .o3Grade, .no2Grade, .coGrade, .so2Grade, .khaiGrade: return "\(subject) \(valueText)"
        case .forecastTomorrowPM10, .forecastTomorrowPM25: return "내일 \(subject) 예보 \(valueText)"
        case .intakeTodayPM10, .intakeTodayPM25: return "오늘 \(subject) 흡입량 \(valueText)"
        case .indoorPM25: return "실내 \(subject) \(valueText)" + (kind == .fired ? " (환기하거나 공기청정기를 켜세요)" : "")
        case .outlookHighDays:
            return "주간 예보에서 \(subject) 높음인 날 \(value.flatMap { Int(exactly: $0) }.map { "\($0)일" } ?? "알 수 없음")"
        case .advisoryLevel:
            let level = value.flatMap { Int(exactly: $0) }
            return level.map { $0 == 0 ? "발령된 주의보·경보 없음" : "\(Self.koreanAdvisoryWords[$0, default: String($0)]) 발령 중" }
                ?? "주의보·경보 알 수 없음"
        }
    }
}

extension AlertEvent {
    /// The advisory levels' words (`advisory.level`).
    fileprivate static let advisoryWords = [1: "주의보 (watch)", 2: "경보 (warning)", 3: "중대경보 (emergency)"]
    fileprivate static let koreanAdvisoryWords = [1: "주의보", 2: "경보", 3: "중대경보"]
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

    /// The detail of the record each delivery begins with (attempt 0, `retrying`), before its first attempt ends.
    public static let begun = "its first attempt began"
    /// The detail of the record a resumed attempt begins with (`retrying`, its own number), before it ends.
    public static let resumed = "taken up again after dustd restarted; this attempt began"

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

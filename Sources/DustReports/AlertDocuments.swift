import DustKit
import DustServices

extension ReportJSON {
    /// One alert event: what a webhook receives, and each entry of `dustctl alerts list --json`.
    /// `{"event":"fired","rule":"pm25.grade >= 3","metric":"pm25.grade","value":3,"grade":"나쁨",
    /// "station":"종로구","time":"2026-11-20T14:05:00+09:00","title":…,"message":…}`, and last
    /// `"people":["dad","민지"]` when the event names people (docs/REFERENCE.md §18). The title and message are in
    /// `language` (`alerts.language`), as the sinks were sent them.
    public static func alertEvent(_ event: AlertEvent, language: AlertLanguage) -> JSON {
        var members: [(String, JSON)] = [
            ("event", .string(event.kind.rawValue)),
            ("rule", event.rule.isEmpty ? .null : .string(event.rule)),
            ("metric", event.metric.map { .string($0.rawValue) } ?? .null),
            // A person's metric (a dose, the home's indoor hour) is a number FineDust computed: to 3 decimals.
            ("value", event.metric?.isPersonal == true ? .measured(event.value) : .number(event.value)),
            ("grade", alertGrade(event).map { .string($0.koreanName) } ?? .null),
            ("station", .string(event.station)),
            ("time", .string(KoreaStandardTime.iso8601(event.at))),
            ("title", .string(event.title(in: language))),
            ("message", .string(event.message(in: language))),
        ]
        if !event.people.isEmpty { members.append(("people", .array(event.people.map(JSON.string)))) }
        return .object(members)
    }

    /// `dustctl alerts list --json`: the rules with their states (each rule once per person it is
    /// about, `"person"` last, when the household is named), the sinks, then the newest events with
    /// every delivery attempt.
    public static func alerts(
        rules: [(rule: String, person: String?, state: AlertState)], sinks: [String],
        events: [(event: AlertEvent, deliveries: [AlertDelivery])], language: AlertLanguage
    ) -> JSON {
        .object([
            (
                "rules",
                .array(
                    rules.map { rule in
                        var members: [(String, JSON)] = [("when", .string(rule.rule)), ("state", .string(rule.state.rawValue))]
                        if let person = rule.person { members.append(("person", .string(person))) }
                        return .object(members)
                    })
            ),
            ("sinks", .array(sinks.map(JSON.string))),
            (
                "events",
                .array(
                    events.map { event, deliveries in
                        guard case .object(var members) = alertEvent(event, language: language) else { return .null }
                        members.append(
                            (
                                "deliveries",
                                .array(
                                    deliveries.map { delivery in
                                        .object([
                                            ("sink", .string(delivery.sink)),
                                            ("attempt", .integer(delivery.attempt)),
                                            ("time", .string(KoreaStandardTime.iso8601(delivery.at))),
                                            ("outcome", .string(delivery.outcome.rawValue)),
                                            ("detail", delivery.detail.map(JSON.string) ?? .null),
                                        ])
                                    })
                            ))
                        return .object(members)
                    })
            ),
        ])
    }

    /// The grade an event's value stands for, when its metric is a grade.
    public static func alertGrade(_ event: AlertEvent) -> DustGrade? {
        guard let metric = event.metric, metric.isGrade, let value = event.value else { return nil }
        return Int(exactly: value).flatMap(DustGrade.init(rawValue:))
    }
}

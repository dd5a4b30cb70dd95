import ArgumentParser
import DustConfig
import DustKit
import DustReports
import DustServices
import Foundation

struct AlertsCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "alerts",
            abstract: helpAbstract(
                "알림 규칙, 알림을 보낼 곳, 보낸 알림 (docs/ALERTS.md).",
                "The alert rules, where alerts go, and what was sent (docs/ALERTS.md)."),
            subcommands: [AlertsListCommand.self, AlertsTestCommand.self])
    }
}

struct AlertsListCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "list",
            abstract: helpAbstract(
                "규칙과 그 상태, 보낼 곳, 최근 알림과 알림마다의 전달 시도를 보여 줍니다.",
                "Show the rules and their states, the sinks, and the latest alerts with each delivery attempt."),
            discussion: helpText("예:", "Example:") + "\n  dustctl alerts list --db /var/lib/dustd/dust.sqlite")
    }

    @OptionGroup var options: GlobalOptions

    @Option(help: .localized("보여 줄 최근 알림 수.", "How many of the latest alerts to show."))
    var last = 20

    func validate() throws {
        guard (1...1000).contains(last) else {
            throw ValidationError(korean: "--last는 1부터 1000까지여야 합니다.", english: "--last must be from 1 to 1000.")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            let language = ReportLanguage.process
            try await withStore(settings, for: .read) { store in
                let states = try await store.storedAlertStates()
                let now = try options.clock(settings).now
                let rules = Self.ruleStates(settings, states: states, at: now)
                let sinks = settings.alerts.sinks.enumerated().map { $1.displayName(position: $0 + 1) }
                let events = try await store.recentAlertEvents(limit: last)
                if options.json {
                    // JSON is the same in every locale: the titles as the sinks were sent them (`alerts.language`).
                    try standardOutputLine(
                        ReportJSON.alerts(rules: rules, sinks: sinks, events: events, language: settings.alerts.language).serialized)
                    return
                }
                let quiet = settings.alerts.quietHours?.contains(now, calendar: settings.calendar) ?? false
                try standardOutputLine(
                    Self.text(
                        rules: rules, sinks: sinks, events: events, calendar: settings.calendar, language: language, quietNow: quiet))
            }
        }
    }

    /// The rules with their states, the sinks and the latest alerts with each sink's last attempt, in
    /// `language` (rule, sink, title and reason as written).
    static func text(
        rules: [(rule: String, person: String?, state: AlertState)], sinks: [String],
        events: [(event: AlertEvent, deliveries: [AlertDelivery])],
        calendar: DayCalendar, language: ReportLanguage, quietNow: Bool = true
    ) -> String {
        var lines = [
            rules.isEmpty ? language.say("알림 규칙이 없습니다 (alerts.rules).", "No alert rules (alerts.rules).") : language.say("규칙:", "Rules:")
        ]
        let named = rules.map { rule in rule.person.map { language.say("\(rule.rule) · \($0)", "\(rule.rule) for \($0)") } ?? rule.rule }
        // Padded by display width in either language: a person named 민지 takes four columns.
        let width = named.map(displayWidth).max() ?? 0
        for (text, rule) in zip(named, rules) {
            let padded = padExactly(text, width)
            // A day's dose clears silently when its day ends (docs/ALERTS.md, "People"): no clearing follows.
            let newsOfItsDay = (try? AlertRule(parsing: rule.rule))?.isNewsOfItsDay ?? false
            lines.append("  \(padded)  \(describe(rule.state, newsOfItsDay: newsOfItsDay, quietNow: quietNow, language))")
        }
        lines.append(
            sinks.isEmpty
                ? language.say("보낼 곳이 없습니다 (alerts.sinks): 알림은 기록만 됩니다.", "No sinks (alerts.sinks): alerts are recorded only.")
                : language.say("보낼 곳: ", "Sinks: ") + sinks.joined(separator: ", "))
        guard !events.isEmpty else {
            lines.append(language.say("아직 알림이 없습니다.", "No alerts yet."))
            return lines.joined(separator: "\n")
        }
        lines.append(language.say("최근 알림:", "Latest alerts:"))
        for (event, deliveries) in events {
            let time = calendar.iso8601(event.at).prefix(16).replacingOccurrences(of: "T", with: " ")
            let kind = language == .korean ? padExactly(kindName(event.kind), 4) : padExactly(event.kind.rawValue, 7)
            lines.append("  \(time)  \(kind)  \(TerminalSafeText.sanitized(event.title(in: language == .korean ? .ko : .en)))")
            // The last attempt per sink says how it ended.
            var last: [String: AlertDelivery] = [:]
            for delivery in deliveries { last[delivery.sink] = delivery }
            for delivery in last.values.sorted(by: { $0.sink < $1.sink }) {
                let reason = delivery.outcome == .delivered ? "" : delivery.detail.map { ": \(TerminalSafeText.sanitized($0))" } ?? ""
                // Attempt 0: the first has begun and not ended (under way, or cut short by dustd's stop or a
                // crash: the next start takes it up).
                let attempt =
                    delivery.attempt == 0
                    ? language.say("첫 시도가 끝나지 않음", "attempt 1 not finished")
                    : language.say(delivery.attempt == 1 ? "첫 번째 시도" : "\(delivery.attempt)번째 시도", "attempt \(delivery.attempt)")
                lines.append(
                    "      \(TerminalSafeText.sanitized(delivery.sink)): "
                        + language.say("\(outcomeName(delivery.outcome)) (\(attempt))", "\(delivery.outcome.rawValue) (\(attempt))")
                        + reason)
            }
            if deliveries.isEmpty {
                // With sinks configured, an event without records came before them (or from an older
                // FineDust stopped before its first attempts): not "no sink".
                lines.append(
                    sinks.isEmpty
                        ? language.say("      (보낼 곳 없음)", "      (no sink)")
                        : language.say("      (기록된 전달 없음)", "      (no delivery recorded)"))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Each rule's state at `now` for each person it is about, in rule order (docs/REFERENCE.md §18): a
    /// day's dose held or fired on an earlier day is idle. Without `people:` the one person `me` is not
    /// named, and the rules read as they always did.
    static func ruleStates(
        _ settings: FineDustSettings, states: [String: StoredAlertState], at now: Date
    ) -> [(rule: String, person: String?, state: AlertState)] {
        let namesPeople = settings.people.map(\.name) != [Person.defaultName]
        return settings.alerts.rules.flatMap { rule in
            settings.people.filter { rule.applies(to: $0.name) }.map { person in
                let key = AlertStateKey(rule: rule.description, person: person.name)
                let state = rule.state(states[key.description], at: now, calendar: settings.calendar)
                return (rule: rule.description, person: namesPeople ? person.name : nil, state: state)
            }
        }
    }

    /// - Parameter quietNow: whether quiet hours are in force at the moment asked: a rise held in them whose
    ///   value has since gone unknown (no fresh hour) waits for the next known hour after they end.
    private static func describe(_ state: AlertState, newsOfItsDay: Bool, quietNow: Bool, _ language: ReportLanguage) -> String {
        switch state {
        case .idle: language.say("대기", "idle")
        case .held where quietNow: language.say("조건 충족, 조용한 시간이라 보류", "holds, held back by quiet hours")
        case .held:
            language.say(
                "조용한 시간에 충족되어 보류, 다음 측정값이 여전히 충족하면 보냄", "held in quiet hours; sent with the next known hour if it still holds")
        case .active where newsOfItsDay: language.say("조건 충족 · 알림 보냄 (오늘이 지나면 끝남)", "active (ends with the day)")
        case .active: language.say("조건 충족 · 알림 보냄 (해제되면 다시 알림)", "active (a clearing follows)")
        }
    }

    /// 알림, 해제, 시험.
    private static func kindName(_ kind: AlertEvent.Kind) -> String {
        switch kind {
        // 알림, not 발령: 발령 is an official advisory's word (주의보 발령), and these are the household's own rules.
        case .fired: "알림"
        case .cleared: "해제"
        case .test: "시험"
        }
    }

    /// 전달됨, 재시도 중, 실패.
    private static func outcomeName(_ outcome: AlertDelivery.Outcome) -> String {
        switch outcome {
        case .delivered: "전달됨"
        case .retrying: "재시도 중"
        case .failed: "실패"
        }
    }
}

struct AlertsTestCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "test",
            abstract: helpAbstract(
                "보낼 곳마다 시험 알림을 한 번 보내고, 어디서 받았는지 알려 줍니다.",
                "Send a test alert to every sink once, and say which took it."),
            discussion: helpText(
                """
                이 설정과 데이터베이스로 `dustd --test-alerts`를 실행합니다(dustd는 dustctl과
                함께 설치되는, 네트워크와 통신하는 FineDust 프로그램입니다). 보낼 곳이 모두
                시험 알림을 받으면 0, 하나라도 받지 못하면 69로 끝납니다. 예:
                  dustctl alerts test --config /etc/dustd/dustd.yaml
                """,
                """
                Runs `dustd --test-alerts` (dustd, installed beside dustctl, is the FineDust
                program that talks to the network) with this configuration and database.
                Exit 0 when every sink took the test, 69 when one did not. Example:
                  dustctl alerts test --config /etc/dustd/dustd.yaml
                """))
    }

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await reportingFailures {
            try DaemonExecutable.run(["--test-alerts"], options: options, for: "dustctl alerts test")
        }
    }
}

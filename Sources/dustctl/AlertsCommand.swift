import ArgumentParser
import DustConfig
import DustKit
import DustReports
import DustServices
import Foundation

struct AlertsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alerts",
        abstract: "The alert rules, where alerts go, and what was sent (docs/ALERTS.md).",
        subcommands: [AlertsListCommand.self, AlertsTestCommand.self])
}

struct AlertsListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Show the rules and their states, the sinks, and the latest alerts with each delivery attempt.",
        discussion: "Example:\n  dustctl alerts list --db /var/lib/dustd/dust.sqlite")

    @OptionGroup var options: GlobalOptions

    @Option(help: "How many of the latest alerts to show.")
    var last = 20

    func validate() throws {
        guard (1...1000).contains(last) else { throw ValidationError("--last must be from 1 to 1000.") }
    }

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            try await withStore(settings, for: .read) { store in
                let states = try await store.alertStates()
                let rules = Self.ruleStates(settings, states: states)
                let sinks = settings.alerts.sinks.enumerated().map { $1.displayName(position: $0 + 1) }
                let events = try await store.recentAlertEvents(limit: last)
                if options.json {
                    try standardOutputLine(ReportJSON.alerts(rules: rules, sinks: sinks, events: events).serialized)
                    return
                }
                try standardOutputLine(rules.isEmpty ? "No alert rules (alerts.rules)." : "Rules:")
                let named = rules.map { rule in rule.person.map { "\(rule.rule) for \($0)" } ?? rule.rule }
                let width = named.map(\.count).max() ?? 0
                for (text, rule) in zip(named, rules) {
                    try standardOutputLine("  \(text.padding(toLength: width, withPad: " ", startingAt: 0))  \(Self.describe(rule.state))")
                }
                try standardOutputLine(
                    sinks.isEmpty ? "No sinks (alerts.sinks): alerts are recorded only." : "Sinks: \(sinks.joined(separator: ", "))")
                guard !events.isEmpty else {
                    try standardOutputLine("No alerts yet.")
                    return
                }
                try standardOutputLine("Latest alerts:")
                for (event, deliveries) in events {
                    let time = settings.calendar.iso8601(event.at).prefix(16).replacingOccurrences(of: "T", with: " ")
                    try standardOutputLine(
                        "  \(time)  \(event.kind.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0))  \(TerminalSafeText.sanitized(event.title))"
                    )
                    // The last attempt per sink says how it ended.
                    var last: [String: AlertDelivery] = [:]
                    for delivery in deliveries { last[delivery.sink] = delivery }
                    for delivery in last.values.sorted(by: { $0.sink < $1.sink }) {
                        let reason = delivery.detail.map { ": \(TerminalSafeText.sanitized($0))" } ?? ""
                        try standardOutputLine(
                            "      \(delivery.sink): \(delivery.outcome.rawValue) (attempt \(delivery.attempt))\(delivery.outcome == .delivered ? "" : reason)"
                        )
                    }
                    if deliveries.isEmpty { try standardOutputLine("      (no sink)") }
                }
            }
        }
    }

    /// Each rule's state for each person it is about, in rule order (docs/REFERENCE.md §18). Without
    /// `people:` the one person `me` is not named, and the rules read as they always did.
    static func ruleStates(
        _ settings: FineDustSettings, states: [String: AlertState]
    ) -> [(rule: String, person: String?, state: AlertState)] {
        let namesPeople = settings.people.map(\.name) != [Person.defaultName]
        return settings.alerts.rules.flatMap { rule in
            settings.people.filter { rule.applies(to: $0.name) }.map { person in
                let key = AlertStateKey(rule: rule.description, person: person.name)
                return (rule: rule.description, person: namesPeople ? person.name : nil, state: states[key.description] ?? .idle)
            }
        }
    }

    private static func describe(_ state: AlertState) -> String {
        switch state {
        case .idle: "idle"
        case .held: "holds, held back by quiet hours"
        case .active: "active (alert sent; a clearing follows)"
        }
    }
}

struct AlertsTestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Send a test alert to every sink once, and say which took it.",
        discussion: """
            Runs `dustd --test-alerts` (dustd, installed beside dustctl, is the FineDust
            program that talks to the network) with this configuration and database.
            Exit 0 when every sink took the test, 69 when one did not. Example:
              dustctl alerts test --config /etc/dustd/dustd.yaml
            """)

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await reportingFailures {
            try DaemonExecutable.run(["--test-alerts"], options: options, for: "dustctl alerts test")
        }
    }
}

import ArgumentParser
import DustKit
import Foundation

/// `dustctl`: ask FineDust what you breathed.
@main
struct DustCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dustctl",
        abstract: "Ask FineDust how much fine dust (PM10) and ultra-fine dust (PM2.5) you breathed.",
        discussion: """
            Reads the database that dustd fills every hour.
            The dose ("intake", in µg) of an hour is the concentration at the person's
            home station, times the air they breathed in that hour, times the share of
            it that came from outdoors. The air breathed depends on what they were doing
            (asleep, sitting, on their feet, walking fast, running) and, when `born` is
            configured, on their age (the US EPA Exposure Factors Handbook's rates: at
            her desk a child of 8 breathes more air an hour than her father, on a walk
            less). The share from outdoors is the time spent outside, and indoors the
            home's infiltration (how much outdoor dust gets in; an air purifier lowers it).
            What changes a person's number: their age, schedule and infiltration in
            `people:`; walks imported from the Health app, GPX or CSV (an hour with a
            walk counts as on their feet and partly outdoors); and an Apple Watch's sleep
            and heart rate from the Health app's export (`dustctl activity import FILE
            --person NAME`): time asleep counts at the sleeping rate, other time with a
            heart rate at the level its heart-rate reserve shows, the rest by the
            schedule. What it does not know: dust from indoor sources (cooking, smoke,
            candles), masks, and where the person really was when it is not their home
            station's district. `--person NAME` shows one person's dose (default: the
            first configured), `--everyone` each in turn; without `people:` there is one
            person, `me`.
            Examples:
              dustctl demo
              dustctl week --db finedust-demo.sqlite --station 종로구 --end 2026-11-20
              dustctl hourly 2026-11-20 --station 종로구 --json
              dustctl week --everyone
            """,
        version: FineDustVersion.current,
        subcommands: [
            TodayCommand.self, DayCommand.self, HourlyCommand.self, WeekCommand.self, ExportCommand.self, ImportCommand.self,
            ActivityCommand.self, StationsCommand.self, AlertsCommand.self, StatusCommand.self, ForecastCommand.self,
            AdvisoriesCommand.self, PersonCommand.self, HomeAssistantCommand.self, IndoorCommand.self,
            DemoCommand.self,
        ]
    )

    /// ArgumentParser's own `main`, except that SIGPIPE is ignored, help and usage errors go
    /// through dustctl's writer, and an asynchronous command runs on the main thread
    /// (`CommandRunLoop`): the store protocols are asynchronous, SQLiteStore answers without
    /// suspending.
    static func main() {
        // A closed pipe then shows up as EPIPE from write(2), which ends dustctl quietly with 0,
        // instead of a signal that kills it halfway through a line.
        signal(SIGPIPE, SIG_IGN)
        // A mistyped command is named as one, not as its first option ("Unknown option '--db'").
        let arguments = CommandLine.arguments.dropFirst()
        if let first = arguments.first, !first.hasPrefix("-"), first != "help" {
            let names = configuration.subcommands.map { $0._commandName }
            if !names.contains(first) {
                let suggestion = SpellingDistance.nearest(to: first, among: names).map { "; did you mean \($0)?" } ?? ""
                let message =
                    "dustctl: \"\(TerminalSafeText.sanitized(first))\" is not a command\(suggestion) (dustctl --help lists them).\n"
                _ = writeAll(message.utf8, to: STDERR_FILENO)
                Self.exit(withError: ExitCode(64))
            }
            // A group's own command forgotten (`dustctl alerts --db x`) is named as such, not as its option.
            if let group = configuration.subcommands.first(where: { $0._commandName == first }),
                case let commands = group.configuration.subcommands, !commands.isEmpty, group.configuration.defaultSubcommand == nil
            {
                let names = commands.map { $0._commandName }
                let next = arguments.dropFirst().first
                if let next, !names.contains(next), !["-h", "--help", "help"].contains(next) {
                    let suggestion =
                        next.hasPrefix("-") ? "" : SpellingDistance.nearest(to: next, among: names).map { "; did you mean \($0)?" } ?? ""
                    let message =
                        "dustctl: \(first) needs one of its commands before \"\(TerminalSafeText.sanitized(next))\": "
                        + "\(names.joined(separator: ", "))\(suggestion) (dustctl \(first) --help says what each does).\n"
                    _ = writeAll(message.utf8, to: STDERR_FILENO)
                    Self.exit(withError: ExitCode(64))
                }
            }
        }
        do {
            var command = try parseAsRoot()
            if let asynchronous = command as? any AsyncParsableCommand {
                nonisolated(unsafe) var running = asynchronous
                try CommandRunLoop().run { try await running.run() }
            } else {
                try command.run()
            }
        } catch {
            // ArgumentParser's `exit(withError:)` prints with `print`, whose failures nobody sees.
            var status = exitCode(for: error)
            let message = fullMessage(for: error)
            if !message.isEmpty, status.isSuccess {
                do {
                    try CommandRunLoop().run {
                        try await reportingFailures { @Sendable () throws -> Void in try standardOutputLine(message) }
                    }
                } catch {
                    status = error as? ExitCode ?? .failure
                }
            } else if !message.isEmpty {
                // A usage error quotes the argument given, which may hold anything.
                _ = writeAll((TerminalOutput.safe(message) + "\n").utf8, to: STDERR_FILENO)
            }
            Self.exit(withError: status)
        }
    }
}

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
            Reads the database that dustd fills every hour. Examples:
              dustctl demo
              dustctl week --db finedust-demo.sqlite --station 종로구 --end 2026-11-20
              dustctl hourly 2026-11-20 --station 종로구 --json
            """,
        version: FineDustVersion.current,
        subcommands: [
            TodayCommand.self, DayCommand.self, HourlyCommand.self, WeekCommand.self, ExportCommand.self, ImportCommand.self,
            ActivityCommand.self, StationsCommand.self, AlertsCommand.self, StatusCommand.self, ForecastCommand.self,
            AdvisoriesCommand.self,
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

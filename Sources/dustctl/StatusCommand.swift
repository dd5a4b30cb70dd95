import ArgumentParser
import DustKit
import DustServices
import DustStore
import Foundation

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "What dustd is doing: last success, last error and its fix, next poll, rows stored, staleness.",
        discussion: "Example:\n  dustctl status\n  dustctl status --json")

    /// Data is stale when the newest stored hour ended longer ago than this.
    static let staleAfter: TimeInterval = 3 * 3600

    @OptionGroup var options: GlobalOptions

    func run() throws {
        try reportingFailures {
            let settings = try options.settings()
            let store = try SQLiteStore(path: settings.storagePath, mode: .readOnly)
            let station = settings.station.name
            let now = Date()
            let lastSuccess = try store.recentAttempts(limit: 1, outcome: .ok).first
            let lastError = try store.recentAttempts(limit: 1, excluding: .ok).first
            let state = try store.daemonState()
            let latest = try station.flatMap { try store.latestSlot(station: $0, endingBy: now) }
            let stale = latest.map { now.timeIntervalSince($0.end) > Self.staleAfter } ?? true
            let rows = try store.measurementCount()
            let calendar = settings.calendar
            // An error older than the last success is history, not the current state.
            let currentError = lastError.flatMap { error in
                (lastSuccess.map { error.startedAt > $0.startedAt } ?? true) ? error : nil
            }

            if options.json {
                func attempt(_ attempt: PollAttempt?) -> JSON {
                    guard let attempt else { return .null }
                    return .object([
                        ("time", .string(calendar.iso8601(attempt.startedAt))),
                        ("station", attempt.station.map(JSON.string) ?? .null),
                        ("operation", .string(attempt.operation)),
                        ("outcome", .string(attempt.outcome.rawValue)),
                        ("httpStatus", attempt.httpStatus.map { JSON.integer($0) } ?? .null),
                        ("resultCode", attempt.resultCode.map(JSON.string) ?? .null),
                        ("rowsNew", .integer(attempt.rowsNew)),
                        ("rowsUpdated", .integer(attempt.rowsUpdated)),
                        ("durationMs", .integer(attempt.durationMilliseconds)),
                        ("message", attempt.message.map(JSON.string) ?? .null),
                    ])
                }
                try standardOutputLine(JSON.object([
                    ("database", .string(settings.storagePath)),
                    ("station", station.map(JSON.string) ?? .null),
                    ("state", state["state"].map(JSON.string) ?? .null),
                    ("nextPoll", state["next_poll"].flatMap { $0.isEmpty ? nil : JSON.string($0) } ?? .null),
                    ("latestSlotEnd", latest.map { JSON.string(calendar.iso8601($0.end)) } ?? .null),
                    ("stale", .bool(stale)),
                    ("rows", .integer(rows)),
                    ("lastSuccess", attempt(lastSuccess)),
                    ("lastError", attempt(lastError)),
                    ("currentError", .bool(currentError != nil)),
                    ("reloadRefused", state["reload_refused"].flatMap { $0.isEmpty ? nil : JSON.string($0) } ?? .null),
                ]).serialized)
                return
            }
            let style = TextStyle.forStandardOutput()
            func when(_ date: Date) -> String {
                let minutes = Int(now.timeIntervalSince(date) / 60)
                let ago = minutes < 1 ? "just now" : minutes < 120 ? "\(minutes) min ago" : "\(minutes / 60) h ago"
                return "\(calendar.iso8601(date)) (\(ago))"
            }
            var lines = [style.bold("FineDust · \(settings.storagePath)")]
            lines.append("Station       \(station ?? "– (station.name is not set)")")
            lines.append("dustd         \(state["state"] ?? "has not run against this database yet")")
            if let next = state["next_poll"], !next.isEmpty { lines.append("Next poll     \(next)") }
            if let refused = state["reload_refused"], !refused.isEmpty {
                lines.append(style.graded("Reload        ", .bad) + "refused, still running the previous configuration: \(refused)")
            }
            lines.append("Last success  \(lastSuccess.map { "\(when($0.startedAt)): \($0.operation), \($0.rowsNew) new, \($0.rowsUpdated) revised" } ?? "never")")
            if let lastError {
                let label = currentError == nil ? "Last error    " : style.graded("Last error    ", .veryBad)
                lines.append(label + "\(when(lastError.startedAt)): \(lastError.operation)")
                if let message = lastError.message { lines.append("              \(message)") }
            }
            let freshness = latest.map { "newest hour ends \(calendar.iso8601($0.end))" } ?? "no hours stored"
            lines.append("Data          \(rows) rows; \(freshness)" + (stale ? style.graded(" — stale (nothing new for 3 hours)", .bad) : ""))
            try standardOutputLine(lines.joined(separator: "\n"))
        }
    }
}

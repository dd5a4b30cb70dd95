import ArgumentParser
import DustConfig
import DustKit
import DustReports
import DustServices
import Foundation

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "What dustd is doing: last success, last error and its fix, next poll, rows stored, staleness.",
        discussion: """
            Exit status, for cron and monitoring: 0 dustd is running and the data is
            fresh; 3 dustd is not running (stopped, gone without stopping, never run,
            or last run by --once); 4 dustd is running but not responding (its process
            is alive and its heartbeat late), the data is stale (nothing new for 3
            hours) or the last poll failed. Examples:
              dustctl status
              dustctl status --json
            """)

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            try await withStore(settings, for: .read) { store in
                let station = settings.station.name
                let now = try options.clock(settings).now
                let reading = try await StatusReading.read(from: store, station: station, now: now, processIsDustd: processIsDustd)
                let (health, rows, forecastCalls) = (reading.health, reading.rows, reading.forecastCallsToday)
                let calendar = settings.calendar
                if options.json {
                    let asked = Set(settings.indoor.sensors.filter { $0.kind != .imported }.map(\.name))
                    let indoor = asked.isEmpty ? [] : try await store.indoorSensorStates().filter { asked.contains($0.sensor) }
                    try standardOutputLine(
                        ReportJSON.status(
                            health, database: settings.storage.description, station: station, rows: rows,
                            calendar: calendar, forecastCallsToday: forecastCalls, indoor: indoor
                        ).serialized)
                } else {
                    var text = text(health, settings: settings, rows: rows, forecastCalls: forecastCalls, now: now)
                    if let location = try await locationLine(settings, store: store) { text += "\n" + location }
                    for line in try await indoorLines(settings, store: store, now: now) { text += "\n" + line }
                    try standardOutputLine(text)
                }
                if health.exitStatus != 0 { throw ExitCode(health.exitStatus) }
            }
        }
    }

    private func text(_ health: DaemonHealth, settings: FineDustSettings, rows: Int, forecastCalls: Int, now: Date) -> String {
        let style = TextStyle.forStandardOutput()
        let calendar = settings.calendar
        func when(_ date: Date) -> String {
            "\(calendar.iso8601(date)) (\(DaemonHealth.age(now.timeIntervalSince(date))) ago)"
        }
        let status = health.status
        var lines = [style.bold("FineDust · \(settings.storage.description)")]
        lines.append("Station       \(settings.station.name ?? "– (station.name is not set)")")
        let daemon = "dustd         \(health.daemonSummary)"
        lines.append(health.daemon == .running ? daemon : style.graded(daemon, .bad))
        // Said only when the poller is another machine (several dustd on one database, docs/REFERENCE.md §20).
        if health.elsewhere, let status, let host = status.host {
            lines.append("Poller        host \(TerminalSafeText.sanitized(host)), PID \(status.pid)")
        }
        if let next = health.nextPoll { lines.append("Next poll     \(calendar.iso8601(next))") }
        if let refused = status?.reloadRefused {
            // Only a running dustd still runs its previous configuration.
            let outcome =
                health.daemon == .running
                ? "refused, still running the previous configuration" : "refused at \(calendar.iso8601(refused.at))"
            lines.append(style.graded("Reload        ", .bad) + "\(outcome): \(refused.reason)")
        }
        lines.append(
            "Last success  " + (status?.lastSuccess.map { "\(when($0.at)): \($0.rowsNew) new, \($0.rowsUpdated) revised" } ?? "never"))
        if let failure = status?.lastError {
            let label = status?.lastPollFailed == true ? style.graded("Last error    ", .veryBad) : "Last error    "
            lines.append(label + "\(when(failure.at)) (\(failure.kind.rawValue)" + (failure.resultCode.map { ", code \($0)" } ?? "") + ")")
            lines.append("              \(failure.message)")
        }
        let data = "Data          \(rows) rows; \(health.dataSummary)"
        lines.append(health.stale ? style.graded(data, .bad) : data)
        lines.append(forecastLine(status?.forecast, nextFetch: health.nextForecastFetch, settings: settings, calls: forecastCalls))
        if let failure = status?.forecast?.lastError {
            lines.append("              last error \(when(failure.at)): \(failure.message)")
        }
        // Said only when an advisory service is off: otherwise the text is what it always was.
        for off in status?.advisories?.turnedOff ?? [] {
            lines.append(
                style.graded("Advisories    ", .bad) + "\(off.pollutant.displayName) off since \(calendar.iso8601(off.at)): \(off.remedy)")
        }
        return lines.joined(separator: "\n")
    }

    /// A line per indoor sensor that has a problem now, with its fix (docs/REFERENCE.md §21); none
    /// when every sensor answers (or none is configured).
    private func indoorLines(_ settings: FineDustSettings, store: any FineDustStore, now: Date) async throws -> [String] {
        let asked = Set(settings.indoor.sensors.filter { $0.kind != .imported }.map(\.name))
        guard !asked.isEmpty else { return [] }
        let style = TextStyle.forStandardOutput()
        return try await store.indoorSensorStates().filter { asked.contains($0.sensor) }.compactMap { state in
            guard let problem = state.problem else { return nil }
            let since = state.problemSince.map { " since \(settings.calendar.iso8601($0))" } ?? ""
            return style.graded("Indoor        ", .bad) + "\(state.sensor)\(since): it \(TerminalSafeText.sanitized(problem))"
        }
    }

    /// What following people needs (docs/REFERENCE.md §19), said only when someone has a `home` or
    /// a stored track: national data (`station.mode: nation`) and a station list with positions.
    private func locationLine(_ settings: FineDustSettings, store: any FineDustStore) async throws -> String? {
        let tracked = Set(try await store.positionSummaries().map(\.person))
        let homes = settings.people.filter { $0.home != nil }.map(\.name)
        let people = settings.people.map(\.name).filter { tracked.contains($0) || homes.contains($0) }
        guard !people.isEmpty else { return nil }
        let placed = StationPositions(stations: try await store.stations()).count
        var needs: [String] = []
        if settings.station.mode != .nation {
            needs.append("station.mode: nation (every station's hour; now \(settings.station.mode.rawValue))")
        }
        if placed == 0 { needs.append("the station list with positions (dustctl stations sync)") }
        let who = people.map { TerminalSafeText.sanitized($0) }.joined(separator: ", ")
        guard needs.isEmpty else {
            return "Location      following \(who) needs " + needs.joined(separator: " and ")
                + "; until then their hours use the home station's values"
        }
        return
            "Location      following \(who) within \(fixedDecimals(settings.location.radiusKilometres, 1)) km (\(placed) stations placed)"
    }

    /// `Forecast      4/12 calls today (KST); latest issue 2026-11-22 11시; next fetch …`.
    private func forecastLine(_ run: DaemonStatus.ForecastRun?, nextFetch: Date?, settings: FineDustSettings, calls: Int) -> String {
        var line = "Forecast      \(calls)/\(ForecastPlanner.dailyCallCap) calls today (KST)"
        guard settings.forecast.enabled else { return line + "; forecast.enabled is false" }
        if let issue = run?.latestIssue { line += "; latest issue \(ForecastIssueTime.label(issue)) 발표" }
        if let next = nextFetch { line += "; next fetch \(settings.calendar.iso8601(next))" }
        return line
    }
}
